module

public import Bpe.Regex.Ascii
public import Bpe.Unicode.Tables

/-!
# The Unicode instance of the character classes

`unicodeClasses`: the properties of the patterns read through the tables that the Unicode
machines use (`Bpe.Unicode.Tables`, generated from tiktoken 0.14 and pinned to its regex engine):
`\p{L}` is `Unicode.isL`, `\p{N}` is `Unicode.isN`, `\s` is `Unicode.isWhiteSpace`, and so on for
`\p{Lu}`, `\p{Ll}`, `\p{Lt}`, `\p{Lm}`, `\p{Lo}`, `\p{M}`.

Case orbits are those of the ASCII instance (`asciiOrbit`: `A-Z` ↔ `a-z`, U+017F ↔ `s` `S`,
U+212A ↔ `k` `K`). Every `(?i:…)` of the patterns of `Bpe.Regex.Patterns` holds only ASCII
letters, and these orbits are exact for ASCII letters under Unicode simple case folding, so they
are the engine's for every pattern here; a pattern with a non-ASCII letter inside `(?i:…)` would
need the full case-folding table.
-/

@[expose] public section
noncomputable section

namespace Bpe.Regex

/-- The properties, read through the Unicode tables. -/
def unicodeHas : Property → Nat → Bool
  | .letter => Unicode.isL
  | .number => Unicode.isN
  | .uppercase => Unicode.isLu
  | .lowercase => Unicode.isLl
  | .titlecase => Unicode.isLt
  | .modifier => Unicode.isLm
  | .otherLetter => Unicode.isLo
  | .mark => Unicode.isM
  | .whiteSpace => Unicode.isWhiteSpace

/-- The Unicode instance. -/
def unicodeClasses : Classes := ⟨unicodeHas, asciiOrbit⟩

end Bpe.Regex
