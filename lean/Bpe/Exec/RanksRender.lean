module

public import Bpe.Exec.Base64
public import Bpe.Exec.ReadNat
public import Bpe.Exec.Readers
public import Bpe.Exec.RanksSort

/-!
# Parsing a rendered rank table gives the table back

`renderRanks` writes a rank table as a `.tiktoken` file does (Python:
`base64.b64encode(token) + b" " + str(rank).encode() + b"\n"` per entry, in list order):
`renderLine` is `encode64 token`, a space, `decimal rank`, a newline. The headline
`parseRanks_renderRanks`: the compiled parser `Bpe.Exec.parseRanks` (in `Bpe.Exec.Ranks`) reads
the rendering of any list of entries with non-empty tokens back as that list, in order: no
length limit on tokens or ranks.

The proof follows the parser line by line: `takeField` stops at the space after the base64
(`takeField_of_drop`; base64 has neither spaces nor newlines, `encode64_ne`), `decode64` inverts
`encode64` (`decode64_encode64`), `digits` reads the rank whole (`digits_decimal`), so
`parseLine` returns the entry and the start of the next line (`parseLine_of_drop`). The driver
`iterBlocks` keeps the invariant "after `k` lines the state is `parsedState toks k`"
(`parseNext_parsedState`) and its fuel suffices because every step of the parser moves forward or
stops it (`parseLine_lt`).
-/

@[expose] public section

namespace Bpe.Exec

/-- One line of a `.tiktoken` file: the token in base64, a space, the rank in decimal, a
newline. -/
noncomputable def renderLine (e : TokEntry) : List UInt8 :=
  encode64 e.1 ++ 32 :: (decimal e.2 ++ [10])

/-- The lines of the entries, in order. -/
noncomputable def renderLines : List TokEntry → List UInt8
  | [] => []
  | e :: es => renderLine e ++ renderLines es

/-- The `.tiktoken` file of a rank table. -/
noncomputable def renderRanks (toks : List TokEntry) : ByteArray := ⟨(renderLines toks).toArray⟩

@[simp] theorem renderLines_nil : renderLines [] = [] := rfl

@[simp] theorem renderLines_cons (e : TokEntry) (es : List TokEntry) :
    renderLines (e :: es) = renderLine e ++ renderLines es := rfl

theorem renderLines_append (xs ys : List TokEntry) :
    renderLines (xs ++ ys) = renderLines xs ++ renderLines ys := by
  induction xs with
  | nil => rfl
  | cons x xs ih => simp [ih]

@[simp] theorem renderRanks_data (toks : List TokEntry) :
    (renderRanks toks).data.toList = renderLines toks := rfl

theorem renderRanks_size (toks : List TokEntry) :
    (renderRanks toks).size = (renderLines toks).length := by
  rw [size_eq_length, renderRanks_data]

theorem renderLine_length (e : TokEntry) :
    (renderLine e).length = (encode64 e.1).length + (decimal e.2).length + 2 := by
  simp only [renderLine, List.length_append, List.length_cons, List.length_nil]
  omega

/-! ## One line -/

