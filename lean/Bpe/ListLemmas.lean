module

/-!
# List helpers

Small facts about lists used by several lemmas: splitting a list with `take`/`drop`
and flattening, and `flatMap` over a list of chunks. Kept in one place so that the
lemma files stay about their own concern.
-/

@[expose] public section

namespace Bpe

theorem take_append_drop_flatten {α : Type} (n : Nat) (xs : List α) (rest : List (List α))
    (h : rest.flatten = xs.drop n) : (xs.take n :: rest).flatten = xs := by
  rw [List.flatten_cons, h, List.take_append_drop]

end Bpe
