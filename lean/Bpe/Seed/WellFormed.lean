module

public import Bpe.Seed.Merge
public import Bpe.Seed.Shuffle

/-!
# Well-formed tables (seed part 5)

`WellFormed merges vocab byteShuffle` has the seed's four fields: the 256 base tokens are the
single bytes; every merge `(p0, p1) ↦ idx` has `vocab[idx] = vocab[p0] ++ vocab[p1]` with both
parts strictly shorter; the vocabulary is injective on its defined entries; the shuffle is a
bijection. `WellFormed.shuffle_cancel` is Lemma 2 in the seed's form (from the bijection field).
`buildVocab` builds the vocabulary from a merge table as the seed's pseudocode does.
-/

@[expose] public section
noncomputable section

namespace Bpe

structure WellFormed (merges : Merges) (vocab : Vocab) (byteShuffle : UInt8 → UInt8) :
    Prop where
  base_tokens : ∀ b : UInt8, vocab.lookup b.toNat = some [b]
  merge_decomp : ∀ p0 p1 idx, merges.lookup (p0, p1) = some idx →
    ∃ a b, vocab.lookup p0 = some a ∧ vocab.lookup p1 = some b ∧
      vocab.lookup idx = some (a ++ b) ∧ a.length < (a ++ b).length ∧ b.length < (a ++ b).length
  injectivity : ∀ i j t, vocab.lookup i = some t → vocab.lookup j = some t → i = j
  shuffle_bijection : Bijective byteShuffle

/-- **Lemma 2** in the seed's form: the inverse shuffle computed from a well-formed shuffle
cancels it. -/
theorem WellFormed.shuffle_cancel {merges : Merges} {vocab : Vocab} {byteShuffle : UInt8 → UInt8}
    (hw : WellFormed merges vocab byteShuffle) (b : UInt8) :
    invertShuffle byteShuffle (byteShuffle b) = b :=
  invertShuffle_shuffle byteShuffle hw.shuffle_bijection.1 b

/-- The 256 base tokens `i ↦ [i]`. -/
def baseVocab : Vocab := (List.range 256).map fun i => (i, [UInt8.ofNat i])

/-- One step of `build_vocab`: `vocab[idx] ← vocab[p0] ++ vocab[p1]` (the new head shadows an
earlier entry, like a dictionary assignment; a merge whose parts are not yet defined is
skipped — the Python mirror raises instead). -/
def buildStep (v : Vocab) (m : (Nat × Nat) × Nat) : Vocab :=
  match v.lookup m.1.1, v.lookup m.1.2 with
  | some a, some b => (m.2, a ++ b) :: v
  | _, _ => v

/-- `build_vocab`: the base tokens, then `buildStep` for each merge in order. -/
def buildVocab (merges : Merges) : Vocab := merges.foldl buildStep baseVocab

end Bpe
