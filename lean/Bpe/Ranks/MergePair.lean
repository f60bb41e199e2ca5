module

public import Bpe.Seed.Merge

/-!
# The seed side of issue 14: adjacent pairs, merging every occurrence, the lowest merge

Facts about the seed's merge-table encoder used by the proof that it is tiktoken's
(`Bpe.Ranks.Equiv`), in three parts: adjacent pairs of a list (`adjacentPairs`), merging every
occurrence of a pair (`mergePair`, the seed's `merge` through a map), and the minimality of
`bestMerge`.
-/

@[expose] public section

namespace Bpe

/-!
## Adjacent pairs of a list, and where an element lands in a split list

Generic list facts used by the proof that the seed's encoder is tiktoken's
(`Bpe.Ranks.Equiv`): `adjacentPairs l` (`Bpe.Seed.Merge`) lists the adjacent pairs of `l`; a
pair of a contiguous piece of a list is a pair of the list; a pair is adjacent exactly when the
list splits around it. `append_cons_eq_append` locates an element of `L ++ z :: R` in another split `P ++ S`.
-/

section PairLists
theorem mem_adjacentPairs_cons {α : Type} {p : α × α} (a : α) :
    ∀ {l : List α}, p ∈ adjacentPairs l → p ∈ adjacentPairs (a :: l)
  | [], h => by simp at h
  | _ :: _, h => List.mem_cons_of_mem _ h

/-- A pair of a list starting with `a` starts with `a` or is a pair of the tail. -/
theorem eq_or_mem_of_mem_adjacentPairs_cons {α : Type} {p : α × α} (a : α) :
    ∀ {l : List α}, p ∈ adjacentPairs (a :: l) → p.1 = a ∨ p ∈ adjacentPairs l
  | [], h => by simp at h
  | b :: l, h => by
    rcases List.mem_cons.mp h with rfl | h
    · exact Or.inl rfl
    · exact Or.inr h

theorem mem_adjacentPairs_append_left {α : Type} {p : α × α} :
    ∀ (l₁ : List α) {l₂ : List α}, p ∈ adjacentPairs l₂ → p ∈ adjacentPairs (l₁ ++ l₂)
  | [], _, h => h
  | a :: l₁, _, h => mem_adjacentPairs_cons a (mem_adjacentPairs_append_left l₁ h)

theorem mem_adjacentPairs_append_right {α : Type} {p : α × α} :
    ∀ {l₁ : List α} (l₂ : List α), p ∈ adjacentPairs l₁ → p ∈ adjacentPairs (l₁ ++ l₂)
  | [], _, h => by simp at h
  | [_], _, h => by simp at h
  | a :: b :: l₁, l₂, h => by
    rcases List.mem_cons.mp h with rfl | h
    · exact List.mem_cons_self
    · exact List.mem_cons_of_mem _ (mem_adjacentPairs_append_right (l₁ := b :: l₁) l₂ h)

/-- A pair of a list ending with `z` ends with `z` or is a pair of the rest. -/
theorem mem_adjacentPairs_append_singleton {α : Type} {p : α × α} (z : α) :
    ∀ {l : List α}, p ∈ adjacentPairs (l ++ [z]) → p ∈ adjacentPairs l ∨ p.2 = z
  | [], h => by simp at h
  | [a], h => by
    simp only [List.cons_append, List.nil_append, adjacentPairs_cons_cons, adjacentPairs_singleton,
      List.mem_cons, List.not_mem_nil, or_false] at h
    subst h; exact Or.inr rfl
  | a :: b :: l, h => by
    rcases List.mem_cons.mp h with rfl | h
    · exact Or.inl List.mem_cons_self
    · rcases mem_adjacentPairs_append_singleton z (l := b :: l) h with h | h
      · exact Or.inl (List.mem_cons_of_mem _ h)
      · exact Or.inr h

theorem adjacentPairs_append_cons {α : Type} :
    ∀ (l : List α) (x : α) (r : List α),
      adjacentPairs (l ++ x :: r) = adjacentPairs (l ++ [x]) ++ adjacentPairs (x :: r)
  | [], _, _ => by simp
  | [_], _, _ => by simp
  | a :: b :: l, x, r => by
    have ih : adjacentPairs (b :: (l ++ x :: r)) = adjacentPairs (b :: (l ++ [x])) ++ adjacentPairs (x :: r) :=
      adjacentPairs_append_cons (b :: l) x r
    show adjacentPairs (a :: b :: (l ++ x :: r)) =
      adjacentPairs (a :: b :: (l ++ [x])) ++ adjacentPairs (x :: r)
    rw [adjacentPairs_cons_cons, adjacentPairs_cons_cons, ih]
    rfl

/-- Every pair of `l ++ x :: r` is a pair of `l ++ [x]` or of `x :: r`. -/
theorem mem_adjacentPairs_append_cons {α : Type} {p : α × α} (l : List α) (x : α) (r : List α)
    (h : p ∈ adjacentPairs (l ++ x :: r)) : p ∈ adjacentPairs (l ++ [x]) ∨ p ∈ adjacentPairs (x :: r) := by
  rw [adjacentPairs_append_cons] at h
  exact List.mem_append.mp h

/-- A pair is adjacent exactly where the list splits around it. -/
theorem exists_split_of_mem_adjacentPairs {α : Type} {p : α × α} :
    ∀ {l : List α}, p ∈ adjacentPairs l → ∃ A C, l = A ++ p.1 :: p.2 :: C
  | [], h => by simp at h
  | [_], h => by simp at h
  | a :: b :: l, h => by
    rcases List.mem_cons.mp h with rfl | h
    · exact ⟨[], l, rfl⟩
    · obtain ⟨A, C, hl⟩ := exists_split_of_mem_adjacentPairs (l := b :: l) h
      exact ⟨a :: A, C, by rw [hl, List.cons_append]⟩

theorem mem_adjacentPairs_of_split {α : Type} (A C : List α) (x y : α) :
    (x, y) ∈ adjacentPairs (A ++ x :: y :: C) :=
  mem_adjacentPairs_append_left A List.mem_cons_self

/-- Where the element `z` of `L ++ z :: R` lands in another split `P ++ S`. -/
theorem append_cons_eq_append {α : Type} {z : α} {R S : List α} :
    ∀ {L P : List α}, L ++ z :: R = P ++ S →
      (∃ P2, P = L ++ z :: P2 ∧ R = P2 ++ S) ∨ (∃ S1, S = S1 ++ z :: R ∧ L = P ++ S1)
  | L, [], h => Or.inr ⟨L, by simpa using h.symm, by simp⟩
  | [], p :: P, h => by
    simp only [List.nil_append, List.cons_append, List.cons.injEq] at h
    obtain ⟨rfl, rfl⟩ := h
    exact Or.inl ⟨P, by simp, rfl⟩
  | l :: L, p :: P, h => by
    simp only [List.cons_append, List.cons.injEq] at h
    obtain ⟨rfl, h⟩ := h
    rcases append_cons_eq_append h with ⟨P2, rfl, rfl⟩ | ⟨S1, rfl, rfl⟩
    · exact Or.inl ⟨P2, by simp, rfl⟩
    · exact Or.inr ⟨S1, rfl, by simp⟩

/-- Where the element `z` of `L ++ z :: R` lands in a split `A ++ B ++ C`. -/
theorem append_cons_eq_append3 {α : Type} {z : α} {L R A B C : List α}
    (h : L ++ z :: R = A ++ B ++ C) :
    (∃ A2, A = L ++ z :: A2 ∧ R = A2 ++ B ++ C) ∨
    (∃ B1 B2, B = B1 ++ z :: B2 ∧ L = A ++ B1 ∧ R = B2 ++ C) ∨
    (∃ C1, C = C1 ++ z :: R ∧ L = A ++ B ++ C1) := by
  rw [List.append_assoc] at h
  rcases append_cons_eq_append h with ⟨A2, rfl, rfl⟩ | ⟨S1, hS, rfl⟩
  · exact Or.inl ⟨A2, rfl, by simp⟩
  · rcases append_cons_eq_append hS.symm with ⟨B2, rfl, rfl⟩ | ⟨C1, rfl, rfl⟩
    · exact Or.inr (Or.inl ⟨S1, B2, rfl, rfl, rfl⟩)
    · exact Or.inr (Or.inr ⟨C1, rfl, by simp⟩)

end PairLists

/-!
## Merging every occurrence of a pair, on any list

`mergePair x y t l` replaces the occurrences of the adjacent pair `x, y` in `l` by `t`, left
to right, as the seed's `merge` does on token ids. Facts used in `Bpe.Ranks.Equiv`: it changes
nothing when the pair does not occur, it passes over a prefix that holds no occurrence,
merging the leftmost occurrence first leaves the final result unchanged when `t` is neither
`x` nor `y` (`mergePair_leftmost`), it shortens the list when the pair occurs, and through a
map that separates `x` and `y` from the other elements it is the seed's `merge`
(`merge_map`).
-/

section MergePair
variable {α : Type} [DecidableEq α]

/-- Replace every adjacent `x, y` by `t`, left to right. -/
def mergePair (x y t : α) : List α → List α
  | a :: b :: rest =>
    if a = x ∧ b = y then t :: mergePair x y t rest else a :: mergePair x y t (b :: rest)
  | l => l

@[simp] theorem mergePair_nil (x y t : α) : mergePair x y t [] = [] := rfl

@[simp] theorem mergePair_singleton (x y t a : α) : mergePair x y t [a] = [a] := rfl

theorem mergePair_cons_cons (x y t a b : α) (rest : List α) :
    mergePair x y t (a :: b :: rest) =
      if a = x ∧ b = y then t :: mergePair x y t rest else a :: mergePair x y t (b :: rest) :=
  rfl

theorem mergePair_of_not_mem (x y t : α) :
    ∀ l : List α, (x, y) ∉ adjacentPairs l → mergePair x y t l = l
  | [], _ => rfl
  | [_], _ => rfl
  | a :: b :: rest, h => by
    have hne : ¬ (a = x ∧ b = y) := by
      rintro ⟨rfl, rfl⟩; exact h List.mem_cons_self
    rw [mergePair_cons_cons, if_neg hne,
      mergePair_of_not_mem x y t (b :: rest) (fun h' => h (List.mem_cons_of_mem _ h'))]

