module

public import Bpe.Exec.Code

/-!
# The number readers read whole numbers

The compiled number reader `Bpe.Exec.readNat` skips to the next digit (`skipToDigit`) and reads
the run of digits there (`digits`), each loop with the size of the buffer as fuel. Stated on
the bytes from a position on (`b.data.toList.drop i`):

* `digits_of_drop`: `digits` reads a maximal run of digits `ds` whole and returns its decimal
  value `digitsVal 0 ds` and the position after it (fuel: at least the run's length);
* `skipToDigit_of_drop`: `skipToDigit` stops at the first digit, or at the end;
* `readNat_of_drop`: `readNat` returns the value of the first maximal run of digits and the
  position after it, however long the run: no number is ever split into two or cut short.

`decimal n` is the decimal writing of `n` (as Python's `str`), and reading it back gives `n`
(`digitsVal_decimal`, `readNat_decimal`, `digits_decimal`).
-/

@[expose] public section

namespace Bpe.Exec

/-- The value of a run of decimal digits, most significant first, after the value `acc` of the
digits before it (the arithmetic of `digits`). -/
def digitsVal (acc : Nat) (ds : List UInt8) : Nat :=
  ds.foldl (fun a d => a * 10 + (d.toNat - 48)) acc

@[simp] theorem digitsVal_nil (acc : Nat) : digitsVal acc [] = acc := by
  simp [digitsVal]

@[simp] theorem digitsVal_cons (acc : Nat) (d : UInt8) (ds : List UInt8) :
    digitsVal acc (d :: ds) = digitsVal (acc * 10 + (d.toNat - 48)) ds := by
  simp [digitsVal]

theorem digitsVal_append (xs ys : List UInt8) (acc : Nat) :
    digitsVal acc (xs ++ ys) = digitsVal (digitsVal acc xs) ys := by
  simp [digitsVal]

theorem size_eq_length (b : ByteArray) : b.size = b.data.toList.length := by
  first | rfl | simp

/-- The byte at `i`, when the bytes from `i` on start with `x`. -/
theorem byteAt_of_drop {b : ByteArray} {i : Nat} {x : UInt8} {rest : List UInt8}
    (h : b.data.toList.drop i = x :: rest) :
    i < b.size ∧ byteAt b i = x ∧ b.data.toList.drop (i + 1) = rest := by
  have hi : i < b.data.toList.length := by
    apply Nat.lt_of_not_le
    intro hle
    rw [List.drop_eq_nil_of_le hle] at h
    cases h
  rw [List.drop_eq_getElem_cons hi, List.cons.injEq] at h
  have hs : i < b.size := by rw [size_eq_length]; exact hi
  refine ⟨hs, ?_, h.2⟩
  simp only [byteAt, hs, dite_true, ByteArray.getElem_eq_getElem_data]
  simpa using h.1

/-- Past the end of the buffer. -/
theorem size_le_of_drop {b : ByteArray} {i : Nat} (h : b.data.toList.drop i = []) :
    b.size ≤ i := by
  rw [size_eq_length]
  exact List.drop_eq_nil_iff.mp h

theorem length_le_of_drop {b : ByteArray} {i : Nat} {l rest : List UInt8}
    (h : b.data.toList.drop i = l ++ rest) : l.length ≤ b.size := by
  have := congrArg List.length h
  simp only [List.length_drop, List.length_append] at this
  rw [size_eq_length]
  omega

/-- **`digits` reads a maximal run of digits whole**: from a position where the bytes are the
digits `ds` and then a non-digit or the end, with fuel at least the length of `ds`, it returns
the decimal value of `ds` (after `acc`) and the position after `ds`. -/
theorem digits_of_drop (b : ByteArray) :
    ∀ (ds : List UInt8) (fuel i acc : Nat) (rest : List UInt8),
      b.data.toList.drop i = ds ++ rest → (∀ d ∈ ds, isDigit d = true) →
      (∀ x ∈ rest.head?, isDigit x = false) → ds.length ≤ fuel →
      digits b fuel i acc = (digitsVal acc ds, i + ds.length)
  | [], 0, i, acc, _, _, _, _, _ => rfl
  | [], fuel + 1, i, acc, rest, h, _, hr, _ => by
    simp only [List.nil_append] at h
    cases rest with
    | nil =>
      have := size_le_of_drop h
      simp [digits, show ¬ i < b.size by omega]
    | cons x rest =>
      obtain ⟨_, hx, _⟩ := byteAt_of_drop h
      simp [digits, hx, hr x rfl]
  | d :: ds, 0, _, _, _, _, _, _, hf => by simp at hf
  | d :: ds, fuel + 1, i, acc, rest, h, hd, hr, hf => by
    obtain ⟨hi, hx, h'⟩ := byteAt_of_drop h
    have hdd := hd d (by simp)
    simp only [digits, hi, hx, hdd, Bool.and_self, decide_true, ↓reduceIte]
    rw [digits_of_drop b ds fuel (i + 1) _ rest h' (fun d h => hd d (by simp [h])) hr
      (by simpa using hf)]
    simp only [digitsVal_cons, List.length_cons, Prod.mk.injEq, true_and]
    omega

/-- `skipToDigit` stops at the first digit (or the end): from a position where the bytes are
the non-digits `pre` and then a digit or the end, with fuel at least the length of `pre`, it
returns the position after `pre`. -/
theorem skipToDigit_of_drop (b : ByteArray) :
    ∀ (pre : List UInt8) (fuel i : Nat) (rest : List UInt8),
      b.data.toList.drop i = pre ++ rest → (∀ d ∈ pre, isDigit d = false) →
      (∀ x ∈ rest.head?, isDigit x = true) → pre.length ≤ fuel →
      skipToDigit b fuel i = i + pre.length
  | [], 0, i, _, _, _, _, _ => rfl
  | [], fuel + 1, i, rest, h, _, hr, _ => by
    simp only [List.nil_append] at h
    cases rest with
    | nil =>
      have := size_le_of_drop h
      simp [skipToDigit, show ¬ i < b.size by omega]
    | cons x rest =>
      obtain ⟨_, hx, _⟩ := byteAt_of_drop h
      simp [skipToDigit, hx, hr x rfl]
  | d :: pre, 0, _, _, _, _, _, hf => by simp at hf
  | d :: pre, fuel + 1, i, rest, h, hd, hr, hf => by
    obtain ⟨hi, hx, h'⟩ := byteAt_of_drop h
    have hdd := hd d (by simp)
    simp only [skipToDigit, hi, hx, hdd, Bool.not_false, Bool.and_self, decide_true,
      ↓reduceIte]
    rw [skipToDigit_of_drop b pre fuel (i + 1) rest h' (fun d h => hd d (by simp [h])) hr
      (by simpa using hf)]
    simp only [List.length_cons]
    omega

/-- **`readNat` reads the next number whole**: from a position where the bytes are the
non-digits `pre`, the digits `ds` (at least one) and then a non-digit or the end, it returns
the decimal value of `ds` and the position after it, however long `pre` and `ds` are. -/
theorem readNat_of_drop (b : ByteArray) (i : Nat) (pre ds rest : List UInt8)
    (h : b.data.toList.drop i = pre ++ ds ++ rest) (hp : ∀ d ∈ pre, isDigit d = false)
    (hd : ∀ d ∈ ds, isDigit d = true) (hne : ds ≠ [])
    (hr : ∀ x ∈ rest.head?, isDigit x = false) :
    readNat b i = (digitsVal 0 ds, i + pre.length + ds.length) := by
  have hl := length_le_of_drop h
  simp only [List.length_append] at hl
  have hs : skipToDigit b b.size i = i + pre.length := by
    refine skipToDigit_of_drop b pre b.size i (ds ++ rest) (by simpa using h) hp ?_ (by omega)
    intro x hx
    cases ds with
    | nil => exact absurd rfl hne
    | cons d ds =>
      simp only [List.cons_append, List.head?_cons, Option.mem_def, Option.some.injEq] at hx
      exact hx ▸ hd d (by simp)
  have h2 : b.data.toList.drop (i + pre.length) = ds ++ rest := by
    rw [← List.drop_drop, h, List.append_assoc, List.drop_left]
  unfold readNat
  rw [hs, digits_of_drop b ds b.size (i + pre.length) 0 rest h2 hd hr (by omega)]

/-! ## Writing a number in decimal -/

/-- The digit of a value below 10. -/
def digitByte (d : Nat) : UInt8 := UInt8.ofNat (48 + d)

/-- The decimal digits of `n` (at most `fuel` of them). -/
noncomputable def decimalAux : Nat → Nat → List UInt8
  | 0, _ => []
  | fuel + 1, n =>
    if n < 10 then [digitByte n] else decimalAux fuel (n / 10) ++ [digitByte (n % 10)]

/-- The decimal writing of `n` (as Python's `str(n)`: no leading zero). -/
noncomputable def decimal (n : Nat) : List UInt8 := decimalAux (n + 1) n

theorem digitByte_toNat {d : Nat} (h : d < 10) : (digitByte d).toNat = 48 + d := by
  simp only [digitByte, UInt8.toNat_ofNat', Nat.reducePow]
  omega

theorem isDigit_digitByte {d : Nat} (h : d < 10) : isDigit (digitByte d) = true := by
  simp only [isDigit, digitByte_toNat h, Bool.and_eq_true, decide_eq_true_eq]
  omega

theorem decimalAux_isDigit : ∀ (fuel n : Nat), ∀ d ∈ decimalAux fuel n, isDigit d = true
  | 0, _ => by simp [decimalAux]
  | fuel + 1, n => by
    unfold decimalAux
    split
    next h =>
      intro d hd
      simp only [List.mem_singleton] at hd
      exact hd ▸ isDigit_digitByte h
    next =>
      intro d hd
      simp only [List.mem_append, List.mem_singleton] at hd
      rcases hd with hd | hd
      · exact decimalAux_isDigit fuel _ d hd
      · exact hd ▸ isDigit_digitByte (Nat.mod_lt _ (by omega))

theorem digitsVal_decimalAux : ∀ (fuel n : Nat), n < fuel → digitsVal 0 (decimalAux fuel n) = n
  | 0, _, h => by omega
  | fuel + 1, n, h => by
    unfold decimalAux
    split
    next h10 => simp [digitsVal, digitByte_toNat h10]
    next h10 =>
      rw [digitsVal_append, digitsVal_decimalAux fuel (n / 10) (by omega)]
      simp only [digitsVal_cons, digitsVal_nil, digitByte_toNat (Nat.mod_lt n (by omega : 10 > 0))]
      omega

theorem decimalAux_ne_nil : ∀ (fuel n : Nat), 0 < fuel → decimalAux fuel n ≠ []
  | 0, _, h => by omega
  | fuel + 1, n, _ => by
    unfold decimalAux
    split <;> simp

@[simp] theorem digitsVal_decimal (n : Nat) : digitsVal 0 (decimal n) = n :=
  digitsVal_decimalAux (n + 1) n (by omega)

theorem decimal_isDigit (n : Nat) : ∀ d ∈ decimal n, isDigit d = true :=
  decimalAux_isDigit (n + 1) n

theorem decimal_ne_nil (n : Nat) : decimal n ≠ [] := decimalAux_ne_nil (n + 1) n (by omega)

/-- **The decimal writing of `n` is read back as `n`** by `digits` with enough fuel, when a
non-digit or the end follows it. -/
theorem digits_decimal (b : ByteArray) (fuel i n : Nat) (rest : List UInt8)
    (h : b.data.toList.drop i = decimal n ++ rest) (hr : ∀ x ∈ rest.head?, isDigit x = false)
    (hf : (decimal n).length ≤ fuel) :
    digits b fuel i 0 = (n, i + (decimal n).length) := by
  rw [digits_of_drop b (decimal n) fuel i 0 rest h (decimal_isDigit n) hr hf, digitsVal_decimal]

/-- **`readNat` reads the decimal writing of `n` back as `n`**, when a non-digit or the end
follows it. -/
theorem readNat_decimal (b : ByteArray) (i n : Nat) (rest : List UInt8)
    (h : b.data.toList.drop i = decimal n ++ rest) (hr : ∀ x ∈ rest.head?, isDigit x = false) :
    readNat b i = (n, i + (decimal n).length) := by
  rw [readNat_of_drop b i [] (decimal n) rest (by simpa using h) (by simp) (decimal_isDigit n)
    (decimal_ne_nil n) hr, digitsVal_decimal]
  simp

end Bpe.Exec
