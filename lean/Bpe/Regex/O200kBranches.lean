module

public import Bpe.Regex.O200kClasses
public import Bpe.Regex.Cl100kBranches

/-!
# Each branch of o200k_base's pattern is the Unicode machine's branch

For each of the seven alternatives of `o200kPattern`, every `Classes` record `C` with
`ReadsTablesO200k C` and every list of code points `s`, the matcher run on `s` with the
continuation `some` ends after exactly the length that the corresponding branch of
`Bpe.O200k.nextChunkLen` returns, and fails where it is 0:

`matchRe C branch false s some = if n = 0 then none else some (s.drop n)`

with `n` = `O200k.matchWordCased s`, `O200k.matchWordUpper s`, `CodePoint.matchDigits s`,
`O200k.matchPunct s`, `CodePoint.matchNewlineWs s`, `CodePoint.matchTrailingWs s`,
`CodePoint.matchWs s` (`ReadsTablesO200k.matchRe_wordCased`, …, `ReadsTablesO200k.matchRe_ws`).

The word branches are where the engine backtracks. `U*W+` after a greedy `U` run tries the `W`
run at every earlier end of the `U` run, from the last back (`greedy`): the first that is
followed by a `W` code point wins, i.e. the machine's `casedCore` (`greedy_casedCore`, by
induction on the input with `casedCore_cons_of_upper`). The optional lead is tried first and
dropped when the rest fails (`orElse_withLead`), and `C?` before `some` always succeeds
(`greedy_comp_some`: a greedy loop before a continuation that always succeeds stops at the end of
its run). `\s*[\r\n]+` backs off to the last newline of the white-space run, where the newline run
has length one (`greedy_whiteSpace_newlines`).
-/

@[expose] public section

namespace Bpe.O200k

open Bpe

theorem casedCore_cons_of_upper {x : Nat} (hx : isUpperClass x = true) (t : List Nat) :
    casedCore (x :: t) =
      if casedCore t = 0 then (if isLowerClass x then 1 else 0) else casedCore t + 1 := by
  simp only [casedCore, CodePoint.runLength, hx, if_true, CodePoint.dropCodePoints_eq,
    List.drop_succ_cons, lastLowerEnd]
  generalize CodePoint.runLength isUpperClass t = u
  generalize CodePoint.runLength isLowerClass (t.drop u) = w
  generalize lastLowerEnd u t = r
  by_cases hw : w = 0
  · subst hw
    by_cases hr : r = 0 <;> simp [hr]
  · have hw' : u + w ≠ 0 := by omega
    simp [hw]
    omega

theorem casedCore_cons_of_not_upper {x : Nat} (hx : isUpperClass x = false) (t : List Nat) :
    casedCore (x :: t) = Regex.runLen isLowerClass (x :: t) := by
  have e : lastLowerEnd 0 (x :: t) = 0 := rfl
  simp only [casedCore, CodePoint.runLength, hx, CodePoint.dropCodePoints_eq,
    CodePoint.runLength_eq_runLen, Bool.false_eq_true, ↓reduceIte, List.drop_zero, e]
  split <;> simp_all

theorem runLen_lower_of_casedCore_eq_zero (t : List Nat) (h : casedCore t = 0) :
    Regex.runLen isLowerClass t = 0 := by
  cases t with
  | nil => rfl
  | cons x t =>
    cases hx : isUpperClass x
    · rw [casedCore_cons_of_not_upper hx] at h
      exact h
    · rw [casedCore_cons_of_upper hx] at h
      cases hw : isLowerClass x
      · simp [hw]
      · simp only [hw, if_true] at h
        split at h <;> omega

/-- `matchPunct` when the first code point is not a space: no lead. -/
theorem matchPunct_cons_of_ne {c : Nat} (h32 : c ≠ 32) (cs : List Nat) :
    matchPunct (c :: cs) = (let n := Regex.runLen CodePoint.isPunct (c :: cs)
      if n = 0 then 0 else n + Regex.runLen isPunctTail ((c :: cs).drop n)) := by
  simp only [matchPunct, CodePoint.runLength_eq_runLen, CodePoint.dropCodePoints_eq]
  split
  · next h' => exact absurd (List.cons.inj h').1 h32
  · simp

end Bpe.O200k

namespace Bpe.Regex

open Bpe

