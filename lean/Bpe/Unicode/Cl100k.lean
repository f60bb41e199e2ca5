module

public import Bpe.Unicode.PreTokenize

/-!
# The cl100k_base pre-tokenizer over Unicode, as tiktoken 0.14 ships it

The pattern of `tiktoken_ext/openai_public.py` (tiktoken 0.14):
`'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s`
as a state machine over code points. At each position the eight branches are tried in
priority order (regex alternation is ordered), each returning the number of code points it
matches (0 = no match); the first non-zero length is the next chunk:

| pattern alternative          | branch                          |
|------------------------------|---------------------------------|
| `'(?i:[sdmt]\|ll\|ve\|re)`   | `CodePoint.matchContraction`    |
| `[^\r\n\p{L}\p{N}]?+\p{L}++` | `Cl100k.matchWord`              |
| `\p{N}{1,3}+`                | `CodePoint.matchDigits`         |
| ` ?[^\s\p{L}\p{N}]++[\r\n]*+`| `Cl100k.matchPunct`             |
| `\s++$`                      | `Cl100k.matchEndWs`             |
| `\s*[\r\n]`                  | `CodePoint.matchNewlineWs`      |
| `\s+(?!\S)`                  | `CodePoint.matchTrailingWs`     |
| `\s`                         | `Cl100k.matchOneWs`             |

Possessive quantifiers change nothing here: no branch could succeed by giving back what they
took (the lead of the word branch is not a letter, a space is not punctuation). The `\s++$`
branch (absent from the pattern the seed mirrors, `Bpe.Seed.PreTokenize`) makes a whitespace run
that reaches the end of the text one chunk. Every code point is whitespace, a letter, a number
or punctuation, so some branch always matches; the fallback (1) keeps the length positive by
construction.
-/

@[expose] public section
noncomputable section

namespace Bpe.Cl100k

/-- `[^\r\n\p{L}\p{N}]?+\p{L}++`. -/
def matchWord : List Nat → Nat
  | [] => 0
  | c :: cs =>
    if Unicode.isL c then CodePoint.runLength Unicode.isL (c :: cs)
    else if CodePoint.isWordLead c then
      let n := CodePoint.runLength Unicode.isL cs
      if n == 0 then 0 else n + 1
    else 0

/-- `[^\s\p{L}\p{N}]++[\r\n]*+`: 0 unless at least one punctuation code point. -/
def punctTail (rest : List Nat) : Nat :=
  let n := CodePoint.runLength CodePoint.isPunct rest
  if n == 0 then 0
  else n + CodePoint.runLength CodePoint.isNewline (CodePoint.dropCodePoints n rest)

/-- ` ?[^\s\p{L}\p{N}]++[\r\n]*+`. -/
def matchPunct : List Nat → Nat
  | [] => 0
  | c :: cs =>
    if c == 32 then
      let n := punctTail cs
      if n == 0 then 0 else n + 1
    else punctTail (c :: cs)

/-- `\s++$`: a whitespace run that reaches the end of the text (0 otherwise). -/
def matchEndWs (rest : List Nat) : Nat :=
  let w := CodePoint.runLength Unicode.isWhiteSpace rest
  if CodePoint.reachesEnd w rest then w else 0

/-- `\s`. -/
def matchOneWs : List Nat → Nat
  | [] => 0
  | c :: _ => if Unicode.isWhiteSpace c then 1 else 0

/-- Length (in code points) of the chunk starting at `rest`: the first branch that matches,
in the pattern's order, or 1. -/
def nextChunkLen (rest : List Nat) : Nat :=
  firstMatch [CodePoint.matchContraction rest, matchWord rest, CodePoint.matchDigits rest,
    matchPunct rest, matchEndWs rest, CodePoint.matchNewlineWs rest,
    CodePoint.matchTrailingWs rest, matchOneWs rest]

theorem nextChunkLen_pos (rest : List Nat) : 0 < nextChunkLen rest := firstMatch_pos _

end Bpe.Cl100k

namespace Bpe

/-- The cl100k_base pre-tokenizer (tiktoken 0.14's pattern) on UTF-8 bytes. -/
def preTokenizeCl100k (data : Bytes) : List Bytes :=
  CodePoint.preTokenizeWith Cl100k.nextChunkLen data

/-- **cl100k_base partition**: the chunks concatenate back to the input, for every byte
string. -/
theorem flatten_preTokenizeCl100k (data : Bytes) : (preTokenizeCl100k data).flatten = data :=
  CodePoint.flatten_preTokenizeWith _ Cl100k.nextChunkLen_pos data

/-- **cl100k_base, no empty chunk.** -/
theorem ne_nil_of_mem_preTokenizeCl100k (data c : Bytes) (h : c ∈ preTokenizeCl100k data) :
    c ≠ [] :=
  CodePoint.ne_nil_of_mem_preTokenizeWith _ Cl100k.nextChunkLen_pos data c h

end Bpe
