module

public import Bpe.Exec.RanksSort
public import Bpe.Exec.RanksRecover
public import Bpe.Exec.Table

/-!
# The tables `runRanks` builds are the spec's

`Bpe.Exec.runRanks` turns the parsed entries `toks` (file order) into three tables; given its
two run-time checks (`sortedToks` on the key array, `sorted` on the merges), each is the
spec's table of `toks.toList`:

* the key array `keysOf toks` (a merge sort of `toks`, so a permutation of it) answers every
  byte string as `Bpe.rankOf toks.toList` does (`findTok_keysOf`): `sortedToks` rules out a
  key listed twice, and on a list without duplicate keys `List.lookup` does not depend on the
  order (`lookup_eq_of_perm`);
* `recoverAll` pushes `recoverOne` of every entry in file order (`recoverAll_toList`: its
  driver always runs to the end), so the merges `mergesOf` are a permutation of
  `Bpe.recoverMerges toks.toList`, and the encoder's lookup `find` on them is `List.lookup` on
  `recoverMerges toks.toList` (`find_mergesOf`);
* `shuffleTable` holds `Bpe.rankShuffle toks.toList` of every byte (`shuffleOf_shuffleTable`).
-/

@[expose] public section

namespace Bpe.Exec

theorem nodup_keys_of_sortedToks (s : Array TokEntry) (h : sortedToks s = true) :
    (s.toList.map Prod.fst).Nodup := by
  rw [List.Nodup, List.pairwise_iff_getElem]
  intro i j hi hj hij
  simp only [List.length_map, Array.length_toList] at hi hj
  simp only [List.getElem_map, Array.getElem_toList]
  exact bytesLt_ne (bytesLt_of_sortedToks s h j hj i hij)

theorem nodup_keys_of_sorted (t : Array Entry) (h : sorted t = true) :
    (t.toList.map Prod.fst).Nodup := by
  rw [List.Nodup, List.pairwise_iff_getElem]
  intro i j hi hj hij
  simp only [List.length_map, Array.length_toList] at hi hj
  simp only [List.getElem_map, Array.getElem_toList]
  exact keyLt_ne (keyLt_of_sorted t h j hj i hij)

/-! ## The key array -/

/-- **The key array answers as the parsed table**: when `keysOf toks` passes `sortedToks`,
the binary search on it is `Bpe.rankOf` on the entries in file order. -/
theorem findTok_keysOf (toks : Array TokEntry) (hs : sortedToks (keysOf toks) = true)
    (t : List UInt8) : findTok (keysOf toks) t = rankOf toks.toList t := by
  rw [findTok_eq _ hs]
  unfold rankOf
  exact lookup_eq_of_perm (sortBy_perm _ toks) (nodup_keys_of_sortedToks _ hs) t

/-! ## Recovering the merges -/

/-- What `recoverAll`'s loop has done after `st.1` entries. -/
def RecoverInv (s toks : Array TokEntry) (st : Nat × Array Entry) : Prop :=
  st.2.toList = (toks.toList.take st.1).filterMap (recoverOne s) ∧ st.1 ≤ toks.size

theorem recoverNext_fst {s toks : Array TokEntry} {st : Nat × Array Entry}
    (h : recoverStop toks st = false) : (recoverNext s toks st).1 = st.1 + 1 := by
  obtain ⟨k, acc⟩ := st
  simp only [recoverStop, decide_eq_false_iff_not, Nat.not_le] at h
  simp only [recoverNext]
  cases hg : getA toks k with
  | none => exact absurd (getA_none hg) (by omega)
  | some e => cases hr : recoverOne s e <;> simp [hr]

