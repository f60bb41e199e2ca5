module

public import Bpe.DecomposeRun

/-!
# Locality of the merge loop, and why every merge is a recorded decomposition

Step 1 and 2 of the proof route of issue 14.
`exists_decomposeLoop_infix` (locality): take any state of a run of the loop from the single
bytes of a piece, and any run of consecutive parts `B` of it. Then `B` is a state of the run of
the loop on `B`'s bytes alone. A merge inside `B` was the leftmost lowest pair of the whole
list, so also of `B`'s window; merges outside `B` do not touch it.
`decomposeToken_eq_pair` (every merge is recorded): under condition C (a token `t` of rank `s`
with two or more bytes decomposes into exactly two parts with the ranks below `s`), if two
adjacent parts `x, y` of any state concatenate to a token of rank `s`, then the decomposition
of `x ++ y` below `s` is exactly `[x, y]`. Both lists are states of the unbounded run on
`x ++ y` with two parts, and two states of one run with as many parts are equal.
-/

@[expose] public section
noncomputable section

namespace Bpe

variable {ranks : Ranks} {maxRank : Option Nat}

/-- A list of one-byte parts is the single bytes of its concatenation. -/
theorem eq_map_singleton_flatten :
    ∀ B : List Bytes, (∀ p ∈ B, ∃ c, p = [c]) → B = B.flatten.map (fun c => [c])
  | [], _ => rfl
  | p :: B, h => by
    obtain ⟨c, rfl⟩ := h p List.mem_cons_self
    have ih := eq_map_singleton_flatten B (fun q hq => h q (List.mem_cons_of_mem _ hq))
    simp only [List.flatten_cons, List.singleton_append, List.map_cons]
    rw [← ih]

/-- **Locality**: consecutive parts of a state of a run are a state of the run on their
bytes alone. -/
theorem exists_decomposeLoop_infix (ranks : Ranks) (maxRank : Option Nat) (w : Bytes) :
    ∀ (n : Nat) (A B C : List Bytes),
      decomposeLoop ranks maxRank n (w.map fun c => [c]) = A ++ B ++ C →
        ∃ k, B = decomposeLoop ranks maxRank k (B.flatten.map fun c => [c])
  | 0, A, B, C, h => by
    refine ⟨0, eq_map_singleton_flatten B ?_⟩
    intro p hp
    have hp' : p ∈ w.map fun c => [c] := by
      have h' : w.map (fun c => [c]) = A ++ B ++ C := h
      rw [h']; simp [hp]
    obtain ⟨c, -, rfl⟩ := List.mem_map.mp hp'
    exact ⟨c, rfl⟩
  | n + 1, A, B, C, h => by
    have ih := exists_decomposeLoop_infix ranks maxRank w n
    rw [decomposeLoop_succ_step'] at h
    cases hb : bestPairIndex ranks maxRank 0 (decomposeLoop ranks maxRank n (w.map fun c => [c]))
      with
    | none =>
      rw [stepParts_of_none hb] at h
      exact ih A B C h
    | some q =>
      obtain ⟨i, s⟩ := q
      obtain ⟨L, x, y, R, hQ, -, hbest⟩ := bestPairIndex_eq_some_split ranks maxRank 0 _ i s hb
      rw [hQ, stepParts_of_isBestPair hbest] at h
      rcases append_cons_eq_append3 h with ⟨A2, rfl, rfl⟩ | ⟨B1, B2, rfl, rfl, rfl⟩ |
          ⟨C1, rfl, rfl⟩
      · exact ih (L ++ x :: y :: A2) B C (by rw [hQ]; simp)
      · obtain ⟨k, hk⟩ := ih A (B1 ++ x :: y :: B2) C (by rw [hQ]; simp)
        have hwin : IsBestPair ranks maxRank B1 x y B2 s := by
          refine ⟨hbest.1, ?_, ?_⟩
          · intro p hp s' hs'
            have hp' := mem_adjPairs_append_left A hp
            rw [← List.append_assoc] at hp'
            exact hbest.2.1 p hp' s' hs'
          · intro p hp s' hs'
            have hp' : p ∈ adjPairs (y :: (B2 ++ C)) := mem_adjPairs_append_right C hp
            exact hbest.2.2 p hp' s' hs'
        refine ⟨k + 1, ?_⟩
        have hflat : (B1 ++ (x ++ y) :: B2).flatten = (B1 ++ x :: y :: B2).flatten := by simp
        rw [hflat, decomposeLoop_succ_step', ← hk, stepParts_of_isBestPair hwin]
      · exact ih A B (C1 ++ x :: y :: R) (by rw [hQ]; simp)

/-- **Every merge is a recorded decomposition** (under condition C): two adjacent parts of any
state whose concatenation is a token of rank `s` are its decomposition below `s`. -/
theorem decomposeToken_eq_pair
    (hC : ∀ t r, ranks.lookup t = some r → 2 ≤ t.length →
      (decomposeToken ranks t (some r)).length = 2)
    {w : Bytes} {n : Nat} {A C : List Bytes} {x y : Bytes} {s : Nat}
    (h : decomposeLoop ranks maxRank n (w.map fun c => [c]) = A ++ x :: y :: C)
    (hs : ranks.lookup (x ++ y) = some s) :
    decomposeToken ranks (x ++ y) (some s) = [x, y] := by
  obtain ⟨k, hk⟩ := exists_decomposeLoop_infix ranks maxRank w n A [x, y] C
    (by rw [h]; simp)
  have hflat : [x, y].flatten = x ++ y := by simp
  rw [hflat] at hk
  obtain ⟨k1, hk1⟩ := exists_decomposeLoop_unbounded ranks maxRank
    ((x ++ y).map fun c => [c]) k
  obtain ⟨k2, hk2⟩ := exists_decomposeLoop_unbounded ranks (some s)
    ((x ++ y).map fun c => [c]) (x ++ y).length
  have hlen : 2 ≤ (x ++ y).length := by
    have := length_decomposeLoop_le ranks maxRank k ((x ++ y).map fun c => [c])
    rw [← hk] at this
    simpa using this
  have h2 := hC (x ++ y) s hs hlen
  unfold decomposeToken at h2 ⊢
  rw [hk2] at h2 ⊢
  rw [hk1] at hk
  rw [hk]
  have h3 : (decomposeLoop ranks none k1 ((x ++ y).map fun c => [c])).length = 2 := by
    simp only [← hk, List.length_cons, List.length_nil]
  apply decomposeLoop_eq_of_length_eq
  rw [h2, h3]

end Bpe
