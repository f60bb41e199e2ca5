module

public import Bpe.Regex.O200kBranches
public import Bpe.Regex.Cl100k
public import Bpe.Unicode.LetterCover

/-!
# The o200k_base machine is `findIter` of its pattern (issue 22, step 4)

`preTokenizeO200k_eq_findIter`: for every list of code points, the chunks of the o200k_base
machine (`Bpe.O200k.nextChunkLen`, run by `CodePoint.preTokenizeCodePoints`) are the matches of
`find_iter` with tiktoken 0.14's pattern `o200kPattern`, read with the Unicode classes. It is the
instance `C = unicodeClasses` of `ReadsTablesO200k.preTokenizeCodePoints_eq_findIter`, which holds
for every `Classes` record with `ReadsTablesO200k C`. `O200k.exists_branch_ne_zero`: on non-empty
input one of the seven branches matches, so the 1-unit fallback of `firstMatch` never fires; it
rests on `Unicode.isLu_or_of_isL` (a letter of the tables is in one of the five letter
categories, so it starts a word of one of the two word branches).

The bridges from bytes and strings (`unitChunks_o200k_eq_findIter`,
`preTokenizeO200k_stringBytes`) are cl100k_base's, with o200k_base's chunk length.

The route is step 3's: each branch is the machine's (`Bpe.Regex.O200kBranches`), the ordered
alternation is `firstMatch` (`chain_eq`), so `matchAt` ends after `nextChunkLen` code points
(`matchAt_o200kPattern`), and the loops agree step by step.
-/

@[expose] public section

namespace Bpe.O200k

theorem withLead_ne_zero (core : List Nat → Nat) (s : List Nat) (h : core s ≠ 0) :
    withLead core s ≠ 0 := by
  cases s with
  | nil => simpa [withLead] using h
  | cons c cs =>
    by_cases hw : CodePoint.isWordLead c = true <;> by_cases h0 : core cs = 0 <;>
      simp [withLead, hw, h0, h]

theorem withContraction_ne_zero {n : Nat} (s : List Nat) (h : n ≠ 0) :
    withContraction n s ≠ 0 := by
  simp [withContraction, h]

theorem casedCore_ne_zero {x : Nat} (hx : isLowerClass x = true) (t : List Nat) :
    casedCore (x :: t) ≠ 0 := by
  cases hu : isUpperClass x
  · rw [casedCore_cons_of_not_upper hu]
    simp [hx]
  · rw [casedCore_cons_of_upper hu, hx]
    split <;> simp

theorem upperCore_ne_zero {x : Nat} (hx : isUpperClass x = true) (t : List Nat) :
    upperCore (x :: t) ≠ 0 := by
  simp [upperCore, CodePoint.runLength, hx]

/-- A letter is in `U` or in `W`. -/
theorem isUpperClass_or_isLowerClass {c : Nat} (h : Unicode.isL c = true) :
    isUpperClass c = true ∨ isLowerClass c = true := by
  have hu := Unicode.isLu_or_of_isL h
  simp only [isUpperClass, isLowerClass]
  revert hu
  cases Unicode.isLu c <;> cases Unicode.isLl c <;> cases Unicode.isLt c <;>
    cases Unicode.isLm c <;> cases Unicode.isLo c <;> cases Unicode.isM c <;> simp

