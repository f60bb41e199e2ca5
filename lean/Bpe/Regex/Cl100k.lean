module

public import Bpe.Regex.Cl100kBranches
public import Bpe.Regex.SeedAscii
public import Bpe.Unicode.Utf8CodePoints

/-!
# The cl100k_base machine is `findIter` of its pattern (issue 22, step 3)

`preTokenizeCl100k_eq_findIter`: for every list of code points, the chunks of the cl100k_base
machine (`Bpe.Cl100k.nextChunkLen`, run by the code-point loop `CodePoint.preTokenizeCodePoints`)
are the matches of `find_iter` with tiktoken 0.14's pattern `cl100kPattern`, read with the Unicode
classes. It is the instance `C = unicodeClasses` of `preTokenizeCodePoints_eq_findIter`, which
holds for every `Classes` record with `ReadsTables C`. `Cl100k.exists_branch_ne_zero`: on
non-empty input one of the eight branches matches, so the 1-unit fallback of `firstMatch` never
fires; no hypothesis on the code points is needed (every code point is white space, a letter, a
number or in `[^\s\p{L}\p{N}]`).

The bridge from bytes (`unitChunks_cl100k_eq_findIter`): `preTokenizeCl100k data` is
`unitChunks Cl100k.nextChunkLen data` flattened (`CodePoint.preTokenizeWith_eq_map_flatten`), and
those chunks of UTF-8 units, read as code points, are the matches of `findIter` on the code points
that the machine decodes (`CodePoint.codePoints data`: one per unit, U+FFFD for a unit that is not
a character). On the bytes of a string (`preTokenizeCl100k_stringBytes`) these are the string's
own code points (`CodePoint.codePoints_stringBytes`), and each byte chunk is the UTF-8 encoding of
a list of the string's characters: the chunks are exactly the matches of `find_iter` on the
string.

The route is the seed's (`Bpe.Regex.SeedAscii`): each branch is the machine's
(`Bpe.Regex.Cl100kBranches`), the ordered alternation is `firstMatch` (`chain_eq`), so `matchAt`
ends after `nextChunkLen` code points (`matchAt_cl100kPattern`), and the loops agree step by step.
-/

@[expose] public section

namespace Bpe.Cl100k

/-- **The fallback of `firstMatch` never fires for cl100k_base**: on non-empty input, one of the
eight branches of `nextChunkLen` matches, for every list of code points. -/
theorem exists_branch_ne_zero (s : List Nat) (hne : s ≠ []) :
    ∃ n ∈ [CodePoint.matchContraction s, matchWord s, CodePoint.matchDigits s, matchPunct s,
      matchEndWs s, CodePoint.matchNewlineWs s, CodePoint.matchTrailingWs s, matchOneWs s],
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
        have h32 : (c == 32) = false := by
          cases h : c == 32
          · rfl
          · simp only [beq_iff_eq] at h
            subst h
            exact absurd hS (by decide)
        simp only [matchPunct, h32, punctTail, CodePoint.runLength, hP]
        simp
      · refine ⟨matchOneWs (c :: cs), by simp, ?_⟩
        simp [matchOneWs, hS]
    · refine ⟨CodePoint.matchDigits (c :: cs), by simp, ?_⟩
      have hr : CodePoint.runLength Unicode.isN (c :: cs) =
          CodePoint.runLength Unicode.isN cs + 1 := by
        simp [CodePoint.runLength, hN]
      show min 3 (CodePoint.runLength Unicode.isN (c :: cs)) ≠ 0
      omega
  · refine ⟨matchWord (c :: cs), by simp, ?_⟩
    simp [matchWord, CodePoint.runLength, hL]

end Bpe.Cl100k

namespace Bpe.Regex

open Bpe

namespace ReadsTables

variable {C : Classes} (h : ReadsTables C)
include h

/-- The alternation of the eight branches ends after `Cl100k.nextChunkLen` code points. -/
theorem matchAt_cl100kPattern (s : List Nat) (hne : s ≠ []) :
    matchAt C cl100kPattern s = some (s.drop (Cl100k.nextChunkLen s)) := by
  unfold matchAt cl100kPattern
  simp only [alts, matchRe_alt, h.matchRe_contraction, h.matchRe_word, h.matchRe_digits,
    h.matchRe_punctRun, h.matchRe_endWs, h.matchRe_newlineWs, h.matchRe_trailingWs,
    h.matchRe_oneWs]
  exact chain_eq _ _ (Cl100k.exists_branch_ne_zero s hne)

theorem matchAt_cl100kPattern_nil : matchAt C cl100kPattern [] = none := by
  unfold matchAt cl100kPattern
  simp only [alts, matchRe_alt, h.matchRe_contraction, h.matchRe_word, h.matchRe_digits,
    h.matchRe_punctRun, h.matchRe_endWs, h.matchRe_newlineWs, h.matchRe_trailingWs,
    h.matchRe_oneWs]
  rfl

