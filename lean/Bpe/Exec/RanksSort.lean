module

public import Bpe.Exec.Ranks

/-!
# The loops in blocks and the merge sort of `Bpe.Exec.Ranks`

Facts about the drivers `iterSteps`/`iterBlocks` (run a step `next` in blocks until `stop`
holds), for any `stop` and `next`:

* an invariant of the step holds after any number of steps (`iterBlocks_inv`);
* when the driver reports the end, `stop` holds on the final state (`iterBlocks_done`);
* when a measure drops at every step and the fuel covers it, the driver reports the end
  (`iterBlocks_finish`).

With the invariant `SortInv` (the source is a permutation of the input; the elements moved to
`dst` plus the ones still to move in the current pass are a permutation of the input; the
cursors stay in their runs), the bottom-up merge sort `sortBy` returns a permutation of its
input (`sortBy_perm`), whatever the comparison and whether or not its driver ran to the end.
-/

@[expose] public section

namespace Bpe.Exec

theorem getA_some {α : Type} {a : Array α} {i : Nat} {x : α} (h : getA a i = some x) :
    ∃ hi : i < a.size, a[i] = x := by
  unfold getA at h
  split at h
  next hi => exact ⟨hi, Option.some.inj h⟩
  next => simp at h

theorem getA_none {α : Type} {a : Array α} {i : Nat} (h : getA a i = none) : a.size ≤ i := by
  unfold getA at h
  split at h
  next => simp at h
  next hi => omega

theorem iterSteps_inv {σ : Type} (stop : σ → Bool) (next : σ → σ) (P : σ → Prop)
    (hP : ∀ st, stop st = false → P st → P (next st)) :
    ∀ (fuel : Nat) (st : σ), P st → P (iterSteps stop next fuel st).1
  | 0, _, h => h
  | fuel + 1, st, h => by
    cases hs : stop st with
    | true =>
      simp only [iterSteps, hs, ↓reduceIte]
      exact h
    | false =>
      simp only [iterSteps, hs, Bool.false_eq_true, ↓reduceIte]
      exact iterSteps_inv stop next P hP fuel (next st) (hP st hs h)

theorem iterSteps_done {σ : Type} (stop : σ → Bool) (next : σ → σ) :
    ∀ (fuel : Nat) (st : σ), (iterSteps stop next fuel st).2 = true →
      stop (iterSteps stop next fuel st).1 = true
  | 0, _, h => by simp [iterSteps] at h
  | fuel + 1, st, h => by
    cases hs : stop st with
    | true => simp [iterSteps, hs]
    | false =>
      simp only [iterSteps, hs, Bool.false_eq_true, ↓reduceIte] at h ⊢
      exact iterSteps_done stop next fuel (next st) h

theorem iterSteps_measure {σ : Type} (stop : σ → Bool) (next : σ → σ) (μ : σ → Nat)
    (hμ : ∀ st, stop st = false → μ (next st) < μ st) :
    ∀ (fuel : Nat) (st : σ), (iterSteps stop next fuel st).2 = false →
      μ (iterSteps stop next fuel st).1 + fuel ≤ μ st
  | 0, st, _ => by simp [iterSteps]
  | fuel + 1, st, h => by
    cases hs : stop st with
    | true => simp [iterSteps, hs] at h
    | false =>
      simp only [iterSteps, hs, Bool.false_eq_true, ↓reduceIte] at h ⊢
      have h1 := iterSteps_measure stop next μ hμ fuel (next st) h
      have h2 := hμ st hs
      omega

theorem iterBlocks_inv {σ : Type} (stop : σ → Bool) (next : σ → σ) (P : σ → Prop)
    (hP : ∀ st, stop st = false → P st → P (next st)) :
    ∀ (fuel : Nat) (st : σ), P st → P (iterBlocks stop next fuel st).1
  | 0, _, h => h
  | fuel + 1, st, h => by
    cases hb : (iterSteps stop next block st).2
    · simp only [iterBlocks, hb, Bool.false_eq_true, ↓reduceIte]
      exact iterBlocks_inv stop next P hP fuel _ (iterSteps_inv stop next P hP block st h)
    · simp only [iterBlocks, hb, ↓reduceIte]
      exact iterSteps_inv stop next P hP block st h

theorem iterBlocks_done {σ : Type} (stop : σ → Bool) (next : σ → σ) :
    ∀ (fuel : Nat) (st : σ), (iterBlocks stop next fuel st).2 = true →
      stop (iterBlocks stop next fuel st).1 = true
  | 0, _, h => by simp [iterBlocks] at h
  | fuel + 1, st, h => by
    cases hb : (iterSteps stop next block st).2
    · simp only [iterBlocks, hb, Bool.false_eq_true, ↓reduceIte] at h ⊢
      exact iterBlocks_done stop next fuel _ h
    · simp only [iterBlocks, hb, ↓reduceIte]
      exact iterSteps_done stop next block st hb

