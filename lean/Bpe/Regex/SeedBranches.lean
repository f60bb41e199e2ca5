module

public import Bpe.Regex.SeedClasses

/-!
# Each branch of the seed's pattern is the machine's branch

For each of the seven alternatives of `seedPattern` and each ASCII byte string `d`, the matcher
run on the code points of `d` with the continuation `some` (as `matchAt` runs the alternation)
ends after exactly the length that the corresponding branch of `Bpe.preTokenizeAscii` returns,
and fails where that length is 0:

`matchRe asciiClasses branch false (d.map UInt8.toNat) some =
  if n = 0 then none else some ((d.map UInt8.toNat).drop n)`

with `n` = `matchContraction d`, `matchWord d`, `matchDigits d`, `matchPunct d`,
`matchNewlineWs d`, `matchTrailingWs d`, `matchOtherWs d`.
-/

@[expose] public section

namespace Bpe.Regex

open Bpe

/-- `'(?i:[sdmt]|ll|ve|re)` with its literals as code points. -/
theorem contractionsCl100k_eq : contractionsCl100k =
    .seq (.char 39) (.caseless
      (.alt (.cls (.set false [.char 115, .char 100, .char 109, .char 116]))
        (.alt (.seq (.char 108) (.char 108)) (.alt (.seq (.char 118) (.char 101))
          (.seq (.char 114) (.char 101)))))) := rfl

theorem matchRe_contractionsCl100k (d : Bytes) (hd : ∀ b ∈ d, isAscii b = true) :
    matchRe asciiClasses contractionsCl100k false (d.map UInt8.toNat) some =
      if matchContraction d = 0 then none
      else some ((d.map UInt8.toNat).drop (matchContraction d)) := by
  match d, hd with
  | [], _ => rfl
  | [q], _ =>
    rw [show matchContraction [q] = 0 from rfl]
    simp only [contractionsCl100k_eq, List.map_cons, List.map_nil, matchRe_seq, matchRe_char,
      matchRe_caseless, matchRe_alt, matchRe_cls, step_cons, step_nil]
    simp
  | q :: c :: rest, hd =>
    have hc : c.toNat < 128 := toNat_lt_of_isAscii (hd c (by simp))
    cases rest with
    | nil =>
      simp only [contractionsCl100k_eq, List.map_cons, List.map_nil, matchRe_seq, matchRe_char,
        matchRe_caseless, matchRe_alt, matchRe_cls, step_cons, step_nil, charHolds_false,
        classHolds_sdmt _ hc, matchContraction, toLower_toNat]
      generalize lowerAscii c.toNat = a
      by_cases hq : q.toNat = 39
      · by_cases hs : (a == 115 || a == 100 || a == 109 || a == 116) = true
        · simp [hs, hq]
        · simp [hs, hq]
      · simp [hq]
    | cons e r =>
      have he : e.toNat < 128 := toNat_lt_of_isAscii (hd e (by simp))
      simp only [contractionsCl100k_eq, List.map_cons, matchRe_seq, matchRe_char,
        matchRe_caseless, matchRe_alt, matchRe_cls, step_cons, charHolds_false,
        classHolds_sdmt _ hc, charHolds_l _ hc, charHolds_v _ hc, charHolds_r _ hc,
        charHolds_l _ he, charHolds_e _ he, matchContraction, toLower_toNat]
      generalize lowerAscii c.toNat = a
      generalize lowerAscii e.toNat = a'
      by_cases hq : q.toNat = 39
      · by_cases hs : (a == 115 || a == 100 || a == 109 || a == 116) = true
        · simp [hs, hq]
        · by_cases h1 : a = 108 <;> by_cases h2 : a = 118 <;> by_cases h3 : a = 114 <;>
            by_cases h4 : a' = 108 <;> by_cases h5 : a' = 101 <;>
            (try simp [hs, hq, h1, h2, h3, h4, h5]) <;> omega
      · simp [hq]

