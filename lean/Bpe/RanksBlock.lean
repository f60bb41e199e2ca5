module

public import Bpe.RanksLocality
public import Bpe.MergePair

/-!
# A block of merges of one rank is the seed's "merge every occurrence" step

Steps 3 and 4 of the proof route of issue 14. Take any state `Q = L ++ x :: y :: R` of
tiktoken's run (the unbounded loop from single bytes) whose leftmost lowest pair `x, y` has rank
`r`. Under condition C and with injective ranks, the run goes on by merging occurrences of
`x, y` only, leftmost first, until none is left, and reaches `mergePair x y (x ++ y) Q`:
the seed's `merge` of every occurrence at once (`exists_decomposeLoop_mergePair`).
The invariant (`BlockInv`): the state is a state of tiktoken's run, merging every
occurrence gives the same list as from `Q`, and no pair has a rank below `r`. A pair of rank
`r` concatenates to the token of rank `r`, so it is its recorded decomposition `x, y`; a pair
created by a merge contains the new token, which is then one of the two parts of the
decomposition of the pair, built below the pair's rank: the pair's rank is above `r`.
-/

@[expose] public section
noncomputable section

namespace Bpe

variable {ranks : Ranks}

/-- The invariant of a block of merges of rank `r` of the pair `x, y`, whose final result
is `M`. -/
def BlockInv (ranks : Ranks) (w : Bytes) (x y : Bytes) (r : Nat) (M : List Bytes)
    (P : List Bytes) : Prop :=
  (∃ j, decomposeLoop ranks none j (w.map fun c => [c]) = P) ∧
  mergePair x y (x ++ y) P = M ∧
  ∀ p ∈ adjPairs P, ∀ s, ranks.lookup (p.1 ++ p.2) = some s → r ≤ s

