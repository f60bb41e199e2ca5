module

public import Bpe.Exec.Ranks
public import Bpe.Ranks.Basic

/-!
# The executable byte-string lookup is the spec's `rankOf`

`Bpe.Exec.findTok` (binary search in an `Array` of `(token, rank)` entries sorted strictly by
bytes, `Bpe.Exec.sortedToks`) returns what `Bpe.rankOf` (`List.lookup`) returns on the same
entries as a list (`findTok_eq`). The proof follows `Bpe.Exec.Table.find_eq` with the
lexicographic order `bytesLt` in place of the order on pairs: `bytesLt` is transitive
(`bytesLt_trans`), irreflexive (`bytesLt_ne`) and total on distinct strings (`bytesLt_of_not`),
and `bytesEq` is equality (`bytesEq_iff`).
-/

@[expose] public section

namespace Bpe.Exec

theorem eq_of_toNat_eq {x y : UInt8} (h : x.toNat = y.toNat) : x = y :=
  UInt8.toNat_inj.mp h

theorem bytesEq_iff : ∀ (a b : List UInt8), bytesEq a b = true ↔ a = b
  | [], [] => by simp [bytesEq]
  | [], _ :: _ => by simp [bytesEq]
  | _ :: _, [] => by simp [bytesEq]
  | x :: xs, y :: ys => by
    simp only [bytesEq, Bool.and_eq_true, beq_iff_eq, bytesEq_iff xs ys, List.cons.injEq]
    exact ⟨fun h => ⟨eq_of_toNat_eq h.1, h.2⟩, fun h => ⟨by rw [h.1], h.2⟩⟩

@[simp] theorem bytesLt_self : ∀ a : List UInt8, bytesLt a a = false
  | [] => rfl
  | x :: xs => by simp [bytesLt, bytesLt_self xs]

theorem bytesLt_trans : ∀ {a b c : List UInt8}, bytesLt a b = true → bytesLt b c = true →
    bytesLt a c = true
  | [], [], _, h, _ => by simp [bytesLt] at h
  | [], _ :: _, [], _, h => by simp [bytesLt] at h
  | [], _ :: _, _ :: _, _, _ => by simp [bytesLt]
  | _ :: _, [], _, h, _ => by simp [bytesLt] at h
  | _ :: _, _ :: _, [], _, h => by simp [bytesLt] at h
  | x :: xs, y :: ys, z :: zs, h1, h2 => by
    simp only [bytesLt, Bool.or_eq_true, Bool.and_eq_true, decide_eq_true_eq, beq_iff_eq]
      at h1 h2 ⊢
    rcases h1 with h1 | ⟨h1, h1'⟩ <;> rcases h2 with h2 | ⟨h2, h2'⟩
    · exact Or.inl (by omega)
    · exact Or.inl (by omega)
    · exact Or.inl (by omega)
    · exact Or.inr ⟨by omega, bytesLt_trans h1' h2'⟩

theorem bytesLt_ne {a b : List UInt8} (h : bytesLt a b = true) : a ≠ b := by
  intro hab
  subst hab
  simp at h

theorem bytesLt_of_not : ∀ {a b : List UInt8}, a ≠ b → bytesLt a b = false →
    bytesLt b a = true
  | [], [], hne, _ => absurd rfl hne
  | [], _ :: _, _, h => by simp [bytesLt] at h
  | _ :: _, [], _, _ => by simp [bytesLt]
  | x :: xs, y :: ys, hne, h => by
    have h' : ¬ (bytesLt (x :: xs) (y :: ys) = true) := by simp [h]
    simp only [bytesLt, Bool.or_eq_true, Bool.and_eq_true, decide_eq_true_eq, beq_iff_eq]
      at h' ⊢
    have hlt : ¬ x.toNat < y.toNat := fun hh => h' (Or.inl hh)
    by_cases hxy : x.toNat = y.toNat
    · have hx : x = y := eq_of_toNat_eq hxy
      subst hx
      have hne' : xs ≠ ys := fun h2 => hne (by rw [h2])
      have h2 : bytesLt xs ys = false := by
        cases hb : bytesLt xs ys
        · rfl
        · exact absurd (Or.inr ⟨rfl, hb⟩) h'
      exact Or.inr ⟨rfl, bytesLt_of_not hne' h2⟩
    · exact Or.inl (by omega)