/-- A prefix without an occurrence (up to and including the next element) is kept. -/
theorem mergePair_append_of_not_mem (x y t z : α) (R : List α) :
    ∀ L : List α, (x, y) ∉ adjacentPairs (L ++ [z]) →
      mergePair x y t (L ++ z :: R) = L ++ mergePair x y t (z :: R)
  | [], _ => rfl
  | [a], h => by
    have hne : ¬ (a = x ∧ z = y) := by
      rintro ⟨rfl, rfl⟩; exact h List.mem_cons_self
    show mergePair x y t (a :: z :: R) = a :: mergePair x y t (z :: R)
    rw [mergePair_cons_cons, if_neg hne]
  | a :: c :: L, h => by
    have hne : ¬ (a = x ∧ c = y) := by
      rintro ⟨rfl, rfl⟩; exact h List.mem_cons_self
    have ih := mergePair_append_of_not_mem x y t z R (c :: L)
      (fun h' => h (mem_adjacentPairs_cons a h'))
    show mergePair x y t (a :: c :: (L ++ z :: R)) = a :: (c :: L ++ mergePair x y t (z :: R))
    rw [mergePair_cons_cons, if_neg hne]
    rw [← ih]
    rfl

theorem mergePair_cons_of_ne (x y t a : α) (h : a ≠ x) :
    ∀ R : List α, mergePair x y t (a :: R) = a :: mergePair x y t R
  | [] => rfl
  | b :: R => by
    have hne : ¬ (a = x ∧ b = y) := fun h' => h h'.1
    rw [mergePair_cons_cons, if_neg hne]

