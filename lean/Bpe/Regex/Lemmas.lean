module

public import Bpe.Regex.Match

/-!
# Generic lemmas about the matcher

Equations of `matchRe` for the constructs of the pre-tokenization patterns, for an arbitrary
`Classes` record (the classes stay abstract: the ASCII and the Unicode tables are instances).
A repetition whose body reads one code point satisfying `p` (a literal or a class) is described
through `runLen p s`, the length of the longest prefix of `s` satisfying `p`, and `greedy p k s`,
the first success of `k` over the suffixes of `s` from the end of that run back to `s` itself
(the backtracking order of a greedy loop):

* `matchRe_star_eq_greedy`: `r*` is `greedy`;
* `matchRe_plus_eq_step_greedy`: `r+` is one `r`, then `greedy`;
* `matchRe_opt`: `r?` tries `r`, then nothing;
* `matchRe_optPoss`, `matchRe_plusPoss`: the possessive forms pass the end of the whole run to
  the continuation, once;
* `matchRe_rep_upTo_some`: `r{1,n}` before `some` takes `min n (runLen p s)` code points;
* `greedy_some`, `greedy_notAhead`: `greedy` before `some`, and before a `(?!…)` of the
  complement class (the backtracking of `\s+(?!\S)`).
-/

@[expose] public section

namespace Bpe.Regex

/-- Length of the longest prefix of `s` whose code points satisfy `p`. -/
def runLen (p : Nat → Bool) : List Nat → Nat
  | [] => 0
  | x :: t => if p x then runLen p t + 1 else 0

@[simp] theorem runLen_nil (p : Nat → Bool) : runLen p [] = 0 := rfl

@[simp] theorem runLen_cons (p : Nat → Bool) (x : Nat) (t : List Nat) :
    runLen p (x :: t) = if p x then runLen p t + 1 else 0 := rfl

/-- A greedy loop of a one-code-point body `p`, then `k`: `k` is tried at the end of the run
of `p` first, then one code point earlier, and so on back to `s` itself. -/
def greedy (p : Nat → Bool) (k : Cont) : List Nat → Option (List Nat)
  | [] => k []
  | x :: t => if p x then (greedy p k t).orElse fun _ => k (x :: t) else k (x :: t)

@[simp] theorem greedy_nil (p : Nat → Bool) (k : Cont) : greedy p k [] = k [] := rfl

@[simp] theorem greedy_cons (p : Nat → Bool) (k : Cont) (x : Nat) (t : List Nat) :
    greedy p k (x :: t) = if p x then (greedy p k t).orElse fun _ => k (x :: t) else k (x :: t) :=
  rfl

@[simp] theorem step_nil (p : Nat → Bool) (k : Cont) : step p k [] = none := rfl

@[simp] theorem step_cons (p : Nat → Bool) (k : Cont) (x : Nat) (t : List Nat) :
    step p k (x :: t) = if p x then k t else none := rfl

@[simp] theorem matchRe_empty (C : Classes) (ci : Bool) (s : List Nat) (k : Cont) :
    matchRe C .empty ci s k = k s := rfl

@[simp] theorem matchRe_char (C : Classes) (c : Nat) (ci : Bool) (s : List Nat) (k : Cont) :
    matchRe C (.char c) ci s k = step (charHolds C ci c) k s := rfl

@[simp] theorem matchRe_cls (C : Classes) (cc : CharClass) (ci : Bool) (s : List Nat) (k : Cont) :
    matchRe C (.cls cc) ci s k = step (classHolds C ci cc) k s := rfl

@[simp] theorem matchRe_seq (C : Classes) (a b : Re) (ci : Bool) (s : List Nat) (k : Cont) :
    matchRe C (.seq a b) ci s k = matchRe C a ci s fun s' => matchRe C b ci s' k := rfl

@[simp] theorem matchRe_alt (C : Classes) (a b : Re) (ci : Bool) (s : List Nat) (k : Cont) :
    matchRe C (.alt a b) ci s k = (matchRe C a ci s k).orElse fun _ => matchRe C b ci s k := rfl

@[simp] theorem matchRe_group (C : Classes) (r : Re) (ci : Bool) (s : List Nat) (k : Cont) :
    matchRe C (.group r) ci s k = matchRe C r ci s k := rfl

@[simp] theorem matchRe_caseless (C : Classes) (r : Re) (ci : Bool) (s : List Nat) (k : Cont) :
    matchRe C (.caseless r) ci s k = matchRe C r true s k := rfl

