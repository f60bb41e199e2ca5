module

public import Bpe.Regex.Syntax

/-!
# Printing a regex term back in regex syntax

`toRegex` writes a term in the syntax of tiktoken's engine and of Python's `regex`
module, character for character: the patterns of `Bpe.Regex.Patterns` print to the exact
pattern strings of `verified_bpe.patterns` (tested in Python on the mirror,
`tests/test_spec_regex.py`). The printer adds no parentheses: a term carries its groups
(`Re.group`), so a term with a compound body under a quantifier or an alternation inside a
concatenation prints to a different regex unless it has them.
-/

@[expose] public section
noncomputable section

namespace Bpe.Regex

/-- The name of a property inside `\p{…}`. -/
def propertyName : Property → String
  | .letter => "L"
  | .number => "N"
  | .uppercase => "Lu"
  | .lowercase => "Ll"
  | .titlecase => "Lt"
  | .modifier => "Lm"
  | .otherLetter => "Lo"
  | .mark => "M"
  | .whiteSpace => "s"

/-- `\p{X}` (`\s` for White_Space), or `\P{X}` (`\S`) when `negated`. -/
def propertyToRegex (negated : Bool) : Property → String
  | .whiteSpace => if negated then "\\S" else "\\s"
  | p => (if negated then "\\P{" else "\\p{") ++ propertyName p ++ "}"

/-- Whether a code point must be escaped outside a class. -/
def isMeta (c : Nat) : Bool :=
  [92, 46, 94, 36, 124, 63, 42, 43, 40, 41, 91, 93, 123, 125].contains c

/-- Whether a code point must be escaped inside a class: `\ ] [ ^ -`, and `&` and `~`, which
fancy-regex reads doubled as set operators (`&&` intersection, `~~` symmetric difference). -/
def isClassMeta (c : Nat) : Bool := [92, 93, 91, 94, 45, 38, 126].contains c

/-- A literal code point: `\t` `\n` `\r` as escapes, a metacharacter after `\`. -/
def charToRegex (inClass : Bool) (c : Nat) : String :=
  if c == 9 then "\\t"
  else if c == 10 then "\\n"
  else if c == 13 then "\\r"
  else if (if inClass then isClassMeta c else isMeta c) then "\\" ++ String.singleton (Char.ofNat c)
  else String.singleton (Char.ofNat c)

/-- A member of a bracketed class. -/
def itemToRegex : Item → String
  | .char c => charToRegex true c
  | .range lo hi => charToRegex true lo ++ "-" ++ charToRegex true hi
  | .prop p => propertyToRegex false p

/-- The members of a bracketed class, one after the other. -/
def itemsToRegex : List Item → String
  | [] => ""
  | i :: is => itemToRegex i ++ itemsToRegex is

/-- A class: `\p{L}`, `\S`, `[…]`, `[^…]`. -/
def classToRegex : CharClass → String
  | .esc n p => propertyToRegex n p
  | .set n items => (if n then "[^" else "[") ++ itemsToRegex items ++ "]"

/-- `acc` after the decimal digits of `n`, most significant first (`fuel` bounds the number of
digits; `n + 1` is enough). -/
def natDigits : Nat → Nat → String → String
  | 0, _, acc => acc
  | fuel + 1, n, acc =>
    let acc := String.singleton (Char.ofNat (48 + n % 10)) ++ acc
    if n < 10 then acc else natDigits fuel (n / 10) acc

/-- A count in decimal, as `toString n` writes it, by structural recursion so that the kernel
evaluates it (`Bpe.Regex.PatternStrings`; core's `Nat.repr` does not reduce in the kernel
offline). -/
def natToRegex (n : Nat) : String := natDigits (n + 1) n ""

/-- The quantifier of `{lo,hi}`: `?`, `*`, `+`, `{m}`, `{m,}` or `{m,n}`. -/
def quantifier (lo : Nat) : Option Nat → String
  | none => if lo == 0 then "*" else if lo == 1 then "+" else "{" ++ natToRegex lo ++ ",}"
  | some hi =>
    if lo == 0 && hi == 1 then "?"
    else if lo == hi then "{" ++ natToRegex lo ++ "}"
    else "{" ++ natToRegex lo ++ "," ++ natToRegex hi ++ "}"

/-- The term in regex syntax. -/
def toRegex : Re → String
  | .empty => ""
  | .char c => charToRegex false c
  | .cls k => classToRegex k
  | .seq a b => toRegex a ++ toRegex b
  | .alt a b => toRegex a ++ "|" ++ toRegex b
  | .rep r lo hi possessive => toRegex r ++ quantifier lo hi ++ (if possessive then "+" else "")
  | .group r => "(?:" ++ toRegex r ++ ")"
  | .caseless r => "(?i:" ++ toRegex r ++ ")"
  | .notAhead r => "(?!" ++ toRegex r ++ ")"
  | .eos => "$"

end Bpe.Regex
