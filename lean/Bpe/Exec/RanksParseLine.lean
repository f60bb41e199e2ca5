module

public import Bpe.Exec.RanksRender

/-!
# What `parseLine` accepts: canonical base64, a space, a run of digits

The converse of `parseLine_of_drop`, line by line: when the compiled `parseLine` accepts the line
at `i` with the entry `(tok, r)` and the next line at `p` (`parseLine_ok`), the bytes there are
`encode64 tok` (the canonical base64 of a non-empty token: any other spelling of the token is
refused), a space, a non-empty run of digits of decimal value `r`, and then a newline or the
end of the file (the newline is at `p - 1`). So a line that is not of this form stops
`parseRanks` with its line number. What is not excluded: leading zeros in the rank (read as
the same value, as Python's `int` reads them).

The loops' own facts: whatever the fuel, `takeField` returns the bytes it walked over
(`takeField_drop`) and `digits` the value of the digits it walked over (`digits_drop`).
-/

@[expose] public section

namespace Bpe.Exec

theorem drop_eq_byteAt_cons {b : ByteArray} {i : Nat} (h : i < b.size) :
    b.data.toList.drop i = byteAt b i :: b.data.toList.drop (i + 1) := by
  have hi : i < b.data.toList.length := by rwa [← size_eq_length]
  rw [List.drop_eq_getElem_cons hi]
  simp [byteAt, h, ByteArray.getElem_eq_getElem_data]

/-- `takeField` returns the bytes it walked over (reversed onto `acc`). -/
theorem takeField_drop (b : ByteArray) : ∀ (fuel i : Nat) (acc : List UInt8),
    ∃ cs, (takeField b fuel i acc).1 = cs.reverse ++ acc ∧
      b.data.toList.drop i = cs ++ b.data.toList.drop (takeField b fuel i acc).2
  | 0, i, acc => ⟨[], by simp [takeField]⟩
  | fuel + 1, i, acc => by
    simp only [takeField]
    split
    next hc =>
      simp only [Bool.and_eq_true, decide_eq_true_eq] at hc
      obtain ⟨cs, h1, h2⟩ := takeField_drop b fuel (i + 1) (byteAt b i :: acc)
      refine ⟨byteAt b i :: cs, by simp [h1], ?_⟩
      rw [List.cons_append, ← h2]
      exact drop_eq_byteAt_cons hc.1.1
    next => exact ⟨[], by simp⟩

/-- `digits` returns the decimal value of the digits it walked over (after `acc`). -/
theorem digits_drop (b : ByteArray) : ∀ (fuel i acc : Nat),
    ∃ ds, (∀ d ∈ ds, isDigit d = true) ∧ (digits b fuel i acc).1 = digitsVal acc ds ∧
      b.data.toList.drop i = ds ++ b.data.toList.drop (digits b fuel i acc).2
  | 0, i, acc => ⟨[], by simp, by simp [digits], by simp [digits]⟩
  | fuel + 1, i, acc => by
    simp only [digits]
    split
    next hc =>
      simp only [Bool.and_eq_true, decide_eq_true_eq] at hc
      obtain ⟨ds, hd, h1, h2⟩ :=
        digits_drop b fuel (i + 1) (acc * 10 + ((byteAt b i).toNat - 48))
      refine ⟨byteAt b i :: ds, ?_, by rw [h1, digitsVal_cons], ?_⟩
      · intro d hd'
        rcases List.mem_cons.mp hd' with rfl | hd'
        · exact hc.2
        · exact hd d hd'
      · rw [List.cons_append, ← h2]
        exact drop_eq_byteAt_cons hc.1
    next => exact ⟨[], by simp, by simp, by simp⟩

/-- `digits` moves past a digit. -/
theorem digits_gt (b : ByteArray) (fuel i acc : Nat) (hf : 0 < fuel) (hi : i < b.size)
    (hd : isDigit (byteAt b i) = true) : i < (digits b fuel i acc).2 := by
  cases fuel with
  | zero => omega
  | succ f =>
    simp only [digits, hi, hd, decide_true, Bool.and_self, ↓reduceIte]
    have := digits_ge b f (i + 1) (acc * 10 + ((byteAt b i).toNat - 48))
    omega

/-- **`parseLine` accepts only canonical lines**: if it reads the entry `(tok, r)` at `i` and
the next line at `p`, the bytes at `i` are the canonical base64 of the non-empty `tok`, a space,
a non-empty run of digits of value `r`, then (at `p - 1`) a newline or the end of the file. -/
theorem parseLine_ok {b : ByteArray} {i : Nat} {tok : List UInt8} {r p : Nat}
    (h : parseLine b i = .ok ((tok, r), p)) :
    ∃ ds, tok ≠ [] ∧ ds ≠ [] ∧ (∀ d ∈ ds, isDigit d = true) ∧ digitsVal 0 ds = r ∧
      b.data.toList.drop i = encode64 tok ++ 32 :: (ds ++ b.data.toList.drop (p - 1)) ∧
      (p - 1 < b.size → byteAt b (p - 1) = 10) := by
  obtain ⟨cs, hcs1, hcs2⟩ := takeField_drop b b.size i []
  obtain ⟨ds, hd, hv, hds⟩ := digits_drop b b.size ((takeField b b.size i []).2 + 1) 0
  simp only [parseLine] at h
  split at h
  next => simp at h
  next hsp =>
    replace hsp : (takeField b b.size i []).2 < b.size ∧
        byteAt b (takeField b b.size i []).2 = 32 := by simpa using hsp
    split at h
    next => simp at h
    next => simp at h
    next tok' hnil hdec =>
      split at h
      next => simp at h
      next hdig =>
        split at h
        next => simp at h
        next hend =>
          simp only [Except.ok.injEq, Prod.mk.injEq] at h
          obtain ⟨⟨rfl, rfl⟩, rfl⟩ := h
          rw [hcs1, revBytes_eq_reverseAux, List.reverseAux_eq, List.append_nil, List.append_nil,
            List.reverse_reverse] at hdec
          have henc := encode64_of_decode64 _ _ hdec
          have hsp' := drop_eq_byteAt_cons hsp.1
          rw [hsp.2] at hsp'
          have hdig' : isDigit (byteAt b ((takeField b b.size i []).2 + 1)) = true := by
            simpa using hdig
          have hlt : (takeField b b.size i []).2 + 1 < b.size := by
            apply Nat.lt_of_not_le
            intro hle
            simp [byteAt, Nat.not_lt.mpr hle, isDigit] at hdig'
          have hgt := digits_gt b b.size _ 0 (by omega) hlt hdig'
          have hne : ds ≠ [] := by
            intro e
            rw [e, List.nil_append] at hds
            have := congrArg List.length hds
            simp only [List.length_drop, ← size_eq_length] at this
            omega
          refine ⟨ds, ?_, hne, hd, hv.symm, ?_, ?_⟩
          · intro e
            exact hnil e
          · rw [hcs2, henc, hsp', Nat.add_sub_cancel, ← hds]
          · intro hlt
            rw [Nat.add_sub_cancel] at hlt ⊢
            apply Classical.byContradiction
            intro h10
            exact hend (by simp [hlt, h10])

end Bpe.Exec