@[simp] theorem matchRe_notAhead (C : Classes) (r : Re) (ci : Bool) (s : List Nat) (k : Cont) :
    matchRe C (.notAhead r) ci s k =
      match matchRe C r ci s some with
      | some _ => none
      | none => k s := rfl

@[simp] theorem matchRe_eos (C : Classes) (ci : Bool) (s : List Nat) (k : Cont) :
    matchRe C .eos ci s k = if s.isEmpty then k s else none := rfl

/-- `star` of a one-code-point body is `greedy`, once the counter exceeds the input length. -/
theorem star_eq_greedy {m : List Nat → Cont → Option (List Nat)} {p : Nat → Bool}
    (hm : ∀ s k, m s k = step p k s) (k : Cont) (n : Nat) :
    ∀ s : List Nat, s.length < n → star m k n s = greedy p k s := by
  induction n with
  | zero => intro s h; exact absurd h (Nat.not_lt_zero _)
  | succ n ih =>
    intro s h
    cases s with
    | nil => simp [star, hm]
    | cons x t =>
      have ht : t.length < n := by simp at h; omega
      simp only [star, hm, step_cons, greedy_cons]
      cases p x <;> simp [ih t ht]

/-- `upTo` of a one-code-point body before `some`: the run, cut at `n`. -/
theorem upTo_some {m : List Nat → Cont → Option (List Nat)} {p : Nat → Bool}
    (hm : ∀ s k, m s k = step p k s) (n : Nat) :
    ∀ s : List Nat, upTo m some n s = some (s.drop (min n (runLen p s))) := by
  induction n with
  | zero => intro s; simp [upTo]
  | succ n ih =>
    intro s
    cases s with
    | nil => simp [upTo, hm]
    | cons x t =>
      simp only [upTo, hm, step_cons, ih, runLen_cons]
      cases p x
      · simp
      · simp [Nat.succ_min_succ]

/-- `greedy` before `some`: the end of the run. -/
theorem greedy_some (p : Nat → Bool) :
    ∀ s : List Nat, greedy p some s = some (s.drop (runLen p s)) := by
  intro s
  induction s with
  | nil => rfl
  | cons x t ih => cases h : p x <;> simp [h, ih]

/-- One code point of `p`, then `greedy` before `some`: the run, if it is not empty. -/
theorem step_greedy_some (p : Nat → Bool) (s : List Nat) :
    step p (greedy p some) s = if runLen p s = 0 then none else some (s.drop (runLen p s)) := by
  cases s with
  | nil => rfl
  | cons x t => cases h : p x <;> simp [h, greedy_some]

/-- The continuation `(?!c)` then `some`, for a one-code-point class `c` read as `q`: succeeds,
consuming nothing, unless the next code point satisfies `q`. -/
def notAheadK (q : Nat → Bool) : Cont := fun s' =>
  match step q some s' with
  | some _ => none
  | none => some s'

@[simp] theorem notAheadK_nil (q : Nat → Bool) : notAheadK q [] = some [] := rfl

@[simp] theorem notAheadK_cons (q : Nat → Bool) (x : Nat) (t : List Nat) :
    notAheadK q (x :: t) = if q x then none else some (x :: t) := by
  simp only [notAheadK, step_cons]
  cases q x <;> rfl

/-- `greedy p` before `(?!c)`, where `c` holds exactly off `p` (`\s+(?!\S)` after its first
`\s`): the whole run if it reaches the end of the input, else the run minus its last code point
(nothing when the run is empty and the input is not). -/
theorem greedy_notAhead (p q : Nat → Bool) (hq : ∀ x, q x = !p x) :
    ∀ t : List Nat, greedy p (notAheadK q) t =
      if runLen p t = t.length then some []
      else if runLen p t = 0 then none else some (t.drop (runLen p t - 1)) := by
  intro t
  induction t with
  | nil => rfl
  | cons y u ih =>
    cases h : p y
    · simp [h, hq]
    · by_cases h1 : runLen p u = u.length
      · simp [h, hq, ih, h1]
      · by_cases h2 : runLen p u = 0
        · rw [h2] at h1
          have hne : u ≠ [] := by rintro rfl; exact h1 rfl
          simp [h, hq, ih, h1, h2, hne]
        · obtain ⟨r, hr⟩ : ∃ r, runLen p u = r + 1 := ⟨runLen p u - 1, by omega⟩
          rw [hr] at h1
          simp [h, hq, ih, hr, h1]