theorem matchRe_word (d : Bytes) (hd : ∀ b ∈ d, isAscii b = true) :
    matchRe asciiClasses (.seq (optPoss wordLead) (plus pL)) false (d.map UInt8.toNat) some =
      if matchWord d = 0 then none else some ((d.map UInt8.toNat).drop (matchWord d)) := by
  simp only [optPoss, plus, matchRe_seq,
    matchRe_optPoss asciiClasses wordLead false asciiWordLead (fun _ _ => rfl),
    matchRe_plus_some asciiClasses pL false asciiLetter (fun _ _ => rfl)]
  cases d with
  | nil => rfl
  | cons b bs =>
    have hb := hd b (by simp)
    simp only [matchWord, isLetter_eq, isWordLead_eq b hb, runLength_isLetter, List.map_cons,
      runLen_cons]
    cases hL : asciiLetter b.toNat
    · cases hW : asciiWordLead b.toNat
      · simp [hL]
      · by_cases h : runLen asciiLetter (bs.map UInt8.toNat) = 0
        · simp [h]
        · simp [h]
    · have hW := asciiWordLead_of_asciiLetter hL
      simp [hL, hW]

theorem matchRe_digits3 (d : Bytes) :
    matchRe asciiClasses digits3 false (d.map UInt8.toNat) some =
      if matchDigits d = 0 then none else some ((d.map UInt8.toNat).drop (matchDigits d)) := by
  rw [digits3, matchRe_rep_upTo_some asciiClasses pN false asciiDigit (fun _ _ => rfl) 3
    (by decide)]
  simp only [matchDigits, runLength_isDigit]
  by_cases h : runLen asciiDigit (d.map UInt8.toNat) = 0
  · simp [h]
  · have h3 : min 3 (runLen asciiDigit (d.map UInt8.toNat)) ≠ 0 := by omega
    rw [if_neg h, if_neg h3]

