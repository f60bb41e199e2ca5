module

public import Bpe.Regex.Syntax

/-!
# The ASCII instance of the character classes

`asciiClasses`: the properties of the patterns read on ASCII code points (letters `A-Z a-z`,
digits `0-9`, `\s` = tab, newline, vertical tab, form feed, carriage return and space; no
ASCII code point is `Lt`, `Lm`, `Lo` or `M`), false above ASCII. Case orbits: `A-Z` ↔ `a-z`,
plus the two non-ASCII code points that Unicode simple case folding sends to ASCII letters,
U+017F (long s, ↔ `s` `S`) and U+212A (Kelvin sign, ↔ `k` `K`). These orbits are exact for
every literal and class that is written with ASCII letters inside `(?i:…)`, which is the
case of every pattern of `Bpe.Regex.Patterns`.
-/

@[expose] public section
noncomputable section

namespace Bpe.Regex

/-- `A-Z`. -/
def isUpperAscii (x : Nat) : Bool := decide (65 ≤ x) && decide (x ≤ 90)

/-- `a-z`. -/
def isLowerAscii (x : Nat) : Bool := decide (97 ≤ x) && decide (x ≤ 122)

/-- The properties on ASCII code points. -/
def asciiHas : Property → Nat → Bool
  | .letter, x => isUpperAscii x || isLowerAscii x
  | .number, x => decide (48 ≤ x) && decide (x ≤ 57)
  | .uppercase, x => isUpperAscii x
  | .lowercase, x => isLowerAscii x
  | .whiteSpace, x => (decide (9 ≤ x) && decide (x ≤ 13)) || x == 32
  | _, _ => false

/-- The non-ASCII member of the case orbit of the lower-case letter `l`, if any. -/
def foldExtra (l : Nat) : List Nat :=
  if l == 115 then [383] else if l == 107 then [8490] else []

/-- The case orbit of `x` (the other code points that `(?i:…)` identifies with it). -/
def asciiOrbit (x : Nat) : List Nat :=
  if x == 383 then [115, 83]
  else if x == 8490 then [107, 75]
  else if isUpperAscii x then (x + 32) :: foldExtra (x + 32)
  else if isLowerAscii x then (x - 32) :: foldExtra x
  else []

/-- The ASCII instance. -/
def asciiClasses : Classes := ⟨asciiHas, asciiOrbit⟩

end Bpe.Regex
