module

public import Bpe.Ranks.Roundtrip
public import Bpe.Ranks.Check

/-!
# Tables with whole-piece tokens (Llama 3): what still holds, and what does not

Llama 3's rank table (Meta's `tokenizer.model`, llama.cpp's `llama-bpe`) fails condition C:
678 tokens of two or more bytes, e.g. ` việc`, do not decompose into two parts with the ranks
below their own (`python -m verified_bpe.verify.whole_pieces FILE.gguf`). tiktoken's algorithm
reaches such a token only by the whole-piece lookup; the seed's merge list recorded from the
ranks (`recoverMerges`) has no merge for it.

* **Counterexample** (`wholePieceRanks`, kernel-checked by `decide`): the 256 single bytes with
  ranks 0-255 and `abc` with rank 256. Every byte has a rank, no rank or byte string repeats,
  every rank is below tiktoken's sentinel, but `abc` decomposes below 256 into three parts
  (`not_ranksOk_wholePieceRanks`), and on the piece `abc` the seed's encoder with the recovered
  tables returns `[97, 98, 99]` where tiktoken's algorithm returns `[256]`
  (`encodeChunk_ne_encodePieceRanks_wholePieceRanks`). So `encodeChunk_eq_encodePieceRanks`
  and the statements built on it (`encodeWith_eq_encodeRanksWith`, the `…_eq_tiktoken…`
  theorems) need condition C's two-part clause; for such tables they are not claimed.
* **What holds**: tiktoken's algorithm round-trips under `RanksDecodeOk` (distinct ranks, every
  single byte a token): `decodeRanks_encodeRanksWith_of_decodeOk`. Condition C implies it
  (`RanksOk.decodeOk`). `checkRanksDecode` decides a sufficient test (ranks strictly increasing
  along the table, every byte a token) and is sound (`checkRanksDecode_sound`); the Python mirror
  `verified_bpe.spec.ranks.whole_pieces` runs it on Llama 3's table;
  `ranksDecodeOk_wholePieceRanks` proves the condition for the counterexample's table.
-/

@[expose] public section
noncomputable section

namespace Bpe

/-! ## The weaker condition and the roundtrip under it -/