theorem bytesLt_of_sortedToksFrom (s : Array TokEntry) : ∀ (fuel i : Nat),
    sortedToksFrom s fuel i = true → s.size ≤ i + fuel →
      ∀ (j : Nat) (hj : j + 1 < s.size), i ≤ j → bytesLt (s[j]'(by omega)).1 s[j + 1].1 = true
  | 0, i, _, hs, j, hj, hij => by omega
  | fuel + 1, i, h, hs, j, hj, hij => by
    simp only [sortedToksFrom] at h
    split at h
    next hi =>
      rw [Bool.and_eq_true] at h
      by_cases hji : j = i
      · subst hji
        exact h.1
      · exact bytesLt_of_sortedToksFrom s fuel (i + 1) h.2 (by omega) j hj (by omega)
    next hi => omega

/-- A sorted key array is strictly increasing between any two entries. -/
theorem bytesLt_of_sortedToks (s : Array TokEntry) (h : sortedToks s = true) :
    ∀ (j : Nat) (hj : j < s.size) (i : Nat) (hi : i < j),
      bytesLt (s[i]'(by omega)).1 s[j].1 = true
  | 0, _, i, hi => by omega
  | j + 1, hj, i, hi => by
    have hstep := bytesLt_of_sortedToksFrom s s.size 0 h (by omega) j hj (by omega)
    by_cases hij : i = j
    · subst hij
      exact hstep
    · exact bytesLt_trans (bytesLt_of_sortedToks s h j (by omega) i (by omega)) hstep

/-- `List.lookup` finds an entry that no earlier entry shadows. -/
theorem lookupTok_eq_some : ∀ (l : List TokEntry) (i : Nat) (hi : i < l.length)
    (k : List UInt8), l[i].1 = k → (∀ (j : Nat) (hj : j < i), (l[j]'(by omega)).1 ≠ k) →
      l.lookup k = some l[i].2
  | [], i, hi, _, _, _ => by simp at hi
  | (p, v) :: es, 0, _, k, hk, _ => by
    simp only [List.getElem_cons_zero] at hk ⊢
    subst hk
    simp [List.lookup]
  | (p, v) :: es, i + 1, hi, k, hk, hb => by
    have h0 : p ≠ k := by simpa using hb 0 (by omega)
    have ih := lookupTok_eq_some es i (by simp at hi; omega) k (by simpa using hk)
      (fun j hj => by simpa using hb (j + 1) (by omega))
    simp only [List.getElem_cons_succ]
    rw [← ih]
    simp [List.lookup, beq_false_of_ne (Ne.symm h0)]

/-- `List.lookup` fails when no entry has the key. -/
theorem lookupTok_eq_none : ∀ (l : List TokEntry) (k : List UInt8),
    (∀ (j : Nat) (hj : j < l.length), l[j].1 ≠ k) → l.lookup k = none
  | [], _, _ => rfl
  | (p, v) :: es, k, h => by
    have h0 : p ≠ k := by simpa using h 0 (by simp)
    have ih := lookupTok_eq_none es k (fun j hj => by
      simpa using h (j + 1) (by simp only [List.length_cons]; omega))
    simp [List.lookup, beq_false_of_ne (Ne.symm h0), ih]

theorem findTokIn_eq (s : Array TokEntry) (hs : sortedToks s = true) (k : List UInt8) :
    ∀ (fuel lo hi : Nat), hi ≤ s.size → hi - lo < fuel →
      (∀ (j : Nat) (hj : j < s.size), (j < lo ∨ hi ≤ j) → s[j].1 ≠ k) →
      findTokIn s k fuel lo hi = s.toList.lookup k
  | 0, lo, hi, _, hf, _ => by omega
  | fuel + 1, lo, hi, hhi, hf, hout => by
    simp only [findTokIn]
    split
    next hlt =>
      split
      next heq =>
        have hk : (s[(lo + hi) / 2]'(by omega)).1 = k := (bytesEq_iff _ _).mp heq
        have hl := lookupTok_eq_some s.toList ((lo + hi) / 2) (by simp; omega) k
          (by simpa using hk) (fun j hj => by
            have hne := bytesLt_ne (bytesLt_of_sortedToks s hs ((lo + hi) / 2) (by omega) j hj)
            rw [← hk]
            simpa using hne)
        rw [hl]
        simp
      next hne =>
        split
        next hlt2 =>
          refine findTokIn_eq s hs k fuel ((lo + hi) / 2 + 1) hi hhi (by omega)
            (fun j hj hj' => ?_)
          by_cases hjm : j < (lo + hi) / 2 + 1
          · by_cases hjm' : j = (lo + hi) / 2
            · subst hjm'
              exact bytesLt_ne hlt2
            · exact bytesLt_ne (bytesLt_trans
                (bytesLt_of_sortedToks s hs ((lo + hi) / 2) (by omega) j (by omega)) hlt2)
          · exact hout j hj (by omega)
        next hge =>
          have hne' : (s[(lo + hi) / 2]'(by omega)).1 ≠ k := fun h =>
            hne ((bytesEq_iff _ _).mpr h)
          have hgt := bytesLt_of_not hne' (by simpa using hge)
          refine findTokIn_eq s hs k fuel lo ((lo + hi) / 2) (by omega) (by omega)
            (fun j hj hj' => ?_)
          by_cases hjm : (lo + hi) / 2 ≤ j
          · by_cases hjm' : j = (lo + hi) / 2
            · subst hjm'
              exact hne'
            · exact Ne.symm (bytesLt_ne (bytesLt_trans hgt
                (bytesLt_of_sortedToks s hs j hj ((lo + hi) / 2) (by omega))))
          · exact hout j hj (by omega)
    next hnot =>
      refine (lookupTok_eq_none _ _ (fun j hj => ?_)).symm
      have hj' : j < s.size := by simpa using hj
      simpa using hout j hj' (by omega)

/-- **The byte-string lookup is the spec's**: on a key array sorted strictly by bytes (the
run-time check `sortedToks`), the binary search returns `Bpe.rankOf` on the array's entries. -/
theorem findTok_eq (s : Array TokEntry) (hs : sortedToks s = true) (k : List UInt8) :
    findTok s k = rankOf s.toList k :=
  findTokIn_eq s hs k _ _ _ (Nat.le_refl _) (by omega) (fun j hj h => absurd h (by omega))

end Bpe.Exec
