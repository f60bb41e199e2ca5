module

public import Bpe.Unicode.Cl100k
public import Bpe.Seed.Roundtrip

/-!
# The Llama 3 pre-tokenizers over Unicode (llama.cpp's `llama-bpe`, Meta's `tokenizer.model`)

The pattern llama.cpp uses for Llama 3 (`LLAMA3_PATTERN` of `verified_bpe.engine.patterns`):
`(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
as a state machine over code points, with the seven branches tried in priority order:

| pattern alternative                    | branch                        |
|----------------------------------------|-------------------------------|
| `(?:'[sS]\|'[tT]\|…\|'[dD])`           | `Llama3.matchContraction`     |
| `[^\r\n\p{L}\p{N}]?\p{L}+`             | `Cl100k.matchWord`            |
| `\p{N}{1,3}`                           | `CodePoint.matchDigits`       |
| ` ?[^\s\p{L}\p{N}]+[\r\n]*`            | `Cl100k.matchPunct`           |
| `\s*[\r\n]+`                           | `CodePoint.matchNewlineWs`    |
| `\s+(?!\S)`                            | `CodePoint.matchTrailingWs`   |
| `\s+`                                  | `CodePoint.matchWs`           |

The contractions are ASCII case pairs (`'[sS]`), not cl100k_base's `(?i:…)`: `'ſ` (U+017F) is
not one. The greedy quantifiers of the word and punctuation branches end where cl100k_base's
possessive ones do (the lead of a word is not a letter, a space is not punctuation, and
`[\r\n]*` always matches), so those branches are cl100k_base's; `\s*[\r\n]+` and `\s+` are
o200k_base's. Every code point is whitespace, a letter, a number or punctuation, so some branch
always matches (`Bpe.Llama3.exists_branch_ne_zero`); the fallback (1) keeps the length positive
by construction.

`encodeLlama3` is `encodeWith` with this pre-tokenizer; its roundtrip holds for every string.

Meta's own pattern (the `pat_str` of `llama/tokenizer.py` in meta-llama/llama3, used with the
`.tiktoken` rank file `tokenizer.model`) differs only in the first branch:
`(?i:'s|'t|'re|'ve|'m|'ll|'d)`, case-insensitive, so `'ſ` (U+017F, folding to `s`) is a
contraction there. `Llama3.nextChunkLenWith` takes the contraction branch as a parameter;
`nextChunkLen` (llama.cpp) passes `Llama3.matchContraction`, `nextChunkLenMeta` (Meta) passes
o200k_base's `CodePoint.matchContraction`; `preTokenizeLlama3Meta` runs the latter.
-/

@[expose] public section
noncomputable section

namespace Bpe.Llama3

/-- The code point after the contraction's letter is `a` or `b` (false at the end). -/
def headIs (a b : Nat) : List Nat → Bool
  | d :: _ => d == a || d == b
  | [] => false

/-- `(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])`, alternative by alternative. -/
def matchContraction : List Nat → Nat
  | q :: c :: rest =>
    if q == 39 then
      if c == 115 || c == 83 then 2
      else if c == 116 || c == 84 then 2
      else if (c == 114 || c == 82) && headIs 101 69 rest then 3
      else if (c == 118 || c == 86) && headIs 101 69 rest then 3
      else if c == 109 || c == 77 then 2
      else if (c == 108 || c == 76) && headIs 108 76 rest then 3
      else if c == 100 || c == 68 then 2
      else 0
    else 0
  | _ => 0

/-- The machine of a Llama 3 pattern whose first branch (the contractions) is `contraction`:
the length (in code points) of the chunk starting at `rest`, the first branch that matches, in
the pattern's order, or 1. -/
def nextChunkLenWith (contraction : List Nat → Nat) (rest : List Nat) : Nat :=
  firstMatch [contraction rest, Cl100k.matchWord rest, CodePoint.matchDigits rest,
    Cl100k.matchPunct rest, CodePoint.matchNewlineWs rest, CodePoint.matchTrailingWs rest,
    CodePoint.matchWs rest]

theorem nextChunkLenWith_pos (contraction : List Nat → Nat) (rest : List Nat) :
    0 < nextChunkLenWith contraction rest := firstMatch_pos _

/-- llama.cpp's machine: the contractions as ASCII case pairs. -/
def nextChunkLen (rest : List Nat) : Nat := nextChunkLenWith matchContraction rest

theorem nextChunkLen_pos (rest : List Nat) : 0 < nextChunkLen rest := nextChunkLenWith_pos _ _

/-- Meta's machine (`tokenizer.model` with the `pat_str` of Meta's `tokenizer.py`): the
contractions `(?i:'s|'t|'re|'ve|'m|'ll|'d)` case-insensitive, o200k_base's
`CodePoint.matchContraction` (`'ſ`, U+017F, is one). -/
def nextChunkLenMeta (rest : List Nat) : Nat := nextChunkLenWith CodePoint.matchContraction rest

theorem nextChunkLenMeta_pos (rest : List Nat) : 0 < nextChunkLenMeta rest :=
  nextChunkLenWith_pos _ _

end Bpe.Llama3

namespace Bpe

/-- The Llama 3 pre-tokenizer (llama.cpp's `llama-bpe` pattern) on UTF-8 bytes. -/
def preTokenizeLlama3 (data : Bytes) : List Bytes :=
  CodePoint.preTokenizeWith Llama3.nextChunkLen data

/-- **Llama 3 partition**: the chunks concatenate back to the input, for every byte string. -/
theorem flatten_preTokenizeLlama3 (data : Bytes) : (preTokenizeLlama3 data).flatten = data :=
  CodePoint.flatten_preTokenizeWith _ Llama3.nextChunkLen_pos data

/-- **Llama 3, no empty chunk.** -/
theorem ne_nil_of_mem_preTokenizeLlama3 (data c : Bytes) (h : c ∈ preTokenizeLlama3 data) :
    c ≠ [] :=
  CodePoint.ne_nil_of_mem_preTokenizeWith _ Llama3.nextChunkLen_pos data c h

/-- Llama 3's encoder with the seed's merge loop: the merges over the chunks of
`preTokenizeLlama3`. -/
def encodeLlama3 (merges : Merges) (byteShuffle : UInt8 → UInt8) (text : String) : List Nat :=
  encodeWith preTokenizeLlama3 merges byteShuffle text

/-- **Llama 3 roundtrip, for every string** (a corollary of `bpe_roundtrip`). -/
theorem encodeLlama3_roundtrip (merges : Merges) (vocab : Vocab)
    (byteShuffle inverseByteShuffle : UInt8 → UInt8) (hw : WellFormed merges vocab byteShuffle)
    (hinv : ∀ b, inverseByteShuffle (byteShuffle b) = b) (s : String) :
    decode vocab inverseByteShuffle (encodeLlama3 merges byteShuffle s) = some s :=
  bpe_roundtrip preTokenizeLlama3 flatten_preTokenizeLlama3 merges vocab byteShuffle
    inverseByteShuffle hw hinv s

/-- The Llama 3 pre-tokenizer with Meta's pattern (`tokenizer.model`) on UTF-8 bytes. -/
def preTokenizeLlama3Meta (data : Bytes) : List Bytes :=
  CodePoint.preTokenizeWith Llama3.nextChunkLenMeta data

/-- **Meta's Llama 3 partition**: the chunks concatenate back to the input. -/
theorem flatten_preTokenizeLlama3Meta (data : Bytes) :
    (preTokenizeLlama3Meta data).flatten = data :=
  CodePoint.flatten_preTokenizeWith _ Llama3.nextChunkLenMeta_pos data

end Bpe