/-- `takeField` stops at the first space: from a position where the bytes are `cs` (no space,
no newline) and then a space, with fuel at least the length of `cs`, it returns `cs` (reversed
onto `acc`) and the position of the space. -/
theorem takeField_of_drop (b : ByteArray) :
    ∀ (cs : List UInt8) (fuel i : Nat) (acc rest : List UInt8),
      b.data.toList.drop i = cs ++ 32 :: rest → (∀ c ∈ cs, c ≠ 32 ∧ c ≠ 10) →
      cs.length ≤ fuel → takeField b fuel i acc = (cs.reverse ++ acc, i + cs.length)
  | [], 0, _, _, _, _, _, _ => rfl
  | [], fuel + 1, i, acc, rest, h, _, _ => by
    obtain ⟨_, hx, _⟩ := byteAt_of_drop (by simpa using h)
    simp [takeField, hx]
  | c :: cs, 0, _, _, _, _, _, hf => by simp at hf
  | c :: cs, fuel + 1, i, acc, rest, h, hc, hf => by
    obtain ⟨hi, hx, h'⟩ := byteAt_of_drop (by simpa using h)
    have hcc := hc c (by simp)
    have hcond : (decide (i < b.size) && byteAt b i != 32 && byteAt b i != 10) = true := by
      simp [hi, hx, hcc.1, hcc.2]
    simp only [takeField]
    rw [if_pos hcond, hx, takeField_of_drop b cs fuel (i + 1) (c :: acc) rest h'
      (fun d hd => hc d (by simp [hd])) (by simpa using hf)]
    simp only [List.reverse_cons, List.append_assoc, List.singleton_append, List.length_cons,
      Prod.mk.injEq, true_and]
    omega

/-- **`parseLine` reads a rendered line**: where the bytes are the rendering of `(tok, r)` with a
non-empty `tok`, it returns the entry and the start of the next line. -/
theorem parseLine_of_drop (b : ByteArray) (i : Nat) (tok : List UInt8) (r : Nat)
    (rest : List UInt8) (h : b.data.toList.drop i = renderLine (tok, r) ++ rest) (ht : tok ≠ []) :
    parseLine b i = .ok ((tok, r), i + (renderLine (tok, r)).length) := by
  have hl := length_le_of_drop h
  rw [renderLine_length] at hl ⊢
  dsimp only at hl ⊢
  simp only [renderLine, List.append_assoc, List.cons_append, List.nil_append] at h
  have hf := takeField_of_drop b (encode64 tok) b.size i [] _ h (encode64_ne tok) (by omega)
  have hj : b.data.toList.drop (i + (encode64 tok).length) = 32 :: (decimal r ++ 10 :: rest) := by
    rw [← List.drop_drop, h, List.drop_left]
  obtain ⟨hjs, hjb, hj1⟩ := byteAt_of_drop hj
  obtain ⟨d, ds, hd⟩ : ∃ d ds, decimal r = d :: ds := by
    cases e : decimal r with
    | nil => exact absurd e (decimal_ne_nil r)
    | cons d ds => exact ⟨d, ds, rfl⟩
  have hdig : isDigit (byteAt b (i + (encode64 tok).length + 1)) = true := by
    rw [hd] at hj1
    obtain ⟨_, hb, _⟩ := byteAt_of_drop (by simpa using hj1)
    rw [hb]
    exact decimal_isDigit r d (by simp [hd])
  have hdg := digits_decimal b b.size (i + (encode64 tok).length + 1) r (10 :: rest) hj1
    (by simp [isDigit]) (by omega)
  have hk : b.data.toList.drop (i + (encode64 tok).length + 1 + (decimal r).length) =
      10 :: rest := by
    rw [← List.drop_drop, hj1, List.drop_left]
  obtain ⟨hks, hkb, _⟩ := byteAt_of_drop hk
  obtain ⟨x, xs, rfl⟩ : ∃ x xs, tok = x :: xs := by
    cases tok with
    | nil => exact absurd rfl ht
    | cons x xs => exact ⟨x, xs, rfl⟩
  simp only [parseLine, hf, List.append_nil, revBytes_eq_reverseAux, List.reverseAux_eq,
    List.reverse_reverse, decode64_encode64, hjs, hjb, hdig, hdg, hks, hkb]
  simp only [decide_true, beq_self_eq_true, Bool.and_self, Bool.not_true, Bool.false_eq_true,
    ↓reduceIte, bne_self_eq_false, Bool.and_false, Except.ok.injEq,
    Prod.mk.injEq, true_and]
  omega

/-! ## The parser moves forward -/

