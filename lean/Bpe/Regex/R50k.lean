module

public import Bpe.Regex.R50kBranches
public import Bpe.Regex.MachineLoop

/-!
# The r50k_base machine is `findIter` of its pattern (GPT-2's pattern, issue 33 item 7)

`preTokenizeR50k_eq_findIter`: for every list of code points, the chunks of the r50k_base
machine (`Bpe.R50k.nextChunkLen`, run by `CodePoint.preTokenizeCodePoints`) are the matches of
`find_iter` with tiktoken 0.14's pattern `r50kPattern` (the encodings gpt2, r50k_base,
p50k_base), read with the Unicode classes. It is the instance `C = unicodeClasses` of
`ReadsTables.preTokenizeCodePoints_r50k_eq_findIter`, which holds for every `Classes` record
with cl100k_base's hypothesis `ReadsTables C`. `R50k.exists_branch_ne_zero`: on non-empty input
one of the seven branches matches, so the 1-unit fallback of `firstMatch` never fires; no
hypothesis on the code points is needed.

The bridges from bytes and strings (`unitChunks_r50k_eq_findIter`,
`preTokenizeR50k_stringBytes`) are the generic ones of `Bpe.Regex.MachineLoop`.

The route is cl100k_base's: each branch is the machine's (`Bpe.Regex.R50kBranches`), the
ordered alternation is `firstMatch` (`chain_eq`), so `matchAt` ends after `nextChunkLen` code
points (`matchAt_r50kPattern`), and the loops agree step by step
(`preTokenizeCodePoints_eq_findIter_of_matchAt`).
-/

@[expose] public section

namespace Bpe.R50k

/-- ` ?X++` matches at a code point of `X` (which is not the space). -/
theorem matchSpaceRun_ne_zero {p : Nat → Bool} {c : Nat} (hp : p c = true) (h32 : p 32 = false)
    (cs : List Nat) : matchSpaceRun p (c :: cs) ≠ 0 := by
  have hc : (c == 32) = false := by
    cases h : c == 32
    · rfl
    · simp only [beq_iff_eq] at h
      subst h
      rw [h32] at hp
      exact absurd hp (by decide)
  simp [matchSpaceRun, hc, CodePoint.runLength, hp]

/-- **The fallback of `firstMatch` never fires for r50k_base**: on non-empty input, one of the
seven branches of `nextChunkLen` matches, for every list of code points. -/
theorem exists_branch_ne_zero (s : List Nat) (hne : s ≠ []) :
    ∃ n ∈ [matchContraction s, matchSpaceRun Unicode.isL s, matchSpaceRun Unicode.isN s,
      matchSpaceRun CodePoint.isPunct s, Cl100k.matchEndWs s, CodePoint.matchTrailingWs s,
      Cl100k.matchOneWs s], n ≠ 0 := by
  obtain ⟨c, cs, rfl⟩ : ∃ c cs, s = c :: cs := by
    cases s with
    | nil => exact absurd rfl hne
    | cons c cs => exact ⟨c, cs, rfl⟩
  cases hL : Unicode.isL c
  · cases hN : Unicode.isN c
    · cases hS : Unicode.isWhiteSpace c
      · have hP : CodePoint.isPunct c = true := by simp [CodePoint.isPunct, hL, hN, hS]
        exact ⟨_, by simp, matchSpaceRun_ne_zero hP Regex.isPunct_32 cs⟩
      · refine ⟨Cl100k.matchOneWs (c :: cs), by simp, ?_⟩
        simp [Cl100k.matchOneWs, hS]
    · exact ⟨_, by simp, matchSpaceRun_ne_zero hN Regex.isN_32 cs⟩
  · exact ⟨_, by simp, matchSpaceRun_ne_zero hL Regex.isL_32 cs⟩

end Bpe.R50k

namespace Bpe.Regex

open Bpe

namespace ReadsTables

variable {C : Classes} (h : ReadsTables C)
include h

/-- The alternation of the seven branches ends after `R50k.nextChunkLen` code points. -/
theorem matchAt_r50kPattern (s : List Nat) (hne : s ≠ []) :
    matchAt C r50kPattern s = some (s.drop (R50k.nextChunkLen s)) := by
  unfold matchAt r50kPattern
  simp only [alts, matchRe_alt, matchRe_contractionsR50k, h.matchRe_spaceLetters,
    h.matchRe_spaceNumbers, h.matchRe_spacePunct, h.matchRe_endWs, h.matchRe_trailingWs,
    h.matchRe_oneWs]
  exact chain_eq _ _ (R50k.exists_branch_ne_zero s hne)

theorem matchAt_r50kPattern_nil : matchAt C r50kPattern [] = none := by
  unfold matchAt r50kPattern
  simp only [alts, matchRe_alt, matchRe_contractionsR50k, h.matchRe_spaceLetters,
    h.matchRe_spaceNumbers, h.matchRe_spacePunct, h.matchRe_endWs, h.matchRe_trailingWs,
    h.matchRe_oneWs]
  rfl

/-- r50k_base's machine is `findIter` of its pattern, for every `Classes` record that reads
the machine's tables. -/
theorem preTokenizeCodePoints_r50k_eq_findIter (s : List Nat) :
    CodePoint.preTokenizeCodePoints R50k.nextChunkLen s = findIter C r50kPattern s :=
  preTokenizeCodePoints_eq_findIter_of_matchAt R50k.nextChunkLen_pos h.matchAt_r50kPattern
    h.matchAt_r50kPattern_nil s

end ReadsTables

/-- **The r50k_base pre-tokenizer is its regex** (GPT-2's pattern): for every list of code
points, the chunks of the r50k_base machine are the matches of `find_iter` with tiktoken 0.14's
pattern `'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s`
under the Unicode classes. -/
theorem preTokenizeR50k_eq_findIter (cps : List Nat) :
    CodePoint.preTokenizeCodePoints R50k.nextChunkLen cps =
      findIter unicodeClasses r50kPattern cps :=
  readsTables_unicodeClasses.preTokenizeCodePoints_r50k_eq_findIter cps

/-- **From bytes**: `preTokenizeR50k data` is the chunks of UTF-8 units
`unitChunks R50k.nextChunkLen data`, flattened; read as code points, those chunks are the
matches of `find_iter` with r50k_base's pattern on the code points the machine decodes. -/
theorem unitChunks_r50k_eq_findIter (data : Bytes) :
    preTokenizeR50k data = (CodePoint.unitChunks R50k.nextChunkLen data).map List.flatten ∧
      (CodePoint.unitChunks R50k.nextChunkLen data).map (·.map CodePoint.unitCodePoint) =
        findIter unicodeClasses r50kPattern (CodePoint.codePoints data) :=
  unitChunks_eq_findIter preTokenizeR50k_eq_findIter data

/-- **The r50k_base pre-tokenizer on a string is its regex**: the byte chunks of
`preTokenizeR50k (stringBytes s)` are the UTF-8 encodings of lists of characters whose code
points are the matches of `find_iter` with r50k_base's pattern on the string's code points. -/
theorem preTokenizeR50k_stringBytes (s : String) :
    ∃ chunks : List (List Char),
      preTokenizeR50k (stringBytes s) = chunks.map (·.flatMap String.utf8EncodeChar) ∧
        chunks.map (·.map Char.toNat) =
          findIter unicodeClasses r50kPattern (s.toList.map Char.toNat) :=
  preTokenizeWith_stringBytes preTokenizeR50k_eq_findIter s

end Bpe.Regex
