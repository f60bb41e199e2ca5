module

public import Bpe.Unicode.PreTokenize

/-!
# The o200k_base pre-tokenizer over Unicode

With `U = [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`, `W = [\p{Ll}\p{Lm}\p{Lo}\p{M}]` and the
contraction suffix `C = (?i:'s|'t|'re|'ve|'m|'ll|'d)`, the pattern of
`tiktoken_ext/openai_public.py` is the alternation below, here a state machine over code points
(each branch returns the number of code points it matches, 0 = no match; the first non-zero
length is the next chunk):

| pattern alternative               | branch                          |
|-----------------------------------|---------------------------------|
| `[^\r\n\p{L}\p{N}]?U*W+C?`        | `O200k.matchWordCased`          |
| `[^\r\n\p{L}\p{N}]?U+W*C?`        | `O200k.matchWordUpper`          |
| `\p{N}{1,3}`                      | `CodePoint.matchDigits`         |
| ` ?[^\s\p{L}\p{N}]+[\r\n/]*`      | `O200k.matchPunct`              |
| `\s*[\r\n]+`                      | `CodePoint.matchNewlineWs`      |
| `\s+(?!\S)`                       | `CodePoint.matchTrailingWs`     |
| `\s+`                             | `CodePoint.matchWs`             |

The letter classes are case-sensitive, the quantifiers are not possessive and the classes
overlap (marks are word leads and in both `U` and `W`; `Lm`, `Lo` are in both), so the word
branches compute the first match in the regex engine's backtracking order: `U*W+`
(`casedCore`) continues after the greedy `U` run with a `W` run, or backs off to just after
the last `W` code point inside the `U` run; `U+W*` (`upperCore`) is the `U` run then the `W`
run; the optional lead (`withLead`) is tried first and dropped if the rest fails; `C?`
(`withContraction`) is taken when it matches after the word. `\s*[\r\n]+` has the length of
`\s*[\r\n]` (`\s*` backs off to the last newline of the run).
-/

@[expose] public section
noncomputable section

namespace Bpe.O200k

/-- `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`. -/
def isUpperClass (c : Nat) : Bool :=
  Unicode.isLu c || Unicode.isLt c || Unicode.isLm c || Unicode.isLo c || Unicode.isM c

/-- `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`. -/
def isLowerClass (c : Nat) : Bool :=
  Unicode.isLl c || Unicode.isLm c || Unicode.isLo c || Unicode.isM c

/-- One past the last `W` code point among the first `n`, or 0 if there is none. -/
def lastLowerEnd : Nat → List Nat → Nat
  | 0, _ => 0
  | _, [] => 0
  | n + 1, c :: cs =>
    let r := lastLowerEnd n cs
    if r != 0 then r + 1 else if isLowerClass c then 1 else 0

/-- `U*W+`: the length of its first match in backtracking order, 0 if none. -/
def casedCore (rest : List Nat) : Nat :=
  let u := CodePoint.runLength isUpperClass rest
  let w := CodePoint.runLength isLowerClass (CodePoint.dropCodePoints u rest)
  if w != 0 then u + w else lastLowerEnd u rest

/-- `U+W*`: the `U` run (at least one) then the `W` run, 0 if no `U`. -/
def upperCore (rest : List Nat) : Nat :=
  let u := CodePoint.runLength isUpperClass rest
  if u == 0 then 0 else u + CodePoint.runLength isLowerClass (CodePoint.dropCodePoints u rest)

/-- `[^\r\n\p{L}\p{N}]?` before `core`: with the lead if that matches, else without. -/
def withLead (core : List Nat → Nat) : List Nat → Nat
  | [] => core []
  | c :: cs =>
    if CodePoint.isWordLead c then
      let n := core cs
      if n != 0 then n + 1 else core (c :: cs)
    else core (c :: cs)

/-- A word of length `n` followed by `C?`; 0 stays 0. -/
def withContraction (n : Nat) (rest : List Nat) : Nat :=
  if n == 0 then 0 else n + CodePoint.matchContraction (CodePoint.dropCodePoints n rest)

/-- `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+C?`. -/
def matchWordCased (rest : List Nat) : Nat := withContraction (withLead casedCore rest) rest

/-- `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*C?`. -/
def matchWordUpper (rest : List Nat) : Nat := withContraction (withLead upperCore rest) rest

/-- `[\r\n/]`. -/
def isPunctTail (c : Nat) : Bool := c == 10 || c == 13 || c == 47

/-- ` ?[^\s\p{L}\p{N}]+[\r\n/]*`: giving back the space cannot help (it is not
punctuation), nor can shortening the punctuation run (`[\r\n/]*` always matches). -/
def matchPunct (rest : List Nat) : Nat :=
  let lead := match rest with
    | 32 :: _ => 1
    | _ => 0
  let n := CodePoint.runLength CodePoint.isPunct (CodePoint.dropCodePoints lead rest)
  if n == 0 then 0
  else lead + n + CodePoint.runLength isPunctTail (CodePoint.dropCodePoints (lead + n) rest)

/-- Length (in code points) of the chunk starting at `rest`: the first branch that matches,
in the pattern's order, or 1. -/
def nextChunkLen (rest : List Nat) : Nat :=
  firstMatch [matchWordCased rest, matchWordUpper rest, CodePoint.matchDigits rest,
    matchPunct rest, CodePoint.matchNewlineWs rest, CodePoint.matchTrailingWs rest,
    CodePoint.matchWs rest]

theorem nextChunkLen_pos (rest : List Nat) : 0 < nextChunkLen rest := firstMatch_pos _

end Bpe.O200k

namespace Bpe

/-- The o200k_base pre-tokenizer on UTF-8 bytes. -/
def preTokenizeO200k (data : Bytes) : List Bytes :=
  CodePoint.preTokenizeWith O200k.nextChunkLen data

/-- **o200k_base partition**: the chunks concatenate back to the input, for every byte
string. -/
theorem flatten_preTokenizeO200k (data : Bytes) : (preTokenizeO200k data).flatten = data :=
  CodePoint.flatten_preTokenizeWith _ O200k.nextChunkLen_pos data

/-- **o200k_base, no empty chunk.** -/
theorem ne_nil_of_mem_preTokenizeO200k (data c : Bytes) (h : c ∈ preTokenizeO200k data) :
    c ≠ [] :=
  CodePoint.ne_nil_of_mem_preTokenizeWith _ O200k.nextChunkLen_pos data c h

end Bpe
