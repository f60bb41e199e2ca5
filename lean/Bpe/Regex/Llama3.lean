module

public import Bpe.Regex.Llama3Branches
public import Bpe.Regex.MachineLoop
public import Bpe.Regex.TiktokenWholePieces
public import Bpe.Regex.Print

/-!
# The Llama 3 machine is `findIter` of its pattern, and tiktoken's `encode_ordinary` with it

`preTokenizeLlama3_eq_findIter`: for every list of code points, the chunks of the Llama 3
machine (`Bpe.Llama3.nextChunkLen`, run by `CodePoint.preTokenizeCodePoints`) are the matches
of `find_iter` with llama.cpp's `llama-bpe` pattern `llama3Pattern`, read with the Unicode
classes. `Llama3.exists_branch_ne_zero`: on non-empty input one of the seven branches matches,
so the 1-unit fallback of `firstMatch` never fires. The bridges from bytes and strings are the
generic ones of `Bpe.Regex.MachineLoop`; the route is r50k_base's.

Llama 3's table fails condition C (`Bpe.Regex.TiktokenWholePieces`), so the end-to-end
statement here is about tiktoken's algorithm itself, with no condition on the ranks:
`encodeRanksWith_llama3_eq_tiktokenEncodeOrdinary` (Lean's rank BPE over the machine's chunks is
tiktoken's `encode_ordinary` with Llama 3's pattern, for every rank table and string), its
roundtrip under `RanksDecodeOk` (which Llama 3's table passes), and, under condition C, the seed's
merge loop (`encodeLlama3_eq_tiktokenEncodeOrdinary`).

`toRegex_llama3Pattern` (kernel evaluation): the term prints to llama.cpp's pattern string
(`src/llama-vocab.cpp`, `LLAMA_VOCAB_PRE_TYPE_LLAMA3`), byte for byte;
`tests/test_regex_r50k_llama3.py` reads the literal from this file and compares it with
llama.cpp's source.

The branch proof takes the contraction branch as a parameter (`ReadsTablesO200k.matchAt_llama3With`:
any term `r` before the six shared `llama3Branches`, given `r`'s lemma against the machine's
branch), so Meta's pattern (`Bpe.Regex.Llama3Meta`) reuses it with o200k_base's `(?i:…)` lemma.
-/

@[expose] public section

namespace Bpe.Llama3

/-- **The fallback of `firstMatch` never fires for Llama 3**: on non-empty input, one of the
seven branches of `nextChunkLenWith contraction` matches, for every list of code points and
every contraction branch (llama.cpp's and Meta's): one of the six others always does. -/
theorem exists_branch_ne_zero (contraction : List Nat → Nat) (s : List Nat) (hne : s ≠ []) :
    ∃ n ∈ [contraction s, Cl100k.matchWord s, CodePoint.matchDigits s,
      Cl100k.matchPunct s, CodePoint.matchNewlineWs s, CodePoint.matchTrailingWs s,
      CodePoint.matchWs s], n ≠ 0 := by
  obtain ⟨c, cs, rfl⟩ : ∃ c cs, s = c :: cs := by
    cases s with
    | nil => exact absurd rfl hne
    | cons c cs => exact ⟨c, cs, rfl⟩
  cases hL : Unicode.isL c
  · cases hN : Unicode.isN c
    · cases hS : Unicode.isWhiteSpace c
      · refine ⟨Cl100k.matchPunct (c :: cs), by simp, ?_⟩
        have hP : CodePoint.isPunct c = true := by simp [CodePoint.isPunct, hL, hN, hS]
        have h32 : (c == 32) = false := by
          cases h : c == 32
          · rfl
          · simp only [beq_iff_eq] at h
            subst h
            exact absurd hS (by decide)
        simp only [Cl100k.matchPunct, h32, Cl100k.punctTail, CodePoint.runLength, hP]
        simp
      · refine ⟨CodePoint.matchWs (c :: cs), by simp, ?_⟩
        simp [CodePoint.matchWs, CodePoint.runLength, hS]
    · refine ⟨CodePoint.matchDigits (c :: cs), by simp, ?_⟩
      have hr : CodePoint.runLength Unicode.isN (c :: cs) =
          CodePoint.runLength Unicode.isN cs + 1 := by
        simp [CodePoint.runLength, hN]
      show min 3 (CodePoint.runLength Unicode.isN (c :: cs)) ≠ 0
      omega
  · refine ⟨Cl100k.matchWord (c :: cs), by simp, ?_⟩
    simp [Cl100k.matchWord, CodePoint.runLength, hL]

end Bpe.Llama3

namespace Bpe.Regex

open Bpe

/-- llama.cpp's `llama-bpe` pattern string (Llama 3). -/
def llama3PatternString : String :=
  "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+\
    |\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"

set_option maxRecDepth 100000 in
/-- **`llama3Pattern` prints to llama.cpp's Llama 3 pattern string** (kernel evaluation). -/
theorem toRegex_llama3Pattern : toRegex llama3Pattern = llama3PatternString := by
  decide +kernel

namespace ReadsTablesO200k

variable {C : Classes} (h : ReadsTablesO200k C)
include h

/-- A Llama 3 pattern, `r` followed by the six shared alternatives, ends after
`Llama3.nextChunkLenWith m` code points when `r` is the machine's contraction branch `m`. -/
theorem matchAt_llama3With {r : Re} {m : List Nat → Nat}
    (hr : ∀ s, matchRe C r false s some = if m s = 0 then none else some (s.drop (m s)))
    (s : List Nat) (hne : s ≠ []) :
    matchAt C (alts r llama3Branches) s = some (s.drop (Llama3.nextChunkLenWith m s)) := by
  unfold matchAt
  simp only [llama3Branches, alts, matchRe_alt, hr, h.toReadsTables.matchRe_wordGreedy,
    h.matchRe_digits, h.toReadsTables.matchRe_punctGreedy, h.matchRe_newlines,
    h.matchRe_trailingWs, h.matchRe_ws]
  exact chain_eq _ _ (Llama3.exists_branch_ne_zero m s hne)

theorem matchAt_llama3With_nil {r : Re} {m : List Nat → Nat}
    (hr : ∀ s, matchRe C r false s some = if m s = 0 then none else some (s.drop (m s)))
    (h0 : m [] = 0) : matchAt C (alts r llama3Branches) [] = none := by
  unfold matchAt
  simp only [llama3Branches, alts, matchRe_alt, hr, h0, ↓reduceIte,
    h.toReadsTables.matchRe_wordGreedy, h.matchRe_digits, h.toReadsTables.matchRe_punctGreedy,
    h.matchRe_newlines, h.matchRe_trailingWs, h.matchRe_ws]
  rfl

/-- The alternation of the seven branches ends after `Llama3.nextChunkLen` code points. -/
theorem matchAt_llama3Pattern (s : List Nat) (hne : s ≠ []) :
    matchAt C llama3Pattern s = some (s.drop (Llama3.nextChunkLen s)) := by
  rw [llama3Pattern_eq]
  exact h.matchAt_llama3With (matchRe_contractionsLlama3 C) s hne

theorem matchAt_llama3Pattern_nil : matchAt C llama3Pattern [] = none := by
  rw [llama3Pattern_eq]
  exact h.matchAt_llama3With_nil (matchRe_contractionsLlama3 C) rfl

/-- Llama 3's machine is `findIter` of its pattern, for every `Classes` record that reads the
machine's tables. -/
theorem preTokenizeCodePoints_llama3_eq_findIter (s : List Nat) :
    CodePoint.preTokenizeCodePoints Llama3.nextChunkLen s = findIter C llama3Pattern s :=
  preTokenizeCodePoints_eq_findIter_of_matchAt Llama3.nextChunkLen_pos h.matchAt_llama3Pattern
    h.matchAt_llama3Pattern_nil s

end ReadsTablesO200k

/-- **The Llama 3 pre-tokenizer is its regex**: for every list of code points, the chunks of
the Llama 3 machine are the matches of `find_iter` with llama.cpp's `llama-bpe` pattern
`(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+` under the Unicode classes. -/
theorem preTokenizeLlama3_eq_findIter (cps : List Nat) :
    CodePoint.preTokenizeCodePoints Llama3.nextChunkLen cps =
      findIter unicodeClasses llama3Pattern cps :=
  readsTablesO200k_unicodeClasses.preTokenizeCodePoints_llama3_eq_findIter cps

/-- **From bytes**: `preTokenizeLlama3 data` is the chunks of UTF-8 units, flattened; read as
code points, those chunks are the matches of `find_iter` with Llama 3's pattern on the code
points the machine decodes. -/
theorem unitChunks_llama3_eq_findIter (data : Bytes) :
    preTokenizeLlama3 data = (CodePoint.unitChunks Llama3.nextChunkLen data).map List.flatten ∧
      (CodePoint.unitChunks Llama3.nextChunkLen data).map (·.map CodePoint.unitCodePoint) =
        findIter unicodeClasses llama3Pattern (CodePoint.codePoints data) :=
  unitChunks_eq_findIter preTokenizeLlama3_eq_findIter data

/-- **The Llama 3 pre-tokenizer on a string is its regex**: the byte chunks of
`preTokenizeLlama3 (stringBytes s)` are the UTF-8 encodings of lists of characters whose code
points are the matches of `find_iter` with Llama 3's pattern on the string's code points. -/
theorem preTokenizeLlama3_stringBytes (s : String) :
    ∃ chunks : List (List Char),
      preTokenizeLlama3 (stringBytes s) = chunks.map (·.flatMap String.utf8EncodeChar) ∧
        chunks.map (·.map Char.toNat) =
          findIter unicodeClasses llama3Pattern (s.toList.map Char.toNat) :=
  preTokenizeWith_stringBytes preTokenizeLlama3_eq_findIter s

/-- **Rank BPE over the Llama 3 machine is tiktoken's `encode_ordinary` with Llama 3's
pattern**, for every rank table (no condition: Llama 3's own table included) and every string:
`encodeRanksWith preTokenizeLlama3` returns what tiktoken's algorithm returns on
`find_iter`'s pieces. -/
theorem encodeRanksWith_llama3_eq_tiktokenEncodeOrdinary (ranks : Ranks) (s : String) :
    encodeRanksWith preTokenizeLlama3 ranks s =
      tiktokenEncodeOrdinary unicodeClasses llama3Pattern ranks s :=
  (tiktokenEncodeOrdinary_eq_encodeRanksWith unicodeClasses llama3Pattern ranks
    preTokenizeLlama3 s (preTokenizeLlama3_stringBytes s)).symm

/-- **tiktoken's `encode_ordinary` with Llama 3's pattern round-trips** for every rank table
with `RanksDecodeOk ranks` (Llama 3's table passes its checker) and every string. -/
theorem decodeRanks_tiktokenEncodeOrdinary_llama3_of_decodeOk {ranks : Ranks}
    (h : RanksDecodeOk ranks) (s : String) :
    (tiktokenEncodeOrdinary unicodeClasses llama3Pattern ranks s).bind (decodeRanks ranks) =
      some s :=
  decodeRanks_tiktokenEncodeOrdinary_of_decodeOk h unicodeClasses llama3Pattern
    preTokenizeLlama3 flatten_preTokenizeLlama3 s (preTokenizeLlama3_stringBytes s)

/-- **Under condition C, Llama 3's seed encoder is tiktoken's `encode_ordinary`**: for every
rank table with `RanksOk ranks` and every string, `encodeLlama3` with the merges and byte
shuffle recovered from the ranks returns tiktoken's ids with Llama 3's pattern (Llama 3's own
table fails condition C: there the rank-BPE statement above applies). -/
theorem encodeLlama3_eq_tiktokenEncodeOrdinary {ranks : Ranks} (h : RanksOk ranks)
    (s : String) :
    some (encodeLlama3 (recoverMerges ranks) (rankShuffle ranks) s) =
      tiktokenEncodeOrdinary unicodeClasses llama3Pattern ranks s :=
  encodeWith_eq_tiktokenEncodeOrdinary h unicodeClasses llama3Pattern preTokenizeLlama3 s
    (preTokenizeLlama3_stringBytes s)

end Bpe.Regex
