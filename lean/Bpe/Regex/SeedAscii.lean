module

public import Bpe.Regex.SeedBranches

/-!
# The seed's ASCII pre-tokenizer is `findIter` of its pattern (issue 22, step 2)

`preTokenizeAscii_eq_findIter`: on ASCII input, the chunks of `Bpe.preTokenizeAscii` are the
matches of `find_iter` with `seedPattern` (the first published cl100k_base pattern), read with
the ASCII classes, over code points. On ASCII input the 1-unit fallback of `firstMatch` never
fires (`exists_branch_ne_zero`): some branch always matches.

The route: each branch of the pattern is the machine's branch (`Bpe.Regex.SeedBranches`), so
the ordered alternation is `firstMatch` (`chain_eq`), hence `matchAt` of the pattern ends after
`nextChunkLen d` code points (`matchAt_seedPattern`), and the two loops agree step by step
(`map_splitLoop`).

The ASCII hypothesis is needed: the machine sends a byte ≥ 128 to its 1-byte fallback, while the
regex's negated classes (`[^\r\n\p{L}\p{N}]`, `[^\s\p{L}\p{N}]`) contain it.
-/

@[expose] public section
noncomputable section

namespace Bpe.Regex

open Bpe

/-- The outcome of an ordered alternation whose branches end after `n₁, n₂, …` code points
(0: the branch fails), written as `matchRe_alt` nests it. -/
def chain (s : List Nat) : List Nat → Option (List Nat)
  | [] => none
  | [n] => if n = 0 then none else some (s.drop n)
  | n :: m :: ns => (if n = 0 then none else some (s.drop n)).orElse fun _ => chain s (m :: ns)

/-- The alternation ends where `firstMatch` says, when some branch matches. -/
theorem chain_eq (s : List Nat) :
    ∀ ns : List Nat, (∃ n ∈ ns, n ≠ 0) → chain s ns = some (s.drop (firstMatch ns))
  | [], h => by simp at h
  | [n], h => by
    have hn : n ≠ 0 := by simpa using h
    simp [chain, firstMatch, hn]
  | n :: m :: ns, h => by
    by_cases hn : n = 0
    · have h' : ∃ x ∈ m :: ns, x ≠ 0 := by
        obtain ⟨x, hx, hx0⟩ := h
        rcases List.mem_cons.mp hx with rfl | hx
        · exact absurd hn hx0
        · exact ⟨x, hx, hx0⟩
      have e1 : chain s (n :: m :: ns) = chain s (m :: ns) := by simp [chain, hn]
      have e2 : firstMatch (n :: m :: ns) = firstMatch (m :: ns) := by simp [firstMatch, hn]
      rw [e1, e2]
      exact chain_eq s (m :: ns) h'
    · simp [chain, firstMatch, hn]

/-- **The fallback of `firstMatch` never fires on ASCII input**: on a non-empty ASCII byte
string, one of the seven branches of `Bpe.nextChunkLen` matches. -/
theorem exists_branch_ne_zero (d : Bytes) (hd : ∀ b ∈ d, isAscii b = true) (hne : d ≠ []) :
    ∃ n ∈ [matchContraction d, matchWord d, matchDigits d, matchPunct d, matchNewlineWs d,
      matchTrailingWs d, matchOtherWs d], n ≠ 0 := by
  obtain ⟨b, bs, rfl⟩ : ∃ b bs, d = b :: bs := by
    cases d with
    | nil => exact absurd rfl hne
    | cons b bs => exact ⟨b, bs, rfl⟩
  have hb := hd b (by simp)
  cases hL : isLetter b
  · cases hD : isDigit b
    · cases hS : isSpace b
      · refine ⟨matchPunct (b :: bs), by simp, ?_⟩
        have hP : isPunct b = true := by simp [isPunct, hb, hL, hD, hS]
        have h32 : (b.toNat == 32) = false := by
          cases h : b.toNat == 32
          · rfl
          · simp only [beq_iff_eq] at h
            simp [isSpace, h] at hS
        simp only [matchPunct, h32, punctTail, runLength, hP]
        simp
      · refine ⟨matchOtherWs (b :: bs), by simp, ?_⟩
        have hr : runLength isSpace (b :: bs) = runLength isSpace bs + 1 := by
          simp [runLength, hS]
        show runLength isSpace (b :: bs) ≠ 0
        omega
    · refine ⟨matchDigits (b :: bs), by simp, ?_⟩
      have hr : runLength isDigit (b :: bs) = runLength isDigit bs + 1 := by simp [runLength, hD]
      show min 3 (runLength isDigit (b :: bs)) ≠ 0
      omega
  · refine ⟨matchWord (b :: bs), by simp, ?_⟩
    simp [matchWord, runLength, hL]