/-- The condition under which tiktoken's algorithm round-trips (weaker than `RanksOk`):
* `ranks_nodup`: no rank is used twice (decoding a rank finds its one byte string);
* `byte_rank`: every single byte is a token (the merge loop's parts then all have a rank). -/
structure RanksDecodeOk (ranks : Ranks) : Prop where
  ranks_nodup : (ranks.map Prod.snd).Nodup
  byte_rank : ∀ b : UInt8, ∃ r, rankOf ranks [b] = some r

/-- Condition C implies `RanksDecodeOk`. -/
theorem RanksOk.decodeOk {ranks : Ranks} (h : RanksOk ranks) : RanksDecodeOk ranks :=
  ⟨h.ranks_nodup, fun b => (h.byte_rank b).imp fun _ hr => hr.1⟩

/-- With every byte a token, every part of tiktoken's merge loop has a rank. -/
theorem exists_rankOf_of_mem_bytePairMerge {ranks : Ranks}
    (hb : ∀ b : UInt8, ∃ r, rankOf ranks [b] = some r) {piece p : Bytes}
    (hp : p ∈ bytePairMerge ranks piece) : ∃ r, rankOf ranks p = some r := by
  rw [bytePairMerge_eq_decomposeToken] at hp
  rcases partsOk_decomposeLoop (partsOk_singles ranks none piece) piece.length p hp with
    h1 | ⟨-, r, hr⟩
  · obtain ⟨b, rfl⟩ := List.length_eq_one_iff.mp h1
    exact hb b
  · exact ⟨r, by rwa [allowedRank_none] at hr⟩

/-- With every byte a token, tiktoken's encoder of one piece succeeds. -/
theorem exists_encodePieceRanks {ranks : Ranks}
    (hb : ∀ b : UInt8, ∃ r, rankOf ranks [b] = some r) (piece : Bytes) :
    ∃ ids, encodePieceRanks ranks piece = some ids := by
  unfold encodePieceRanks
  cases rankOf ranks piece with
  | some r => exact ⟨[r], rfl⟩
  | none =>
    have hall : ∀ p ∈ bytePairMerge ranks piece,
        rankOf ranks p = some (rankOrZero ranks p) := by
      intro p hp
      obtain ⟨r, hr⟩ := exists_rankOf_of_mem_bytePairMerge hb hp
      simp [rankOrZero, hr]
    exact ⟨_, mapM_eq_some_map _ hall⟩

theorem exists_mapM_encodePieceRanks {ranks : Ranks}
    (hb : ∀ b : UInt8, ∃ r, rankOf ranks [b] = some r) :
    ∀ pieces : List Bytes, ∃ idss, pieces.mapM (fun piece => encodePieceRanks ranks piece) =
      some idss
  | [] => ⟨[], rfl⟩
  | p :: ps => by
    obtain ⟨ids, hp⟩ := exists_encodePieceRanks hb p
    obtain ⟨rest, hps⟩ := exists_mapM_encodePieceRanks hb ps
    exact ⟨ids :: rest, by simp [hp, hps]⟩

/-- A piece's ids decode to the piece (distinct ranks suffice). -/
theorem decodeBytes_encodePieceRanks_of_nodup {ranks : Ranks} (h : (ranks.map Prod.snd).Nodup)
    {piece : Bytes} {ids : List Nat} (he : encodePieceRanks ranks piece = some ids) :
    decodeBytes (rankVocab ranks) ids = some piece := by
  unfold encodePieceRanks at he
  cases hp : rankOf ranks piece with
  | some r =>
    rw [hp] at he
    simp only [Option.some.injEq] at he
    subst he
    simp [decodeBytes, lookup_rankVocab h hp]
  | none =>
    rw [hp] at he
    rw [← flatten_bytePairMerge ranks piece]
    exact decodeBytes_rankVocab_of_mapM h he

theorem decodeBytes_flatten_of_mapM_of_nodup {ranks : Ranks} (h : (ranks.map Prod.snd).Nodup) :
    ∀ {pieces : List Bytes} {idss : List (List Nat)},
      pieces.mapM (fun piece => encodePieceRanks ranks piece) = some idss →
        decodeBytes (rankVocab ranks) idss.flatten = some pieces.flatten
  | [], idss, hm => by
    simp only [List.mapM_nil, Option.pure_def, Option.some.injEq] at hm
    subst hm
    rfl
  | p :: ps, idss, hm => by
    cases hp : encodePieceRanks ranks p with
    | none => simp [hp] at hm
    | some ids =>
      cases hps : ps.mapM (fun piece => encodePieceRanks ranks piece) with
      | none => simp [hp, hps] at hm
      | some rest =>
        have h1 : (p :: ps).mapM (fun piece => encodePieceRanks ranks piece) =
            some (ids :: rest) := by
          simp [hp, hps]
        rw [h1, Option.some.injEq] at hm
        subst hm
        rw [List.flatten_cons, List.flatten_cons]
        exact decodeBytes_append_some _ _ _ _ _ (decodeBytes_encodePieceRanks_of_nodup h hp)
          (decodeBytes_flatten_of_mapM_of_nodup h hps)

/-- **tiktoken's algorithm round-trips without condition C's two-part clause**: for every rank
table with distinct ranks in which every single byte is a token (Llama 3's), every
pre-tokenizer whose chunks concatenate back to its input, and every string `s`, tiktoken's
encoder succeeds and decoding its ids gives `s`. -/
theorem decodeRanks_encodeRanksWith_of_decodeOk {ranks : Ranks} (h : RanksDecodeOk ranks)
    (preTokenize : Bytes → List Bytes) (hpart : ∀ data, (preTokenize data).flatten = data)
    (s : String) : (encodeRanksWith preTokenize ranks s).bind (decodeRanks ranks) = some s := by
  unfold encodeRanksWith
  obtain ⟨idss, hm⟩ := exists_mapM_encodePieceRanks h.byte_rank (preTokenize (stringBytes s))
  rw [hm]
  show decodeRanks ranks idss.flatten = some s
  unfold decodeRanks
  rw [decodeBytes_flatten_of_mapM_of_nodup h.ranks_nodup hm, hpart]
  exact bytesToString?_stringBytes s

/-! ## Its checker -/

/-- Byte `b` has a one-byte token (of any rank). -/
def checkByteToken (ranks : Ranks) (b : Nat) : Bool :=
  (rankOf ranks [UInt8.ofNat b]).isSome

/-- `check_ranks_decode`: the ranks strictly increase along the table and every byte is a
token. -/
def checkRanksDecode (ranks : Ranks) : Bool :=
  ranksIncreasing ranks && (List.range 256).all (checkByteToken ranks)

/-- **Soundness of `checkRanksDecode`**: a table that passes satisfies `RanksDecodeOk`. -/
theorem checkRanksDecode_sound (ranks : Ranks) (h : checkRanksDecode ranks = true) :
    RanksDecodeOk ranks := by
  simp only [checkRanksDecode, Bool.and_eq_true] at h
  refine ⟨nodup_of_ranksIncreasing ranks h.1, fun b => ?_⟩
  have := List.all_eq_true.mp h.2 b.toNat (List.mem_range.mpr b.toBitVec.isLt)
  have hb : UInt8.ofNat b.toNat = b := by simp
  simp only [checkByteToken, hb] at this
  exact Option.isSome_iff_exists.mp this

/-! ## The counterexample: a whole-piece token -/

/-- The single bytes `k, k + 1, …, k + n - 1`, byte `b` with rank `b`. -/
def byteRanksFrom (k : Nat) : Nat → Ranks
  | 0 => []
  | n + 1 => ([UInt8.ofNat k], k) :: byteRanksFrom (k + 1) n

/-- The single bytes and `abc` (bytes 97, 98, 99) with rank 256: like ` việc` in Llama 3's
table, `abc` has no part of two or more bytes below its rank. -/
def wholePieceRanks : Ranks := byteRanksFrom 0 256 ++ [([97, 98, 99], 256)]

theorem rankOf_byteRanksFrom_append (rest : Ranks) :
    ∀ (n k j : Nat), j < n → k + n ≤ 256 →
      rankOf (byteRanksFrom k n ++ rest) [UInt8.ofNat (k + j)] = some (k + j)
  | 0, _, _, hj, _ => absurd hj (Nat.not_lt_zero _)
  | n + 1, k, 0, _, _ => by simp [byteRanksFrom]
  | n + 1, k, j + 1, hj, hk => by
    have hne : [UInt8.ofNat (k + (j + 1))] ≠ [UInt8.ofNat k] := by
      intro h
      have h' := congrArg (fun l => (l.headD 0).toNat) h
      simp only [List.headD_cons, UInt8.toNat_ofNat'] at h'
      omega
    have ih := rankOf_byteRanksFrom_append rest n (k + 1) j (by omega) (by omega)
    rw [show k + 1 + j = k + (j + 1) by omega] at ih
    simp only [byteRanksFrom, List.cons_append, rankOf_cons, if_neg hne]
    exact ih

set_option maxRecDepth 100000 in
theorem ranksIncreasing_wholePieceRanks : ranksIncreasing wholePieceRanks = true := by
  decide +kernel

/-- **Tiktoken's algorithm round-trips on `wholePieceRanks`**: distinct ranks, every byte a
token. -/
theorem ranksDecodeOk_wholePieceRanks : RanksDecodeOk wholePieceRanks := by
  refine ⟨nodup_of_ranksIncreasing _ ranksIncreasing_wholePieceRanks, fun b => ⟨b.toNat, ?_⟩⟩
  have h := rankOf_byteRanksFrom_append [([97, 98, 99], 256)] 256 0 b.toNat b.toBitVec.isLt
    (by omega)
  simp only [Nat.zero_add, UInt8.ofNat_toNat] at h
  exact h

set_option maxRecDepth 100000 in
/-- `abc` decomposes into three parts below its rank 256. -/
theorem decomposeToken_abc :
    decomposeToken wholePieceRanks [97, 98, 99] (some 256) = [[97], [98], [99]] := by
  decide +kernel

/-- **`wholePieceRanks` fails condition C** (its two-part clause, at `abc`). -/
theorem not_ranksOk_wholePieceRanks : ¬ RanksOk wholePieceRanks := by
  intro h
  have h2 := h.two_parts [97, 98, 99] 256 (by simp [wholePieceRanks]) (by decide)
  rw [decomposeToken_abc] at h2
  exact absurd h2 (by decide)

set_option maxRecDepth 100000 in
/-- **The seed's encoder is not tiktoken's on a whole-piece token**: on the piece `abc`, the
merges recovered from `wholePieceRanks` leave three ids, tiktoken's algorithm finds the whole
piece. -/
theorem encodeChunk_ne_encodePieceRanks_wholePieceRanks :
    encodeChunk (recoverMerges wholePieceRanks) (rankShuffle wholePieceRanks) [97, 98, 99] =
        [97, 98, 99] ∧
      encodePieceRanks wholePieceRanks [97, 98, 99] = some [256] := by
  decide +kernel

end Bpe