/-- **Leftmost first**: merging the leftmost occurrence of `x, y` into `t` (with `t` neither
`x` nor `y`) does not change the result of merging every occurrence. -/
theorem mergePair_leftmost (x y t : α) (htx : t ≠ x) (hty : t ≠ y) (L R : List α)
    (h : (x, y) ∉ adjacentPairs (L ++ [x])) :
    mergePair x y t (L ++ t :: R) = mergePair x y t (L ++ x :: y :: R) := by
  have h' : (x, y) ∉ adjacentPairs (L ++ [t]) := by
    intro hm
    rcases mem_adjacentPairs_append_singleton t hm with hm | hm
    · exact h (mem_adjacentPairs_append_right [x] hm)
    · exact hty hm.symm
  rw [mergePair_append_of_not_mem x y t t R L h', mergePair_append_of_not_mem x y t x (y :: R) L h,
    mergePair_cons_of_ne x y t t htx, mergePair_cons_cons,
    if_pos (⟨rfl, rfl⟩ : x = x ∧ y = y)]

theorem length_mergePair_le (x y t : α) :
    ∀ l : List α, (mergePair x y t l).length ≤ l.length
  | [] => Nat.le_refl _
  | [_] => Nat.le_refl _
  | a :: b :: rest => by
    rw [mergePair_cons_cons]
    split
    · have := length_mergePair_le x y t rest
      simp only [List.length_cons]; omega
    · have := length_mergePair_le x y t (b :: rest)
      simp only [List.length_cons] at this ⊢; omega

