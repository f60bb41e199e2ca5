module

public import Bpe.Regex.Cl100k
public import Bpe.Regex.O200k
public import Bpe.Unicode.Encoders
public import Bpe.Ranks.Equiv
public import Bpe.Ranks.Large
public import Bpe.Ranks.Roundtrip

/-!
# The whole encoder is tiktoken's `encode_ordinary` (issue 22, step 5)

`tiktokenEncodeOrdinary C re ranks s` is tiktoken 0.14's `encode_ordinary` (`src/lib.rs`,
`_encode_ordinary_native`) written as it reads: for each match of `find_iter` of the pattern
over the text (`findIter` on the string's code points), take the match's UTF-8 bytes
(`matchBytes`, Rust's `mat.as_str().as_bytes()`); if that piece is a token, its rank, else
`byte_pair_encode` of it (`encodePieceRanksBySize`: `_byte_pair_merge` below 100 bytes,
`_byte_pair_merge_large` from 100); concatenate. `none` where tiktoken would fail on a
missing rank.

`encodeWith_eq_tiktokenEncodeOrdinary` is the generic statement: under `RanksOk ranks`, for
any pre-tokenizer whose byte chunks of `stringBytes s` are the UTF-8 encodings of lists of
characters whose code points are `findIter`'s matches (the shape of
`preTokenizeCl100k_stringBytes`), the seed's encoder with the merges and shuffle recovered
from the ranks returns tiktoken's ids. `encodeCl100k_eq_tiktokenEncodeOrdinary` is its
cl100k_base instance and `encodeO200k_eq_tiktokenEncodeOrdinary` its o200k_base instance, each
one line from the machine's bridge from strings (`preTokenizeCl100k_stringBytes`,
`preTokenizeO200k_stringBytes`).

The route: a match's bytes are its characters' UTF-8 (`matchBytes_map_toNat`, since
`Char.ofNat c.toNat = c`), so the pieces of `tiktokenEncodeOrdinary` are the pre-tokenizer's
chunks and it is `encodeRanksWith` (`tiktokenEncodeOrdinary_eq_encodeRanksWith`, through
`encodePieceRanksBySize_eq`); then `encodeWith_eq_encodeRanksWith`.

`decodeRanks_tiktokenEncodeOrdinary` (issue 33, item 5) is the roundtrip of tiktoken's algorithm
itself: under `RanksOk ranks`, `encode_ordinary` succeeds and tiktoken's `decode` of its ids
gives the string back; `decodeRanks_tiktokenEncodeOrdinary_cl100k` and `…_o200k` are its
instances for the two patterns (from `tiktokenEncodeOrdinary_eq_encodeRanksWith` and
`decodeRanks_encodeRanksWith`).
-/

@[expose] public section
noncomputable section

namespace Bpe.Regex

open Bpe

/-- The UTF-8 bytes of a match (Rust's `mat.as_str().as_bytes()`): each code point read as a
character and encoded. -/
def matchBytes (m : List Nat) : Bytes :=
  m.flatMap fun n => String.utf8EncodeChar (Char.ofNat n)

/-- tiktoken's `encode_ordinary` (`_encode_ordinary_native`), with pattern `re` read through
the classes `C`: for each match of `find_iter` over the text, the piece's rank if it is a
token, else `byte_pair_encode` of the piece (both in `encodePieceRanksBySize`); the ids
concatenated, `none` if some part has no rank (where tiktoken would fail). -/
def tiktokenEncodeOrdinary (C : Classes) (re : Re) (ranks : Ranks) (s : String) :
    Option (List Nat) :=
  (((findIter C re (s.toList.map Char.toNat)).map matchBytes).mapM
      fun piece => encodePieceRanksBySize ranks piece).map List.flatten

@[simp] theorem matchBytes_nil : matchBytes [] = [] := rfl

/-- A match read from a string: its bytes are its characters' UTF-8 encodings. -/
theorem matchBytes_map_toNat (cs : List Char) :
    matchBytes (cs.map Char.toNat) = cs.flatMap String.utf8EncodeChar := by
  induction cs with
  | nil => rfl
  | cons c cs ih =>
    simp only [matchBytes, List.map_cons, List.flatMap_cons, Char.ofNat_toNat] at ih ⊢
    rw [ih]

/-- For a pre-tokenizer whose chunks on a string's bytes are the UTF-8 of `find_iter`'s
matches, tiktoken's `encode_ordinary` is `encodeRanksWith` of that pre-tokenizer (no condition
on the ranks). -/
theorem tiktokenEncodeOrdinary_eq_encodeRanksWith (C : Classes) (re : Re) (ranks : Ranks)
    (preTokenize : Bytes → List Bytes) (s : String)
    (hpre : ∃ chunks : List (List Char),
      preTokenize (stringBytes s) = chunks.map (·.flatMap String.utf8EncodeChar) ∧
        chunks.map (·.map Char.toNat) = findIter C re (s.toList.map Char.toNat)) :
    tiktokenEncodeOrdinary C re ranks s = encodeRanksWith preTokenize ranks s := by
  obtain ⟨chunks, h1, h2⟩ := hpre
  have hm : (findIter C re (s.toList.map Char.toNat)).map matchBytes =
      preTokenize (stringBytes s) := by
    rw [← h2, h1, List.map_map]
    congr 1
    funext cs
    exact matchBytes_map_toNat cs
  rw [← encodeRanksWithBySize_eq]
  unfold tiktokenEncodeOrdinary encodeRanksWithBySize
  rw [hm]

