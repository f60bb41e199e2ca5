module

public import Bpe.Ranks.Basic

/-!
# A Boolean checker for `RanksOk`

`checkRanks ranks` tests the fields of `RanksOk` on a concrete rank table:
* the ranks strictly increase along the table (as in tiktoken's files, which list tokens in
  rank order): a linear test, stronger than "no rank twice";
* every entry `(t, r)` is what looking up `t` finds: with the ranks distinct, no byte string
  is listed twice;
* no entry is the empty byte string;
* every byte has a one-byte token of rank below 256;
* every token of two or more bytes decomposes into exactly two parts with the ranks below its
  own (`decomposeToken`, the same function `recoverMerges` uses);
* every rank is below `rankSentinel` (2^32 - 1, tiktoken's `Rank::MAX`).
`checkRanks_sound` proves that `true` means `RanksOk`. The Python mirror
(`verified_bpe.spec.ranks.check`) runs the same test on the full published tables.
-/

@[expose] public section
noncomputable section

namespace Bpe

/-- The ranks strictly increase along the table. -/
def ranksIncreasing : Ranks → Bool
  | a :: b :: rest => a.2 < b.2 && ranksIncreasing (b :: rest)
  | _ => true

/-- Looking up the bytes of the entry finds the entry's rank. -/
def checkLookup (ranks : Ranks) (entry : Bytes × Nat) : Bool :=
  rankOf ranks entry.1 == some entry.2

/-- Byte `b` has a one-byte token, of rank below 256. -/
def checkByteRank (ranks : Ranks) (b : Nat) : Bool :=
  match rankOf ranks [UInt8.ofNat b] with
  | some r => r < 256
  | none => false

/-- A token of two or more bytes splits in exactly two parts with the ranks below its own. -/
def checkTwoParts (ranks : Ranks) (entry : Bytes × Nat) : Bool :=
  entry.1.length < 2 || (decomposeToken ranks entry.1 (some entry.2)).length == 2

/-- The entry's rank is below tiktoken's sentinel `rankSentinel`. -/
def checkRankBound (entry : Bytes × Nat) : Bool :=
  entry.2 < rankSentinel

/-- `check_ranks`: the decidable test of `RanksOk`. -/
def checkRanks (ranks : Ranks) : Bool :=
  ranksIncreasing ranks && ranks.all (checkLookup ranks) && ranks.all (fun e => !e.1.isEmpty) &&
    (List.range 256).all (checkByteRank ranks) && ranks.all (checkTwoParts ranks) &&
    ranks.all checkRankBound

theorem ranksIncreasing_head : ∀ (a : Bytes × Nat) (rest : Ranks),
    ranksIncreasing (a :: rest) = true → ∀ x ∈ rest, a.2 < x.2
  | _, [], _, _, hx => by simp at hx
  | a, b :: rest, h, x, hx => by
    simp only [ranksIncreasing, Bool.and_eq_true, decide_eq_true_eq] at h
    rcases List.mem_cons.mp hx with rfl | hx
    · exact h.1
    · have := ranksIncreasing_head b rest h.2 x hx
      omega

theorem ranksIncreasing_tail : ∀ (a : Bytes × Nat) (rest : Ranks),
    ranksIncreasing (a :: rest) = true → ranksIncreasing rest = true
  | _, [], _ => rfl
  | _, _ :: _, h => by simp only [ranksIncreasing, Bool.and_eq_true] at h; exact h.2

/-- Strictly increasing ranks are distinct. -/
theorem nodup_of_ranksIncreasing : ∀ ranks : Ranks, ranksIncreasing ranks = true →
    (ranks.map Prod.snd).Nodup
  | [], _ => List.nodup_nil
  | a :: rest, h => by
    rw [List.map_cons, List.nodup_cons]
    refine ⟨?_, nodup_of_ranksIncreasing rest (ranksIncreasing_tail a rest h)⟩
    intro hmem
    obtain ⟨x, hx, hxa⟩ := List.mem_map.mp hmem
    have := ranksIncreasing_head a rest h x hx
    omega

/-- If every entry is what its lookup finds and the ranks are distinct, no byte string is
listed twice. -/
theorem nodup_keys_of_lookup : ∀ ranks : Ranks, (ranks.map Prod.snd).Nodup →
    (∀ e ∈ ranks, rankOf ranks e.1 = some e.2) → (ranks.map Prod.fst).Nodup
  | [], _, _ => List.nodup_nil
  | (t, r) :: rest, hnd, hl => by
    have hnd' := hnd
    rw [List.map_cons, List.nodup_cons] at hnd'
    rw [List.map_cons, List.nodup_cons]
    -- an entry of `rest` with bytes `t` would be found with rank `r`, a rank used twice
    have hne : ∀ e ∈ rest, e.1 ≠ t := by
      intro e he het
      have h1 := hl e (List.mem_cons_of_mem _ he)
      rw [het] at h1
      rw [rankOf_cons, if_pos rfl, Option.some.injEq] at h1
      exact hnd'.1 (List.mem_map.mpr ⟨e, he, h1.symm⟩)
    refine ⟨?_, nodup_keys_of_lookup rest hnd'.2 ?_⟩
    · intro hmem
      obtain ⟨e, he, het⟩ := List.mem_map.mp hmem
      exact hne e he het
    · intro e he
      have h1 := hl e (List.mem_cons_of_mem _ he)
      rwa [rankOf_cons, if_neg (hne e he)] at h1

/-- **Soundness of `checkRanks`**: a table that passes satisfies condition C. -/
theorem checkRanks_sound (ranks : Ranks) (h : checkRanks ranks = true) : RanksOk ranks := by
  simp only [checkRanks, Bool.and_eq_true] at h
  obtain ⟨⟨⟨⟨⟨hinc, hlookup⟩, hne⟩, hbytes⟩, htwo⟩, hbound⟩ := h
  have hranks := nodup_of_ranksIncreasing ranks hinc
  refine ⟨?_, hranks, ?_, ?_, ?_, ?_⟩
  · apply nodup_keys_of_lookup ranks hranks
    intro e he
    have := List.all_eq_true.mp hlookup e he
    simpa [checkLookup] using this
  · intro t r hmem ht
    have := List.all_eq_true.mp hne (t, r) hmem
    subst ht
    simp at this
  · intro b
    have := List.all_eq_true.mp hbytes b.toNat (List.mem_range.mpr b.toBitVec.isLt)
    have hb : UInt8.ofNat b.toNat = b := by simp
    simp only [checkByteRank, hb] at this
    cases hr : rankOf ranks [b] with
    | none => simp [hr] at this
    | some r =>
      rw [hr] at this
      exact ⟨r, rfl, by simpa using this⟩
  · intro t r hmem ht
    have := List.all_eq_true.mp htwo (t, r) hmem
    simp only [checkTwoParts, Bool.or_eq_true, decide_eq_true_eq, beq_iff_eq] at this
    rcases this with h1 | h1
    · omega
    · exact h1
  · intro t r hmem
    have := List.all_eq_true.mp hbound (t, r) hmem
    simpa [checkRankBound] using this

end Bpe