theorem matchAt_seedPattern (d : Bytes) (hd : ∀ b ∈ d, isAscii b = true) (hne : d ≠ []) :
    matchAt asciiClasses seedPattern (d.map UInt8.toNat) =
      some ((d.map UInt8.toNat).drop (nextChunkLen d)) := by
  unfold matchAt seedPattern
  simp only [alts, matchRe_alt, matchRe_contractionsCl100k d hd, matchRe_word d hd,
    matchRe_digits3 d, matchRe_punct d hd, matchRe_newlineWs d, matchRe_trailingWs d,
    matchRe_otherWs d]
  exact chain_eq _ _ (exists_branch_ne_zero d hd hne)

theorem matchAt_seedPattern_nil : matchAt asciiClasses seedPattern [] = none := by
  decide +kernel

theorem findLoop_seedPattern_nil (fuel : Nat) (adj : Bool) :
    findLoop asciiClasses seedPattern (fuel + 1) adj [] = [] := by
  show findStep asciiClasses seedPattern (findLoop asciiClasses seedPattern fuel) adj [] = []
  simp only [findStep, matchAt_seedPattern_nil]

theorem take_length_sub_length_drop {α : Type} (s : List α) (n : Nat) :
    s.take (s.length - (s.drop n).length) = s.take n := by
  rw [List.length_drop]
  by_cases h : n ≤ s.length
  · rw [Nat.sub_sub_self h]
  · rw [List.take_of_length_le (by omega), List.take_of_length_le (by omega)]

/-- The two loops agree: `splitLoop` with enough fuel is `findLoop` with one more. -/
theorem map_splitLoop (fuel : Nat) :
    ∀ (d : Bytes), (∀ b ∈ d, isAscii b = true) → d.length ≤ fuel → ∀ adj : Bool,
      (splitLoop fuel d).map (·.map UInt8.toNat) =
        findLoop asciiClasses seedPattern (fuel + 1) adj (d.map UInt8.toNat) := by
  induction fuel with
  | zero =>
    intro d _ hl adj
    cases d with
    | nil => exact (findLoop_seedPattern_nil 0 adj).symm
    | cons b bs => simp at hl
  | succ fuel ih =>
    intro d hd hl adj
    cases d with
    | nil => exact (findLoop_seedPattern_nil (fuel + 1) adj).symm
    | cons b bs =>
      have hm := matchAt_seedPattern (b :: bs) hd (by simp)
      have hpos := nextChunkLen_pos (b :: bs)
      have hdrop : ∀ x ∈ (b :: bs).drop (nextChunkLen (b :: bs)), isAscii x = true :=
        fun x hx => hd x (List.mem_of_mem_drop hx)
      show ((b :: bs).take (nextChunkLen (b :: bs)) ::
          splitLoop fuel ((b :: bs).drop (nextChunkLen (b :: bs)))).map (·.map UInt8.toNat) =
        findStep asciiClasses seedPattern (findLoop asciiClasses seedPattern (fuel + 1)) adj
          ((b :: bs).map UInt8.toNat)
      unfold findStep
      rw [hm]
      dsimp only
      have hlt : (((b :: bs).map UInt8.toNat).drop (nextChunkLen (b :: bs))).length <
          ((b :: bs).map UInt8.toNat).length := by
        simp only [List.length_drop, List.length_map, List.length_cons]
        omega
      rw [if_pos hlt, take_length_sub_length_drop, List.map_cons]
      congr 1
      · simp [List.map_take]
      · rw [ih _ hdrop (by simp only [List.length_drop, List.length_cons] at hl ⊢; omega) true,
          List.map_drop]

/-- **The seed's ASCII pre-tokenizer is its regex** (issue 22, step 2): on ASCII input, the
chunks of `preTokenizeAscii`, read as code points, are the matches of `find_iter` with the
seed's pattern `'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}|
?[^\s\p{L}\p{N}]++[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+` under the ASCII classes. -/
theorem preTokenizeAscii_eq_findIter (d : Bytes) (h : ∀ b ∈ d, isAscii b = true) :
    (preTokenizeAscii d).map (·.map UInt8.toNat) =
      findIter asciiClasses seedPattern (d.map UInt8.toNat) := by
  unfold preTokenizeAscii findIter
  rw [List.length_map]
  exact map_splitLoop d.length d h (Nat.le_refl _) false

end Bpe.Regex
