module

public import Bpe.Regex.Llama3

/-!
# Meta's Llama 3 pattern: its machine is `findIter`, and tiktoken's `encode_ordinary` with it

Meta's `tokenizer.model` is a `.tiktoken` rank file; Meta's `llama/tokenizer.py`
(meta-llama/llama3) runs tiktoken with the `pat_str`
`(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`.
It is llama.cpp's `llama3Pattern` with the first alternative case-insensitive:
`llama3MetaPattern` is `contractionsCaseless` (o200k_base's suffix without its `?`) before the
six shared `llama3Branches`, and its machine `Llama3.nextChunkLenMeta` is
`Llama3.nextChunkLenWith` with o200k_base's `CodePoint.matchContraction`. The proof is
Llama 3's (`ReadsTablesO200k.matchAt_llama3With`) with that branch's lemma
(`ReadsTablesO200k.matchRe_contractionsCaseless`).

`toRegex_llama3MetaPattern` (kernel evaluation): the term prints to Meta's string byte for byte;
`tests/test_regex_r50k_llama3.py` reads the literal from this file and compares it with
`verified_bpe.engine.patterns.LLAMA3_META_PATTERN` (checked against Meta's `llama-models` 0.3.0).
-/

@[expose] public section

namespace Bpe.Regex

open Bpe

/-- Meta's Llama 3 pattern (`tokenizer.model`'s `pat_str`) as a term. -/
noncomputable def llama3MetaPattern : Re := alts contractionsCaseless llama3Branches

/-- Meta's Llama 3 pattern string (`pat_str` of meta-llama/llama3's `llama/tokenizer.py`). -/
def llama3MetaPatternString : String :=
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}\
    | ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"

set_option maxRecDepth 100000 in
/-- **`llama3MetaPattern` prints to Meta's Llama 3 pattern string** (kernel evaluation). -/
theorem toRegex_llama3MetaPattern : toRegex llama3MetaPattern = llama3MetaPatternString := by
  decide +kernel

/-- Meta's machine is `findIter` of its pattern, for every `Classes` record that reads the
machine's tables. -/
theorem ReadsTablesO200k.preTokenizeCodePoints_llama3Meta_eq_findIter {C : Classes}
    (h : ReadsTablesO200k C) (s : List Nat) :
    CodePoint.preTokenizeCodePoints Llama3.nextChunkLenMeta s = findIter C llama3MetaPattern s :=
  preTokenizeCodePoints_eq_findIter_of_matchAt Llama3.nextChunkLenMeta_pos
    (h.matchAt_llama3With h.matchRe_contractionsCaseless)
    (h.matchAt_llama3With_nil h.matchRe_contractionsCaseless rfl) s

/-- **Meta's Llama 3 pre-tokenizer is its regex**: for every list of code points, the chunks of
the machine `Llama3.nextChunkLenMeta` are the matches of `find_iter` with Meta's pattern
`(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|
\s*[\r\n]+|\s+(?!\S)|\s+` under the Unicode classes. -/
theorem preTokenizeLlama3Meta_eq_findIter (cps : List Nat) :
    CodePoint.preTokenizeCodePoints Llama3.nextChunkLenMeta cps =
      findIter unicodeClasses llama3MetaPattern cps :=
  readsTablesO200k_unicodeClasses.preTokenizeCodePoints_llama3Meta_eq_findIter cps

/-- **On a string**: the byte chunks of `preTokenizeLlama3Meta (stringBytes s)` are the UTF-8
encodings of lists of characters whose code points are the matches of `find_iter` with Meta's
pattern on the string's code points. -/
theorem preTokenizeLlama3Meta_stringBytes (s : String) :
    ∃ chunks : List (List Char),
      preTokenizeLlama3Meta (stringBytes s) = chunks.map (·.flatMap String.utf8EncodeChar) ∧
        chunks.map (·.map Char.toNat) =
          findIter unicodeClasses llama3MetaPattern (s.toList.map Char.toNat) :=
  preTokenizeWith_stringBytes preTokenizeLlama3Meta_eq_findIter s

/-- **Rank BPE over Meta's Llama 3 machine is tiktoken's `encode_ordinary` with Meta's
pattern**, for every rank table (no condition: Meta's `tokenizer.model` included) and every
string. -/
theorem encodeRanksWith_llama3Meta_eq_tiktokenEncodeOrdinary (ranks : Ranks) (s : String) :
    encodeRanksWith preTokenizeLlama3Meta ranks s =
      tiktokenEncodeOrdinary unicodeClasses llama3MetaPattern ranks s :=
  (tiktokenEncodeOrdinary_eq_encodeRanksWith unicodeClasses llama3MetaPattern ranks
    preTokenizeLlama3Meta s (preTokenizeLlama3Meta_stringBytes s)).symm

/-- **tiktoken's `encode_ordinary` with Meta's Llama 3 pattern round-trips** for every rank
table with `RanksDecodeOk ranks` and every string. -/
theorem decodeRanks_tiktokenEncodeOrdinary_llama3Meta_of_decodeOk {ranks : Ranks}
    (h : RanksDecodeOk ranks) (s : String) :
    (tiktokenEncodeOrdinary unicodeClasses llama3MetaPattern ranks s).bind
        (decodeRanks ranks) = some s :=
  decodeRanks_tiktokenEncodeOrdinary_of_decodeOk h unicodeClasses llama3MetaPattern
    preTokenizeLlama3Meta flatten_preTokenizeLlama3Meta s (preTokenizeLlama3Meta_stringBytes s)

end Bpe.Regex
