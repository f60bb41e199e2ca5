module

public import Bpe.BestPair

/-!
# The decomposition loop as the iteration of one step

`decomposeLoop ranks maxRank n` applies `stepParts` `n` times (`decomposeLoop_succ_step`,
`decomposeLoop_succ_step'`, `decomposeLoop_comp`). Facts about these runs used in
`Bpe.RanksEquiv`: a step removes one part or changes nothing, so two states of one run with
the same number of parts are equal (`decomposeLoop_eq_of_length_eq`); enough fuel reaches a
state with no pair left (`bestPairIndex_decomposeLoop_none`), and two such states of one run
are equal; every state of a bounded run is a state of the unbounded run
(`exists_decomposeLoop_unbounded`); every part is a single byte or a token of an allowed
rank (`partsOk_decomposeLoop`).
-/

@[expose] public section
noncomputable section

namespace Bpe

variable {ranks : Ranks} {maxRank : Option Nat}

theorem decomposeLoop_fix {parts : List Bytes} (h : bestPairIndex ranks maxRank 0 parts = none) :
    ∀ n, decomposeLoop ranks maxRank n parts = parts
  | 0 => rfl
  | n + 1 => by simp only [decomposeLoop, h]

theorem decomposeLoop_succ_step (ranks : Ranks) (maxRank : Option Nat) (n : Nat)
    (parts : List Bytes) :
    decomposeLoop ranks maxRank (n + 1) parts =
      decomposeLoop ranks maxRank n (stepParts ranks maxRank parts) := by
  cases hb : bestPairIndex ranks maxRank 0 parts with
  | none =>
    rw [stepParts_of_none hb, decomposeLoop_fix hb, decomposeLoop_fix hb]
  | some q =>
    obtain ⟨i, s⟩ := q
    simp only [decomposeLoop, stepParts, hb]

theorem decomposeLoop_comp (ranks : Ranks) (maxRank : Option Nat) :
    ∀ (m n : Nat) (parts : List Bytes),
      decomposeLoop ranks maxRank (m + n) parts =
        decomposeLoop ranks maxRank m (decomposeLoop ranks maxRank n parts)
  | _, 0, _ => rfl
  | m, n + 1, parts => by
    rw [← Nat.add_assoc, decomposeLoop_succ_step, decomposeLoop_succ_step,
      decomposeLoop_comp ranks maxRank m n]

theorem decomposeLoop_succ_step' (ranks : Ranks) (maxRank : Option Nat) (n : Nat)
    (parts : List Bytes) :
    decomposeLoop ranks maxRank (n + 1) parts =
      stepParts ranks maxRank (decomposeLoop ranks maxRank n parts) := by
  rw [Nat.add_comm, decomposeLoop_comp ranks maxRank 1 n parts]
  exact decomposeLoop_succ_step ranks maxRank 0 _

theorem length_decomposeLoop_le (ranks : Ranks) (maxRank : Option Nat) :
    ∀ (n : Nat) (parts : List Bytes), (decomposeLoop ranks maxRank n parts).length ≤ parts.length
  | 0, _ => Nat.le_refl _
  | n + 1, parts => by
    rw [decomposeLoop_succ_step]
    have := length_decomposeLoop_le ranks maxRank n (stepParts ranks maxRank parts)
    rcases length_stepParts ranks maxRank parts with h | h
    · rw [h] at this ⊢; exact this
    · omega

/-- A run that keeps the number of parts has not moved. -/
theorem decomposeLoop_eq_self_of_length (ranks : Ranks) (maxRank : Option Nat) :
    ∀ (n : Nat) (parts : List Bytes),
      (decomposeLoop ranks maxRank n parts).length = parts.length →
        decomposeLoop ranks maxRank n parts = parts
  | 0, _, _ => rfl
  | n + 1, parts, h => by
    rw [decomposeLoop_succ_step] at h ⊢
    rcases length_stepParts ranks maxRank parts with h1 | h1
    · rw [h1] at h ⊢; exact decomposeLoop_eq_self_of_length ranks maxRank n parts h
    · have := length_decomposeLoop_le ranks maxRank n (stepParts ranks maxRank parts)
      omega

/-- Two states of one run with the same number of parts are equal. -/
theorem decomposeLoop_eq_of_length_eq (ranks : Ranks) (maxRank : Option Nat) (j k : Nat)
    (parts : List Bytes)
    (h : (decomposeLoop ranks maxRank j parts).length =
      (decomposeLoop ranks maxRank k parts).length) :
    decomposeLoop ranks maxRank j parts = decomposeLoop ranks maxRank k parts := by
  rcases Nat.le_total j k with hjk | hjk
  · obtain ⟨d, rfl⟩ := Nat.exists_eq_add_of_le hjk
    rw [Nat.add_comm, decomposeLoop_comp] at h ⊢
    exact (decomposeLoop_eq_self_of_length ranks maxRank d _ h.symm).symm
  · obtain ⟨d, rfl⟩ := Nat.exists_eq_add_of_le hjk
    rw [Nat.add_comm, decomposeLoop_comp] at h ⊢
    exact decomposeLoop_eq_self_of_length ranks maxRank d _ h