/-- A greedy loop before a continuation that always succeeds stops at the end of its run. -/
theorem greedy_comp_some (p : Nat → Bool) (f : List Nat → List Nat) :
    ∀ s : List Nat, greedy p (fun t => some (f t)) s = some (f (s.drop (runLen p s)))
  | [] => rfl
  | x :: t => by cases h : p x <;> simp [h, greedy_comp_some p f t]

/-- One code point of `p`, then a greedy loop of `p` before a continuation that always
succeeds. -/
theorem step_greedy_comp_some (p : Nat → Bool) (f : List Nat → List Nat) (s : List Nat) :
    step p (greedy p fun t => some (f t)) s =
      if runLen p s = 0 then none else some (f (s.drop (runLen p s))) := by
  cases s with
  | nil => rfl
  | cons x t => cases h : p x <;> simp [h, greedy_comp_some]

/-- `U*W+` before a continuation that always succeeds: the machine's `casedCore`, the greedy
`U` run backed off to the last point where a `W` code point follows. -/
theorem greedy_casedCore (f : List Nat → List Nat) : ∀ t : List Nat,
    greedy O200k.isUpperClass
        (step O200k.isLowerClass (greedy O200k.isLowerClass fun t => some (f t))) t =
      if O200k.casedCore t = 0 then none else some (f (t.drop (O200k.casedCore t)))
  | [] => rfl
  | x :: t => by
    rw [greedy_cons]
    cases hx : O200k.isUpperClass x
    · rw [O200k.casedCore_cons_of_not_upper hx, step_greedy_comp_some]
      rfl
    · rw [greedy_casedCore f t, O200k.casedCore_cons_of_upper hx, step_greedy_comp_some]
      by_cases hc : O200k.casedCore t = 0
      · have hw := O200k.runLen_lower_of_casedCore_eq_zero t hc
        cases hl : O200k.isLowerClass x <;> simp [hc, hl, hw]
      · simp [hc]

/-- `U+W*` before a continuation that always succeeds: the machine's `upperCore`. -/
theorem step_greedy_upperCore (f : List Nat → List Nat) (t : List Nat) :
    step O200k.isUpperClass
        (greedy O200k.isUpperClass fun t' => greedy O200k.isLowerClass (fun t => some (f t)) t')
        t =
      if O200k.upperCore t = 0 then none else some (f (t.drop (O200k.upperCore t))) := by
  simp only [greedy_comp_some]
  rw [step_greedy_comp_some]
  simp only [O200k.upperCore, CodePoint.runLength_eq_runLen, CodePoint.dropCodePoints_eq]
  by_cases h0 : runLen O200k.isUpperClass t = 0
  · simp [h0]
  · have h1 : runLen O200k.isUpperClass t + runLen O200k.isLowerClass
        (t.drop (runLen O200k.isUpperClass t)) ≠ 0 := by omega
    simp [h0, List.drop_drop]

/-- The optional lead `[^\r\n\p{L}\p{N}]?` before a core: the machine's `withLead`. -/
theorem orElse_withLead (core : List Nat → Nat) (f : List Nat → List Nat) (K : Cont)
    (hK : ∀ t, K t = if core t = 0 then none else some (f (t.drop (core t)))) (s : List Nat) :
    (step CodePoint.isWordLead K s).orElse (fun _ => K s) =
      if O200k.withLead core s = 0 then none
      else some (f (s.drop (O200k.withLead core s))) := by
  cases s with
  | nil => simp [O200k.withLead, hK]
  | cons c cs =>
    cases hw : CodePoint.isWordLead c
    · simp [O200k.withLead, hw, hK]
    · by_cases h0 : core cs = 0
      · simp [O200k.withLead, hw, hK, h0]
      · simp [O200k.withLead, hw, hK, h0]

/-- A word of `n` code points, then `C?`: the machine's `withContraction`. -/
theorem withContraction_eq (n : Nat) (s : List Nat) :
    (if n = 0 then none else some ((s.drop n).drop (CodePoint.matchContraction (s.drop n)))) =
      if O200k.withContraction n s = 0 then none
      else some (s.drop (O200k.withContraction n s)) := by
  by_cases h : n = 0
  · simp [h, O200k.withContraction]
  · have h' : n + CodePoint.matchContraction (s.drop n) ≠ 0 := by omega
    simp [h, O200k.withContraction, List.drop_drop]

