module

public import Bpe.Seed.WellFormed
public import Bpe.Seed.ListLemmas

/-!
# Lemma 5: the vocabulary built from a merge table (seed part 5)

`buildVocab merges` satisfies the `base_tokens` and `merge_decomp` fields of `WellFormed`
when the merge table is *numbered* the way BPE training (minbpe) and tiktoken's rank files
produce it: the `k`-th merge creates id `256 + k` from two ids below `256 + k`
(`mergesNumbered 256 merges`). Without that condition both fields can fail (a merge with
id `< 256` overwrites a base token; a merge whose part is defined only later is skipped).
The seed's third field, injectivity, does **not** follow: `buildVocab_not_injective` is a
counterexample, `(a,b) ↦ 256, (256,c) ↦ 257, (b,c) ↦ 258, (a,258) ↦ 259` gives
`vocab[257] = vocab[259] = "abc"`. The corrected statement (`buildVocab_injectivity`):
for a numbered table, the vocabulary is injective as soon as no two *merged* tokens
(ids `≥ 256`) carry the same bytes; the base tokens never collide with anything.
-/

@[expose] public section
noncomputable section

namespace Bpe

/-- The `k`-th merge (counting from `n`) creates id `n + k` from two smaller ids. -/
def mergesNumbered : Nat → Merges → Bool
  | _, [] => true
  | n, ((p0, p1), idx) :: ms => idx == n && p0 < n && p1 < n && mergesNumbered (n + 1) ms

/-- Exactly the ids below `n` are defined, each with a non-empty byte string. -/
def DefinedBelow (n : Nat) (v : Vocab) : Prop :=
  ∀ i, (i < n → ∃ t, v.lookup i = some t ∧ t ≠ []) ∧ (n ≤ i → v.lookup i = none)

