module

public import Bpe.Regex.Lemmas
public import Bpe.Regex.Patterns
public import Bpe.Regex.Unicode
public import Bpe.Unicode.Cl100k

/-!
# The classes of cl100k_base's pattern are the Unicode machine's predicates

The cl100k_base proof (`Bpe.Regex.Cl100kBranches`, `Bpe.Regex.Cl100k`) keeps the character
classes abstract: it holds for every `Classes` record `C` that satisfies `ReadsTables C`, i.e.
whose `\p{L}`, `\p{N}` and `\s` are the tables the machine reads (`Unicode.isL`, `Unicode.isN`,
`Unicode.isWhiteSpace`) and whose case orbits meet the eight contraction letters `s d m t l v r e`
as the machine's `CodePoint.foldCase` does. Under that hypothesis each class of the pattern is
the machine's predicate (`matchRe_pL`: `\p{L}` is `Unicode.isL`, `matchRe_wordLead`:
`[^\r\n\p{L}\p{N}]` is `CodePoint.isWordLead`, `matchRe_punct`: `[^\s\p{L}\p{N}]` is
`CodePoint.isPunct`, …), and inside `(?i:…)` the contraction letters compare the folded code
point (`charHolds_fold`, `classHolds_sdmt`).

`readsTables_unicodeClasses` discharges the hypothesis for the Unicode instance: the three
properties hold by definition, and the orbits are checked by the kernel on the code points below
128 and on U+017F and U+212A (every other code point has an empty orbit and folds to itself).
-/

@[expose] public section

namespace Bpe.Regex

open Bpe

/-- The letters that cl100k_base's contractions put inside `(?i:…)`: `s d m t l v r e`. -/
def contractionLetters : List Nat := [115, 100, 109, 116, 108, 118, 114, 101]

/-- What the cl100k_base proof needs of a `Classes` record: `\p{L}`, `\p{N}` and `\s` are the
tables that the machine reads, and a contraction letter `c` is in the case orbit of `x` exactly
when `x` is another code point that the machine folds to `c`. -/
structure ReadsTables (C : Classes) : Prop where
  letter : ∀ x, C.has .letter x = Unicode.isL x
  number : ∀ x, C.has .number x = Unicode.isN x
  whiteSpace : ∀ x, C.has .whiteSpace x = Unicode.isWhiteSpace x
  orbit : ∀ x, ∀ c ∈ contractionLetters,
    (C.orbit x).contains c = (x != c && CodePoint.foldCase x == c)

/-- `[\r\n]` (no property involved). -/
theorem matchRe_newline (C : Classes) (s : List Nat) (k : Cont) :
    matchRe C newline false s k = step CodePoint.isNewline k s := by
  have e : classHolds C false (.set false [it '\r', it '\n']) = CodePoint.isNewline := by
    funext x
    show (((x == 13 || (x == 10 || false)) || (false && (C.orbit x).any _)) != false) =
      (x == 10 || x == 13)
    cases x == 13 <;> cases x == 10 <;> rfl
  rw [newline, matchRe_cls, e]

/-- The literal space outside `(?i:…)`. -/
theorem matchRe_space (C : Classes) (s : List Nat) (k : Cont) :
    matchRe C (ch ' ') false s k = step (· == 32) k s := by
  have e : charHolds C false (' ').toNat = (· == 32) := by
    funext x
    simp only [charHolds, Bool.false_and, Bool.or_false]
    rfl
  rw [ch, matchRe_char, e]

/-- `(l.any fun y => y == a || p y)` splits into `contains` and `any`. -/
theorem any_beq_or (a : Nat) (p : Nat → Bool) :
    ∀ l : List Nat, l.any (fun y => y == a || p y) = (l.contains a || l.any p) := by
  intro l
  induction l with
  | nil => rfl
  | cons y t ih =>
    simp only [List.any_cons, List.contains_cons, ih, BEq.comm (a := a) (b := y), Bool.or_assoc,
      Bool.or_left_comm]

/-- `foldCase` leaves the contraction letters alone. -/
theorem foldCase_of_mem_contractionLetters :
    ∀ c ∈ contractionLetters, CodePoint.foldCase c = c := by
  decide

namespace ReadsTables

variable {C : Classes} (h : ReadsTables C)
include h

theorem classHolds_letter : classHolds C false (.esc false .letter) = Unicode.isL := by
  funext x
  simp [classHolds, classBase, classNegated, h.letter]

theorem classHolds_number : classHolds C false (.esc false .number) = Unicode.isN := by
  funext x
  simp [classHolds, classBase, classNegated, h.number]

theorem classHolds_whiteSpace :
    classHolds C false (.esc false .whiteSpace) = Unicode.isWhiteSpace := by
  funext x
  simp [classHolds, classBase, classNegated, h.whiteSpace]

theorem classHolds_notWhiteSpace (x : Nat) :
    classHolds C false (.esc true .whiteSpace) x = !Unicode.isWhiteSpace x := by
  simp [classHolds, classBase, classNegated, h.whiteSpace]

theorem classHolds_wordLead :
    classHolds C false (.set true [it '\r', it '\n', .prop .letter, .prop .number]) =
      CodePoint.isWordLead := by
  funext x
  show (((x == 13 || (x == 10 || (C.has .letter x || (C.has .number x || false)))) ||
      (false && (C.orbit x).any _)) != true) = CodePoint.isWordLead x
  rw [h.letter, h.number]
  simp only [CodePoint.isWordLead, CodePoint.isNewline]
  cases x == 13 <;> cases x == 10 <;> cases Unicode.isL x <;> cases Unicode.isN x <;> rfl

