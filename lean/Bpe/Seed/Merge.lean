module

public import Bpe.Seed.Classify

/-!
# BPE helpers (seed part 3), Lemma 1 and Lemma 6

`getStats` counts adjacent pairs, `bestMerge` picks among them the pair with the lowest
merge index (the seed's argmin over candidates; ties go to the pair seen first), `merge`
replaces every non-overlapping occurrence of a pair, left to right, and `decodeBytes`
concatenates the byte strings of the ids — `none` if an id is unknown. Merge tables and
vocabularies are association lists (`List.lookup`), i.e. arbitrary finite maps, so the
theorems quantify over all of them and the same functions run on concrete tables.
Lemma 6 (`decodeBytes_append`): decoding distributes over `++`. Lemma 1
(`decodeBytes_merge`): if the vocabulary entry of the new id is the concatenation of the
entries of the pair, merging does not change the decoded bytes. For the termination of
the encoder: the pairs counted by `getStats` are exactly the adjacent pairs, `bestMerge`
returns one of them, and merging a pair that occurs makes the list strictly shorter.
-/

@[expose] public section
noncomputable section

namespace Bpe

/-- Merge table: a pair of token ids ↦ the id of the merged token (which is also its rank). -/
abbrev Merges := List ((Nat × Nat) × Nat)

/-- Vocabulary: token id ↦ byte string. -/
abbrev Vocab := List (Nat × Bytes)

/-- Add one occurrence of `p` to the counts (first-occurrence order is kept). -/
def bumpCount (p : Nat × Nat) : List ((Nat × Nat) × Nat) → List ((Nat × Nat) × Nat)
  | [] => [(p, 1)]
  | (q, c) :: rest => if q == p then (q, c + 1) :: rest else (q, c) :: bumpCount p rest

/-- The adjacent pairs of a list, left to right (of ids here; `Bpe.Ranks` uses it on parts). -/
def adjacentPairs {α : Type} : List α → List (α × α)
  | a :: b :: rest => (a, b) :: adjacentPairs (b :: rest)
  | _ => []

@[simp] theorem adjacentPairs_nil {α : Type} : adjacentPairs ([] : List α) = [] := rfl

@[simp] theorem adjacentPairs_singleton {α : Type} (a : α) : adjacentPairs [a] = [] := rfl

@[simp] theorem adjacentPairs_cons_cons {α : Type} (a b : α) (l : List α) :
    adjacentPairs (a :: b :: l) = (a, b) :: adjacentPairs (b :: l) := rfl

/-- `get_stats`: the count of each adjacent pair, in order of first occurrence. -/
def getStats (ids : List Nat) : List ((Nat × Nat) × Nat) :=
  (adjacentPairs ids).foldl (fun acc p => bumpCount p acc) []

/-- Among the pairs of `stats` that have a merge, the one with the lowest merge index
(the first one on ties), with that index. -/
def bestMerge (merges : Merges) : List ((Nat × Nat) × Nat) → Option ((Nat × Nat) × Nat)
  | [] => none
  | (p, _) :: rest =>
    match merges.lookup p, bestMerge merges rest with
    | none, r => r
    | some i, none => some (p, i)
    | some i, some (q, j) => if j < i then some (q, j) else some (p, i)

/-- `merge`: replace every adjacent `(pair.1, pair.2)` with `idx`, left to right. -/
def merge : List Nat → Nat × Nat → Nat → List Nat
  | a :: b :: rest, pair, idx =>
    if a == pair.1 && b == pair.2 then idx :: merge rest pair idx
    else a :: merge (b :: rest) pair idx
  | ids, _, _ => ids

/-- `decode_bytes`: concatenate the byte strings of `ids`; `none` on an unknown id. -/
def decodeBytes (vocab : Vocab) : List Nat → Option Bytes
  | [] => some []
  | i :: is => (vocab.lookup i).bind fun b => (decodeBytes vocab is).map fun r => b ++ r

/-- What `bestMerge` returns: a pair of `stats` together with its merge index. -/
theorem bestMerge_eq_some (merges : Merges) :
    ∀ (stats : List ((Nat × Nat) × Nat)) (p : Nat × Nat) (idx : Nat),
      bestMerge merges stats = some (p, idx) →
        merges.lookup p = some idx ∧ p ∈ stats.map Prod.fst
  | [], _, _, h => by simp [bestMerge] at h
  | (q, c) :: rest, p, idx, h => by
    have ih := bestMerge_eq_some merges rest
    unfold bestMerge at h
    cases hq : merges.lookup q with
    | none =>
      rw [hq] at h
      exact ⟨(ih p idx h).1, List.mem_cons_of_mem _ (ih p idx h).2⟩
    | some i =>
      cases hr : bestMerge merges rest with
      | none =>
        rw [hq, hr] at h
        simp only [Option.some.injEq, Prod.mk.injEq] at h
        obtain ⟨rfl, rfl⟩ := h
        exact ⟨hq, List.mem_cons_self⟩
      | some r =>
        obtain ⟨q', j⟩ := r
        rw [hq, hr] at h
        by_cases hji : j < i
        · simp only [hji, if_true, Option.some.injEq, Prod.mk.injEq] at h
          obtain ⟨rfl, rfl⟩ := h
          exact ⟨(ih _ _ hr).1, List.mem_cons_of_mem _ (ih _ _ hr).2⟩
        · simp only [hji, if_false, Option.some.injEq, Prod.mk.injEq] at h
          obtain ⟨rfl, rfl⟩ := h
          exact ⟨hq, List.mem_cons_self⟩

theorem bestMerge_lookup (merges : Merges) (stats : List ((Nat × Nat) × Nat)) (p : Nat × Nat)
    (idx : Nat) (h : bestMerge merges stats = some (p, idx)) : merges.lookup p = some idx :=
  (bestMerge_eq_some merges stats p idx h).1

/-- **Lemma 6**: `decode_bytes` distributes over `++` (in the `Option` monad: the result is
`none` exactly when one side has an unknown id). -/
theorem decodeBytes_append (vocab : Vocab) (xs ys : List Nat) :
    decodeBytes vocab (xs ++ ys) =
      (do let a ← decodeBytes vocab xs; let b ← decodeBytes vocab ys; pure (a ++ b)) := by
  induction xs with
  | nil =>
    simp only [List.nil_append, decodeBytes]
    cases decodeBytes vocab ys <;> rfl
  | cons x xs ih =>
    simp only [List.cons_append, decodeBytes, ih]
    cases vocab.lookup x <;> cases decodeBytes vocab xs <;> cases decodeBytes vocab ys <;>
      simp

/-- **Lemma 6**, with both sides known. -/
theorem decodeBytes_append_some (vocab : Vocab) (xs ys : List Nat) (a b : Bytes)
    (hx : decodeBytes vocab xs = some a) (hy : decodeBytes vocab ys = some b) :
    decodeBytes vocab (xs ++ ys) = some (a ++ b) := by
  simp [decodeBytes_append, hx, hy]

/-- **Lemma 1** (merge preservation): if `vocab[idx] = vocab[pair.1] ++ vocab[pair.2]`
(as options: unknown on the right iff unknown on the left), merging does not change
the decoded bytes. -/
theorem decodeBytes_merge (vocab : Vocab) (pair : Nat × Nat) (idx : Nat)
    (h : vocab.lookup idx =
      (do let a ← vocab.lookup pair.1; let b ← vocab.lookup pair.2; pure (a ++ b))) :
    ∀ ids : List Nat, decodeBytes vocab (merge ids pair idx) = decodeBytes vocab ids
  | [] => rfl
  | [_] => rfl
  | a :: b :: rest => by
    by_cases hab : (a == pair.1 && b == pair.2) = true
    · have ih := decodeBytes_merge vocab pair idx h rest
      rw [merge, if_pos hab]
      simp only [Bool.and_eq_true, beq_iff_eq] at hab
      obtain ⟨rfl, rfl⟩ := hab
      simp only [decodeBytes, ih, h]
      cases vocab.lookup pair.1 <;> cases vocab.lookup pair.2 <;>
        cases decodeBytes vocab rest <;> simp
    · have ih := decodeBytes_merge vocab pair idx h (b :: rest)
      rw [merge, if_neg hab]
      simp only [decodeBytes, ih]

/-- `merge` never makes a list longer. -/
theorem length_merge_le (pair : Nat × Nat) (idx : Nat) :
    ∀ ids : List Nat, (merge ids pair idx).length ≤ ids.length
  | [] => Nat.le_refl _
  | [_] => Nat.le_refl _
  | a :: b :: rest => by
    by_cases hab : (a == pair.1 && b == pair.2) = true
    · have ih := length_merge_le pair idx rest
      rw [merge, if_pos hab]; simp; omega
    · have ih := length_merge_le pair idx (b :: rest)
      rw [merge, if_neg hab]; simp at ih ⊢; omega

/-- Merging a pair that occurs in the list makes it strictly shorter. -/
theorem length_merge_lt (idx : Nat) :
    ∀ (ids : List Nat) (p : Nat × Nat), p ∈ adjacentPairs ids →
      (merge ids p idx).length < ids.length
  | [], _, h => by simp [adjacentPairs] at h
  | [_], _, h => by simp [adjacentPairs] at h
  | a :: b :: rest, p, h => by
    by_cases hab : (a == p.1 && b == p.2) = true
    · have := length_merge_le p idx rest
      rw [merge, if_pos hab]; simp; omega
    · rw [merge, if_neg hab]
      simp only [adjacentPairs, List.mem_cons] at h
      rcases h with rfl | h
      · simp at hab
      · have := length_merge_lt idx (b :: rest) p h
        simp at this ⊢; omega

theorem mem_bumpCount (p q : Nat × Nat) :
    ∀ acc : List ((Nat × Nat) × Nat),
      q ∈ (bumpCount p acc).map Prod.fst ↔ q = p ∨ q ∈ acc.map Prod.fst
  | [] => by simp [bumpCount]
  | (r, c) :: rest => by
    have ih := mem_bumpCount p q rest
    by_cases hr : (r == p) = true
    · have hrp : r = p := by simpa using hr
      simp only [bumpCount, if_pos hr, List.map_cons, List.mem_cons]
      subst hrp
      by_cases hq : q = r <;> simp [hq]
    · simp only [bumpCount, if_neg hr, List.map_cons, List.mem_cons, ih]
      have hrp : r ≠ p := by simpa using hr
      by_cases hq : q = r <;> by_cases hq' : q = p <;> simp_all

theorem mem_foldl_bumpCount (q : Nat × Nat) :
    ∀ (ps : List (Nat × Nat)) (acc : List ((Nat × Nat) × Nat)),
      q ∈ (ps.foldl (fun acc p => bumpCount p acc) acc).map Prod.fst ↔
        q ∈ ps ∨ q ∈ acc.map Prod.fst
  | [], acc => by simp
  | p :: ps, acc => by
    rw [List.foldl_cons, mem_foldl_bumpCount q ps, mem_bumpCount]
    simp only [List.mem_cons]
    constructor
    · rintro (h | h | h) <;> simp_all
    · rintro ((h | h) | h) <;> simp_all

/-- The pairs counted by `getStats` are exactly the adjacent pairs. -/
theorem mem_getStats (q : Nat × Nat) (ids : List Nat) :
    q ∈ (getStats ids).map Prod.fst ↔ q ∈ adjacentPairs ids := by
  simp [getStats, mem_foldl_bumpCount]

/-- `bestMerge` picks one of the pairs it is given. -/
theorem bestMerge_mem (merges : Merges) (stats : List ((Nat × Nat) × Nat)) (p : Nat × Nat)
    (idx : Nat) (h : bestMerge merges stats = some (p, idx)) : p ∈ stats.map Prod.fst :=
  (bestMerge_eq_some merges stats p idx h).2

/-- Applying the best merge of a list makes it strictly shorter. -/
theorem length_merge_lt_of_bestMerge (merges : Merges) (ids : List Nat) (p : Nat × Nat)
    (idx : Nat) (h : bestMerge merges (getStats ids) = some (p, idx)) :
    (merge ids p idx).length < ids.length :=
  length_merge_lt idx ids p ((mem_getStats p ids).mp (bestMerge_mem merges _ p idx h))

end Bpe
