module

public import Bpe.Regex.Syntax

/-!
# Regex semantics: backtracking, leftmost-first, as tiktoken's engine (fancy-regex)

A continuation-passing backtracking matcher over code points. A position is the suffix of the
text that remains to be read; a continuation takes the suffix where a sub-match ends and
returns the end of the whole match (`some rest`) or `none` (fail: backtrack). Every choice is
tried in priority order, so the first success is the match that a backtracking engine reports:

* `alt a b`: all of `a`'s ways first, then `b`'s (ordered alternation);
* greedy repetition: one more iteration before stopping, at every count;
* possessive repetition (`?+` `*+` `++` `{m,n}+`, an atomic group around the greedy one):
  the first way the repetition alone matches, with no backtracking into it;
* `(?!r)`: succeeds, consuming nothing, when `r` has no match here;
* `$`: the end of the haystack only (not before a final `"\n"`; no multiline mode). The
  haystack is what the caller passes: tiktoken runs the pattern on each slice of the text
  between special tokens, so there `$` is the end of that slice.
* `(?i:r)`: inside `r`, a code point matches a literal or a class when it or one of its case
  orbit does (a negated class is the complement of the case-closed set, as in fancy-regex).

An unbounded repetition stops when an iteration consumes nothing (that iteration fails); this
only matters for bodies that can match the empty string, which the patterns do not have.

Termination is structural: on the term, and for a repetition on a counter; the counter of an
unbounded loop is the length of the remaining input (`star`), which each iteration shortens.

`findIter` is `find_iter`: leftmost matches, non-overlapping, the text between matches
skipped; after an empty match the search resumes one code point further, and an empty match
where the previous match ended is not reported (fancy-regex's rule).
-/

@[expose] public section
noncomputable section

namespace Bpe.Regex

/-- A continuation: from the end of a sub-match to the end of the whole match. -/
abbrev Cont := List Nat → Option (List Nat)

/-- Whether the class member `i` contains code point `x`. -/
def itemHolds (C : Classes) (x : Nat) : Item → Bool
  | .char c => x == c
  | .range lo hi => decide (lo ≤ x) && decide (x ≤ hi)
  | .prop p => C.has p x

/-- The set of a class before negation and case closure. -/
def classBase (C : Classes) : CharClass → Nat → Bool
  | .esc _ p, x => C.has p x
  | .set _ items, x => items.any (itemHolds C x)

/-- Whether the class is negated. -/
def classNegated : CharClass → Bool
  | .esc n _ => n
  | .set n _ => n

/-- Whether code point `x` is in the class; case-insensitively (`ci`) the set is closed under
case orbits before the negation. -/
def classHolds (C : Classes) (ci : Bool) (k : CharClass) (x : Nat) : Bool :=
  (classBase C k x || (ci && (C.orbit x).any (classBase C k))) != classNegated k

/-- Whether code point `x` matches the literal `c` (case-insensitively when `ci`). -/
def charHolds (C : Classes) (ci : Bool) (c x : Nat) : Bool :=
  x == c || (ci && (C.orbit x).contains c)

/-- One code point that satisfies `p`, then `k`. -/
def step (p : Nat → Bool) (k : Cont) : List Nat → Option (List Nat)
  | [] => none
  | x :: rest => if p x then k rest else none

/-- Exactly `n` iterations of the matcher `m`, then `k`. -/
def times (m : List Nat → Cont → Option (List Nat)) (k : Cont) : Nat → Cont
  | 0, s => k s
  | n + 1, s => m s fun s' => times m k n s'

/-- At most `n` more iterations of `m`, greedy, then `k`. -/
def upTo (m : List Nat → Cont → Option (List Nat)) (k : Cont) : Nat → Cont
  | 0, s => k s
  | n + 1, s => (m s fun s' => upTo m k n s').orElse fun _ => k s

/-- Any number of iterations of `m`, greedy, each of which must shorten the input, then `k`.
The counter `n` bounds the iterations; `n = s.length + 1` is enough: more changes nothing
(`Bpe.Regex.star_succ`). -/
def star (m : List Nat → Cont → Option (List Nat)) (k : Cont) : Nat → Cont
  | 0, s => k s
  | n + 1, s =>
    (m s fun s' => if s'.length < s.length then star m k n s' else none).orElse fun _ => k s

/-- `r{lo,hi}` with the matcher `m` of `r`, greedy: `lo` iterations, then at most `hi - lo`
more (`hi = some _`) or any number (`hi = none`). -/
def repeatGreedy (m : List Nat → Cont → Option (List Nat)) (lo : Nat) (hi : Option Nat)
    (k : Cont) : Cont :=
  times m (fun s => match hi with
    | some h => upTo m k (h - lo) s
    | none => star m k (s.length + 1) s) lo

/-- The matcher: `matchRe C r ci s k` runs `r` on `s` (case-insensitively when `ci`) and
passes each way it matches, in priority order, to `k`, until `k` succeeds. -/
def matchRe (C : Classes) : Re → Bool → List Nat → Cont → Option (List Nat)
  | .empty, _, s, k => k s
  | .char c, ci, s, k => step (charHolds C ci c) k s
  | .cls cc, ci, s, k => step (classHolds C ci cc) k s
  | .seq a b, ci, s, k => matchRe C a ci s fun s' => matchRe C b ci s' k
  | .alt a b, ci, s, k => (matchRe C a ci s k).orElse fun _ => matchRe C b ci s k
  | .rep r lo hi possessive, ci, s, k =>
    if possessive then
      match repeatGreedy (matchRe C r ci) lo hi some s with
      | some e => k e
      | none => none
    else repeatGreedy (matchRe C r ci) lo hi k s
  | .group r, ci, s, k => matchRe C r ci s k
  | .caseless r, _, s, k => matchRe C r true s k
  | .notAhead r, ci, s, k =>
    match matchRe C r ci s some with
    | some _ => none
    | none => k s
  | .eos, _, s, k => if s.isEmpty then k s else none

/-- The match of `r` that starts at `s` (anchored there), as the suffix where it ends. -/
def matchAt (C : Classes) (r : Re) (s : List Nat) : Option (List Nat) :=
  matchRe C r false s some

/-- One step of the `find_iter` loop at `s`, with `loop` for the rest. `adj`: the previous
match ended here (so an empty match here is not reported). -/
def findStep (C : Classes) (r : Re) (loop : Bool → List Nat → List (List Nat)) (adj : Bool)
    (s : List Nat) : List (List Nat) :=
  match matchAt C r s with
  | some rest =>
    if rest.length < s.length then s.take (s.length - rest.length) :: loop true rest
    else if adj then
      match s with
      | [] => []
      | _ :: t => loop false t
    else
      [] :: match s with
        | [] => []
        | _ :: t => loop false t
  | none =>
    match s with
    | [] => []
    | _ :: t => loop false t

/-- The `find_iter` loop; `fuel` bounds the steps. `s.length + 1` is enough (each step but
the last reads one code point or more): more changes nothing (`Bpe.Regex.findLoop_succ`). -/
def findLoop (C : Classes) (r : Re) : Nat → Bool → List Nat → List (List Nat)
  | 0, _, _ => []
  | fuel + 1, adj, s => findStep C r (findLoop C r fuel) adj s

/-- All leftmost, non-overlapping matches of `r` in `s`, in order; the text between them is
skipped (fancy-regex's `find_iter`, over code points). -/
def findIter (C : Classes) (r : Re) (s : List Nat) : List (List Nat) :=
  findLoop C r (s.length + 1) false s

end Bpe.Regex
