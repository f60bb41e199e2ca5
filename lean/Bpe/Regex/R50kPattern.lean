module

public import Bpe.Regex.Patterns

/-!
# The pattern of r50k_base, p50k_base and gpt2 as tiktoken 0.14 ships it

`r50k_pat_str` of `tiktoken_ext/openai_public.py` (tiktoken 0.14, shared by the encodings
`gpt2`, `r50k_base`, `p50k_base` and `p50k_edit`) is GPT-2's original pattern
(`Bpe.Regex.gpt2Pattern`) rewritten with possessive quantifiers, a non-capturing contraction
group and an end-of-text whitespace branch:
`'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s`.
It is `verified_bpe.patterns.R50K_PATTERN`; `r50kPattern` prints to that string (the Python
mirror's test checks it).
-/

@[expose] public section
noncomputable section

namespace Bpe.Regex

/-- `'(?:[sdmt]|ll|ve|re)`: GPT-2's contractions, case-sensitive. -/
def contractionsR50k : Re :=
  .seq (ch '\'') (.group (alts (.cls (.set false [it 's', it 'd', it 'm', it 't']))
    [.seq (ch 'l') (ch 'l'), .seq (ch 'v') (ch 'e'), .seq (ch 'r') (ch 'e')]))

/-- ` ?r++`: an optional space, then a possessive run of `r`. -/
def spaceRun (r : Re) : Re := .seq (opt (ch ' ')) (plusPoss r)

/-- r50k_base, p50k_base and gpt2 (tiktoken 0.14):
`'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s`. -/
def r50kPattern : Re :=
  alts contractionsR50k
    [spaceRun pL, spaceRun pN, spaceRun punct, .seq (plusPoss ws) .eos, trailingWs, ws]

end Bpe.Regex
