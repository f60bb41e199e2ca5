module

public import Bpe.Seed.Classify

/-!
# Token decomposition (seed part 4) and Lemma 3

`rankOf ranks t` is the rank of the byte string `t` (the first entry with those bytes).
`decomposeToken ranks token maxRank` splits `token` into single bytes and repeatedly merges
the adjacent pair whose concatenation has the lowest rank below `maxRank` (leftmost on ties),
as minbpe does to recover the merge tree of a tiktoken vocabulary. The loop runs on a fuel
equal to the token length (each step removes one part). Lemma 3
(`flatten_decomposeToken`): the parts always concatenate back to the token.

Fuel sufficiency: the fuel never runs out. `bestPairIndex_decomposeToken`: the result has no
adjacent pair left to merge (the loop stopped because nothing qualified, as the unbounded
`while` loop does); `decomposeLoop_add`: more fuel changes nothing; `decomposeLoop_length_eq`: the
loop run on a fuel equal to the number of parts satisfies the defining equation of the
unbounded loop (stop if no pair qualifies, else merge the best pair and go on).
-/

@[expose] public section
noncomputable section

namespace Bpe

/-- tiktoken's mergeable ranks: byte string ↦ rank. -/
abbrev Ranks := List (Bytes × Nat)

/-- The rank of a byte string, if it is a token. -/
def rankOf (ranks : Ranks) (bytes : Bytes) : Option Nat := ranks.lookup bytes

@[simp] theorem rankOf_nil (bytes : Bytes) : rankOf [] bytes = none := rfl

@[simp] theorem rankOf_cons (t : Bytes) (r : Nat) (ranks : Ranks) (bytes : Bytes) :
    rankOf ((t, r) :: ranks) bytes = if bytes = t then some r else rankOf ranks bytes := by
  by_cases h : bytes = t
  · subst h
    rw [if_pos rfl]
    exact List.lookup_cons_self
  · have hne : (bytes == t) = false := by simpa using h
    rw [if_neg h]
    simp [rankOf, List.lookup, hne]

/-- The rank of `t` if it has one below `maxRank` (`none` = no bound). -/
def allowedRank (ranks : Ranks) (maxRank : Option Nat) (t : Bytes) : Option Nat :=
  match rankOf ranks t, maxRank with
  | some r, some m => if r < m then some r else none
  | r, none => r
  | none, _ => none

/-- Position (counting from `i`) and rank of the best adjacent pair of `parts`. -/
def bestPairIndex (ranks : Ranks) (maxRank : Option Nat) : Nat → List Bytes → Option (Nat × Nat)
  | i, a :: b :: rest =>
    match allowedRank ranks maxRank (a ++ b), bestPairIndex ranks maxRank (i + 1) (b :: rest) with
    | none, r => r
    | some r, none => some (i, r)
    | some r, some (j, s) => if s < r then some (j, s) else some (i, r)
  | _, _ => none

/-- Replace `parts[i], parts[i+1]` by their concatenation. -/
def mergeAt : Nat → List Bytes → List Bytes
  | 0, a :: b :: rest => (a ++ b) :: rest
  | i + 1, a :: rest => a :: mergeAt i rest
  | _, parts => parts

/-- The decomposition loop. -/
def decomposeLoop (ranks : Ranks) (maxRank : Option Nat) : Nat → List Bytes → List Bytes
  | 0, parts => parts
  | fuel + 1, parts =>
    match bestPairIndex ranks maxRank 0 parts with
    | none => parts
    | some (i, _) => decomposeLoop ranks maxRank fuel (mergeAt i parts)

/-- `decompose_token`. -/
def decomposeToken (ranks : Ranks) (token : Bytes) (maxRank : Option Nat) : List Bytes :=
  decomposeLoop ranks maxRank token.length (token.map fun b => [b])

theorem flatten_mergeAt : ∀ (i : Nat) (parts : List Bytes), (mergeAt i parts).flatten = parts.flatten
  | 0, [] => rfl
  | 0, [_] => rfl
  | 0, a :: b :: rest => by simp [mergeAt]
  | _ + 1, [] => rfl
  | i + 1, a :: rest => by simp [mergeAt, flatten_mergeAt i rest]

