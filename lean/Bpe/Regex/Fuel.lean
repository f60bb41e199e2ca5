module

public import Bpe.Regex.Match

/-!
# The counters of the regex semantics suffice

`Bpe.Regex.Match` bounds its two loops by a counter so that they are structural: `star` (an
unbounded repetition) runs with `s.length + 1`, `findLoop` (`findIter`) with `s.length + 1`.
This file proves that more is no different: once the counter exceeds the length of the input,
adding one leaves the result unchanged (`star_succ`, `findLoop_succ`), hence adding any amount
does (`star_add`, `findLoop_add`). So `findIter` and the greedy loops mean "unbounded".
-/

@[expose] public section

namespace Bpe.Regex

theorem star_succ (m : List Nat → Cont → Option (List Nat)) (k : Cont) (n : Nat) :
    ∀ s : List Nat, s.length < n → star m k (n + 1) s = star m k n s := by
  induction n with
  | zero => intro s h; exact absurd h (Nat.not_lt_zero _)
  | succ n ih =>
    intro s h
    have hk : (fun s' : List Nat => if s'.length < s.length then star m k (n + 1) s' else none) =
        (fun s' => if s'.length < s.length then star m k n s' else none) := by
      funext s'
      split
      next h' => exact ih s' (by omega)
      next => rfl
    show (m s fun s' => if s'.length < s.length then star m k (n + 1) s' else none).orElse
        (fun _ => k s) =
      (m s fun s' => if s'.length < s.length then star m k n s' else none).orElse (fun _ => k s)
    rw [hk]

theorem star_add (m : List Nat → Cont → Option (List Nat)) (k : Cont) (n j : Nat)
    (s : List Nat) (h : s.length < n) : star m k (n + j) s = star m k n s := by
  induction j with
  | zero => rfl
  | succ j ih => rw [← Nat.add_assoc, star_succ m k (n + j) s (by omega), ih]

theorem findStep_congr (C : Classes) (r : Re) {f g : Bool → List Nat → List (List Nat)}
    (adj : Bool) (s : List Nat) (h : ∀ b t, t.length < s.length → f b t = g b t) :
    findStep C r f adj s = findStep C r g adj s := by
  cases s with
  | nil =>
    unfold findStep
    split
    next rest _ =>
      split
      next hlt => rw [h true rest hlt]
      next => rfl
    next => rfl
  | cons x t =>
    have ht : f false t = g false t := h false t (by simp)
    unfold findStep
    split
    next rest _ =>
      split
      next hlt => rw [h true rest hlt]
      next => split <;> simp only [ht]
    next => simp only [ht]

theorem findLoop_succ (C : Classes) (r : Re) (fuel : Nat) :
    ∀ (adj : Bool) (s : List Nat), s.length < fuel →
      findLoop C r (fuel + 1) adj s = findLoop C r fuel adj s := by
  induction fuel with
  | zero => intro adj s h; exact absurd h (Nat.not_lt_zero _)
  | succ fuel ih =>
    intro adj s h
    show findStep C r (findLoop C r (fuel + 1)) adj s = findStep C r (findLoop C r fuel) adj s
    exact findStep_congr C r adj s fun b t ht => ih b t (by omega)

theorem findLoop_add (C : Classes) (r : Re) (fuel j : Nat) (adj : Bool) (s : List Nat)
    (h : s.length < fuel) : findLoop C r (fuel + j) adj s = findLoop C r fuel adj s := by
  induction j with
  | zero => rfl
  | succ j ih => rw [← Nat.add_assoc, findLoop_succ C r (fuel + j) adj s (by omega), ih]

/-- `findIter` runs `findLoop` with enough fuel: any more gives the same matches. -/
theorem findLoop_eq_findIter (C : Classes) (r : Re) (s : List Nat) (fuel : Nat)
    (h : s.length < fuel) : findLoop C r fuel false s = findIter C r s := by
  have := findLoop_add C r (s.length + 1) (fuel - (s.length + 1)) false s (by omega)
  rw [show s.length + 1 + (fuel - (s.length + 1)) = fuel by omega] at this
  exact this

end Bpe.Regex
