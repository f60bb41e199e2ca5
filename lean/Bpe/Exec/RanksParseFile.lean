module

public import Bpe.Exec.RanksParseLine

/-!
# What `parseRanks` accepts: a file of empty and canonical lines

The converse of `parseRanks_renderRanks` for a whole file: when the compiled `parseRanks`
accepts a file with the entries `t` (`parseRanks_ok`), the file is a sequence of lines
(`RankLines`), each empty or the canonical base64 of a non-empty token, a space and a non-empty
run of digits, every line ending with a newline, except that the last line may lack it; and `t`
lists the tokens of the non-empty lines with the values of their digit runs, in order. So the
only spellings of a table `parseRanks` accepts besides its rendering `renderRanks t` are empty
lines, leading zeros in a rank and a missing final newline.

The proof is an invariant of the parser's driver (`ParseInv`: the bytes before the position are
such lines, with the entries read so far), kept by every step through `parseLine_ok`.
-/

@[expose] public section

namespace Bpe.Exec

/-- The bytes `l` are lines, each empty or `encode64 tok SPACE digits` (a non-empty token, a
non-empty run of digits), each ending with a newline; `t` lists the entries of the non-empty
lines, in order, with the value of their digit runs. -/
inductive RankLines : List UInt8 → List TokEntry → Prop
  | nil : RankLines [] []
  | empty {l : List UInt8} {t : List TokEntry} : RankLines l t → RankLines (l ++ [10]) t
  | line {l : List UInt8} {t : List TokEntry} {tok ds : List UInt8} : RankLines l t →
      tok ≠ [] → ds ≠ [] → (∀ d ∈ ds, isDigit d = true) →
      RankLines (l ++ (encode64 tok ++ 32 :: ds) ++ [10])
        (t ++ [(tok, digitsVal 0 ds)])

/-- The bytes `L` are lines (`RankLines`) and then one more canonical line without its newline;
`t` lists the entries. -/
def LastLine (L : List UInt8) (t : List TokEntry) : Prop :=
  ∃ l t' tok ds, RankLines l t' ∧ tok ≠ [] ∧ ds ≠ [] ∧ (∀ d ∈ ds, isDigit d = true) ∧
    L = l ++ (encode64 tok ++ 32 :: ds) ∧ t = t' ++ [(tok, digitsVal 0 ds)]

/-- The invariant of the parser on the file `b`: while there is no error, the bytes before the
position are lines with the entries read so far, or the whole file is, its last line without a
newline (then the position is past the end). -/
def ParseInv (b : ByteArray) (st : ParseState) : Prop :=
  st.err = none →
    (st.pos ≤ b.size ∧ RankLines (b.data.toList.take st.pos) st.toks.toList) ∨
    (b.size < st.pos ∧ LastLine b.data.toList st.toks.toList)

theorem take_of_drop {L Y : List UInt8} {i j : Nat} (h : L.drop i = Y ++ L.drop j) :
    L.take j = L.take i ++ Y := by
  have e : L.take j ++ L.drop j = (L.take i ++ Y) ++ L.drop j := by
    rw [List.take_append_drop, List.append_assoc, ← h, List.take_append_drop]
  exact List.append_cancel_right e

theorem parseInv_next (b : ByteArray) (st : ParseState) (hs : parseStop b st = false)
    (hinv : ParseInv b st) : ParseInv b (parseNext b st) := by
  simp only [parseStop, Bool.or_eq_false_iff, decide_eq_false_iff_not, Nat.not_le,
    Option.isSome_eq_false_iff, Option.isNone_iff_eq_none] at hs
  obtain ⟨herr, hpos⟩ := hs
  have hcur : RankLines (b.data.toList.take st.pos) st.toks.toList := by
    rcases hinv herr with h | h
    · exact h.2
    · omega
  have hd := drop_eq_byteAt_cons hpos
  simp only [parseNext]
  split
  next h10 =>
    intro _
    left
    dsimp only
    refine ⟨by omega, ?_⟩
    rw [take_of_drop (Y := [10]) (j := st.pos + 1) (by rw [hd]; simpa using h10)]
    exact RankLines.empty hcur
  next =>
    split
    next => intro e; cases e
    next e p hp =>
      intro _
      obtain ⟨tok, r⟩ := e
      have hlt := parseLine_lt hp
      obtain ⟨ds, ht, hne, hdig, hv, hdrop, hend⟩ := parseLine_ok hp
      subst hv
      simp only [Array.toList_push]
      by_cases hp1 : p - 1 < b.size
      · left
        have h1 := drop_eq_byteAt_cons hp1
        rw [hend hp1, show p - 1 + 1 = p by omega] at h1
        refine ⟨by omega, ?_⟩
        rw [take_of_drop (Y := (encode64 tok ++ 32 :: ds) ++ [10]) (j := p)
          (by rw [hdrop, h1]; simp)]
        simpa only [List.append_assoc] using RankLines.line hcur ht hne hdig
      · right
        refine ⟨by omega, b.data.toList.take st.pos, st.toks.toList, tok, ds, hcur, ht, hne, hdig,
          ?_, rfl⟩
        have h0 : b.data.toList.drop (p - 1) = [] := by
          rw [List.drop_eq_nil_iff, ← size_eq_length]
          omega
        rw [h0, List.append_nil] at hdrop
        rw [← hdrop, List.take_append_drop]

/-- **What `parseRanks` accepts**: a file it reads as the entries `t` is lines, each empty or
the canonical base64 of a non-empty token, a space and a run of digits, each with its newline
(`RankLines`), or such lines and a last canonical line without its newline (`LastLine`); `t`
lists the non-empty lines' tokens and the values of their digit runs, in order. -/
theorem parseRanks_ok {b : ByteArray} {t : Array TokEntry} (h : parseRanks b = .ok t) :
    RankLines b.data.toList t.toList ∨ LastLine b.data.toList t.toList := by
  have hinv := iterBlocks_inv (parseStop b) (parseNext b) (ParseInv b) (parseInv_next b)
    (b.size / block + 2) ⟨0, 1, #[], none⟩ (fun _ => Or.inl ⟨Nat.zero_le _, by
      simpa using RankLines.nil⟩)
  have hdone := iterBlocks_done (parseStop b) (parseNext b) (b.size / block + 2)
    ⟨0, 1, #[], none⟩
  simp only [parseRanks] at h
  split at h
  next => simp at h
  next herr =>
    split at h
    next hfin =>
      simp only [Except.ok.injEq] at h
      subst h
      have hstop := hdone hfin
      simp only [parseStop, herr, Option.isSome_none, Bool.false_or, decide_eq_true_eq] at hstop
      rcases hinv herr with ⟨hle, hl⟩ | ⟨_, hl⟩
      · left
        rw [show (iterBlocks (parseStop b) (parseNext b) (b.size / block + 2)
            ⟨0, 1, #[], none⟩).1.pos = b.data.toList.length by rw [← size_eq_length]; omega,
          List.take_length] at hl
        exact hl
      · exact Or.inr hl
    next => simp at h

end Bpe.Exec