/-- **The fallback of `firstMatch` never fires for o200k_base**: on non-empty input, one of the
seven branches of `nextChunkLen` matches, for every list of code points. -/
theorem exists_branch_ne_zero (s : List Nat) (hne : s ≠ []) :
    ∃ n ∈ [matchWordCased s, matchWordUpper s, CodePoint.matchDigits s, matchPunct s,
      CodePoint.matchNewlineWs s, CodePoint.matchTrailingWs s, CodePoint.matchWs s],
      n ≠ 0 := by
  obtain ⟨c, cs, rfl⟩ : ∃ c cs, s = c :: cs := by
    cases s with
    | nil => exact absurd rfl hne
    | cons c cs => exact ⟨c, cs, rfl⟩
  cases hL : Unicode.isL c
  · cases hN : Unicode.isN c
    · cases hS : Unicode.isWhiteSpace c
      · refine ⟨matchPunct (c :: cs), by simp, ?_⟩
        have hP : CodePoint.isPunct c = true := by simp [CodePoint.isPunct, hL, hN, hS]
        have h32 : c ≠ 32 := by
          rintro rfl
          exact absurd hS (by decide)
        rw [matchPunct_cons_of_ne h32]
        simp [hP]
      · refine ⟨CodePoint.matchWs (c :: cs), by simp, ?_⟩
        simp [CodePoint.matchWs, CodePoint.runLength, hS]
    · refine ⟨CodePoint.matchDigits (c :: cs), by simp, ?_⟩
      have hr : CodePoint.runLength Unicode.isN (c :: cs) =
          CodePoint.runLength Unicode.isN cs + 1 := by
        simp [CodePoint.runLength, hN]
      show min 3 (CodePoint.runLength Unicode.isN (c :: cs)) ≠ 0
      omega
  · rcases isUpperClass_or_isLowerClass hL with hU | hW
    · refine ⟨matchWordUpper (c :: cs), by simp, ?_⟩
      exact withContraction_ne_zero _ (withLead_ne_zero _ _ (upperCore_ne_zero hU cs))
    · refine ⟨matchWordCased (c :: cs), by simp, ?_⟩
      exact withContraction_ne_zero _ (withLead_ne_zero _ _ (casedCore_ne_zero hW cs))

end Bpe.O200k

namespace Bpe.Regex

open Bpe

namespace ReadsTablesO200k

variable {C : Classes} (h : ReadsTablesO200k C)
include h

/-- The alternation of the seven branches ends after `O200k.nextChunkLen` code points. -/
theorem matchAt_o200kPattern (s : List Nat) (hne : s ≠ []) :
    matchAt C o200kPattern s = some (s.drop (O200k.nextChunkLen s)) := by
  unfold matchAt o200kPattern
  simp only [alts, matchRe_alt, h.matchRe_wordCased, h.matchRe_wordUpper, h.matchRe_digits,
    h.matchRe_punctRun, h.matchRe_newlines, h.matchRe_trailingWs, h.matchRe_ws]
  exact chain_eq _ _ (O200k.exists_branch_ne_zero s hne)

theorem matchAt_o200kPattern_nil : matchAt C o200kPattern [] = none := by
  unfold matchAt o200kPattern
  simp only [alts, matchRe_alt, h.matchRe_wordCased, h.matchRe_wordUpper, h.matchRe_digits,
    h.matchRe_punctRun, h.matchRe_newlines, h.matchRe_trailingWs, h.matchRe_ws]
  rfl

theorem findLoop_o200kPattern_nil (fuel : Nat) (adj : Bool) :
    findLoop C o200kPattern (fuel + 1) adj [] = [] := by
  show findStep C o200kPattern (findLoop C o200kPattern fuel) adj [] = []
  simp only [findStep, h.matchAt_o200kPattern_nil]

/-- The two loops agree: `splitCodePoints` with enough fuel is `findLoop` with one more. -/
theorem splitCodePoints_eq_findLoop (fuel : Nat) :
    ∀ (s : List Nat), s.length ≤ fuel → ∀ adj : Bool,
      CodePoint.splitCodePoints O200k.nextChunkLen fuel s =
        findLoop C o200kPattern (fuel + 1) adj s := by
  induction fuel with
  | zero =>
    intro s hl adj
    cases s with
    | nil => exact (h.findLoop_o200kPattern_nil 0 adj).symm
    | cons c cs => simp at hl
  | succ fuel ih =>
    intro s hl adj
    cases s with
    | nil => exact (h.findLoop_o200kPattern_nil (fuel + 1) adj).symm
    | cons c cs =>
      have hm := h.matchAt_o200kPattern (c :: cs) (by simp)
      have hpos := O200k.nextChunkLen_pos (c :: cs)
      show (c :: cs).take (O200k.nextChunkLen (c :: cs)) ::
          CodePoint.splitCodePoints O200k.nextChunkLen fuel
            ((c :: cs).drop (O200k.nextChunkLen (c :: cs))) =
        findStep C o200kPattern (findLoop C o200kPattern (fuel + 1)) adj (c :: cs)
      unfold findStep
      rw [hm]
      dsimp only
      have hlt : ((c :: cs).drop (O200k.nextChunkLen (c :: cs))).length < (c :: cs).length := by
        simp only [List.length_drop, List.length_cons]
        omega
      rw [if_pos hlt, take_length_sub_length_drop]
      congr 1
      exact ih _ (by simp only [List.length_drop, List.length_cons] at hl ⊢; omega) true