theorem iterBlocks_finish {σ : Type} (stop : σ → Bool) (next : σ → σ) (μ : σ → Nat)
    (hμ : ∀ st, stop st = false → μ (next st) < μ st) :
    ∀ (fuel : Nat) (st : σ), μ st < fuel * block → (iterBlocks stop next fuel st).2 = true
  | 0, st, h => by simp at h
  | fuel + 1, st, h => by
    cases hb : (iterSteps stop next block st).2
    · simp only [iterBlocks, hb, Bool.false_eq_true, ↓reduceIte]
      have h1 := iterSteps_measure stop next μ hμ block st hb
      rw [Nat.succ_mul] at h
      exact iterBlocks_finish stop next μ hμ fuel _ (by omega)
    · simp only [iterBlocks, hb, ↓reduceIte]

/-! ## The merge sort permutes -/

theorem minN_eq (a b : Nat) : minN a b = min a b := by
  unfold minN
  split <;> omega

/-- The elements of `src` the current pass has not moved to `dst` yet: the rest of the left
run (from `i`) and everything from `j` on. -/
noncomputable def sortRest {α : Type} (st : SortState α) : List α :=
  (st.src.toList.drop st.i).take (minN (st.lo + st.width) st.src.size - st.i) ++
    st.src.toList.drop st.j

/-- The invariant of the merge sort (see the module docstring). -/
def SortInv {α : Type} (orig : List α) (st : SortState α) : Prop :=
  st.src.toList.Perm orig ∧ (st.dst.toList ++ sortRest st).Perm orig ∧ st.lo ≤ st.i ∧
    minN (st.lo + st.width) st.src.size ≤ st.j ∧ st.j ≤ minN (st.lo + 2 * st.width) st.src.size

theorem take_drop_append_drop {α : Type} (l : List α) {a b : Nat} (h : a ≤ b) :
    (l.drop a).take (b - a) ++ l.drop b = l.drop a := by
  conv => rhs; rw [← List.take_append_drop (b - a) (l.drop a)]
  rw [List.drop_drop]
  congr 2
  omega

theorem take_drop_cons {α : Type} (l : List α) {i m : Nat} (h : i < m) (hl : i < l.length) :
    (l.drop i).take (m - i) = l[i] :: (l.drop (i + 1)).take (m - (i + 1)) := by
  rw [List.drop_eq_getElem_cons hl, show m - i = (m - (i + 1)) + 1 by omega, List.take_succ_cons]

theorem getA_if_some {α : Type} {a : Array α} {i m : Nat} {x : α}
    (h : (if i < m then getA a i else none) = some x) :
    i < m ∧ ∃ hi : i < a.size, a[i] = x := by
  by_cases him : i < m
  · rw [if_pos him] at h
    exact ⟨him, getA_some h⟩
  · rw [if_neg him] at h
    simp at h

theorem getA_if_none {α : Type} {a : Array α} {i m : Nat}
    (h : (if i < m then getA a i else none) = none) (hm : m ≤ a.size) : m ≤ i := by
  by_cases him : i < m
  · rw [if_pos him] at h
    have := getA_none h
    omega
  · omega

/-- At the end of a pass (`lo` past the end), starting the next pass on `dst` with runs twice
as wide keeps the invariant. -/
theorem sortInv_nextPass {α : Type} {orig : List α} {src dst : Array α} {w lo i j : Nat}
    (hinv : SortInv orig ⟨src, dst, w, lo, i, j⟩) (hlo : src.size ≤ lo) :
    SortInv orig ⟨dst, #[], 2 * w, 0, 0, minN (2 * w) src.size⟩ := by
  obtain ⟨hsrc, hperm, hli, hmj, hjh⟩ := hinv
  simp only [sortRest] at hperm hmj hjh hli
  have hn := hsrc.length_eq
  simp only [Array.length_toList, minN_eq] at hn hmj
  rw [List.drop_eq_nil_of_le (by simp; omega), List.drop_eq_nil_of_le (by simp; omega),
    List.take_nil, List.append_nil, List.append_nil] at hperm
  have hd : dst.size = src.size := by
    have := hperm.length_eq
    simp only [Array.length_toList] at this
    omega
  refine ⟨hperm, ?_, Nat.le_refl _, ?_, ?_⟩
  · simp only [sortRest, List.nil_append, List.drop_zero, Nat.sub_zero,
      Nat.zero_add, hd, List.take_append_drop]
    exact hperm
  · simp only [minN_eq, hd]
    omega
  · simp only [minN_eq, hd]
    omega

/-- Moving the head `src[j]` of the right run to `dst` keeps the invariant. -/
theorem sortInv_push_right {α : Type} {orig : List α} {src dst : Array α} {w lo i j : Nat}
    (hinv : SortInv orig ⟨src, dst, w, lo, i, j⟩) (hj : j < src.size)
    (hjhi : j < minN (lo + 2 * w) src.size) :
    SortInv orig ⟨src, dst.push src[j], w, lo, i, j + 1⟩ := by
  obtain ⟨hsrc, hperm, hli, hmj, hjh⟩ := hinv
  simp only [sortRest] at hperm hmj hjh hli
  simp only [SortInv]
  refine ⟨hsrc, ?_, hli, by omega, by omega⟩
  simp only [sortRest, Array.toList_push]
  have hdj : src.toList.drop j = src[j] :: src.toList.drop (j + 1) := by
    rw [List.drop_eq_getElem_cons (by simpa using hj)]
    simp
  rw [hdj] at hperm
  refine List.Perm.trans ?_ hperm
  rw [List.append_assoc, List.singleton_append]
  exact (List.perm_middle.append_left _).symm