/-- `[^\s\p{L}\p{N}]++[\r\n]*` before `some` is the machine's `punctTail`. -/
theorem punctTail_eq (d : Bytes) (hd : ∀ b ∈ d, isAscii b = true) :
    (if runLen asciiPunct (d.map UInt8.toNat) = 0 then none
      else some (((d.map UInt8.toNat).drop (runLen asciiPunct (d.map UInt8.toNat))).drop
        (runLen asciiNewline ((d.map UInt8.toNat).drop (runLen asciiPunct (d.map UInt8.toNat)))))) =
      if punctTail d = 0 then none else some ((d.map UInt8.toNat).drop (punctTail d)) := by
  simp only [punctTail, runLength_isPunct d hd, runLength_isNewline, List.map_drop]
  by_cases h : runLen asciiPunct (d.map UInt8.toNat) = 0
  · simp [h]
  · have h' : runLen asciiPunct (d.map UInt8.toNat) + runLen asciiNewline
        ((d.map UInt8.toNat).drop (runLen asciiPunct (d.map UInt8.toNat))) ≠ 0 := by
      omega
    simp only [h, h', if_false, beq_iff_eq, List.drop_drop]

theorem matchRe_punct (d : Bytes) (hd : ∀ b ∈ d, isAscii b = true) :
    matchRe asciiClasses (seqs (opt (ch ' ')) [plusPoss punct, many newline]) false
        (d.map UInt8.toNat) some =
      if matchPunct d = 0 then none else some ((d.map UInt8.toNat).drop (matchPunct d)) := by
  simp only [seqs, opt, plusPoss, many, matchRe_seq,
    matchRe_opt asciiClasses (ch ' ') false asciiSpaceChar (fun _ _ => rfl),
    matchRe_plusPoss asciiClasses punct false asciiPunct (fun _ _ => rfl),
    matchRe_star_some asciiClasses newline false asciiNewline (fun _ _ => rfl)]
  cases d with
  | nil => rfl
  | cons b bs =>
    have hb := hd b (by simp)
    have hbs : ∀ b ∈ bs, isAscii b = true := fun b h => hd b (by simp [h])
    rw [punctTail_eq (b :: bs) hd]
    simp only [List.map_cons, step_cons, asciiSpaceChar_eq, matchPunct]
    by_cases h32 : b.toNat = 32
    · have hP : asciiPunct b.toNat = false := by rw [h32]; exact asciiPunct_32
      have hnone : punctTail (b :: bs) = 0 := by
        simp [punctTail, runLength, isPunct_eq b hb, hP]
      rw [punctTail_eq bs hbs, hnone]
      by_cases h : punctTail bs = 0
      · simp [h, h32]
      · simp [h, h32]
    · simp [h32]

/-- `\s*` before `[\r\n]`: the machine's `lastNewlineEnd` over the whitespace run. -/
theorem greedy_asciiSpace_newline (d : Bytes) :
    greedy asciiSpace (fun s' => step asciiNewline some s') (d.map UInt8.toNat) =
      if matchNewlineWs d = 0 then none
      else some ((d.map UInt8.toNat).drop (matchNewlineWs d)) := by
  induction d with
  | nil => rfl
  | cons b bs ih =>
    simp only [matchNewlineWs] at ih ⊢
    simp only [List.map_cons, greedy_cons, runLength, isSpace_eq, step_cons]
    cases hS : asciiSpace b.toNat
    · have hN : asciiNewline b.toNat = false := by
        cases h : asciiNewline b.toNat
        · rfl
        · have := asciiSpace_of_asciiNewline b.toNat_lt h
          rw [hS] at this
          exact absurd this (by decide)
      simp [hN, lastNewlineEnd]
    · have hN := isNewline_eq b
      by_cases h : lastNewlineEnd (runLength isSpace bs) bs = 0
      · cases hn : asciiNewline b.toNat <;> simp [lastNewlineEnd, ih, h, hn, hN]
      · simp [lastNewlineEnd, ih, h]

theorem matchRe_newlineWs (d : Bytes) :
    matchRe asciiClasses newlineWs false (d.map UInt8.toNat) some =
      if matchNewlineWs d = 0 then none
      else some ((d.map UInt8.toNat).drop (matchNewlineWs d)) := by
  rw [newlineWs, matchRe_seq, many,
    matchRe_star_eq_greedy asciiClasses ws false asciiSpace (fun _ _ => rfl)]
  exact greedy_asciiSpace_newline d

theorem matchRe_trailingWs (d : Bytes) :
    matchRe asciiClasses trailingWs false (d.map UInt8.toNat) some =
      if matchTrailingWs d = 0 then none
      else some ((d.map UInt8.toNat).drop (matchTrailingWs d)) := by
  have e : matchRe asciiClasses trailingWs false (d.map UInt8.toNat) some =
      step asciiSpace (greedy asciiSpace (notAheadK asciiNotSpace)) (d.map UInt8.toNat) := by
    show matchRe asciiClasses (.rep ws 1 none false) false (d.map UInt8.toNat)
        (fun s' => matchRe asciiClasses (.notAhead notWs) false s' some) = _
    exact matchRe_plus_eq_step_greedy asciiClasses ws false asciiSpace (fun _ _ => rfl) _ _
  rw [e]
  cases d with
  | nil => rfl
  | cons b bs =>
    simp only [List.map_cons, step_cons, matchTrailingWs, runLength, isSpace_eq,
      runLength_isSpace]
    cases hS : asciiSpace b.toNat
    · simp
    · rw [greedy_notAhead asciiSpace asciiNotSpace asciiNotSpace_eq]
      by_cases h1 : runLen asciiSpace (bs.map UInt8.toNat) = bs.length
      · have hd : (bs.map UInt8.toNat).drop bs.length = [] := by simp
        simp [h1, hd]
      · by_cases h2 : runLen asciiSpace (bs.map UInt8.toNat) = 0
        · rw [h2] at h1
          have hne : bs ≠ [] := by rintro rfl; exact h1 rfl
          simp [h1, h2, hne]
        · obtain ⟨r, hr⟩ : ∃ r, runLen asciiSpace (bs.map UInt8.toNat) = r + 1 :=
            ⟨runLen asciiSpace (bs.map UInt8.toNat) - 1, by omega⟩
          rw [hr] at h1
          simp [hr, h1]

theorem matchRe_otherWs (d : Bytes) :
    matchRe asciiClasses otherWs false (d.map UInt8.toNat) some =
      if matchOtherWs d = 0 then none else some ((d.map UInt8.toNat).drop (matchOtherWs d)) := by
  rw [otherWs, plus, matchRe_plus_some asciiClasses ws false asciiSpace (fun _ _ => rfl),
    matchOtherWs, runLength_isSpace]

end Bpe.Regex
