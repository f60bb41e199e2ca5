module

public import Bpe.Regex.Cl100kClasses
public import Bpe.Unicode.O200k

/-!
# The classes of o200k_base's pattern are the Unicode machine's predicates

The o200k_base proof (`Bpe.Regex.O200kBranches`, `Bpe.Regex.O200k`) keeps the character classes
abstract, as the cl100k_base proof does: it holds for every `Classes` record `C` with
`ReadsTablesO200k C`, which is cl100k_base's `ReadsTables C` plus the six letter and mark
properties that o200k_base names (`\p{Lu}` is `Unicode.isLu`, …, `\p{M}` is `Unicode.isM`) and one
fact on case orbits: no orbit holds the apostrophe (o200k_base puts `'` inside `(?i:…)`).

Under it, `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]` is the machine's `O200k.isUpperClass`
(`matchRe_upperish`), `[\p{Ll}\p{Lm}\p{Lo}\p{M}]` is `O200k.isLowerClass` (`matchRe_lowerish`),
`[\r\n/]` is `O200k.isPunctTail` (`matchRe_punctTailClass`), `(?i:'s|'t|'re|'ve|'m|'ll|'d)`
(`contractionsCaseless`) before `some` takes `CodePoint.matchContraction` code points and fails
where that is 0 (`matchRe_contractionsCaseless`; Meta's Llama 3 pattern starts with it), so the
suffix `(?i:…)?` takes them or none (`matchRe_contractionsO200k`).
`readsTablesO200k_unicodeClasses` discharges the hypothesis for the Unicode instance.
-/

@[expose] public section

namespace Bpe.Regex

open Bpe

/-- What the o200k_base proof needs of a `Classes` record: cl100k_base's `ReadsTables`, the six
letter and mark properties read through the tables, and no case orbit holding `'`. -/
structure ReadsTablesO200k (C : Classes) : Prop extends ReadsTables C where
  uppercase : ∀ x, C.has .uppercase x = Unicode.isLu x
  lowercase : ∀ x, C.has .lowercase x = Unicode.isLl x
  titlecase : ∀ x, C.has .titlecase x = Unicode.isLt x
  modifier : ∀ x, C.has .modifier x = Unicode.isLm x
  otherLetter : ∀ x, C.has .otherLetter x = Unicode.isLo x
  mark : ∀ x, C.has .mark x = Unicode.isM x
  orbit_apostrophe : ∀ x, (C.orbit x).contains 39 = false

/-- `[\r\n/]` (no property involved). -/
theorem matchRe_punctTailClass (C : Classes) (s : List Nat) (k : Cont) :
    matchRe C (.cls (.set false [it '\r', it '\n', it '/'])) false s k =
      step O200k.isPunctTail k s := by
  have e : classHolds C false (.set false [it '\r', it '\n', it '/']) = O200k.isPunctTail := by
    funext x
    show (((x == 13 || (x == 10 || (x == 47 || false))) || (false && (C.orbit x).any _)) !=
      false) = (x == 10 || x == 13 || x == 47)
    cases x == 13 <;> cases x == 10 <;> cases x == 47 <;> rfl
  rw [matchRe_cls, e]

/-- `(?i:'s|'t|'re|'ve|'m|'ll|'d)`: o200k_base's contraction suffix without its `?`, and the
first alternative of Meta's Llama 3 pattern. -/
noncomputable def contractionsCaseless : Re :=
  .caseless (alts (.seq (ch '\'') (ch 's')) (contractionList.drop 1))

theorem contractionsO200k_eq_opt : contractionsO200k = opt contractionsCaseless := rfl

/-- `(?i:'s|'t|'re|'ve|'m|'ll|'d)` with its literals as code points. -/
theorem contractionsCaseless_eq : contractionsCaseless =
    .caseless (.alt (.seq (.char 39) (.char 115)) (.alt (.seq (.char 39) (.char 116))
      (.alt (.seq (.char 39) (.seq (.char 114) (.char 101)))
        (.alt (.seq (.char 39) (.seq (.char 118) (.char 101)))
          (.alt (.seq (.char 39) (.char 109))
            (.alt (.seq (.char 39) (.seq (.char 108) (.char 108)))
              (.seq (.char 39) (.char 100)))))))) := rfl

namespace ReadsTablesO200k

variable {C : Classes} (h : ReadsTablesO200k C)
include h

theorem classHolds_upperish :
    classHolds C false (.set false [.prop .uppercase, .prop .titlecase, .prop .modifier,
      .prop .otherLetter, .prop .mark]) = O200k.isUpperClass := by
  funext x
  show (((C.has .uppercase x || (C.has .titlecase x || (C.has .modifier x ||
      (C.has .otherLetter x || (C.has .mark x || false))))) || (false && (C.orbit x).any _)) !=
      false) = O200k.isUpperClass x
  rw [h.uppercase, h.titlecase, h.modifier, h.otherLetter, h.mark]
  simp only [O200k.isUpperClass]
  cases Unicode.isLu x <;> cases Unicode.isLt x <;> cases Unicode.isLm x <;>
    cases Unicode.isLo x <;> cases Unicode.isM x <;> rfl

theorem classHolds_lowerish :
    classHolds C false (.set false [.prop .lowercase, .prop .modifier, .prop .otherLetter,
      .prop .mark]) = O200k.isLowerClass := by
  funext x
  show (((C.has .lowercase x || (C.has .modifier x || (C.has .otherLetter x ||
      (C.has .mark x || false)))) || (false && (C.orbit x).any _)) != false) =
      O200k.isLowerClass x
  rw [h.lowercase, h.modifier, h.otherLetter, h.mark]
  simp only [O200k.isLowerClass]
  cases Unicode.isLl x <;> cases Unicode.isLm x <;> cases Unicode.isLo x <;>
    cases Unicode.isM x <;> rfl

theorem matchRe_upperish (s : List Nat) (k : Cont) :
    matchRe C upperish false s k = step O200k.isUpperClass k s := by
  rw [upperish, matchRe_cls, classHolds_upperish h]

theorem matchRe_lowerish (s : List Nat) (k : Cont) :
    matchRe C lowerish false s k = step O200k.isLowerClass k s := by
  rw [lowerish, matchRe_cls, classHolds_lowerish h]

/-- Inside `(?i:…)`, the apostrophe matches only itself. -/
theorem charHolds_apostrophe (x : Nat) : charHolds C true 39 x = (x == 39) := by
  simp only [charHolds, h.orbit_apostrophe x, Bool.and_false, Bool.or_false]

/-- `(?i:'s|'t|'re|'ve|'m|'ll|'d)` before `some` takes `CodePoint.matchContraction` code
points, and fails where that is 0. -/
theorem matchRe_contractionsCaseless (s : List Nat) :
    matchRe C contractionsCaseless false s some =
      if CodePoint.matchContraction s = 0 then none
      else some (s.drop (CodePoint.matchContraction s)) := by
  have hs := h.charHolds_fold 115 (by decide)
  have ht := h.charHolds_fold 116 (by decide)
  have hd := h.charHolds_fold 100 (by decide)
  have hm := h.charHolds_fold 109 (by decide)
  have hl := h.charHolds_fold 108 (by decide)
  have hv := h.charHolds_fold 118 (by decide)
  have hr := h.charHolds_fold 114 (by decide)
  have he := h.charHolds_fold 101 (by decide)
  rw [contractionsCaseless_eq]
  match s with
  | [] => rfl
  | [q] =>
    rw [show CodePoint.matchContraction [q] = 0 from rfl]
    simp only [matchRe_seq, matchRe_char, matchRe_caseless, matchRe_alt, step_cons, step_nil]
    simp
  | [q, c] =>
    simp only [matchRe_seq, matchRe_char, matchRe_caseless, matchRe_alt, step_cons, step_nil,
      h.charHolds_apostrophe, hs, ht, hd, hm, hl, hv, hr, CodePoint.matchContraction]
    generalize CodePoint.foldCase c = a
    by_cases hq : q = 39
    · by_cases h1 : a = 115
      · subst h1; simp [hq]
      by_cases h2 : a = 116
      · subst h2; simp [hq]
      by_cases h3 : a = 109
      · subst h3; simp [hq]
      by_cases h4 : a = 100
      · subst h4; simp [hq]
      simp [hq, h1, h2, h3, h4]
    · simp [hq]
  | q :: c :: e :: rest =>
    simp only [matchRe_seq, matchRe_char, matchRe_caseless, matchRe_alt, step_cons,
      h.charHolds_apostrophe, hs, ht, hd, hm, hl, hv, hr, he, CodePoint.matchContraction]
    generalize CodePoint.foldCase c = a
    generalize CodePoint.foldCase e = a'
    by_cases hq : q = 39
    · by_cases h1 : a = 115
      · subst h1; simp [hq]
      by_cases h2 : a = 116
      · subst h2; simp [hq]
      by_cases h3 : a = 109
      · subst h3; simp [hq]
      by_cases h4 : a = 100
      · subst h4; simp [hq]
      by_cases h5 : a = 114
      · subst h5; by_cases h' : a' = 101 <;> simp [hq, h']
      by_cases h6 : a = 118
      · subst h6; by_cases h' : a' = 101 <;> simp [hq, h']
      by_cases h7 : a = 108
      · subst h7; by_cases h' : a' = 108 <;> simp [hq, h']
      simp [hq, h1, h2, h3, h4, h5, h6, h7]
    · simp [hq]

/-- `(?i:'s|'t|'re|'ve|'m|'ll|'d)?` before `some` takes `CodePoint.matchContraction` code
points (0 when no contraction follows). -/
theorem matchRe_contractionsO200k (s : List Nat) :
    matchRe C contractionsO200k false s some = some (s.drop (CodePoint.matchContraction s)) := by
  show (matchRe C contractionsCaseless false s some).orElse (fun _ => some s) = _
  rw [h.matchRe_contractionsCaseless]
  split <;> simp_all

end ReadsTablesO200k

/-- No case orbit of the Unicode instance holds the apostrophe. -/
theorem asciiOrbit_contains_apostrophe (x : Nat) : (asciiOrbit x).contains 39 = false := by
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
        simp [asciiOrbit, hu, hl, h1, h2]

/-- **The Unicode instance reads the o200k_base machine's tables.** -/
theorem readsTablesO200k_unicodeClasses : ReadsTablesO200k unicodeClasses where
  toReadsTables := readsTables_unicodeClasses
  uppercase _ := rfl
  lowercase _ := rfl
  titlecase _ := rfl
  modifier _ := rfl
  otherLetter _ := rfl
  mark _ := rfl
  orbit_apostrophe := asciiOrbit_contains_apostrophe

end Bpe.Regex