section OneCodePoint

variable (C : Classes) (r : Re) (ci : Bool) (p : Nat → Bool)
  (hr : ∀ s k, matchRe C r ci s k = step p k s)
include hr

/-- `r*` (greedy) of a one-code-point body. -/
theorem matchRe_star_eq_greedy (s : List Nat) (k : Cont) :
    matchRe C (.rep r 0 none false) ci s k = greedy p k s :=
  star_eq_greedy hr k (s.length + 1) s (Nat.lt_add_one _)

/-- `r+` (greedy) of a one-code-point body. -/
theorem matchRe_plus_eq_step_greedy (s : List Nat) (k : Cont) :
    matchRe C (.rep r 1 none false) ci s k = step p (greedy p k) s := by
  show matchRe C r ci s (fun s' => star (matchRe C r ci) k (s'.length + 1) s') = _
  rw [hr]
  congr 1
  funext s'
  exact star_eq_greedy hr k (s'.length + 1) s' (Nat.lt_add_one _)

/-- `r?` (greedy) of a one-code-point body. -/
theorem matchRe_opt (s : List Nat) (k : Cont) :
    matchRe C (.rep r 0 (some 1) false) ci s k = (step p k s).orElse fun _ => k s := by
  show (matchRe C r ci s fun s' => k s').orElse (fun _ => k s) = _
  rw [hr]

/-- `r?+` of a one-code-point body: the continuation runs once, after the code point if `p`
holds there. -/
theorem matchRe_optPoss (s : List Nat) (k : Cont) :
    matchRe C (.rep r 0 (some 1) true) ci s k = k (s.drop (min 1 (runLen p s))) := by
  show (match upTo (matchRe C r ci) some 1 s with
    | some e => k e
    | none => none) = _
  simp only [upTo_some hr]

/-- `r++` of a one-code-point body: the continuation runs once, at the end of the run, if the
run is not empty. -/
theorem matchRe_plusPoss (s : List Nat) (k : Cont) :
    matchRe C (.rep r 1 none true) ci s k =
      if runLen p s = 0 then none else k (s.drop (runLen p s)) := by
  have h := matchRe_plus_eq_step_greedy C r ci p hr s some
  rw [step_greedy_some] at h
  show (match matchRe C (.rep r 1 none false) ci s some with
    | some e => k e
    | none => none) = _
  rw [h]
  by_cases h0 : runLen p s = 0 <;> simp [h0]

/-- `r+` (greedy or possessive) of a one-code-point body, before `some`. -/
theorem matchRe_plus_some (poss : Bool) (s : List Nat) :
    matchRe C (.rep r 1 none poss) ci s some =
      if runLen p s = 0 then none else some (s.drop (runLen p s)) := by
  cases poss
  · rw [matchRe_plus_eq_step_greedy C r ci p hr, step_greedy_some]
  · exact matchRe_plusPoss C r ci p hr s some

/-- `r*` (greedy or possessive) of a one-code-point body, before `some`. -/
theorem matchRe_star_some (poss : Bool) (s : List Nat) :
    matchRe C (.rep r 0 none poss) ci s some = some (s.drop (runLen p s)) := by
  have h : matchRe C (.rep r 0 none false) ci s some = some (s.drop (runLen p s)) := by
    rw [matchRe_star_eq_greedy C r ci p hr, greedy_some]
  cases poss
  · exact h
  · show (match matchRe C (.rep r 0 none false) ci s some with
      | some e => some e
      | none => none) = _
    simp only [h]

/-- `r{1,n}` (greedy, `0 < n`) of a one-code-point body, before `some`. -/
theorem matchRe_rep_upTo_some (n : Nat) (hn : 0 < n) (s : List Nat) :
    matchRe C (.rep r 1 (some n) false) ci s some =
      if runLen p s = 0 then none else some (s.drop (min n (runLen p s))) := by
  obtain ⟨n, rfl⟩ : ∃ n', n = n' + 1 := ⟨n - 1, by omega⟩
  show matchRe C r ci s (fun s' => upTo (matchRe C r ci) some (n + 1 - 1) s') = _
  rw [hr]
  cases s with
  | nil => rfl
  | cons x t =>
    cases h : p x
    · simp [h]
    · simp [h, upTo_some hr, Nat.succ_min_succ]

end OneCodePoint

end Bpe.Regex
