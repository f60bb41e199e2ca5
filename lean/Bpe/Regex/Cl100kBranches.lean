module

public import Bpe.Regex.Cl100kClasses
public import Bpe.Regex.SeedBranches

/-!
# Each branch of cl100k_base's pattern is the Unicode machine's branch

For each of the eight alternatives of `cl100kPattern`, every `Classes` record `C` with
`ReadsTables C` (the Unicode instance `unicodeClasses` is one, `readsTables_unicodeClasses`) and
every list of code points `s` (any natural numbers: no validity hypothesis), the matcher run on
`s` with the continuation `some` (as `matchAt` runs the alternation) ends after exactly the length
that the corresponding branch of `Bpe.Cl100k.nextChunkLen` returns, and fails where it is 0:

`matchRe C branch false s some = if n = 0 then none else some (s.drop n)`

with `n` = `CodePoint.matchContraction s`, `Cl100k.matchWord s`, `CodePoint.matchDigits s`,
`Cl100k.matchPunct s`, `Cl100k.matchEndWs s`, `CodePoint.matchNewlineWs s`,
`CodePoint.matchTrailingWs s`, `Cl100k.matchOneWs s` (`ReadsTables.matchRe_contraction`, …,
`ReadsTables.matchRe_oneWs`). `\s++$` is the branch the seed's pattern lacks; `\s+(?!\S)` is
`greedy_notAhead`.
-/

@[expose] public section

namespace Bpe.CodePoint

/-- The machine's run length is the matcher's. -/
theorem runLength_eq_runLen (p : Nat → Bool) : ∀ s : List Nat, runLength p s = Regex.runLen p s
  | [] => rfl
  | c :: cs => by simp only [runLength, Regex.runLen_cons, runLength_eq_runLen p cs]

end Bpe.CodePoint

namespace Bpe.Regex

open Bpe

theorem runLen_le_length (p : Nat → Bool) : ∀ s : List Nat, runLen p s ≤ s.length
  | [] => Nat.le_refl _
  | c :: cs => by
    have := runLen_le_length p cs
    simp only [runLen_cons, List.length_cons]
    split <;> omega

/-- A newline is white space. -/
theorem isWhiteSpace_of_isNewline {c : Nat} (hc : CodePoint.isNewline c = true) :
    Unicode.isWhiteSpace c = true := by
  have h : c = 10 ∨ c = 13 := by
    simp only [CodePoint.isNewline, Bool.or_eq_true, beq_iff_eq] at hc
    exact hc
  rcases h with rfl | rfl <;> decide

theorem isPunct_32 : CodePoint.isPunct 32 = false := by decide

