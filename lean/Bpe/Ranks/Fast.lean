module

public import Bpe.Ranks.Slice
public import Bpe.Ranks.Tree

/-!
# A fast checker for `RanksOk`, through any lookup that answers as `rankOf`

`checkRanks`, `recoverMerge` and `rankShuffle` look byte strings up with `rankOf` (a walk along
the table). Here the same functions take the lookup as a parameter `look`: `decomposeTokenBy`
is `decomposeToken`'s loop (same choice of pair, same merge step, same fuel) with `look` in
place of `rankOf`, and `checkRanksBy`, `recoverMergeBy`, `rankShuffleBy` are `checkRanks`,
`recoverMerge`, `rankShuffle` on top of it. Whenever `look` answers as `rankOf ranks` on every
byte string, each equals the spec's (`checkRanksBy_eq`, `recoverMergeBy_eq`,
`rankShuffleBy_eq`; the proofs follow the fuel of the loop). `Bpe.Exec.RanksRecover` proves the
compiled recovery equal to `recoverMergeBy (findTok s)` and gets the spec's from
`recoverMergeBy_eq`.

With the search tree of `Bpe.Ranks.Tree` as the lookup (`lookTree tree`, which answers as
`rankOf ranks` once `checkRankTree ranks tree = true`, `lookTree_eq`), `checkRanksFast` is a
checker of condition C whose lookups cost a few comparisons of numbers:
**`checkRanks_of_checkRanksFast`** (so `checkRanksFast_sound : RanksOk ranks`), and the tables
the seed's encoder needs are recovered through the tree as well
(`recoverMerges_eq_of_checkRankTree`, `rankShuffle_eq_of_checkRankTree`).
`encodeWith_eq_of_checkRanksFast` is the main theorem of issue 14 for tables checked this way.
-/

@[expose] public section
noncomputable section

namespace Bpe

/-! ## The decomposition through a lookup -/

/-- `allowedRank ranks (some m)` through `look`: the rank of `t` if it is below `m`. -/
def allowedRankBy (look : Bytes → Option Nat) (m : Nat) (t : Bytes) : Option Nat :=
  match look t with
  | some r => if r < m then some r else none
  | none => none

/-- `bestPairIndex ranks (some m)` through `look`. -/
def bestPairIndexBy (look : Bytes → Option Nat) (m : Nat) :
    Nat → List Bytes → Option (Nat × Nat)
  | i, a :: b :: rest =>
    match allowedRankBy look m (a ++ b), bestPairIndexBy look m (i + 1) (b :: rest) with
    | none, r => r
    | some r, none => some (i, r)
    | some r, some (j, s) => if s < r then some (j, s) else some (i, r)
  | _, _ => none

/-- `decomposeLoop ranks (some m)` through `look`. -/
def decomposeLoopBy (look : Bytes → Option Nat) (m : Nat) : Nat → List Bytes → List Bytes
  | 0, parts => parts
  | fuel + 1, parts =>
    match bestPairIndexBy look m 0 parts with
    | none => parts
    | some (i, _) => decomposeLoopBy look m fuel (mergeAt i parts)

/-- `decomposeToken ranks token (some m)` through `look`. -/
def decomposeTokenBy (look : Bytes → Option Nat) (token : Bytes) (m : Nat) : List Bytes :=
  decomposeLoopBy look m token.length (token.map fun b => [b])

section
variable {look : Bytes → Option Nat} {ranks : Ranks}

theorem allowedRankBy_eq (hl : ∀ t, look t = rankOf ranks t) (m : Nat) (t : Bytes) :
    allowedRankBy look m t = allowedRank ranks (some m) t := by
  unfold allowedRankBy allowedRank
  rw [hl]
  cases rankOf ranks t <;> rfl

