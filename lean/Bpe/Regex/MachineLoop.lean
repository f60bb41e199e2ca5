module

public import Bpe.Regex.SeedAscii
public import Bpe.Unicode.Utf8CodePoints

/-!
# A code-point machine whose step is `matchAt` is `findIter`

The last step of each machine's proof, for any pattern `re`, classes `C` and chunk-length
function `next`: if on non-empty input the pattern's anchored match ends after `next s` code
points (`0 < next s`) and on empty input it fails, then the code-point loop
`CodePoint.preTokenizeCodePoints next` is `findIter C re` on every list of code points
(`preTokenizeCodePoints_eq_findIter_of_matchAt`). The two bridges follow from that equality
alone: from bytes (`unitChunks_eq_findIter`: the machine's chunks of UTF-8 units, read as code
points, are `findIter`'s matches on the code points the machine decodes) and from strings
(`preTokenizeWith_stringBytes`: on a string's bytes the chunks are the UTF-8 encodings of the
matches on the string's own code points).
-/

@[expose] public section

namespace Bpe.Regex

open Bpe

variable {C : Classes} {re : Re} {next : List Nat → Nat}

/-- The two loops agree: `splitCodePoints` with enough fuel is `findLoop` with one more. -/
theorem splitCodePoints_eq_findLoop_of_matchAt (hpos : ∀ s, 0 < next s)
    (hm : ∀ s, s ≠ [] → matchAt C re s = some (s.drop (next s)))
    (hnil : matchAt C re [] = none) (fuel : Nat) :
    ∀ (s : List Nat), s.length ≤ fuel → ∀ adj : Bool,
      CodePoint.splitCodePoints next fuel s = findLoop C re (fuel + 1) adj s := by
  have hloop : ∀ (fuel : Nat) (adj : Bool), findLoop C re (fuel + 1) adj [] = [] := by
    intro fuel adj
    show findStep C re (findLoop C re fuel) adj [] = []
    simp only [findStep, hnil]
  induction fuel with
  | zero =>
    intro s hl adj
    cases s with
    | nil => exact (hloop 0 adj).symm
    | cons c cs => simp at hl
  | succ fuel ih =>
    intro s hl adj
    cases s with
    | nil => exact (hloop (fuel + 1) adj).symm
    | cons c cs =>
      have hmc := hm (c :: cs) (by simp)
      have hp := hpos (c :: cs)
      show (c :: cs).take (next (c :: cs)) ::
          CodePoint.splitCodePoints next fuel ((c :: cs).drop (next (c :: cs))) =
        findStep C re (findLoop C re (fuel + 1)) adj (c :: cs)
      unfold findStep
      rw [hmc]
      dsimp only
      have hlt : ((c :: cs).drop (next (c :: cs))).length < (c :: cs).length := by
        simp only [List.length_drop, List.length_cons]
        omega
      rw [if_pos hlt, take_length_sub_length_drop]
      congr 1
      exact ih _ (by simp only [List.length_drop, List.length_cons] at hl ⊢; omega) true

/-- A machine whose anchored step is the pattern's `matchAt` is `findIter` of the pattern. -/
theorem preTokenizeCodePoints_eq_findIter_of_matchAt (hpos : ∀ s, 0 < next s)
    (hm : ∀ s, s ≠ [] → matchAt C re s = some (s.drop (next s)))
    (hnil : matchAt C re [] = none) (s : List Nat) :
    CodePoint.preTokenizeCodePoints next s = findIter C re s :=
  splitCodePoints_eq_findLoop_of_matchAt hpos hm hnil s.length s (Nat.le_refl _) false

/-- **From bytes**: `preTokenizeWith next data` is the chunks of UTF-8 units flattened; read as
code points, those chunks are `findIter`'s matches on the code points decoded from `data`. -/
theorem unitChunks_eq_findIter
    (h : ∀ cps, CodePoint.preTokenizeCodePoints next cps = findIter C re cps) (data : Bytes) :
    CodePoint.preTokenizeWith next data = (CodePoint.unitChunks next data).map List.flatten ∧
      (CodePoint.unitChunks next data).map (·.map CodePoint.unitCodePoint) =
        findIter C re (CodePoint.codePoints data) :=
  ⟨CodePoint.preTokenizeWith_eq_map_flatten _ data,
    (CodePoint.map_unitChunks _ data).trans (h _)⟩

/-- **From strings**: the byte chunks of `preTokenizeWith next (stringBytes s)` are the UTF-8
encodings of lists of characters whose code points are `findIter`'s matches on the string's
code points. -/
theorem preTokenizeWith_stringBytes
    (h : ∀ cps, CodePoint.preTokenizeCodePoints next cps = findIter C re cps) (s : String) :
    ∃ chunks : List (List Char),
      CodePoint.preTokenizeWith next (stringBytes s) =
          chunks.map (·.flatMap String.utf8EncodeChar) ∧
        chunks.map (·.map Char.toNat) = findIter C re (s.toList.map Char.toNat) := by
  obtain ⟨cs, hcs⟩ := CodePoint.exists_unitChunks_stringBytes next s
  obtain ⟨h1, h2⟩ := unitChunks_eq_findIter h (stringBytes s)
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