theorem recoverNext_inv (s toks : Array TokEntry) : ∀ st : Nat × Array Entry,
    recoverStop toks st = false → RecoverInv s toks st → RecoverInv s toks (recoverNext s toks st) := by
  intro st hstop hinv
  obtain ⟨k, acc⟩ := st
  obtain ⟨hacc, hk⟩ := hinv
  simp only at hacc hk
  simp only [recoverStop, decide_eq_false_iff_not, Nat.not_le] at hstop
  simp only [recoverNext]
  cases hg : getA toks k with
  | none => exact absurd (getA_none hg) (by omega)
  | some e =>
    obtain ⟨hk', he⟩ := getA_some hg
    have htake : toks.toList.take (k + 1) = toks.toList.take k ++ [e] := by
      rw [List.take_add_one, List.getElem?_eq_getElem (by simpa using hk')]
      simp [he]
    cases hr : recoverOne s e with
    | none =>
      simp only [hr, RecoverInv]
      refine ⟨?_, by omega⟩
      rw [htake, List.filterMap_append, ← hacc]
      simp [hr]
    | some m =>
      simp only [hr, RecoverInv]
      refine ⟨?_, by omega⟩
      rw [htake, List.filterMap_append, ← hacc]
      simp [hr]

/-- **`recoverAll` is a `filterMap`**: its driver runs to the end, and it has pushed
`recoverOne` of every entry, in file order. -/
theorem recoverAll_toList (s toks : Array TokEntry) :
    (recoverAll s toks).toList = toks.toList.filterMap (recoverOne s) := by
  have hμ : ∀ st : Nat × Array Entry, recoverStop toks st = false →
      toks.size + 1 - (recoverNext s toks st).1 < toks.size + 1 - st.1 := by
    intro st h
    have h1 := recoverNext_fst (s := s) h
    simp only [recoverStop, decide_eq_false_iff_not, Nat.not_le] at h
    omega
  have hfin := iterBlocks_finish (recoverStop toks) (recoverNext s toks)
    (fun st => toks.size + 1 - st.1) hμ (toks.size / block + 2) (0, #[])
    (by simp only [block]; omega)
  have hdone := iterBlocks_done (recoverStop toks) (recoverNext s toks) _ _ hfin
  have hinv := iterBlocks_inv (recoverStop toks) (recoverNext s toks) (RecoverInv s toks)
    (recoverNext_inv s toks) (toks.size / block + 2) (0, #[]) (by simp [RecoverInv])
  unfold recoverAll
  generalize iterBlocks (recoverStop toks) (recoverNext s toks) (toks.size / block + 2)
    (0, #[]) = r at hdone hinv ⊢
  obtain ⟨⟨k, acc⟩, b⟩ := r
  simp only [RecoverInv] at hinv
  simp only [recoverStop, decide_eq_true_eq] at hdone
  rw [hinv.1, List.take_of_length_le (by simp; omega)]

/-- The merges are a permutation of the recovered merges in file order. -/
theorem mergesOf_perm (s toks : Array TokEntry) :
    (mergesOf s toks).toList.Perm (toks.toList.filterMap (recoverOne s)) := by
  rw [← recoverAll_toList]
  exact sortBy_perm _ _

/-- **The merge table answers as the spec's**: when the key array passes `sortedToks` and the
merges pass `sorted`, the encoder's lookup on `mergesOf` is `List.lookup` on
`Bpe.recoverMerges` of the entries in file order. -/
theorem find_mergesOf (toks : Array TokEntry) (hs : sortedToks (keysOf toks) = true)
    (hm : sorted (mergesOf (keysOf toks) toks) = true) (p : Nat × Nat) :
    find (mergesOf (keysOf toks) toks) p = (recoverMerges toks.toList).lookup p := by
  rw [find_eq _ hm]
  have hf : toks.toList.filterMap (recoverOne (keysOf toks)) = recoverMerges toks.toList := by
    have he : recoverOne (keysOf toks) = recoverMerge toks.toList :=
      funext (recoverOne_eq _ _ (findTok_keysOf toks hs))
    rw [he]
    rfl
  have hp := mergesOf_perm (keysOf toks) toks
  rw [hf] at hp
  exact lookup_eq_of_perm hp (nodup_keys_of_sorted _ hm) p

/-! ## The byte shuffle -/

theorem shuffleTable_toList (s : Array TokEntry) (ranks : Ranks)
    (hl : ∀ t, findTok s t = rankOf ranks t) : ∀ (fuel : Nat) (a : Array UInt8), fuel ≤ 256 →
      (shuffleTable s fuel a).toList =
        a.toList ++ (List.range' (256 - fuel) fuel).map fun k => rankShuffle ranks (UInt8.ofNat k)
  | 0, a, _ => by simp [shuffleTable]
  | fuel + 1, a, hf => by
    have hstep : shuffleTable s (fuel + 1) a =
        shuffleTable s fuel (a.push (rankShuffle ranks (UInt8.ofNat (256 - (fuel + 1))))) := by
      simp only [shuffleTable, rankShuffle, hl]
      cases rankOf ranks [UInt8.ofNat (256 - (fuel + 1))] <;> rfl
    rw [hstep, shuffleTable_toList s ranks hl fuel _ (by omega), Array.toList_push,
      show 256 - fuel = 256 - (fuel + 1) + 1 by omega, List.range'_succ, List.map_cons,
      List.append_assoc, List.singleton_append]

/-- **The shuffle table is the spec's**: when the lookups agree, `shuffleTable s 256 #[]`
sends every byte to `Bpe.rankShuffle`. -/
theorem shuffleOf_shuffleTable (s : Array TokEntry) (ranks : Ranks)
    (hl : ∀ t, findTok s t = rankOf ranks t) (x : UInt8) :
    shuffleOf (shuffleTable s 256 #[]) x = rankShuffle ranks x := by
  have h := shuffleTable_toList s ranks hl 256 #[] (Nat.le_refl _)
  simp only [List.nil_append, Nat.sub_self] at h
  have hx : x.toNat < 256 := x.toNat_lt
  have hsize : (shuffleTable s 256 #[]).size = 256 := by
    rw [← Array.length_toList, h]
    simp
  unfold shuffleOf
  rw [dif_pos (by omega)]
  have h2 : (shuffleTable s 256 #[]).toList[x.toNat]? = some (rankShuffle ranks x) := by
    rw [h]
    simp [hx]
  rw [Array.getElem?_toList, Array.getElem?_eq_getElem (by omega)] at h2
  exact Option.some.inj h2

end Bpe.Exec