theorem flatten_decomposeLoop (ranks : Ranks) (maxRank : Option Nat) :
    ∀ (fuel : Nat) (parts : List Bytes),
      (decomposeLoop ranks maxRank fuel parts).flatten = parts.flatten
  | 0, _ => rfl
  | fuel + 1, parts => by
    unfold decomposeLoop
    split
    · rfl
    · rw [flatten_decomposeLoop ranks maxRank fuel, flatten_mergeAt]

/-- **Lemma 3** (decompose roundtrip): the parts concatenate back to the token. -/
theorem flatten_decomposeToken (ranks : Ranks) (token : Bytes) (maxRank : Option Nat) :
    (decomposeToken ranks token maxRank).flatten = token := by
  unfold decomposeToken
  rw [flatten_decomposeLoop]
  induction token with
  | nil => rfl
  | cons b bs ih => simp [ih]

@[simp] theorem allowedRank_none (ranks : Ranks) (t : Bytes) :
    allowedRank ranks none t = rankOf ranks t := by
  unfold allowedRank; cases rankOf ranks t <;> rfl

/-- Where `bestPairIndex` points: a pair inside the list (positions counted from `start`). -/
theorem bestPairIndex_bounds (ranks : Ranks) (maxRank : Option Nat) :
    ∀ (start : Nat) (parts : List Bytes) (i r : Nat),
      bestPairIndex ranks maxRank start parts = some (i, r) →
        start ≤ i ∧ i + 2 ≤ start + parts.length
  | _, [], _, _, h => by simp [bestPairIndex] at h
  | _, [_], _, _, h => by simp [bestPairIndex] at h
  | start, a :: b :: rest, i, r, h => by
    have ih := bestPairIndex_bounds ranks maxRank (start + 1) (b :: rest)
    simp only [List.length_cons] at ih ⊢
    unfold bestPairIndex at h
    cases ha : allowedRank ranks maxRank (a ++ b) with
    | none =>
      simp only [ha] at h
      have := ih i r h
      omega
    | some s =>
      cases hr : bestPairIndex ranks maxRank (start + 1) (b :: rest) with
      | none =>
        simp only [ha, hr, Option.some.injEq, Prod.mk.injEq] at h
        omega
      | some p =>
        obtain ⟨j, s'⟩ := p
        have := ih j s' hr
        simp only [ha, hr] at h
        split at h
        · simp only [Option.some.injEq, Prod.mk.injEq] at h
          omega
        · simp only [Option.some.injEq, Prod.mk.injEq] at h
          omega

theorem length_mergeAt : ∀ (i : Nat) (parts : List Bytes), i + 2 ≤ parts.length →
    (mergeAt i parts).length + 1 = parts.length
  | 0, [], h => by simp at h
  | 0, [_], h => by simp at h
  | 0, a :: b :: rest, _ => by simp [mergeAt]
  | _ + 1, [], h => by simp at h
  | i + 1, a :: rest, h => by
    have := length_mergeAt i rest (by simp at h; omega)
    simp [mergeAt]; omega

/-- Merging the best pair removes exactly one part. -/
theorem length_mergeAt_bestPairIndex (ranks : Ranks) (maxRank : Option Nat) (parts : List Bytes)
    (i r : Nat) (h : bestPairIndex ranks maxRank 0 parts = some (i, r)) :
    (mergeAt i parts).length + 1 = parts.length :=
  length_mergeAt i parts (by have := bestPairIndex_bounds ranks maxRank 0 parts i r h; omega)

theorem bestPairIndex_of_length_le_one (ranks : Ranks) (maxRank : Option Nat) (start : Nat) :
    ∀ parts : List Bytes, parts.length ≤ 1 → bestPairIndex ranks maxRank start parts = none
  | [], _ => by simp [bestPairIndex]
  | [_], _ => by simp [bestPairIndex]
  | _ :: _ :: _, h => by simp at h

