module

public import Bpe.Regex.Syntax

/-!
# The pre-tokenization patterns as regex terms

The seed's pattern (cl100k_base as first published, the one the seed's ASCII machine
follows), GPT-2's, cl100k_base's and o200k_base's (tiktoken 0.14) and Llama-3's, as terms of
`Bpe.Regex.Syntax`. Each prints (`Bpe.Regex.Print`) to the exact string of
`verified_bpe.patterns` (`CL100K_PATTERN_ORIGINAL`, `GPT2_PATTERN`, `CL100K_PATTERN`,
`O200K_PATTERN`, `LLAMA3_PATTERN`); the Python mirror's test checks it.
-/

@[expose] public section
noncomputable section

namespace Bpe.Regex

/-- A literal character. -/
def ch (c : Char) : Re := .char c.toNat

/-- A class member: one character. -/
def it (c : Char) : Item := .char c.toNat

/-- `r?`, `r*`, `r+`, `r{lo,hi}` (greedy) and their possessive forms. -/
def opt (r : Re) : Re := .rep r 0 (some 1) false
def many (r : Re) : Re := .rep r 0 none false
def plus (r : Re) : Re := .rep r 1 none false
def optPoss (r : Re) : Re := .rep r 0 (some 1) true
def manyPoss (r : Re) : Re := .rep r 0 none true
def plusPoss (r : Re) : Re := .rep r 1 none true

/-- `\p{L}`, `\p{N}`, `\s`, `\S`. -/
def pL : Re := .cls (.esc false .letter)
def pN : Re := .cls (.esc false .number)
def ws : Re := .cls (.esc false .whiteSpace)
def notWs : Re := .cls (.esc true .whiteSpace)

/-- `[^\r\n\p{L}\p{N}]`: the optional lead of a word. -/
def wordLead : Re := .cls (.set true [it '\r', it '\n', .prop .letter, .prop .number])

/-- `[^\s\p{L}\p{N}]`: punctuation. -/
def punct : Re := .cls (.set true [.prop .whiteSpace, .prop .letter, .prop .number])

/-- `[\r\n]`. -/
def newline : Re := .cls (.set false [it '\r', it '\n'])

/-- `\p{N}{1,3}`. -/
def digits3 : Re := .rep pN 1 (some 3) false

/-- `'(?i:[sdmt]|ll|ve|re)`: the contractions of cl100k_base. -/
def contractionsCl100k : Re :=
  .seq (ch '\'') (.caseless (alts (.cls (.set false [it 's', it 'd', it 'm', it 't']))
    [.seq (ch 'l') (ch 'l'), .seq (ch 'v') (ch 'e'), .seq (ch 'r') (ch 'e')]))

/-- `'s|'t|'re|'ve|'m|'ll|'d` as alternatives (GPT-2, and o200k_base inside `(?i:…)`). -/
def contractionList : List Re :=
  [.seq (ch '\'') (ch 's'), .seq (ch '\'') (ch 't'), seqs (ch '\'') [ch 'r', ch 'e'],
    seqs (ch '\'') [ch 'v', ch 'e'], .seq (ch '\'') (ch 'm'), seqs (ch '\'') [ch 'l', ch 'l'],
    .seq (ch '\'') (ch 'd')]

/-- `\s*[\r\n]`, `\s+(?!\S)`, `\s+`. -/
def newlineWs : Re := .seq (many ws) newline
def trailingWs : Re := .seq (plus ws) (.notAhead notWs)
def otherWs : Re := plus ws

/-- The seed's pattern (cl100k_base as first published):
`'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+`. -/
def seedPattern : Re :=
  alts contractionsCl100k
    [.seq (optPoss wordLead) (plus pL), digits3, seqs (opt (ch ' ')) [plusPoss punct, many newline],
      newlineWs, trailingWs, otherWs]

/-- GPT-2:
`'s|'t|'re|'ve|'m|'ll|'d| ?[\p{L}]+| ?[\p{N}]+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`. -/
def gpt2Pattern : Re :=
  alts (.seq (ch '\'') (ch 's'))
    (contractionList.drop 1 ++
      [.seq (opt (ch ' ')) (plus (.cls (.set false [.prop .letter]))),
        .seq (opt (ch ' ')) (plus (.cls (.set false [.prop .number]))),
        .seq (opt (ch ' ')) (plus punct), trailingWs, otherWs])

/-- cl100k_base (tiktoken 0.14):
`'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s`. -/
def cl100kPattern : Re :=
  alts contractionsCl100k
    [.seq (optPoss wordLead) (plusPoss pL), .rep pN 1 (some 3) true,
      seqs (opt (ch ' ')) [plusPoss punct, manyPoss newline], .seq (plusPoss ws) .eos, newlineWs,
      trailingWs, ws]

/-- `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]` and `[\p{Ll}\p{Lm}\p{Lo}\p{M}]` (o200k_base). -/
def upperish : Re :=
  .cls (.set false [.prop .uppercase, .prop .titlecase, .prop .modifier, .prop .otherLetter,
    .prop .mark])
def lowerish : Re :=
  .cls (.set false [.prop .lowercase, .prop .modifier, .prop .otherLetter, .prop .mark])

/-- `(?i:'s|'t|'re|'ve|'m|'ll|'d)?` (o200k_base). -/
def contractionsO200k : Re :=
  opt (.caseless (alts (.seq (ch '\'') (ch 's')) (contractionList.drop 1)))

/-- o200k_base (tiktoken 0.14), seven alternatives joined by `|`. -/
def o200kPattern : Re :=
  alts (seqs (opt wordLead) [many upperish, plus lowerish, contractionsO200k])
    [seqs (opt wordLead) [plus upperish, many lowerish, contractionsO200k], digits3,
      seqs (opt (ch ' ')) [plus punct, many (.cls (.set false [it '\r', it '\n', it '/']))],
      .seq (many ws) (plus newline), trailingWs, otherWs]

/-- `'[sS]`-style case pairs of Llama-3's contractions. -/
def pair (c d : Char) : Re := .cls (.set false [it c, it d])

/-- Llama-3 (as used by llama.cpp):
`(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`. -/
def llama3Pattern : Re :=
  alts (.group (alts (.seq (ch '\'') (pair 's' 'S'))
      [.seq (ch '\'') (pair 't' 'T'), seqs (ch '\'') [pair 'r' 'R', pair 'e' 'E'],
        seqs (ch '\'') [pair 'v' 'V', pair 'e' 'E'], .seq (ch '\'') (pair 'm' 'M'),
        seqs (ch '\'') [pair 'l' 'L', pair 'l' 'L'], .seq (ch '\'') (pair 'd' 'D')]))
    [.seq (opt wordLead) (plus pL), digits3, seqs (opt (ch ' ')) [plus punct, many newline],
      .seq (many ws) (plus newline), trailingWs, otherWs]

end Bpe.Regex
