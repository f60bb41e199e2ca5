module

public import Bpe.Exec.Code
public import Bpe.Exec.Table
public import Bpe.Exec.Encode
public import Bpe.Exec.PreTokenizeCode
public import Bpe.Exec.PreTokenize
public import Bpe.Exec.Ranks
public import Bpe.Exec.RanksLookup
public import Bpe.Exec.RanksRecover
public import Bpe.Exec.RanksSort
public import Bpe.Exec.RanksTables
public import Bpe.Exec.RanksCheck
public import Bpe.Exec.RanksEncode
public import Bpe.Exec.RanksTexts
public import Bpe.Exec.RanksTextsEncode
public import Bpe.Exec.Readers
public import Bpe.Exec.Base64
public import Bpe.Exec.ReadNat
public import Bpe.Exec.RanksRender
public import Bpe.Exec.RanksRenderFile
public import Bpe.Exec.RanksParseLine
public import Bpe.Exec.RanksParseFile
public import Bpe.Exec.FindIterCode
public import Bpe.Exec.FindIter

/-!
# Layer 4: the executable code and its equality proofs

Code written for Lean's compiler (`Code`, `PreTokenizeCode`, `Ranks`, `RanksTexts`,
`FindIterCode`: own recursion, `Array`/`ByteArray` primitives, no core helpers that the offline
build lacks), each with a proof that it returns what the specification returns: the encoder
(`Table`, `Encode`), the pre-tokenization loop (`PreTokenize`), the chain from a parsed
`.tiktoken` rank file to the ids (`RanksLookup`, `RanksRecover`, `RanksSort`, `RanksTables`,
`RanksCheck`, `RanksEncode`, `RanksTextsEncode`), the readers' refusal of out-of-range values
(`Readers`), the rank-file parser's correctness (base64, `Base64`; whole numbers, `ReadNat`;
parsing a rendered table gives the table, `RanksRender`; the rendering is the published files'
format, `RanksRenderFile`; a line the parser accepts is canonical, `RanksParseLine`, and so is a
whole file up to empty lines, leading zeros in a rank and a missing final newline,
`RanksParseFile`), and the regex matcher with `find_iter` (`FindIter`: `findIterX` is
`Bpe.Regex.findIter unicodeClasses`).
Builds on the three layers above.
-/
