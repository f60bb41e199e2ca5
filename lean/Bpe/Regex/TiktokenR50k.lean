module

public import Bpe.Regex.Tiktoken
public import Bpe.Regex.R50k

/-!
# r50k_base's encoder is tiktoken's `encode_ordinary` (issue 33 item 7)

The instance of `encodeWith_eq_tiktokenEncodeOrdinary` for tiktoken 0.14's GPT-2 pattern
(`r50kPattern`, the encodings gpt2, r50k_base, p50k_base and p50k_edit) and the r50k_base
machine, one line from the machine's bridge from strings (`preTokenizeR50k_stringBytes`).
-/

@[expose] public section

namespace Bpe.Regex

open Bpe

/-- **r50k_base's encoder is tiktoken's `encode_ordinary`**: for every rank table with
`RanksOk ranks` and every string `s`, `encodeR50k` with the merges and byte shuffle recovered
from the ranks returns the ids of tiktoken's `encode_ordinary` with r50k_base's pattern under
the Unicode classes. -/
theorem encodeR50k_eq_tiktokenEncodeOrdinary {ranks : Ranks} (h : RanksOk ranks)
    (s : String) :
    some (encodeR50k (recoverMerges ranks) (rankShuffle ranks) s) =
      tiktokenEncodeOrdinary unicodeClasses r50kPattern ranks s :=
  encodeWith_eq_tiktokenEncodeOrdinary h unicodeClasses r50kPattern preTokenizeR50k s
    (preTokenizeR50k_stringBytes s)

end Bpe.Regex
