module

public import Bpe.Unicode.Cl100k
public import Bpe.Unicode.O200k
public import Bpe.Seed.Roundtrip

/-!
# The cl100k_base and o200k_base encoders over Unicode

`encodeCl100k` and `encodeO200k` are `encodeWith` with the Unicode pre-tokenizer of the
encoding (`Bpe.Unicode.Cl100k`, `Bpe.Unicode.O200k`). Their roundtrip holds for **every**
string: a corollary of `bpe_roundtrip`, since both pre-tokenizers partition their input
(`flatten_preTokenizeCl100k`, `flatten_preTokenizeO200k`).
-/

@[expose] public section
noncomputable section

namespace Bpe

/-- cl100k_base's encoder: the merges over the chunks of `preTokenizeCl100k`. -/
def encodeCl100k (merges : Merges) (byteShuffle : UInt8 → UInt8) (text : String) : List Nat :=
  encodeWith preTokenizeCl100k merges byteShuffle text

/-- o200k_base's encoder: the merges over the chunks of `preTokenizeO200k`. -/
def encodeO200k (merges : Merges) (byteShuffle : UInt8 → UInt8) (text : String) : List Nat :=
  encodeWith preTokenizeO200k merges byteShuffle text

/-- **cl100k_base roundtrip, for every string** (a corollary of `bpe_roundtrip`). -/
theorem encodeCl100k_roundtrip (merges : Merges) (vocab : Vocab)
    (byteShuffle inverseByteShuffle : UInt8 → UInt8) (hw : WellFormed merges vocab byteShuffle)
    (hinv : ∀ b, inverseByteShuffle (byteShuffle b) = b) (s : String) :
    decode vocab inverseByteShuffle (encodeCl100k merges byteShuffle s) = some s :=
  bpe_roundtrip preTokenizeCl100k flatten_preTokenizeCl100k merges vocab byteShuffle
    inverseByteShuffle hw hinv s

/-- **o200k_base roundtrip, for every string** (a corollary of `bpe_roundtrip`). -/
theorem encodeO200k_roundtrip (merges : Merges) (vocab : Vocab)
    (byteShuffle inverseByteShuffle : UInt8 → UInt8) (hw : WellFormed merges vocab byteShuffle)
    (hinv : ∀ b, inverseByteShuffle (byteShuffle b) = b) (s : String) :
    decode vocab inverseByteShuffle (encodeO200k merges byteShuffle s) = some s :=
  bpe_roundtrip preTokenizeO200k flatten_preTokenizeO200k merges vocab byteShuffle
    inverseByteShuffle hw hinv s

end Bpe
