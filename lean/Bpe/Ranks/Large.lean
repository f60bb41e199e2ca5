module

public import Bpe.Ranks.Basic

/-!
# tiktoken's large-piece merge (`_byte_pair_merge_large`) is `bytePairMerge`

tiktoken 0.14's `byte_pair_encode` chooses its merge loop by the length of the piece: one byte
is looked up, pieces below 100 bytes go through the linear scan `_byte_pair_merge`
(`bytePairMerge`), and pieces of 100 bytes or more through `_byte_pair_merge_large`: a binary
heap of candidate merges `(rank, start)` that pops the lowest rank, then the lowest start, with
lazy invalidation (an entry is skipped when the pair now starting at `start` no longer has that
rank; tiktoken compares with `state[start].next_rank`, which holds exactly that rank, or its
sentinel for a start that is no longer the start of a part).

The model here keeps what decides the answer and nothing of the memory layout:
* the state is the list of the current parts with their start offsets (tiktoken's `state`
  array, read along its `end` links); `pairRankAt` is `state[start].next_rank`;
* the heap is a list of entries `(rank, start)`; `popMin` removes an entry that is least in
  the order `(rank, start)` (tiktoken's `Ord for Merge`); which copy of equal entries goes first
  does not matter, they are equal;
* `popValid` pops until an entry is still valid (tiktoken's `continue` on a stale entry);
  after a merge at `start`, `entriesNear` is what tiktoken's two `potential_merge` calls push:
  the new pair at `start` and the new pair ending at `start`.

`bytePairMergeLarge_eq_bytePairMerge`: the heap loop returns the parts of `bytePairMerge`, for
every rank table (distinct ranks are not needed: a stale entry never passes the check, because
the check compares with the rank of the pair now at its start). `encodePieceRanksBySize` is
`byte_pair_encode` with tiktoken's threshold (`largePieceThreshold` = 100) and
`encodePieceRanksBySize_eq` says it is `encodePieceRanks`, so every theorem about
`encodePieceRanks` holds for the by-size encoder (`encodeRanksWithBySize_eq`).
What stays trusted: that tiktoken's ranks stay below its `Rank::MAX` sentinel (`u32::MAX`),
true of every published table.
-/

@[expose] public section
noncomputable section

namespace Bpe

/-- tiktoken's threshold: pieces of at least this many bytes are merged with the heap. -/
abbrev largePieceThreshold : Nat := 100

/-- The starting state: every byte is a part, with its offset in the piece as its start. -/
def initState : Nat → Bytes → List (Nat × Bytes)
  | _, [] => []
  | i, b :: bs => (i, [b]) :: initState (i + 1) bs

/-- The heap entry of the pair of parts `a, b` starting at `s`: `[(rank, s)]` if `a ++ b` is a
token, else nothing. -/
def pairEntry (ranks : Ranks) (s : Nat) (a b : Bytes) : List (Nat × Nat) :=
  match rankOf ranks (a ++ b) with
  | some r => [(r, s)]
  | none => []

/-- The heap entries of every adjacent pair of the state (what tiktoken pushes at the start). -/
def pairEntries (ranks : Ranks) : List (Nat × Bytes) → List (Nat × Nat)
  | p :: q :: rest => pairEntry ranks p.1 p.2 q.2 ++ pairEntries ranks (q :: rest)
  | _ => []

/-- `state[s].next_rank`: the rank of the pair of parts starting at `s` (`none`: no part
starts at `s`, it is the last part, or the pair is not a token). -/
def pairRankAt (ranks : Ranks) (s : Nat) : List (Nat × Bytes) → Option Nat
  | p :: q :: rest => if p.1 = s then rankOf ranks (p.2 ++ q.2) else pairRankAt ranks s (q :: rest)
  | _ => none

/-- The heap order (tiktoken's `Ord for Merge`, reversed for a min-heap): lower rank first,
then lower start. -/
def entryLt (x y : Nat × Nat) : Bool := decide (x.1 < y.1 ∨ (x.1 = y.1 ∧ x.2 < y.2))

/-- Pop the heap: a least entry and the other entries (`none` on an empty heap). -/
def popMin : List (Nat × Nat) → Option ((Nat × Nat) × List (Nat × Nat))
  | [] => none
  | e :: rest =>
    match popMin rest with
    | none => some (e, rest)
    | some (m, rest') => if entryLt m e then some (m, e :: rest') else some (e, rest)

/-- Pop until an entry is still valid (its rank is the rank of the pair now at its start);
stale entries are dropped. Fuel: the heap size (each round pops one entry). -/
def popValid (ranks : Ranks) (st : List (Nat × Bytes)) :
    Nat → List (Nat × Nat) → Option ((Nat × Nat) × List (Nat × Nat))
  | 0, _ => none
  | fuel + 1, heap =>
    match popMin heap with
    | none => none
    | some (m, rest) =>
      if pairRankAt ranks m.2 st = some m.1 then some (m, rest) else popValid ranks st fuel rest

/-- Merge the part starting at `s` with the next part. -/
def mergeAtStart (s : Nat) : List (Nat × Bytes) → List (Nat × Bytes)
  | p :: q :: rest => if p.1 = s then (p.1, p.2 ++ q.2) :: rest else p :: mergeAtStart s (q :: rest)
  | st => st

/-- What tiktoken pushes after merging at `s` (its two `potential_merge` calls), read on the
new state: the entry of the pair ending at `s` and the entry of the pair starting at `s`. -/
def entriesNear (ranks : Ranks) (s : Nat) : List (Nat × Bytes) → List (Nat × Nat)
  | p :: q :: rest =>
    if q.1 = s then pairEntry ranks p.1 p.2 q.2 ++ entriesNear ranks s (q :: rest)
    else if p.1 = s then pairEntry ranks p.1 p.2 q.2
    else entriesNear ranks s (q :: rest)
  | _ => []

/-- The heap loop: pop a valid entry, merge at its start, push the new entries; stop when no
valid entry is left. Fuel: the piece length (each round removes a part). -/
def largeLoop (ranks : Ranks) :
    Nat → List (Nat × Bytes) → List (Nat × Nat) → List (Nat × Bytes)
  | 0, st, _ => st
  | fuel + 1, st, heap =>
    match popValid ranks st heap.length heap with
    | none => st
    | some (m, rest) =>
      largeLoop ranks fuel (mergeAtStart m.2 st)
        (entriesNear ranks m.2 (mergeAtStart m.2 st) ++ rest)

/-- tiktoken's `_byte_pair_merge_large`: the parts a piece is split into. -/
def bytePairMergeLarge (ranks : Ranks) (piece : Bytes) : List Bytes :=
  (largeLoop ranks piece.length (initState 0 piece)
    (pairEntries ranks (initState 0 piece))).map Prod.snd

/-- tiktoken's choice of merge loop by piece length. -/
def bytePairMergeBySize (ranks : Ranks) (piece : Bytes) : List Bytes :=
  if piece.length < largePieceThreshold then bytePairMerge ranks piece
  else bytePairMergeLarge ranks piece

/-- tiktoken 0.14's `byte_pair_encode` behind its whole-piece lookup: the piece's rank if it
is a token, else the ranks of the parts of the merge loop chosen by length (`none` if a part
has no rank, where tiktoken would fail). -/
def encodePieceRanksBySize (ranks : Ranks) (piece : Bytes) : Option (List Nat) :=
  match rankOf ranks piece with
  | some r => some [r]
  | none => (bytePairMergeBySize ranks piece).mapM fun part => rankOf ranks part

/-- tiktoken 0.14's encoder (no special tokens) over any pre-tokenizer. -/
def encodeRanksWithBySize (preTokenize : Bytes → List Bytes) (ranks : Ranks)
    (text : String) : Option (List Nat) :=
  ((preTokenize (stringBytes text)).mapM fun piece => encodePieceRanksBySize ranks piece).map
    List.flatten

/-! ## The heap -/

theorem popMin_cons_ne_none (e : Nat × Nat) (rest : List (Nat × Nat)) :
    popMin (e :: rest) ≠ none := by
  unfold popMin
  cases popMin rest with
  | none => simp
  | some p =>
    obtain ⟨m, rest'⟩ := p
    dsimp only
    split <;> simp

theorem popMin_eq_none {heap : List (Nat × Nat)} (h : popMin heap = none) : heap = [] := by
  cases heap with
  | nil => rfl
  | cons e rest => exact absurd h (popMin_cons_ne_none e rest)

/-- What `popMin` returns: one entry fewer, every entry is kept or popped, and the popped
entry is least. -/
theorem popMin_eq_some :
    ∀ {heap rest : List (Nat × Nat)} {m : Nat × Nat}, popMin heap = some (m, rest) →
      rest.length + 1 = heap.length ∧ (∀ x ∈ heap, x = m ∨ x ∈ rest) ∧
        (∀ x ∈ heap, entryLt x m = false)
  | [], _, _, h => by simp [popMin] at h
  | e :: tl, rest, m, h => by
    unfold popMin at h
    cases htl : popMin tl with
    | none =>
      rw [htl] at h
      simp only [Option.some.injEq, Prod.mk.injEq] at h
      obtain ⟨rfl, rfl⟩ := h
      rw [popMin_eq_none htl]
      simp [entryLt]
    | some p =>
      obtain ⟨m', rest'⟩ := p
      rw [htl] at h
      obtain ⟨ihl, ihm, ihx⟩ := popMin_eq_some htl
      dsimp only at h
      by_cases hlt : entryLt m' e = true
      · rw [if_pos hlt] at h
        simp only [Option.some.injEq, Prod.mk.injEq] at h
        obtain ⟨rfl, rfl⟩ := h
        refine ⟨by simp [ihl], ?_, ?_⟩
        · intro x hx
          rcases List.mem_cons.mp hx with rfl | hx
          · exact Or.inr List.mem_cons_self
          · rcases ihm x hx with rfl | hx'
            · exact Or.inl rfl
            · exact Or.inr (List.mem_cons_of_mem _ hx')
        · intro x hx
          rcases List.mem_cons.mp hx with rfl | hx
          · simp only [entryLt, decide_eq_true_eq, decide_eq_false_iff_not] at hlt ⊢
            omega
          · exact ihx x hx
      · rw [if_neg hlt] at h
        simp only [Option.some.injEq, Prod.mk.injEq] at h
        obtain ⟨rfl, rfl⟩ := h
        refine ⟨rfl, ?_, ?_⟩
        · intro x hx
          rcases List.mem_cons.mp hx with rfl | hx
          · exact Or.inl rfl
          · exact Or.inr hx
        · intro x hx
          rcases List.mem_cons.mp hx with rfl | hx
          · simp [entryLt]
          · have h1 := ihx x hx
            simp only [entryLt, decide_eq_true_eq, decide_eq_false_iff_not] at hlt h1 ⊢
            omega

/-! ## Entries and the state -/

theorem mem_pairEntry {ranks : Ranks} {s : Nat} {a b : Bytes} {e : Nat × Nat} :
    e ∈ pairEntry ranks s a b ↔ rankOf ranks (a ++ b) = some e.1 ∧ e.2 = s := by
  unfold pairEntry
  cases rankOf ranks (a ++ b) with
  | none => simp
  | some r =>
    obtain ⟨x, y⟩ := e
    simp only [List.mem_singleton, Prod.mk.injEq, Option.some.injEq]
    constructor
    · rintro ⟨rfl, rfl⟩
      exact ⟨rfl, rfl⟩
    · rintro ⟨rfl, rfl⟩
      exact ⟨rfl, rfl⟩

@[simp] theorem pairEntries_cons_cons (ranks : Ranks) (p q : Nat × Bytes)
    (rest : List (Nat × Bytes)) :
    pairEntries ranks (p :: q :: rest) = pairEntry ranks p.1 p.2 q.2 ++ pairEntries ranks (q :: rest) :=
  rfl

@[simp] theorem pairEntries_nil (ranks : Ranks) : pairEntries ranks [] = [] := rfl

@[simp] theorem pairEntries_singleton (ranks : Ranks) (p : Nat × Bytes) :
    pairEntries ranks [p] = [] := rfl

/-- An entry's start is the start of a part. -/
theorem snd_mem_of_mem_pairEntries (ranks : Ranks) :
    ∀ {st : List (Nat × Bytes)} {e : Nat × Nat}, e ∈ pairEntries ranks st →
      e.2 ∈ st.map Prod.fst
  | [], _, h => by simp at h
  | [_], _, h => by simp at h
  | p :: q :: rest, e, h => by
    rw [pairEntries_cons_cons, List.mem_append] at h
    rcases h with h | h
    · rw [(mem_pairEntry.mp h).2]
      exact List.mem_cons_self
    · exact List.mem_cons_of_mem _ (snd_mem_of_mem_pairEntries ranks h)

theorem mem_pairEntries_of_pairRankAt (ranks : Ranks) :
    ∀ {st : List (Nat × Bytes)} {s r : Nat}, pairRankAt ranks s st = some r →
      (r, s) ∈ pairEntries ranks st
  | [], _, _, h => by simp [pairRankAt] at h
  | [_], _, _, h => by simp [pairRankAt] at h
  | p :: q :: rest, s, r, h => by
    rw [pairEntries_cons_cons, List.mem_append]
    unfold pairRankAt at h
    by_cases hp : p.1 = s
    · rw [if_pos hp] at h
      exact Or.inl (mem_pairEntry.mpr ⟨h, hp.symm⟩)
    · rw [if_neg hp] at h
      exact Or.inr (mem_pairEntries_of_pairRankAt ranks h)

theorem pairRankAt_of_mem_pairEntries (ranks : Ranks) :
    ∀ {st : List (Nat × Bytes)} {s r : Nat}, (st.map Prod.fst).Pairwise (· < ·) →
      (r, s) ∈ pairEntries ranks st → pairRankAt ranks s st = some r
  | [], _, _, _, h => by simp at h
  | [_], _, _, _, h => by simp at h
  | p :: q :: rest, s, r, hpw, h => by
    rw [List.map_cons, List.pairwise_cons] at hpw
    rw [pairEntries_cons_cons, List.mem_append] at h
    unfold pairRankAt
    by_cases hp : p.1 = s
    · rw [if_pos hp]
      rcases h with h | h
      · exact (mem_pairEntry.mp h).1
      · have hs := snd_mem_of_mem_pairEntries ranks h
        have := hpw.1 s hs
        omega
    · rw [if_neg hp]
      rcases h with h | h
      · exact absurd (mem_pairEntry.mp h).2.symm hp
      · exact pairRankAt_of_mem_pairEntries ranks hpw.2 h

/-- No entry: no pair has a rank. -/
theorem lowestRank_pairRanks_of_pairEntries (ranks : Ranks) :
    ∀ {st : List (Nat × Bytes)}, pairEntries ranks st = [] →
      lowestRank (pairRanks ranks (st.map Prod.snd)) = none
  | [], _ => rfl
  | [_], _ => rfl
  | p :: q :: rest, h => by
    rw [pairEntries_cons_cons, List.append_eq_nil_iff] at h
    have hr : rankOf ranks (p.2 ++ q.2) = none := by
      cases hr : rankOf ranks (p.2 ++ q.2) with
      | none => rfl
      | some r =>
        have : (r, p.1) ∈ pairEntry ranks p.1 p.2 q.2 := mem_pairEntry.mpr ⟨hr, rfl⟩
        rw [h.1] at this
        simp at this
    have ih := lowestRank_pairRanks_of_pairEntries ranks h.2
    simp only [List.map_cons] at ih ⊢
    rw [pairRanks_cons_cons, hr, lowestRank, ih]
    rfl

theorem mem_of_lowestRank :
    ∀ {l : List (Option Nat)} {j x : Nat}, lowestRank l = some (j, x) → some x ∈ l
  | [], _, _, h => by simp [lowestRank] at h
  | none :: rest, j, x, h => by
    unfold lowestRank at h
    cases hr : lowestRank rest with
    | none => rw [hr] at h; simp at h
    | some p =>
      obtain ⟨j', x'⟩ := p
      rw [hr] at h
      simp only [Option.map_some, Option.some.injEq, Prod.mk.injEq] at h
      rw [← h.2]
      exact List.mem_cons_of_mem _ (mem_of_lowestRank hr)
  | some r :: rest, j, x, h => by
    unfold lowestRank at h
    cases hr : lowestRank rest with
    | none =>
      rw [hr] at h
      simp only [Option.some.injEq, Prod.mk.injEq] at h
      rw [← h.2]
      exact List.mem_cons_self
    | some p =>
      obtain ⟨j', x'⟩ := p
      rw [hr] at h
      dsimp only at h
      split at h
      · simp only [Option.some.injEq, Prod.mk.injEq] at h
        rw [← h.2]
        exact List.mem_cons_of_mem _ (mem_of_lowestRank hr)
      · simp only [Option.some.injEq, Prod.mk.injEq] at h
        rw [← h.2]
        exact List.mem_cons_self

theorem exists_mem_pairEntries_of_mem_pairRanks (ranks : Ranks) :
    ∀ {st : List (Nat × Bytes)} {x : Nat}, some x ∈ pairRanks ranks (st.map Prod.snd) →
      ∃ t, (x, t) ∈ pairEntries ranks st
  | [], _, h => by simp at h
  | [_], _, h => by simp at h
  | p :: q :: rest, x, h => by
    simp only [List.map_cons, pairRanks_cons_cons, List.mem_cons] at h
    rcases h with h | h
    · exact ⟨p.1, by
        rw [pairEntries_cons_cons, List.mem_append]
        exact Or.inl (mem_pairEntry.mpr ⟨h.symm, rfl⟩)⟩
    · have h' : some x ∈ pairRanks ranks ((q :: rest).map Prod.snd) := by
        simpa only [List.map_cons] using h
      obtain ⟨t, ht⟩ := exists_mem_pairEntries_of_mem_pairRanks ranks h'
      exact ⟨t, by rw [pairEntries_cons_cons, List.mem_append]; exact Or.inr ht⟩

/-! ## One merge -/

/-- A valid entry that is least among the current entries is tiktoken's choice: the leftmost
pair of lowest rank; merging at its start is `mergeAt` at that pair's index. -/
theorem lowestRank_of_valid (ranks : Ranks) :
    ∀ {st : List (Nat × Bytes)} {m : Nat × Nat}, (st.map Prod.fst).Pairwise (· < ·) →
      pairRankAt ranks m.2 st = some m.1 →
      (∀ e ∈ pairEntries ranks st, entryLt e m = false) →
      ∃ i, lowestRank (pairRanks ranks (st.map Prod.snd)) = some (i, m.1) ∧
        mergeAt i (st.map Prod.snd) = (mergeAtStart m.2 st).map Prod.snd
  | [], _, _, h, _ => by simp [pairRankAt] at h
  | [_], _, _, h, _ => by simp [pairRankAt] at h
  | p :: q :: rest, m, hpw, hv, hmin => by
    have hpw' := hpw
    rw [List.map_cons, List.pairwise_cons] at hpw'
    unfold pairRankAt at hv
    by_cases hp : p.1 = m.2
    · rw [if_pos hp] at hv
      refine ⟨0, ?_, ?_⟩
      · simp only [List.map_cons, pairRanks_cons_cons]
        rw [hv, lowestRank]
        cases hl : lowestRank (pairRanks ranks (q.2 :: rest.map Prod.snd)) with
        | none => rfl
        | some jx =>
          obtain ⟨j, x⟩ := jx
          have hx := mem_of_lowestRank hl
          have hx' : some x ∈ pairRanks ranks ((q :: rest).map Prod.snd) := by
            simpa only [List.map_cons] using hx
          obtain ⟨t, ht⟩ := exists_mem_pairEntries_of_mem_pairRanks ranks hx'
          have h1 := hmin (x, t) (by
            rw [pairEntries_cons_cons, List.mem_append]; exact Or.inr ht)
          simp only [entryLt, decide_eq_false_iff_not] at h1
          have hnlt : ¬ x < m.1 := by omega
          simp [hnlt]
      · simp [mergeAtStart, hp, mergeAt]
    · rw [if_neg hp] at hv
      have htl : ∀ e ∈ pairEntries ranks (q :: rest), entryLt e m = false := fun e he =>
        hmin e (by rw [pairEntries_cons_cons, List.mem_append]; exact Or.inr he)
      obtain ⟨i, hi, hmerge⟩ := lowestRank_of_valid ranks hpw'.2 hv htl
      have hlt : p.1 < m.2 :=
        hpw'.1 m.2 (snd_mem_of_mem_pairEntries ranks (mem_pairEntries_of_pairRankAt ranks hv))
      refine ⟨i + 1, ?_, ?_⟩
      · simp only [List.map_cons, pairRanks_cons_cons] at hi ⊢
        cases hr0 : rankOf ranks (p.2 ++ q.2) with
        | none => simp [lowestRank, hi]
        | some r0 =>
          have h1 := hmin (r0, p.1) (by
            rw [pairEntries_cons_cons, List.mem_append]
            exact Or.inl (mem_pairEntry.mpr ⟨hr0, rfl⟩))
          simp only [entryLt, decide_eq_false_iff_not] at h1
          have hlt' : m.1 < r0 := by omega
          simp [lowestRank, hi, hlt']
      · simp only [List.map_cons] at hmerge ⊢
        rw [mergeAtStart, if_neg hp, List.map_cons, ← hmerge]
        rfl

theorem map_fst_mergeAtStart_sublist (s : Nat) :
    ∀ st : List (Nat × Bytes), ((mergeAtStart s st).map Prod.fst).Sublist (st.map Prod.fst)
  | [] => List.Sublist.refl _
  | [_] => List.Sublist.refl _
  | p :: q :: rest => by
    unfold mergeAtStart
    by_cases hp : p.1 = s
    · rw [if_pos hp]
      simp only [List.map_cons]
      exact List.Sublist.cons₂ _ (List.sublist_cons_self _ _)
    · rw [if_neg hp]
      have ih := map_fst_mergeAtStart_sublist s (q :: rest)
      simp only [List.map_cons] at ih ⊢
      exact List.Sublist.cons₂ _ ih

/-- The head of the state keeps its start, and its bytes unless the merge is there. -/
theorem mergeAtStart_cons (s : Nat) (q : Nat × Bytes) (rest : List (Nat × Bytes)) :
    ∃ q' tl, mergeAtStart s (q :: rest) = q' :: tl ∧ q'.1 = q.1 ∧ (q.1 ≠ s → q' = q) := by
  cases rest with
  | nil => exact ⟨q, [], rfl, rfl, fun _ => rfl⟩
  | cons v rest =>
    unfold mergeAtStart
    by_cases hq : q.1 = s
    · rw [if_pos hq]
      exact ⟨_, _, rfl, rfl, fun h => absurd hq h⟩
    · rw [if_neg hq]
      exact ⟨q, _, rfl, rfl, fun _ => rfl⟩

/-- Every entry of the new state was an entry of the old state at another start, or is pushed
by `entriesNear`. -/
theorem mem_pairEntries_mergeAtStart (ranks : Ranks) (s : Nat) :
    ∀ {st : List (Nat × Bytes)} {e : Nat × Nat}, (st.map Prod.fst).Pairwise (· < ·) →
      e ∈ pairEntries ranks (mergeAtStart s st) →
      e ∈ entriesNear ranks s (mergeAtStart s st) ∨ (e ∈ pairEntries ranks st ∧ e.2 ≠ s)
  | [], _, _, h => by simp [mergeAtStart] at h
  | [_], _, _, h => by simp [mergeAtStart] at h
  | p :: q :: rest, e, hpw, h => by
    have hpw' := hpw
    rw [List.map_cons, List.pairwise_cons] at hpw'
    by_cases hp : p.1 = s
    · have hm : mergeAtStart s (p :: q :: rest) = (p.1, p.2 ++ q.2) :: rest := by
        rw [mergeAtStart, if_pos hp]
      rw [hm] at h ⊢
      cases rest with
      | nil => simp at h
      | cons v rest2 =>
        rw [pairEntries_cons_cons, List.mem_append] at h
        rcases h with h | h
        · left
          rw [entriesNear]
          dsimp only
          split
          · exact List.mem_append_left _ h
          · first | exact h | (rw [if_pos hp]; exact h)
        · right
          refine ⟨?_, ?_⟩
          · rw [pairEntries_cons_cons, pairEntries_cons_cons, List.mem_append, List.mem_append]
            exact Or.inr (Or.inr h)
          · have hs := snd_mem_of_mem_pairEntries ranks h
            have := hpw'.1 e.2 (List.mem_cons_of_mem _ hs)
            omega
    · obtain ⟨q', tl, hq', hq1, hqq⟩ := mergeAtStart_cons s q rest
      have hm : mergeAtStart s (p :: q :: rest) = p :: q' :: tl := by
        rw [mergeAtStart, if_neg hp, hq']
      rw [hm] at h ⊢
      rw [pairEntries_cons_cons, List.mem_append] at h
      rw [entriesNear, if_neg hp]
      rcases h with h | h
      · by_cases hqs : q'.1 = s
        · left
          rw [if_pos hqs]
          exact List.mem_append_left _ h
        · right
          rw [hqq (by rw [← hq1]; exact hqs)] at h
          refine ⟨?_, ?_⟩
          · rw [pairEntries_cons_cons, List.mem_append]
            exact Or.inl h
          · rw [(mem_pairEntry.mp h).2]
            exact hp
      · rw [← hq'] at h
        rcases mem_pairEntries_mergeAtStart ranks s hpw'.2 h with h | h
        · left
          rw [hq'] at h
          split
          · exact List.mem_append_right _ h
          · exact h
        · right
          refine ⟨?_, h.2⟩
          rw [pairEntries_cons_cons, List.mem_append]
          exact Or.inr h.1

/-! ## Popping -/

/-- No valid entry left: no entry at all (every current entry is in the heap). -/
theorem pairEntries_of_popValid_eq_none (ranks : Ranks) (st : List (Nat × Bytes))
    (hpw : (st.map Prod.fst).Pairwise (· < ·)) :
    ∀ (fuel : Nat) (heap : List (Nat × Nat)), heap.length = fuel →
      (∀ e ∈ pairEntries ranks st, e ∈ heap) → popValid ranks st fuel heap = none →
      pairEntries ranks st = []
  | 0, heap, hl, hc, _ => by
    rw [List.length_eq_zero_iff] at hl
    subst hl
    exact List.eq_nil_iff_forall_not_mem.mpr fun e he => by simpa using hc e he
  | fuel + 1, heap, hl, hc, h => by
    unfold popValid at h
    cases hpop : popMin heap with
    | none =>
      have := popMin_eq_none hpop
      subst this
      exact List.eq_nil_iff_forall_not_mem.mpr fun e he => by simpa using hc e he
    | some mr =>
      obtain ⟨m, rest⟩ := mr
      rw [hpop] at h
      dsimp only at h
      obtain ⟨hlen, hmem, -⟩ := popMin_eq_some hpop
      by_cases hv : pairRankAt ranks m.2 st = some m.1
      · rw [if_pos hv] at h
        simp at h
      · rw [if_neg hv] at h
        refine pairEntries_of_popValid_eq_none ranks st hpw fuel rest (by omega) ?_ h
        intro e he
        rcases hmem e (hc e he) with rfl | h'
        · exact absurd (pairRankAt_of_mem_pairEntries ranks hpw he) hv
        · exact h'

/-- A popped valid entry: it is valid, least among the current entries, and the heap left
holds every current entry at another start. -/
theorem popValid_eq_some (ranks : Ranks) (st : List (Nat × Bytes))
    (hpw : (st.map Prod.fst).Pairwise (· < ·)) :
    ∀ (fuel : Nat) (heap rest : List (Nat × Nat)) (m : Nat × Nat),
      (∀ e ∈ pairEntries ranks st, e ∈ heap) → popValid ranks st fuel heap = some (m, rest) →
      pairRankAt ranks m.2 st = some m.1 ∧ (∀ e ∈ pairEntries ranks st, entryLt e m = false) ∧
        (∀ e ∈ pairEntries ranks st, e.2 ≠ m.2 → e ∈ rest)
  | 0, _, _, _, _, h => by simp [popValid] at h
  | fuel + 1, heap, rest, m, hc, h => by
    unfold popValid at h
    cases hpop : popMin heap with
    | none => rw [hpop] at h; simp at h
    | some mr =>
      obtain ⟨m0, rest0⟩ := mr
      rw [hpop] at h
      dsimp only at h
      obtain ⟨-, hmem, hleast⟩ := popMin_eq_some hpop
      by_cases hv : pairRankAt ranks m0.2 st = some m0.1
      · rw [if_pos hv] at h
        simp only [Option.some.injEq, Prod.mk.injEq] at h
        obtain ⟨rfl, rfl⟩ := h
        refine ⟨hv, fun e he => hleast e (hc e he), fun e he hne => ?_⟩
        rcases hmem e (hc e he) with rfl | h'
        · exact absurd rfl hne
        · exact h'
      · rw [if_neg hv] at h
        refine popValid_eq_some ranks st hpw fuel rest0 rest m ?_ h
        intro e he
        rcases hmem e (hc e he) with rfl | h'
        · exact absurd (pairRankAt_of_mem_pairEntries ranks hpw he) hv
        · exact h'

/-! ## The loops agree -/

/-- The heap loop and the linear scan take the same steps, from any state whose starts
increase and whose heap holds every current entry. -/
theorem map_snd_largeLoop (ranks : Ranks) :
    ∀ (fuel : Nat) (st : List (Nat × Bytes)) (heap : List (Nat × Nat)),
      (st.map Prod.fst).Pairwise (· < ·) → (∀ e ∈ pairEntries ranks st, e ∈ heap) →
      (largeLoop ranks fuel st heap).map Prod.snd =
        bytePairMergeLoop ranks fuel (st.map Prod.snd)
  | 0, _, _, _, _ => rfl
  | fuel + 1, st, heap, hpw, hc => by
    unfold largeLoop
    cases hpop : popValid ranks st heap.length heap with
    | none =>
      have h0 := pairEntries_of_popValid_eq_none ranks st hpw heap.length heap rfl hc hpop
      rw [bytePairMergeLoop, lowestRank_pairRanks_of_pairEntries ranks h0]
    | some mr =>
      obtain ⟨m, rest⟩ := mr
      dsimp only
      obtain ⟨hv, hmin, hrest⟩ := popValid_eq_some ranks st hpw _ heap rest m hc hpop
      obtain ⟨i, hi, hmerge⟩ := lowestRank_of_valid ranks hpw hv hmin
      rw [bytePairMergeLoop, hi]
      dsimp only
      rw [hmerge]
      refine map_snd_largeLoop ranks fuel _ _
        (List.Pairwise.sublist (map_fst_mergeAtStart_sublist m.2 st) hpw) ?_
      intro e he
      rcases mem_pairEntries_mergeAtStart ranks m.2 hpw he with h | h
      · exact List.mem_append_left _ h
      · exact List.mem_append_right _ (hrest e h.1 h.2)

theorem map_snd_initState : ∀ (i : Nat) (bs : Bytes),
    (initState i bs).map Prod.snd = bs.map fun b => [b]
  | _, [] => rfl
  | i, b :: bs => by simp [initState, map_snd_initState (i + 1) bs]

theorem le_of_mem_initState : ∀ {i : Nat} {bs : Bytes} {x : Nat},
    x ∈ (initState i bs).map Prod.fst → i ≤ x
  | _, [], _, h => by simp [initState] at h
  | i, b :: bs, x, h => by
    simp only [initState, List.map_cons, List.mem_cons] at h
    rcases h with rfl | h
    · exact Nat.le_refl _
    · have := le_of_mem_initState h
      omega

theorem pairwise_initState : ∀ (i : Nat) (bs : Bytes),
    ((initState i bs).map Prod.fst).Pairwise (· < ·)
  | _, [] => List.Pairwise.nil
  | i, b :: bs => by
    simp only [initState, List.map_cons, List.pairwise_cons]
    exact ⟨fun x hx => le_of_mem_initState hx, pairwise_initState (i + 1) bs⟩

/-! ## The theorems -/

/-- **tiktoken's heap merge is its linear merge**: `_byte_pair_merge_large` (modelled by
`bytePairMergeLarge`: a heap of `(rank, start)` entries with lazy invalidation) returns the
same parts as `_byte_pair_merge` (`bytePairMerge`), for every rank table and every piece. -/
theorem bytePairMergeLarge_eq_bytePairMerge (ranks : Ranks) (piece : Bytes) :
    bytePairMergeLarge ranks piece = bytePairMerge ranks piece := by
  unfold bytePairMergeLarge bytePairMerge
  rw [map_snd_largeLoop ranks _ _ _ (pairwise_initState 0 piece) (fun _ h => h),
    map_snd_initState]

theorem bytePairMergeBySize_eq (ranks : Ranks) (piece : Bytes) :
    bytePairMergeBySize ranks piece = bytePairMerge ranks piece := by
  unfold bytePairMergeBySize
  split
  · rfl
  · exact bytePairMergeLarge_eq_bytePairMerge ranks piece

/-- **tiktoken 0.14's encoder of a piece is `encodePieceRanks`**, whichever merge loop the
piece length selects. -/
theorem encodePieceRanksBySize_eq (ranks : Ranks) (piece : Bytes) :
    encodePieceRanksBySize ranks piece = encodePieceRanks ranks piece := by
  unfold encodePieceRanksBySize encodePieceRanks
  cases rankOf ranks piece <;> simp [bytePairMergeBySize_eq]

theorem encodeRanksWithBySize_eq (preTokenize : Bytes → List Bytes) (ranks : Ranks)
    (text : String) :
    encodeRanksWithBySize preTokenize ranks text = encodeRanksWith preTokenize ranks text := by
  unfold encodeRanksWithBySize encodeRanksWith
  simp only [encodePieceRanksBySize_eq]

end Bpe