/-- `\s*` before `[\r\n]+`: the machine's `lastNewlineEnd` over the white-space run. -/
theorem greedy_whiteSpace_newlines (s : List Nat) :
    greedy Unicode.isWhiteSpace (fun s' => step CodePoint.isNewline
        (greedy CodePoint.isNewline some) s') s =
      if CodePoint.matchNewlineWs s = 0 then none
      else some (s.drop (CodePoint.matchNewlineWs s)) := by
  induction s with
  | nil => rfl
  | cons c cs ih =>
    simp only [CodePoint.matchNewlineWs] at ih ⊢
    simp only [step_greedy_some] at ih ⊢
    simp only [greedy_cons, CodePoint.runLength]
    cases hS : Unicode.isWhiteSpace c
    · have hN : CodePoint.isNewline c = false := by
        cases h : CodePoint.isNewline c
        · rfl
        · have := isWhiteSpace_of_isNewline h
          rw [hS] at this
          exact absurd this (by decide)
      simp [hN, CodePoint.lastNewlineEnd]
    · by_cases h : CodePoint.lastNewlineEnd (CodePoint.runLength Unicode.isWhiteSpace cs) cs = 0
      · have hcs : runLen CodePoint.isNewline cs = 0 := by
          cases cs with
          | nil => rfl
          | cons d ds =>
            cases hd : CodePoint.isNewline d
            · simp [hd]
            · have hdS := isWhiteSpace_of_isNewline hd
              simp [CodePoint.runLength, hdS, CodePoint.lastNewlineEnd, hd] at h
              split at h <;> omega
        cases hn : CodePoint.isNewline c <;> simp [CodePoint.lastNewlineEnd, ih, h, hn, hcs]
      · simp [CodePoint.lastNewlineEnd, ih, h]

namespace ReadsTablesO200k

variable {C : Classes} (h : ReadsTablesO200k C)
include h

/-- `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:…)?` is
`O200k.matchWordCased`. -/
theorem matchRe_wordCased (s : List Nat) :
    matchRe C (seqs (opt wordLead) [many upperish, plus lowerish, contractionsO200k]) false s
        some =
      if O200k.matchWordCased s = 0 then none else some (s.drop (O200k.matchWordCased s)) := by
  simp only [seqs, opt, many, plus, matchRe_seq,
    matchRe_opt C wordLead false CodePoint.isWordLead h.toReadsTables.matchRe_wordLead,
    matchRe_star_eq_greedy C upperish false O200k.isUpperClass h.matchRe_upperish,
    matchRe_plus_eq_step_greedy C lowerish false O200k.isLowerClass h.matchRe_lowerish,
    h.matchRe_contractionsO200k]
  rw [orElse_withLead O200k.casedCore (fun t => t.drop (CodePoint.matchContraction t)) _
    (greedy_casedCore _)]
  exact withContraction_eq _ s

/-- `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:…)?` is
`O200k.matchWordUpper`. -/
theorem matchRe_wordUpper (s : List Nat) :
    matchRe C (seqs (opt wordLead) [plus upperish, many lowerish, contractionsO200k]) false s
        some =
      if O200k.matchWordUpper s = 0 then none else some (s.drop (O200k.matchWordUpper s)) := by
  simp only [seqs, opt, many, plus, matchRe_seq,
    matchRe_opt C wordLead false CodePoint.isWordLead h.toReadsTables.matchRe_wordLead,
    matchRe_plus_eq_step_greedy C upperish false O200k.isUpperClass h.matchRe_upperish,
    matchRe_star_eq_greedy C lowerish false O200k.isLowerClass h.matchRe_lowerish,
    h.matchRe_contractionsO200k]
  rw [orElse_withLead O200k.upperCore (fun t => t.drop (CodePoint.matchContraction t)) _
    (step_greedy_upperCore _)]
  exact withContraction_eq _ s

/-- `\p{N}{1,3}` is `CodePoint.matchDigits`. -/
theorem matchRe_digits (s : List Nat) :
    matchRe C digits3 false s some =
      if CodePoint.matchDigits s = 0 then none
      else some (s.drop (CodePoint.matchDigits s)) := by
  rw [digits3, matchRe_rep_upTo_some C pN false Unicode.isN h.toReadsTables.matchRe_pN 3
    (by decide) s]
  simp only [CodePoint.matchDigits, CodePoint.runLength_eq_runLen]
  by_cases h0 : runLen Unicode.isN s = 0
  · simp [h0]
  · have h3 : min 3 (runLen Unicode.isN s) ≠ 0 := by omega
    simp [h0, h3]

/-- ` ?[^\s\p{L}\p{N}]+[\r\n/]*` is `O200k.matchPunct`. -/
theorem matchRe_punctRun (s : List Nat) :
    matchRe C (seqs (opt (ch ' ')) [plus punct,
        many (.cls (.set false [it '\r', it '\n', it '/']))]) false s some =
      if O200k.matchPunct s = 0 then none else some (s.drop (O200k.matchPunct s)) := by
  simp only [seqs, opt, plus, many, matchRe_seq,
    matchRe_opt C (ch ' ') false (· == 32) (matchRe_space C),
    matchRe_plus_eq_step_greedy C punct false CodePoint.isPunct h.toReadsTables.matchRe_punct,
    matchRe_star_eq_greedy C _ false O200k.isPunctTail (matchRe_punctTailClass C), greedy_some]
  simp only [step_greedy_comp_some]
  cases s with
  | nil => rfl
  | cons c cs =>
    by_cases h32 : c = 32
    · subst h32
      have hp : runLen CodePoint.isPunct (32 :: cs) = 0 := by simp [isPunct_32]
      by_cases h0 : runLen CodePoint.isPunct cs = 0
      · simp [O200k.matchPunct, hp, h0, CodePoint.runLength_eq_runLen]
      · have h1 : 1 + runLen CodePoint.isPunct cs + runLen O200k.isPunctTail
            (cs.drop (runLen CodePoint.isPunct cs)) ≠ 0 := by omega
        simp [O200k.matchPunct, hp, h0, CodePoint.runLength_eq_runLen, List.drop_drop]
        have e2 : List.drop (1 + runLen CodePoint.isPunct cs) (32 :: cs) =
            List.drop (runLen CodePoint.isPunct cs) cs := by
          rw [Nat.add_comm, List.drop_succ_cons]
        have e3 : 1 + runLen CodePoint.isPunct cs + runLen O200k.isPunctTail
            (List.drop (runLen CodePoint.isPunct cs) cs) = runLen CodePoint.isPunct cs +
              runLen O200k.isPunctTail (List.drop (runLen CodePoint.isPunct cs) cs) + 1 := by
          omega
        rw [e2, e3, List.drop_succ_cons]
    · have hc : (c == 32) = false := by simpa using h32
      rw [O200k.matchPunct_cons_of_ne h32 cs]
      simp only [step_cons, hc, Bool.false_eq_true, if_false]
      generalize runLen CodePoint.isPunct (c :: cs) = n
      by_cases h0 : n = 0
      · simp [h0]
      · have h1 : n + runLen O200k.isPunctTail ((c :: cs).drop n) ≠ 0 := by omega
        simp [h0, List.drop_drop]

/-- `\s*[\r\n]+` is `CodePoint.matchNewlineWs`. -/
theorem matchRe_newlines (s : List Nat) :
    matchRe C (.seq (many ws) (plus newline)) false s some =
      if CodePoint.matchNewlineWs s = 0 then none
      else some (s.drop (CodePoint.matchNewlineWs s)) := by
  rw [matchRe_seq, many,
    matchRe_star_eq_greedy C ws false Unicode.isWhiteSpace h.toReadsTables.matchRe_ws]
  simp only [plus, matchRe_plus_eq_step_greedy C newline false CodePoint.isNewline
    (matchRe_newline C)]
  exact greedy_whiteSpace_newlines s

/-- `\s+(?!\S)` is `CodePoint.matchTrailingWs` (as for cl100k_base). -/
theorem matchRe_trailingWs (s : List Nat) :
    matchRe C trailingWs false s some =
      if CodePoint.matchTrailingWs s = 0 then none
      else some (s.drop (CodePoint.matchTrailingWs s)) :=
  h.toReadsTables.matchRe_trailingWs s

/-- `\s+` is `CodePoint.matchWs`. -/
theorem matchRe_ws (s : List Nat) :
    matchRe C otherWs false s some =
      if CodePoint.matchWs s = 0 then none else some (s.drop (CodePoint.matchWs s)) := by
  rw [otherWs, plus, matchRe_plus_some C ws false Unicode.isWhiteSpace
    h.toReadsTables.matchRe_ws false s]
  simp only [CodePoint.matchWs, CodePoint.runLength_eq_runLen]

end ReadsTablesO200k

end Bpe.Regex
