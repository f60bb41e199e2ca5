module

public import Bpe.Exec.FindIterCode
public import Bpe.Regex.Match

/-!
# The compiled `findIter` is the spec's

`Bpe.Exec.findIterX` (in `Bpe.Exec.FindIterCode`) carries the length of the rest of the text
with every position and every match. With `withLen e = (e, e.length)`, a compiled continuation
`k'` stands for a spec continuation `k` when `k' t t.length = (k t).map withLen` for every `t`
(`ContOk`); every compiled matcher then returns the spec's match with its length
(`matchX_ok`), the loop returns the spec's chunks (`findLoopX_eq`), and so:

* `findIterX_eq`: `findIterX r s = Bpe.Regex.findIter unicodeClasses r s`, for **every** term
  `r` and every input `s`;
* `cl100kX_eq`, `o200kX_eq`: the compiled module's pattern terms are the spec's
  (`cl100kPattern`, `o200kPattern`), so route 3's runner computes `findIter unicodeClasses
  cl100kPattern` and `findIter unicodeClasses o200kPattern` (`findIterX_cl100k`,
  `findIterX_o200k`).
-/

@[expose] public section

namespace Bpe.Exec

open Bpe.Regex

theorem cl100kX_eq : cl100kX = cl100kPattern := rfl

theorem o200kX_eq : o200kX = o200kPattern := rfl

/-! ## Classes -/

@[simp] theorem itemHoldsX_eq (x : Nat) (i : Item) :
    itemHoldsX x i = itemHolds unicodeClasses x i := by
  cases i <;> rfl

@[simp] theorem anyItemsX_eq (x : Nat) :
    ∀ items : List Item, anyItemsX x items = items.any (itemHolds unicodeClasses x)
  | [] => rfl
  | i :: is => by simp [anyItemsX, anyItemsX_eq x is]

@[simp] theorem classBaseX_eq (k : CharClass) (x : Nat) :
    classBaseX k x = classBase unicodeClasses k x := by
  cases k <;> simp [classBaseX, classBase, unicodeClasses]

@[simp] theorem anyBaseX_eq (k : CharClass) :
    ∀ xs : List Nat, anyBaseX k xs = xs.any (classBase unicodeClasses k)
  | [] => rfl
  | x :: xs => by simp [anyBaseX, anyBaseX_eq k xs]

@[simp] theorem classNegatedX_eq (k : CharClass) : classNegatedX k = classNegated k := by
  cases k <;> rfl

@[simp] theorem classHoldsX_eq (ci : Bool) (k : CharClass) (x : Nat) :
    classHoldsX ci k x = classHolds unicodeClasses ci k x := by
  simp [classHoldsX, classHolds, unicodeClasses]

@[simp] theorem containsX_eq (c : Nat) : ∀ xs : List Nat, containsX c xs = xs.contains c
  | [] => rfl
  | x :: xs => by simp only [containsX, containsX_eq c xs, List.contains_cons]

@[simp] theorem charHoldsX_eq (ci : Bool) (c x : Nat) :
    charHoldsX ci c x = charHolds unicodeClasses ci c x := by
  simp [charHoldsX, charHolds, unicodeClasses]

/-! ## The matcher -/

/-- A match with its length. -/
noncomputable def withLen (e : List Nat) : List Nat × Nat := (e, e.length)

/-- The compiled continuation `k'` stands for the spec's `k`. -/
def ContOk (k' : ContX) (k : Cont) : Prop := ∀ t, k' t t.length = (k t).map withLen

/-- The compiled matcher `m'` stands for the spec's `m`. -/
def MatcherOk (m' : MatcherX) (m : List Nat → Cont → Option (List Nat)) : Prop :=
  ∀ s k' k, ContOk k' k → m' s s.length k' = (m s k).map withLen

theorem contOk_doneX : ContOk doneX some := fun _ => rfl

theorem stepX_ok (p : Nat → Bool) {k' : ContX} {k : Cont} (hk : ContOk k' k) :
    ∀ s, stepX p k' s s.length = (step p k s).map withLen
  | [] => rfl
  | x :: rest => by
    simp only [stepX, step, List.length_cons, Nat.add_sub_cancel]
    split
    · exact hk rest
    · rfl

theorem timesX_ok {m' : MatcherX} {m : List Nat → Cont → Option (List Nat)}
    (hm : MatcherOk m' m) {k' : ContX} {k : Cont} (hk : ContOk k' k) :
    ∀ j, ContOk (timesX m' k' j) (times m k j)
  | 0 => hk
  | j + 1 => fun t => hm t _ _ (timesX_ok hm hk j)

theorem upToX_ok {m' : MatcherX} {m : List Nat → Cont → Option (List Nat)}
    (hm : MatcherOk m' m) {k' : ContX} {k : Cont} (hk : ContOk k' k) :
    ∀ j, ContOk (upToX m' k' j) (upTo m k j)
  | 0 => hk
  | j + 1 => fun t => by
    simp only [upToX, upTo]
    rw [hm t _ _ (upToX_ok hm hk j)]
    cases m t (upTo m k j) with
    | some e => rfl
    | none => exact hk t

theorem starX_ok {m' : MatcherX} {m : List Nat → Cont → Option (List Nat)}
    (hm : MatcherOk m' m) {k' : ContX} {k : Cont} (hk : ContOk k' k) :
    ∀ j, ContOk (starX m' k' j) (star m k j)
  | 0 => hk
  | j + 1 => fun t => by
    simp only [starX, star]
    have hc : ContOk (fun s' n' => if n' < t.length then starX m' k' j s' n' else none)
        (fun s' => if s'.length < t.length then star m k j s' else none) := by
      intro s'
      simp only
      split
      · exact starX_ok hm hk j s'
      · rfl
    rw [hm t _ _ hc]
    cases m t (fun s' => if s'.length < t.length then star m k j s' else none) with
    | some e => rfl
    | none => exact hk t

theorem repeatGreedyX_ok {m' : MatcherX} {m : List Nat → Cont → Option (List Nat)}
    (hm : MatcherOk m' m) (lo : Nat) (hi : Option Nat) {k' : ContX} {k : Cont}
    (hk : ContOk k' k) : ContOk (repeatGreedyX m' lo hi k') (repeatGreedy m lo hi k) := by
  apply timesX_ok hm
  intro t
  cases hi with
  | some h => exact upToX_ok hm hk (h - lo) t
  | none => exact starX_ok hm hk (t.length + 1) t

/-- **Every compiled matcher is the spec's**, with the length of the rest of the text. -/
theorem matchX_ok : ∀ (r : Re) (ci : Bool), MatcherOk (matchX r ci) (matchRe unicodeClasses r ci)
  | .empty, _, _, _, _, hk => hk _
  | .char c, ci, s, _, _, hk => by
    simp only [matchX, matchRe]
    rw [stepX_ok _ hk s, show charHoldsX ci c = _ from funext (charHoldsX_eq ci c)]
  | .cls cc, ci, s, _, _, hk => by
    simp only [matchX, matchRe]
    rw [stepX_ok _ hk s, show classHoldsX ci cc = _ from funext (classHoldsX_eq ci cc)]
  | .seq a b, ci, s, _, _, hk => matchX_ok a ci s _ _ fun t => matchX_ok b ci t _ _ hk
  | .alt a b, ci, s, k', k, hk => by
    simp only [matchX, matchRe]
    rw [matchX_ok a ci s k' k hk]
    cases matchRe unicodeClasses a ci s k with
    | some e => rfl
    | none => exact matchX_ok b ci s k' k hk
  | .rep r lo hi possessive, ci, s, k', k, hk => by
    simp only [matchX, matchRe]
    cases possessive with
    | true =>
      simp only [if_true]
      rw [repeatGreedyX_ok (matchX_ok r ci) lo hi contOk_doneX s]
      cases repeatGreedy (matchRe unicodeClasses r ci) lo hi some s with
      | some e => exact hk e
      | none => rfl
    | false => exact repeatGreedyX_ok (matchX_ok r ci) lo hi hk s
  | .group r, ci, s, _, _, hk => matchX_ok r ci s _ _ hk
  | .caseless r, _, s, _, _, hk => matchX_ok r true s _ _ hk
  | .notAhead r, ci, s, k', k, hk => by
    simp only [matchX, matchRe]
    rw [matchX_ok r ci s doneX some contOk_doneX]
    cases matchRe unicodeClasses r ci s some with
    | some e => rfl
    | none => exact hk s
  | .eos, _, s, _, _, hk => by
    cases s with
    | nil => exact hk []
    | cons x t => rfl

theorem matchAtX_eq (r : Re) (s : List Nat) :
    matchAtX r s s.length = (matchAt unicodeClasses r s).map withLen :=
  matchX_ok r false s doneX some contOk_doneX

/-! ## `find_iter` -/

@[simp] theorem takeCps_eq : ∀ (j : Nat) (xs : List Nat), takeCps j xs = xs.take j
  | 0, _ => rfl
  | _ + 1, [] => rfl
  | j + 1, x :: xs => by simp [takeCps, takeCps_eq j xs]

@[simp] theorem lenCps_eq : ∀ xs : List Nat, lenCps xs = xs.length
  | [] => rfl
  | _ :: xs => by simp [lenCps, lenCps_eq xs]

theorem findLoopX_eq (r : Re) :
    ∀ (fuel : Nat) (adj : Bool) (s : List Nat),
      findLoopX r fuel adj s s.length = findLoop unicodeClasses r fuel adj s
  | 0, _, _ => rfl
  | fuel + 1, adj, s => by
    simp only [findLoopX, findLoop, findStep, matchAtX_eq]
    cases matchAt unicodeClasses r s with
    | some rest =>
      simp only [Option.map_some, withLen, takeCps_eq, findLoopX_eq r fuel]
      cases s with
      | nil => simp
      | cons x t => simp [findLoopX_eq r fuel]
    | none =>
      cases s with
      | nil => rfl
      | cons x t => simp [findLoopX_eq r fuel]

/-- **The compiled `findIter` is the spec's**, for every term and every input. -/
theorem findIterX_eq (r : Re) (s : List Nat) : findIterX r s = findIter unicodeClasses r s := by
  simp only [findIterX, findIter, lenCps_eq, findLoopX_eq]

theorem findIterX_cl100k (s : List Nat) :
    findIterX cl100kX s = findIter unicodeClasses cl100kPattern s := by
  rw [findIterX_eq, cl100kX_eq]

theorem findIterX_o200k (s : List Nat) :
    findIterX o200kX s = findIter unicodeClasses o200kPattern s := by
  rw [findIterX_eq, o200kX_eq]

end Bpe.Exec
