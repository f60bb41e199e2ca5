module

public import Bpe.Exec.RanksTables

/-!
# The run-time check of condition C is sound

`Bpe.Exec.runRanks` refuses a parsed table unless `checkRanksX toks (keysOf toks) m` holds, where
`m = mergesOf (keysOf toks) toks` are the merges it recovered. Together with the key array's
`sortedToks` (which it also checks), that is condition C, `Bpe.RanksOk toks.toList`
(`ranksOk_of_checkRanksX`), field by field:

* no token twice: the sorted key array is a permutation of the entries without a key twice;
* no rank twice: `ranksIncFrom` (ranks strictly increase along the file, as
  `Bpe.ranksIncreasing`);
* no empty token: `nonEmptyFrom`;
* every rank below tiktoken's sentinel 2^32 - 1 (`Bpe.rankSentinel`): `ranksBelowFrom`;
* every byte a token of rank below 256: `byteRanksFrom`, through `findTok`, which answers as
  `Bpe.rankOf` (`findTok_keysOf`);
* every token of two bytes or more decomposes into two parts: `recoverOne` records a merge only
  for tokens of two bytes or more, and only when the decomposition has two parts; so if the
  merges are as many as those tokens (`countLongFrom`), every one of them recorded one
  (`isSome_of_length_filterMap`).

So `checkRanksX` tests what `Bpe.checkRanksBy (findTok s)` tests, except the lookup of each
entry, which `sortedToks` already implies, and the per-token decomposition, which the merge
count reads off the recovery that `runRanks` runs anyway.
-/

@[expose] public section

namespace Bpe.Exec

/-! ## The linear passes -/

