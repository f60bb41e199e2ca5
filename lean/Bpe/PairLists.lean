module

/-!
# Adjacent pairs of a list, and where an element lands in a split list

Generic list facts used by the proof that the seed's encoder is tiktoken's
(`Bpe.RanksEquiv`): `adjPairs l` lists the adjacent pairs of `l`; a pair of a contiguous
piece of a list is a pair of the list; a pair is adjacent exactly when the list splits around
it. `append_cons_eq_append` locates an element of `L ++ z :: R` in another split `P ++ S`.
-/

@[expose] public section

namespace Bpe

/-- The adjacent pairs of a list, left to right. -/
def adjPairs {α : Type} : List α → List (α × α)
  | a :: b :: rest => (a, b) :: adjPairs (b :: rest)
  | _ => []

@[simp] theorem adjPairs_nil {α : Type} : adjPairs ([] : List α) = [] := rfl

@[simp] theorem adjPairs_singleton {α : Type} (a : α) : adjPairs [a] = [] := rfl

@[simp] theorem adjPairs_cons_cons {α : Type} (a b : α) (l : List α) :
    adjPairs (a :: b :: l) = (a, b) :: adjPairs (b :: l) := rfl

theorem mem_adjPairs_cons {α : Type} {p : α × α} (a : α) :
    ∀ {l : List α}, p ∈ adjPairs l → p ∈ adjPairs (a :: l)
  | [], h => by simp at h
  | _ :: _, h => List.mem_cons_of_mem _ h

/-- A pair of a list starting with `a` starts with `a` or is a pair of the tail. -/
theorem mem_adjPairs_cons_iff {α : Type} {p : α × α} (a : α) :
    ∀ {l : List α}, p ∈ adjPairs (a :: l) → p.1 = a ∨ p ∈ adjPairs l
  | [], h => by simp at h
  | b :: l, h => by
    rcases List.mem_cons.mp h with rfl | h
    · exact Or.inl rfl
    · exact Or.inr h

theorem mem_adjPairs_append_left {α : Type} {p : α × α} :
    ∀ (l₁ : List α) {l₂ : List α}, p ∈ adjPairs l₂ → p ∈ adjPairs (l₁ ++ l₂)
  | [], _, h => h
  | a :: l₁, _, h => mem_adjPairs_cons a (mem_adjPairs_append_left l₁ h)

theorem mem_adjPairs_append_right {α : Type} {p : α × α} :
    ∀ {l₁ : List α} (l₂ : List α), p ∈ adjPairs l₁ → p ∈ adjPairs (l₁ ++ l₂)
  | [], _, h => by simp at h
  | [_], _, h => by simp at h
  | a :: b :: l₁, l₂, h => by
    rcases List.mem_cons.mp h with rfl | h
    · exact List.mem_cons_self
    · exact List.mem_cons_of_mem _ (mem_adjPairs_append_right (l₁ := b :: l₁) l₂ h)

/-- A pair of a list ending with `z` ends with `z` or is a pair of the rest. -/
theorem mem_adjPairs_append_singleton {α : Type} {p : α × α} (z : α) :
    ∀ {l : List α}, p ∈ adjPairs (l ++ [z]) → p ∈ adjPairs l ∨ p.2 = z
  | [], h => by simp at h
  | [a], h => by
    simp only [List.cons_append, List.nil_append, adjPairs_cons_cons, adjPairs_singleton,
      List.mem_cons, List.not_mem_nil, or_false] at h
    subst h; exact Or.inr rfl
  | a :: b :: l, h => by
    rcases List.mem_cons.mp h with rfl | h
    · exact Or.inl List.mem_cons_self
    · rcases mem_adjPairs_append_singleton z (l := b :: l) h with h | h
      · exact Or.inl (List.mem_cons_of_mem _ h)
      · exact Or.inr h

theorem adjPairs_append_cons {α : Type} :
    ∀ (l : List α) (x : α) (r : List α),
      adjPairs (l ++ x :: r) = adjPairs (l ++ [x]) ++ adjPairs (x :: r)
  | [], _, _ => by simp
  | [_], _, _ => by simp
  | a :: b :: l, x, r => by
    have ih : adjPairs (b :: (l ++ x :: r)) = adjPairs (b :: (l ++ [x])) ++ adjPairs (x :: r) :=
      adjPairs_append_cons (b :: l) x r
    show adjPairs (a :: b :: (l ++ x :: r)) =
      adjPairs (a :: b :: (l ++ [x])) ++ adjPairs (x :: r)
    rw [adjPairs_cons_cons, adjPairs_cons_cons, ih]
    rfl

/-- Every pair of `l ++ x :: r` is a pair of `l ++ [x]` or of `x :: r`. -/
theorem mem_adjPairs_append_cons {α : Type} {p : α × α} (l : List α) (x : α) (r : List α)
    (h : p ∈ adjPairs (l ++ x :: r)) : p ∈ adjPairs (l ++ [x]) ∨ p ∈ adjPairs (x :: r) := by
  rw [adjPairs_append_cons] at h
  exact List.mem_append.mp h

/-- A pair is adjacent exactly where the list splits around it. -/
theorem exists_split_of_mem_adjPairs {α : Type} {p : α × α} :
    ∀ {l : List α}, p ∈ adjPairs l → ∃ A C, l = A ++ p.1 :: p.2 :: C
  | [], h => by simp at h
  | [_], h => by simp at h
  | a :: b :: l, h => by
    rcases List.mem_cons.mp h with rfl | h
    · exact ⟨[], l, rfl⟩
    · obtain ⟨A, C, hl⟩ := exists_split_of_mem_adjPairs (l := b :: l) h
      exact ⟨a :: A, C, by rw [hl, List.cons_append]⟩

theorem mem_adjPairs_of_split {α : Type} (A C : List α) (x y : α) :
    (x, y) ∈ adjPairs (A ++ x :: y :: C) :=
  mem_adjPairs_append_left A List.mem_cons_self

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

end Bpe
