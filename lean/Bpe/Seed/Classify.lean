module

/-!
# Character classifiers (seed part 1)

Byte-level predicates used by the ASCII pre-tokenizer: `isAscii`, `isLetter`, `isDigit`,
`isSpace`, `isNewline`, `isPunct`, `toLower`. They are Boolean functions on `UInt8`
(the seed's bytes), so the kernel can evaluate them with `decide`.

Erratum (see `shared/SEED_NOTES.md` and README): the seed defines `isPunct` with an extra
`b ≥ 32`, which sends the control bytes 0-8 and 14-31 to the 1-byte fallback, whereas the
cl100k_base regex treats them as punctuation (`[^\s\p{L}\p{N}]`). `isPunct` follows the
regex; the seed's version is kept as `isPunctSeed` so the difference can be shown.
-/

@[expose] public section
noncomputable section

namespace Bpe

/-- A byte string: the seed's `ByteArray`, as a list so that proofs are structural. -/
abbrev Bytes := List UInt8

/-- `0 ≤ b ≤ 127`. -/
def isAscii (b : UInt8) : Bool := b.toNat ≤ 127

/-- `A-Z` or `a-z`. -/
def isLetter (b : UInt8) : Bool :=
  (65 ≤ b.toNat && b.toNat ≤ 90) || (97 ≤ b.toNat && b.toNat ≤ 122)

/-- `0-9`. -/
def isDigit (b : UInt8) : Bool := 48 ≤ b.toNat && b.toNat ≤ 57

/-- `\t \n \v \f \r` and space: ASCII `\s` of the regex engines (not `\x1c`-`\x1f`). -/
def isSpace (b : UInt8) : Bool :=
  b.toNat == 9 || b.toNat == 10 || b.toNat == 11 || b.toNat == 12 || b.toNat == 13 ||
    b.toNat == 32

/-- `\r` or `\n`. -/
def isNewline (b : UInt8) : Bool := b.toNat == 10 || b.toNat == 13

/-- ASCII, not a letter, digit or space: `[^\s\p{L}\p{N}]` on ASCII (erratum applied). -/
def isPunct (b : UInt8) : Bool := isAscii b && !isLetter b && !isDigit b && !isSpace b

/-- The seed's `is_punct`, with its extra `b ≥ 32` (kept to document the erratum). -/
def isPunctSeed (b : UInt8) : Bool := isPunct b && 32 ≤ b.toNat

/-- ASCII lower-casing. -/
def toLower (b : UInt8) : UInt8 := if 65 ≤ b.toNat && b.toNat ≤ 90 then b + 32 else b

end Bpe
