module

public import Bpe.Exec.Code
public import Bpe.Seed.Merge

/-!
# The executable merge table is the spec's association list

`Bpe.Exec.find` (binary search in an `Array` sorted strictly by pair, `Bpe.Exec.sorted`)
returns what `List.lookup` returns on the same entries as a list (`find_eq`). Proof: sortedness
of adjacent entries gives sortedness of every two entries (`keyLt_of_sorted`); the search keeps
the invariant "no entry outside `lo ≤ i < hi` has the key", so a hit is the first entry with
the key (`lookup_eq_some`) and an empty range means there is none (`lookup_eq_none`).
-/

@[expose] public section

namespace Bpe.Exec

theorem keyLt_trans {p q r : Nat × Nat} (h1 : keyLt p q = true) (h2 : keyLt q r = true) :
    keyLt p r = true := by
  simp only [keyLt, Bool.or_eq_true, Bool.and_eq_true, decide_eq_true_eq, beq_iff_eq] at *
  omega

theorem keyLt_ne {p q : Nat × Nat} (h : keyLt p q = true) : p ≠ q := by
  intro hpq
  subst hpq
  simp [keyLt] at h

theorem keyLt_of_not {p q : Nat × Nat} (hne : p ≠ q) (h : keyLt p q = false) :
    keyLt q p = true := by
  obtain ⟨a, b⟩ := p
  obtain ⟨c, d⟩ := q
  have hne' : ¬(a = c ∧ b = d) := fun ⟨h1, h2⟩ => hne (by rw [h1, h2])
  have h' : ¬(keyLt (a, b) (c, d) = true) := by simp [h]
  simp only [keyLt, Bool.or_eq_true, Bool.and_eq_true, decide_eq_true_eq, beq_iff_eq] at h' ⊢
  omega

