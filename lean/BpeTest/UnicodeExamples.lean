module

public import Bpe.Unicode.Cl100k
public import Bpe.Unicode.O200k
public import Bpe.Seed.Utf8

/-!
# Unicode pre-tokenizers: sanity checks by kernel evaluation

Each `example` is checked by `decide +kernel`: the kernel runs `preTokenizeCl100k` or
`preTokenizeO200k` on the UTF-8 bytes of a text (class lookups are searches in the balanced
range trees of `Bpe.Unicode.Tables`; no code point is enumerated). The expected chunks were
produced by tiktoken's patterns run by Python's `regex` module with every `\p{..}` and `\s`
replaced by the ranges of the pinned tables (the oracle of
`tests/test_spec_pretokenize_unicode.py`, which also re-checks every expectation written here),
not by this project's state machines. They cover CJK, Korean, Arabic, Devanagari, emoji with
ZWJ, skin tones and variation selectors, combining marks, contractions after non-ASCII letters,
o200k's case rules and tiktoken 0.14's `\s++$` branch. The last examples show that a wrong
expectation is rejected.
-/

set_option maxRecDepth 100000

open Bpe

-- cl100k_base, CJK.
-- regex: ['日本語のテキスト', '、中文字符', '。']
example : preTokenizeCl100k (stringBytes "日本語のテキスト、中文字符。") =
    ["日本語のテキスト", "、中文字符", "。"].map stringBytes := by
  decide +kernel

-- o200k_base, CJK.
-- regex: ['日本語のテキスト', '、中文字符', '。']
example : preTokenizeO200k (stringBytes "日本語のテキスト、中文字符。") =
    ["日本語のテキスト", "、中文字符", "。"].map stringBytes := by
  decide +kernel

-- cl100k_base, Korean.
-- regex: ['한국어', ' 문장', ' ', '123']
example : preTokenizeCl100k (stringBytes "한국어 문장 123") =
    ["한국어", " 문장", " ", "123"].map stringBytes := by
  decide +kernel

-- cl100k_base, Arabic (and Arabic-Indic digits).
-- regex: ['مرحبا', ' بالعالم', ' ', '١٢٣', '٤']
example : preTokenizeCl100k (stringBytes "مرحبا بالعالم ١٢٣٤") =
    ["مرحبا", " بالعالم", " ", "١٢٣", "٤"].map stringBytes := by
  decide +kernel

-- o200k_base, Arabic (and Arabic-Indic digits).
-- regex: ['مرحبا', ' بالعالم', ' ', '١٢٣', '٤']
example : preTokenizeO200k (stringBytes "مرحبا بالعالم ١٢٣٤") =
    ["مرحبا", " بالعالم", " ", "١٢٣", "٤"].map stringBytes := by
  decide +kernel

-- cl100k_base, Devanagari: vowel signs and virama are marks, not letters.
-- regex: ['ह', 'िन', '्द', 'ी', ' भ', 'ाष', 'ा']
example : preTokenizeCl100k (stringBytes "हिन्दी भाषा") =
    ["ह", "िन", "्द", "ी", " भ", "ाष", "ा"].map stringBytes := by
  decide +kernel

-- o200k_base, Devanagari: marks are in both letter classes of o200k.
-- regex: ['हिन्दी', ' भाषा']
example : preTokenizeO200k (stringBytes "हिन्दी भाषा") =
    ["हिन्दी", " भाषा"].map stringBytes := by
  decide +kernel

-- cl100k_base, emoji with ZWJ, skin tone, variation selector.
-- regex: ['👨\u200d👩\u200d👧', ' ok', ' 👍🏽❤️!']
example : preTokenizeCl100k (stringBytes "👨\u200D👩\u200D👧 ok 👍🏽❤\uFE0F!") =
    ["👨\u200D👩\u200D👧", " ok", " 👍🏽❤\uFE0F!"].map stringBytes := by
  decide +kernel

