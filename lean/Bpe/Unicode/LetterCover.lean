module

public import Bpe.Unicode.Tables

/-!
# `\p{L}` is covered by `\p{Lu}`, `\p{Ll}`, `\p{Lt}`, `\p{Lm}`, `\p{Lo}`

The o200k_base proof needs that every letter of the tables is in one of the five letter
categories (`Unicode.isLu_or_of_isL`): otherwise a letter would match neither word branch of
o200k_base's pattern. The tables are separate range trees, so the fact is checked by the kernel,
range by range, without enumerating code points:

* `RangeTree.allIn t lo hi`: every code point of `[lo, hi]` is in `t`, decided along `t`'s own
  search (the interval is split at each node's range); sound for every tree
  (`RangeTree.contains_of_allIn`), ordered or not.
* `RangeTree.coverFrom ts fuel lo hi`: `[lo, hi]` is a union of intervals each inside one tree of
  `ts`; the pieces are found with `RangeTree.rangeEnd` (the end of the range that holds `lo`), a
  hint that the soundness proof does not rely on (`RangeTree.any_contains_of_coverFrom`).
* `RangeTree.coveredBy ts t`: every range of `t` is covered (`RangeTree.any_contains_of_coveredBy`).
-/

@[expose] public section
noncomputable section

namespace Bpe.RangeTree

/-- Whether every code point of `[lo, hi]` is in the tree, splitting the interval at each
node's range as the search does. -/
def allIn : RangeTree → Nat → Nat → Bool
  | leaf, lo, hi => decide (hi < lo)
  | node a b l r, lo, hi =>
    decide (hi < lo) ||
      ((decide (a ≤ lo) || l.allIn lo (min hi (a - 1))) &&
        (decide (hi ≤ b) || r.allIn (max lo (b + 1)) hi))

/-- The end of the range of the tree that holds `c`, along `c`'s search path. -/
def rangeEnd : RangeTree → Nat → Option Nat
  | leaf, _ => none
  | node a b l r, c => if c < a then l.rangeEnd c else if b < c then r.rangeEnd c else some b

/-- Whether `[lo, hi]` is covered by the trees `ts`, in at most `fuel` pieces. -/
def coverFrom (ts : List RangeTree) : Nat → Nat → Nat → Bool
  | 0, _, _ => false
  | fuel + 1, lo, hi =>
    decide (hi < lo) || ts.any fun t => match t.rangeEnd lo with
      | none => false
      | some b => t.allIn lo (min b hi) && coverFrom ts fuel (b + 1) hi

/-- Whether every range of `t` is covered by the trees `ts` (each in at most 4096 pieces). -/
def coveredBy (ts : List RangeTree) : RangeTree → Bool
  | leaf => true
  | node a b l r => coverFrom ts 4096 a b && coveredBy ts l && coveredBy ts r

theorem contains_of_allIn : ∀ {t : RangeTree} {lo hi c : Nat}, t.allIn lo hi = true →
    lo ≤ c → c ≤ hi → t.contains c = true
  | leaf, lo, hi, c, h, h1, h2 => by
    simp only [allIn, decide_eq_true_eq] at h
    omega
  | node a b l r, lo, hi, c, h, h1, h2 => by
    simp only [allIn, Bool.or_eq_true, Bool.and_eq_true, decide_eq_true_eq] at h
    rw [contains_node]
    rcases h with h | ⟨hl, hr⟩
    · omega
    · by_cases hca : c < a
      · rw [if_pos hca]
        rcases hl with hl | hl
        · omega
        · exact contains_of_allIn hl h1 (Nat.le_min.mpr ⟨h2, by omega⟩)
      · rw [if_neg hca]
        by_cases hbc : b < c
        · rw [if_pos hbc]
          rcases hr with hr | hr
          · omega
          · exact contains_of_allIn hr (Nat.max_le.mpr ⟨h1, by omega⟩) h2
        · rw [if_neg hbc]

theorem any_contains_of_coverFrom (ts : List RangeTree) : ∀ {fuel lo hi c : Nat},
    coverFrom ts fuel lo hi = true → lo ≤ c → c ≤ hi → (ts.any fun t => t.contains c) = true
  | 0, _, _, _, h, _, _ => by simp [coverFrom] at h
  | fuel + 1, lo, hi, c, h, h1, h2 => by
    simp only [coverFrom, Bool.or_eq_true, decide_eq_true_eq, List.any_eq_true] at h
    rcases h with h | ⟨t, ht, h⟩
    · omega
    · split at h
      · exact absurd h (by decide)
      · next b _ =>
        simp only [Bool.and_eq_true] at h
        by_cases hc : c ≤ min b hi
        · exact List.any_eq_true.mpr ⟨t, ht, contains_of_allIn h.1 h1 hc⟩
        · rw [Nat.le_min] at hc
          exact any_contains_of_coverFrom ts h.2 (by omega) h2

theorem any_contains_of_coveredBy (ts : List RangeTree) : ∀ {t : RangeTree} {c : Nat},
    coveredBy ts t = true → t.contains c = true → (ts.any fun u => u.contains c) = true
  | leaf, _, _, h => by simp at h
  | node a b l r, c, h, hc => by
    simp only [coveredBy, Bool.and_eq_true] at h
    rw [contains_node] at hc
    by_cases hca : c < a
    · rw [if_pos hca] at hc
      exact any_contains_of_coveredBy ts h.1.2 hc
    · rw [if_neg hca] at hc
      by_cases hbc : b < c
      · rw [if_pos hbc] at hc
        exact any_contains_of_coveredBy ts h.2 hc
      · exact any_contains_of_coverFrom ts h.1.1 (by omega) (by omega)

/-- Five trees covering `t`, as a disjunction. -/
theorem contains_of_coveredBy_five {t t1 t2 t3 t4 t5 : RangeTree} {c : Nat}
    (h : coveredBy [t1, t2, t3, t4, t5] t = true) (hc : t.contains c = true) :
    (t1.contains c || t2.contains c || t3.contains c || t4.contains c || t5.contains c) =
      true := by
  have := any_contains_of_coveredBy _ h hc
  simp only [List.any_cons, List.any_nil, Bool.or_false] at this
  simpa only [Bool.or_assoc] using this

end Bpe.RangeTree

namespace Bpe.Unicode

/-- **Every letter is in one of the five letter categories** (of the tables). -/
theorem isLu_or_of_isL {c : Nat} (h : isL c = true) :
    (isLu c || isLl c || isLt c || isLm c || isLo c) = true :=
  RangeTree.contains_of_coveredBy_five (by decide +kernel) h

end Bpe.Unicode