/-- `[^\s\p{L}\p{N}]++[\r\n]*+` before `some` is the machine's `Cl100k.punctTail`. -/
theorem punctTail_eq_match (t : List Nat) :
    (if runLen CodePoint.isPunct t = 0 then none
      else some ((t.drop (runLen CodePoint.isPunct t)).drop
        (runLen CodePoint.isNewline (t.drop (runLen CodePoint.isPunct t))))) =
      if Cl100k.punctTail t = 0 then none else some (t.drop (Cl100k.punctTail t)) := by
  simp only [Cl100k.punctTail, CodePoint.runLength_eq_runLen, CodePoint.dropCodePoints_eq]
  by_cases h : runLen CodePoint.isPunct t = 0
  · simp [h]
  · have h' : runLen CodePoint.isPunct t + runLen CodePoint.isNewline
        (t.drop (runLen CodePoint.isPunct t)) ≠ 0 := by omega
    simp only [h, h', if_false, beq_iff_eq, List.drop_drop]

/-- `\s*` before `[\r\n]`: the machine's `lastNewlineEnd` over the whitespace run. -/
theorem greedy_whiteSpace_newline (s : List Nat) :
    greedy Unicode.isWhiteSpace (fun s' => step CodePoint.isNewline some s') s =
      if CodePoint.matchNewlineWs s = 0 then none
      else some (s.drop (CodePoint.matchNewlineWs s)) := by
  induction s with
  | nil => rfl
  | cons c cs ih =>
    simp only [CodePoint.matchNewlineWs] at ih ⊢
    simp only [greedy_cons, CodePoint.runLength, step_cons]
    cases hS : Unicode.isWhiteSpace c
    · have hN : CodePoint.isNewline c = false := by
        cases h : CodePoint.isNewline c
        · rfl
        · have := isWhiteSpace_of_isNewline h
          rw [hS] at this
          exact absurd this (by decide)
      simp [hN, CodePoint.lastNewlineEnd]
    · by_cases h : CodePoint.lastNewlineEnd (CodePoint.runLength Unicode.isWhiteSpace cs) cs = 0
      · cases hn : CodePoint.isNewline c <;> simp [CodePoint.lastNewlineEnd, ih, h, hn]
      · simp [CodePoint.lastNewlineEnd, ih, h]

namespace ReadsTables

variable {C : Classes} (h : ReadsTables C)
include h

/-- `'(?i:[sdmt]|ll|ve|re)` is `CodePoint.matchContraction`. -/
theorem matchRe_contraction (s : List Nat) :
    matchRe C contractionsCl100k false s some =
      if CodePoint.matchContraction s = 0 then none
      else some (s.drop (CodePoint.matchContraction s)) := by
  have hl := h.charHolds_fold 108 (by decide)
  have hv := h.charHolds_fold 118 (by decide)
  have hr := h.charHolds_fold 114 (by decide)
  have he := h.charHolds_fold 101 (by decide)
  match s with
  | [] => rfl
  | [q] =>
    rw [show CodePoint.matchContraction [q] = 0 from rfl]
    simp only [contractionsCl100k_eq, matchRe_seq, matchRe_char, matchRe_caseless, matchRe_alt,
      matchRe_cls, step_cons, step_nil]
    simp
  | q :: c :: rest =>
    cases rest with
    | nil =>
      simp only [contractionsCl100k_eq, matchRe_seq, matchRe_char, matchRe_caseless,
        matchRe_alt, matchRe_cls, step_cons, step_nil, h.classHolds_sdmt,
        CodePoint.matchContraction, charHolds]
      generalize CodePoint.foldCase c = a
      by_cases hq : q = 39
      · by_cases hs : (a == 115 || a == 100 || a == 109 || a == 116) = true
        · simp [hs, hq]
        · simp [hs, hq]
      · simp [hq]
    | cons e r =>
      simp only [contractionsCl100k_eq, matchRe_seq, matchRe_char, matchRe_caseless,
        matchRe_alt, matchRe_cls, step_cons, h.classHolds_sdmt, hl, hv, hr, he,
        CodePoint.matchContraction]
      have hq39 : charHolds C false 39 q = (q == 39) := by simp [charHolds]
      rw [hq39]
      generalize CodePoint.foldCase c = a
      generalize CodePoint.foldCase e = a'
      by_cases hq : q = 39
      · by_cases hs : (a == 115 || a == 100 || a == 109 || a == 116) = true
        · simp [hs, hq]
        · by_cases h1 : a = 108 <;> by_cases h2 : a = 118 <;> by_cases h3 : a = 114 <;>
            by_cases h4 : a' = 108 <;> by_cases h5 : a' = 101 <;>
            (try simp [hs, hq, h1, h2, h3, h4, h5]) <;> omega
      · simp [hq]

/-- `[^\r\n\p{L}\p{N}]?+\p{L}++` is `Cl100k.matchWord`. -/
theorem matchRe_word (s : List Nat) :
    matchRe C (.seq (optPoss wordLead) (plusPoss pL)) false s some =
      if Cl100k.matchWord s = 0 then none else some (s.drop (Cl100k.matchWord s)) := by
  simp only [optPoss, plusPoss, matchRe_seq,
    matchRe_optPoss C wordLead false CodePoint.isWordLead h.matchRe_wordLead,
    matchRe_plus_some C pL false Unicode.isL h.matchRe_pL]
  cases s with
  | nil => simp [Cl100k.matchWord]
  | cons c cs =>
    simp only [Cl100k.matchWord, CodePoint.runLength_eq_runLen, runLen_cons]
    cases hL : Unicode.isL c
    · cases hW : CodePoint.isWordLead c
      · simp [hL]
      · by_cases h0 : runLen Unicode.isL cs = 0
        · simp [h0]
        · simp [h0]
    · have hW : CodePoint.isWordLead c = false := by simp [CodePoint.isWordLead, hL]
      simp [hL, hW]

/-- `\p{N}{1,3}+` is `CodePoint.matchDigits`. -/
theorem matchRe_digits (s : List Nat) :
    matchRe C (.rep pN 1 (some 3) true) false s some =
      if CodePoint.matchDigits s = 0 then none
      else some (s.drop (CodePoint.matchDigits s)) := by
  have e := matchRe_rep_upTo_some C pN false Unicode.isN h.matchRe_pN 3 (by decide) s
  show (match matchRe C (.rep pN 1 (some 3) false) false s some with
    | some e => some e
    | none => none) = _
  rw [e]
  simp only [CodePoint.matchDigits, CodePoint.runLength_eq_runLen]
  by_cases h0 : runLen Unicode.isN s = 0
  · simp [h0]
  · have h3 : min 3 (runLen Unicode.isN s) ≠ 0 := by omega
    simp [h0, h3]

/-- ` ?[^\s\p{L}\p{N}]++[\r\n]*+` is `Cl100k.matchPunct`. -/
theorem matchRe_punctRun (s : List Nat) :
    matchRe C (seqs (opt (ch ' ')) [plusPoss punct, manyPoss newline]) false s some =
      if Cl100k.matchPunct s = 0 then none else some (s.drop (Cl100k.matchPunct s)) := by
  simp only [seqs, opt, plusPoss, manyPoss, matchRe_seq,
    matchRe_opt C (ch ' ') false (· == 32) (matchRe_space C),
    matchRe_plusPoss C punct false CodePoint.isPunct h.matchRe_punct,
    matchRe_star_some C newline false CodePoint.isNewline (matchRe_newline C)]
  cases s with
  | nil => rfl
  | cons c cs =>
    rw [punctTail_eq_match (c :: cs)]
    simp only [step_cons, Cl100k.matchPunct]
    by_cases h32 : c = 32
    · subst h32
      have hnone : Cl100k.punctTail (32 :: cs) = 0 := by
        simp [Cl100k.punctTail, CodePoint.runLength, isPunct_32]
      rw [punctTail_eq_match cs, hnone]
      by_cases h0 : Cl100k.punctTail cs = 0
      · simp [h0]
      · simp [h0]
    · simp [h32]

/-- `\s++$` is `Cl100k.matchEndWs`. -/
theorem matchRe_endWs (s : List Nat) :
    matchRe C (.seq (plusPoss ws) .eos) false s some =
      if Cl100k.matchEndWs s = 0 then none else some (s.drop (Cl100k.matchEndWs s)) := by
  simp only [plusPoss, matchRe_seq, matchRe_eos,
    matchRe_plusPoss C ws false Unicode.isWhiteSpace h.matchRe_ws]
  simp only [Cl100k.matchEndWs, CodePoint.runLength_eq_runLen, CodePoint.reachesEnd_eq]
  by_cases h0 : runLen Unicode.isWhiteSpace s = 0
  · simp [h0]
  · by_cases he : (s.drop (runLen Unicode.isWhiteSpace s)).isEmpty = true
    · simp [h0, he]
    · simp [h0, he]

/-- `\s*[\r\n]` is `CodePoint.matchNewlineWs`. -/
theorem matchRe_newlineWs (s : List Nat) :
    matchRe C newlineWs false s some =
      if CodePoint.matchNewlineWs s = 0 then none
      else some (s.drop (CodePoint.matchNewlineWs s)) := by
  rw [newlineWs, matchRe_seq, many,
    matchRe_star_eq_greedy C ws false Unicode.isWhiteSpace h.matchRe_ws]
  simp only [matchRe_newline]
  exact greedy_whiteSpace_newline s

/-- `\s+(?!\S)` is `CodePoint.matchTrailingWs`. -/
theorem matchRe_trailingWs (s : List Nat) :
    matchRe C trailingWs false s some =
      if CodePoint.matchTrailingWs s = 0 then none
      else some (s.drop (CodePoint.matchTrailingWs s)) := by
  have e : matchRe C trailingWs false s some = step Unicode.isWhiteSpace
      (greedy Unicode.isWhiteSpace (notAheadK (classHolds C false (.esc true .whiteSpace)))) s := by
    show matchRe C (.rep ws 1 none false) false s
        (fun s' => matchRe C (.notAhead notWs) false s' some) = _
    exact matchRe_plus_eq_step_greedy C ws false Unicode.isWhiteSpace h.matchRe_ws _ _
  rw [e]
  cases s with
  | nil => rfl
  | cons c cs =>
    simp only [step_cons, CodePoint.matchTrailingWs, CodePoint.runLength,
      CodePoint.runLength_eq_runLen, CodePoint.reachesEnd_eq]
    cases hS : Unicode.isWhiteSpace c
    · simp
    · rw [greedy_notAhead Unicode.isWhiteSpace _ h.classHolds_notWhiteSpace]
      have hle := runLen_le_length Unicode.isWhiteSpace cs
      by_cases h1 : runLen Unicode.isWhiteSpace cs = cs.length
      · simp [h1]
      · have hne : (cs.drop (runLen Unicode.isWhiteSpace cs)).isEmpty = false := by
          cases hd : cs.drop (runLen Unicode.isWhiteSpace cs) with
          | nil =>
            have := congrArg List.length hd
            simp only [List.length_drop, List.length_nil] at this
            omega
          | cons _ _ => rfl
        by_cases h2 : runLen Unicode.isWhiteSpace cs = 0
        · rw [h2] at h1
          have hcs : cs ≠ [] := by
            rintro rfl
            exact h1 rfl
          simp [h1, h2, hcs]
        · obtain ⟨r, hr⟩ : ∃ r, runLen Unicode.isWhiteSpace cs = r + 1 :=
            ⟨runLen Unicode.isWhiteSpace cs - 1, by omega⟩
          rw [hr] at h1 hne
          simp [hr, h1, hne]

/-- `\s` is `Cl100k.matchOneWs`. -/
theorem matchRe_oneWs (s : List Nat) :
    matchRe C ws false s some =
      if Cl100k.matchOneWs s = 0 then none else some (s.drop (Cl100k.matchOneWs s)) := by
  rw [h.matchRe_ws]
  cases s with
  | nil => rfl
  | cons c cs =>
    cases hS : Unicode.isWhiteSpace c <;> simp [Cl100k.matchOneWs, hS]

end ReadsTables

end Bpe.Regex