theorem takeField_ge (b : ByteArray) :
    ∀ (fuel i : Nat) (acc : List UInt8), i ≤ (takeField b fuel i acc).2
  | 0, _, _ => Nat.le_refl _
  | fuel + 1, i, acc => by
    simp only [takeField]
    split
    next => have := takeField_ge b fuel (i + 1) (byteAt b i :: acc); omega
    next => exact Nat.le_refl _

theorem digits_ge (b : ByteArray) : ∀ (fuel i acc : Nat), i ≤ (digits b fuel i acc).2
  | 0, _, _ => Nat.le_refl _
  | fuel + 1, i, acc => by
    simp only [digits]
    split
    next => have := digits_ge b fuel (i + 1) (acc * 10 + ((byteAt b i).toNat - 48)); omega
    next => exact Nat.le_refl _

/-- A line that `parseLine` accepts ends after its start. -/
theorem parseLine_lt {b : ByteArray} {i : Nat} {e : TokEntry} {p : Nat}
    (h : parseLine b i = .ok (e, p)) : i < p := by
  have h1 := takeField_ge b b.size i []
  have h2 := digits_ge b b.size ((takeField b b.size i []).2 + 1) 0
  simp only [parseLine] at h
  split at h
  next => simp at h
  next =>
    split at h
    next => simp at h
    next => simp at h
    next =>
      split at h
      next => simp at h
      next =>
        split at h
        next => simp at h
        next =>
          simp only [Except.ok.injEq, Prod.mk.injEq] at h
          omega

/-- What is left to parse, plus one while the parser has no error: it drops at every step. -/
def parseMeasure (b : ByteArray) (st : ParseState) : Nat :=
  b.size - st.pos + (if st.err.isSome then 0 else 1)

theorem parseMeasure_next (b : ByteArray) (st : ParseState) (h : parseStop b st = false) :
    parseMeasure b (parseNext b st) < parseMeasure b st := by
  simp only [parseStop, Bool.or_eq_false_iff, decide_eq_false_iff_not, Nat.not_le,
    Option.isSome_eq_false_iff, Option.isNone_iff_eq_none] at h
  obtain ⟨herr, hpos⟩ := h
  simp only [parseNext]
  split
  next =>
    simp only [parseMeasure, herr, Option.isSome_none, Bool.false_eq_true, ↓reduceIte]
    omega
  next =>
    split
    next => simp [parseMeasure, herr]
    next e p hp =>
      have := parseLine_lt hp
      simp only [parseMeasure, herr, Option.isSome_none, Bool.false_eq_true, ↓reduceIte]
      omega

/-! ## The whole file -/

/-- The state of the parser after the first `k` entries of `toks`. -/
noncomputable def parsedState (toks : List TokEntry) (k : Nat) : ParseState :=
  ⟨(renderLines (toks.take k)).length, k + 1, (toks.take k).toArray, none⟩

theorem renderLines_take_drop (toks : List TokEntry) (k : Nat) :
    renderLines toks = renderLines (toks.take k) ++ renderLines (toks.drop k) := by
  rw [← renderLines_append, List.take_append_drop]

theorem drop_parsedState (toks : List TokEntry) (k : Nat) (hk : k < toks.length) :
    (renderRanks toks).data.toList.drop (parsedState toks k).pos =
      renderLine toks[k] ++ renderLines (toks.drop (k + 1)) := by
  simp only [renderRanks_data, parsedState]
  rw [renderLines_take_drop toks k, List.drop_left, List.drop_eq_getElem_cons hk,
    renderLines_cons]