/-- Merging a pair that occurs makes the list shorter. -/
theorem length_mergePair_lt (x y t : α) :
    ∀ l : List α, (x, y) ∈ adjacentPairs l → (mergePair x y t l).length < l.length
  | [], h => by simp at h
  | [_], h => by simp at h
  | a :: b :: rest, h => by
    rw [mergePair_cons_cons]
    split
    next =>
      have := length_mergePair_le x y t rest
      simp only [List.length_cons]; omega
    next hne =>
      have hm : (x, y) ∈ adjacentPairs (b :: rest) := by
        rcases List.mem_cons.mp h with h | h
        · simp only [Prod.mk.injEq] at h
          exact absurd ⟨h.1.symm, h.2.symm⟩ hne
        · exact h
      have := length_mergePair_lt x y t (b :: rest) hm
      simp only [List.length_cons] at this ⊢; omega

/-- Through a map that tells `x` and `y` apart from the other elements, `mergePair` is the
seed's `merge`. -/
theorem merge_map (f : α → Nat) (x y t : α) :
    ∀ l : List α, (∀ a ∈ l, f a = f x → a = x) → (∀ a ∈ l, f a = f y → a = y) →
      merge (l.map f) (f x, f y) (f t) = (mergePair x y t l).map f
  | [], _, _ => rfl
  | [_], _, _ => rfl
  | a :: b :: rest, hx, hy => by
    have hcond : ((f a == f x && f b == f y) = true) ↔ (a = x ∧ b = y) := by
      simp only [Bool.and_eq_true, beq_iff_eq]
      constructor
      · rintro ⟨h1, h2⟩
        exact ⟨hx a List.mem_cons_self h1,
          hy b (List.mem_cons_of_mem _ List.mem_cons_self) h2⟩
      · rintro ⟨rfl, rfl⟩; exact ⟨rfl, rfl⟩
    simp only [List.map_cons, merge, mergePair_cons_cons]
    by_cases hab : a = x ∧ b = y
    · rw [if_pos (hcond.mpr hab), if_pos hab, List.map_cons,
        merge_map f x y t rest (fun c hc => hx c (List.mem_cons_of_mem _ (List.mem_cons_of_mem _ hc)))
          (fun c hc => hy c (List.mem_cons_of_mem _ (List.mem_cons_of_mem _ hc)))]
    · rw [if_neg (fun h => hab (hcond.mp h)), if_neg hab, List.map_cons]
      have ih := merge_map f x y t (b :: rest) (fun c hc => hx c (List.mem_cons_of_mem _ hc))
        (fun c hc => hy c (List.mem_cons_of_mem _ hc))
      rw [List.map_cons] at ih
      rw [ih]

