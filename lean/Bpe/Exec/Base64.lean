module

public import Bpe.Exec.Ranks

/-!
# Base64: `decode64` inverts `encode64`, and accepts only its outputs

`encode64` is base64 with `=` padding (RFC 4648, the alphabet `A`–`Z`, `a`–`z`, `0`–`9`, `+`,
`/`), as Python's `base64.b64encode` writes the tokens of a `.tiktoken` file. The compiled
reader `Bpe.Exec.decode64` (in `Bpe.Exec.Ranks`) inverts it (`decode64_encode64`), and every
input it accepts is the encoding of what it returns (`encode64_of_decode64`): it refuses
non-canonical input (a final group whose dropped bits are not zero, such as `QR==`), so it is
injective.
-/

@[expose] public section

namespace Bpe.Exec

/-- The base64 digit of a value below 64 (`A`–`Z`, `a`–`z`, `0`–`9`, `+`, `/`). -/
def b64Char (v : Nat) : UInt8 :=
  if v < 26 then UInt8.ofNat (v + 65)
  else if v < 52 then UInt8.ofNat (v + 71)
  else if v < 62 then UInt8.ofNat (v - 4)
  else if v == 62 then 43
  else 47

/-- Base64 encoding with `=` padding. -/
def encode64 : List UInt8 → List UInt8
  | [] => []
  | [x] => [b64Char (x.toNat / 4), b64Char (x.toNat % 4 * 16), 61, 61]
  | [x, y] =>
    [b64Char (x.toNat / 4), b64Char (x.toNat % 4 * 16 + y.toNat / 16), b64Char (y.toNat % 16 * 4),
      61]
  | x :: y :: z :: rest =>
    b64Char (x.toNat / 4) :: b64Char (x.toNat % 4 * 16 + y.toNat / 16) ::
      b64Char (y.toNat % 16 * 4 + z.toNat / 64) :: b64Char (z.toNat % 64) :: encode64 rest

set_option maxRecDepth 100000 in
theorem b64_b64Char_of_lt : ∀ v, v < 64 → b64 (b64Char v) = v := by decide

set_option maxRecDepth 100000 in
theorem b64Char_b64_of_lt : ∀ n, n < 256 → b64 (UInt8.ofNat n) < 64 →
    b64Char (b64 (UInt8.ofNat n)) = UInt8.ofNat n := by decide

set_option maxRecDepth 100000 in
theorem b64Char_ne_of_lt : ∀ v, v < 64 →
    (b64Char v).toNat ≠ 61 ∧ (b64Char v).toNat ≠ 32 ∧ (b64Char v).toNat ≠ 10 := by decide

@[simp] theorem b64_b64Char {v : Nat} (h : v < 64) : b64 (b64Char v) = v :=
  b64_b64Char_of_lt v h

theorem b64Char_b64 {c : UInt8} (h : b64 c < 64) : b64Char (b64 c) = c := by
  have := b64Char_b64_of_lt c.toNat c.toNat_lt (by simpa using h)
  simpa using this

/-- A digit rebuilt from the value it has. -/
theorem b64Char_eq {c : UInt8} {v : Nat} (h : b64 c < 64) (hv : v = b64 c) : b64Char v = c := by
  subst hv
  exact b64Char_b64 h

theorem b64Char_toNat_beq {v : Nat} (h : v < 64) : ((b64Char v).toNat == 61) = false := by
  simpa using (b64Char_ne_of_lt v h).1

@[simp] theorem b64_eq : b64 61 = 64 := by decide

/-- A byte rebuilt from its value. -/
theorem ofNat_eq {x : UInt8} {n : Nat} (h : n = x.toNat) : UInt8.ofNat n = x := by
  subst h
  exact UInt8.ofNat_toNat

