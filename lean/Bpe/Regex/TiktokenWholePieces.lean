module

public import Bpe.Regex.TiktokenR50k
public import Bpe.Ranks.WholePieces

/-!
# tiktoken's `encode_ordinary` on tables with whole-piece tokens (Llama 3, issue 33 item 7)

For a rank table in which some tokens have no two-part decomposition below their rank (Llama
3's, 678 tokens such as ` việc`), condition C fails and the end-to-end theorems
`encodeCl100k_eq_tiktokenEncodeOrdinary`, `encodeO200k_eq_tiktokenEncodeOrdinary` and
`encodeR50k_eq_tiktokenEncodeOrdinary` do not apply. Their hypothesis cannot be weakened to the
roundtrip's: on `wholePieceRanks` (every byte a token, distinct ranks) and the string `abc`,
the seed's encoder with the recovered tables and cl100k_base's pre-tokenizer returns
`[97, 98, 99]` and tiktoken's `encode_ordinary` `[256]`
(`encodeCl100k_ne_tiktokenEncodeOrdinary_wholePieceRanks`, kernel-checked).

What holds for such tables is the roundtrip of tiktoken's algorithm itself, under
`RanksDecodeOk` (`checkRanksDecode` decides it; Llama 3's table passes the Python mirror):
`decodeRanks_tiktokenEncodeOrdinary_of_decodeOk` for any pre-tokenizer that is `find_iter`, and
its instances for cl100k_base's, o200k_base's and r50k_base's patterns.
-/

@[expose] public section

namespace Bpe.Regex

open Bpe

/-- **tiktoken's `encode_ordinary` round-trips without condition C's two-part clause**: for
every rank table with `RanksDecodeOk ranks` (distinct ranks, every byte a token), if the chunks
of `preTokenize` on the bytes of `s` are the UTF-8 of `findIter C re`'s matches and
`preTokenize`'s chunks concatenate back to its input, then `encode_ordinary` succeeds on `s`
and decoding its ids gives `s`. -/
theorem decodeRanks_tiktokenEncodeOrdinary_of_decodeOk {ranks : Ranks} (h : RanksDecodeOk ranks)
    (C : Classes) (re : Re) (preTokenize : Bytes → List Bytes)
    (hpart : ∀ data, (preTokenize data).flatten = data) (s : String)
    (hpre : ∃ chunks : List (List Char),
      preTokenize (stringBytes s) = chunks.map (·.flatMap String.utf8EncodeChar) ∧
        chunks.map (·.map Char.toNat) = findIter C re (s.toList.map Char.toNat)) :
    (tiktokenEncodeOrdinary C re ranks s).bind (decodeRanks ranks) = some s := by
  rw [tiktokenEncodeOrdinary_eq_encodeRanksWith C re ranks preTokenize s hpre]
  exact decodeRanks_encodeRanksWith_of_decodeOk h preTokenize hpart s

/-- **cl100k_base's pattern, tables like Llama 3's**: `encode_ordinary` round-trips for every
rank table with `RanksDecodeOk ranks` and every string. -/
theorem decodeRanks_tiktokenEncodeOrdinary_cl100k_of_decodeOk {ranks : Ranks}
    (h : RanksDecodeOk ranks) (s : String) :
    (tiktokenEncodeOrdinary unicodeClasses cl100kPattern ranks s).bind (decodeRanks ranks) =
      some s :=
  decodeRanks_tiktokenEncodeOrdinary_of_decodeOk h unicodeClasses cl100kPattern
    preTokenizeCl100k flatten_preTokenizeCl100k s (preTokenizeCl100k_stringBytes s)

/-- **o200k_base's pattern, tables like Llama 3's**: the same statement. -/
theorem decodeRanks_tiktokenEncodeOrdinary_o200k_of_decodeOk {ranks : Ranks}
    (h : RanksDecodeOk ranks) (s : String) :
    (tiktokenEncodeOrdinary unicodeClasses o200kPattern ranks s).bind (decodeRanks ranks) =
      some s :=
  decodeRanks_tiktokenEncodeOrdinary_of_decodeOk h unicodeClasses o200kPattern
    preTokenizeO200k flatten_preTokenizeO200k s (preTokenizeO200k_stringBytes s)

/-- **r50k_base's pattern, tables like Llama 3's**: the same statement. -/
theorem decodeRanks_tiktokenEncodeOrdinary_r50k_of_decodeOk {ranks : Ranks}
    (h : RanksDecodeOk ranks) (s : String) :
    (tiktokenEncodeOrdinary unicodeClasses r50kPattern ranks s).bind (decodeRanks ranks) =
      some s :=
  decodeRanks_tiktokenEncodeOrdinary_of_decodeOk h unicodeClasses r50kPattern
    preTokenizeR50k flatten_preTokenizeR50k s (preTokenizeR50k_stringBytes s)

set_option maxRecDepth 100000 in
/-- The two encoders on `abc` over `wholePieceRanks`, with cl100k_base's pre-tokenizer. -/
theorem encodeRanksWith_wholePieceRanks_abc :
    encodeCl100k (recoverMerges wholePieceRanks) (rankShuffle wholePieceRanks) "abc" =
        [97, 98, 99] ∧
      encodeRanksWith preTokenizeCl100k wholePieceRanks "abc" = some [256] := by
  decide +kernel

/-- **The end-to-end theorem needs condition C's two-part clause**: `wholePieceRanks`
satisfies `RanksDecodeOk` (every byte a token, distinct ranks) but not `RanksOk`, and on `abc`
the seed's encoder with the tables recovered from it differs from tiktoken's `encode_ordinary`
with cl100k_base's pattern, so `encodeCl100k_eq_tiktokenEncodeOrdinary` is false under
`RanksDecodeOk` alone. -/
theorem encodeCl100k_ne_tiktokenEncodeOrdinary_wholePieceRanks :
    RanksDecodeOk wholePieceRanks ∧ ¬ RanksOk wholePieceRanks ∧
      some (encodeCl100k (recoverMerges wholePieceRanks) (rankShuffle wholePieceRanks) "abc") ≠
        tiktokenEncodeOrdinary unicodeClasses cl100kPattern wholePieceRanks "abc" := by
  refine ⟨ranksDecodeOk_wholePieceRanks, not_ranksOk_wholePieceRanks, ?_⟩
  rw [tiktokenEncodeOrdinary_eq_encodeRanksWith unicodeClasses cl100kPattern wholePieceRanks
    preTokenizeCl100k "abc" (preTokenizeCl100k_stringBytes "abc"),
    encodeRanksWith_wholePieceRanks_abc.1, encodeRanksWith_wholePieceRanks_abc.2]
  decide

end Bpe.Regex
