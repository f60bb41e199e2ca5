module

public import Bpe.Regex

/-!
# The regex semantics evaluated by the kernel

Each `example` is checked by `decide +kernel`: the kernel runs `findIter` on a concrete text
with the ASCII classes. The expected chunks are those of Python's `regex` module with the same
pattern (`regex.findall`), except where the engines differ on purpose (marked: `$` at the end
of the haystack only, and fancy-regex's rule for an empty match right after a match).
-/

set_option maxRecDepth 100000

open Bpe.Regex

/-- The code points of a string. -/
noncomputable def cps (s : String) : List Nat := s.toList.map Char.toNat

-- regex: ['Hello', ' world', "'s", ' ', '123', '4', '!!\n']
example : findIter asciiClasses seedPattern (cps "Hello world's 1234!!\n") =
    ["Hello", " world", "'s", " ", "123", "4", "!!\n"].map cps := by decide +kernel

-- regex: ['I', "'ll", '  ', ' go', '\t\n\n', ' ', ' x', '  ']
example : findIter asciiClasses seedPattern (cps "I'll   go\t\n\n  x  ") =
    ["I", "'ll", "  ", " go", "\t\n\n", " ", " x", "  "].map cps := by decide +kernel

-- cl100k_base's `\s++$` joins a final whitespace run; the seed's pattern does not.
example : findIter asciiClasses cl100kPattern (cps "a\n ") = ["a", "\n "].map cps := by
  decide +kernel
example : findIter asciiClasses seedPattern (cps "a\n ") = ["a", "\n", " "].map cps := by
  decide +kernel

-- (?i:…): `'S` and `'ſ` (U+017F folds to `s`) are contractions; `'x` is a word.
example : findIter asciiClasses seedPattern (cps "'S'ſ'x") = ["'S", "'ſ", "'x"].map cps := by
  decide +kernel

-- o200k_base: case runs
example : findIter asciiClasses o200kPattern (cps "HelloWorld's ABCdef") =
    ["Hello", "World's", " ABCdef"].map cps := by decide +kernel

-- Intended difference: `$` is the end of the haystack (regex: `a$` also matches before "\n").
example : findIter asciiClasses (.seq (ch 'a') .eos) (cps "a\n") = [] := by decide +kernel
example : findIter asciiClasses (.seq (ch 'a') .eos) (cps "ba") = [cps "a"] := by decide +kernel

-- Intended difference: no empty match right after a match (regex: ['', 'aaa', '', '']).
example : findIter asciiClasses (many (ch 'a')) (cps "baaab") = ["", "aaa", ""].map cps := by
  decide +kernel

-- Possessive repetition does not give back: `a*+a` never matches; `a*a` does.
example : findIter asciiClasses (.seq (manyPoss (ch 'a')) (ch 'a')) (cps "aaa") = [] := by
  decide +kernel
example : findIter asciiClasses (.seq (many (ch 'a')) (ch 'a')) (cps "aaa") = [cps "aaa"] := by
  decide +kernel

-- A wrong expectation is rejected.
example : findIter asciiClasses seedPattern (cps "ab") ≠ [cps "a", cps "b"] := by decide +kernel

-- cl100k_base with the Unicode classes (the instance of `Bpe.Regex.preTokenizeCl100k_eq_findIter`).
-- regex: ['Grüße', ',', ' 世界', '!', ' ', '123', '45', '\n\n']
example : findIter unicodeClasses cl100kPattern (cps "Grüße, 世界! 12345\n\n") =
    ["Grüße", ",", " 世界", "!", " ", "123", "45", "\n\n"].map cps := by decide +kernel

-- regex: ['ÉTÉ', "'ſ", ' naïve', '’s', '  ', '\xa0x', '\u3000'] (U+00A0 and U+3000 are `\s`;
-- `’` is not `'`, so `’s` is a word with a punctuation lead)
example : findIter unicodeClasses cl100kPattern (cps "ÉTÉ'ſ naïve’s  \u00a0x\u3000") =
    ["ÉTÉ", "'ſ", " naïve", "’s", "  ", "\u00a0x", "\u3000"].map cps := by decide +kernel

-- The machine agrees, as the theorem says: regex: ['Ω', '≈ç', ' √', ' ', '1', '/', '2', ' ',
-- '½', '\r\n  ']
example : Bpe.CodePoint.preTokenizeCodePoints Bpe.Cl100k.nextChunkLen (cps "Ω≈ç √ 1/2 ½\r\n  ") =
    ["Ω", "≈ç", " √", " ", "1", "/", "2", " ", "½", "\r\n  "].map cps := by decide +kernel
example : findIter unicodeClasses cl100kPattern (cps "Ω≈ç √ 1/2 ½\r\n  ") =
    ["Ω", "≈ç", " √", " ", "1", "/", "2", " ", "½", "\r\n  "].map cps := by decide +kernel

-- o200k_base with the Unicode classes (the instance of `Bpe.Regex.preTokenizeO200k_eq_findIter`).
-- regex: ["HTMLParser's", ' ABCdef'] (`U*W+` backs off from the `U` run `HTMLP` to `HTML`)
example : findIter unicodeClasses o200kPattern (cps "HTMLParser's ABCdef") =
    ["HTMLParser's", " ABCdef"].map cps := by decide +kernel

-- regex: ["ÉTÉ'S", ' a', 'Bc', ' ǅx\u0301'] (`ǅ` is `Lt`: `U` only; U+0301 is `M`: `U` and `W`)
example : findIter unicodeClasses o200kPattern (cps "ÉTÉ'S aBc ǅx\u0301") =
    ["ÉTÉ'S", " a", "Bc", " ǅx\u0301"].map cps := by decide +kernel

-- The machine agrees, as the theorem says: regex: ['123', '4', ' !?/\n\n', ' ', ' x']
example : Bpe.CodePoint.preTokenizeCodePoints Bpe.O200k.nextChunkLen (cps "1234 !?/\n\n  x") =
    ["123", "4", " !?/\n\n", " ", " x"].map cps := by decide +kernel
example : findIter unicodeClasses o200kPattern (cps "1234 !?/\n\n  x") =
    ["123", "4", " !?/\n\n", " ", " x"].map cps := by decide +kernel