end MergePair

/-!
## `bestMerge` returns the lowest merge index

Complements `bestMerge_eq_some` (`Bpe.Seed.Merge`): `bestMerge` returns `none` only when no
counted pair has a merge, and when it returns a pair, its merge index is at most the index
of every counted pair that has a merge.
-/

noncomputable section BestMergeMin
theorem lookup_eq_none_of_bestMerge (merges : Merges) :
    ∀ (stats : List ((Nat × Nat) × Nat)), bestMerge merges stats = none →
      ∀ q ∈ stats.map Prod.fst, merges.lookup q = none
  | [], _, _, hq => by simp at hq
  | (p, c) :: rest, h, q, hq => by
    have ih := lookup_eq_none_of_bestMerge merges rest
    unfold bestMerge at h
    cases hp : merges.lookup p with
    | none =>
      rw [hp] at h
      simp only [List.map_cons, List.mem_cons] at hq
      rcases hq with rfl | hq
      · exact hp
      · exact ih h q hq
    | some i =>
      rw [hp] at h
      cases hr : bestMerge merges rest with
      | none => rw [hr] at h; cases h
      | some r =>
        obtain ⟨q', j⟩ := r
        rw [hr] at h
        by_cases hji : j < i
        · simp [hji] at h
        · simp [hji] at h

theorem bestMerge_le (merges : Merges) :
    ∀ (stats : List ((Nat × Nat) × Nat)) (p : Nat × Nat) (i : Nat),
      bestMerge merges stats = some (p, i) →
        ∀ q ∈ stats.map Prod.fst, ∀ j, merges.lookup q = some j → i ≤ j
  | [], _, _, _, _, hq, _, _ => by simp at hq
  | (q0, c) :: rest, p, i, h, q, hq, j, hj => by
    have ih := bestMerge_le merges rest
    unfold bestMerge at h
    simp only [List.map_cons, List.mem_cons] at hq
    cases h0 : merges.lookup q0 with
    | none =>
      rw [h0] at h
      rcases hq with rfl | hq
      · rw [h0] at hj; cases hj
      · exact ih p i h q hq j hj
    | some i0 =>
      rw [h0] at h
      cases hr : bestMerge merges rest with
      | none =>
        rw [hr] at h
        simp only [Option.some.injEq, Prod.mk.injEq] at h
        obtain ⟨-, rfl⟩ := h
        rcases hq with rfl | hq
        · rw [h0] at hj; cases hj; exact Nat.le_refl _
        · rw [lookup_eq_none_of_bestMerge merges rest hr q hq] at hj; cases hj
      | some r =>
        obtain ⟨q1, j1⟩ := r
        rw [hr] at h
        have ih1 := ih q1 j1 hr
        by_cases hji : j1 < i0
        · simp only [hji, if_true, Option.some.injEq, Prod.mk.injEq] at h
          obtain ⟨-, rfl⟩ := h
          rcases hq with rfl | hq
          · rw [h0] at hj; cases hj; omega
          · exact ih1 q hq j hj
        · simp only [hji, if_false, Option.some.injEq, Prod.mk.injEq] at h
          obtain ⟨-, rfl⟩ := h
          rcases hq with rfl | hq
          · rw [h0] at hj; cases hj; exact Nat.le_refl _
          · have := ih1 q hq j hj; omega

end BestMergeMin

end Bpe
