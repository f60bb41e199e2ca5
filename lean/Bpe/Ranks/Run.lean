module

public import Bpe.Ranks.Pump

/-!
# The long-run step as a function (the Rust engine's `bpe_run`)

`pumpRun ranks u c n m v` is the step the Rust engine's `bpe_run` (`rust/src/ranks.rs`) takes
on a piece `u ++ c^n ++ v`: merge the window `u ++ c^m ++ v`, find the first two adjacent parts
that lie inside the window's run and have one length `w` dividing `n - m` (`twinParts`: by
their spans, not their ids), and repeat them, `2 + (n - m) / w` times; `none` when `n < m` or
no such pair exists (the engine then merges the piece in full).

`bytePairMerge_eq_of_pumpRun_eq_some`: whatever it returns is tiktoken's merge of the whole
piece, for every rank table and every window length. Two parts of one length inside the run
are `c^w` twice, the parts before them cover `u` and the run up to them, the parts after them
the rest of the run and `v`: `bytePairMerge_replicate_pump` (`Bpe.Ranks.Pump`) applies.
How the engine picks `u`, `c`, `n`, `m` and `v` does not matter for the statement.
-/

@[expose] public section

noncomputable section

namespace Bpe

variable {ranks : Ranks}

/-- The first two adjacent parts of `parts` (its first part starting at byte `pos`) that lie
in the bytes `[lo, hi)` and have one length `w` with `d % w = 0`: the parts before them, `w`,
and the parts after them (`bpe_run`'s `pair` in `rust/src/ranks.rs`). -/
def twinParts (lo hi d : Nat) : Nat → List Bytes → Option (List Bytes × Nat × List Bytes)
  | pos, x :: rest@(y :: S) =>
    if lo ≤ pos ∧ pos + x.length + y.length ≤ hi ∧ x.length = y.length ∧ d % x.length = 0 then
      some ([], x.length, S)
    else
      (twinParts lo hi d (pos + x.length) rest).map fun r => (x :: r.1, r.2.1, r.2.2)
  | _, _ => none

/-- The long-run step on `u ++ c^n ++ v` with the window `u ++ c^m ++ v` (`bpe_run` in
`rust/src/ranks.rs`). -/
def pumpRun (ranks : Ranks) (u : Bytes) (c : UInt8) (n m : Nat) (v : Bytes) :
    Option (List Bytes) :=
  if m ≤ n then
    (twinParts u.length (u.length + m) (n - m) 0
        (bytePairMerge ranks (u ++ List.replicate m c ++ v))).map
      fun r => r.1 ++ List.replicate (2 + (n - m) / r.2.1) (List.replicate r.2.1 c) ++ r.2.2
  else none

/-- What `twinParts` finds: `parts` is `P ++ x :: y :: S` with `x` and `y` of length `w`,
lying in `[lo, hi)`, and `d % w = 0`. -/
theorem twinParts_eq_some {lo hi d : Nat} :
    ∀ (pos : Nat) (parts P S : List Bytes) (w : Nat),
      twinParts lo hi d pos parts = some (P, w, S) →
      ∃ x y, parts = P ++ x :: y :: S ∧ x.length = w ∧ y.length = w ∧
        lo ≤ pos + P.flatten.length ∧ pos + P.flatten.length + w + w ≤ hi ∧ d % w = 0
  | pos, x :: y :: rest, P, S, w, h => by
    simp only [twinParts] at h
    split at h
    next hc =>
      simp only [Option.some.injEq, Prod.mk.injEq] at h
      obtain ⟨rfl, rfl, rfl⟩ := h
      obtain ⟨h1, h2, h3, h4⟩ := hc
      refine ⟨x, y, rfl, rfl, h3.symm, ?_, ?_, h4⟩
      · simpa using h1
      · simp only [List.flatten_nil, List.length_nil, Nat.add_zero]
        omega
    next =>
      cases hr : twinParts lo hi d (pos + x.length) (y :: rest) with
      | none => simp only [hr, Option.map_none, reduceCtorEq] at h
      | some r =>
        obtain ⟨P', w', S'⟩ := r
        simp only [hr, Option.map_some, Option.some.injEq, Prod.mk.injEq] at h
        obtain ⟨rfl, rfl, rfl⟩ := h
        obtain ⟨x', y', he, hx, hy, h1, h2, h3⟩ := twinParts_eq_some _ _ _ _ _ hr
        refine ⟨x', y', by rw [he, List.cons_append], hx, hy, ?_, ?_, h3⟩
        · simp only [List.flatten_cons, List.length_append]
          omega
        · simp only [List.flatten_cons, List.length_append]
          omega
  | _, [], _, _, _, h => by simp only [twinParts, reduceCtorEq] at h
  | _, [_], _, _, _, h => by simp only [twinParts, reduceCtorEq] at h

/-- **The long-run step is the merge**: if `pumpRun` answers, its answer is tiktoken's merge of
the whole piece `u ++ c^n ++ v`. For every rank table, no condition. -/
theorem bytePairMerge_eq_of_pumpRun_eq_some {u v : Bytes} {c : UInt8} {n m : Nat}
    {T : List Bytes} (h : pumpRun ranks u c n m v = some T) :
    bytePairMerge ranks (u ++ List.replicate n c ++ v) = T := by
  simp only [pumpRun] at h
  split at h
  next hmn =>
    cases ht : twinParts u.length (u.length + m) (n - m) 0
        (bytePairMerge ranks (u ++ List.replicate m c ++ v)) with
    | none => simp only [ht, Option.map_none, reduceCtorEq] at h
    | some r =>
      obtain ⟨P, w, S⟩ := r
      simp only [ht, Option.map_some, Option.some.injEq] at h
      subst h
      obtain ⟨x, y, he, hx, hy, h1, h2, h3⟩ := twinParts_eq_some _ _ _ _ _ ht
      simp only [Nat.zero_add] at h1 h2
      -- the window is `(u ++ c^i) ++ c^w ++ c^w ++ (c^j ++ v)`, `P` covers the first part
      obtain ⟨i, hi⟩ := Nat.exists_eq_add_of_le h1
      obtain ⟨j, hj⟩ := Nat.exists_eq_add_of_le h2
      have hw : u ++ List.replicate m c ++ v = (u ++ List.replicate i c) ++
          (List.replicate w c ++ (List.replicate w c ++ (List.replicate j c ++ v))) := by
        rw [show m = i + w + w + j by omega, ← List.replicate_append_replicate,
          ← List.replicate_append_replicate, ← List.replicate_append_replicate]
        simp only [List.append_assoc]
      have hf : P.flatten ++ (x ++ (y ++ S.flatten)) = (u ++ List.replicate i c) ++
          (List.replicate w c ++ (List.replicate w c ++ (List.replicate j c ++ v))) := by
        have hflat := flatten_bytePairMerge ranks (u ++ List.replicate m c ++ v)
        rw [he, hw] at hflat
        simpa only [List.flatten_append, List.flatten_cons, List.append_assoc] using hflat
      obtain ⟨hP, hxyS⟩ := List.append_inj hf (by
        simp only [List.length_append, List.length_replicate]
        omega)
      obtain ⟨rfl, hyS⟩ := List.append_inj hxyS (by rw [hx, List.length_replicate])
      obtain ⟨rfl, hS⟩ := List.append_inj hyS (by rw [hy, List.length_replicate])
      refine bytePairMerge_replicate_pump u v c P S i j w m n hP hS ?_ hmn
        (Nat.dvd_of_mod_eq_zero h3)
      rw [he]
      simp only [List.append_assoc, List.cons_append, List.nil_append]
  next => simp only [reduceCtorEq] at h

end Bpe
