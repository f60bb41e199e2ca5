module

public import Bpe.Seed.Encode
public import Bpe.Seed.WellFormed

/-!
# The roundtrip theorems (seed part 8)

`ascii_bpe_roundtrip`: for well-formed tables and an inverse shuffle, decoding the encoding
of an ASCII string gives it back. The proof follows the seed's chain: UTF-8 encoding
(Lemma 7), the partition of the pre-tokenizer (Lemma 4), merge preservation inside each
chunk (Lemma 1), distributivity of decoding over `++` (Lemma 6), shuffle cancellation
(Lemma 2), UTF-8 decoding (Lemma 7). `bpe_roundtrip` is the general form: every string
(full UTF-8) and any pre-tokenizer whose chunks concatenate back to its input. Only the
`base_tokens` and `merge_decomp` fields of `WellFormed` are used, and the ASCII hypothesis
is not needed.
-/

@[expose] public section

namespace Bpe

variable {merges : Merges} {vocab : Vocab} {byteShuffle : UInt8 → UInt8}

/-- The merge loop preserves the decoded bytes (Lemma 1 at every step). -/
theorem decodeBytes_encodeLoop (hw : WellFormed merges vocab byteShuffle) :
    ∀ (fuel : Nat) (ids : List Nat),
      decodeBytes vocab (encodeLoop merges fuel ids) = decodeBytes vocab ids
  | 0, _ => rfl
  | fuel + 1, ids => by
    unfold encodeLoop
    cases hbest : bestMerge merges (getStats ids) with
    | none => rfl
    | some r =>
      obtain ⟨pair, idx⟩ := r
      show decodeBytes vocab (encodeLoop merges fuel (merge ids pair idx)) = _
      rw [decodeBytes_encodeLoop hw fuel]
      obtain ⟨a, b, ha, hb, hidx, -, -⟩ :=
        hw.merge_decomp pair.1 pair.2 idx (bestMerge_lookup merges _ pair idx hbest)
      apply decodeBytes_merge
      simp [ha, hb, hidx]

/-- Byte ids decode to the bytes (the `base_tokens` field). -/
theorem decodeBytes_shuffled (hw : WellFormed merges vocab byteShuffle) :
    ∀ bs : Bytes, decodeBytes vocab (bs.map fun b => (byteShuffle b).toNat) =
      some (bs.map byteShuffle)
  | [] => rfl
  | b :: bs => by
    simp [decodeBytes, hw.base_tokens, decodeBytes_shuffled hw bs]

/-- A chunk's ids decode to its shuffled bytes. -/
theorem decodeBytes_encodeChunk (hw : WellFormed merges vocab byteShuffle) (chunk : Bytes) :
    decodeBytes vocab (encodeChunk merges byteShuffle chunk) = some (chunk.map byteShuffle) := by
  unfold encodeChunk
  rw [decodeBytes_encodeLoop hw, decodeBytes_shuffled hw]

/-- Chunk by chunk (Lemma 6 over the list of chunks). -/
theorem decodeBytes_flatMap (hw : WellFormed merges vocab byteShuffle) :
    ∀ chunks : List Bytes,
      decodeBytes vocab (chunks.flatMap (encodeChunk merges byteShuffle)) =
        some (chunks.flatten.map byteShuffle)
  | [] => rfl
  | c :: cs => by
    rw [List.flatMap_cons, decodeBytes_append_some _ _ _ _ _ (decodeBytes_encodeChunk hw c)
      (decodeBytes_flatMap hw cs)]
    simp

/-- **Roundtrip for every string and any partitioning pre-tokenizer.** -/
theorem bpe_roundtrip (preTokenize : Bytes → List Bytes)
    (hpart : ∀ data, (preTokenize data).flatten = data)
    (merges : Merges) (vocab : Vocab) (byteShuffle inverseByteShuffle : UInt8 → UInt8)
    (hw : WellFormed merges vocab byteShuffle)
    (hinv : ∀ b, inverseByteShuffle (byteShuffle b) = b) (s : String) :
    decode vocab inverseByteShuffle (encodeWith preTokenize merges byteShuffle s) = some s := by
  unfold decode decodeChunk encodeWith
  rw [decodeBytes_flatMap hw, hpart]
  have hcomp : inverseByteShuffle ∘ byteShuffle = id := funext hinv
  simp [hcomp, bytesToString?_stringBytes]

/-- **The seed's main theorem**: for all ASCII `s`, `decode (encode s) = s`. -/
theorem ascii_bpe_roundtrip (merges : Merges) (vocab : Vocab)
    (byteShuffle inverseByteShuffle : UInt8 → UInt8)
    (hw : WellFormed merges vocab byteShuffle)
    (hinv : ∀ b, inverseByteShuffle (byteShuffle b) = b)
    (s : String) (_hs : IsAsciiString s) :
    decode vocab inverseByteShuffle (encode merges byteShuffle s) = some s :=
  bpe_roundtrip preTokenizeAscii flatten_preTokenizeAscii merges vocab byteShuffle
    inverseByteShuffle hw hinv s

/-- The roundtrip with the inverse shuffle computed from the shuffle (Lemma 2). -/
theorem ascii_bpe_roundtrip_invertShuffle (merges : Merges) (vocab : Vocab)
    (byteShuffle : UInt8 → UInt8) (hw : WellFormed merges vocab byteShuffle)
    (s : String) (hs : IsAsciiString s) :
    decode vocab (invertShuffle byteShuffle) (encode merges byteShuffle s) = some s :=
  ascii_bpe_roundtrip merges vocab byteShuffle _ hw hw.shuffle_cancel s hs

end Bpe
