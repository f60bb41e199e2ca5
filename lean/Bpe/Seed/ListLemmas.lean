module

/-!
# List helpers

Small facts about lists used by several lemmas: splitting a list with `take`/`drop`
and flattening, and `List.lookup` in association lists (an entry found is a member, from core's
`List.lookup_eq_some_iff`; a head with another key is skipped). Kept in one place so that the
lemma files stay about their own concern.
-/

@[expose] public section

namespace Bpe

theorem take_append_drop_flatten {α : Type} (n : Nat) (xs : List α) (rest : List (List α))
    (h : rest.flatten = xs.drop n) : (xs.take n :: rest).flatten = xs := by
  rw [List.flatten_cons, h, List.take_append_drop]

/-- An entry that `List.lookup` finds is in the list (core's `List.lookup_eq_some_iff` gives
where). -/
theorem mem_of_lookup_eq_some {α β : Type} [BEq α] [LawfulBEq α] {v : List (α × β)} {i : α}
    {t : β} (h : v.lookup i = some t) : (i, t) ∈ v := by
  obtain ⟨l₁, l₂, rfl, -⟩ := List.lookup_eq_some_iff.mp h
  simp

theorem lookup_cons_ne {α β : Type} [BEq α] [LawfulBEq α] {k i : α} (x : β)
    (v : List (α × β)) (h : i ≠ k) : ((k, x) :: v).lookup i = v.lookup i := by
  have hne : (i == k) = false := by simpa using h
  simp [List.lookup, hne]

end Bpe