/-- **The encoder is tiktoken's `encode_ordinary`, for any pre-tokenizer that is `find_iter`**:
under `RanksOk ranks`, if the chunks of `preTokenize` on the bytes of `s` are the UTF-8
encodings of lists of characters whose code points are the matches of `findIter C re` on `s`,
then the seed's encoder with the merges and byte shuffle recovered from the ranks returns
tiktoken's ids. -/
theorem encodeWith_eq_tiktokenEncodeOrdinary {ranks : Ranks} (h : RanksOk ranks) (C : Classes)
    (re : Re) (preTokenize : Bytes → List Bytes) (s : String)
    (hpre : ∃ chunks : List (List Char),
      preTokenize (stringBytes s) = chunks.map (·.flatMap String.utf8EncodeChar) ∧
        chunks.map (·.map Char.toNat) = findIter C re (s.toList.map Char.toNat)) :
    some (encodeWith preTokenize (recoverMerges ranks) (rankShuffle ranks) s) =
      tiktokenEncodeOrdinary C re ranks s :=
  (encodeWith_eq_encodeRanksWith h preTokenize s).trans
    (tiktokenEncodeOrdinary_eq_encodeRanksWith C re ranks preTokenize s hpre).symm

/-- **cl100k_base's encoder is tiktoken's `encode_ordinary`** (issue 22, step 5): for every
rank table with `RanksOk ranks` and every string `s`, `encodeCl100k` with the merges and byte
shuffle recovered from the ranks returns the ids of tiktoken's `encode_ordinary` with
cl100k_base's pattern under the Unicode classes. -/
theorem encodeCl100k_eq_tiktokenEncodeOrdinary {ranks : Ranks} (h : RanksOk ranks)
    (s : String) :
    some (encodeCl100k (recoverMerges ranks) (rankShuffle ranks) s) =
      tiktokenEncodeOrdinary unicodeClasses cl100kPattern ranks s :=
  encodeWith_eq_tiktokenEncodeOrdinary h unicodeClasses cl100kPattern preTokenizeCl100k s
    (preTokenizeCl100k_stringBytes s)

/-- **o200k_base's encoder is tiktoken's `encode_ordinary`** (issue 22, step 5): the same
statement for o200k_base's pattern and pre-tokenizer. -/
theorem encodeO200k_eq_tiktokenEncodeOrdinary {ranks : Ranks} (h : RanksOk ranks)
    (s : String) :
    some (encodeO200k (recoverMerges ranks) (rankShuffle ranks) s) =
      tiktokenEncodeOrdinary unicodeClasses o200kPattern ranks s :=
  encodeWith_eq_tiktokenEncodeOrdinary h unicodeClasses o200kPattern preTokenizeO200k s
    (preTokenizeO200k_stringBytes s)

/-- **tiktoken's `encode_ordinary` round-trips, for any pre-tokenizer that is `find_iter`**:
under `RanksOk ranks`, if the chunks of `preTokenize` on the bytes of `s` are the UTF-8 of
`findIter C re`'s matches and `preTokenize`'s chunks concatenate back to its input, then
`encode_ordinary` succeeds on `s` and decoding its ids gives `s`. -/
theorem decodeRanks_tiktokenEncodeOrdinary {ranks : Ranks} (h : RanksOk ranks) (C : Classes)
    (re : Re) (preTokenize : Bytes → List Bytes)
    (hpart : ∀ data, (preTokenize data).flatten = data) (s : String)
    (hpre : ∃ chunks : List (List Char),
      preTokenize (stringBytes s) = chunks.map (·.flatMap String.utf8EncodeChar) ∧
        chunks.map (·.map Char.toNat) = findIter C re (s.toList.map Char.toNat)) :
    (tiktokenEncodeOrdinary C re ranks s).bind (decodeRanks ranks) = some s := by
  rw [tiktokenEncodeOrdinary_eq_encodeRanksWith C re ranks preTokenize s hpre]
  exact decodeRanks_encodeRanksWith h preTokenize hpart s

/-- **tiktoken's `encode_ordinary` with cl100k_base's pattern round-trips**: for every rank
table with `RanksOk ranks` and every string `s`, it succeeds and decoding its ids gives `s`. -/
theorem decodeRanks_tiktokenEncodeOrdinary_cl100k {ranks : Ranks} (h : RanksOk ranks)
    (s : String) :
    (tiktokenEncodeOrdinary unicodeClasses cl100kPattern ranks s).bind (decodeRanks ranks) =
      some s :=
  decodeRanks_tiktokenEncodeOrdinary h unicodeClasses cl100kPattern preTokenizeCl100k
    flatten_preTokenizeCl100k s (preTokenizeCl100k_stringBytes s)

/-- **tiktoken's `encode_ordinary` with o200k_base's pattern round-trips**: the same statement
for o200k_base's pattern. -/
theorem decodeRanks_tiktokenEncodeOrdinary_o200k {ranks : Ranks} (h : RanksOk ranks)
    (s : String) :
    (tiktokenEncodeOrdinary unicodeClasses o200kPattern ranks s).bind (decodeRanks ranks) =
      some s :=
  decodeRanks_tiktokenEncodeOrdinary h unicodeClasses o200kPattern preTokenizeO200k
    flatten_preTokenizeO200k s (preTokenizeO200k_stringBytes s)

end Bpe.Regex
