module

public import Bpe.Ranks.Valid

/-!
# Pumping a repeated token (the Rust engine's long-run fast path)

`bytePairMerge_pump` (for every rank table, no condition): if tiktoken's merge loop splits
`X.flatten ++ t ++ t ++ Y.flatten` into `X ++ [t, t] ++ Y`, it splits
`X.flatten ++ t^k ++ Y.flatten` into `X ++ t^k ++ Y` for every `k ≥ 1`. By the
characterisation of `Bpe.Ranks.Valid` (`bytePairMerge_flatten_eq_iff`): every part and every
adjacent pair of `X ++ t^k ++ Y` is one of `X ++ [t, t] ++ Y`
(`mem_adjacentPairs_append_replicate`).

`bytePairMerge_replicate_pump` is the statement the Rust engine's `bpe_run`
(`rust/src/ranks.rs`) relies on: a piece `u ++ c^n ++ v` whose run of the byte `c` is
shortened to `m ≤ n` bytes merges to `P ++ [c^w, c^w] ++ S`, with `P` covering `u` and the
first `i` bytes of the run and `S` the last `j` bytes of the run and `v` (the two equal parts
lie inside the run); if `w` divides `n - m`, the whole piece merges to `P`, then
`2 + (n - m) / w` copies of `c^w`, then `S`.
-/

@[expose] public section

namespace Bpe

variable {ranks : Ranks}

/-- The adjacent pairs of `t^(j+1) ++ Y` are pairs of `t :: t :: Y`. -/
theorem mem_adjacentPairs_replicate_append {α : Type} {p : α × α} (t : α) (Y : List α) :
    ∀ j, p ∈ adjacentPairs (List.replicate (j + 1) t ++ Y) → p ∈ adjacentPairs (t :: t :: Y)
  | 0, h => mem_adjacentPairs_cons t h
  | j + 1, h => by
    simp only [List.replicate_succ, List.cons_append, adjacentPairs_cons_cons] at h
    rcases List.mem_cons.mp h with rfl | h
    · exact List.mem_cons_self
    · exact mem_adjacentPairs_replicate_append t Y j (by
        simp only [List.replicate_succ, List.cons_append]; exact h)

/-- The adjacent pairs of `X ++ t^k ++ Y` (`k ≥ 1`) are pairs of `X ++ [t, t] ++ Y`. -/
theorem mem_adjacentPairs_append_replicate {α : Type} {p : α × α} (X Y : List α) (t : α)
    {k : Nat} (hk : 1 ≤ k) (h : p ∈ adjacentPairs (X ++ List.replicate k t ++ Y)) :
    p ∈ adjacentPairs (X ++ [t, t] ++ Y) := by
  obtain ⟨j, rfl⟩ := Nat.exists_eq_add_of_le' hk
  rw [List.append_assoc, List.replicate_succ, List.cons_append, adjacentPairs_append_cons] at h
  rw [List.append_assoc, List.cons_append, adjacentPairs_append_cons]
  rcases List.mem_append.mp h with h | h
  · exact List.mem_append_left _ h
  · refine List.mem_append_right _ (mem_adjacentPairs_replicate_append t Y j ?_)
    rw [List.replicate_succ, List.cons_append]
    exact h

