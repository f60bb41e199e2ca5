module

public import Bpe.Seed.Roundtrip

/-!
# A Boolean checker for `WellFormed`

`checkWellFormed merges vocab byteShuffle` tests the four fields of `WellFormed` on concrete
tables: every base token, every entry of the merge table, injectivity (by a merge sort on the
byte strings and a check that neighbours strictly increase, so that it costs `O(n log n)`
comparisons), and the shuffle on all 256 bytes. `checkWellFormed_sound` proves that `true` means
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

/-- Strict lexicographic order on byte strings. -/
def bytesLt : Bytes → Bytes → Bool
  | [], [] => false
  | [], _ :: _ => true
  | _ :: _, [] => false
  | a :: as, b :: bs => a.toNat < b.toNat || (a == b && bytesLt as bs)

/-- Merge two lists ordered by their byte strings (fuel: the total length). -/
def mergeSorted : Nat → Vocab → Vocab → Vocab
  | 0, xs, ys => xs ++ ys
  | _ + 1, [], ys => ys
  | _ + 1, x :: xs, [] => x :: xs
  | fuel + 1, x :: xs, y :: ys =>
    if bytesLt y.2 x.2 then y :: mergeSorted fuel (x :: xs) ys
    else x :: mergeSorted fuel xs (y :: ys)

/-- Merge sort by byte string (fuel: the length bounds the recursion depth). -/
def sortByBytes : Nat → Vocab → Vocab
  | 0, l => l
  | fuel + 1, l =>
    if l.length < 2 then l
    else
      mergeSorted l.length (sortByBytes fuel (l.take (l.length / 2)))
        (sortByBytes fuel (l.drop (l.length / 2)))

/-- Consecutive byte strings strictly increase. -/
def sortedStrict : Vocab → Bool
  | x :: y :: rest => bytesLt x.2 y.2 && sortedStrict (y :: rest)
  | _ => true

/-- No two entries carry the same bytes: sorted by bytes, neighbours strictly increase
(`O(n log n)` comparisons, so that the kernel can check a real vocabulary). -/
def checkInjective (vocab : Vocab) : Bool := sortedStrict (sortByBytes vocab.length vocab)

/-- `invertShuffle f` is a two-sided inverse of `f` at byte `i`. -/
def shuffleInverseAt (f : UInt8 → UInt8) (i : Nat) : Bool :=
  invertShuffle f (f (UInt8.ofNat i)) == UInt8.ofNat i &&
    f (invertShuffle f (UInt8.ofNat i)) == UInt8.ofNat i

/-- The shuffle is a bijection: `invertShuffle` is a two-sided inverse on all 256 bytes. -/
def checkShuffle (f : UInt8 → UInt8) : Bool := (List.range 256).all (shuffleInverseAt f)

/-- `check_well_formed`. -/
def checkWellFormed (merges : Merges) (vocab : Vocab) (byteShuffle : UInt8 → UInt8) : Bool :=
  checkBaseTokens vocab && merges.all (checkMergeEntry vocab) && checkInjective vocab &&
    checkShuffle byteShuffle

theorem UInt8.ofNat_toNat' (b : UInt8) : UInt8.ofNat b.toNat = b := by simp

theorem bytesLt_irrefl : ∀ t : Bytes, bytesLt t t = false
  | [] => rfl
  | a :: as => by simp [bytesLt, bytesLt_irrefl as]

theorem bytesLt_trans : ∀ s t u : Bytes, bytesLt s t = true → bytesLt t u = true →
    bytesLt s u = true
  | [], [], _, h, _ => by simp [bytesLt] at h
  | [], _ :: _, [], _, h => by simp [bytesLt] at h
  | [], _ :: _, _ :: _, _, _ => rfl
  | _ :: _, [], _, h, _ => by simp [bytesLt] at h
  | _ :: _, _ :: _, [], _, h => by simp [bytesLt] at h
  | a :: as, b :: bs, c :: cs, h1, h2 => by
    simp only [bytesLt, Bool.or_eq_true, Bool.and_eq_true, decide_eq_true_eq, beq_iff_eq]
      at h1 h2 ⊢
    rcases h1 with h1 | ⟨rfl, h1⟩ <;> rcases h2 with h2 | ⟨rfl, h2⟩
    · left; omega
    · left; exact h1
    · left; exact h2
    · right; exact ⟨rfl, bytesLt_trans as bs cs h1 h2⟩

