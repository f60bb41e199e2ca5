module

public import Bpe.Ranks.Tree

/-!
# tiktoken's encoder through any lookup that answers as `rankOf`

`encodeRanksWith` looks every pair up with `rankOf` (a walk along the table). Here the same
functions take the lookup as a parameter `look`: `pairRanksBy`, `bytePairMergeLoopBy`,
`bytePairMergeBy`, `encodePieceRanksBy` and `encodeRanksWithBy` are `Basic`'s definitions of the
same names with `look` in place of `rankOf ranks`, step for step. Whenever `look` answers as
`rankOf ranks` on every byte string, each equals the spec's (`encodeRanksWithBy_eq`), so with
the search tree of `Bpe.Ranks.Tree` (`lookTree tree`, once `checkRankTree ranks tree = true`):
**`encodeRanksWithBy_lookTree`**.

This is what route 1 of the cross-check has the kernel evaluate: a lookup in the tree costs a
few comparisons of numbers where `rankOf` (and the seed's merge list) walk hundreds of entries,
and the proven equivalences carry each evaluated fact to the encoder it is stated for.
-/

@[expose] public section
noncomputable section

namespace Bpe

/-- `pairRanks ranks` through `look`. -/
def pairRanksBy (look : Bytes → Option Nat) : List Bytes → List (Option Nat)
  | a :: b :: rest => look (a ++ b) :: pairRanksBy look (b :: rest)
  | _ => []

/-- `bytePairMergeLoop ranks` through `look`. -/
def bytePairMergeLoopBy (look : Bytes → Option Nat) : Nat → List Bytes → List Bytes
  | 0, parts => parts
  | fuel + 1, parts =>
    match lowestRank (pairRanksBy look parts) with
    | none => parts
    | some (i, _) => bytePairMergeLoopBy look fuel (mergeAt i parts)

/-- `bytePairMerge ranks` through `look`. -/
def bytePairMergeBy (look : Bytes → Option Nat) (piece : Bytes) : List Bytes :=
  bytePairMergeLoopBy look piece.length (piece.map fun b => [b])

/-- `encodePieceRanks ranks` through `look`. -/
def encodePieceRanksBy (look : Bytes → Option Nat) (piece : Bytes) : Option (List Nat) :=
  match look piece with
  | some r => some [r]
  | none => (bytePairMergeBy look piece).mapM fun part => look part

/-- `encodeRanksWith preTokenize ranks` through `look`. -/
def encodeRanksWithBy (preTokenize : Bytes → List Bytes) (look : Bytes → Option Nat)
    (text : String) : Option (List Nat) :=
  ((preTokenize (stringBytes text)).mapM fun piece => encodePieceRanksBy look piece).map
    List.flatten

theorem pairRanksBy_rankOf (ranks : Ranks) :
    ∀ parts, pairRanksBy (rankOf ranks) parts = pairRanks ranks parts
  | a :: b :: rest => by
    rw [pairRanksBy, pairRanks, pairRanksBy_rankOf ranks (b :: rest)]
  | [] => rfl
  | [_] => rfl

theorem bytePairMergeLoopBy_rankOf (ranks : Ranks) :
    ∀ fuel parts,
      bytePairMergeLoopBy (rankOf ranks) fuel parts = bytePairMergeLoop ranks fuel parts
  | 0, _ => rfl
  | fuel + 1, parts => by
    rw [bytePairMergeLoopBy, bytePairMergeLoop, pairRanksBy_rankOf]
    cases lowestRank (pairRanks ranks parts) with
    | none => rfl
    | some p => exact bytePairMergeLoopBy_rankOf ranks fuel _

/-- **The encoder through a lookup is the spec's** whenever the lookup answers as `rankOf`. -/
theorem encodeRanksWithBy_eq {look : Bytes → Option Nat} {ranks : Ranks}
    (hl : ∀ t, look t = rankOf ranks t) (preTokenize : Bytes → List Bytes) (text : String) :
    encodeRanksWithBy preTokenize look text = encodeRanksWith preTokenize ranks text := by
  have hf : look = rankOf ranks := funext hl
  subst hf
  have hm (piece : Bytes) : bytePairMergeBy (rankOf ranks) piece = bytePairMerge ranks piece :=
    bytePairMergeLoopBy_rankOf ranks _ _
  have hp (piece : Bytes) :
      encodePieceRanksBy (rankOf ranks) piece = encodePieceRanks ranks piece := by
    simp only [encodePieceRanksBy, encodePieceRanks, hm]
    cases rankOf ranks piece <;> rfl
  simp only [encodeRanksWithBy, encodeRanksWith, hp]

/-- **The encoder through the search tree is the spec's**: once `checkRankTree ranks tree`
holds, `encodeRanksWithBy preTokenize (lookTree tree)` is `encodeRanksWith preTokenize ranks`. -/
theorem encodeRanksWithBy_lookTree {ranks : Ranks} {tree : RankTree}
    (h : checkRankTree ranks tree = true) (preTokenize : Bytes → List Bytes) (text : String) :
    encodeRanksWithBy preTokenize (lookTree tree) text = encodeRanksWith preTokenize ranks text :=
  encodeRanksWithBy_eq (lookTree_eq h) preTokenize text

end Bpe