/-- With fuel at least the number of parts minus one, no pair is left. -/
theorem bestPairIndex_decomposeLoop_none (ranks : Ranks) (maxRank : Option Nat) :
    ∀ (n : Nat) (parts : List Bytes), parts.length ≤ n + 1 →
      bestPairIndex ranks maxRank 0 (decomposeLoop ranks maxRank n parts) = none
  | 0, [], _ => by simp [decomposeLoop, bestPairIndex]
  | 0, [_], _ => by simp [decomposeLoop, bestPairIndex]
  | 0, _ :: _ :: _, h => by simp at h
  | n + 1, parts, h => by
    cases hb : bestPairIndex ranks maxRank 0 parts with
    | none => rw [decomposeLoop_fix hb]; exact hb
    | some q =>
      obtain ⟨i, s⟩ := q
      obtain ⟨L, x, y, R, rfl, -, hbest⟩ := bestPairIndex_eq_some_split ranks maxRank 0 _ i s hb
      rw [decomposeLoop_succ_step, stepParts_of_isBestPair hbest]
      apply bestPairIndex_decomposeLoop_none ranks maxRank n
      simp only [List.length_append, List.length_cons] at h ⊢
      omega

/-- Two states of one run with no pair left are equal. -/
theorem decomposeLoop_eq_of_none (ranks : Ranks) (maxRank : Option Nat) (j k : Nat)
    (parts : List Bytes)
    (hj : bestPairIndex ranks maxRank 0 (decomposeLoop ranks maxRank j parts) = none)
    (hk : bestPairIndex ranks maxRank 0 (decomposeLoop ranks maxRank k parts) = none) :
    decomposeLoop ranks maxRank j parts = decomposeLoop ranks maxRank k parts := by
  rcases Nat.le_total j k with hjk | hjk
  · obtain ⟨d, rfl⟩ := Nat.exists_eq_add_of_le hjk
    rw [Nat.add_comm, decomposeLoop_comp, decomposeLoop_fix hj]
  · obtain ⟨d, rfl⟩ := Nat.exists_eq_add_of_le hjk
    rw [Nat.add_comm, decomposeLoop_comp, decomposeLoop_fix hk]

/-- Every state of a bounded run is a state of the unbounded run. -/
theorem exists_decomposeLoop_unbounded (ranks : Ranks) (maxRank : Option Nat)
    (parts : List Bytes) :
    ∀ n, ∃ k, decomposeLoop ranks maxRank n parts = decomposeLoop ranks none k parts
  | 0 => ⟨0, rfl⟩
  | n + 1 => by
    obtain ⟨k, hk⟩ := exists_decomposeLoop_unbounded ranks maxRank parts n
    rw [decomposeLoop_succ_step', hk]
    rcases stepParts_eq_or ranks maxRank (decomposeLoop ranks none k parts) with h | h
    · exact ⟨k, h⟩
    · exact ⟨k + 1, by rw [h, decomposeLoop_succ_step']⟩

/-- Every part is a single byte, or a token of two or more bytes with an allowed rank. -/
def PartsOk (ranks : Ranks) (maxRank : Option Nat) (parts : List Bytes) : Prop :=
  ∀ p ∈ parts, p.length = 1 ∨ (2 ≤ p.length ∧ ∃ r, allowedRank ranks maxRank p = some r)

theorem partsOk_stepParts {parts : List Bytes} (h : PartsOk ranks maxRank parts) :
    PartsOk ranks maxRank (stepParts ranks maxRank parts) := by
  cases hb : bestPairIndex ranks maxRank 0 parts with
  | none => rw [stepParts_of_none hb]; exact h
  | some q =>
    obtain ⟨i, s⟩ := q
    obtain ⟨L, x, y, R, rfl, -, hbest⟩ := bestPairIndex_eq_some_split ranks maxRank 0 _ i s hb
    rw [stepParts_of_isBestPair hbest]
    intro p hp
    simp only [List.mem_append, List.mem_cons] at hp
    have hx : 1 ≤ x.length := by rcases h x (by simp) with h' | ⟨h', -⟩ <;> omega
    have hy : 1 ≤ y.length := by rcases h y (by simp) with h' | ⟨h', -⟩ <;> omega
    rcases hp with hp | rfl | hp
    · exact h p (by simp [hp])
    · right
      refine ⟨?_, s, hbest.1⟩
      simp only [List.length_append]
      omega
    · exact h p (by simp [hp])

theorem partsOk_decomposeLoop {parts : List Bytes} (h : PartsOk ranks maxRank parts) :
    ∀ n, PartsOk ranks maxRank (decomposeLoop ranks maxRank n parts)
  | 0 => h
  | n + 1 => by
    rw [decomposeLoop_succ_step']
    exact partsOk_stepParts (partsOk_decomposeLoop h n)

theorem partsOk_singles (ranks : Ranks) (maxRank : Option Nat) (w : Bytes) :
    PartsOk ranks maxRank (w.map fun c => [c]) := by
  intro p hp
  obtain ⟨c, -, rfl⟩ := List.mem_map.mp hp
  exact Or.inl rfl

end Bpe
