module

public import Bpe.Seed.Encode
public import Bpe.Exec.Table

/-!
# The executable encoder returns exactly what the spec returns

For every table `t` that passes the run-time check `Bpe.Exec.sorted`, every shuffle and every
input, the compiled encoder of `Bpe.Exec.Code` agrees with the spec of `Bpe.Seed.Encode` run on the
merge list `t.toList` (the same entries): `encodeChunk_eq` (one chunk) and
`encodeChunks_eq_encodeWith` (a whole text, for any pre-tokenizer).

The only step that is not a line-by-line copy is the choice of the pair to merge: the spec
counts the adjacent pairs (`getStats`, first-occurrence order) and takes the lowest merge
index among them (`bestMerge`, first on ties); the executable makes one pass over the adjacent
pairs keeping the better candidate (`scan`, `pick`). Both are the `pick`-fold of the pairs'
candidates (`bestOf`): `pick` is associative, and a pair seen before never wins against the
best candidate so far (`pick_bestOf_candOf`), so dropping repeated pairs changes nothing.
-/

@[expose] public section

namespace Bpe.Exec

/-- A pair with its merge index in the spec's list, if it has one. -/
def candOf (m : Merges) (p : Nat × Nat) : Option Entry :=
  match m.lookup p with
  | none => none
  | some i => some (p, i)

/-- The best candidate among pairs (lowest index, first on ties), with the spec's lookup. -/
def bestOf (m : Merges) : List (Nat × Nat) → Option Entry
  | [] => none
  | p :: ps => pick (candOf m p) (bestOf m ps)

@[simp] theorem pick_none_left (r : Option Entry) : pick none r = r := by cases r <;> rfl

@[simp] theorem pick_none_right (r : Option Entry) : pick r none = r := by cases r <;> rfl

theorem pick_assoc (a b c : Option Entry) : pick (pick a b) c = pick a (pick b c) := by
  cases a with
  | none => simp
  | some x =>
    cases b with
    | none => simp
    | some y =>
      cases c with
      | none => simp
      | some z =>
        obtain ⟨px, ix⟩ := x
        obtain ⟨py, iy⟩ := y
        obtain ⟨pz, iz⟩ := z
        by_cases h1 : iy < ix <;> by_cases h2 : iz < iy <;> by_cases h3 : iz < ix <;>
          simp [pick, h1, h2, h3] <;> omega

/-- The best candidate of a list containing `p` has an index at most `p`'s. -/
theorem bestOf_le (m : Merges) (p : Nat × Nat) (i : Nat) (hp : m.lookup p = some i) :
    ∀ l : List (Nat × Nat), p ∈ l → ∃ q j, bestOf m l = some (q, j) ∧ j ≤ i
  | [], h => by simp at h
  | q :: qs, h => by
    simp only [bestOf]
    rcases List.mem_cons.mp h with h | h
    · subst h
      have hc : candOf m p = some (p, i) := by simp [candOf, hp]
      rw [hc]
      cases hr : bestOf m qs with
      | none => exact ⟨p, i, rfl, Nat.le_refl _⟩
      | some r =>
        obtain ⟨q', j⟩ := r
        by_cases hj : j < i
        · exact ⟨q', j, by simp [pick, hj], by omega⟩
        · exact ⟨p, i, by simp [pick, hj], Nat.le_refl _⟩
    · obtain ⟨q', j, hr, hj⟩ := bestOf_le m p i hp qs h
      rw [hr]
      cases hc : candOf m q with
      | none => exact ⟨q', j, by simp [pick], hj⟩
      | some c =>
        obtain ⟨q'', i'⟩ := c
        by_cases hji : j < i'
        · exact ⟨q', j, by simp [pick, hji], hj⟩
        · exact ⟨q'', i', by simp [pick, hji], by omega⟩

/-- A pair seen before does not change the best candidate. -/
theorem pick_bestOf_candOf (m : Merges) (p : Nat × Nat) (l : List (Nat × Nat)) (h : p ∈ l) :
    pick (bestOf m l) (candOf m p) = bestOf m l := by
  cases hp : m.lookup p with
  | none => simp [candOf, hp]
  | some i =>
    obtain ⟨q, j, hq, hj⟩ := bestOf_le m p i hp l h
    have : ¬ i < j := by omega
    simp [candOf, hp, hq, pick, this]

theorem bestMerge_eq_bestOf (m : Merges) : ∀ stats : List ((Nat × Nat) × Nat),
    bestMerge m stats = bestOf m (stats.map Prod.fst)
  | [] => rfl
  | (p, c) :: rest => by
    simp only [bestMerge, List.map_cons, bestOf, ← bestMerge_eq_bestOf m rest]
    cases hl : m.lookup p with
    | none => simp [candOf, hl]
    | some i =>
      cases hr : bestMerge m rest with
      | none => simp [candOf, hl, pick]
      | some r =>
        obtain ⟨q, j⟩ := r
        simp [candOf, hl, pick]

theorem bestOf_bumpCount (m : Merges) (p : Nat × Nat) : ∀ acc : List ((Nat × Nat) × Nat),
    bestOf m ((bumpCount p acc).map Prod.fst) = pick (bestOf m (acc.map Prod.fst)) (candOf m p)
  | [] => by simp [bumpCount, bestOf]
  | (q, c) :: rest => by
    by_cases hq : (q == p) = true
    · have hqp : q = p := by simpa using hq
      simp only [bumpCount, if_pos hq, List.map_cons]
      subst hqp
      exact (pick_bestOf_candOf m _ _ List.mem_cons_self).symm
    · simp only [bumpCount, if_neg hq, List.map_cons, bestOf, bestOf_bumpCount m p rest,
        pick_assoc]