theorem bestPairIndexBy_eq (hl : ∀ t, look t = rankOf ranks t) (m : Nat) :
    ∀ (i : Nat) (parts : List Bytes),
      bestPairIndexBy look m i parts = bestPairIndex ranks (some m) i parts
  | i, a :: b :: rest => by
    rw [bestPairIndexBy, bestPairIndex, allowedRankBy_eq hl,
      bestPairIndexBy_eq hl m (i + 1) (b :: rest)]
    cases allowedRank ranks (some m) (a ++ b) with
    | none => rfl
    | some r =>
      cases bestPairIndex ranks (some m) (i + 1) (b :: rest) with
      | none => rfl
      | some p =>
        obtain ⟨j, q⟩ := p
        rfl
  | _, [] => rfl
  | _, [_] => rfl

theorem decomposeLoopBy_eq (hl : ∀ t, look t = rankOf ranks t) (m : Nat) :
    ∀ (fuel : Nat) (parts : List Bytes),
      decomposeLoopBy look m fuel parts = decomposeLoop ranks (some m) fuel parts
  | 0, _ => rfl
  | fuel + 1, parts => by
    rw [decomposeLoopBy, decomposeLoop_succ, bestPairIndexBy_eq hl]
    cases bestPairIndex ranks (some m) 0 parts with
    | none => rfl
    | some p =>
      obtain ⟨i, r⟩ := p
      exact decomposeLoopBy_eq hl m fuel (mergeAt i parts)

/-- The decomposition through `look` is `decomposeToken` when `look` answers as `rankOf`. -/
theorem decomposeTokenBy_eq (hl : ∀ t, look t = rankOf ranks t) (token : Bytes) (m : Nat) :
    decomposeTokenBy look token m = decomposeToken ranks token (some m) :=
  decomposeLoopBy_eq hl m _ _

end

/-! ## The checks through a lookup -/

/-- `checkLookup ranks` through `look`. -/
def checkLookupBy (look : Bytes → Option Nat) (entry : Bytes × Nat) : Bool :=
  look entry.1 == some entry.2

/-- `checkByteRank ranks` through `look`. -/
def checkByteRankBy (look : Bytes → Option Nat) (b : Nat) : Bool :=
  match look [UInt8.ofNat b] with
  | some r => r < 256
  | none => false

/-- `checkTwoParts ranks` through `look`. -/
def checkTwoPartsBy (look : Bytes → Option Nat) (entry : Bytes × Nat) : Bool :=
  entry.1.length < 2 || (decomposeTokenBy look entry.1 entry.2).length == 2

/-- `checkRanks` through `look`: the same six tests. -/
def checkRanksBy (look : Bytes → Option Nat) (ranks : Ranks) : Bool :=
  ranksIncreasing ranks && ranks.all (checkLookupBy look) && ranks.all (fun e => !e.1.isEmpty) &&
    (List.range 256).all (checkByteRankBy look) && ranks.all (checkTwoPartsBy look) &&
    ranks.all checkRankBound

/-- `recoverMerge ranks` through `look`. -/
def recoverMergeBy (look : Bytes → Option Nat) (entry : Bytes × Nat) :
    Option ((Nat × Nat) × Nat) :=
  match decomposeTokenBy look entry.1 entry.2 with
  | [a, b] =>
    match look a, look b with
    | some ra, some rb => some ((ra, rb), entry.2)
    | _, _ => none
  | _ => none

/-- `rankShuffle ranks` through `look`. -/
def rankShuffleBy (look : Bytes → Option Nat) (b : UInt8) : UInt8 :=
  match look [b] with
  | some r => UInt8.ofNat r
  | none => b

section
variable {look : Bytes → Option Nat} {ranks : Ranks}

theorem checkRanksBy_eq (hl : ∀ t, look t = rankOf ranks t) :
    checkRanksBy look ranks = checkRanks ranks := by
  have h1 : checkLookupBy look = checkLookup ranks := by
    funext e
    simp only [checkLookupBy, checkLookup, hl]
  have h2 : checkByteRankBy look = checkByteRank ranks := by
    funext b
    cases hr : rankOf ranks [UInt8.ofNat b] <;> simp only [checkByteRankBy, checkByteRank, hl, hr]
  have h3 : checkTwoPartsBy look = checkTwoParts ranks := by
    funext e
    simp only [checkTwoPartsBy, checkTwoParts, decomposeTokenBy_eq hl]
  simp only [checkRanksBy, checkRanks, h1, h2, h3]