/-- **Pumping**: if the merge of `X.flatten ++ t ++ t ++ Y.flatten` is `X ++ [t, t] ++ Y`,
the merge of `X.flatten ++ t^k ++ Y.flatten` is `X ++ t^k ++ Y` for every `k ≥ 1`. For every
rank table, no condition. -/
theorem bytePairMerge_pump (X Y : List Bytes) (t : Bytes)
    (h : bytePairMerge ranks (X.flatten ++ t ++ t ++ Y.flatten) = X ++ [t, t] ++ Y)
    (k : Nat) (hk : 1 ≤ k) :
    bytePairMerge ranks (X.flatten ++ (List.replicate k t).flatten ++ Y.flatten) =
      X ++ List.replicate k t ++ Y := by
  have h' : bytePairMerge ranks (X ++ [t, t] ++ Y).flatten = X ++ [t, t] ++ Y := by
    simpa using h
  obtain ⟨hparts, hpairs⟩ := (bytePairMerge_flatten_eq_iff _).mp h'
  have hflat : X.flatten ++ (List.replicate k t).flatten ++ Y.flatten =
      (X ++ List.replicate k t ++ Y).flatten := by
    simp only [List.flatten_append]
  rw [hflat]
  refine (bytePairMerge_flatten_eq_iff _).mpr ⟨fun s hs => hparts s ?_, fun p hp =>
    hpairs p (mem_adjacentPairs_append_replicate X Y t hk hp)⟩
  simp only [List.mem_append, List.mem_replicate, List.mem_cons, List.not_mem_nil,
    or_false] at hs ⊢
  rcases hs with (hs | ⟨-, rfl⟩) | hs
  · exact Or.inl (Or.inl hs)
  · exact Or.inl (Or.inr (Or.inl rfl))
  · exact Or.inr hs

/-- **The long-run fast path** (`bpe_run` in `rust/src/ranks.rs`): if the piece
`u ++ c^m ++ v` merges to `P ++ [c^w, c^w] ++ S` with the two equal parts inside the run
(`P` covers `u` and `i` bytes `c`, `S` covers `j` bytes `c` and `v`), then for every `n ≥ m`
with `w ∣ n - m` the piece `u ++ c^n ++ v` merges to `P`, `2 + (n - m) / w` copies of `c^w`,
and `S`. For every rank table, no condition. -/
theorem bytePairMerge_replicate_pump (u v : Bytes) (c : UInt8) (P S : List Bytes)
    (i j w m n : Nat) (hP : P.flatten = u ++ List.replicate i c)
    (hS : S.flatten = List.replicate j c ++ v)
    (h : bytePairMerge ranks (u ++ List.replicate m c ++ v) =
      P ++ [List.replicate w c, List.replicate w c] ++ S)
    (hmn : m ≤ n) (hw : w ∣ n - m) :
    bytePairMerge ranks (u ++ List.replicate n c ++ v) =
      P ++ List.replicate (2 + (n - m) / w) (List.replicate w c) ++ S := by
  -- the run of the window: `m = i + 2 w + j`
  have hm : m = i + w + w + j := by
    have hflat := flatten_bytePairMerge ranks (u ++ List.replicate m c ++ v)
    rw [h] at hflat
    have hlen := congrArg List.length hflat
    simp only [List.flatten_append, hP, hS, List.flatten_cons, List.flatten_nil,
      List.length_append, List.length_replicate, List.length_nil] at hlen
    omega
  have hk : (2 + (n - m) / w) * w = w + w + (n - m) := by
    rw [Nat.add_mul, Nat.div_mul_cancel hw]
    omega
  have h2 : bytePairMerge ranks
      (P.flatten ++ List.replicate w c ++ List.replicate w c ++ S.flatten) =
        P ++ [List.replicate w c, List.replicate w c] ++ S := by
    rw [← h, hP, hS, hm, ← List.replicate_append_replicate, ← List.replicate_append_replicate,
      ← List.replicate_append_replicate]
    simp only [List.append_assoc]
  have hpump := bytePairMerge_pump P S (List.replicate w c) h2 (2 + (n - m) / w)
    (Nat.le_trans (by decide : 1 ≤ 2) (Nat.le_add_right 2 _))
  have hn : List.replicate n c =
      List.replicate i c ++ List.replicate (w + w + (n - m)) c ++ List.replicate j c := by
    rw [List.replicate_append_replicate, List.replicate_append_replicate]
    congr 1
    omega
  rw [← hpump, hP, hS, List.flatten_replicate_replicate, hk, hn]
  simp only [List.append_assoc]

end Bpe