theorem bestOf_foldl_bumpCount (m : Merges) :
    ∀ (ps : List (Nat × Nat)) (acc : List ((Nat × Nat) × Nat)),
      bestOf m ((ps.foldl (fun acc p => bumpCount p acc) acc).map Prod.fst) =
        pick (bestOf m (acc.map Prod.fst)) (bestOf m ps)
  | [], acc => by simp [bestOf]
  | p :: ps, acc => by
    rw [List.foldl_cons, bestOf_foldl_bumpCount m ps, bestOf_bumpCount, pick_assoc]
    simp only [bestOf]

/-- The spec's choice of pair (`bestMerge` over the counted pairs) is the `pick`-fold of the
adjacent pairs. -/
theorem bestMerge_getStats (m : Merges) (ids : List Nat) :
    bestMerge m (getStats ids) = bestOf m (adjacentPairs ids) := by
  rw [bestMerge_eq_bestOf, getStats, bestOf_foldl_bumpCount]
  simp [bestOf]

theorem cand_eq (t : Array Entry) (hs : sorted t = true) (a b : Nat) :
    cand t a b = candOf t.toList (a, b) := by
  unfold cand candOf
  rw [find_eq t hs]
  cases t.toList.lookup (a, b) <;> rfl

theorem scan_eq (t : Array Entry) (hs : sorted t = true) :
    ∀ (acc : Option Entry) (ids : List Nat),
      scan t acc ids = pick acc (bestOf t.toList (adjacentPairs ids))
  | acc, a :: b :: rest => by
    rw [scan, scan_eq t hs _ (b :: rest), adjacentPairs, bestOf, cand_eq t hs, pick_assoc]
  | acc, [] => by cases acc <;> rfl
  | acc, [_] => by cases acc <;> rfl

theorem mergeIds_eq : ∀ (ids : List Nat) (pair : Nat × Nat) (idx : Nat),
    mergeIds ids pair idx = merge ids pair idx
  | a :: b :: rest, pair, idx => by
    by_cases h : (a == pair.1 && b == pair.2) = true
    · rw [mergeIds, merge, if_pos h, if_pos h, mergeIds_eq rest]
    · rw [mergeIds, merge, if_neg h, if_neg h, mergeIds_eq (b :: rest)]
  | [], _, _ => rfl
  | [_], _, _ => rfl

theorem loop_eq (t : Array Entry) (hs : sorted t = true) :
    ∀ (fuel : Nat) (ids : List Nat), loop t fuel ids = encodeLoop t.toList fuel ids
  | 0, _ => rfl
  | fuel + 1, ids => by
    have hb : scan t none ids = bestMerge t.toList (getStats ids) := by
      rw [scan_eq t hs, bestMerge_getStats, pick_none_left]
    rw [loop, encodeLoop, hb]
    cases bestMerge t.toList (getStats ids) with
    | none => rfl
    | some r =>
      obtain ⟨pair, idx⟩ := r
      simp only [mergeIds_eq, loop_eq t hs fuel]

@[simp] theorem len_eq : ∀ l : List Nat, len l = l.length
  | [] => rfl
  | _ :: xs => by simp [len, len_eq xs]

@[simp] theorem appendBytes_eq : ∀ a b : List UInt8, appendBytes a b = a ++ b
  | [], _ => rfl
  | x :: xs, b => by simp [appendBytes, appendBytes_eq xs b]

@[simp] theorem lenBytes_eq : ∀ a : List UInt8, lenBytes a = a.length
  | [] => rfl
  | _ :: xs => by simp [lenBytes, lenBytes_eq xs]

@[simp] theorem shuffleBytes_eq (sh : UInt8 → UInt8) :
    ∀ c : List UInt8, shuffleBytes sh c = c.map fun b => (sh b).toNat
  | [] => rfl
  | b :: bs => by simp [shuffleBytes, shuffleBytes_eq sh bs]

@[simp] theorem appendIds_eq : ∀ xs ys : List Nat, appendIds xs ys = xs ++ ys
  | [], _ => rfl
  | x :: xs, ys => by simp [appendIds, appendIds_eq xs ys]

/-- **The executable encoder is the spec** on one chunk: for a table that passes the
run-time check `sorted`, `Exec.encodeChunk` returns `Bpe.encodeChunk` on the table's entries. -/
theorem encodeChunk_eq (t : Array Entry) (hs : sorted t = true) (sh : UInt8 → UInt8)
    (chunk : Bytes) : encodeChunk t sh chunk = Bpe.encodeChunk t.toList sh chunk := by
  simp only [encodeChunk, Bpe.encodeChunk, shuffleBytes_eq, len_eq, loop_eq t hs]

theorem encodeChunks_eq (t : Array Entry) (hs : sorted t = true) (sh : UInt8 → UInt8) :
    ∀ chunks : List Bytes,
      encodeChunks t sh chunks = chunks.flatMap (Bpe.encodeChunk t.toList sh)
  | [] => by simp [encodeChunks]
  | c :: cs => by
    simp [encodeChunks, encodeChunk_eq t hs, encodeChunks_eq t hs sh cs]

/-- **The executable encoder is the spec** on whole texts: encoding the chunks of any
pre-tokenizer with `Exec.encodeChunks` gives `Bpe.encodeWith` on the table's entries. -/
theorem encodeChunks_eq_encodeWith (t : Array Entry) (hs : sorted t = true)
    (pre : Bytes → List Bytes) (sh : UInt8 → UInt8) (text : String) :
    encodeChunks t sh (pre (stringBytes text)) = Bpe.encodeWith pre t.toList sh text := by
  rw [encodeChunks_eq t hs, Bpe.encodeWith]

@[deprecated encodeChunks_eq_encodeWith (since := "2026-11-25")]
abbrev encodeWith_eq := @encodeChunks_eq_encodeWith

end Bpe.Exec