theorem mem_mergeSorted (x : Nat × Bytes) :
    ∀ (fuel : Nat) (xs ys : Vocab), x ∈ xs ++ ys → x ∈ mergeSorted fuel xs ys
  | 0, _, _, h => h
  | _ + 1, [], _, h => by simpa [mergeSorted] using h
  | _ + 1, _ :: _, [], h => by simpa [mergeSorted] using h
  | fuel + 1, a :: as, b :: bs, h => by
    simp only [mergeSorted]
    by_cases hlt : bytesLt b.2 a.2 = true
    · rw [if_pos hlt]
      have : x = b ∨ x ∈ (a :: as) ++ bs := by
        rcases List.mem_append.mp h with h | h
        · exact Or.inr (List.mem_append_left _ h)
        · rcases List.mem_cons.mp h with h | h
          · exact Or.inl h
          · exact Or.inr (List.mem_append_right _ h)
      rcases this with rfl | h'
      · exact List.mem_cons_self
      · exact List.mem_cons_of_mem _ (mem_mergeSorted x fuel _ _ h')
    · rw [if_neg hlt]
      have : x = a ∨ x ∈ as ++ (b :: bs) := by
        rcases List.mem_append.mp h with h | h
        · rcases List.mem_cons.mp h with h | h
          · exact Or.inl h
          · exact Or.inr (List.mem_append_left _ h)
        · exact Or.inr (List.mem_append_right _ h)
      rcases this with rfl | h'
      · exact List.mem_cons_self
      · exact List.mem_cons_of_mem _ (mem_mergeSorted x fuel _ _ h')

theorem mem_sortByBytes (x : Nat × Bytes) :
    ∀ (fuel : Nat) (l : Vocab), x ∈ l → x ∈ sortByBytes fuel l
  | 0, _, h => h
  | fuel + 1, l, h => by
    simp only [sortByBytes]
    split
    · exact h
    · apply mem_mergeSorted
      rw [← List.take_append_drop (l.length / 2) l] at h
      rcases List.mem_append.mp h with h | h
      · exact List.mem_append_left _ (mem_sortByBytes x fuel _ h)
      · exact List.mem_append_right _ (mem_sortByBytes x fuel _ h)

theorem sortedStrict_tail : ∀ (x : Nat × Bytes) (l : Vocab),
    sortedStrict (x :: l) = true → sortedStrict l = true
  | _, [], _ => rfl
  | _, _ :: _, h => by simp only [sortedStrict, Bool.and_eq_true] at h; exact h.2

theorem sortedStrict_head : ∀ (x : Nat × Bytes) (l : Vocab), sortedStrict (x :: l) = true →
    ∀ y ∈ l, bytesLt x.2 y.2 = true
  | _, [], _, _, hy => by simp at hy
  | x, z :: l, h, y, hy => by
    simp only [sortedStrict, Bool.and_eq_true] at h
    rcases List.mem_cons.mp hy with rfl | hy
    · exact h.1
    · exact bytesLt_trans _ _ _ h.1 (sortedStrict_head z l h.2 y hy)

/-- In a strictly sorted list, an entry is determined by its bytes. -/
theorem eq_of_sortedStrict : ∀ (l : Vocab), sortedStrict l = true →
    ∀ x ∈ l, ∀ y ∈ l, x.2 = y.2 → x = y
  | [], _, _, hx, _, _, _ => by simp at hx
  | z :: l, h, x, hx, y, hy, hxy => by
    have hz := sortedStrict_head z l h
    rcases List.mem_cons.mp hx with rfl | hx' <;> rcases List.mem_cons.mp hy with rfl | hy'
    · rfl
    · have := hz y hy'; rw [hxy, bytesLt_irrefl] at this; cases this
    · have := hz x hx'; rw [← hxy, bytesLt_irrefl] at this; cases this
    · exact eq_of_sortedStrict l (sortedStrict_tail z l h) x hx' y hy' hxy

theorem checkInjective_sound (vocab : Vocab) (h : checkInjective vocab = true) :
    ∀ i j t, vocab.lookup i = some t → vocab.lookup j = some t → i = j := by
  intro i j t hi hj
  have := eq_of_sortedStrict (sortByBytes vocab.length vocab) h (i, t)
    (mem_sortByBytes _ _ _ (mem_of_lookup_eq_some hi)) (j, t)
    (mem_sortByBytes _ _ _ (mem_of_lookup_eq_some hj)) rfl
  simp only [Prod.mk.injEq, and_true] at this
  exact this

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
    next a b c ha hb hc =>
      simp only [Bool.and_eq_true, beq_iff_eq, decide_eq_true_eq] at this
      obtain ⟨⟨rfl, h1⟩, h2⟩ := this
      exact ⟨a, b, ha, hb, hc, h1, h2⟩
    · simp at this
  · exact checkInjective_sound vocab hinj
  · have hall := List.all_eq_true.mp hshuf
    constructor
    · intro x y hxy
      have hx := hall x.toNat (List.mem_range.mpr (UInt8.toNat_lt_256 x))
      have hy := hall y.toNat (List.mem_range.mpr (UInt8.toNat_lt_256 y))
      simp only [shuffleInverseAt, UInt8.ofNat_toNat', Bool.and_eq_true, beq_iff_eq] at hx hy
      rw [← hx.1, ← hy.1, hxy]
    · intro y
      have hy := hall y.toNat (List.mem_range.mpr (UInt8.toNat_lt_256 y))
      simp only [shuffleInverseAt, UInt8.ofNat_toNat', Bool.and_eq_true, beq_iff_eq] at hy
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