/-- o200k_base's machine is `findIter` of its pattern, for every `Classes` record that reads
the machine's tables. -/
theorem preTokenizeCodePoints_eq_findIter (s : List Nat) :
    CodePoint.preTokenizeCodePoints O200k.nextChunkLen s = findIter C o200kPattern s :=
  h.splitCodePoints_eq_findLoop s.length s (Nat.le_refl _) false

end ReadsTablesO200k

/-- **The o200k_base pre-tokenizer is its regex** (issue 22, step 4): for every list of code
points, the chunks of the o200k_base machine are the matches of `find_iter` with tiktoken 0.14's
pattern (`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|…)?|…`)
under the Unicode classes. -/
theorem preTokenizeO200k_eq_findIter (cps : List Nat) :
    CodePoint.preTokenizeCodePoints O200k.nextChunkLen cps =
      findIter unicodeClasses o200kPattern cps :=
  readsTablesO200k_unicodeClasses.preTokenizeCodePoints_eq_findIter cps

/-- **From bytes**: `preTokenizeO200k data` is the chunks of UTF-8 units
`unitChunks O200k.nextChunkLen data`, flattened; read as code points, those chunks are the
matches of `find_iter` with o200k_base's pattern on the code points the machine decodes. -/
theorem unitChunks_o200k_eq_findIter (data : Bytes) :
    preTokenizeO200k data = (CodePoint.unitChunks O200k.nextChunkLen data).map List.flatten ∧
      (CodePoint.unitChunks O200k.nextChunkLen data).map (·.map CodePoint.unitCodePoint) =
        findIter unicodeClasses o200kPattern (CodePoint.codePoints data) :=
  ⟨CodePoint.preTokenizeWith_eq_map_flatten _ data,
    (CodePoint.map_unitChunks _ data).trans (preTokenizeO200k_eq_findIter _)⟩

/-- **The o200k_base pre-tokenizer on a string is its regex**: the byte chunks of
`preTokenizeO200k (stringBytes s)` are the UTF-8 encodings of lists of characters whose code
points are the matches of `find_iter` with o200k_base's pattern on the string's code points. -/
theorem preTokenizeO200k_stringBytes (s : String) :
    ∃ chunks : List (List Char),
      preTokenizeO200k (stringBytes s) = chunks.map (·.flatMap String.utf8EncodeChar) ∧
        chunks.map (·.map Char.toNat) =
          findIter unicodeClasses o200kPattern (s.toList.map Char.toNat) := by
  obtain ⟨cs, hcs⟩ := CodePoint.exists_unitChunks_stringBytes O200k.nextChunkLen s
  obtain ⟨h1, h2⟩ := unitChunks_o200k_eq_findIter (stringBytes s)
  refine ⟨cs, ?_, ?_⟩
  · rw [h1, hcs, List.map_map]
    congr 1
  · rw [← CodePoint.codePoints_stringBytes, ← h2, hcs, List.map_map]
    congr 1
    funext g
    simp only [Function.comp_apply, List.map_map]
    congr 1
    funext c
    exact (CodePoint.unitCodePoint_utf8EncodeChar c).symm

end Bpe.Regex