theorem lt_of_ranksIncFrom (toks : Array TokEntry) : ∀ (fuel i : Nat),
    ranksIncFrom toks fuel i = true → toks.size ≤ i + fuel →
      ∀ (j : Nat) (hj : j + 1 < toks.size), i ≤ j → (toks[j]'(by omega)).2 < toks[j + 1].2
  | 0, i, _, hs, j, hj, hij => by omega
  | fuel + 1, i, h, hs, j, hj, hij => by
    simp only [ranksIncFrom] at h
    split at h
    next hi =>
      rw [Bool.and_eq_true, decide_eq_true_eq] at h
      by_cases hji : j = i
      · subst hji
        exact h.1
      · exact lt_of_ranksIncFrom toks fuel (i + 1) h.2 (by omega) j hj (by omega)
    next hi => omega

/-- Ranks that increase between neighbours increase between any two entries. -/
theorem lt_of_ranksIncFrom_zero (toks : Array TokEntry) (h : ranksIncFrom toks toks.size 0 = true) :
    ∀ (j : Nat) (hj : j < toks.size) (i : Nat) (hi : i < j), (toks[i]'(by omega)).2 < toks[j].2
  | 0, _, i, hi => by omega
  | j + 1, hj, i, hi => by
    have hstep := lt_of_ranksIncFrom toks toks.size 0 h (by omega) j hj (by omega)
    by_cases hij : i = j
    · subst hij
      exact hstep
    · have := lt_of_ranksIncFrom_zero toks h j (by omega) i (by omega)
      omega

theorem nodup_ranks_of_ranksIncFrom (toks : Array TokEntry)
    (h : ranksIncFrom toks toks.size 0 = true) : (toks.toList.map Prod.snd).Nodup := by
  rw [List.Nodup, List.pairwise_iff_getElem]
  intro i j hi hj hij
  simp only [List.length_map, Array.length_toList] at hi hj
  simp only [List.getElem_map, Array.getElem_toList]
  exact Nat.ne_of_lt (lt_of_ranksIncFrom_zero toks h j hj i hij)

theorem ne_nil_of_nonEmptyFrom (toks : Array TokEntry) : ∀ (fuel i : Nat),
    nonEmptyFrom toks fuel i = true → toks.size ≤ i + fuel →
      ∀ (j : Nat) (hj : j < toks.size), i ≤ j → toks[j].1 ≠ []
  | 0, i, _, hs, j, hj, hij => by omega
  | fuel + 1, i, h, hs, j, hj, hij => by
    simp only [nonEmptyFrom] at h
    split at h
    next hi =>
      rw [Bool.and_eq_true] at h
      by_cases hji : j = i
      · subst hji
        intro hnil
        simp [isNil, hnil] at h
      · exact ne_nil_of_nonEmptyFrom toks fuel (i + 1) h.2 (by omega) j hj (by omega)
    next hi => omega

theorem lt_of_ranksBelowFrom (toks : Array TokEntry) : ∀ (fuel i : Nat),
    ranksBelowFrom toks fuel i = true → toks.size ≤ i + fuel →
      ∀ (j : Nat) (hj : j < toks.size), i ≤ j → toks[j].2 < rankSentinel
  | 0, i, _, hs, j, hj, hij => by omega
  | fuel + 1, i, h, hs, j, hj, hij => by
    simp only [ranksBelowFrom] at h
    split at h
    next hi =>
      rw [Bool.and_eq_true, decide_eq_true_eq] at h
      by_cases hji : j = i
      · subst hji
        simpa [rankSentinel] using h.1
      · exact lt_of_ranksBelowFrom toks fuel (i + 1) h.2 (by omega) j hj (by omega)
    next hi => omega

theorem isLong_eq : ∀ t : List UInt8, isLong t = decide (2 ≤ t.length)
  | [] => by simp [isLong]
  | [_] => by simp [isLong]
  | _ :: _ :: t => by simp [isLong]

theorem countLongFrom_eq (toks : Array TokEntry) : ∀ (fuel i acc : Nat), toks.size ≤ i + fuel →
    countLongFrom toks fuel i acc = acc + (toks.toList.drop i).countP (fun e => isLong e.1)
  | 0, i, acc, hs => by
    simp [countLongFrom, List.drop_eq_nil_of_le (by simpa using hs : toks.toList.length ≤ i)]
  | fuel + 1, i, acc, hs => by
    simp only [countLongFrom]
    split
    next hi =>
      have hd : toks.toList.drop i = toks.toList[i] :: toks.toList.drop (i + 1) :=
        List.drop_eq_getElem_cons (by simpa using hi)
      rw [countLongFrom_eq toks fuel (i + 1) _ (by omega), hd, List.countP_cons]
      simp only [Array.getElem_toList]
      by_cases hL : isLong toks[i].1 = true
      · rw [if_pos hL, if_pos hL]
        omega
      · rw [if_neg hL, if_neg hL]
        omega
    next hi =>
      simp [List.drop_eq_nil_of_le (by simp; omega : toks.toList.length ≤ i)]

theorem byteRankOk_of_byteRanksFrom (s : Array TokEntry) : ∀ (fuel i : Nat),
    byteRanksFrom s fuel i = true → ∀ j, i ≤ j → j < i + fuel → byteRankOk s j = true
  | 0, _, _, _, _, h2 => by omega
  | fuel + 1, i, h, j, h1, h2 => by
    simp only [byteRanksFrom, Bool.and_eq_true] at h
    by_cases hji : j = i
    · subst hji
      exact h.1
    · exact byteRankOk_of_byteRanksFrom s fuel (i + 1) h.2 j (by omega) (by omega)

/-! ## The merge count -/

theorem length_filterMap_le_countP {α β : Type} (f : α → Option β) (p : α → Bool)
    (hf : ∀ a, (f a).isSome → p a = true) :
    ∀ l : List α, (l.filterMap f).length ≤ l.countP p
  | [] => by simp
  | a :: l => by
    have ih := length_filterMap_le_countP f p hf l
    cases hfa : f a with
    | none =>
      simp only [List.filterMap_cons, hfa, List.countP_cons]
      split <;> omega
    | some b =>
      have hp := hf a (by simp [hfa])
      simp only [List.filterMap_cons, hfa, List.countP_cons, if_pos hp, List.length_cons]
      omega

/-- If `f` gives a value only where `p` holds, and gives as many values along `l` as `p` holds,
it gives a value wherever `p` holds. -/
theorem isSome_of_length_filterMap {α β : Type} (f : α → Option β) (p : α → Bool)
    (hf : ∀ a, (f a).isSome → p a = true) :
    ∀ l : List α, (l.filterMap f).length = l.countP p → ∀ a ∈ l, p a = true → (f a).isSome
  | [], _, a, ha, _ => by simp at ha
  | x :: l, h, a, ha, hpa => by
    have hle := length_filterMap_le_countP f p hf l
    cases hfx : f x with
    | none =>
      simp only [List.filterMap_cons, hfx, List.countP_cons] at h
      by_cases hpx : p x = true
      · rw [if_pos hpx] at h
        omega
      · rw [if_neg hpx] at h
        rcases List.mem_cons.mp ha with rfl | ha
        · exact absurd hpa hpx
        · exact isSome_of_length_filterMap f p hf l (by omega) a ha hpa
    | some b =>
      have hp := hf x (by simp [hfx])
      simp only [List.filterMap_cons, hfx, List.countP_cons, if_pos hp, List.length_cons] at h
      rcases List.mem_cons.mp ha with rfl | ha
      · simp [hfx]
      · exact isSome_of_length_filterMap f p hf l (by omega) a ha hpa

/-- `recoverOne` records nothing for a token of fewer than two bytes. -/
theorem isLong_of_recoverOne (s : Array TokEntry) (e : TokEntry)
    (h : (recoverOne s e).isSome) : isLong e.1 = true := by
  obtain ⟨t, r⟩ := e
  rcases t with _ | ⟨x, _ | ⟨y, t⟩⟩
  · have h0 : recoverOne s ([], r) = none := rfl
    simp [h0] at h
  · have h1 : recoverOne s ([x], r) = none := rfl
    simp [h1] at h
  · rfl

/-- A merge recorded for a token means its decomposition has two parts. -/
theorem length_decomposeToken_of_isSome {ranks : Ranks} {e : Bytes × Nat}
    (h : (recoverMerge ranks e).isSome) : (decomposeToken ranks e.1 (some e.2)).length = 2 := by
  unfold recoverMerge at h
  generalize decomposeToken ranks e.1 (some e.2) = l at h ⊢
  rcases l with _ | ⟨a, _ | ⟨b, _ | ⟨c, rest⟩⟩⟩
  · simp at h
  · simp at h
  · rfl
  · simp at h

theorem size_mergesOf (s toks : Array TokEntry) :
    (mergesOf s toks).size = (toks.toList.filterMap (recoverOne s)).length := by
  rw [← Array.length_toList, (mergesOf_perm s toks).length_eq]

/-! ## Condition C -/

/-- **The run-time check is condition C**: a parsed table whose key array passes `sortedToks`
and which passes `checkRanksX` (the two checks `runRanks` makes besides `sorted`) satisfies
`Bpe.RanksOk`. -/
theorem ranksOk_of_checkRanksX (toks : Array TokEntry) (hs : sortedToks (keysOf toks) = true)
    (hc : checkRanksX toks (keysOf toks) (mergesOf (keysOf toks) toks) = true) :
    RanksOk toks.toList := by
  simp only [checkRanksX, Bool.and_eq_true, beq_iff_eq] at hc
  obtain ⟨⟨⟨⟨hinc, hne⟩, hbelow⟩, hbytes⟩, hcount⟩ := hc
  have hl := findTok_keysOf toks hs
  refine ⟨?_, nodup_ranks_of_ranksIncFrom toks hinc, ?_, ?_, ?_, ?_⟩
  · exact ((sortBy_perm (fun p q : TokEntry => bytesLt p.1 q.1) toks).map Prod.fst).nodup_iff.mp
      (nodup_keys_of_sortedToks _ hs)
  · intro t r hmem
    obtain ⟨j, hj, hje⟩ := List.mem_iff_getElem.mp hmem
    have hj' : j < toks.size := by simpa using hj
    have hje' : toks[j] = (t, r) := by simpa using hje
    have := ne_nil_of_nonEmptyFrom toks toks.size 0 hne (by omega) j hj' (by omega)
    simpa [hje'] using this
  · intro b
    have hb := byteRankOk_of_byteRanksFrom _ 256 0 hbytes b.toNat (by omega) (by
      have hx : b.toNat < 256 := b.toNat_lt
      omega)
    have hof : UInt8.ofNat b.toNat = b := by simp
    simp only [byteRankOk, hof, hl] at hb
    cases hr : rankOf toks.toList [b] with
    | none => simp [hr] at hb
    | some r =>
      rw [hr] at hb
      exact ⟨r, rfl, by simpa using hb⟩
  · intro t r hmem hlen
    rw [size_mergesOf, countLongFrom_eq toks toks.size 0 0 (by omega)] at hcount
    simp only [List.drop_zero, Nat.zero_add] at hcount
    have hsome := isSome_of_length_filterMap (recoverOne (keysOf toks)) (fun e => isLong e.1)
      (isLong_of_recoverOne _) _ hcount (t, r) hmem (by simp [isLong_eq, hlen])
    rw [recoverOne_eq _ _ hl] at hsome
    exact length_decomposeToken_of_isSome hsome
  · intro t r hmem
    obtain ⟨j, hj, hje⟩ := List.mem_iff_getElem.mp hmem
    have hj' : j < toks.size := by simpa using hj
    have hje' : toks[j] = (t, r) := by simpa using hje
    have := lt_of_ranksBelowFrom toks toks.size 0 hbelow (by omega) j hj' (by omega)
    simpa [hje'] using this

end Bpe.Exec