/-- **Base64 decoding inverts the encoding.** -/
theorem decode64_encode64 : ∀ bs : List UInt8, decode64 (encode64 bs) = some bs
  | [] => rfl
  | [x] => by
    have hx := x.toNat_lt
    have ha : x.toNat / 4 < 64 := by omega
    have hb : x.toNat % 4 * 16 < 64 := by omega
    have h1 : x.toNat % 4 * 16 % 16 = 0 := by omega
    simp only [encode64, decode64, b64_b64Char ha, b64_b64Char hb,
      ofNat_eq (show x.toNat / 4 * 4 + x.toNat % 4 * 16 / 16 = x.toNat by omega)]
    simp [h1, isNil, ha, hb]
  | [x, y] => by
    have hx := x.toNat_lt
    have hy := y.toNat_lt
    have ha : x.toNat / 4 < 64 := by omega
    have hb : x.toNat % 4 * 16 + y.toNat / 16 < 64 := by omega
    have hc : y.toNat % 16 * 4 < 64 := by omega
    have h1 : y.toNat % 16 * 4 % 4 = 0 := by omega
    simp only [encode64, decode64, b64_b64Char ha, b64_b64Char hb, b64_b64Char hc,
      b64Char_toNat_beq hc,
      ofNat_eq (show x.toNat / 4 * 4 + (x.toNat % 4 * 16 + y.toNat / 16) / 16 = x.toNat by omega),
      ofNat_eq (show (x.toNat % 4 * 16 + y.toNat / 16) % 16 * 16 + y.toNat % 16 * 4 / 4 =
        y.toNat by omega)]
    simp [h1, isNil, ha, hb, hc]
  | x :: y :: z :: rest => by
    have hx := x.toNat_lt
    have hy := y.toNat_lt
    have hz := z.toNat_lt
    have ha : x.toNat / 4 < 64 := by omega
    have hb : x.toNat % 4 * 16 + y.toNat / 16 < 64 := by omega
    have hc : y.toNat % 16 * 4 + z.toNat / 64 < 64 := by omega
    have hd : z.toNat % 64 < 64 := by omega
    simp only [encode64, decode64, b64_b64Char ha, b64_b64Char hb, b64_b64Char hc,
      b64_b64Char hd, b64Char_toNat_beq hc, b64Char_toNat_beq hd, decode64_encode64 rest,
      ofNat_eq (show x.toNat / 4 * 4 + (x.toNat % 4 * 16 + y.toNat / 16) / 16 = x.toNat by omega),
      ofNat_eq (show (x.toNat % 4 * 16 + y.toNat / 16) % 16 * 16 +
        (y.toNat % 16 * 4 + z.toNat / 64) / 4 = y.toNat by omega),
      ofNat_eq (show (y.toNat % 16 * 4 + z.toNat / 64) % 4 * 64 + z.toNat % 64 = z.toNat by omega)]
    simp [ha, hb, hc, hd]