theorem keyLt_of_sortedFrom (t : Array Entry) : ∀ (fuel i : Nat), sortedFrom t fuel i = true →
    t.size ≤ i + fuel → ∀ (j : Nat) (hj : j + 1 < t.size), i ≤ j →
      keyLt (t[j]'(by omega)).1 t[j + 1].1 = true
  | 0, i, _, hs, j, hj, hij => by omega
  | fuel + 1, i, h, hs, j, hj, hij => by
    simp only [sortedFrom] at h
    split at h
    next hi =>
      rw [Bool.and_eq_true] at h
      by_cases hji : j = i
      · subst hji
        exact h.1
      · exact keyLt_of_sortedFrom t fuel (i + 1) h.2 (by omega) j hj (by omega)
    next hi => omega

/-- A sorted table is strictly increasing between any two entries. -/
theorem keyLt_of_sorted (t : Array Entry) (h : sorted t = true) :
    ∀ (j : Nat) (hj : j < t.size) (i : Nat) (hi : i < j),
      keyLt (t[i]'(by omega)).1 t[j].1 = true
  | 0, _, i, hi => by omega
  | j + 1, hj, i, hi => by
    have hstep := keyLt_of_sortedFrom t t.size 0 h (by omega) j hj (by omega)
    by_cases hij : i = j
    · subst hij
      exact hstep
    · exact keyLt_trans (keyLt_of_sorted t h j (by omega) i (by omega)) hstep

/-- `List.lookup` finds an entry that no earlier entry shadows. -/
theorem lookup_eq_some : ∀ (l : List Entry) (i : Nat) (hi : i < l.length) (k : Nat × Nat),
    l[i].1 = k → (∀ (j : Nat) (hj : j < i), (l[j]'(by omega)).1 ≠ k) → l.lookup k = some l[i].2
  | [], i, hi, _, _, _ => by simp at hi
  | (p, v) :: es, 0, _, k, hk, _ => by
    simp only [List.getElem_cons_zero] at hk ⊢
    subst hk
    simp [List.lookup]
  | (p, v) :: es, i + 1, hi, k, hk, hb => by
    have h0 : p ≠ k := by simpa using hb 0 (by omega)
    have ih := lookup_eq_some es i (by simp at hi; omega) k (by simpa using hk)
      (fun j hj => by simpa using hb (j + 1) (by omega))
    simp only [List.getElem_cons_succ]
    rw [← ih]
    simp [List.lookup, beq_false_of_ne (Ne.symm h0)]

/-- `List.lookup` fails when no entry has the key. -/
theorem lookup_eq_none : ∀ (l : List Entry) (k : Nat × Nat),
    (∀ (j : Nat) (hj : j < l.length), l[j].1 ≠ k) → l.lookup k = none
  | [], _, _ => rfl
  | (p, v) :: es, k, h => by
    have h0 : p ≠ k := by simpa using h 0 (by simp)
    have ih := lookup_eq_none es k (fun j hj => by
      simpa using h (j + 1) (by simp only [List.length_cons]; omega))
    simp [List.lookup, beq_false_of_ne (Ne.symm h0), ih]

theorem findIn_eq (t : Array Entry) (hs : sorted t = true) (k : Nat × Nat) :
    ∀ (fuel lo hi : Nat), hi ≤ t.size → hi - lo < fuel →
      (∀ (j : Nat) (hj : j < t.size), (j < lo ∨ hi ≤ j) → t[j].1 ≠ k) →
      findIn t k fuel lo hi = t.toList.lookup k
  | 0, lo, hi, _, hf, _ => by omega
  | fuel + 1, lo, hi, hhi, hf, hout => by
    simp only [findIn]
    split
    next hlt =>
      split
      next heq =>
        have hk : (t[(lo + hi) / 2]'(by omega)).1 = k := by simpa using heq
        have hl := lookup_eq_some t.toList ((lo + hi) / 2) (by simp; omega) k
          (by simpa using hk) (fun j hj => by
            have hne := keyLt_ne (keyLt_of_sorted t hs ((lo + hi) / 2) (by omega) j hj)
            rw [← hk]
            simpa using hne)
        rw [hl]
        simp
      next hne =>
        split
        next hlt2 =>
          refine findIn_eq t hs k fuel ((lo + hi) / 2 + 1) hi hhi (by omega)
            (fun j hj hj' => ?_)
          by_cases hjm : j < (lo + hi) / 2 + 1
          · by_cases hjm' : j = (lo + hi) / 2
            · subst hjm'
              exact keyLt_ne hlt2
            · exact keyLt_ne (keyLt_trans
                (keyLt_of_sorted t hs ((lo + hi) / 2) (by omega) j (by omega)) hlt2)
          · exact hout j hj (by omega)
        next hge =>
          have hne' : (t[(lo + hi) / 2]'(by omega)).1 ≠ k := by simpa using hne
          have hgt := keyLt_of_not hne' (by simpa using hge)
          refine findIn_eq t hs k fuel lo ((lo + hi) / 2) (by omega) (by omega) (fun j hj hj' => ?_)
          by_cases hjm : (lo + hi) / 2 ≤ j
          · by_cases hjm' : j = (lo + hi) / 2
            · subst hjm'
              exact hne'
            · exact Ne.symm (keyLt_ne (keyLt_trans hgt
                (keyLt_of_sorted t hs j hj ((lo + hi) / 2) (by omega))))
          · exact hout j hj (by omega)
    next hnot =>
      refine (lookup_eq_none _ _ (fun j hj => ?_)).symm
      have hj' : j < t.size := by simpa using hj
      simpa using hout j hj' (by omega)

/-- **The table lookup is the spec's**: on a sorted table, the binary search returns what
`List.lookup` returns on the table's entries. -/
theorem find_eq (t : Array Entry) (hs : sorted t = true) (k : Nat × Nat) :
    find t k = t.toList.lookup k :=
  findIn_eq t hs k _ _ _ (Nat.le_refl _) (by omega) (fun j hj h => absurd h (by omega))

end Bpe.Exec
