module

public import Bpe.Unicode.RangeTree
public import Bpe.Unicode.Tables
public import Bpe.Unicode.PreTokenize
public import Bpe.Unicode.Cl100k
public import Bpe.Unicode.O200k
public import Bpe.Unicode.R50k
public import Bpe.Unicode.Llama3
public import Bpe.Unicode.Encoders
public import Bpe.Unicode.CodePoints
public import Bpe.Unicode.Utf8CodePoints
public import Bpe.Unicode.LetterCover

/-!
# Layer 3: the Unicode pre-tokenizers of cl100k_base, o200k_base and r50k_base

The character classes as tiktoken sees them (`Tables`, generated, over `RangeTree`), the
splitting loop over UTF-8 units with its partition theorems for every chunk-length function
(`PreTokenize`), the cl100k_base and o200k_base machines branch by branch (`Cl100k`, `O200k`:
every byte string is cut into nonempty chunks that concatenate back to it), and the two
encoders with their roundtrip for every string (`Encoders`), and the splitting loop over code
points with its bridge from bytes (`CodePoints`; on a string's bytes the decoded code points
are the string's, `Utf8CodePoints`), and `\p{L}` of the tables is covered by the five letter
categories (`LetterCover`). Builds on `Bpe.Seed`.
-/
