module

public import Bpe.Regex.Cl100kBranches
public import Bpe.Regex.R50kPattern
public import Bpe.Unicode.R50k

/-!
# Each branch of r50k_base's pattern is the Unicode machine's branch

For each of the seven alternatives of `r50kPattern`, every `Classes` record `C` with
`ReadsTables C` and every list of code points `s` (no validity hypothesis), the matcher run on
`s` with the continuation `some` ends after exactly the length that the corresponding branch of
`Bpe.R50k.nextChunkLen` returns, and fails where it is 0:

`matchRe C branch false s some = if n = 0 then none else some (s.drop n)`

with `n` = `R50k.matchContraction s` (`matchRe_contractionsR50k`, for every `C`: the branch
reads no property and no case orbit), `R50k.matchSpaceRun p s` for ` ?\p{L}++`, ` ?\p{N}++` and
` ?[^\s\p{L}\p{N}]++` (`matchRe_spaceRun`, for any one-code-point class `p` that does not hold
the space), and cl100k_base's `\s++$`, `\s+(?!\S)`, `\s` (`ReadsTables.matchRe_endWs`,
`ReadsTables.matchRe_trailingWs`, `ReadsTables.matchRe_oneWs`).
-/

@[expose] public section

namespace Bpe.Regex

open Bpe

theorem isL_32 : Unicode.isL 32 = false := by decide

theorem isN_32 : Unicode.isN 32 = false := by decide

/-- `'(?:[sdmt]|ll|ve|re)` with its literals as code points. -/
theorem contractionsR50k_eq : contractionsR50k =
    .seq (.char 39) (.group
      (.alt (.cls (.set false [.char 115, .char 100, .char 109, .char 116]))
        (.alt (.seq (.char 108) (.char 108)) (.alt (.seq (.char 118) (.char 101))
          (.seq (.char 114) (.char 101)))))) := rfl

/-- Outside `(?i:…)` a literal matches itself only. -/
theorem charHolds_outside_caseless (C : Classes) (c x : Nat) :
    charHolds C false c x = (x == c) := by
  simp [charHolds]

/-- `[sdmt]` outside `(?i:…)`. -/
theorem classHolds_sdmt_false (C : Classes) (x : Nat) :
    classHolds C false (.set false [.char 115, .char 100, .char 109, .char 116]) x =
      (x == 115 || x == 100 || x == 109 || x == 116) := by
  show (((x == 115 || (x == 100 || (x == 109 || (x == 116 || false)))) ||
      (false && (C.orbit x).any _)) != false) = _
  cases x == 115 <;> cases x == 100 <;> cases x == 109 <;> cases x == 116 <;> rfl

/-- `'(?:[sdmt]|ll|ve|re)` is `R50k.matchContraction`, for every `Classes` record. -/
theorem matchRe_contractionsR50k (C : Classes) (s : List Nat) :
    matchRe C contractionsR50k false s some =
      if R50k.matchContraction s = 0 then none
      else some (s.drop (R50k.matchContraction s)) := by
  match s with
  | [] => rfl
  | [q] =>
    rw [show R50k.matchContraction [q] = 0 from rfl]
    simp only [contractionsR50k_eq, matchRe_seq, matchRe_char, matchRe_group, matchRe_alt,
      matchRe_cls, step_cons, step_nil]
    simp
  | q :: c :: rest =>
    cases rest with
    | nil =>
      simp only [contractionsR50k_eq, matchRe_seq, matchRe_char, matchRe_group, matchRe_alt,
        matchRe_cls, step_cons, step_nil, classHolds_sdmt_false, charHolds_outside_caseless,
        R50k.matchContraction]
      by_cases hq : q = 39
      · by_cases hs : (c == 115 || c == 100 || c == 109 || c == 116) = true
        · simp [hs, hq]
        · simp [hs, hq]
      · simp [hq]
    | cons e r =>
      simp only [contractionsR50k_eq, matchRe_seq, matchRe_char, matchRe_group, matchRe_alt,
        matchRe_cls, step_cons, classHolds_sdmt_false, charHolds_outside_caseless,
        R50k.matchContraction]
      by_cases hq : q = 39
      · by_cases hs : (c == 115 || c == 100 || c == 109 || c == 116) = true
        · simp [hs, hq]
        · by_cases h1 : c = 108 <;> by_cases h2 : c = 118 <;> by_cases h3 : c = 114 <;>
            by_cases h4 : e = 108 <;> by_cases h5 : e = 101 <;>
            (try simp [hs, hq, h1, h2, h3, h4, h5]) <;> omega
      · simp [hq]

/-- ` ?r++` for a one-code-point body `r` read as `p`, with `p` false on the space, is
`R50k.matchSpaceRun p`: the regex gives the space back when no run follows it, and the run
then fails at the space. -/
theorem matchRe_spaceRun (C : Classes) (r : Re) (p : Nat → Bool)
    (hr : ∀ s k, matchRe C r false s k = step p k s) (h32 : p 32 = false) (s : List Nat) :
    matchRe C (spaceRun r) false s some =
      if R50k.matchSpaceRun p s = 0 then none else some (s.drop (R50k.matchSpaceRun p s)) := by
  simp only [spaceRun, opt, plusPoss, matchRe_seq,
    matchRe_opt C (ch ' ') false (· == 32) (matchRe_space C), matchRe_plusPoss C r false p hr]
  cases s with
  | nil => rfl
  | cons c cs =>
    simp only [step_cons, R50k.matchSpaceRun, CodePoint.runLength_eq_runLen]
    by_cases hc : c = 32
    · subst hc
      have h0 : runLen p (32 :: cs) = 0 := by simp [h32]
      by_cases hn : runLen p cs = 0 <;> simp [hn, h0]
    · have hc' : (c == 32) = false := by simpa using hc
      simp [hc']

namespace ReadsTables

variable {C : Classes} (h : ReadsTables C)
include h

/-- ` ?\p{L}++` is `R50k.matchSpaceRun Unicode.isL`. -/
theorem matchRe_spaceLetters (s : List Nat) :
    matchRe C (spaceRun pL) false s some =
      if R50k.matchSpaceRun Unicode.isL s = 0 then none
      else some (s.drop (R50k.matchSpaceRun Unicode.isL s)) :=
  matchRe_spaceRun C pL Unicode.isL h.matchRe_pL isL_32 s

/-- ` ?\p{N}++` is `R50k.matchSpaceRun Unicode.isN`. -/
theorem matchRe_spaceNumbers (s : List Nat) :
    matchRe C (spaceRun pN) false s some =
      if R50k.matchSpaceRun Unicode.isN s = 0 then none
      else some (s.drop (R50k.matchSpaceRun Unicode.isN s)) :=
  matchRe_spaceRun C pN Unicode.isN h.matchRe_pN isN_32 s

/-- ` ?[^\s\p{L}\p{N}]++` is `R50k.matchSpaceRun CodePoint.isPunct`. -/
theorem matchRe_spacePunct (s : List Nat) :
    matchRe C (spaceRun punct) false s some =
      if R50k.matchSpaceRun CodePoint.isPunct s = 0 then none
      else some (s.drop (R50k.matchSpaceRun CodePoint.isPunct s)) :=
  matchRe_spaceRun C punct CodePoint.isPunct h.matchRe_punct isPunct_32 s

end ReadsTables

end Bpe.Regex