/-- Moving the head `src[i]` of the left run to `dst` keeps the invariant. -/
theorem sortInv_push_left {α : Type} {orig : List α} {src dst : Array α} {w lo i j : Nat}
    (hinv : SortInv orig ⟨src, dst, w, lo, i, j⟩) (hi : i < src.size)
    (himid : i < minN (lo + w) src.size) :
    SortInv orig ⟨src, dst.push src[i], w, lo, i + 1, j⟩ := by
  obtain ⟨hsrc, hperm, hli, hmj, hjh⟩ := hinv
  simp only [sortRest] at hperm hmj hjh hli
  simp only [SortInv]
  refine ⟨hsrc, ?_, by omega, hmj, hjh⟩
  simp only [sortRest, Array.toList_push]
  rw [take_drop_cons _ himid (by simpa using hi)] at hperm
  simp only [Array.getElem_toList] at hperm
  simpa using hperm

/-- When both runs are used up, going on to the next pair of runs keeps the invariant. -/
theorem sortInv_nextRuns {α : Type} {orig : List α} {src dst : Array α} {w lo i j : Nat}
    (hinv : SortInv orig ⟨src, dst, w, lo, i, j⟩) (himid : minN (lo + w) src.size ≤ i)
    (hjhi : minN (lo + 2 * w) src.size ≤ j) :
    SortInv orig ⟨src, dst, w, minN (lo + 2 * w) src.size, minN (lo + 2 * w) src.size,
      minN (minN (lo + 2 * w) src.size + w) src.size⟩ := by
  obtain ⟨hsrc, hperm, hli, hmj, hjh⟩ := hinv
  simp only [sortRest] at hperm hmj hjh hli
  have hj : j = minN (lo + 2 * w) src.size := by omega
  refine ⟨hsrc, ?_, Nat.le_refl _, ?_, ?_⟩
  · simp only [sortRest]
    rw [take_drop_append_drop _ (by simp only [minN_eq]; omega)]
    rw [show minN (lo + w) src.size - i = 0 by omega, List.take_zero, List.nil_append,
      hj] at hperm
    exact hperm
  · simp only [minN_eq]
    omega
  · simp only [minN_eq]
    omega

/-- One step of the merge sort keeps its invariant. -/
theorem sortNext_inv {α : Type} (lt : α → α → Bool) (orig : List α) :
    ∀ st : SortState α, sortStop st = false → SortInv orig st → SortInv orig (sortNext lt st) := by
  intro st _ hinv
  generalize h : sortNext lt st = st'
  obtain ⟨src, dst, w, lo, i, j⟩ := st
  simp only [sortNext] at h
  split at h
  next hlo =>
    subst h
    exact sortInv_nextPass hinv hlo
  next hlo =>
    generalize hx : (if i < minN (lo + w) src.size then getA src i else none) = ox at h
    generalize hy : (if j < minN (lo + 2 * w) src.size then getA src j else none) = oy at h
    have hmid : minN (lo + w) src.size ≤ src.size := by rw [minN_eq]; omega
    have hhi : minN (lo + 2 * w) src.size ≤ src.size := by rw [minN_eq]; omega
    cases ox with
    | some x =>
      obtain ⟨himid, hi, hxi⟩ := getA_if_some hx
      subst hxi
      cases oy with
      | some y =>
        obtain ⟨hjhi, hj, hyj⟩ := getA_if_some hy
        subst hyj
        simp only at h
        split at h
        · subst h
          exact sortInv_push_right hinv hj hjhi
        · subst h
          exact sortInv_push_left hinv hi himid
      | none =>
        simp only at h
        subst h
        exact sortInv_push_left hinv hi himid
    | none =>
      have himid := getA_if_none hx hmid
      cases oy with
      | some y =>
        obtain ⟨hjhi, hj, hyj⟩ := getA_if_some hy
        subst hyj
        simp only at h
        subst h
        exact sortInv_push_right hinv hj hjhi
      | none =>
        have hjhi := getA_if_none hy hhi
        simp only at h
        subst h
        exact sortInv_nextRuns hinv himid hjhi

/-- **The merge sort permutes its input** (whether or not its driver ran to the end). -/
theorem sortBy_perm {α : Type} (lt : α → α → Bool) (a : Array α) :
    (sortBy lt a).toList.Perm a.toList := by
  unfold sortBy
  refine (iterBlocks_inv sortStop (sortNext lt) (SortInv a.toList) (sortNext_inv lt a.toList) _ _
    ?_).1
  refine ⟨List.Perm.refl _, ?_, Nat.le_refl _, Nat.le_refl _, ?_⟩
  · simp only [sortRest, List.nil_append, List.drop_zero, Nat.sub_zero]
    rw [List.take_append_drop]
  · simp only [minN_eq]
    omega

end Bpe.Exec
