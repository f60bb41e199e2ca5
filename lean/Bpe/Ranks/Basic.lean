module

public import Bpe.Seed.Decompose
public import Bpe.Seed.Encode
public import Bpe.Seed.AssocList

/-!
# tiktoken's encoder, as a specification (rank-based byte-pair merging)

tiktoken does not store merges: it stores a *rank table*, byte string ↦ rank, and the rank of
a token is also its id. It encodes one piece (one chunk of the pre-tokenizer) as follows
(`_byte_pair_merge` and `byte_pair_encode` in tiktoken's `src/lib.rs`):

1. if the whole piece is a token, its id is the answer;
2. otherwise start from the single bytes of the piece, and repeatedly merge the adjacent pair
   of parts whose concatenation has the lowest rank (the leftmost such pair on ties), one pair
   per step, until no adjacent concatenation has a rank;
3. the answer is the rank of every part.

`bytePairMerge` is step 2, written with its own two helpers (`pairRanks`, `lowestRank`) so it
can be read against that description; `encodePieceRanks` is steps 1-3 (`none` if a part has no
rank, where tiktoken would fail) and `encodeRanksWith` runs it over any pre-tokenizer, like
`encodeWith`. The loop is structural recursion on a fuel equal to the piece length, which is
enough (`lowestRank_pairRanks_bytePairMerge`): each step removes a part.

The seed's encoder (`encodeChunk`) works on ids with a merge table instead. `recoverMerges` and
`rankShuffle` build those tables from a rank table as the seed's vocabulary helpers do: the
shuffle sends byte `b` to the rank of `[b]`, and each token of rank `r` whose decomposition
with ranks below `r` (`decomposeToken`) has exactly two parts `a, b` records the merge
`(rank a, rank b) ↦ r`.

`RanksOk` is the condition under which the two encoders are meant to agree (issue 14,
condition C); `Bpe.Ranks.Check` decides it. `bytePairMerge_eq_decomposeToken` says that
`bytePairMerge` is the decomposition loop without a rank bound, so facts about one carry over.
-/

@[expose] public section
noncomputable section

namespace Bpe

/-! ## tiktoken's merge loop -/

/-- The rank of every adjacent pair of parts: entry `i` is the rank of
`parts[i] ++ parts[i+1]` (`none` if that byte string is not a token). -/
def pairRanks (ranks : Ranks) : List Bytes → List (Option Nat)
  | a :: b :: rest => rankOf ranks (a ++ b) :: pairRanks ranks (b :: rest)
  | _ => []

/-- The position and value of the lowest rank in the list, the leftmost one on ties;
`none` if no entry has a rank. -/
def lowestRank : List (Option Nat) → Option (Nat × Nat)
  | [] => none
  | none :: rest => (lowestRank rest).map fun (j, s) => (j + 1, s)
  | some r :: rest =>
    match lowestRank rest with
    | none => some (0, r)
    | some (j, s) => if s < r then some (j + 1, s) else some (0, r)

/-- The merge loop: while some adjacent pair has a rank, merge the leftmost pair of lowest
rank (`mergeAt i` replaces parts `i` and `i + 1` by their concatenation). -/
def bytePairMergeLoop (ranks : Ranks) : Nat → List Bytes → List Bytes
  | 0, parts => parts
  | fuel + 1, parts =>
    match lowestRank (pairRanks ranks parts) with
    | none => parts
    | some (i, _) => bytePairMergeLoop ranks fuel (mergeAt i parts)

/-- tiktoken's `_byte_pair_merge`: the parts a piece is split into, starting from its single
bytes (fuel: the piece length; each step removes one part). -/
def bytePairMerge (ranks : Ranks) (piece : Bytes) : List Bytes :=
  bytePairMergeLoop ranks piece.length (piece.map fun b => [b])

/-- tiktoken's `byte_pair_encode` of one piece: the piece's own rank if it is a token,
otherwise the ranks of the parts of `bytePairMerge` (`none` if a part has no rank). -/
def encodePieceRanks (ranks : Ranks) (piece : Bytes) : Option (List Nat) :=
  match rankOf ranks piece with
  | some r => some [r]
  | none => (bytePairMerge ranks piece).mapM fun part => rankOf ranks part

/-- tiktoken's encoder (no special tokens) over any pre-tokenizer: encode every piece and
concatenate the ids; `none` if a piece cannot be encoded. -/
def encodeRanksWith (preTokenize : Bytes → List Bytes) (ranks : Ranks) (text : String) :
    Option (List Nat) :=
  ((preTokenize (stringBytes text)).mapM fun piece => encodePieceRanks ranks piece).map
    List.flatten

/-! ## The seed's tables, recovered from the ranks -/

/-- The byte shuffle: byte `b` ↦ the rank of the one-byte token `[b]` (`b` itself if `[b]`
has no rank; `RanksOk` excludes that and requires the rank to be below 256). -/
def rankShuffle (ranks : Ranks) (b : UInt8) : UInt8 :=
  match rankOf ranks [b] with
  | some r => UInt8.ofNat r
  | none => b

/-- The merge recorded for one token `t` of rank `r`: if decomposing `t` with the ranks below
`r` leaves exactly two parts `a, b`, the merge `(rank a, rank b) ↦ r`. Single bytes (one part)
record nothing. -/
def recoverMerge (ranks : Ranks) (entry : Bytes × Nat) : Option ((Nat × Nat) × Nat) :=
  match decomposeToken ranks entry.1 (some entry.2) with
  | [a, b] =>
    match rankOf ranks a, rankOf ranks b with
    | some ra, some rb => some ((ra, rb), entry.2)
    | _, _ => none
  | _ => none

/-- The seed's merge table (pair of ids ↦ merged id) behind a rank table, in table order. -/
def recoverMerges (ranks : Ranks) : Merges := ranks.filterMap (recoverMerge ranks)

/-! ## The condition -/

/-- tiktoken's sentinel rank, `Rank::MAX` = `u32::MAX` = 2^32 - 1: its merge loop stores a rank
of `Rank::MAX` for a pair that has none, so a token of that rank would never be merged (and a
rank of 2^32 or more does not fit its `u32`). Condition C asks every rank to be below it. -/
def rankSentinel : Nat := 2 ^ 32 - 1

/-- Condition C (issue 14), for a rank table, in plain words:
* `keys_nodup`: no byte string is listed twice;
* `ranks_nodup`: no rank is used twice (with `keys_nodup`: ranks are injective);
* `token_ne_nil`: no token is the empty byte string;
* `byte_rank`: every single byte is a token, of rank below 256 (so the byte shuffle is a
  map of bytes);
* `two_parts`: every token `t` of two or more bytes and rank `r` splits into exactly two
  parts when decomposed using only the tokens of rank below `r`.
* `rank_lt_sentinel`: every rank is below `rankSentinel` (2^32 - 1), tiktoken's `Rank::MAX`.
Both published tables (`cl100k_base`, `o200k_base`) satisfy it (`checkRanks`, and the
Python mirror on the full tables). -/
structure RanksOk (ranks : Ranks) : Prop where
  keys_nodup : (ranks.map Prod.fst).Nodup
  ranks_nodup : (ranks.map Prod.snd).Nodup
  token_ne_nil : ∀ t r, (t, r) ∈ ranks → t ≠ []
  byte_rank : ∀ b : UInt8, ∃ r, rankOf ranks [b] = some r ∧ r < 256
  two_parts : ∀ t r, (t, r) ∈ ranks → 2 ≤ t.length →
    (decomposeToken ranks t (some r)).length = 2
  rank_lt_sentinel : ∀ t r, (t, r) ∈ ranks → r < rankSentinel

/-! ## Lookups in a table without duplicates -/

/-- Under `RanksOk`, two byte strings with the same rank are equal. -/
theorem RanksOk.rankOf_inj {ranks : Ranks} (h : RanksOk ranks) {t t' : Bytes} {r : Nat}
    (ht : rankOf ranks t = some r) (ht' : rankOf ranks t' = some r) : t = t' :=
  eq_of_mem_of_nodup_snd h.ranks_nodup (mem_of_lookup_eq_some ht) (mem_of_lookup_eq_some ht')

/-! ## `bytePairMerge` is the decomposition loop without a rank bound -/

@[simp] theorem pairRanks_nil (ranks : Ranks) : pairRanks ranks [] = [] := rfl

@[simp] theorem pairRanks_singleton (ranks : Ranks) (a : Bytes) :
    pairRanks ranks [a] = [] := rfl

@[simp] theorem pairRanks_cons_cons (ranks : Ranks) (a b : Bytes) (rest : List Bytes) :
    pairRanks ranks (a :: b :: rest) = rankOf ranks (a ++ b) :: pairRanks ranks (b :: rest) :=
  rfl

@[simp] theorem lowestRank_nil : lowestRank [] = none := rfl

@[simp] theorem lowestRank_cons_none (rest : List (Option Nat)) :
    lowestRank (none :: rest) = (lowestRank rest).map fun (j, s) => (j + 1, s) := rfl

@[simp] theorem lowestRank_cons_some (r : Nat) (rest : List (Option Nat)) :
    lowestRank (some r :: rest) =
      match lowestRank rest with
      | none => some (0, r)
      | some (j, s) => if s < r then some (j + 1, s) else some (0, r) := rfl

/-- `bestPairIndex` without a bound finds the leftmost lowest rank, as `lowestRank` does. -/
theorem bestPairIndex_none_eq (ranks : Ranks) :
    ∀ (start : Nat) (parts : List Bytes),
      bestPairIndex ranks none start parts =
        (lowestRank (pairRanks ranks parts)).map fun (j, s) => (start + j, s)
  | _, [] => rfl
  | _, [_] => rfl
  | start, a :: b :: rest => by
    have ih := bestPairIndex_none_eq ranks (start + 1) (b :: rest)
    rw [bestPairIndex, ih, allowedRank_none, pairRanks_cons_cons]
    cases rankOf ranks (a ++ b) with
    | none =>
      cases h : lowestRank (pairRanks ranks (b :: rest)) with
      | none => simp [lowestRank, h]
      | some p =>
        obtain ⟨j, s⟩ := p
        simp [lowestRank, h] <;> omega
    | some r =>
      cases h : lowestRank (pairRanks ranks (b :: rest)) with
      | none => simp [lowestRank, h]
      | some p =>
        obtain ⟨j, s⟩ := p
        by_cases hs : s < r
        · simp [lowestRank, h, hs] <;> omega
        · simp [lowestRank, h, hs]

theorem bytePairMergeLoop_eq_decomposeLoop (ranks : Ranks) :
    ∀ (fuel : Nat) (parts : List Bytes),
      bytePairMergeLoop ranks fuel parts = decomposeLoop ranks none fuel parts
  | 0, _ => rfl
  | fuel + 1, parts => by
    rw [bytePairMergeLoop, decomposeLoop_succ, bestPairIndex_none_eq]
    cases lowestRank (pairRanks ranks parts) with
    | none => rfl
    | some p =>
      obtain ⟨i, r⟩ := p
      show bytePairMergeLoop ranks fuel (mergeAt i parts) =
        decomposeLoop ranks none fuel (mergeAt (0 + i) parts)
      rw [Nat.zero_add]
      exact bytePairMergeLoop_eq_decomposeLoop ranks fuel _

/-- tiktoken's merge loop is `decomposeToken` without a rank bound. -/
theorem bytePairMerge_eq_decomposeToken (ranks : Ranks) (piece : Bytes) :
    bytePairMerge ranks piece = decomposeToken ranks piece none :=
  bytePairMergeLoop_eq_decomposeLoop ranks _ _

/-- The parts of `bytePairMerge` concatenate back to the piece. -/
theorem flatten_bytePairMerge (ranks : Ranks) (piece : Bytes) :
    (bytePairMerge ranks piece).flatten = piece := by
  rw [bytePairMerge_eq_decomposeToken, flatten_decomposeToken]

/-- **Fuel sufficiency** of `bytePairMerge`: when it returns, no adjacent pair of parts has a
rank, as when tiktoken's loop exits. -/
theorem lowestRank_pairRanks_bytePairMerge (ranks : Ranks) (piece : Bytes) :
    lowestRank (pairRanks ranks (bytePairMerge ranks piece)) = none := by
  have h := bestPairIndex_decomposeToken ranks piece none
  rw [← bytePairMerge_eq_decomposeToken, bestPairIndex_none_eq] at h
  simpa using h

/-- The former name of `Ranks` (tiktoken's mergeable ranks) in this layer. -/
@[deprecated Ranks (since := "2026-11-25")] abbrev RankTable := Ranks

end Bpe
