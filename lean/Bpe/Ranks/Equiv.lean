module

public import Bpe.Ranks.DecomposeRun
public import Bpe.Ranks.MergePair
public import Bpe.Ranks.Basic

/-!
# The seed's encoder is tiktoken's (issue 14)

Steps 3 and 4 of the issue's proof route (a block of merges of one rank is the seed's
"merge every occurrence" step), then the theorems **`encodeChunk_eq_encodePieceRanks`** and
**`encodeWith_eq_encodeRanksWith`**.
-/

@[expose] public section

namespace Bpe

/-!
## A block of merges of one rank is the seed's "merge every occurrence" step

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

noncomputable section RanksBlock
variable {ranks : Ranks}

/-- The invariant of a block of merges of rank `r` of the pair `x, y`, whose final result
is `M`. -/
def BlockInv (ranks : Ranks) (w : Bytes) (x y : Bytes) (r : Nat) (M : List Bytes)
    (P : List Bytes) : Prop :=
  (∃ j, decomposeLoop ranks none j (w.map fun c => [c]) = P) ∧
  mergePair x y (x ++ y) P = M ∧
  ∀ p ∈ adjacentPairs P, ∀ s, rankOf ranks (p.1 ++ p.2) = some s → r ≤ s

/-- In a block of merges of rank `r` of the pair `x, y`, the leftmost lowest pair below
`r + 1` is `x, y` itself, of rank `r`: its rank is `r` (no pair ranks below `r`), so it
concatenates to `x ++ y` (injective ranks) and is that token's recorded decomposition. -/
theorem eq_pair_of_blockInv
    (hinj : ∀ t t' r, rankOf ranks t = some r → rankOf ranks t' = some r → t = t')
    (hC : ∀ t r, rankOf ranks t = some r → 2 ≤ t.length →
      (decomposeToken ranks t (some r)).length = 2)
    {w : Bytes} {x y : Bytes} {r : Nat} {M : List Bytes}
    (hr : rankOf ranks (x ++ y) = some r) (hxy : decomposeToken ranks (x ++ y) (some r) = [x, y])
    {L : List Bytes} {x' y' : Bytes} {R : List Bytes} {s : Nat}
    (h : BlockInv ranks w x y r M (L ++ x' :: y' :: R))
    (hbest : IsBestPair ranks (some (r + 1)) L x' y' R s) :
    x' = x ∧ y' = y ∧ s = r := by
  obtain ⟨⟨j, hj⟩, -, hge⟩ := h
  have hs := rankOf_of_allowedRank hbest.1
  have hrs : r ≤ s := hge (x', y') (mem_adjacentPairs_of_split L R x' y') s hs.1
  have hsr : s < r + 1 := hs.2 (r + 1) rfl
  have hseq : s = r := by omega
  have hs1 : rankOf ranks (x' ++ y') = some r := hseq ▸ hs.1
  have heq : x' ++ y' = x ++ y := hinj _ _ _ hs1 hr
  have hdec : decomposeToken ranks (x' ++ y') (some r) = [x', y'] :=
    decomposeToken_eq_pair hC hj hs1
  rw [heq, hxy] at hdec
  simp only [List.cons.injEq, and_true] at hdec
  exact ⟨hdec.1.symm, hdec.2.symm, hseq⟩

/-- In a state of tiktoken's run, a pair one of whose parts is a token `t` of rank `r` (at
least two bytes long) has a rank of at least `r`: `t` is one of the two parts of the pair's
decomposition, which are built below the pair's rank. -/
theorem le_rank_of_mem_adjacentPairs_run
    (hC : ∀ t r, rankOf ranks t = some r → 2 ≤ t.length →
      (decomposeToken ranks t (some r)).length = 2)
    {w : Bytes} {j : Nat} {Q : List Bytes}
    (hQ : decomposeLoop ranks none j (w.map fun c => [c]) = Q)
    {t : Bytes} {r : Nat} (hr : rankOf ranks t = some r) (ht2 : 2 ≤ t.length)
    {p : Bytes × Bytes} (hp : p ∈ adjacentPairs Q) (ht : p.1 = t ∨ p.2 = t)
    {s : Nat} (hs : rankOf ranks (p.1 ++ p.2) = some s) : r ≤ s := by
  obtain ⟨A, C, hAC⟩ := exists_split_of_mem_adjacentPairs hp
  rw [← hQ] at hAC
  have hd := decomposeToken_eq_pair hC hAC hs
  have hok := partsOk_decomposeLoop (partsOk_singles ranks (some s) (p.1 ++ p.2))
    (p.1 ++ p.2).length
  unfold decomposeToken at hd
  rw [hd] at hok
  have hmem : t ∈ [p.1, p.2] := by rcases ht with ht | ht <;> simp [ht]
  rcases hok t hmem with h1 | ⟨-, r', hr'⟩
  · omega
  · obtain ⟨h1, h2⟩ := rankOf_of_allowedRank hr'
    rw [hr] at h1
    cases h1
    exact Nat.le_of_lt (h2 s rfl)

