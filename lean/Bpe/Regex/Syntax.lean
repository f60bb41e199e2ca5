module

/-!
# Regex syntax: the fragment of the pre-tokenization patterns (issue 22)

The abstract syntax of exactly the regex fragment that the seed's pattern and the GPT-2,
cl100k_base (tiktoken 0.14), o200k_base and Llama-3 patterns use: literal code points,
character classes, concatenation, ordered alternation, greedy and possessive repetition
(`?` `*` `+` `{m,n}` and `?+` `*+` `++` `{m,n}+`), non-capturing groups `(?:…)`, scoped
case-insensitivity `(?i:…)`, the negative lookahead `(?!…)` and the end anchor `$`.

Character classes are kept abstract: a class names Unicode properties (`\p{L}`, `\s`, …) and
literal code points, and the semantics (`Bpe.Regex.Match`) reads the properties through a
`Classes` record of predicates on code points, so that ASCII tables and Unicode tables are
instances of one semantics. A `Classes` record also gives each code point's case orbit (the
other code points that case-insensitive matching identifies with it).

Groups are explicit (`Re.group`): the printer (`Bpe.Regex.Print`) writes a term back
character for character, so a term carries every `(?:…)` of the pattern it stands for.
-/

@[expose] public section
noncomputable section

namespace Bpe.Regex

/-- The Unicode properties that the patterns name: `\p{L}`, `\p{N}`, `\p{Lu}`, `\p{Ll}`,
`\p{Lt}`, `\p{Lm}`, `\p{Lo}`, `\p{M}` and `\s` (White_Space). -/
inductive Property where
  | letter
  | number
  | uppercase
  | lowercase
  | titlecase
  | modifier
  | otherLetter
  | mark
  | whiteSpace
  deriving DecidableEq, Repr

/-- One member of a bracketed class `[…]`: a code point, a range `a-b`, or a property. -/
inductive Item where
  | char (c : Nat)
  | range (lo hi : Nat)
  | prop (p : Property)
  deriving DecidableEq, Repr

/-- A character class: a property escape (`\p{L}`, `\s`; negated: `\P{L}`, `\S`) or a
bracketed set (`[…]`; negated: `[^…]`). -/
inductive CharClass where
  | esc (negated : Bool) (p : Property)
  | set (negated : Bool) (items : List Item)
  deriving DecidableEq, Repr

/-- A regex of the fragment. `rep r lo hi possessive` is `r{lo,hi}` (`hi = none`: no upper
bound), greedy, or possessive when `possessive`; `?`, `*`, `+` are `{0,1}`, `{0,}`, `{1,}`. -/
inductive Re where
  | empty
  | char (c : Nat)
  | cls (k : CharClass)
  | seq (a b : Re)
  | alt (a b : Re)
  | rep (r : Re) (lo : Nat) (hi : Option Nat) (possessive : Bool)
  | group (r : Re)
  | caseless (r : Re)
  | notAhead (r : Re)
  | eos
  deriving DecidableEq, Repr

/-- What the semantics knows about characters: each property as a predicate on code points
(`has`), and each code point's case orbit (`orbit x`: the other code points that `(?i:…)`
identifies with `x`, e.g. `[83, 383]` for `s`). -/
structure Classes where
  has : Property → Nat → Bool
  orbit : Nat → List Nat

/-- `a` followed by each of `rs` (right-nested `seq`). -/
def seqs (a : Re) : List Re → Re
  | [] => a
  | r :: rs => .seq a (seqs r rs)

/-- `a|r₁|…|rₙ` (right-nested `alt`). -/
def alts (a : Re) : List Re → Re
  | [] => a
  | r :: rs => .alt a (alts r rs)

/-- A literal string, one `char` per code point (`empty` for `""`). -/
def lits : List Nat → Re
  | [] => .empty
  | [c] => .char c
  | c :: cs => .seq (.char c) (lits cs)

end Bpe.Regex
