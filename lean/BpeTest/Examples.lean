module

public import Bpe

/-!
# Sanity checks by kernel evaluation

Each `example` is checked by `decide`: the kernel runs the specification on a concrete input.
The expected chunks were produced by Python's `regex` module with the official cl100k_base
pattern (`regex.findall(CL100K_PATTERN, text)`), not by this project's code.
-/

set_option maxRecDepth 100000

open Bpe

-- regex: ['Hello', ' world', "'s", ' ', '123', '4', '!!\n']
example : preTokenizeAscii (stringBytes "Hello world's 1234!!\n") =
    ["Hello", " world", "'s", " ", "123", "4", "!!\n"].map stringBytes := by decide

-- regex: ['I', "'ll", '  ', ' go', '\t\n\n', ' ', ' x', '  ']
example : preTokenizeAscii (stringBytes "I'll   go\t\n\n  x  ") =
    ["I", "'ll", "  ", " go", "\t\n\n", " ", " x", "  "].map stringBytes := by decide

-- regex: ['a', ' \x01\x01,', 'b']  (control bytes are punctuation: the seed's erratum)
example : preTokenizeAscii (stringBytes "a \x01\x01,b") =
    ["a", " \x01\x01,", "b"].map stringBytes := by decide

-- regex: ['We', "'ve", ' ', '123', '45', ' ok', '?!\r\n', '  ']
example : preTokenizeAscii (stringBytes "We've 12345 ok?!\r\n  ") =
    ["We", "'ve", " ", "123", "45", " ok", "?!\r\n", "  "].map stringBytes := by decide

-- A wrong expectation is rejected (the checks can fail).
example : preTokenizeAscii (stringBytes "Hello world") ≠ [stringBytes "Hello world"] := by
  decide
