module

public import Bpe.Merge

/-!
# `bestMerge` returns the lowest merge index

Complements `bestMerge_eq_some` (`Bpe.Merge`): `bestMerge` returns `none` only when no
counted pair has a merge, and when it returns a pair, its merge index is at most the index
of every counted pair that has a merge.
-/

@[expose] public section
noncomputable section

namespace Bpe

theorem lookup_eq_none_of_bestMerge (merges : Merges) :
    ∀ (stats : List ((Nat × Nat) × Nat)), bestMerge merges stats = none →
      ∀ q ∈ stats.map Prod.fst, merges.lookup q = none
  | [], _, _, hq => by simp at hq
  | (p, c) :: rest, h, q, hq => by
    have ih := lookup_eq_none_of_bestMerge merges rest
    unfold bestMerge at h
    cases hp : merges.lookup p with
    | none =>
      rw [hp] at h
      simp only [List.map_cons, List.mem_cons] at hq
      rcases hq with rfl | hq
      · exact hp
      · exact ih h q hq
    | some i =>
      rw [hp] at h
      cases hr : bestMerge merges rest with
      | none => rw [hr] at h; cases h
      | some r =>
        obtain ⟨q', j⟩ := r
        rw [hr] at h
        by_cases hji : j < i
        · simp [hji] at h
        · simp [hji] at h

theorem bestMerge_le (merges : Merges) :
    ∀ (stats : List ((Nat × Nat) × Nat)) (p : Nat × Nat) (i : Nat),
      bestMerge merges stats = some (p, i) →
        ∀ q ∈ stats.map Prod.fst, ∀ j, merges.lookup q = some j → i ≤ j
  | [], _, _, _, _, hq, _, _ => by simp at hq
  | (q0, c) :: rest, p, i, h, q, hq, j, hj => by
    have ih := bestMerge_le merges rest
    unfold bestMerge at h
    simp only [List.map_cons, List.mem_cons] at hq
    cases h0 : merges.lookup q0 with
    | none =>
      rw [h0] at h
      rcases hq with rfl | hq
      · rw [h0] at hj; cases hj
      · exact ih p i h q hq j hj
    | some i0 =>
      rw [h0] at h
      cases hr : bestMerge merges rest with
      | none =>
        rw [hr] at h
        simp only [Option.some.injEq, Prod.mk.injEq] at h
        obtain ⟨-, rfl⟩ := h
        rcases hq with rfl | hq
        · rw [h0] at hj; cases hj; exact Nat.le_refl _
        · rw [lookup_eq_none_of_bestMerge merges rest hr q hq] at hj; cases hj
      | some r =>
        obtain ⟨q1, j1⟩ := r
        rw [hr] at h
        have ih1 := ih q1 j1 hr
        by_cases hji : j1 < i0
        · simp only [hji, if_true, Option.some.injEq, Prod.mk.injEq] at h
          obtain ⟨-, rfl⟩ := h
          rcases hq with rfl | hq
          · rw [h0] at hj; cases hj; omega
          · exact ih1 q hq j hj
        · simp only [hji, if_false, Option.some.injEq, Prod.mk.injEq] at h
          obtain ⟨-, rfl⟩ := h
          rcases hq with rfl | hq
          · rw [h0] at hj; cases hj; exact Nat.le_refl _
          · have := ih1 q hq j hj; omega

end Bpe