theorem recoverMergeBy_eq (hl : ∀ t, look t = rankOf ranks t) :
    recoverMergeBy look = recoverMerge ranks := by
  funext e
  unfold recoverMergeBy recoverMerge
  rw [decomposeTokenBy_eq hl]
  generalize decomposeToken ranks e.1 (some e.2) = l
  rcases l with _ | ⟨a, _ | ⟨b, _ | ⟨c, rest⟩⟩⟩
  · rfl
  · rfl
  · cases ha : rankOf ranks a <;> cases hb : rankOf ranks b <;> simp only [hl, ha, hb]
  · rfl

theorem rankShuffleBy_eq (hl : ∀ t, look t = rankOf ranks t) :
    rankShuffleBy look = rankShuffle ranks := by
  funext b
  cases hr : rankOf ranks [b] <;> simp only [rankShuffleBy, rankShuffle, hl, hr]

end

/-! ## The fast checker: lookups in the search tree -/

/-- Condition C, tested with lookups in `tree` after checking that `tree` is the table's
search tree. -/
def checkRanksFast (ranks : Ranks) (tree : RankTree) : Bool :=
  checkRankTree ranks tree && checkRanksBy (lookTree tree) ranks

variable {ranks : Ranks} {tree : RankTree}

/-- **Soundness of `checkRanksFast`**: it passes only tables that pass `checkRanks`. -/
theorem checkRanks_of_checkRanksFast (h : checkRanksFast ranks tree = true) :
    checkRanks ranks = true := by
  simp only [checkRanksFast, Bool.and_eq_true] at h
  rw [← checkRanksBy_eq (lookTree_eq h.1)]
  exact h.2

/-- A table that passes `checkRanksFast` satisfies condition C. -/
theorem checkRanksFast_sound (h : checkRanksFast ranks tree = true) : RanksOk ranks :=
  checkRanks_sound ranks (checkRanks_of_checkRanksFast h)

/-- The merges recovered from a table, recovered through its search tree. -/
theorem recoverMerges_eq_of_checkRankTree (h : checkRankTree ranks tree = true) :
    recoverMerges ranks = ranks.filterMap (recoverMergeBy (lookTree tree)) := by
  rw [recoverMergeBy_eq (lookTree_eq h)]
  rfl

/-- The byte shuffle of a table, computed through its search tree. -/
theorem rankShuffle_eq_of_checkRankTree (h : checkRankTree ranks tree = true) :
    rankShuffle ranks = rankShuffleBy (lookTree tree) :=
  (rankShuffleBy_eq (lookTree_eq h)).symm

/-- The main theorem of issue 14 for a table checked by `checkRanksFast`, with the merge table
and the byte shuffle recovered through the tree: the seed's encoder on them is tiktoken's. -/
theorem encodeWith_eq_of_checkRanksFast {merges : Merges} {shuffle : UInt8 → UInt8}
    (hc : checkRanksFast ranks tree = true)
    (hm : ranks.filterMap (recoverMergeBy (lookTree tree)) = merges)
    (hs : rankShuffleBy (lookTree tree) = shuffle)
    (preTokenize : Bytes → List Bytes) (text : String) :
    some (encodeWith preTokenize merges shuffle text) = encodeRanksWith preTokenize ranks text := by
  have ht : checkRankTree ranks tree = true := by
    simp only [checkRanksFast, Bool.and_eq_true] at hc
    exact hc.1
  exact encodeWith_eq_of_checkRanks (checkRanks_of_checkRanksFast hc)
    ((recoverMerges_eq_of_checkRankTree ht).trans hm)
    ((rankShuffle_eq_of_checkRankTree ht).trans hs) preTokenize text

end Bpe