theorem toNat_ofNat_lt {n : Nat} (h : n < 256) : (UInt8.ofNat n).toNat = n := by
  simp only [UInt8.toNat_ofNat', Nat.reducePow]
  omega

theorem ofNat_61_eq_of_toNat {c : UInt8} (h : c.toNat = 61) : 61 = c :=
  UInt8.toNat_inj.mp (by rw [h]; rfl)

/-- The compiled `isNil` (an own definition for the offline compiler) is core's `List.isEmpty`:
its facts come from core's lemmas (`List.isEmpty_iff`). -/
theorem isNil_eq_isEmpty (l : List UInt8) : isNil l = l.isEmpty := by
  cases l <;> rfl

/-- **Base64 decoding accepts only encodings**: what `decode64` accepts is the encoding of what
it returns (canonical base64, so decoding is injective). -/
theorem encode64_of_decode64 : ∀ (cs bs : List UInt8), decode64 cs = some bs → encode64 bs = cs
  | [], bs, h => by
    simp only [decode64, Option.some.injEq] at h
    subst h
    rfl
  | [_], _, h => by simp [decode64] at h
  | [_, _], _, h => by simp [decode64] at h
  | [_, _, _], _, h => by simp [decode64] at h
  | a :: b :: c :: d :: rest, bs, h => by
    simp only [decode64] at h
    split at h
    next hab =>
      simp only [Bool.and_eq_true, decide_eq_true_eq] at hab
      obtain ⟨ha, hb⟩ := hab
      have hx : (UInt8.ofNat (b64 a * 4 + b64 b / 16)).toNat = b64 a * 4 + b64 b / 16 :=
        toNat_ofNat_lt (by omega)
      split at h
      next hpad =>
        simp only [Bool.and_eq_true, beq_iff_eq, isNil_eq_isEmpty, List.isEmpty_iff] at hpad
        obtain ⟨⟨hc, hd⟩, rfl⟩ := hpad
        split at h
        next h16 =>
          simp only [beq_iff_eq] at h16
          simp only [Option.some.injEq] at h
          subst h
          simp only [encode64, List.cons.injEq, and_true]
          refine ⟨b64Char_eq ha (by rw [hx]; omega), b64Char_eq hb (by rw [hx]; omega),
            ofNat_61_eq_of_toNat hc, ofNat_61_eq_of_toNat hd⟩
        next => simp at h
      next =>
        split at h
        next hpad =>
          simp only [Bool.and_eq_true, beq_iff_eq, isNil_eq_isEmpty, List.isEmpty_iff,
            decide_eq_true_eq] at hpad
          obtain ⟨⟨hc, hd⟩, rfl⟩ := hpad
          have hy : (UInt8.ofNat (b64 b % 16 * 16 + b64 c / 4)).toNat =
              b64 b % 16 * 16 + b64 c / 4 := toNat_ofNat_lt (by omega)
          split at h
          next h4 =>
            simp only [beq_iff_eq] at h4
            simp only [Option.some.injEq] at h
            subst h
            simp only [encode64, List.cons.injEq, and_true]
            refine ⟨b64Char_eq ha (by rw [hx]; omega), b64Char_eq hb (by rw [hx, hy]; omega),
              b64Char_eq hc (by rw [hy]; omega), ofNat_61_eq_of_toNat hd⟩
          next => simp at h
        next =>
          split at h
          next hcd =>
            simp only [Bool.and_eq_true, decide_eq_true_eq] at hcd
            obtain ⟨hc, hd⟩ := hcd
            have hy : (UInt8.ofNat (b64 b % 16 * 16 + b64 c / 4)).toNat =
                b64 b % 16 * 16 + b64 c / 4 := toNat_ofNat_lt (by omega)
            have hz : (UInt8.ofNat (b64 c % 4 * 64 + b64 d)).toNat = b64 c % 4 * 64 + b64 d :=
              toNat_ofNat_lt (by omega)
            split at h
            next r hr =>
              simp only [Option.some.injEq] at h
              subst h
              simp only [encode64, List.cons.injEq]
              refine ⟨b64Char_eq ha (by rw [hx]; omega), b64Char_eq hb (by rw [hx, hy]; omega),
                b64Char_eq hc (by rw [hy, hz]; omega), b64Char_eq hd (by rw [hz]; omega),
                encode64_of_decode64 rest r hr⟩
            next => simp at h
          next => simp at h
    next => simp at h

/-! ## The characters of an encoding -/

theorem b64Char_ne {v : Nat} (h : v < 64) : b64Char v ≠ 32 ∧ b64Char v ≠ 10 := by
  have := b64Char_ne_of_lt v h
  exact ⟨fun e => this.2.1 (by rw [e]; rfl), fun e => this.2.2 (by rw [e]; rfl)⟩

/-- No byte of a base64 encoding is a space or a newline. -/
theorem encode64_ne : ∀ (bs : List UInt8), ∀ c ∈ encode64 bs, c ≠ 32 ∧ c ≠ 10
  | [] => by simp [encode64]
  | [x] => by
    have hx := x.toNat_lt
    intro c hc
    simp only [encode64, List.mem_cons, List.not_mem_nil, or_false] at hc
    rcases hc with rfl | rfl | rfl | rfl
    · exact b64Char_ne (by omega)
    · exact b64Char_ne (by omega)
    · decide
    · decide
  | [x, y] => by
    have hx := x.toNat_lt
    have hy := y.toNat_lt
    intro c hc
    simp only [encode64, List.mem_cons, List.not_mem_nil, or_false] at hc
    rcases hc with rfl | rfl | rfl | rfl
    · exact b64Char_ne (by omega)
    · exact b64Char_ne (by omega)
    · exact b64Char_ne (by omega)
    · decide
  | x :: y :: z :: rest => by
    have hx := x.toNat_lt
    have hy := y.toNat_lt
    have hz := z.toNat_lt
    intro c hc
    simp only [encode64, List.mem_cons] at hc
    rcases hc with rfl | rfl | rfl | rfl | hc
    · exact b64Char_ne (by omega)
    · exact b64Char_ne (by omega)
    · exact b64Char_ne (by omega)
    · exact b64Char_ne (by omega)
    · exact encode64_ne rest c hc

/-- The encoding of a non-empty byte string starts with the digit of its first byte's top six
bits. -/
theorem encode64_cons (x : UInt8) (xs : List UInt8) :
    ∃ t, encode64 (x :: xs) = b64Char (x.toNat / 4) :: t := by
  match xs with
  | [] => exact ⟨_, rfl⟩
  | [_] => exact ⟨_, rfl⟩
  | _ :: _ :: _ => exact ⟨_, rfl⟩

end Bpe.Exec