theorem blockInv_stepParts
    (hinj : ∀ t t' r, ranks.lookup t = some r → ranks.lookup t' = some r → t = t')
    (hC : ∀ t r, ranks.lookup t = some r → 2 ≤ t.length →
      (decomposeToken ranks t (some r)).length = 2)
    {w : Bytes} {x y : Bytes} {r : Nat} {M : List Bytes}
    (hr : ranks.lookup (x ++ y) = some r) (hxy : decomposeToken ranks (x ++ y) (some r) = [x, y])
    (hx : 1 ≤ x.length) (hy : 1 ≤ y.length) {P : List Bytes} (h : BlockInv ranks w x y r M P) :
    BlockInv ranks w x y r M (stepParts ranks (some (r + 1)) P) := by
  obtain ⟨⟨j, hj⟩, hM, hge⟩ := h
  cases hb : bestPairIndex ranks (some (r + 1)) 0 P with
  | none => rw [stepParts_of_none hb]; exact ⟨⟨j, hj⟩, hM, hge⟩
  | some q =>
    obtain ⟨i, s⟩ := q
    obtain ⟨L, x', y', R, rfl, -, hbest⟩ :=
      bestPairIndex_eq_some_split ranks (some (r + 1)) 0 _ i s hb
    have hs := lookup_of_allowedRank hbest.1
    have hrs : r ≤ s := hge (x', y') (mem_adjPairs_of_split L R x' y') s hs.1
    have hsr : s < r + 1 := hs.2 (r + 1) rfl
    have hseq : s = r := by omega
    have hs1 : ranks.lookup (x' ++ y') = some r := hseq ▸ hs.1
    have heq : x' ++ y' = x ++ y := hinj _ _ _ hs1 hr
    have hdec : decomposeToken ranks (x' ++ y') (some r) = [x', y'] :=
      decomposeToken_eq_pair hC hj hs1
    rw [heq, hxy] at hdec
    simp only [List.cons.injEq, and_true] at hdec
    obtain ⟨hx', hy'⟩ := hdec
    subst x' y'
    have htx : x ++ y ≠ x := fun h => by
      have := congrArg List.length h; simp only [List.length_append] at this; omega
    have hty : x ++ y ≠ y := fun h => by
      have := congrArg List.length h; simp only [List.length_append] at this; omega
    have hal : allowedRank ranks (some (r + 1)) (x ++ y) = some r := by
      rcases allowedRank_of_lookup (maxRank := some (r + 1)) hr with h' | ⟨m, hm', hle⟩
      · exact h'
      · cases hm'; omega
    have hnot : (x, y) ∉ adjPairs (L ++ [x]) := by
      intro hm
      have := hbest.2.1 (x, y) hm r hal
      omega
    have hstep := stepParts_of_isBestPair hbest
    have hiter : decomposeLoop ranks none (j + 1) (w.map fun c => [c]) = L ++ (x ++ y) :: R := by
      rw [decomposeLoop_succ_step', hj, stepParts_of_isBestPair hbest.unbounded]
    -- a pair containing the new token has a rank above `r`
    have hnew : ∀ p ∈ adjPairs (L ++ (x ++ y) :: R), (p.1 = x ++ y ∨ p.2 = x ++ y) →
        ∀ s', ranks.lookup (p.1 ++ p.2) = some s' → r ≤ s' := by
      intro p hp ht s' hs'
      obtain ⟨A, C, hAC⟩ := exists_split_of_mem_adjPairs hp
      rw [← hiter] at hAC
      have hd := decomposeToken_eq_pair hC hAC hs'
      have hok := partsOk_decomposeLoop (partsOk_singles ranks (some s') (p.1 ++ p.2))
        (p.1 ++ p.2).length
      unfold decomposeToken at hd
      rw [hd] at hok
      have hmem : x ++ y ∈ [p.1, p.2] := by rcases ht with ht | ht <;> simp [ht]
      rcases hok (x ++ y) hmem with h1 | ⟨-, r', hr'⟩
      · simp only [List.length_append] at h1; omega
      · obtain ⟨h1, h2⟩ := lookup_of_allowedRank hr'
        rw [hr] at h1
        cases h1
        exact Nat.le_of_lt (h2 s' rfl)
    refine ⟨⟨j + 1, by rw [hiter, hstep]⟩, ?_, ?_⟩
    · rw [hstep, mergePair_leftmost x y (x ++ y) htx hty L R hnot]; exact hM
    · rw [hstep]
      intro p hp0 s' hs'
      rcases mem_adjPairs_append_cons L (x ++ y) R hp0 with hp | hp
      · rcases mem_adjPairs_append_singleton (x ++ y) hp with hp | hp
        · exact hge p (mem_adjPairs_append_right _ hp) s' hs'
        · exact hnew p hp0 (Or.inr hp) s' hs'
      · rcases mem_adjPairs_cons_iff (x ++ y) hp with hp' | hp'
        · exact hnew p hp0 (Or.inl hp') s' hs'
        · exact hge p (mem_adjPairs_append_left L (mem_adjPairs_cons x (mem_adjPairs_cons y hp')))
            s' hs'

/-- **A block of merges of one rank** (steps 3-4): from a state of tiktoken's run whose
leftmost lowest pair is `x, y`, the run reaches the seed's merge of every occurrence of
`x, y`. -/
theorem exists_decomposeLoop_mergePair
    (hinj : ∀ t t' r, ranks.lookup t = some r → ranks.lookup t' = some r → t = t')
    (hC : ∀ t r, ranks.lookup t = some r → 2 ≤ t.length →
      (decomposeToken ranks t (some r)).length = 2)
    {w : Bytes} {k : Nat} {L : List Bytes} {x y : Bytes} {R : List Bytes} {r : Nat}
    (hQ : decomposeLoop ranks none k (w.map fun c => [c]) = L ++ x :: y :: R)
    (hbest : IsBestPair ranks none L x y R r) :
    ∃ k', decomposeLoop ranks none k' (w.map fun c => [c]) =
      mergePair x y (x ++ y) (L ++ x :: y :: R) := by
  have hr : ranks.lookup (x ++ y) = some r := by rw [← allowedRank_unbounded]; exact hbest.1
  have hxy := decomposeToken_eq_pair hC hQ hr
  have hok := partsOk_decomposeLoop (partsOk_singles ranks none w) k
  rw [hQ] at hok
  have hx : 1 ≤ x.length := by rcases hok x (by simp) with h | ⟨h, -⟩ <;> omega
  have hy : 1 ≤ y.length := by rcases hok y (by simp) with h | ⟨h, -⟩ <;> omega
  have hinv0 : BlockInv ranks w x y r (mergePair x y (x ++ y) (L ++ x :: y :: R))
      (L ++ x :: y :: R) := by
    refine ⟨⟨k, hQ⟩, rfl, ?_⟩
    intro p hp s hs
    exact le_of_isBestPair hbest p hp s (by rw [allowedRank_unbounded]; exact hs)
  have hinv : ∀ n, BlockInv ranks w x y r (mergePair x y (x ++ y) (L ++ x :: y :: R))
      (decomposeLoop ranks (some (r + 1)) n (L ++ x :: y :: R)) := by
    intro n
    induction n with
    | zero => exact hinv0
    | succ n ih =>
      rw [decomposeLoop_succ_step']
      exact blockInv_stepParts hinj hC hr hxy hx hy ih
  obtain ⟨⟨k', hk'⟩, hM, -⟩ := hinv (L ++ x :: y :: R).length
  have hnone := bestPairIndex_decomposeLoop_none ranks (some (r + 1)) (L ++ x :: y :: R).length
    (L ++ x :: y :: R) (Nat.le_succ _)
  have hnot : (x, y) ∉ adjPairs
      (decomposeLoop ranks (some (r + 1)) (L ++ x :: y :: R).length (L ++ x :: y :: R)) := by
    intro hm
    have h0 : allowedRank ranks (some (r + 1)) (x ++ y) = none :=
      allowedRank_eq_none_of_bestPairIndex ranks (some (r + 1)) 0 _ hnone (x, y) hm
    rcases allowedRank_of_lookup (maxRank := some (r + 1)) hr with h' | ⟨m, hm', hle⟩
    · rw [h0] at h'; cases h'
    · cases hm'; omega
  rw [mergePair_of_not_mem x y (x ++ y) _ hnot] at hM
  exact ⟨k', hk'.trans hM⟩

end Bpe
