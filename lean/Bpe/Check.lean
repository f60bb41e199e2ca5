module

public import Bpe.Roundtrip

/-!
# A Boolean checker for `WellFormed`

`checkWellFormed merges vocab byteShuffle` tests the four fields of `WellFormed` on concrete
tables: every base token, every entry of the merge table, every pair of vocabulary entries,
and the shuffle on all 256 bytes. `checkWellFormed_sound` proves that `true` means
`WellFormed`, so the roundtrip theorem can be instantiated on a real vocabulary by kernel
evaluation (`checkWellFormed … = true := by decide`).
-/

@[expose] public section
noncomputable section

namespace Bpe

/-- Every byte `i` is the token `[i]`. -/
def checkBaseTokens (vocab : Vocab) : Bool :=
  (List.range 256).all fun i => vocab.lookup i == some [UInt8.ofNat i]

/-- One merge `(p0, p1) ↦ idx`: `vocab[idx] = vocab[p0] ++ vocab[p1]`, both parts shorter. -/
def checkMergeEntry (vocab : Vocab) (m : (Nat × Nat) × Nat) : Bool :=
  match vocab.lookup m.1.1, vocab.lookup m.1.2, vocab.lookup m.2 with
  | some a, some b, some c => c == a ++ b && a.length < c.length && b.length < c.length
  | _, _, _ => false

/-- No two entries with different ids carry the same bytes. -/
def checkInjective (vocab : Vocab) : Bool :=
  vocab.all fun e => vocab.all fun e' => e.2 != e'.2 || e.1 == e'.1

/-- The shuffle is a bijection: `invertShuffle` is a two-sided inverse on all 256 bytes. -/
def checkShuffle (f : UInt8 → UInt8) : Bool :=
  (List.range 256).all fun i =>
    invertShuffle f (f (UInt8.ofNat i)) == UInt8.ofNat i &&
      f (invertShuffle f (UInt8.ofNat i)) == UInt8.ofNat i

/-- `check_well_formed`. -/
def checkWellFormed (merges : Merges) (vocab : Vocab) (byteShuffle : UInt8 → UInt8) : Bool :=
  checkBaseTokens vocab && merges.all (checkMergeEntry vocab) && checkInjective vocab &&
    checkShuffle byteShuffle

theorem UInt8.ofNat_toNat' (b : UInt8) : UInt8.ofNat b.toNat = b := by simp

theorem checkWellFormed_sound (merges : Merges) (vocab : Vocab) (byteShuffle : UInt8 → UInt8)
    (h : checkWellFormed merges vocab byteShuffle = true) :
    WellFormed merges vocab byteShuffle := by
  simp only [checkWellFormed, Bool.and_eq_true] at h
  obtain ⟨⟨⟨hbase, hmerges⟩, hinj⟩, hshuf⟩ := h
  refine ⟨?_, ?_, ?_, ?_⟩
  · intro b
    have := List.all_eq_true.mp hbase b.toNat (List.mem_range.mpr (UInt8.toNat_lt_256 b))
    simpa using this
  · intro p0 p1 idx hm
    have := List.all_eq_true.mp hmerges _ (mem_of_lookup_eq_some hm)
    simp only [checkMergeEntry] at this
    split at this
    · rename_i a b c ha hb hc
      simp only [Bool.and_eq_true, beq_iff_eq, decide_eq_true_eq] at this
      obtain ⟨⟨rfl, h1⟩, h2⟩ := this
      exact ⟨a, b, ha, hb, hc, h1, h2⟩
    · simp at this
  · intro i j t hi hj
    have := List.all_eq_true.mp
      (List.all_eq_true.mp hinj _ (mem_of_lookup_eq_some hi)) _ (mem_of_lookup_eq_some hj)
    simpa using this
  · have hall := List.all_eq_true.mp hshuf
    constructor
    · intro x y hxy
      have hx := hall x.toNat (List.mem_range.mpr (UInt8.toNat_lt_256 x))
      have hy := hall y.toNat (List.mem_range.mpr (UInt8.toNat_lt_256 y))
      simp only [UInt8.ofNat_toNat', Bool.and_eq_true, beq_iff_eq] at hx hy
      rw [← hx.1, ← hy.1, hxy]
    · intro y
      have hy := hall y.toNat (List.mem_range.mpr (UInt8.toNat_lt_256 y))
      simp only [UInt8.ofNat_toNat', Bool.and_eq_true, beq_iff_eq] at hy
      exact ⟨_, hy.2⟩

/-- The roundtrip theorem for concrete tables that pass the checker: one `decide` on the
tables gives the roundtrip for every ASCII string. -/
theorem ascii_bpe_roundtrip_of_check (merges : Merges) (vocab : Vocab)
    (byteShuffle : UInt8 → UInt8) (h : checkWellFormed merges vocab byteShuffle = true)
    (s : String) (hs : IsAsciiString s) :
    decode vocab (invertShuffle byteShuffle) (encode merges byteShuffle s) = some s :=
  ascii_bpe_roundtrip_invertShuffle merges vocab byteShuffle
    (checkWellFormed_sound merges vocab byteShuffle h) s hs

end Bpe
