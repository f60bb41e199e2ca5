module

public import Bpe.Classify

/-!
# Token decomposition (seed part 4) and Lemma 3

`decomposeToken ranks token maxRank` splits `token` into single bytes and repeatedly merges
the adjacent pair whose concatenation has the lowest rank below `maxRank` (leftmost on ties),
as minbpe does to recover the merge tree of a tiktoken vocabulary. The loop runs on a fuel
equal to the token length (each step removes one part). Lemma 3
(`flatten_decomposeToken`): the parts always concatenate back to the token.
-/

@[expose] public section
noncomputable section

namespace Bpe

/-- tiktoken's mergeable ranks: byte string ↦ rank. -/
abbrev Ranks := List (Bytes × Nat)

/-- The rank of `t` if it has one below `maxRank` (`none` = no bound). -/
def allowedRank (ranks : Ranks) (maxRank : Option Nat) (t : Bytes) : Option Nat :=
  match ranks.lookup t, maxRank with
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

end Bpe