theorem classHolds_punct :
    classHolds C false (.set true [.prop .whiteSpace, .prop .letter, .prop .number]) =
      CodePoint.isPunct := by
  funext x
  show (((C.has .whiteSpace x || (C.has .letter x || (C.has .number x || false))) ||
      (false && (C.orbit x).any _)) != true) = CodePoint.isPunct x
  rw [h.letter, h.number, h.whiteSpace]
  simp only [CodePoint.isPunct]
  cases Unicode.isWhiteSpace x <;> cases Unicode.isL x <;> cases Unicode.isN x <;> rfl

theorem matchRe_pL (s : List Nat) (k : Cont) :
    matchRe C pL false s k = step Unicode.isL k s := by
  rw [pL, matchRe_cls, classHolds_letter h]

theorem matchRe_pN (s : List Nat) (k : Cont) :
    matchRe C pN false s k = step Unicode.isN k s := by
  rw [pN, matchRe_cls, classHolds_number h]

theorem matchRe_ws (s : List Nat) (k : Cont) :
    matchRe C ws false s k = step Unicode.isWhiteSpace k s := by
  rw [ws, matchRe_cls, classHolds_whiteSpace h]

theorem matchRe_wordLead (s : List Nat) (k : Cont) :
    matchRe C wordLead false s k = step CodePoint.isWordLead k s := by
  rw [wordLead, matchRe_cls, classHolds_wordLead h]

theorem matchRe_punct (s : List Nat) (k : Cont) :
    matchRe C punct false s k = step CodePoint.isPunct k s := by
  rw [punct, matchRe_cls, classHolds_punct h]

/-- Inside `(?i:…)`, a contraction letter matches the code points that fold to it. -/
theorem charHolds_fold (c : Nat) (hc : c ∈ contractionLetters) (x : Nat) :
    charHolds C true c x = (CodePoint.foldCase x == c) := by
  simp only [charHolds, h.orbit x c hc, Bool.true_and]
  by_cases hx : x = c
  · subst hx
    simp [foldCase_of_mem_contractionLetters x hc]
  · have h1 : (x == c) = false := by simpa using hx
    have h2 : (x != c) = true := by simpa using hx
    simp only [h1, h2, Bool.false_or, Bool.true_and]

/-- Inside `(?i:…)`, `[sdmt]` matches the code points that fold to one of the four. -/
theorem classHolds_sdmt (x : Nat) :
    classHolds C true (.set false [.char 115, .char 100, .char 109, .char 116]) x =
      (CodePoint.foldCase x == 115 || CodePoint.foldCase x == 100 ||
        CodePoint.foldCase x == 109 || CodePoint.foldCase x == 116) := by
  rw [← charHolds_fold h 115 (by decide), ← charHolds_fold h 100 (by decide),
    ← charHolds_fold h 109 (by decide), ← charHolds_fold h 116 (by decide)]
  have hb : classBase C (.set false [.char 115, .char 100, .char 109, .char 116]) =
      fun y => y == 115 || (y == 100 || (y == 109 || y == 116)) := by
    funext y
    show (y == 115 || (y == 100 || (y == 109 || (y == 116 || false)))) = _
    rw [Bool.or_false]
  simp only [classHolds, classNegated, charHolds, Bool.true_and]
  rw [hb, any_beq_or, any_beq_or, any_beq_or]
  have e : (C.orbit x).any (fun y => y == 116) = (C.orbit x).contains 116 := by
    rw [List.contains_eq_any_beq]
    congr 1
    funext y
    by_cases hy : y = 116
    · subst hy
      rfl
    · have h1 : (y == 116) = false := by simpa using hy
      have h2 : (116 == y) = false := by simpa using Ne.symm hy
      rw [h1, h2]
  rw [e]
  dsimp only
  cases x == 115 <;> cases x == 100 <;> cases x == 109 <;> cases x == 116 <;>
    cases (C.orbit x).contains 115 <;> cases (C.orbit x).contains 100 <;>
    cases (C.orbit x).contains 109 <;> cases (C.orbit x).contains 116 <;> rfl

end ReadsTables

/-- The case orbits of the Unicode instance meet the contraction letters as `foldCase` does. -/
theorem asciiOrbit_contains (x : Nat) :
    ∀ c ∈ contractionLetters,
      (asciiOrbit x).contains c = (x != c && CodePoint.foldCase x == c) := by
  by_cases hx : x < 128
  · revert x
    decide +kernel
  · by_cases h1 : x = 383
    · subst h1
      decide
    · by_cases h2 : x = 8490
      · subst h2
        decide
      · have hu : isUpperAscii x = false := by
          simp only [isUpperAscii, Bool.and_eq_false_iff, decide_eq_false_iff_not]
          omega
        have hl : isLowerAscii x = false := by
          simp only [isLowerAscii, Bool.and_eq_false_iff, decide_eq_false_iff_not]
          omega
        have ho : asciiOrbit x = [] := by
          simp [asciiOrbit, hu, hl, h1, h2]
        have hf : CodePoint.foldCase x = x := by
          have h65 : (decide (65 ≤ x) && decide (x ≤ 90)) = false := hu
          simp only [CodePoint.foldCase, h65]
          simp [h1]
        intro c hc
        have hc128 : c < 128 := by
          simp only [contractionLetters, List.mem_cons, List.not_mem_nil, or_false] at hc
          omega
        have hxc : x ≠ c := by omega
        simp [ho, hf, hxc]

/-- **The Unicode instance reads the machine's tables.** -/
theorem readsTables_unicodeClasses : ReadsTables unicodeClasses where
  letter _ := rfl
  number _ := rfl
  whiteSpace _ := rfl
  orbit := asciiOrbit_contains

end Bpe.Regex
