module

public import Bpe.Ranks.Equiv
public import Bpe.Ranks.Large

/-!
# tiktoken's algorithm round-trips

tiktoken decodes an id by looking it up in the inverse of its rank table (`rankVocab`: rank ↦
byte string) and reads the concatenated bytes as UTF-8 (`decodeRanks`).
`decodeRanks_encodeRanksWith`: under condition C, for every string and every pre-tokenizer
whose chunks concatenate back to its input, tiktoken's encoder succeeds and decoding its ids
gives the string back. The proof is direct: every part of `bytePairMerge` has a rank (that the
encoder succeeds comes from `encodeWith_eq_encodeRanksWith`), distinct ranks make the lookup
of that rank return the part (`ranks_nodup`), the parts concatenate to the piece
(`flatten_bytePairMerge`), the pieces to the text, and UTF-8 decoding inverts UTF-8 encoding
(`bytesToString?_stringBytes`). `decodeRanks_encodeRanksWithBySize` is the same for tiktoken
0.14's by-length choice of merge loop (`Bpe.Ranks.Large`).
-/

@[expose] public section
noncomputable section

namespace Bpe

/-- tiktoken's decoder: rank ↦ byte string (the rank table with its pairs swapped). -/
def rankVocab (ranks : Ranks) : Vocab := ranks.map fun e => (e.2, e.1)

/-- tiktoken's `decode`: the byte strings of the ids, concatenated and read as UTF-8; `none`
on an unknown id or invalid UTF-8. -/
def decodeRanks (ranks : Ranks) (ids : List Nat) : Option String :=
  (decodeBytes (rankVocab ranks) ids).bind bytesToString?

theorem map_fst_rankVocab (ranks : Ranks) :
    (rankVocab ranks).map Prod.fst = ranks.map Prod.snd := by
  simp [rankVocab, Function.comp_def]

/-- With distinct ranks, the decoder returns the byte string of a rank. -/
theorem lookup_rankVocab {ranks : Ranks} (h : (ranks.map Prod.snd).Nodup) {t : Bytes}
    {r : Nat} (ht : rankOf ranks t = some r) : (rankVocab ranks).lookup r = some t := by
  apply lookup_eq_some_of_mem
  · rw [map_fst_rankVocab]
    exact h
  · exact List.mem_map.mpr ⟨(t, r), mem_of_lookup_eq_some ht, rfl⟩

theorem decodeBytes_rankVocab_of_mapM {ranks : Ranks} (h : (ranks.map Prod.snd).Nodup) :
    ∀ {parts : List Bytes} {ids : List Nat},
      parts.mapM (fun part => rankOf ranks part) = some ids →
        decodeBytes (rankVocab ranks) ids = some parts.flatten
  | [], ids, hm => by
    have h0 : ([] : List Bytes).mapM (fun part => rankOf ranks part) = some [] := by simp
    rw [h0, Option.some.injEq] at hm
    subst hm
    rfl
  | p :: ps, ids, hm => by
    cases hp : rankOf ranks p with
    | none => simp [hp] at hm
    | some r =>
      cases hps : ps.mapM (fun part => rankOf ranks part) with
      | none => simp [hp, hps] at hm
      | some rs =>
        have h1 : (p :: ps).mapM (fun part => rankOf ranks part) = some (r :: rs) := by
          simp [hp, hps]
        rw [h1, Option.some.injEq] at hm
        subst hm
        simp [decodeBytes, lookup_rankVocab h hp, decodeBytes_rankVocab_of_mapM h hps]

/-- A piece's ids decode to the piece. -/
theorem decodeBytes_encodePieceRanks {ranks : Ranks} (h : RanksOk ranks) {piece : Bytes}
    {ids : List Nat} (he : encodePieceRanks ranks piece = some ids) :
    decodeBytes (rankVocab ranks) ids = some piece := by
  unfold encodePieceRanks at he
  cases hp : rankOf ranks piece with
  | some r =>
    rw [hp] at he
    simp only [Option.some.injEq] at he
    subst he
    simp [decodeBytes, lookup_rankVocab h.ranks_nodup hp]
  | none =>
    rw [hp] at he
    rw [← flatten_bytePairMerge ranks piece]
    exact decodeBytes_rankVocab_of_mapM h.ranks_nodup he

theorem decodeBytes_flatten_of_mapM {ranks : Ranks} (h : RanksOk ranks) :
    ∀ {pieces : List Bytes} {idss : List (List Nat)},
      pieces.mapM (fun piece => encodePieceRanks ranks piece) = some idss →
        decodeBytes (rankVocab ranks) idss.flatten = some pieces.flatten
  | [], idss, hm => by
    have h0 : ([] : List Bytes).mapM (fun piece => encodePieceRanks ranks piece) = some [] := by
      simp
    rw [h0, Option.some.injEq] at hm
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
        exact decodeBytes_append_some _ _ _ _ _ (decodeBytes_encodePieceRanks h hp)
          (decodeBytes_flatten_of_mapM h hps)

/-- **tiktoken's algorithm round-trips**: for every rank table satisfying condition C, every
pre-tokenizer whose chunks concatenate back to its input, and every string `s`, tiktoken's
encoder succeeds and decoding its ids (each looked up in the rank table) gives `s`. -/
theorem decodeRanks_encodeRanksWith {ranks : Ranks} (h : RanksOk ranks)
    (preTokenize : Bytes → List Bytes) (hpart : ∀ data, (preTokenize data).flatten = data)
    (s : String) : (encodeRanksWith preTokenize ranks s).bind (decodeRanks ranks) = some s := by
  have hsome := encodeWith_eq_encodeRanksWith h preTokenize s
  unfold encodeRanksWith at hsome ⊢
  cases hm : (preTokenize (stringBytes s)).mapM (fun piece => encodePieceRanks ranks piece) with
  | none =>
    rw [hm] at hsome
    simp at hsome
  | some idss =>
    show decodeRanks ranks idss.flatten = some s
    unfold decodeRanks
    rw [decodeBytes_flatten_of_mapM h hm, hpart]
    exact bytesToString?_stringBytes s

/-- **tiktoken 0.14 round-trips**, with its by-length choice of merge loop. -/
theorem decodeRanks_encodeRanksWithBySize {ranks : Ranks} (h : RanksOk ranks)
    (preTokenize : Bytes → List Bytes) (hpart : ∀ data, (preTokenize data).flatten = data)
    (s : String) :
    (encodeRanksWithBySize preTokenize ranks s).bind (decodeRanks ranks) = some s := by
  rw [encodeRanksWithBySize_eq]
  exact decodeRanks_encodeRanksWith h preTokenize hpart s

end Bpe