/-- One step of a block of merges of rank `r` keeps its invariant. -/
theorem blockInv_stepParts
    (hinj : ∀ t t' r, rankOf ranks t = some r → rankOf ranks t' = some r → t = t')
    (hC : ∀ t r, rankOf ranks t = some r → 2 ≤ t.length →
      (decomposeToken ranks t (some r)).length = 2)
    {w : Bytes} {x y : Bytes} {r : Nat} {M : List Bytes}
    (hr : rankOf ranks (x ++ y) = some r) (hxy : decomposeToken ranks (x ++ y) (some r) = [x, y])
    (hx : 1 ≤ x.length) (hy : 1 ≤ y.length) {P : List Bytes} (h : BlockInv ranks w x y r M P) :
    BlockInv ranks w x y r M (stepParts ranks (some (r + 1)) P) := by
  cases hb : bestPairIndex ranks (some (r + 1)) 0 P with
  | none => rw [stepParts_of_none hb]; exact h
  | some q =>
    obtain ⟨i, s⟩ := q
    obtain ⟨L, x', y', R, rfl, -, hbest⟩ :=
      bestPairIndex_eq_some_split ranks (some (r + 1)) 0 _ i s hb
    obtain ⟨hx', hy', hs⟩ := eq_pair_of_blockInv hinj hC hr hxy h hbest
    subst x' y' s
    obtain ⟨⟨j, hj⟩, hM, hge⟩ := h
    have htx : x ++ y ≠ x := fun h => by
      have := congrArg List.length h; simp only [List.length_append] at this; omega
    have hty : x ++ y ≠ y := fun h => by
      have := congrArg List.length h; simp only [List.length_append] at this; omega
    have hal : allowedRank ranks (some (r + 1)) (x ++ y) = some r := by
      rcases allowedRank_of_rankOf (maxRank := some (r + 1)) hr with h' | ⟨m, hm', hle⟩
      · exact h'
      · cases hm'; omega
    have hnot : (x, y) ∉ adjacentPairs (L ++ [x]) := by
      intro hm
      have := hbest.2.1 (x, y) hm r hal
      omega
    have hstep := stepParts_of_isBestPair hbest
    have hiter : decomposeLoop ranks none (j + 1) (w.map fun c => [c]) = L ++ (x ++ y) :: R := by
      rw [decomposeLoop_succ_step', hj, stepParts_of_isBestPair hbest.unbounded]
    have hnew : ∀ p ∈ adjacentPairs (L ++ (x ++ y) :: R), (p.1 = x ++ y ∨ p.2 = x ++ y) →
        ∀ s', rankOf ranks (p.1 ++ p.2) = some s' → r ≤ s' := fun p hp ht s' hs' =>
      le_rank_of_mem_adjacentPairs_run hC hiter hr (by simp only [List.length_append]; omega)
        hp ht hs'
    refine ⟨⟨j + 1, by rw [hiter, hstep]⟩, ?_, ?_⟩
    · rw [hstep, mergePair_leftmost x y (x ++ y) htx hty L R hnot]; exact hM
    · rw [hstep]
      intro p hp0 s' hs'
      rcases mem_adjacentPairs_append_cons L (x ++ y) R hp0 with hp | hp
      · rcases mem_adjacentPairs_append_singleton (x ++ y) hp with hp | hp
        · exact hge p (mem_adjacentPairs_append_right _ hp) s' hs'
        · exact hnew p hp0 (Or.inr hp) s' hs'
      · rcases eq_or_mem_of_mem_adjacentPairs_cons (x ++ y) hp with hp' | hp'
        · exact hnew p hp0 (Or.inl hp') s' hs'
        · exact hge p (mem_adjacentPairs_append_left L (mem_adjacentPairs_cons x (mem_adjacentPairs_cons y hp')))
            s' hs'

/-- **A block of merges of one rank** (steps 3-4): from a state of tiktoken's run whose
leftmost lowest pair is `x, y`, the run reaches the seed's merge of every occurrence of
`x, y`. -/
theorem exists_decomposeLoop_mergePair
    (hinj : ∀ t t' r, rankOf ranks t = some r → rankOf ranks t' = some r → t = t')
    (hC : ∀ t r, rankOf ranks t = some r → 2 ≤ t.length →
      (decomposeToken ranks t (some r)).length = 2)
    {w : Bytes} {k : Nat} {L : List Bytes} {x y : Bytes} {R : List Bytes} {r : Nat}
    (hQ : decomposeLoop ranks none k (w.map fun c => [c]) = L ++ x :: y :: R)
    (hbest : IsBestPair ranks none L x y R r) :
    ∃ k', decomposeLoop ranks none k' (w.map fun c => [c]) =
      mergePair x y (x ++ y) (L ++ x :: y :: R) := by
  have hr : rankOf ranks (x ++ y) = some r := by rw [← allowedRank_none]; exact hbest.1
  have hxy := decomposeToken_eq_pair hC hQ hr
  have hok := partsOk_decomposeLoop (partsOk_singles ranks none w) k
  rw [hQ] at hok
  have hx : 1 ≤ x.length := by rcases hok x (by simp) with h | ⟨h, -⟩ <;> omega
  have hy : 1 ≤ y.length := by rcases hok y (by simp) with h | ⟨h, -⟩ <;> omega
  have hinv0 : BlockInv ranks w x y r (mergePair x y (x ++ y) (L ++ x :: y :: R))
      (L ++ x :: y :: R) := by
    refine ⟨⟨k, hQ⟩, rfl, ?_⟩
    intro p hp s hs
    exact le_of_isBestPair hbest p hp s (by rw [allowedRank_none]; exact hs)
  have hinv : ∀ n, BlockInv ranks w x y r (mergePair x y (x ++ y) (L ++ x :: y :: R))
      (decomposeLoop ranks (some (r + 1)) n (L ++ x :: y :: R)) := by
    intro n
    induction n with
    | zero => exact hinv0
    | succ n ih =>
      rw [decomposeLoop_succ_step']
      exact blockInv_stepParts hinj hC hr hxy hx hy ih
  obtain ⟨⟨k', hk'⟩, hM, -⟩ := hinv (L ++ x :: y :: R).length
  have hnone := bestPairIndex_decomposeLoop ranks (some (r + 1)) (L ++ x :: y :: R).length
    (L ++ x :: y :: R) (Nat.le_succ _)
  have hnot : (x, y) ∉ adjacentPairs
      (decomposeLoop ranks (some (r + 1)) (L ++ x :: y :: R).length (L ++ x :: y :: R)) := by
    intro hm
    have h0 : allowedRank ranks (some (r + 1)) (x ++ y) = none :=
      allowedRank_eq_none_of_bestPairIndex ranks (some (r + 1)) 0 _ hnone (x, y) hm
    rcases allowedRank_of_rankOf (maxRank := some (r + 1)) hr with h' | ⟨m, hm', hle⟩
    · rw [h0] at h'; cases h'
    · cases hm'; omega
  rw [mergePair_of_not_mem x y (x ++ y) _ hnot] at hM
  exact ⟨k', hk'.trans hM⟩

end RanksBlock

/-!
## The seed's encoder is tiktoken's (issue 14)

**`encodeChunk_eq_encodePieceRanks`**: for every rank table satisfying condition C (`RanksOk`)
and every chunk, the seed's merge-table encoder `encodeChunk`, run on the merge table and byte
shuffle recovered from the ranks (`recoverMerges`, `rankShuffle`), returns exactly tiktoken's
ids (`encodePieceRanks`: the whole-piece shortcut, then rank-based byte-pair merging).
**`encodeWith_eq_encodeRanksWith`**: the same for whole strings, for any pre-tokenizer.

The proof follows tiktoken's run (`decomposeToken … none`, which is `bytePairMerge`) and
the seed's loop side by side. At each step of the seed, its list of ids is the list of ranks
of a state of tiktoken's run (`encodeLoop_eq`). If that state has a pair with a rank, its
leftmost lowest pair `x, y` of rank `r` is the recorded decomposition of the token of rank
`r` (`decomposeToken_eq_pair`), so the seed's best merge is `(rank x, rank y) ↦ r`; the
seed's `merge` of every occurrence is the block of tiktoken's merges of rank `r`
(`exists_decomposeLoop_mergePair`). If no pair has a rank, neither has any pair of ids a
merge. A piece that is itself a token is merged by tiktoken's run into that one token
(`decomposeToken_self`), so the shortcut agrees.
-/

noncomputable section RanksEquiv
variable {ranks : Ranks}

/-- The rank of a byte string, `0` if it has none (every part of a run has one under
`RanksOk`). -/
def rankOrZero (ranks : Ranks) (t : Bytes) : Nat := (rankOf ranks t).getD 0

theorem RanksOk.inj (h : RanksOk ranks) :
    ∀ t t' r, rankOf ranks t = some r → rankOf ranks t' = some r → t = t' :=
  fun _ _ _ ht ht' => h.rankOf_inj ht ht'

theorem RanksOk.twoParts (h : RanksOk ranks) :
    ∀ t r, rankOf ranks t = some r → 2 ≤ t.length →
      (decomposeToken ranks t (some r)).length = 2 :=
  fun t r ht hl => h.two_parts t r (mem_of_lookup_eq_some ht) hl

/-! ## The recovered merge table -/

/-- A recovered merge comes from a token and its two-part decomposition. -/
theorem recoverMerges_lookup_some (h : RanksOk ranks) {a b i : Nat}
    (hl : (recoverMerges ranks).lookup (a, b) = some i) :
    ∃ p0 p1, rankOf ranks (p0 ++ p1) = some i ∧
      decomposeToken ranks (p0 ++ p1) (some i) = [p0, p1] ∧
      rankOf ranks p0 = some a ∧ rankOf ranks p1 = some b := by
  have hm := mem_of_lookup_eq_some hl
  unfold recoverMerges at hm
  obtain ⟨e, he, hre⟩ := List.mem_filterMap.mp hm
  unfold recoverMerge at hre
  split at hre
  next p0 p1 hd =>
    split at hre
    next ra rb h0 h1 =>
      simp only [Option.some.injEq, Prod.mk.injEq] at hre
      obtain ⟨⟨rfl, rfl⟩, rfl⟩ := hre
      have hflat := flatten_decomposeToken ranks e.1 (some e.2)
      rw [hd] at hflat
      simp only [List.flatten_cons, List.flatten_nil, List.append_nil] at hflat
      refine ⟨p0, p1, ?_, ?_, h0, h1⟩
      · rw [hflat]; exact lookup_eq_some_of_mem h.keys_nodup he
      · rw [hflat]; exact hd
    next => cases hre
  next => cases hre

/-- Every token's two-part decomposition is a recovered merge. -/
theorem recoverMerges_lookup_of (h : RanksOk ranks) {p0 p1 : Bytes} {a b i : Nat}
    (ht : rankOf ranks (p0 ++ p1) = some i)
    (hd : decomposeToken ranks (p0 ++ p1) (some i) = [p0, p1])
    (ha : rankOf ranks p0 = some a) (hb : rankOf ranks p1 = some b) :
    (recoverMerges ranks).lookup (a, b) = some i := by
  have hmem : ((a, b), i) ∈ recoverMerges ranks := by
    unfold recoverMerges
    refine List.mem_filterMap.mpr ⟨(p0 ++ p1, i), mem_of_lookup_eq_some ht, ?_⟩
    unfold recoverMerge
    simp only [hd, ha, hb]
  have hsome : ((recoverMerges ranks).lookup (a, b)).isSome :=
    List.lookup_isSome_iff.mpr ⟨_, hmem, by simp⟩
  obtain ⟨i', hi'⟩ := Option.isSome_iff_exists.mp hsome
  obtain ⟨q0, q1, ht', -, ha', hb'⟩ := recoverMerges_lookup_some h hi'
  have e0 : q0 = p0 := h.rankOf_inj ha' ha
  have e1 : q1 = p1 := h.rankOf_inj hb' hb
  rw [e0, e1, ht] at ht'
  cases ht'
  exact hi'

/-! ## Ids of the parts of a run -/

theorem rankOf_rankOrZero_of_run (h : RanksOk ranks) {w : Bytes} {k : Nat} {Q : List Bytes}
    (hk : decomposeLoop ranks none k (w.map fun c => [c]) = Q) :
    ∀ p ∈ Q, rankOf ranks p = some (rankOrZero ranks p) := by
  intro p hp
  have hok := partsOk_decomposeLoop (partsOk_singles ranks none w) k
  rw [hk] at hok
  have hex : ∃ r, rankOf ranks p = some r := by
    rcases hok p hp with h1 | ⟨-, r, hr⟩
    · rcases p with _ | ⟨c, _ | ⟨c2, p⟩⟩
      · simp at h1
      · obtain ⟨r, hr, -⟩ := h.byte_rank c
        exact ⟨r, hr⟩
      · simp at h1
    · exact ⟨r, by rw [← allowedRank_none]; exact hr⟩
  obtain ⟨r, hr⟩ := hex
  simp [rankOrZero, hr]

theorem mem_of_mem_adjacentPairs {α : Type} {x y : α} {l : List α} (h : (x, y) ∈ adjacentPairs l) :
    x ∈ l ∧ y ∈ l := by
  obtain ⟨A, C, rfl⟩ := exists_split_of_mem_adjacentPairs h
  simp

theorem adjacentPairs_map (f : Bytes → Nat) :
    ∀ Q : List Bytes, adjacentPairs (Q.map f) = (adjacentPairs Q).map fun p => (f p.1, f p.2)
  | [] => rfl
  | [_] => rfl
  | a :: b :: rest => by
    have ih := adjacentPairs_map f (b :: rest)
    simp only [List.map_cons] at ih
    simp only [List.map_cons, adjacentPairs, adjacentPairs_cons_cons, ih]

/-- A state of tiktoken's run with no pair left is the result of the run. -/
theorem decomposeToken_eq_of_run {w : Bytes} {k : Nat} {Q : List Bytes}
    (hk : decomposeLoop ranks none k (w.map fun c => [c]) = Q)
    (hQ : bestPairIndex ranks none 0 Q = none) : decomposeToken ranks w none = Q := by
  unfold decomposeToken
  rw [← hk]
  apply decomposeLoop_eq_of_none
  · exact bestPairIndex_decomposeLoop _ _ _ _ (by simp)
  · rw [hk]; exact hQ

/-! ## The seed's loop follows tiktoken's run -/

/-- A merge the seed picks on the ids of a state of tiktoken's run is the pair of ids of two
adjacent parts, whose concatenation is the token of the merge's rank with those two parts as
its recorded decomposition. -/
theorem exists_pair_of_bestMerge_run (h : RanksOk ranks) {w : Bytes} {k : Nat} {Q : List Bytes}
    (hk : decomposeLoop ranks none k (w.map fun c => [c]) = Q) {pp : Nat × Nat} {i : Nat}
    (hbm : bestMerge (recoverMerges ranks) (getStats (Q.map (rankOrZero ranks))) =
      some (pp, i)) :
    ∃ x y, (x, y) ∈ adjacentPairs Q ∧ pp = (rankOrZero ranks x, rankOrZero ranks y) ∧
      rankOf ranks (x ++ y) = some i ∧ decomposeToken ranks (x ++ y) (some i) = [x, y] := by
  have hranked := rankOf_rankOrZero_of_run h hk
  obtain ⟨hl, hmem⟩ := bestMerge_eq_some _ _ _ _ hbm
  rw [mem_getStats, adjacentPairs_map] at hmem
  obtain ⟨⟨x, y⟩, hxy, rfl⟩ := List.mem_map.mp hmem
  have hl' : (recoverMerges ranks).lookup (rankOrZero ranks x, rankOrZero ranks y) =
      some i := hl
  obtain ⟨p0, p1, ht, hd, ha, hb⟩ := recoverMerges_lookup_some h hl'
  have e0 : p0 = x := h.rankOf_inj ha (hranked x (mem_of_mem_adjacentPairs hxy).1)
  have e1 : p1 = y := h.rankOf_inj hb (hranked y (mem_of_mem_adjacentPairs hxy).2)
  rw [e0, e1] at ht hd
  exact ⟨x, y, hxy, rfl, ht, hd⟩

/-- When tiktoken's run has no pair with a rank left, the seed finds no merge on its ids. -/
theorem bestMerge_eq_none_of_run (h : RanksOk ranks) {w : Bytes} {k : Nat} {Q : List Bytes}
    (hk : decomposeLoop ranks none k (w.map fun c => [c]) = Q)
    (hb : bestPairIndex ranks none 0 Q = none) :
    bestMerge (recoverMerges ranks) (getStats (Q.map (rankOrZero ranks))) = none := by
  cases hbm : bestMerge (recoverMerges ranks) (getStats (Q.map (rankOrZero ranks))) with
  | none => rfl
  | some pr =>
    obtain ⟨pp, i⟩ := pr
    obtain ⟨x, y, hxy, -, ht, -⟩ := exists_pair_of_bestMerge_run h hk hbm
    have h0 : allowedRank ranks none (x ++ y) = none :=
      allowedRank_eq_none_of_bestPairIndex ranks none 0 Q hb (x, y) hxy
    rw [allowedRank_none, ht] at h0
    cases h0

/-- At tiktoken's leftmost lowest pair `x, y` (of rank `r`), the seed picks the merge of the
ids of `x` and `y`, with index `r`. -/
theorem bestMerge_eq_of_isBestPair (h : RanksOk ranks) {w : Bytes} {k : Nat} {L : List Bytes}
    {x y : Bytes} {R : List Bytes} {r : Nat}
    (hk : decomposeLoop ranks none k (w.map fun c => [c]) = L ++ x :: y :: R)
    (hbest : IsBestPair ranks none L x y R r) :
    bestMerge (recoverMerges ranks) (getStats ((L ++ x :: y :: R).map (rankOrZero ranks))) =
      some ((rankOrZero ranks x, rankOrZero ranks y), r) := by
  have hranked := rankOf_rankOrZero_of_run h hk
  have hr : rankOf ranks (x ++ y) = some r := by
    rw [← allowedRank_none]; exact hbest.1
  have hxy : decomposeToken ranks (x ++ y) (some r) = [x, y] :=
    decomposeToken_eq_pair h.twoParts hk hr
  have hlk : (recoverMerges ranks).lookup (rankOrZero ranks x, rankOrZero ranks y) =
      some r := recoverMerges_lookup_of h hr hxy (hranked x (by simp)) (hranked y (by simp))
  have hin : (rankOrZero ranks x, rankOrZero ranks y) ∈
      (getStats ((L ++ x :: y :: R).map (rankOrZero ranks))).map Prod.fst := by
    rw [mem_getStats, adjacentPairs_map]
    exact List.mem_map.mpr ⟨(x, y), mem_adjacentPairs_of_split L R x y, rfl⟩
  cases hbm : bestMerge (recoverMerges ranks) (getStats ((L ++ x :: y :: R).map
      (rankOrZero ranks))) with
  | none => rw [lookup_eq_none_of_bestMerge _ _ hbm _ hin] at hlk; cases hlk
  | some pr =>
    obtain ⟨pp, i⟩ := pr
    have hle := bestMerge_le _ _ _ _ hbm _ hin r hlk
    obtain ⟨x', y', hxy', rfl, ht, hd⟩ := exists_pair_of_bestMerge_run h hk hbm
    have hge : r ≤ i := le_of_isBestPair hbest (x', y') hxy' i
      (by rw [allowedRank_none]; exact ht)
    have hir : i = r := by omega
    rw [hir] at ht hd
    have heq : x' ++ y' = x ++ y := h.rankOf_inj ht hr
    rw [heq, hxy] at hd
    simp only [List.cons.injEq, and_true] at hd
    obtain ⟨h1, h2⟩ := hd
    rw [hir, ← h1, ← h2]

/-- **The seed's loop follows tiktoken's run**: on the ranks of any state of tiktoken's run,
the seed's merge loop returns the ranks of tiktoken's result. -/
theorem encodeLoop_eq (h : RanksOk ranks) (w : Bytes) :
    ∀ (fuel : Nat) (Q : List Bytes), (∃ k, decomposeLoop ranks none k (w.map fun c => [c]) = Q) →
      Q.length ≤ fuel →
      encodeLoop (recoverMerges ranks) fuel (Q.map (rankOrZero ranks)) =
        (decomposeToken ranks w none).map (rankOrZero ranks)
  | 0, Q, ⟨k, hk⟩, hlen => by
    have hQ : Q = [] := List.eq_nil_of_length_eq_zero (by omega)
    subst hQ
    rw [decomposeToken_eq_of_run hk (by simp [bestPairIndex])]
    rfl
  | fuel + 1, Q, ⟨k, hk⟩, hlen => by
    cases hb : bestPairIndex ranks none 0 Q with
    | none =>
      rw [decomposeToken_eq_of_run hk hb]
      simp only [encodeLoop, bestMerge_eq_none_of_run h hk hb]
    | some q =>
      obtain ⟨i0, r⟩ := q
      obtain ⟨L, x, y, R, hQ, -, hbest⟩ := bestPairIndex_eq_some_split ranks none 0 Q i0 r hb
      subst hQ
      have hranked := rankOf_rankOrZero_of_run h hk
      have hr : rankOf ranks (x ++ y) = some r := by
        rw [← allowedRank_none]; exact hbest.1
      have hinj : ∀ a ∈ L ++ x :: y :: R, ∀ z, rankOf ranks z = some (rankOrZero ranks z) →
          rankOrZero ranks a = rankOrZero ranks z → a = z := by
        intro a ha z hz e
        exact h.rankOf_inj (r := rankOrZero ranks z) (by rw [← e]; exact hranked a ha) hz
      have hrt : rankOrZero ranks (x ++ y) = r := by simp [rankOrZero, hr]
      have hmerge := merge_map (rankOrZero ranks) x y (x ++ y) (L ++ x :: y :: R)
        (fun a ha e => hinj a ha x (hranked x (by simp)) e)
        (fun a ha e => hinj a ha y (hranked y (by simp)) e)
      rw [hrt] at hmerge
      obtain ⟨k', hk'⟩ := exists_decomposeLoop_mergePair h.inj h.twoParts hk hbest
      have hlt := length_mergePair_lt x y (x ++ y) _ (mem_adjacentPairs_of_split L R x y)
      simp only [encodeLoop, bestMerge_eq_of_isBestPair h hk hbest]
      rw [hmerge]
      exact encodeLoop_eq h w fuel _ ⟨k', hk'⟩ (by omega)

/-! ## The whole-piece shortcut -/

/-- Under `RanksOk`, tiktoken's run on a token ends with that one token. -/
theorem decomposeToken_self (h : RanksOk ranks) {t : Bytes} {r : Nat}
    (ht : rankOf ranks t = some r) : decomposeToken ranks t none = [t] := by
  have hne : t ≠ [] := h.token_ne_nil t r (mem_of_lookup_eq_some ht)
  have hterm : bestPairIndex ranks none 0 [t] = none := by simp [bestPairIndex]
  have hflat : ∀ k, (decomposeLoop ranks none k (t.map fun c => [c])).flatten = t := by
    intro k
    rw [flatten_decomposeLoop]
    clear hne hterm ht
    induction t with
    | nil => rfl
    | cons b bs ih => simp [ih]
  suffices hk : ∃ k, decomposeLoop ranks none k (t.map fun c => [c]) = [t] by
    obtain ⟨k, hk⟩ := hk
    exact decomposeToken_eq_of_run hk hterm
  by_cases hl : t.length < 2
  · refine ⟨0, ?_⟩
    rcases t with _ | ⟨c, _ | ⟨c2, t⟩⟩
    · exact absurd rfl hne
    · rfl
    · simp only [List.length_cons] at hl; omega
  · have h2 := h.twoParts t r ht (by omega)
    obtain ⟨k2, hk2⟩ := exists_decomposeLoop_unbounded ranks (some r)
      (t.map fun c => [c]) t.length
    unfold decomposeToken at h2
    rw [hk2] at h2
    have hu : ∃ u1 u2, decomposeLoop ranks none k2 (t.map fun c => [c]) = [u1, u2] := by
      generalize decomposeLoop ranks none k2 (t.map fun c => [c]) = D at h2 ⊢
      rcases D with _ | ⟨u1, _ | ⟨u2, _ | ⟨u3, D⟩⟩⟩
      · simp only [List.length_nil] at h2 <;> omega
      · simp only [List.length_cons, List.length_nil] at h2 <;> omega
      · exact ⟨u1, u2, rfl⟩
      · simp only [List.length_cons] at h2 <;> omega
    obtain ⟨u1, u2, hu⟩ := hu
    have hfl := hflat k2
    rw [hu] at hfl
    simp only [List.flatten_cons, List.flatten_nil, List.append_nil] at hfl
    have hbest : IsBestPair ranks none [] u1 u2 [] r := by
      refine ⟨by rw [allowedRank_none, hfl]; exact ht, by simp, by simp⟩
    refine ⟨k2 + 1, ?_⟩
    rw [decomposeLoop_succ_step', hu]
    have := stepParts_of_isBestPair hbest
    simp only [List.nil_append] at this
    rw [this, hfl]

/-! ## The theorems -/

theorem mapM_eq_some_map {α β : Type} {f : α → Option β} {g : α → β} :
    ∀ l : List α, (∀ a ∈ l, f a = some (g a)) → l.mapM f = some (l.map g)
  | [], _ => rfl
  | a :: l, h => by
    simp [h a List.mem_cons_self, mapM_eq_some_map l (fun b hb => h b (List.mem_cons_of_mem _ hb))]

/-- **The seed's encoder is tiktoken's**: for every rank table satisfying condition C and
every chunk, `encodeChunk` on the recovered merge table and byte shuffle returns exactly
tiktoken's ids for the chunk. -/
theorem encodeChunk_eq_encodePieceRanks (h : RanksOk ranks) (chunk : Bytes) :
    some (encodeChunk (recoverMerges ranks) (rankShuffle ranks) chunk) =
      encodePieceRanks ranks chunk := by
  have hshuf : chunk.map (fun b => (rankShuffle ranks b).toNat) =
      (chunk.map fun c => [c]).map (rankOrZero ranks) := by
    rw [List.map_map]
    apply List.map_congr_left
    intro b _
    obtain ⟨r, hr, hlt⟩ := h.byte_rank b
    have hs : rankShuffle ranks b = UInt8.ofNat r := by simp only [rankShuffle, hr]
    have hr' : rankOrZero ranks [b] = r := by simp [rankOrZero, hr]
    show (rankShuffle ranks b).toNat = rankOrZero ranks [b]
    rw [hs, hr']
    exact UInt8.toNat_ofNat_of_lt hlt
  have henc : encodeChunk (recoverMerges ranks) (rankShuffle ranks) chunk =
      (decomposeToken ranks chunk none).map (rankOrZero ranks) := by
    show encodeLoop (recoverMerges ranks) (chunk.map fun b => (rankShuffle ranks b).toNat).length
      (chunk.map fun b => (rankShuffle ranks b).toNat) = _
    rw [hshuf]
    exact encodeLoop_eq h chunk _ _ ⟨0, rfl⟩ (Nat.le_of_eq (by simp))
  rw [henc]
  cases hw : rankOf ranks chunk with
  | some r =>
    simp only [encodePieceRanks, hw]
    rw [decomposeToken_self h hw]
    simp [rankOrZero, hw]
  | none =>
    simp only [encodePieceRanks, hw]
    rw [bytePairMerge_eq_decomposeToken]
    refine (mapM_eq_some_map _ ?_).symm
    intro p hp
    have hk : decomposeLoop ranks none chunk.length (chunk.map fun c => [c]) =
        decomposeToken ranks chunk none := rfl
    exact rankOf_rankOrZero_of_run h hk p hp

/-- **Corollary**: for any pre-tokenizer, the seed's `encodeWith` on the recovered tables
returns exactly tiktoken's ids for the whole string. -/
theorem encodeWith_eq_encodeRanksWith (h : RanksOk ranks) (preTokenize : Bytes → List Bytes)
    (text : String) :
    some (encodeWith preTokenize (recoverMerges ranks) (rankShuffle ranks) text) =
      encodeRanksWith preTokenize ranks text := by
  have hm : (preTokenize (stringBytes text)).mapM (fun piece => encodePieceRanks ranks piece) =
      some ((preTokenize (stringBytes text)).map
        (encodeChunk (recoverMerges ranks) (rankShuffle ranks))) :=
    mapM_eq_some_map _ (fun c _ => (encodeChunk_eq_encodePieceRanks h c).symm)
  unfold encodeWith encodeRanksWith
  rw [hm]
  exact rfl

@[deprecated encodeChunk_eq_encodePieceRanks (since := "2026-11-25")]
abbrev encodeChunk_eq_bytePairMerge := @encodeChunk_eq_encodePieceRanks

end RanksEquiv

end Bpe
