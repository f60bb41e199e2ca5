module

public import Bpe.Unicode.Tables

/-!
# Kernel evaluation of the Unicode class lookups

Each `example` is checked by `decide +kernel`: the kernel walks the generated trees of
`Bpe.Unicode.Tables` (no code point is enumerated). The expected answers are tiktoken 0.14's
(its engine matching the class alone against the one character), not this project's tables;
U+0CDC and U+323B0 are letters for the `regex` module's newer tables but not for tiktoken.
-/

open Bpe.Unicode

-- tiktoken: 一 (U+4E00) is \p{L}; U+0CDC, U+323B0 are not
example : isL 0x4E00 = true := by decide +kernel
example : isL 0x0CDC = false := by decide +kernel
example : isL 0x323B0 = false := by decide +kernel
-- tiktoken: A is \p{Lu}, a is not; a is \p{Ll}; ǅ \p{Lt}; ʰ \p{Lm}; א \p{Lo}
example : isLu 0x41 = true := by decide +kernel
example : isLu 0x61 = false := by decide +kernel
example : isLl 0x61 = true := by decide +kernel
example : isLt 0x1C5 = true := by decide +kernel
example : isLm 0x2B0 = true := by decide +kernel
example : isLo 0x5D0 = true := by decide +kernel
-- tiktoken: U+0301 and U+FE0F (variation selector) are \p{M}; U+200D (ZWJ) is not
example : isM 0x301 = true := by decide +kernel
example : isM 0xFE0F = true := by decide +kernel
example : isM 0x200D = false := by decide +kernel
-- tiktoken: ٣ and ① are \p{N}
example : isN 0x663 = true := by decide +kernel
example : isN 0x2460 = true := by decide +kernel
-- tiktoken: U+3000 and U+0085 are \s; U+001C and U+200B are not
example : isWhiteSpace 0x3000 = true := by decide +kernel
example : isWhiteSpace 0x85 = true := by decide +kernel
example : isWhiteSpace 0x1C = false := by decide +kernel
example : isWhiteSpace 0x200B = false := by decide +kernel
-- a wrong expectation is rejected
example : ¬ (isL 0x0CDC = true) := by decide +kernel