/-- The loop stops with no pair left to merge whenever the fuel is at least the number of
parts minus one. -/
theorem bestPairIndex_decomposeLoop (ranks : Ranks) (maxRank : Option Nat) :
    ∀ (fuel : Nat) (parts : List Bytes), parts.length ≤ fuel + 1 →
      bestPairIndex ranks maxRank 0 (decomposeLoop ranks maxRank fuel parts) = none
  | 0, parts, h => bestPairIndex_of_length_le_one ranks maxRank 0 parts (by omega)
  | fuel + 1, parts, h => by
    unfold decomposeLoop
    split
    next hb => exact hb
    next i r hb =>
      have := length_mergeAt_bestPairIndex ranks maxRank parts i r hb
      exact bestPairIndex_decomposeLoop ranks maxRank fuel _ (by omega)

/-- **Fuel sufficiency** of `decomposeToken`: its fuel (the token length) never runs out; the
result has no adjacent pair whose concatenation has an allowed rank, exactly as when the
unbounded loop exits. -/
theorem bestPairIndex_decomposeToken (ranks : Ranks) (token : Bytes) (maxRank : Option Nat) :
    bestPairIndex ranks maxRank 0 (decomposeToken ranks token maxRank) = none :=
  bestPairIndex_decomposeLoop ranks maxRank _ _ (by simp)

/-- A list with no pair left to merge is a fixpoint of the loop. -/
theorem decomposeLoop_of_bestPairIndex_none (ranks : Ranks) (maxRank : Option Nat)
    (parts : List Bytes) (h : bestPairIndex ranks maxRank 0 parts = none) :
    ∀ fuel : Nat, decomposeLoop ranks maxRank fuel parts = parts
  | 0 => rfl
  | _ + 1 => by unfold decomposeLoop; rw [h]

/-- More fuel changes nothing once the loop has stopped on its own. -/
theorem decomposeLoop_add (ranks : Ranks) (maxRank : Option Nat) :
    ∀ (fuel k : Nat) (parts : List Bytes),
      bestPairIndex ranks maxRank 0 (decomposeLoop ranks maxRank fuel parts) = none →
        decomposeLoop ranks maxRank (fuel + k) parts = decomposeLoop ranks maxRank fuel parts
  | 0, k, parts, h => by
    simp only [Nat.zero_add]
    exact decomposeLoop_of_bestPairIndex_none ranks maxRank parts h k
  | fuel + 1, k, parts, h => by
    rw [Nat.add_right_comm]
    unfold decomposeLoop at h ⊢
    split
    next => rfl
    next i r hb =>
      rw [hb] at h
      exact decomposeLoop_add ranks maxRank fuel k _ h

theorem decomposeLoop_succ (ranks : Ranks) (maxRank : Option Nat) (fuel : Nat)
    (parts : List Bytes) :
    decomposeLoop ranks maxRank (fuel + 1) parts =
      match bestPairIndex ranks maxRank 0 parts with
      | none => parts
      | some (i, _) => decomposeLoop ranks maxRank fuel (mergeAt i parts) := rfl

/-- **Fuel sufficiency**, as an equation: the loop with fuel = number of parts satisfies the
defining equation of the unbounded loop (stop when no pair qualifies, else merge the best pair
and continue). -/
theorem decomposeLoop_length_eq (ranks : Ranks) (maxRank : Option Nat) (parts : List Bytes) :
    decomposeLoop ranks maxRank parts.length parts =
      match bestPairIndex ranks maxRank 0 parts with
      | none => parts
      | some (i, _) => decomposeLoop ranks maxRank (mergeAt i parts).length (mergeAt i parts) := by
  cases hb : bestPairIndex ranks maxRank 0 parts with
  | none => exact decomposeLoop_of_bestPairIndex_none ranks maxRank parts hb _
  | some p =>
    obtain ⟨i, r⟩ := p
    have hl := length_mergeAt_bestPairIndex ranks maxRank parts i r hb
    have step : decomposeLoop ranks maxRank ((mergeAt i parts).length + 1) parts =
        decomposeLoop ranks maxRank (mergeAt i parts).length (mergeAt i parts) := by
      simp only [decomposeLoop_succ, hb]
    rw [hl] at step
    exact step

@[deprecated decomposeLoop_length_eq (since := "2026-11-25")]
abbrev decomposeLoop_length := @decomposeLoop_length_eq

end Bpe
