module

public import Bpe.Unicode.Cl100k
public import Bpe.Seed.Roundtrip

/-!
# The r50k_base pre-tokenizer (GPT-2's pattern) over Unicode, as tiktoken 0.14 ships it

The pattern `r50k_pat_str` of `tiktoken_ext/openai_public.py` (tiktoken 0.14; the encodings
`gpt2`, `r50k_base`, `p50k_base`, `p50k_edit`):
`'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s`
as a state machine over code points, with the seven branches tried in priority order:

| pattern alternative          | branch                          |
|------------------------------|---------------------------------|
| `'(?:[sdmt]\|ll\|ve\|re)`    | `R50k.matchContraction`         |
| ` ?\p{L}++`                  | `R50k.matchSpaceRun Unicode.isL`|
| ` ?\p{N}++`                  | `R50k.matchSpaceRun Unicode.isN`|
| ` ?[^\s\p{L}\p{N}]++`        | `R50k.matchSpaceRun CodePoint.isPunct` |
| `\s++$`                      | `Cl100k.matchEndWs`             |
| `\s+(?!\S)`                  | `CodePoint.matchTrailingWs`     |
| `\s`                         | `Cl100k.matchOneWs`             |

Unlike cl100k_base, the contractions are case-sensitive (`'S` is not one). The space before a
run is optional: when the run after it is empty the regex gives the space back, and the run
then fails at the space itself (a space is not a letter, a number or punctuation). The last
three branches are cl100k_base's. Every code point is whitespace, a letter, a number or
punctuation, so some branch always matches (`Bpe.R50k.exists_branch_ne_zero`); the fallback (1)
keeps the length positive by construction.

`encodeR50k` is `encodeWith` with this pre-tokenizer; its roundtrip holds for every string.
-/

@[expose] public section
noncomputable section

namespace Bpe.R50k

/-- `'(?:[sdmt]|ll|ve|re)`: an apostrophe, then `s`, `d`, `m`, `t` or `ll`, `ve`, `re` (case
matters). -/
def matchContraction : List Nat → Nat
  | q :: c :: rest =>
    if q == 39 then
      if c == 115 || c == 100 || c == 109 || c == 116 then 2
      else match rest with
        | d :: _ =>
          if (c == 108 && d == 108) || (c == 118 && d == 101) || (c == 114 && d == 101) then 3
          else 0
        | [] => 0
    else 0
  | _ => 0

/-- ` ?X++` for a class `X` (read as `p`) that does not hold the space: the space and the run
after it if that run is not empty, else the run at the first code point. -/
def matchSpaceRun (p : Nat → Bool) : List Nat → Nat
  | [] => 0
  | c :: cs =>
    if c == 32 then
      let n := CodePoint.runLength p cs
      if n == 0 then 0 else n + 1
    else CodePoint.runLength p (c :: cs)

/-- Length (in code points) of the chunk starting at `rest`: the first branch that matches,
in the pattern's order, or 1. -/
def nextChunkLen (rest : List Nat) : Nat :=
  firstMatch [matchContraction rest, matchSpaceRun Unicode.isL rest,
    matchSpaceRun Unicode.isN rest, matchSpaceRun CodePoint.isPunct rest,
    Cl100k.matchEndWs rest, CodePoint.matchTrailingWs rest, Cl100k.matchOneWs rest]

theorem nextChunkLen_pos (rest : List Nat) : 0 < nextChunkLen rest := firstMatch_pos _

end Bpe.R50k

namespace Bpe

/-- The r50k_base pre-tokenizer (tiktoken 0.14's GPT-2 pattern) on UTF-8 bytes. -/
def preTokenizeR50k (data : Bytes) : List Bytes :=
  CodePoint.preTokenizeWith R50k.nextChunkLen data

/-- **r50k_base partition**: the chunks concatenate back to the input, for every byte
string. -/
theorem flatten_preTokenizeR50k (data : Bytes) : (preTokenizeR50k data).flatten = data :=
  CodePoint.flatten_preTokenizeWith _ R50k.nextChunkLen_pos data

/-- **r50k_base, no empty chunk.** -/
theorem ne_nil_of_mem_preTokenizeR50k (data c : Bytes) (h : c ∈ preTokenizeR50k data) :
    c ≠ [] :=
  CodePoint.ne_nil_of_mem_preTokenizeWith _ R50k.nextChunkLen_pos data c h

/-- r50k_base's encoder (also p50k_base's and gpt2's): the merges over the chunks of
`preTokenizeR50k`. -/
def encodeR50k (merges : Merges) (byteShuffle : UInt8 → UInt8) (text : String) : List Nat :=
  encodeWith preTokenizeR50k merges byteShuffle text

/-- **r50k_base roundtrip, for every string** (a corollary of `bpe_roundtrip`). -/
theorem encodeR50k_roundtrip (merges : Merges) (vocab : Vocab)
    (byteShuffle inverseByteShuffle : UInt8 → UInt8) (hw : WellFormed merges vocab byteShuffle)
    (hinv : ∀ b, inverseByteShuffle (byteShuffle b) = b) (s : String) :
    decode vocab inverseByteShuffle (encodeR50k merges byteShuffle s) = some s :=
  bpe_roundtrip preTokenizeR50k flatten_preTokenizeR50k merges vocab byteShuffle
    inverseByteShuffle hw hinv s

end Bpe
