module

public import Bpe.Regex.Patterns
public import Bpe.Regex.Print

/-!
# The pattern terms print to tiktoken's pattern strings (issue 33, item 2)

Kernel evaluation (`decide`) of `toRegex` on `cl100kPattern` and `o200kPattern` gives, byte for
byte, the pattern strings of tiktoken 0.14 (`tiktoken_ext.openai_public`: `cl100k_base()` and
`o200k_base()`'s `pat_str`). The literals below are those strings as Lean string literals (each
`\\` is one backslash; a `\` at the end of a line continues the literal on the next line, its
leading spaces dropped, no continued line starts with a space);
`tests/test_regex_pattern_strings.py` reads them from this file and compares them with
tiktoken's own. So that the terms the proofs are about are tiktoken's patterns no longer rests
on reading the terms.
-/

@[expose] public section

set_option maxRecDepth 100000

namespace Bpe.Regex

/-- tiktoken 0.14's `cl100k_base` pattern string. -/
def cl100kPatternString : String :=
  "'(?i:[sdmt]|ll|ve|re)|[^\\r\\n\\p{L}\\p{N}]?+\\p{L}++|\\p{N}{1,3}+\
    | ?[^\\s\\p{L}\\p{N}]++[\\r\\n]*+|\\s++$|\\s*[\\r\\n]|\\s+(?!\\S)|\\s"

/-- tiktoken 0.14's `o200k_base` pattern string. -/
def o200kPatternString : String :=
  "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+\
    (?i:'s|'t|'re|'ve|'m|'ll|'d)?\
    |[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*\
    (?i:'s|'t|'re|'ve|'m|'ll|'d)?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+\
    |\\s+(?!\\S)|\\s+"

/-- **`cl100kPattern` prints to tiktoken's `cl100k_base` pattern string** (kernel evaluation). -/
theorem toRegex_cl100kPattern : toRegex cl100kPattern = cl100kPatternString := by
  decide +kernel

/-- **`o200kPattern` prints to tiktoken's `o200k_base` pattern string** (kernel evaluation). -/
theorem toRegex_o200kPattern : toRegex o200kPattern = o200kPatternString := by
  decide +kernel

end Bpe.Regex
