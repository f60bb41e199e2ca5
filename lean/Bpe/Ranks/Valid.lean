module

public import Bpe.Ranks.Basic
public import Bpe.Ranks.DecomposeRun

/-!
# Which lists of tokens are the merge of their bytes

`bytePairMerge_flatten_eq_iff` (for every rank table, no condition): a list of byte strings
`T` is what tiktoken's merge loop returns on its concatenation, `bytePairMerge ranks
T.flatten = T`, exactly when every part is its own merge (`bytePairMerge ranks t = [t]`) and
every two adjacent parts are the merge of their bytes (`bytePairMerge ranks (a ++ b) = [a, b]`).
rust-gems states this as the characterisation of valid encodings; `Bpe.Ranks.Pump` uses it to
repeat a token inside a long run of one byte, as the Rust engine's `bpe_run` does.

The proof has two halves.
* Infixes (`bytePairMerge_flatten_infix`): consecutive parts `B` of the final state of a run
  are a state of the run on their own bytes (locality, `exists_decomposeLoop_infix`) with no
  pair left to merge, hence the final state of that run.
* Gluing (`bytePairMerge_append`): if `u` merges to `A ++ [a]`, `v` to `b :: B` and `a ++ b`
  to `[a, b]`, then `u ++ v` merges to `A ++ a :: b :: B`. Along the run on `u ++ v` every
  state is a state of the run on `u` followed by a state of the run on `v`
  (`exists_decomposeLoop_append`): a merge inside either side is that side's own next merge
  (`IsBestPair.infix`), and no merge joins the last part of the left side to the first part of
  the right side (`false_of_cross`). Such a merge would take parts `x`, `y` of the two windows
  that end in `a` and start `b` (a run only removes boundaries, so a state of a run has every
  boundary its final state has: `exists_append_of_decomposeLoop`); those windows together
  are a state of the run on `a ++ b` (locality) whose best pair is `x, y`, so the run on
  `a ++ b` would merge across the boundary after `a`, which its final state `[a, b]` keeps.
The parts of a run's states are never empty (`ne_nil_of_mem_decomposeLoop`), which also covers
the edge cases: `bytePairMerge ranks [] = []`, so `T = []` satisfies both sides, and a `T`
with an empty part satisfies neither.
-/

@[expose] public section

namespace Bpe

variable {ranks : Ranks}

/-! ## States of a run: boundaries, empty parts, the end of the run -/

section RunStates

/-- A step only removes a boundary: a split of the next state is a split of the state with the
same bytes on the left. -/
theorem exists_append_of_stepParts {maxRank : Option Nat} {Q U V : List Bytes}
    (h : stepParts ranks maxRank Q = U ++ V) :
    ∃ U' V', Q = U' ++ V' ∧ U'.flatten = U.flatten := by
  cases hb : bestPairIndex ranks maxRank 0 Q with
  | none =>
    rw [stepParts_of_none hb] at h
    exact ⟨U, V, h, rfl⟩
  | some q =>
    obtain ⟨i, s⟩ := q
    obtain ⟨L, x, y, R, rfl, -, hbest⟩ := bestPairIndex_eq_some_split ranks maxRank 0 _ i s hb
    rw [stepParts_of_isBestPair hbest] at h
    rcases append_cons_eq_append h with ⟨P2, rfl, rfl⟩ | ⟨S1, rfl, rfl⟩
    · exact ⟨L ++ x :: y :: P2, V, by simp, by simp⟩
    · exact ⟨U, S1 ++ x :: y :: R, by simp, rfl⟩

/-- A run only removes boundaries: a split of a later state is a split of an earlier one with
the same bytes on the left. -/
theorem exists_append_of_decomposeLoop {maxRank : Option Nat} :
    ∀ (n : Nat) {Q U V : List Bytes}, decomposeLoop ranks maxRank n Q = U ++ V →
      ∃ U' V', Q = U' ++ V' ∧ U'.flatten = U.flatten
  | 0, _, U, V, h => ⟨U, V, h, rfl⟩
  | n + 1, _, _, _, h => by
    rw [decomposeLoop_succ_step] at h
    obtain ⟨U₁, V₁, h₁, e₁⟩ := exists_append_of_decomposeLoop n h
    obtain ⟨U₂, V₂, h₂, e₂⟩ := exists_append_of_stepParts h₁
    exact ⟨U₂, V₂, h₂, e₂.trans e₁⟩

/-- The best pair of a list is the best pair of any window of consecutive parts around it. -/
theorem IsBestPair.infix {maxRank : Option Nat} {A L R C : List Bytes} {x y : Bytes} {s : Nat}
    (h : IsBestPair ranks maxRank (A ++ L) x y (R ++ C) s) :
    IsBestPair ranks maxRank L x y R s := by
  refine ⟨h.1, ?_, ?_⟩
  · intro p hp s' hs'
    have hp' := mem_adjacentPairs_append_left A hp
    rw [← List.append_assoc] at hp'
    exact h.2.1 p hp' s' hs'
  · intro p hp s' hs'
    have hp' : p ∈ adjacentPairs (y :: (R ++ C)) := mem_adjacentPairs_append_right C hp
    exact h.2.2 p hp' s' hs'

/-- No pair of a window has an allowed rank when no pair of the whole list has one. -/
theorem bestPairIndex_infix_eq_none {maxRank : Option Nat} {A B C : List Bytes}
    (h : bestPairIndex ranks maxRank 0 (A ++ B ++ C) = none) :
    bestPairIndex ranks maxRank 0 B = none :=
  bestPairIndex_eq_none_of ranks maxRank 0 B fun p hp =>
    allowedRank_eq_none_of_bestPairIndex ranks maxRank 0 _ h p
      (mem_adjacentPairs_append_right C (mem_adjacentPairs_append_left A hp))

theorem flatten_map_singleton (w : Bytes) : (w.map fun c => [c]).flatten = w := by
  simpa [List.flatMap_def] using List.flatMap_singleton' w

/-- The bytes of a state of a run are the bytes of the piece. -/
theorem flatten_decomposeLoop_singles (maxRank : Option Nat) (n : Nat) (w : Bytes) :
    (decomposeLoop ranks maxRank n (w.map fun c => [c])).flatten = w := by
  rw [flatten_decomposeLoop, flatten_map_singleton]

/-- No part of a state of a run is empty. -/
theorem ne_nil_of_mem_decomposeLoop {maxRank : Option Nat} {w : Bytes} {n : Nat} {p : Bytes}
    (hp : p ∈ decomposeLoop ranks maxRank n (w.map fun c => [c])) : p ≠ [] := by
  intro h
  subst h
  rcases partsOk_decomposeLoop (partsOk_singles ranks maxRank w) n [] hp with h | ⟨h, -⟩ <;>
    simp at h

/-- No part of `bytePairMerge` is empty. -/
theorem ne_nil_of_mem_bytePairMerge {w p : Bytes} (hp : p ∈ bytePairMerge ranks w) :
    p ≠ [] := by
  rw [bytePairMerge_eq_decomposeToken] at hp
  unfold decomposeToken at hp
  exact ne_nil_of_mem_decomposeLoop hp

/-- From any state of the run on `w`, the rest of the run reaches `bytePairMerge ranks w`. -/
theorem bytePairMerge_eq_decomposeLoop_decomposeLoop (w : Bytes) (k : Nat) :
    bytePairMerge ranks w =
      decomposeLoop ranks none w.length (decomposeLoop ranks none k (w.map fun c => [c])) := by
  rw [← decomposeLoop_comp, bytePairMerge_eq_decomposeToken]
  unfold decomposeToken
  exact (decomposeLoop_add ranks none _ k _
    (bestPairIndex_decomposeLoop ranks none _ _ (by simp))).symm

/-- A state of the run on `w` with no pair left to merge is `bytePairMerge ranks w`. -/
theorem bytePairMerge_eq_decomposeLoop_of_none {w : Bytes} {k : Nat}
    (h : bestPairIndex ranks none 0 (decomposeLoop ranks none k (w.map fun c => [c])) = none) :
    bytePairMerge ranks w = decomposeLoop ranks none k (w.map fun c => [c]) := by
  rw [bytePairMerge_eq_decomposeToken]
  exact decomposeLoop_eq_of_none ranks none _ _ _
    (bestPairIndex_decomposeLoop ranks none _ _ (by simp)) h

end RunStates

/-! ## Infixes of a merge are merges -/

/-- **Infixes**: consecutive parts of the merge of a piece are the merge of their bytes. -/
theorem bytePairMerge_flatten_infix {A B C : List Bytes}
    (h : bytePairMerge ranks (A ++ B ++ C).flatten = A ++ B ++ C) :
    bytePairMerge ranks B.flatten = B := by
  rw [bytePairMerge_eq_decomposeToken] at h
  have hnone := bestPairIndex_decomposeToken ranks (A ++ B ++ C).flatten none
  unfold decomposeToken at h hnone
  obtain ⟨k, hk⟩ := exists_decomposeLoop_infix ranks none _ _ A B C h
  rw [h] at hnone
  have hB := bestPairIndex_infix_eq_none hnone
  rw [hk] at hB
  rw [bytePairMerge_eq_decomposeLoop_of_none hB, ← hk]

/-! ## Gluing two merges -/

section Glue
variable {u v : Bytes} {A B : List Bytes} {a b : Bytes}

/-- A merged part `z` of `L ++ z :: R` cannot end strictly inside `z`: no split `U ++ V` of
the list has `L`'s bytes and a non-empty proper prefix of `z` on the left. -/
theorem flatten_length_ne_of_append_cons {L R U V : List Bytes} {z : Bytes} {d : Nat}
    (h : L ++ z :: R = U ++ V) (hd : 0 < d) (hdz : d < z.length) :
    U.flatten.length ≠ L.flatten.length + d := by
  rcases append_cons_eq_append h with ⟨P2, rfl, -⟩ | ⟨S1, -, rfl⟩
  · simp only [List.flatten_append, List.flatten_cons, List.length_append]
    omega
  · simp only [List.flatten_append, List.length_append]
    omega

/-- In the run on `u ++ v`, where `u` merges to `A ++ [a]`, `v` to `b :: B` and `a ++ b` to
`[a, b]`: the best pair of a state made of a state of the run on `u` and one of the run on `v`
never joins the last part of the one to the first part of the other. -/
theorem false_of_cross (hA : bytePairMerge ranks u = A ++ [a])
    (hB : bytePairMerge ranks v = b :: B) (hab : bytePairMerge ranks (a ++ b) = [a, b])
    {n i j : Nat} {L R : List Bytes} {x y : Bytes} {s : Nat}
    (hS : decomposeLoop ranks none n ((u ++ v).map fun c => [c]) = L ++ x :: y :: R)
    (hbest : IsBestPair ranks none L x y R s)
    (hSA : decomposeLoop ranks none i (u.map fun c => [c]) = L ++ [x])
    (hSB : decomposeLoop ranks none j (v.map fun c => [c]) = y :: R) : False := by
  -- the bytes of `u` and `v`
  have hu : u = A.flatten ++ a := by
    have h := flatten_bytePairMerge ranks u
    rw [hA] at h
    simpa using h.symm
  -- the state of the run on `u` has a boundary before `a`'s bytes: parts `V1 = V1' ++ [x]`
  have hA' := (bytePairMerge_eq_decomposeLoop_decomposeLoop (ranks := ranks) u i).symm.trans hA
  obtain ⟨U1, V1, hUV1, eU1⟩ := exists_append_of_decomposeLoop (U := A) (V := [a]) _ hA'
  have hV1 : V1.flatten = a := by
    have h1 := flatten_decomposeLoop_singles (ranks := ranks) none i u
    rw [hUV1, List.flatten_append, eU1, hu] at h1
    exact List.append_cancel_left h1
  -- the state of the run on `v` has a boundary after `b`'s bytes: parts `U2 = y :: U2'`
  have hB' := (bytePairMerge_eq_decomposeLoop_decomposeLoop (ranks := ranks) v j).symm.trans hB
  obtain ⟨U2, V2, hUV2, eU2⟩ := exists_append_of_decomposeLoop (U := [b]) (V := B) _ hB'
  have hU2 : U2.flatten = b := by rw [eU2]; simp
  have ha : a ≠ [] :=
    ne_nil_of_mem_bytePairMerge (ranks := ranks) (w := a ++ b) (by rw [hab]; simp)
  have hb : b ≠ [] :=
    ne_nil_of_mem_bytePairMerge (ranks := ranks) (w := a ++ b) (by rw [hab]; simp)
  have hx : x ≠ [] := ne_nil_of_mem_decomposeLoop (ranks := ranks) (maxRank := none) (n := n)
    (w := u ++ v) (by rw [hS]; simp)
  have hy : y ≠ [] := ne_nil_of_mem_decomposeLoop (ranks := ranks) (maxRank := none) (n := n)
    (w := u ++ v) (by rw [hS]; simp)
  rcases List.eq_nil_or_concat V1 with rfl | ⟨V1', z, rfl⟩
  · exact ha (by rw [← hV1]; rfl)
  rw [List.concat_eq_append] at hV1 hUV1
  cases U2 with
  | nil => exact hb (by rw [← hU2]; rfl)
  | cons y' U2' =>
    rw [hSA, ← List.append_assoc] at hUV1
    obtain ⟨rfl, hzx⟩ := List.append_inj' hUV1 rfl
    simp only [List.cons.injEq, and_true] at hzx
    subst hzx
    rw [hSB, List.cons_append, List.cons.injEq] at hUV2
    obtain ⟨rfl, rfl⟩ := hUV2
    -- the window `V1' ++ x :: y :: U2'` is a state of the run on `a ++ b`
    have hW : (V1' ++ x :: y :: U2').flatten = a ++ b := by
      rw [← hV1, ← hU2]; simp
    obtain ⟨k, hk⟩ := exists_decomposeLoop_infix ranks none (u ++ v) n U1
      (V1' ++ x :: y :: U2') V2 (by rw [hS]; simp)
    rw [hW] at hk
    -- whose best pair is `x, y`: its next state merges across the end of `a`
    have hwin : IsBestPair ranks none V1' x y U2' s := IsBestPair.infix hbest
    have hnext : decomposeLoop ranks none (k + 1) ((a ++ b).map fun c => [c]) =
        V1' ++ (x ++ y) :: U2' := by
      rw [decomposeLoop_succ_step', ← hk, stepParts_of_isBestPair hwin]
    -- but the end of the run on `a ++ b`, `[a] ++ [b]`, keeps that boundary
    have hend := (bytePairMerge_eq_decomposeLoop_decomposeLoop (ranks := ranks) (a ++ b)
      (k + 1)).symm.trans hab
    rw [hnext] at hend
    obtain ⟨U3, V3, hUV3, eU3⟩ := exists_append_of_decomposeLoop (U := [a]) (V := [b]) _ hend
    have hxlen : 0 < x.length := List.length_pos_iff.mpr hx
    have hylen : 0 < y.length := List.length_pos_iff.mpr hy
    apply flatten_length_ne_of_append_cons hUV3 hxlen (by simp only [List.length_append]; omega)
    rw [eU3, ← hV1]
    simp

/-- While the run on `u ++ v` goes on (with `u`, `v`, `a ++ b` as in `false_of_cross`), each of
its states is a state of the run on `u` followed by a state of the run on `v`. -/
theorem exists_decomposeLoop_append (hA : bytePairMerge ranks u = A ++ [a])
    (hB : bytePairMerge ranks v = b :: B) (hab : bytePairMerge ranks (a ++ b) = [a, b]) :
    ∀ n, ∃ i j, decomposeLoop ranks none n ((u ++ v).map fun c => [c]) =
      decomposeLoop ranks none i (u.map fun c => [c]) ++
        decomposeLoop ranks none j (v.map fun c => [c])
  | 0 => ⟨0, 0, List.map_append⟩
  | n + 1 => by
    obtain ⟨i, j, h⟩ := exists_decomposeLoop_append hA hB hab n
    rw [decomposeLoop_succ_step']
    cases hb : bestPairIndex ranks none 0 (decomposeLoop ranks none n ((u ++ v).map fun c => [c]))
      with
    | none =>
      rw [stepParts_of_none hb]
      exact ⟨i, j, h⟩
    | some q =>
      obtain ⟨p, s⟩ := q
      obtain ⟨L, x, y, R, hS, -, hbest⟩ := bestPairIndex_eq_some_split ranks none 0 _ p s hb
      rw [hS, stepParts_of_isBestPair hbest]
      have hS' := hS
      rw [h] at hS'
      rcases append_cons_eq_append hS'.symm with ⟨P2, hSA, hR⟩ | ⟨S1, hSB, rfl⟩
      · cases P2 with
        | nil =>
          rw [List.nil_append] at hR
          exact (false_of_cross hA hB hab hS hbest hSA hR.symm).elim
        | cons y' P2 =>
          simp only [List.cons_append, List.cons.injEq] at hR
          obtain ⟨rfl, rfl⟩ := hR
          have hwin : IsBestPair ranks none L x y P2 s :=
            IsBestPair.infix (A := []) (C := decomposeLoop ranks none j (v.map fun c => [c]))
              (by rw [List.nil_append]; exact hbest)
          refine ⟨i + 1, j, ?_⟩
          rw [decomposeLoop_succ_step', hSA, stepParts_of_isBestPair hwin]
          simp
      · have hwin : IsBestPair ranks none S1 x y R s :=
          IsBestPair.infix (A := decomposeLoop ranks none i (u.map fun c => [c])) (C := [])
            (by rw [List.append_nil]; exact hbest)
        refine ⟨i, j + 1, ?_⟩
        rw [decomposeLoop_succ_step', hSB, stepParts_of_isBestPair hwin]
        simp

/-- **Gluing**: if `u` merges to `A ++ [a]`, `v` to `b :: B` and `a ++ b` to `[a, b]`, then
`u ++ v` merges to `A ++ a :: b :: B`. No condition on the rank table. -/
theorem bytePairMerge_append (hA : bytePairMerge ranks u = A ++ [a])
    (hB : bytePairMerge ranks v = b :: B) (hab : bytePairMerge ranks (a ++ b) = [a, b]) :
    bytePairMerge ranks (u ++ v) = A ++ a :: b :: B := by
  obtain ⟨i, j, h⟩ := exists_decomposeLoop_append hA hB hab (u ++ v).length
  have hfin := bestPairIndex_decomposeLoop ranks none (u ++ v).length
    ((u ++ v).map fun c => [c]) (by simp)
  rw [h] at hfin
  have hi : bytePairMerge ranks u = decomposeLoop ranks none i (u.map fun c => [c]) :=
    bytePairMerge_eq_decomposeLoop_of_none (bestPairIndex_infix_eq_none (A := [])
      (C := decomposeLoop ranks none j (v.map fun c => [c])) (by rw [List.nil_append]; exact hfin))
  have hj : bytePairMerge ranks v = decomposeLoop ranks none j (v.map fun c => [c]) :=
    bytePairMerge_eq_decomposeLoop_of_none (bestPairIndex_infix_eq_none
      (A := decomposeLoop ranks none i (u.map fun c => [c])) (C := [])
      (by rw [List.append_nil]; exact hfin))
  rw [bytePairMerge_eq_decomposeToken]
  unfold decomposeToken
  rw [h, ← hi, ← hj, hA, hB]
  simp

end Glue

/-! ## The characterisation -/

/-- **Valid encodings** (rust-gems' characterisation), for every rank table: a list of byte
strings is the merge of its concatenation exactly when each part is its own merge and each
two adjacent parts are the merge of their bytes. -/
theorem bytePairMerge_flatten_eq_iff (T : List Bytes) :
    bytePairMerge ranks T.flatten = T ↔
      (∀ t ∈ T, bytePairMerge ranks t = [t]) ∧
        ∀ p ∈ adjacentPairs T, bytePairMerge ranks (p.1 ++ p.2) = [p.1, p.2] := by
  constructor
  · intro h
    refine ⟨fun t ht => ?_, fun p hp => ?_⟩
    · obtain ⟨A, C, rfl⟩ := List.append_of_mem ht
      have h' := bytePairMerge_flatten_infix (A := A) (B := [t]) (C := C) (by simpa using h)
      simpa using h'
    · obtain ⟨A, C, rfl⟩ := exists_split_of_mem_adjacentPairs hp
      have h' := bytePairMerge_flatten_infix (A := A) (B := [p.1, p.2]) (C := C)
        (by simpa using h)
      simpa using h'
  · induction T with
    | nil => intro _; rfl
    | cons t T ih =>
      rintro ⟨ht, hp⟩
      have ht' : bytePairMerge ranks t = [] ++ [t] := ht t List.mem_cons_self
      cases T with
      | nil => simpa using ht'
      | cons b T =>
        have hT := ih ⟨fun t' h' => ht t' (List.mem_cons_of_mem _ h'),
          fun p h' => hp p (mem_adjacentPairs_cons t h')⟩
        have hglue := bytePairMerge_append ht' hT (hp (t, b) List.mem_cons_self)
        simpa using hglue

end Bpe
