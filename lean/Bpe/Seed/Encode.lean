module

public import Bpe.Seed.PreTokenize
public import Bpe.Seed.Merge
public import Bpe.Seed.Utf8

/-!
# Encoding and decoding (seed parts 6 and 7)

`encodeChunk` shuffles the bytes of a chunk and then repeatedly applies the best merge
(lowest merge index among the adjacent pairs, `getStats`/`bestMerge`) until none applies;
the loop is structural recursion on a fuel equal to the chunk length (so the kernel can
evaluate it), and the fuel is enough: each merge shortens the list, so the loop always stops
because no pair has a merge left (`bestMerge_encodeChunk`), exactly as the seed's `while`
loop. `decodeChunk` decodes the ids and un-shuffles the bytes.
`encodeWith preTokenize` encodes a string chunk by chunk for any pre-tokenizer; `encode` is
the seed's instance with the ASCII state machine. `decode` returns `none` on an unknown id
or invalid UTF-8 instead of failing.
-/

@[expose] public section
noncomputable section

namespace Bpe

/-- The merge loop of `encode_chunk`. -/
def encodeLoop (merges : Merges) : Nat → List Nat → List Nat
  | 0, ids => ids
  | fuel + 1, ids =>
    match bestMerge merges (getStats ids) with
    | none => ids
    | some (pair, idx) => encodeLoop merges fuel (merge ids pair idx)

/-- `encode_chunk`: shuffle the bytes, then merge until no pair has a merge. -/
def encodeChunk (merges : Merges) (byteShuffle : UInt8 → UInt8) (chunk : Bytes) : List Nat :=
  let ids := chunk.map fun b => (byteShuffle b).toNat
  encodeLoop merges ids.length ids

/-- `decode_chunk`: decode the ids, then apply the inverse shuffle to every byte. -/
def decodeChunk (vocab : Vocab) (inverseByteShuffle : UInt8 → UInt8) (ids : List Nat) :
    Option Bytes :=
  (decodeBytes vocab ids).map (List.map inverseByteShuffle)

/-- Encode a string with any pre-tokenizer (bytes ↦ chunks). -/
def encodeWith (preTokenize : Bytes → List Bytes) (merges : Merges)
    (byteShuffle : UInt8 → UInt8) (text : String) : List Nat :=
  (preTokenize (stringBytes text)).flatMap (encodeChunk merges byteShuffle)

/-- `encode`: the seed's encoder, with the ASCII pre-tokenizer. -/
def encode (merges : Merges) (byteShuffle : UInt8 → UInt8) (text : String) : List Nat :=
  encodeWith preTokenizeAscii merges byteShuffle text

/-- `decode`: `none` on an unknown token id or invalid UTF-8. -/
def decode (vocab : Vocab) (inverseByteShuffle : UInt8 → UInt8) (ids : List Nat) :
    Option String :=
  (decodeChunk vocab inverseByteShuffle ids).bind bytesToString?

/-- The merge loop stops with no mergeable pair left whenever the fuel is at least the
length of the list. -/
theorem bestMerge_encodeLoop (merges : Merges) :
    ∀ (fuel : Nat) (ids : List Nat), ids.length ≤ fuel →
      bestMerge merges (getStats (encodeLoop merges fuel ids)) = none
  | 0, ids, h => by
    have : ids = [] := List.eq_nil_of_length_eq_zero (by omega)
    subst this; rfl
  | fuel + 1, ids, h => by
    unfold encodeLoop
    cases hb : bestMerge merges (getStats ids) with
    | none => exact hb
    | some r =>
      obtain ⟨p, idx⟩ := r
      have := length_merge_lt_of_bestMerge merges ids p idx hb
      exact bestMerge_encodeLoop merges fuel _ (by omega)

/-- **Fuel sufficiency**: the fuel of `encodeChunk` (the chunk length) is enough — its
result has no adjacent pair with a merge, as when the seed's `while` loop exits. -/
theorem bestMerge_encodeChunk (merges : Merges) (byteShuffle : UInt8 → UInt8) (chunk : Bytes) :
    bestMerge merges (getStats (encodeChunk merges byteShuffle chunk)) = none :=
  bestMerge_encodeLoop merges _ _ (Nat.le_refl _)

end Bpe