theorem findLoop_cl100kPattern_nil (fuel : Nat) (adj : Bool) :
    findLoop C cl100kPattern (fuel + 1) adj [] = [] := by
  show findStep C cl100kPattern (findLoop C cl100kPattern fuel) adj [] = []
  simp only [findStep, h.matchAt_cl100kPattern_nil]

/-- The two loops agree: `splitCodePoints` with enough fuel is `findLoop` with one more. -/
theorem splitCodePoints_eq_findLoop (fuel : Nat) :
    ∀ (s : List Nat), s.length ≤ fuel → ∀ adj : Bool,
      CodePoint.splitCodePoints Cl100k.nextChunkLen fuel s =
        findLoop C cl100kPattern (fuel + 1) adj s := by
  induction fuel with
  | zero =>
    intro s hl adj
    cases s with
    | nil => exact (h.findLoop_cl100kPattern_nil 0 adj).symm
    | cons c cs => simp at hl
  | succ fuel ih =>
    intro s hl adj
    cases s with
    | nil => exact (h.findLoop_cl100kPattern_nil (fuel + 1) adj).symm
    | cons c cs =>
      have hm := h.matchAt_cl100kPattern (c :: cs) (by simp)
      have hpos := Cl100k.nextChunkLen_pos (c :: cs)
      show (c :: cs).take (Cl100k.nextChunkLen (c :: cs)) ::
          CodePoint.splitCodePoints Cl100k.nextChunkLen fuel
            ((c :: cs).drop (Cl100k.nextChunkLen (c :: cs))) =
        findStep C cl100kPattern (findLoop C cl100kPattern (fuel + 1)) adj (c :: cs)
      unfold findStep
      rw [hm]
      dsimp only
      have hlt : ((c :: cs).drop (Cl100k.nextChunkLen (c :: cs))).length < (c :: cs).length := by
        simp only [List.length_drop, List.length_cons]
        omega
      rw [if_pos hlt, take_length_sub_length_drop]
      congr 1
      exact ih _ (by simp only [List.length_drop, List.length_cons] at hl ⊢; omega) true

/-- cl100k_base's machine is `findIter` of its pattern, for every `Classes` record that reads
the machine's tables. -/
theorem preTokenizeCodePoints_eq_findIter (s : List Nat) :
    CodePoint.preTokenizeCodePoints Cl100k.nextChunkLen s = findIter C cl100kPattern s :=
  h.splitCodePoints_eq_findLoop s.length s (Nat.le_refl _) false

end ReadsTables

/-- **The cl100k_base pre-tokenizer is its regex** (issue 22, step 3): for every list of code
points, the chunks of the cl100k_base machine are the matches of `find_iter` with tiktoken 0.14's
pattern `'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+|
?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s` under the Unicode classes. -/
theorem preTokenizeCl100k_eq_findIter (cps : List Nat) :
    CodePoint.preTokenizeCodePoints Cl100k.nextChunkLen cps =
      findIter unicodeClasses cl100kPattern cps :=
  readsTables_unicodeClasses.preTokenizeCodePoints_eq_findIter cps

/-- **From bytes**: `preTokenizeCl100k data` is the chunks of UTF-8 units
`unitChunks Cl100k.nextChunkLen data`, flattened; read as code points, those chunks are the matches
of `find_iter` with cl100k_base's pattern on the code points the machine decodes from `data`. -/
theorem unitChunks_cl100k_eq_findIter (data : Bytes) :
    preTokenizeCl100k data = (CodePoint.unitChunks Cl100k.nextChunkLen data).map List.flatten ∧
      (CodePoint.unitChunks Cl100k.nextChunkLen data).map (·.map CodePoint.unitCodePoint) =
        findIter unicodeClasses cl100kPattern (CodePoint.codePoints data) :=
  ⟨CodePoint.preTokenizeWith_eq_map_flatten _ data,
    (CodePoint.map_unitChunks _ data).trans (preTokenizeCl100k_eq_findIter _)⟩

/-- **The cl100k_base pre-tokenizer on a string is its regex**: the byte chunks of
`preTokenizeCl100k (stringBytes s)` are the UTF-8 encodings of lists of characters whose code
points are the matches of `find_iter` with cl100k_base's pattern on the string's code points. -/
theorem preTokenizeCl100k_stringBytes (s : String) :
    ∃ chunks : List (List Char),
      preTokenizeCl100k (stringBytes s) = chunks.map (·.flatMap String.utf8EncodeChar) ∧
        chunks.map (·.map Char.toNat) =
          findIter unicodeClasses cl100kPattern (s.toList.map Char.toNat) := by
  obtain ⟨cs, hcs⟩ := CodePoint.exists_unitChunks_stringBytes Cl100k.nextChunkLen s
  obtain ⟨h1, h2⟩ := unitChunks_cl100k_eq_findIter (stringBytes s)
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
