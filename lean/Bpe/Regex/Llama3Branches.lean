module

public import Bpe.Regex.O200kBranches
public import Bpe.Regex.R50kBranches
public import Bpe.Unicode.Llama3

/-!
# Each branch of Llama 3's pattern is the Unicode machine's branch

For each of the seven alternatives of `llama3Pattern` (llama.cpp's `llama-bpe`), every
`Classes` record `C` with `ReadsTablesO200k C` and every list of code points `s` (no validity
hypothesis), the matcher run on `s` with the continuation `some` ends after exactly the length
that the corresponding branch of `Bpe.Llama3.nextChunkLen` returns, and fails where it is 0.

New here: the contractions `(?:'[sS]|…|'[dD])` (`matchRe_contractionsLlama3`, for every `C`:
the case pairs are plain classes, no `(?i:…)`), and the greedy forms of cl100k_base's word and
punctuation branches (`ReadsTables.matchRe_wordGreedy`, `ReadsTables.matchRe_punctGreedy`: with
the continuation `some`, giving back what the greedy loops took never helps, so they end where
the possessive ones of `Bpe.Regex.Cl100kBranches` do). `\p{N}{1,3}`, `\s*[\r\n]+`, `\s+(?!\S)`
and `\s+` are o200k_base's terms and lemmas (`Bpe.Regex.O200kBranches`).
-/

@[expose] public section

namespace Bpe.Regex

open Bpe

/-- `[aA]`: a class of two literals. -/
def pairCls (a b : Nat) : Re := .cls (.set false [.char a, .char b])

/-- `(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])`, the first alternative of
`llama3Pattern`. -/
def contractionsLlama3 : Re :=
  .group (alts (.seq (ch '\'') (pair 's' 'S'))
    [.seq (ch '\'') (pair 't' 'T'), seqs (ch '\'') [pair 'r' 'R', pair 'e' 'E'],
      seqs (ch '\'') [pair 'v' 'V', pair 'e' 'E'], .seq (ch '\'') (pair 'm' 'M'),
      seqs (ch '\'') [pair 'l' 'L', pair 'l' 'L'], .seq (ch '\'') (pair 'd' 'D')])

/-- The six alternatives after the contractions, shared by llama.cpp's and Meta's Llama 3
patterns: `[^\r\n\p{L}\p{N}]?\p{L}+`, `\p{N}{1,3}`, ` ?[^\s\p{L}\p{N}]+[\r\n]*`,
`\s*[\r\n]+`, `\s+(?!\S)`, `\s+`. -/
def llama3Branches : List Re :=
  [.seq (opt wordLead) (plus pL), digits3, seqs (opt (ch ' ')) [plus punct, many newline],
    .seq (many ws) (plus newline), trailingWs, otherWs]

theorem llama3Pattern_eq : llama3Pattern = alts contractionsLlama3 llama3Branches := rfl

/-- The contractions with their literals as code points. -/
theorem contractionsLlama3_eq : contractionsLlama3 =
    .group (.alt (.seq (.char 39) (pairCls 115 83))
      (.alt (.seq (.char 39) (pairCls 116 84))
      (.alt (.seq (.char 39) (.seq (pairCls 114 82) (pairCls 101 69)))
      (.alt (.seq (.char 39) (.seq (pairCls 118 86) (pairCls 101 69)))
      (.alt (.seq (.char 39) (pairCls 109 77))
      (.alt (.seq (.char 39) (.seq (pairCls 108 76) (pairCls 108 76)))
        (.seq (.char 39) (pairCls 100 68)))))))) := rfl

/-- `[aA]` outside `(?i:…)`. -/
theorem matchRe_pairCls (C : Classes) (a b : Nat) (s : List Nat) (k : Cont) :
    matchRe C (pairCls a b) false s k = step (fun x => x == a || x == b) k s := by
  show step (classHolds C false (.set false [.char a, .char b])) k s = _
  congr 1
  funext x
  show (((x == a || (x == b || false)) || (false && (C.orbit x).any _)) != false) = _
  cases x == a <;> cases x == b <;> rfl

/-- One code point of a case pair, read through `Llama3.headIs`. -/
theorem step_pair (a b : Nat) (k : Cont) (rest : List Nat) :
    step (fun x => x == a || x == b) k rest =
      if Llama3.headIs a b rest = true then k (rest.drop 1) else none := by
  cases rest <;> rfl

theorem headIs_cons (a b d : Nat) (r : List Nat) :
    Llama3.headIs a b (d :: r) = (d == a || d == b) := rfl

set_option maxHeartbeats 1000000 in
/-- `(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])` is `Llama3.matchContraction`,
for every `Classes` record. -/
theorem matchRe_contractionsLlama3 (C : Classes) (s : List Nat) :
    matchRe C contractionsLlama3 false s some =
      if Llama3.matchContraction s = 0 then none
      else some (s.drop (Llama3.matchContraction s)) := by
  rw [contractionsLlama3_eq]
  match s with
  | [] => rfl
  | [q] =>
    rw [show Llama3.matchContraction [q] = 0 from rfl]
    simp only [matchRe_seq, matchRe_char, matchRe_group, matchRe_alt, matchRe_pairCls,
      step_cons, step_nil, charHolds_outside_caseless]
    by_cases hq : q = 39 <;> simp [hq]
  | q :: c :: rest =>
    simp only [matchRe_seq, matchRe_char, matchRe_group, matchRe_alt, matchRe_pairCls,
      step_cons, charHolds_outside_caseless, step_pair, headIs_cons, List.drop_one,
      List.tail_cons, Llama3.matchContraction]
    by_cases hq : q = 39
    · subst hq
      by_cases hc : c = 115 ∨ c = 83 ∨ c = 116 ∨ c = 84 ∨ c = 114 ∨ c = 82 ∨ c = 118 ∨ c = 86 ∨
          c = 109 ∨ c = 77 ∨ c = 108 ∨ c = 76 ∨ c = 100 ∨ c = 68
      · rcases hc with rfl | rfl | rfl | rfl | rfl | rfl | rfl | rfl | rfl | rfl | rfl | rfl |
            rfl | rfl <;>
          cases h8 : Llama3.headIs 101 69 rest <;> cases h9 : Llama3.headIs 108 76 rest <;> simp
      · simp only [not_or] at hc
        obtain ⟨n1, n2, n3, n4, n5, n6, n7, n8, n9, n10, n11, n12, n13, n14⟩ := hc
        simp [n1, n2, n3, n4, n5, n6, n7, n8, n9, n10, n11, n12, n13, n14]
    · simp [hq]

namespace ReadsTables

variable {C : Classes} (h : ReadsTables C)
include h

/-- `[^\r\n\p{L}\p{N}]?\p{L}+` (greedy) is `Cl100k.matchWord`: when the lead is taken and no
letter follows, giving it back leaves a code point that is not a letter. -/
theorem matchRe_wordGreedy (s : List Nat) :
    matchRe C (.seq (opt wordLead) (plus pL)) false s some =
      if Cl100k.matchWord s = 0 then none else some (s.drop (Cl100k.matchWord s)) := by
  simp only [opt, plus, matchRe_seq,
    matchRe_opt C wordLead false CodePoint.isWordLead h.matchRe_wordLead,
    matchRe_plus_some C pL false Unicode.isL h.matchRe_pL]
  cases s with
  | nil => simp [Cl100k.matchWord]
  | cons c cs =>
    simp only [Cl100k.matchWord, CodePoint.runLength_eq_runLen, runLen_cons, step_cons]
    cases hL : Unicode.isL c
    · cases hW : CodePoint.isWordLead c
      · simp
      · by_cases h0 : runLen Unicode.isL cs = 0
        · simp [h0]
        · simp [h0]
    · have hW : CodePoint.isWordLead c = false := by simp [CodePoint.isWordLead, hL]
      simp [hW]

/-- ` ?[^\s\p{L}\p{N}]+[\r\n]*` (greedy) is `Cl100k.matchPunct`, as its possessive form is:
the continuation `some` takes the first try of each greedy loop. -/
theorem matchRe_punctGreedy (s : List Nat) :
    matchRe C (seqs (opt (ch ' ')) [plus punct, many newline]) false s some =
      if Cl100k.matchPunct s = 0 then none else some (s.drop (Cl100k.matchPunct s)) := by
  rw [← h.matchRe_punctRun]
  simp only [seqs, opt, plus, many, plusPoss, manyPoss, matchRe_seq,
    matchRe_plus_eq_step_greedy C punct false CodePoint.isPunct h.matchRe_punct,
    matchRe_plusPoss C punct false CodePoint.isPunct h.matchRe_punct,
    matchRe_star_some C newline false CodePoint.isNewline (matchRe_newline C),
    step_greedy_comp_some]

end ReadsTables

end Bpe.Regex
