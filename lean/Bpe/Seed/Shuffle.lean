module

public import Bpe.Seed.Classify

/-!
# Byte shuffle and its inverse (Lemma 2)

GPT-4's vocabulary numbers the 256 single bytes in a permuted order; the tokenizer maps each
byte through `byteShuffle` before merging and each decoded byte through the inverse after.
`invertShuffle f` computes the inverse by searching `0..255` for the preimage. Lemma 2
(`invertShuffle_shuffle`): if `f` is injective (the bijection field of `WellFormed` gives it),
`invertShuffle f (f b) = b` for every byte `b`.
-/

@[expose] public section
noncomputable section

namespace Bpe

/-- A bijection of bytes (core Lean has `Function.Injective`/`Surjective` but not
`Function.Bijective`, which lives in Mathlib). -/
def Bijective (f : UInt8 → UInt8) : Prop := Function.Injective f ∧ Function.Surjective f

/-- The inverse shuffle: the first `x` with `f x = b` (or `b` if there is none). -/
def invertShuffle (f : UInt8 → UInt8) (b : UInt8) : UInt8 :=
  match (List.range 256).find? (fun x => f (UInt8.ofNat x) == b) with
  | some x => UInt8.ofNat x
  | none => b

theorem UInt8.toNat_lt_256 (b : UInt8) : b.toNat < 256 := b.toBitVec.isLt

/-- **Lemma 2** (shuffle cancellation), for any injective shuffle. -/
theorem invertShuffle_shuffle (f : UInt8 → UInt8) (hf : Function.Injective f) (b : UInt8) :
    invertShuffle f (f b) = b := by
  unfold invertShuffle
  split
  next x hx =>
    have hp := List.find?_some hx
    exact hf (by simpa using hp)
  next hnone =>
    rw [List.find?_eq_none] at hnone
    have := hnone b.toNat (List.mem_range.mpr (UInt8.toNat_lt_256 b))
    simp at this

end Bpe
