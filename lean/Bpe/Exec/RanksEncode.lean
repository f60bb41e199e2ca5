module

public import Bpe.Exec.RanksTables
public import Bpe.Exec.RanksCheck
public import Bpe.Exec.Encode
public import Bpe.Ranks.Equiv

/-!
# The encoder run from the rank file is the spec's (and tiktoken's)

The seed's encoder (`Bpe.encodeChunk`) reads its merge list only through `List.lookup`
(`bestMerge`), so two merge lists that answer every pair alike encode alike
(`encodeChunk_congr`). With `Bpe.Exec.encodeChunks_eq_encodeWith` (the executable encoder is the
spec on its table's entries) and `Bpe.Exec.RanksTables` (the tables `runRanks` builds answer as the
spec's tables of the parsed entries), the ids `runRanks` computes from the parsed entries
`toks` are `Bpe.encodeWith` with `Bpe.recoverMerges toks.toList` and
`Bpe.rankShuffle toks.toList` (`encodeChunks_eq_encodeWith_of_sorted`), whenever `runRanks`
passes its two run-time checks; and under `Bpe.RanksOk` they are tiktoken's algorithm on the
parsed table (`encodeChunks_eq_encodeRanksWith_of_ranksOk`, from
`Bpe.encodeWith_eq_encodeRanksWith`). `runRanks` also checks condition C itself (`checkRanksX`, sound by `Bpe.Exec.ranksOk_of_checkRanksX`), so the ids of a
run that passes its three checks are tiktoken's with no further hypothesis
(`encodeChunks_eq_encodeRanksWith_of_checkRanksX`).
-/

@[expose] public section

namespace Bpe.Exec

/-! ## The spec encoder reads its merges only through `lookup` -/

theorem bestMerge_congr {m m' : Merges} (h : ∀ p, m.lookup p = m'.lookup p) :
    ∀ stats : List ((Nat × Nat) × Nat), bestMerge m stats = bestMerge m' stats
  | [] => rfl
  | (p, _) :: rest => by simp only [bestMerge, h p, bestMerge_congr h rest]

theorem encodeLoop_congr {m m' : Merges} (h : ∀ p, m.lookup p = m'.lookup p) :
    ∀ (fuel : Nat) (ids : List Nat), encodeLoop m fuel ids = encodeLoop m' fuel ids
  | 0, _ => rfl
  | fuel + 1, ids => by
    simp only [encodeLoop, bestMerge_congr h]
    cases bestMerge m' (getStats ids) with
    | none => rfl
    | some r =>
      obtain ⟨pair, idx⟩ := r
      exact encodeLoop_congr h fuel _

/-- Two merge lists that answer every pair alike encode every chunk alike. -/
theorem encodeChunk_congr {m m' : Merges} (h : ∀ p, m.lookup p = m'.lookup p)
    (sh : UInt8 → UInt8) (chunk : Bytes) :
    Bpe.encodeChunk m sh chunk = Bpe.encodeChunk m' sh chunk := by
  simp only [Bpe.encodeChunk, encodeLoop_congr h]

/-! ## Assembly -/

/-- **The executable encoder on the tables built from the rank file is the spec**: when the
key array passes `sortedToks` and the merges pass `sorted` (the two checks of `runRanks`),
encoding chunks with `runRanks`'s tables is `Bpe.encodeChunk` with the spec's tables of the
parsed entries. -/
theorem encodeChunks_ranks (toks : Array TokEntry) (hs : sortedToks (keysOf toks) = true)
    (hm : sorted (mergesOf (keysOf toks) toks) = true) (chunks : List Bytes) :
    encodeChunks (mergesOf (keysOf toks) toks)
        (fun x => shuffleOf (shuffleTable (keysOf toks) 256 #[]) x) chunks =
      chunks.flatMap (Bpe.encodeChunk (recoverMerges toks.toList) (rankShuffle toks.toList)) := by
  rw [encodeChunks_eq _ hm]
  have hsh : (fun x => shuffleOf (shuffleTable (keysOf toks) 256 #[]) x) =
      rankShuffle toks.toList :=
    funext (shuffleOf_shuffleTable _ _ (findTok_keysOf toks hs))
  rw [hsh]
  congr 1
  funext c
  exact encodeChunk_congr (fun p => by rw [← find_eq _ hm, find_mergesOf toks hs hm]) _ _

/-- **The ids of the rank-file run are the spec's**: for any pre-tokenizer, encoding a text's
chunks with the tables `runRanks` builds from the parsed entries `toks` is `Bpe.encodeWith`
with `Bpe.recoverMerges toks.toList` and `Bpe.rankShuffle toks.toList`. -/
theorem encodeChunks_eq_encodeWith_of_sorted (toks : Array TokEntry) (hs : sortedToks (keysOf toks) = true)
    (hm : sorted (mergesOf (keysOf toks) toks) = true) (pre : Bytes → List Bytes)
    (text : String) :
    encodeChunks (mergesOf (keysOf toks) toks)
        (fun x => shuffleOf (shuffleTable (keysOf toks) 256 #[]) x) (pre (stringBytes text)) =
      Bpe.encodeWith pre (recoverMerges toks.toList) (rankShuffle toks.toList) text := by
  rw [encodeChunks_ranks toks hs hm, Bpe.encodeWith]

/-- **The ids of the rank-file run are tiktoken's**: under `Bpe.RanksOk` (condition C) on the
parsed entries, they are `Bpe.encodeRanksWith` (tiktoken's algorithm) on the parsed table. -/
theorem encodeChunks_eq_encodeRanksWith_of_ranksOk (toks : Array TokEntry) (hs : sortedToks (keysOf toks) = true)
    (hm : sorted (mergesOf (keysOf toks) toks) = true) (hok : RanksOk toks.toList)
    (pre : Bytes → List Bytes) (text : String) :
    some (encodeChunks (mergesOf (keysOf toks) toks)
        (fun x => shuffleOf (shuffleTable (keysOf toks) 256 #[]) x) (pre (stringBytes text))) =
      encodeRanksWith pre toks.toList text := by
  rw [encodeChunks_eq_encodeWith_of_sorted toks hs hm]
  exact encodeWith_eq_encodeRanksWith hok pre text

/-- **The ids of a rank-file run that passes its checks are tiktoken's**: when the parsed
entries pass the three run-time checks of `runRanks` (`sortedToks` on the key array, `sorted`
on the merges, `checkRanksX` for condition C), encoding a text's chunks with the tables
`runRanks` builds is `Bpe.encodeRanksWith` (tiktoken's algorithm) on the parsed table; no
other hypothesis. -/
theorem encodeChunks_eq_encodeRanksWith_of_checkRanksX (toks : Array TokEntry)
    (hs : sortedToks (keysOf toks) = true) (hm : sorted (mergesOf (keysOf toks) toks) = true)
    (hc : checkRanksX toks (keysOf toks) (mergesOf (keysOf toks) toks) = true)
    (pre : Bytes → List Bytes) (text : String) :
    some (encodeChunks (mergesOf (keysOf toks) toks)
        (fun x => shuffleOf (shuffleTable (keysOf toks) 256 #[]) x) (pre (stringBytes text))) =
      encodeRanksWith pre toks.toList text :=
  encodeChunks_eq_encodeRanksWith_of_ranksOk toks hs hm (ranksOk_of_checkRanksX toks hs hc) pre text

@[deprecated encodeChunks_eq_encodeWith_of_sorted (since := "2026-11-27")]
abbrev encodeWith_ranks := @encodeChunks_eq_encodeWith_of_sorted

@[deprecated encodeChunks_eq_encodeRanksWith_of_ranksOk (since := "2026-11-27")]
abbrev encodeRanksWith_ranks := @encodeChunks_eq_encodeRanksWith_of_ranksOk

end Bpe.Exec