theorem parseNext_parsedState (toks : List TokEntry) (hne : ∀ e ∈ toks, e.1 ≠ [])
    (k : Nat) (hk : k < toks.length) :
    parseNext (renderRanks toks) (parsedState toks k) = parsedState toks (k + 1) := by
  have hd := drop_parsedState toks k hk
  have ht := hne toks[k] (List.getElem_mem hk)
  obtain ⟨x, xs, hx⟩ : ∃ x xs, toks[k].1 = x :: xs := by
    cases e : toks[k].1 with
    | nil => exact absurd e ht
    | cons x xs => exact ⟨x, xs, rfl⟩
  have h10 : (byteAt (renderRanks toks) (parsedState toks k).pos == 10) = false := by
    obtain ⟨t, htt⟩ := encode64_cons x xs
    have hd' := hd
    simp only [renderLine, hx, htt, List.cons_append] at hd'
    obtain ⟨_, hb, _⟩ := byteAt_of_drop hd'
    rw [hb]
    have hx4 : x.toNat / 4 < 64 := by have := x.toNat_lt; omega
    simpa using (b64Char_ne hx4).2
  have hp := parseLine_of_drop (renderRanks toks) (parsedState toks k).pos toks[k].1 toks[k].2
    _ hd ht
  simp only [parseNext, h10, Bool.false_eq_true, ↓reduceIte, hp]
  simp only [parsedState, List.take_add_one, List.getElem?_eq_getElem hk, Option.toList_some,
    renderLines_append, renderLines_cons, renderLines_nil, List.append_nil, List.length_append,
    List.push_toArray]

theorem parseStop_parsedState (toks : List TokEntry) (k : Nat) (hk : k ≤ toks.length) :
    parseStop (renderRanks toks) (parsedState toks k) = true ↔ k = toks.length := by
  simp only [parseStop, parsedState, Option.isSome_none, Bool.false_or, decide_eq_true_eq,
    renderRanks_size]
  constructor
  · intro h
    apply Nat.le_antisymm hk
    apply Nat.not_lt.mp
    intro hlt
    have e := renderLines_take_drop toks k
    rw [List.drop_eq_getElem_cons hlt, renderLines_cons] at e
    have := congrArg List.length e
    simp only [List.length_append, renderLine_length] at this
    omega
  · rintro rfl
    simp

/-- **Parsing a rendered rank table gives the table**: the compiled parser reads the `.tiktoken`
rendering of any list of entries whose tokens are non-empty back as that list, in order (no
bound on the length of a token or a rank). -/
theorem parseRanks_renderRanks (toks : List TokEntry) (hne : ∀ e ∈ toks, e.1 ≠ []) :
    parseRanks (renderRanks toks) = .ok toks.toArray := by
  have h0 : (⟨0, 1, #[], none⟩ : ParseState) = parsedState toks 0 := by
    simp [parsedState]
  have hfin := iterBlocks_finish (parseStop (renderRanks toks)) (parseNext (renderRanks toks))
    (parseMeasure (renderRanks toks)) (parseMeasure_next (renderRanks toks))
    ((renderRanks toks).size / block + 2) ⟨0, 1, #[], none⟩
    (by
      simp only [parseMeasure, Option.isSome_none, Bool.false_eq_true, ↓reduceIte, block]
      omega)
  have hinv := iterBlocks_inv (parseStop (renderRanks toks)) (parseNext (renderRanks toks))
    (fun st => ∃ k, k ≤ toks.length ∧ st = parsedState toks k)
    (by
      rintro st hs ⟨k, hk, rfl⟩
      have hlt : k < toks.length := by
        apply Nat.lt_of_le_of_ne hk
        intro e
        rw [(parseStop_parsedState toks k hk).mpr e] at hs
        cases hs
      exact ⟨k + 1, hlt, parseNext_parsedState toks hne k hlt⟩)
    ((renderRanks toks).size / block + 2) ⟨0, 1, #[], none⟩ ⟨0, by simp, h0⟩
  have hdone := iterBlocks_done (parseStop (renderRanks toks)) (parseNext (renderRanks toks))
    _ _ hfin
  obtain ⟨k, hk, hst⟩ := hinv
  rw [hst, parseStop_parsedState toks k hk] at hdone
  subst hdone
  simp only [parseRanks, hst, hfin, parsedState, List.take_length, ↓reduceIte]

end Bpe.Exec
