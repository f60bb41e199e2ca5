module

public import Bpe.Ranks.Check
public import Bpe.Ranks.Equiv

/-!
# Checked rank tables: the two encoders agree on given tables

The main theorem of issue 14 (`encodeWith_eq_encodeRanksWith`) speaks of the tables
`recoverMerges ranks` and `rankShuffle ranks`. For a concrete table (the cross-check modules
hold the first 1,000 ranks of `cl100k_base` and `o200k_base`) three kernel evaluations apply
it to tables written out in full: `checkRanks ranks = true` (condition C, `checkRanks_sound`),
`recoverMerges ranks = merges`, and the byte shuffle tested on the 256 bytes
(`checkByteMapEq`, turned into an equation of functions by `eq_of_all_checkByteMapEq`).
-/

@[expose] public section
noncomputable section

namespace Bpe

/-- The byte maps `f` and `g` agree at byte `n` (`n` below 256). -/
def checkByteMapEq (f g : UInt8 → UInt8) (n : Nat) : Bool :=
  f (UInt8.ofNat n) == g (UInt8.ofNat n)

/-- Two byte maps that agree on `0, …, 255` are equal. -/
theorem eq_of_all_checkByteMapEq {f g : UInt8 → UInt8}
    (h : (List.range 256).all (checkByteMapEq f g) = true) : f = g := by
  funext b
  have hall := List.all_eq_true.mp h b.toNat (List.mem_range.mpr b.toBitVec.isLt)
  have hb : UInt8.ofNat b.toNat = b := by simp
  simpa [checkByteMapEq, hb] using hall

variable {ranks : Ranks} {merges : Merges} {shuffle : UInt8 → UInt8}

/-- On a table that passes `checkRanks`, the seed's chunk encoder on the given tables (equal
to the recovered ones) is tiktoken's. -/
theorem encodeChunk_eq_of_checkRanks (hc : checkRanks ranks = true)
    (hm : recoverMerges ranks = merges) (hs : rankShuffle ranks = shuffle) (chunk : Bytes) :
    some (encodeChunk merges shuffle chunk) = encodePieceRanks ranks chunk := by
  subst hm hs
  exact encodeChunk_eq_encodePieceRanks (checkRanks_sound ranks hc) chunk

/-- The same for whole strings, for any pre-tokenizer. -/
theorem encodeWith_eq_of_checkRanks (hc : checkRanks ranks = true)
    (hm : recoverMerges ranks = merges) (hs : rankShuffle ranks = shuffle)
    (preTokenize : Bytes → List Bytes) (text : String) :
    some (encodeWith preTokenize merges shuffle text) = encodeRanksWith preTokenize ranks text := by
  subst hm hs
  exact encodeWith_eq_encodeRanksWith (checkRanks_sound ranks hc) preTokenize text

/-- The same for `encode` (the ASCII pre-tokenizer). -/
theorem encode_eq_of_checkRanks (hc : checkRanks ranks = true)
    (hm : recoverMerges ranks = merges) (hs : rankShuffle ranks = shuffle) (text : String) :
    some (encode merges shuffle text) = encodeRanksWith preTokenizeAscii ranks text :=
  encodeWith_eq_of_checkRanks hc hm hs preTokenizeAscii text

end Bpe