-- o200k_base, emoji with ZWJ, skin tone, variation selector.
-- regex: ['👨\u200d👩\u200d👧', ' ok', ' 👍🏽❤️!']
example : preTokenizeO200k (stringBytes "👨\u200D👩\u200D👧 ok 👍🏽❤\uFE0F!") =
    ["👨\u200D👩\u200D👧", " ok", " 👍🏽❤\uFE0F!"].map stringBytes := by
  decide +kernel

-- cl100k_base, combining marks.
-- regex: ['e', '́cole', ' ́', 'x']
example : preTokenizeCl100k (stringBytes "e\u0301cole \u0301x") =
    ["e", "\u0301cole", " \u0301", "x"].map stringBytes := by
  decide +kernel

-- o200k_base, combining marks (a lone mark is a lead, then a word).
-- regex: ['école', ' ́x']
example : preTokenizeO200k (stringBytes "e\u0301cole \u0301x") =
    ["e\u0301cole", " \u0301x"].map stringBytes := by
  decide +kernel

-- cl100k_base, contractions after non-ASCII letters, long s folds to s.
-- regex: ['l', "'été", "'s", ' José', "'LL", ' d', "'ſ"]
example : preTokenizeCl100k (stringBytes "l'été's José'LL d'ſ") =
    ["l", "'été", "'s", " José", "'LL", " d", "'ſ"].map stringBytes := by
  decide +kernel

-- o200k_base, contractions as suffixes of words.
-- regex: ['l', "'été's", " José'LL", " d'ſ"]
example : preTokenizeO200k (stringBytes "l'été's José'LL d'ſ") =
    ["l", "'été's", " José'LL", " d'ſ"].map stringBytes := by
  decide +kernel

-- o200k_base, case rules: a capital starts a new chunk, title case, Greek.
-- regex: ['get', 'HTTPResponse', ' Αθήνα', 'Πόλη', ' ǅemal']
example : preTokenizeO200k (stringBytes "getHTTPResponse ΑθήναΠόλη ǅemal") =
    ["get", "HTTPResponse", " Αθήνα", "Πόλη", " ǅemal"].map stringBytes := by
  decide +kernel

-- cl100k_base, cl100k keeps mixed case together.
-- regex: ['getHTTPResponse', ' ΑθήναΠόλη', ' ǅemal']
example : preTokenizeCl100k (stringBytes "getHTTPResponse ΑθήναΠόλη ǅemal") =
    ["getHTTPResponse", " ΑθήναΠόλη", " ǅemal"].map stringBytes := by
  decide +kernel

-- o200k_base, ÉCOLE's and the [\r\n/]* tail.
-- regex: ["ÉCOLE's", ' !\n/', 'x']
example : preTokenizeO200k (stringBytes "ÉCOLE's !\n/x") =
    ["ÉCOLE's", " !\n/", "x"].map stringBytes := by
  decide +kernel

-- cl100k_base, tiktoken 0.14's \s++$ branch with Unicode spaces.
-- regex: ['语言', '\u3000\n', ' a', '\xa0\n ']
example : preTokenizeCl100k (stringBytes "语言\u3000\n a\u00A0\n ") =
    ["语言", "\u3000\n", " a", "\u00A0\n "].map stringBytes := by
  decide +kernel

-- o200k_base, Unicode spaces at the end.
-- regex: ['语言', '\u3000\n', ' a', '\xa0\n', ' ']
example : preTokenizeO200k (stringBytes "语言\u3000\n a\u00A0\n ") =
    ["语言", "\u3000\n", " a", "\u00A0\n", " "].map stringBytes := by
  decide +kernel

-- A wrong expectation is rejected (cl100k does not split at the case change).
example : preTokenizeCl100k (stringBytes "getHTTPResponse") ≠
    ["get", "HTTPResponse"].map stringBytes := by decide +kernel
example : preTokenizeO200k (stringBytes "हिन्दी") ≠ ["ह", "िन", "्द", "ी"].map stringBytes := by
  decide +kernel
