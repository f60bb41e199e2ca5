module

public import Bpe.Regex.Lemmas
public import Bpe.Regex.Patterns
public import Bpe.Regex.Ascii
public import Bpe.Seed.PreTokenize

/-!
# The seed's byte classifiers are the ASCII classes of its pattern

The classes of the seed's pattern read with `asciiClasses` (`asciiLetter` = `\p{L}`,
`asciiWordLead` = `[^\r\n\p{L}\p{N}]`, …), and the seed's byte predicates
(`Bpe.isLetter`, `Bpe.isWordLead`, …, `Bpe.toLower`) shown equal to them on the byte's code
point (on ASCII bytes where the class is negated: the regex's negated classes contain every
code point above ASCII, the machine's predicates do not). Each fact is checked by the kernel over
the 256 byte values. `runLength_*` carry the machine's run lengths over to `runLen` on code points.
-/

@[expose] public section
noncomputable section

namespace Bpe.Regex

open Bpe

/-- `\p{L}`, `\p{N}`, `\s`, `\S`, `[\r\n]`, `[^\r\n\p{L}\p{N}]`, `[^\s\p{L}\p{N}]` and the
literal space, read with the ASCII classes, outside `(?i:…)`. -/
def asciiLetter : Nat → Bool := classHolds asciiClasses false (.esc false .letter)
def asciiDigit : Nat → Bool := classHolds asciiClasses false (.esc false .number)
def asciiSpace : Nat → Bool := classHolds asciiClasses false (.esc false .whiteSpace)
def asciiNotSpace : Nat → Bool := classHolds asciiClasses false (.esc true .whiteSpace)
def asciiNewline : Nat → Bool :=
  classHolds asciiClasses false (.set false [it '\r', it '\n'])
def asciiWordLead : Nat → Bool :=
  classHolds asciiClasses false (.set true [it '\r', it '\n', .prop .letter, .prop .number])
def asciiPunct : Nat → Bool :=
  classHolds asciiClasses false (.set true [.prop .whiteSpace, .prop .letter, .prop .number])
def asciiSpaceChar : Nat → Bool := charHolds asciiClasses false (' ').toNat

/-- ASCII lower-casing of a code point. -/
def lowerAscii (x : Nat) : Nat := if 65 ≤ x ∧ x ≤ 90 then x + 32 else x

theorem asciiNotSpace_eq (x : Nat) : asciiNotSpace x = !asciiSpace x := by
  simp [asciiNotSpace, asciiSpace, classHolds, classBase, classNegated]

theorem toNat_lt_of_isAscii {b : UInt8} (hb : isAscii b = true) : b.toNat < 128 := by
  unfold isAscii at hb
  simp at hb
  omega

theorem isLetter_eq (b : UInt8) : isLetter b = asciiLetter b.toNat := by
  have h : b.toNat < 256 := b.toNat_lt
  unfold isLetter
  generalize b.toNat = x at h ⊢
  revert x
  decide +kernel

theorem isDigit_eq (b : UInt8) : isDigit b = asciiDigit b.toNat := by
  have h : b.toNat < 256 := b.toNat_lt
  unfold isDigit
  generalize b.toNat = x at h ⊢
  revert x
  decide +kernel

theorem isSpace_eq (b : UInt8) : isSpace b = asciiSpace b.toNat := by
  have h : b.toNat < 256 := b.toNat_lt
  unfold isSpace
  generalize b.toNat = x at h ⊢
  revert x
  decide +kernel

theorem isNewline_eq (b : UInt8) : isNewline b = asciiNewline b.toNat := by
  have h : b.toNat < 256 := b.toNat_lt
  unfold isNewline
  generalize b.toNat = x at h ⊢
  revert x
  decide +kernel

theorem isWordLead_eq (b : UInt8) (hb : isAscii b = true) :
    isWordLead b = asciiWordLead b.toNat := by
  have h : b.toNat < 128 := toNat_lt_of_isAscii hb
  unfold isWordLead isAscii isNewline isLetter isDigit
  generalize b.toNat = x at h ⊢
  revert x
  decide +kernel

theorem isPunct_eq (b : UInt8) (hb : isAscii b = true) : isPunct b = asciiPunct b.toNat := by
  have h : b.toNat < 128 := toNat_lt_of_isAscii hb
  unfold isPunct isAscii isSpace isLetter isDigit
  generalize b.toNat = x at h ⊢
  revert x
  decide +kernel

theorem asciiSpaceChar_eq (x : Nat) : asciiSpaceChar x = (x == 32) := by
  show (x == 32 || (false && (asciiClasses.orbit x).contains 32)) = (x == 32)
  cases x == 32 <;> rfl

theorem asciiWordLead_of_asciiLetter {x : Nat} (h : asciiLetter x = true) :
    asciiWordLead x = false := by
  simp_all [asciiLetter, asciiWordLead, classHolds, classBase, classNegated, itemHolds]

theorem asciiSpace_of_asciiNewline {x : Nat} (hx : x < 256) (h : asciiNewline x = true) :
    asciiSpace x = true := by
  have key : ∀ x, x < 256 → asciiNewline x = true → asciiSpace x = true := by decide +kernel
  exact key x hx h

theorem asciiPunct_32 : asciiPunct 32 = false := by decide +kernel

theorem toLower_toNat (b : UInt8) : (toLower b).toNat = lowerAscii b.toNat := by
  have h : b.toNat < 256 := b.toNat_lt
  unfold toLower lowerAscii
  by_cases hl : 65 ≤ b.toNat ∧ b.toNat ≤ 90
  · have hc : (decide (65 ≤ b.toNat) && decide (b.toNat ≤ 90)) = true := by simp [hl.1, hl.2]
    rw [if_pos hc, if_pos hl, UInt8.toNat_add]
    show (b.toNat + 32) % 256 = b.toNat + 32
    omega
  · have hc : ¬(decide (65 ≤ b.toNat) && decide (b.toNat ≤ 90)) = true := by simpa using hl
    rw [if_neg hc, if_neg hl]

/-- Inside `(?i:…)`, on ASCII: `[sdmt]` and the literals `l`, `v`, `r`, `e` compare the
lower-cased code point. -/
theorem classHolds_sdmt (x : Nat) (hx : x < 128) :
    classHolds asciiClasses true (.set false [.char 115, .char 100, .char 109, .char 116]) x =
      (lowerAscii x == 115 || lowerAscii x == 100 || lowerAscii x == 109 ||
        lowerAscii x == 116) := by
  revert x
  decide +kernel

theorem charHolds_l (x : Nat) (hx : x < 128) :
    charHolds asciiClasses true 108 x = (lowerAscii x == 108) := by
  revert x
  decide +kernel

theorem charHolds_v (x : Nat) (hx : x < 128) :
    charHolds asciiClasses true 118 x = (lowerAscii x == 118) := by
  revert x
  decide +kernel

theorem charHolds_r (x : Nat) (hx : x < 128) :
    charHolds asciiClasses true 114 x = (lowerAscii x == 114) := by
  revert x
  decide +kernel

theorem charHolds_e (x : Nat) (hx : x < 128) :
    charHolds asciiClasses true 101 x = (lowerAscii x == 101) := by
  revert x
  decide +kernel

theorem charHolds_false (c x : Nat) : charHolds asciiClasses false c x = (x == c) := by
  simp [charHolds]

/-- A run of the machine is a run of the class, when the predicates agree on the bytes. -/
theorem runLength_eq_runLen (p : UInt8 → Bool) (q : Nat → Bool) :
    ∀ d : Bytes, (∀ b ∈ d, p b = q b.toNat) → runLength p d = runLen q (d.map UInt8.toNat)
  | [], _ => rfl
  | b :: bs, h => by
    simp only [runLength, List.map_cons, runLen_cons, h b (by simp),
      runLength_eq_runLen p q bs (fun b hb => h b (by simp [hb]))]

theorem runLength_isLetter (d : Bytes) :
    runLength isLetter d = runLen asciiLetter (d.map UInt8.toNat) :=
  runLength_eq_runLen _ _ d fun b _ => isLetter_eq b

theorem runLength_isDigit (d : Bytes) :
    runLength isDigit d = runLen asciiDigit (d.map UInt8.toNat) :=
  runLength_eq_runLen _ _ d fun b _ => isDigit_eq b

theorem runLength_isSpace (d : Bytes) :
    runLength isSpace d = runLen asciiSpace (d.map UInt8.toNat) :=
  runLength_eq_runLen _ _ d fun b _ => isSpace_eq b

theorem runLength_isNewline (d : Bytes) :
    runLength isNewline d = runLen asciiNewline (d.map UInt8.toNat) :=
  runLength_eq_runLen _ _ d fun b _ => isNewline_eq b

theorem runLength_isPunct (d : Bytes) (hd : ∀ b ∈ d, isAscii b = true) :
    runLength isPunct d = runLen asciiPunct (d.map UInt8.toNat) :=
  runLength_eq_runLen _ _ d fun b hb => isPunct_eq b (hd b hb)

end Bpe.Regex
