module

public import Bpe.Merge
public import Bpe.PairLists

/-!
# Merging every occurrence of a pair, on any list

`mergePair x y t l` replaces the occurrences of the adjacent pair `x, y` in `l` by `t`, left
to right, as the seed's `merge` does on token ids. Facts used in `Bpe.RanksEquiv`: it changes
nothing when the pair does not occur, it passes over a prefix that holds no occurrence,
merging the leftmost occurrence first leaves the final result unchanged when `t` is neither
`x` nor `y` (`mergePair_leftmost`), it shortens the list when the pair occurs, and through a
map that separates `x` and `y` from the other elements it is the seed's `merge`
(`merge_map`).
-/

@[expose] public section

namespace Bpe

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
    ∀ l : List α, (x, y) ∉ adjPairs l → mergePair x y t l = l
  | [], _ => rfl
  | [_], _ => rfl
  | a :: b :: rest, h => by
    have hne : ¬ (a = x ∧ b = y) := by
      rintro ⟨rfl, rfl⟩; exact h List.mem_cons_self
    rw [mergePair_cons_cons, if_neg hne,
      mergePair_of_not_mem x y t (b :: rest) (fun h' => h (List.mem_cons_of_mem _ h'))]

/-- A prefix without an occurrence (up to and including the next element) is kept. -/
theorem mergePair_append_of_not_mem (x y t z : α) (R : List α) :
    ∀ L : List α, (x, y) ∉ adjPairs (L ++ [z]) →
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
      (fun h' => h (mem_adjPairs_cons a h'))
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
    (h : (x, y) ∉ adjPairs (L ++ [x])) :
    mergePair x y t (L ++ t :: R) = mergePair x y t (L ++ x :: y :: R) := by
  have h' : (x, y) ∉ adjPairs (L ++ [t]) := by
    intro hm
    rcases mem_adjPairs_append_singleton t hm with hm | hm
    · exact h (mem_adjPairs_append_right [x] hm)
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
    ∀ l : List α, (x, y) ∈ adjPairs l → (mergePair x y t l).length < l.length
  | [], h => by simp at h
  | [_], h => by simp at h
  | a :: b :: rest, h => by
    rw [mergePair_cons_cons]
    split
    next =>
      have := length_mergePair_le x y t rest
      simp only [List.length_cons]; omega
    next hne =>
      have hm : (x, y) ∈ adjPairs (b :: rest) := by
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

end Bpe
