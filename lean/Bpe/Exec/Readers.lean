module

public import Bpe.Exec.Ranks

/-!
# The readers refuse out-of-range values instead of truncating them

The number readers of the compiled route turn decimal numbers into bytes through
`byteOfNat?`, which refuses a value of 256 or more (`byteOfNat?_eq_some`,
`byteOfNat?_eq_none`) where `UInt8.ofNat` would reduce it modulo 256. So `readBytes` returns
exactly the numbers it reads, in order, as bytes (`readBytes_map_toNat`), and refuses the
chunk (`none`) exactly when one of them is 256 or more (`readBytes_eq_none`); `readNats` is
the list of numbers read, the plain specification. The base64 decoder `decode64` builds its
bytes with `UInt8.ofNat` only after checking the digits it uses (each below 64), and from such
digits the three byte values are below 256 (`decode64_values_lt`), so it never truncates
either.
-/

@[expose] public section

namespace Bpe.Exec

@[simp] theorem byteOfNat?_eq_some (n : Nat) (x : UInt8) :
    byteOfNat? n = some x ↔ n < 256 ∧ x.toNat = n := by
  unfold byteOfNat?
  split
  next h =>
    simp only [Option.some.injEq]
    constructor
    · intro hx
      subst hx
      exact ⟨h, by simpa using Nat.mod_eq_of_lt h⟩
    · intro ⟨_, hx⟩
      apply UInt8.toNat_inj.mp
      simpa [hx] using Nat.mod_eq_of_lt h
  next h => exact Iff.intro (fun hx => by cases hx) (fun hx => absurd hx.1 h)

@[simp] theorem byteOfNat?_eq_none (n : Nat) : byteOfNat? n = none ↔ 256 ≤ n := by
  unfold byteOfNat?
  split
  next h => simpa using h
  next h => simpa using h

/-- The `n` numbers read from position `i` on, and the position after them (the specification
of `readBytes`: numbers, not bytes). -/
def readNats (b : ByteArray) : Nat → Nat → List Nat × Nat
  | 0, i => ([], i)
  | n + 1, i =>
    let a := readNat b i
    let r := readNats b n a.2
    (a.1 :: r.1, r.2)

/-- The compiled `revBytes` (an own definition for the offline compiler) is core's
`List.reverseAux`: its facts come from core's lemmas (`List.reverseAux_eq`). -/
theorem revBytes_eq_reverseAux : ∀ xs acc : List UInt8, revBytes xs acc = xs.reverseAux acc
  | [], _ => rfl
  | x :: xs, acc => revBytes_eq_reverseAux xs (x :: acc)

/-- **`readBytes` never truncates**: the bytes it returns are the numbers it read (after the
reversed accumulator), value for value, and it ends where they end. -/
theorem readBytes_map_toNat (b : ByteArray) :
    ∀ (n i : Nat) (acc bs : List UInt8) (j : Nat), readBytes b n i acc = some (bs, j) →
      bs.map UInt8.toNat = acc.reverse.map UInt8.toNat ++ (readNats b n i).1 ∧
        j = (readNats b n i).2
  | 0, i, acc, bs, j, h => by
    simp only [readBytes, Option.some.injEq, Prod.mk.injEq] at h
    obtain ⟨rfl, rfl⟩ := h
    simp [readNats, revBytes_eq_reverseAux, List.reverseAux_eq]
  | n + 1, i, acc, bs, j, h => by
    cases hx : byteOfNat? (readNat b i).1 with
    | none => simp [readBytes, hx] at h
    | some x =>
      simp only [readBytes, hx] at h
      obtain ⟨h1, h2⟩ := readBytes_map_toNat b n _ (x :: acc) bs j h
      rw [byteOfNat?_eq_some] at hx
      refine ⟨?_, ?_⟩
      · rw [h1]
        simp [readNats, hx.2]
      · simp [readNats, h2]

/-- **`readBytes` refuses exactly the out-of-range values**: it returns `none` iff one of the
numbers it reads is 256 or more. -/
theorem readBytes_eq_none (b : ByteArray) :
    ∀ (n i : Nat) (acc : List UInt8),
      readBytes b n i acc = none ↔ ∃ v ∈ (readNats b n i).1, 256 ≤ v
  | 0, i, acc => by simp [readBytes, readNats]
  | n + 1, i, acc => by
    cases hx : byteOfNat? (readNat b i).1 with
    | none =>
      have h256 := (byteOfNat?_eq_none _).mp hx
      simp only [readBytes, readNats, hx, true_iff]
      exact ⟨_, by simp, h256⟩
    | some x =>
      have hlt := ((byteOfNat?_eq_some _ _).mp hx).1
      simp only [readBytes, readNats, hx]
      rw [readBytes_eq_none b n _ (x :: acc)]
      simp only [List.mem_cons, exists_eq_or_imp]
      constructor
      · exact Or.inr
      · rintro (h | h)
        · omega
        · exact h

/-- The three byte values `decode64` builds from base64 digits below 64 (the ones it checks
before using them) are below 256: its `UInt8.ofNat` never truncates. -/
theorem decode64_values_lt {va vb vc vd : Nat} (ha : va < 64) (hb : vb < 64) (hc : vc < 64)
    (hd : vd < 64) :
    va * 4 + vb / 16 < 256 ∧ (vb % 16) * 16 + vc / 4 < 256 ∧ (vc % 4) * 64 + vd < 256 := by
  omega

end Bpe.Exec