theorem lookup_baseVocab (i : Nat) :
    baseVocab.lookup i = if i < 256 then some [UInt8.ofNat i] else none := by
  have key : ∀ (len s : Nat),
      ((List.range' s len).map fun k => (k, [UInt8.ofNat k])).lookup i =
        if s ≤ i ∧ i < s + len then some [UInt8.ofNat i] else none := by
    intro len
    induction len with
    | zero => intro s; simp
    | succ len ih =>
      intro s
      rw [List.range'_succ, List.map_cons]
      by_cases hi : i = s
      · subst hi; rw [List.lookup_cons_self, if_pos (by omega)]
      · rw [lookup_cons_ne _ _ hi, ih (s + 1)]
        by_cases h1 : s + 1 ≤ i ∧ i < s + 1 + len
        · rw [if_pos h1, if_pos (by omega)]
        · rw [if_neg h1, if_neg (by omega)]
  rw [baseVocab, List.range_eq_range', key]
  by_cases h : i < 256
  · rw [if_pos (by omega), if_pos h]
  · rw [if_neg (by omega), if_neg h]

theorem definedBelow_baseVocab : DefinedBelow 256 baseVocab := by
  intro i
  rw [lookup_baseVocab]
  constructor
  · intro h; exact ⟨_, if_pos h, by simp⟩
  · intro h; exact if_neg (by omega)

/-- What folding `buildStep` over a numbered table does: the ids defined before are kept,
the new ids are defined, and every merge decomposes in the result. -/
theorem foldl_buildStep (ms : Merges) :
    ∀ (n : Nat) (v : Vocab), mergesNumbered n ms = true → DefinedBelow n v →
      (∀ i < n, (ms.foldl buildStep v).lookup i = v.lookup i) ∧
      DefinedBelow (n + ms.length) (ms.foldl buildStep v) ∧
      ∀ p0 p1 idx, ((p0, p1), idx) ∈ ms →
        ∃ a b, (ms.foldl buildStep v).lookup p0 = some a ∧
          (ms.foldl buildStep v).lookup p1 = some b ∧
          (ms.foldl buildStep v).lookup idx = some (a ++ b) ∧ a ≠ [] ∧ b ≠ [] := by
  induction ms with
  | nil =>
    intro n v _ hd
    exact ⟨fun _ _ => rfl, by simpa using hd, by simp⟩
  | cons m ms ih =>
    intro n v hnum hd
    obtain ⟨⟨p0, p1⟩, idx⟩ := m
    simp only [mergesNumbered, Bool.and_eq_true, beq_iff_eq, decide_eq_true_eq] at hnum
    obtain ⟨⟨⟨rfl, h0⟩, h1⟩, hrest⟩ := hnum
    obtain ⟨a, ha, ha'⟩ := (hd p0).1 h0
    obtain ⟨b, hb, hb'⟩ := (hd p1).1 h1
    have hstep : buildStep v ((p0, p1), idx) = (idx, a ++ b) :: v := by
      simp [buildStep, ha, hb]
    have hd' : DefinedBelow (idx + 1) ((idx, a ++ b) :: v) := by
      intro i
      constructor
      · intro hi
        by_cases hii : i = idx
        · subst hii; exact ⟨a ++ b, List.lookup_cons_self, by simp [ha']⟩
        · rw [lookup_cons_ne _ _ hii]; exact (hd i).1 (by omega)
      · intro hi
        rw [lookup_cons_ne _ _ (by omega)]; exact (hd i).2 (by omega)
    obtain ⟨hA, hB, hC⟩ := ih (idx + 1) _ hrest hd'
    rw [List.foldl_cons, hstep]
    refine ⟨?_, ?_, ?_⟩
    · intro i hi
      rw [hA i (by omega), lookup_cons_ne _ _ (by omega)]
    · have hlen : idx + (ms.length + 1) = idx + 1 + ms.length := by omega
      rw [List.length_cons, hlen]
      exact hB
    · intro q0 q1 j hmem
      rcases List.mem_cons.mp hmem with heq | hmem
      · simp only [Prod.mk.injEq] at heq
        obtain ⟨⟨rfl, rfl⟩, rfl⟩ := heq
        refine ⟨a, b, ?_, ?_, ?_, ha', hb'⟩
        · rw [hA q0 (by omega), lookup_cons_ne _ _ (by omega), ha]
        · rw [hA q1 (by omega), lookup_cons_ne _ _ (by omega), hb]
        · rw [hA j (by omega), List.lookup_cons_self]
      · exact hC q0 q1 j hmem

/-- Every id from `n` up to `n + ms.length` is created by some merge of a numbered table. -/
theorem mem_numbered : ∀ (ms : Merges) (n : Nat), mergesNumbered n ms = true →
    ∀ k, n ≤ k → k < n + ms.length → ∃ q : Nat × Nat, (q, k) ∈ ms
  | [], _, _, _, h1, h2 => by simp at h2; omega
  | ((p0, p1), idx) :: ms, _, h, k, h1, h2 => by
    simp only [mergesNumbered, Bool.and_eq_true, beq_iff_eq, decide_eq_true_eq] at h
    obtain ⟨⟨⟨rfl, -⟩, -⟩, hrest⟩ := h
    by_cases hk : k = idx
    · subst hk; exact ⟨(p0, p1), List.mem_cons_self⟩
    · obtain ⟨q, hq⟩ := mem_numbered ms (idx + 1) hrest k (by omega) (by simp at h2; omega)
      exact ⟨q, List.mem_cons_of_mem _ hq⟩

/-- **Lemma 5** (base tokens): for a numbered merge table, `buildVocab` keeps the 256 base
tokens. -/
theorem buildVocab_base_tokens (merges : Merges) (h : mergesNumbered 256 merges = true)
    (b : UInt8) : (buildVocab merges).lookup b.toNat = some [b] := by
  have hb := UInt8.toNat_lt_256 b
  rw [buildVocab, (foldl_buildStep merges 256 baseVocab h definedBelow_baseVocab).1 _ hb,
    lookup_baseVocab, if_pos hb]
  simp

/-- **Lemma 5** (merge decomposition): for a numbered merge table, every merge
`(p0, p1) ↦ idx` has `vocab[idx] = vocab[p0] ++ vocab[p1]` with both parts strictly shorter. -/
theorem buildVocab_merge_decomp (merges : Merges) (h : mergesNumbered 256 merges = true)
    (p0 p1 idx : Nat) (hm : merges.lookup (p0, p1) = some idx) :
    ∃ a b, (buildVocab merges).lookup p0 = some a ∧ (buildVocab merges).lookup p1 = some b ∧
      (buildVocab merges).lookup idx = some (a ++ b) ∧
      a.length < (a ++ b).length ∧ b.length < (a ++ b).length := by
  obtain ⟨a, b, ha, hb, hab, ha', hb'⟩ :=
    (foldl_buildStep merges 256 baseVocab h definedBelow_baseVocab).2.2 p0 p1 idx
      (mem_of_lookup_eq_some hm)
  refine ⟨a, b, ha, hb, hab, ?_, ?_⟩
  · have : b.length ≠ 0 := by simpa using hb'
    simp; omega
  · have : a.length ≠ 0 := by simpa using ha'
    simp; omega

/-- The seed's unconditional injectivity is false: a numbered table whose vocabulary has
`vocab[257] = vocab[259] = "abc"` (checked by kernel evaluation). -/
theorem buildVocab_not_injective :
    ∃ merges : Merges, mergesNumbered 256 merges = true ∧
      ∃ i j t, i ≠ j ∧ (buildVocab merges).lookup i = some t ∧
        (buildVocab merges).lookup j = some t :=
  ⟨[((97, 98), 256), ((256, 99), 257), ((98, 99), 258), ((97, 258), 259)], by decide +kernel,
    257, 259, [97, 98, 99], by decide, by decide +kernel, by decide +kernel⟩

/-- **Lemma 5** (injectivity, corrected): for a numbered merge table, the vocabulary is
injective if no two merged tokens (ids `≥ 256`) carry the same bytes. -/
theorem buildVocab_injectivity (merges : Merges) (h : mergesNumbered 256 merges = true)
    (hm : ∀ i j t, 256 ≤ i → 256 ≤ j → (buildVocab merges).lookup i = some t →
      (buildVocab merges).lookup j = some t → i = j) :
    ∀ i j t, (buildVocab merges).lookup i = some t → (buildVocab merges).lookup j = some t →
      i = j := by
  obtain ⟨hA, hB, hC⟩ := foldl_buildStep merges 256 baseVocab h definedBelow_baseVocab
  -- a merged token is at least two bytes long
  have hlong : ∀ k t, 256 ≤ k → (buildVocab merges).lookup k = some t → 2 ≤ t.length := by
    intro k t hk hkt
    obtain ⟨q, hq⟩ : ∃ q : Nat × Nat, (q, k) ∈ merges := by
      have hk' : k < 256 + merges.length := by
        rcases Nat.lt_or_ge k (256 + merges.length) with hlt | hge
        · exact hlt
        · have := (hB k).2 hge; rw [buildVocab] at hkt; rw [this] at hkt; cases hkt
      exact mem_numbered merges 256 h k hk hk'
    obtain ⟨a, b, -, -, hab, ha, hb⟩ := hC q.1 q.2 k hq
    rw [buildVocab, hab] at hkt
    cases hkt
    have : a.length ≠ 0 := by simpa using ha
    have : b.length ≠ 0 := by simpa using hb
    simp; omega
  have hbase : ∀ k t, k < 256 → (buildVocab merges).lookup k = some t → t.length = 1 ∧
      t = [UInt8.ofNat k] := by
    intro k t hk hkt
    rw [buildVocab, hA k hk, lookup_baseVocab, if_pos hk] at hkt
    cases hkt; simp
  intro i j t hi hj
  rcases Nat.lt_or_ge i 256 with hi' | hi' <;> rcases Nat.lt_or_ge j 256 with hj' | hj'
  · obtain ⟨-, rfl⟩ := hbase i t hi' hi
    obtain ⟨-, hji⟩ := hbase j _ hj' hj
    simp only [List.cons.injEq, and_true] at hji
    have := congrArg UInt8.toNat hji
    simp [Nat.mod_eq_of_lt hi', Nat.mod_eq_of_lt hj'] at this
    omega
  · have := (hbase i t hi' hi).1; have := hlong j t hj' hj; omega
  · have := (hbase j t hj' hj).1; have := hlong i t hi' hi; omega
  · exact hm i j t hi' hj' hi hj

end Bpe
