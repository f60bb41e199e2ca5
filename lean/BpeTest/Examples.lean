module

public import Bpe

/-!
# Sanity checks by kernel evaluation

Each `example` is checked by `decide +kernel`: the kernel runs the specification on a
concrete input (no compiled code is trusted). The expected pre-tokenizer chunks were produced
by Python's `regex` module with the cl100k_base pattern of the seed
(`regex.findall(CL100K_PATTERN_ORIGINAL, text)`), not by this project's code; the other
facts are stated by hand from their definitions (UTF-8 of ASCII and of `é`, a merge, a table
that fails the checker). The last examples show that a wrong expectation is rejected.
-/

set_option maxRecDepth 100000

open Bpe

-- regex: ['Hello', ' world', "'s", ' ', '123', '4', '!!\n']
example : preTokenizeAscii (stringBytes "Hello world's 1234!!\n") =
    ["Hello", " world", "'s", " ", "123", "4", "!!\n"].map stringBytes := by decide +kernel

-- regex: ['I', "'ll", '  ', ' go', '\t\n\n', ' ', ' x', '  ']
example : preTokenizeAscii (stringBytes "I'll   go\t\n\n  x  ") =
    ["I", "'ll", "  ", " go", "\t\n\n", " ", " x", "  "].map stringBytes := by decide +kernel

-- regex: ['a', ' \x01\x01,', 'b']  (control bytes are punctuation: the seed's erratum)
example : preTokenizeAscii (stringBytes "a \x01\x01,b") =
    ["a", " \x01\x01,", "b"].map stringBytes := by decide +kernel

-- regex: ['We', "'ve", ' ', '123', '45', ' ok', '?!\r\n', '  ']
example : preTokenizeAscii (stringBytes "We've 12345 ok?!\r\n  ") =
    ["We", "'ve", " ", "123", "45", " ok", "?!\r\n", "  "].map stringBytes := by decide +kernel

-- UTF-8: ASCII is one byte per character; `é` (U+00E9) is 0xC3 0xA9.
example : stringBytes "Hi" = [72, 105] := by decide +kernel
example : stringBytes "é" = [0xC3, 0xA9] := by decide +kernel

-- One merge, and the merge loop on a two-merge table: "aaab" ↦ [256, 97, 98] ↦ ... ↦ [257].
example : merge [97, 97, 97, 98] (97, 97) 256 = [256, 97, 98] := by decide +kernel
example : encodeChunk [((97, 97), 256), ((256, 97), 257), ((257, 98), 258)] id [97, 97, 97, 98] =
    [258] := by decide +kernel

-- Decoding the merged ids gives the bytes back, and an unknown id gives `none`.
example : decodeBytes (buildVocab [((97, 97), 256), ((256, 97), 257)]) [257, 98] =
    some [97, 97, 97, 98] := by decide +kernel
example : decodeBytes baseVocab [256] = none := by decide +kernel

-- The checker rejects the README's non-injective table.
example : checkInjective
    (buildVocab [((97, 98), 256), ((256, 99), 257), ((98, 99), 258), ((97, 258), 259)]) =
    false := by decide +kernel

-- A wrong expectation is rejected (the checks can fail).
example : preTokenizeAscii (stringBytes "Hello world") ≠ [stringBytes "Hello world"] := by
  decide +kernel
example : stringBytes "é" ≠ [0xE9] := by decide +kernel
