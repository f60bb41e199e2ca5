module

public import Bpe.Seed.Decompose
public import Bpe.Ranks.MergePair

/-!
# The tiktoken side of issue 14: one step of the loop, its runs, locality

Facts about the decomposition loop (`decomposeLoop`, which is tiktoken's `bytePairMerge`)
used by the proof that the seed's encoder is tiktoken's (`Bpe.Ranks.Equiv`), in three parts:
the pair `bestPairIndex` chooses and one step of the loop (`stepParts`); a run as the iteration
of that step; locality, and why every merge is a recorded decomposition (steps 1 and 2 of the
issue's proof route).
-/

@[expose] public section

namespace Bpe

/-!
## The pair `bestPairIndex` chooses, and one step of the decomposition loop

`IsBestPair ranks maxRank L x y R s`: in the parts `L ++ x :: y :: R`, the pair `(x, y)` has
the allowed rank `s`, every pair to its left a higher one and every pair to its right one at
least as high: it is the leftmost pair of lowest allowed rank. `bestPairIndex` returns
position `|L|` and rank `s` exactly in that situation (`bestPairIndex_eq_some_split`,
`bestPairIndex_of_isBestPair`), and `none` exactly when no pair has an allowed rank.
`stepParts` is one step of the loop (`decomposeLoop`, hence tiktoken's `bytePairMerge`).
A bound only hides pairs, so a step of a bounded loop is a step of the unbounded one
(`stepParts_eq_or`).
-/

noncomputable section BestPair
variable {ranks : Ranks} {maxRank : Option Nat}

/-- An allowed rank is the rank, below the bound. -/
theorem rankOf_of_allowedRank {t : Bytes} {r : Nat} (h : allowedRank ranks maxRank t = some r) :
    rankOf ranks t = some r ∧ ∀ m, maxRank = some m → r < m := by
  unfold allowedRank at h
  revert h
  cases rankOf ranks t with
  | none => cases maxRank <;> simp
  | some r' =>
    cases maxRank with
    | none => intro h; simp at h; subst h; simp
    | some m =>
      by_cases hlt : r' < m
      · simp only [hlt, if_true, Option.some.injEq]
        intro h; subst h; simp [hlt]
      · simp [hlt]

/-- A rank is allowed, unless the bound is at most the rank. -/
theorem allowedRank_of_rankOf {t : Bytes} {r : Nat} (h : rankOf ranks t = some r) :
    allowedRank ranks maxRank t = some r ∨ ∃ m, maxRank = some m ∧ m ≤ r := by
  unfold allowedRank
  cases hm : maxRank with
  | none => left; simp [h]
  | some m =>
    by_cases hlt : r < m
    · left; simp [h, hlt]
    · right; exact ⟨m, rfl, by omega⟩

/-- `(x, y)` is the leftmost pair of lowest allowed rank `s` in `L ++ x :: y :: R`. -/
def IsBestPair (ranks : Ranks) (maxRank : Option Nat) (L : List Bytes) (x y : Bytes)
    (R : List Bytes) (s : Nat) : Prop :=
  allowedRank ranks maxRank (x ++ y) = some s ∧
  (∀ p ∈ adjacentPairs (L ++ [x]), ∀ s', allowedRank ranks maxRank (p.1 ++ p.2) = some s' → s < s') ∧
  (∀ p ∈ adjacentPairs (y :: R), ∀ s', allowedRank ranks maxRank (p.1 ++ p.2) = some s' → s ≤ s')

/-- The best pair's rank is the lowest of all. -/
theorem le_of_isBestPair {L : List Bytes} {x y : Bytes} {R : List Bytes} {s : Nat}
    (h : IsBestPair ranks maxRank L x y R s) :
    ∀ p ∈ adjacentPairs (L ++ x :: y :: R), ∀ s',
      allowedRank ranks maxRank (p.1 ++ p.2) = some s' → s ≤ s' := by
  intro p hp s' hs'
  rcases mem_adjacentPairs_append_cons L x (y :: R) hp with hp | hp
  · exact Nat.le_of_lt (h.2.1 p hp s' hs')
  · rcases List.mem_cons.mp hp with rfl | hp
    · have hs'' : allowedRank ranks maxRank (x ++ y) = some s' := hs'
      rw [h.1] at hs''
      cases hs''
      exact Nat.le_refl _
    · exact h.2.2 p hp s' hs'

theorem allowedRank_eq_none_of_bestPairIndex (ranks : Ranks) (maxRank : Option Nat) :
    ∀ (k : Nat) (parts : List Bytes), bestPairIndex ranks maxRank k parts = none →
      ∀ p ∈ adjacentPairs parts, allowedRank ranks maxRank (p.1 ++ p.2) = none
  | _, [], _, _, hp => by simp at hp
  | _, [_], _, _, hp => by simp at hp
  | k, a :: b :: rest, h, p, hp => by
    have ih := allowedRank_eq_none_of_bestPairIndex ranks maxRank (k + 1) (b :: rest)
    cases hab : allowedRank ranks maxRank (a ++ b) with
    | none =>
      simp only [bestPairIndex, hab] at h
      rcases List.mem_cons.mp hp with rfl | hp
      · exact hab
      · exact ih h p hp
    | some r =>
      revert h
      cases h2 : bestPairIndex ranks maxRank (k + 1) (b :: rest) with
      | none => simp [bestPairIndex, hab, h2]
      | some q =>
        obtain ⟨j, s⟩ := q
        simp only [bestPairIndex, hab, h2]
        by_cases hlt : s < r <;> simp [hlt]

theorem bestPairIndex_eq_none_of (ranks : Ranks) (maxRank : Option Nat) :
    ∀ (k : Nat) (parts : List Bytes),
      (∀ p ∈ adjacentPairs parts, allowedRank ranks maxRank (p.1 ++ p.2) = none) →
        bestPairIndex ranks maxRank k parts = none
  | _, [], _ => by simp [bestPairIndex]
  | _, [_], _ => by simp [bestPairIndex]
  | k, a :: b :: rest, h => by
    have hab : allowedRank ranks maxRank (a ++ b) = none := h (a, b) List.mem_cons_self
    have ih := bestPairIndex_eq_none_of ranks maxRank (k + 1) (b :: rest)
      (fun p hp => h p (List.mem_cons_of_mem _ hp))
    simp only [bestPairIndex, hab, ih]

/-- The pairs of `a :: (L ++ [x])` when `L ++ [x]` starts with `b`. -/
theorem mem_adjacentPairs_cons_prefix {a b x : Bytes} {rest R : List Bytes} :
    ∀ {L : List Bytes}, b :: rest = L ++ x :: R → ∀ {p : Bytes × Bytes},
      p ∈ adjacentPairs (a :: (L ++ [x])) → p = (a, b) ∨ p ∈ adjacentPairs (L ++ [x])
  | [], h, p, hp => by
    simp only [List.nil_append, List.cons.injEq] at h
    obtain ⟨rfl, -⟩ := h
    have hp' : p ∈ [(a, b)] := hp
    exact Or.inl (List.mem_singleton.mp hp')
  | c :: L, h, p, hp => by
    simp only [List.cons_append, List.cons.injEq] at h
    obtain ⟨rfl, -⟩ := h
    have hp' : p ∈ (a, b) :: adjacentPairs (b :: (L ++ [x])) := hp
    rcases List.mem_cons.mp hp' with rfl | hp'
    · exact Or.inl rfl
    · exact Or.inr hp'

/-- What `bestPairIndex` returns: the position and rank of the leftmost best pair. -/
theorem bestPairIndex_eq_some_split (ranks : Ranks) (maxRank : Option Nat) :
    ∀ (k : Nat) (parts : List Bytes) (i s : Nat),
      bestPairIndex ranks maxRank k parts = some (i, s) →
        ∃ (L : List Bytes) (x y : Bytes) (R : List Bytes), parts = L ++ x :: y :: R ∧
          i = k + L.length ∧ IsBestPair ranks maxRank L x y R s
  | _, [], _, _, h => by simp [bestPairIndex] at h
  | _, [_], _, _, h => by simp [bestPairIndex] at h
  | k, a :: b :: rest, i, s, h => by
    have ih := bestPairIndex_eq_some_split ranks maxRank (k + 1) (b :: rest)
    have ext : ∀ j, bestPairIndex ranks maxRank (k + 1) (b :: rest) = some (j, s) →
        (∀ s', allowedRank ranks maxRank (a ++ b) = some s' → s < s') →
        ∃ (L : List Bytes) (x y : Bytes) (R : List Bytes), a :: b :: rest = L ++ x :: y :: R ∧
          j = k + L.length ∧ IsBestPair ranks maxRank L x y R s := by
      intro j hj hab
      obtain ⟨L, x, y, R, hsplit, hjL, h1, h2, h3⟩ := ih j s hj
      refine ⟨a :: L, x, y, R, by rw [hsplit, List.cons_append], by simp only [List.length_cons]; omega,
        h1, ?_, h3⟩
      intro p hp s' hs'
      rcases mem_adjacentPairs_cons_prefix hsplit hp with rfl | hp
      · exact hab s' hs'
      · exact h2 p hp s' hs'
    cases hab : allowedRank ranks maxRank (a ++ b) with
    | none =>
      simp only [bestPairIndex, hab] at h
      exact ext i h (fun s' hs' => by rw [hab] at hs'; cases hs')
    | some r =>
      cases h2 : bestPairIndex ranks maxRank (k + 1) (b :: rest) with
      | none =>
        simp only [bestPairIndex, hab, h2, Option.some.injEq, Prod.mk.injEq] at h
        obtain ⟨h1, h1'⟩ := h
        subst i s
        refine ⟨[], a, b, rest, rfl, by simp, hab, by simp, ?_⟩
        intro p hp s' hs'
        rw [allowedRank_eq_none_of_bestPairIndex ranks maxRank (k + 1) (b :: rest) h2 p hp] at hs'
        cases hs'
      | some q =>
        obtain ⟨j, s2⟩ := q
        simp only [bestPairIndex, hab, h2] at h
        by_cases hlt : s2 < r
        · simp only [hlt, if_true, Option.some.injEq, Prod.mk.injEq] at h
          obtain ⟨h1, h1'⟩ := h
          subst i s
          exact ext j h2 (fun s' hs' => by rw [hab] at hs'; cases hs'; exact hlt)
        · simp only [hlt, if_false, Option.some.injEq, Prod.mk.injEq] at h
          obtain ⟨h1, h1'⟩ := h
          subst i s
          refine ⟨[], a, b, rest, rfl, by simp, hab, by simp, ?_⟩
          obtain ⟨L, x, y, R, hsplit, -, hb⟩ := ih j s2 h2
          intro p hp s' hs'
          rw [hsplit] at hp
          have := le_of_isBestPair hb p hp s' hs'
          omega

/-- The leftmost best pair is what `bestPairIndex` returns. -/
theorem bestPairIndex_of_isBestPair (ranks : Ranks) (maxRank : Option Nat) (x y : Bytes)
    (R : List Bytes) (s : Nat) :
    ∀ (L : List Bytes) (k : Nat), IsBestPair ranks maxRank L x y R s →
      bestPairIndex ranks maxRank k (L ++ x :: y :: R) = some (k + L.length, s)
  | [], k, h => by
    simp only [List.nil_append, List.length_nil, Nat.add_zero]
    cases h2 : bestPairIndex ranks maxRank (k + 1) (y :: R) with
    | none => simp only [bestPairIndex, h.1, h2]
    | some q =>
      obtain ⟨j, s2⟩ := q
      obtain ⟨L', x', y', R', hsplit, -, hb⟩ :=
        bestPairIndex_eq_some_split ranks maxRank _ _ _ _ h2
      have hle : s ≤ s2 :=
        h.2.2 (x', y') (by rw [hsplit]; exact mem_adjacentPairs_of_split L' R' x' y') s2 hb.1
      have hnlt : ¬ s2 < s := by omega
      simp only [bestPairIndex, h.1, h2, hnlt, if_false]
  | [a], k, h => by
    have ih := bestPairIndex_of_isBestPair ranks maxRank x y R s [] (k + 1)
      ⟨h.1, by simp, h.2.2⟩
    simp only [List.nil_append, List.length_nil, Nat.add_zero] at ih
    simp only [List.cons_append, List.nil_append, List.length_cons, List.length_nil,
      Nat.zero_add]
    generalize y :: R = T at ih ⊢
    cases hab : allowedRank ranks maxRank (a ++ x) with
    | none => simp only [bestPairIndex, hab, ih]
    | some r =>
      have hlt : s < r := h.2.1 (a, x) List.mem_cons_self r hab
      simp only [bestPairIndex, hab, ih, hlt, if_true]
  | a :: c :: L, k, h => by
    have ih := bestPairIndex_of_isBestPair ranks maxRank x y R s (c :: L) (k + 1)
      ⟨h.1, fun p hp => h.2.1 p (mem_adjacentPairs_cons a hp), h.2.2⟩
    simp only [List.cons_append] at ih
    have e : k + (a :: c :: L).length = k + 1 + (c :: L).length := by
      simp only [List.length_cons]; omega
    rw [e]
    show bestPairIndex ranks maxRank k (a :: c :: (L ++ x :: y :: R)) = _
    cases hab : allowedRank ranks maxRank (a ++ c) with
    | none => simp only [bestPairIndex, hab, ih]
    | some r =>
      have hlt : s < r := h.2.1 (a, c) List.mem_cons_self r hab
      simp only [bestPairIndex, hab, ih, hlt, if_true]

/-- Without a bound, the same pair is best (the bound only hides pairs of high rank). -/
theorem IsBestPair.unbounded {L : List Bytes} {x y : Bytes} {R : List Bytes} {s : Nat}
    (h : IsBestPair ranks maxRank L x y R s) : IsBestPair ranks none L x y R s := by
  obtain ⟨h1, h2, h3⟩ := h
  have hs := rankOf_of_allowedRank h1
  refine ⟨by rw [allowedRank_none]; exact hs.1, ?_, ?_⟩
  · intro p hp s' hs'
    rw [allowedRank_none] at hs'
    rcases allowedRank_of_rankOf (maxRank := maxRank) hs' with h' | ⟨m, hm, hle⟩
    · exact h2 p hp s' h'
    · have := hs.2 m hm; omega
  · intro p hp s' hs'
    rw [allowedRank_none] at hs'
    rcases allowedRank_of_rankOf (maxRank := maxRank) hs' with h' | ⟨m, hm, hle⟩
    · exact h3 p hp s' h'
    · have := hs.2 m hm; omega

/-! ## One step of the loop -/

/-- One step of `decomposeLoop`: merge the best pair, if there is one. -/
def stepParts (ranks : Ranks) (maxRank : Option Nat) (parts : List Bytes) : List Bytes :=
  match bestPairIndex ranks maxRank 0 parts with
  | none => parts
  | some (i, _) => mergeAt i parts

theorem mergeAt_length_append :
    ∀ (L : List Bytes) (x y : Bytes) (R : List Bytes),
      mergeAt L.length (L ++ x :: y :: R) = L ++ (x ++ y) :: R
  | [], _, _, _ => by simp [mergeAt]
  | a :: L, x, y, R => by simp [mergeAt, mergeAt_length_append L x y R]

theorem stepParts_of_isBestPair {L : List Bytes} {x y : Bytes} {R : List Bytes} {s : Nat}
    (h : IsBestPair ranks maxRank L x y R s) :
    stepParts ranks maxRank (L ++ x :: y :: R) = L ++ (x ++ y) :: R := by
  unfold stepParts
  rw [bestPairIndex_of_isBestPair ranks maxRank x y R s L 0 h, Nat.zero_add]
  exact mergeAt_length_append L x y R

theorem stepParts_of_none {parts : List Bytes} (h : bestPairIndex ranks maxRank 0 parts = none) :
    stepParts ranks maxRank parts = parts := by
  unfold stepParts; rw [h]

/-- A step either changes nothing or removes exactly one part. -/
theorem length_stepParts (ranks : Ranks) (maxRank : Option Nat) (parts : List Bytes) :
    stepParts ranks maxRank parts = parts ∨
      (stepParts ranks maxRank parts).length + 1 = parts.length := by
  cases hb : bestPairIndex ranks maxRank 0 parts with
  | none => exact Or.inl (stepParts_of_none hb)
  | some q =>
    obtain ⟨i, s⟩ := q
    obtain ⟨L, x, y, R, rfl, -, hbest⟩ := bestPairIndex_eq_some_split ranks maxRank 0 _ i s hb
    right
    rw [stepParts_of_isBestPair hbest]
    simp only [List.length_append, List.length_cons]; omega

/-- A step of a bounded loop is a step of the unbounded loop (or no step at all). -/
theorem stepParts_eq_or (ranks : Ranks) (maxRank : Option Nat) (parts : List Bytes) :
    stepParts ranks maxRank parts = parts ∨
      stepParts ranks maxRank parts = stepParts ranks none parts := by
  cases hb : bestPairIndex ranks maxRank 0 parts with
  | none => exact Or.inl (stepParts_of_none hb)
  | some q =>
    obtain ⟨i, s⟩ := q
    obtain ⟨L, x, y, R, rfl, -, hbest⟩ := bestPairIndex_eq_some_split ranks maxRank 0 _ i s hb
    right
    rw [stepParts_of_isBestPair hbest, stepParts_of_isBestPair hbest.unbounded]

end BestPair

/-!
## The decomposition loop as the iteration of one step

`decomposeLoop ranks maxRank n` applies `stepParts` `n` times (`decomposeLoop_succ_step`,
`decomposeLoop_succ_step'`, `decomposeLoop_comp`). Facts about these runs used in
`Bpe.Ranks.Equiv`: a step removes one part or changes nothing, so two states of one run with
the same number of parts are equal (`decomposeLoop_eq_of_length_eq`); enough fuel reaches a
state with no pair left (`bestPairIndex_decomposeLoop`, in `Bpe.Seed.Decompose`), and two such
states of one run are equal; every state of a bounded run is a state of the unbounded run
(`exists_decomposeLoop_unbounded`); every part is a single byte or a token of an allowed
rank (`partsOk_decomposeLoop`).
-/

noncomputable section DecomposeRun
variable {ranks : Ranks} {maxRank : Option Nat}

theorem decomposeLoop_fix {parts : List Bytes} (h : bestPairIndex ranks maxRank 0 parts = none) :
    ∀ n, decomposeLoop ranks maxRank n parts = parts
  | 0 => rfl
  | n + 1 => by simp only [decomposeLoop, h]

theorem decomposeLoop_succ_step (ranks : Ranks) (maxRank : Option Nat) (n : Nat)
    (parts : List Bytes) :
    decomposeLoop ranks maxRank (n + 1) parts =
      decomposeLoop ranks maxRank n (stepParts ranks maxRank parts) := by
  cases hb : bestPairIndex ranks maxRank 0 parts with
  | none =>
    rw [stepParts_of_none hb, decomposeLoop_fix hb, decomposeLoop_fix hb]
  | some q =>
    obtain ⟨i, s⟩ := q
    simp only [decomposeLoop, stepParts, hb]

theorem decomposeLoop_comp (ranks : Ranks) (maxRank : Option Nat) :
    ∀ (m n : Nat) (parts : List Bytes),
      decomposeLoop ranks maxRank (m + n) parts =
        decomposeLoop ranks maxRank m (decomposeLoop ranks maxRank n parts)
  | _, 0, _ => rfl
  | m, n + 1, parts => by
    rw [← Nat.add_assoc, decomposeLoop_succ_step, decomposeLoop_succ_step,
      decomposeLoop_comp ranks maxRank m n]

theorem decomposeLoop_succ_step' (ranks : Ranks) (maxRank : Option Nat) (n : Nat)
    (parts : List Bytes) :
    decomposeLoop ranks maxRank (n + 1) parts =
      stepParts ranks maxRank (decomposeLoop ranks maxRank n parts) := by
  rw [Nat.add_comm, decomposeLoop_comp ranks maxRank 1 n parts]
  exact decomposeLoop_succ_step ranks maxRank 0 _

theorem length_decomposeLoop_le (ranks : Ranks) (maxRank : Option Nat) :
    ∀ (n : Nat) (parts : List Bytes), (decomposeLoop ranks maxRank n parts).length ≤ parts.length
  | 0, _ => Nat.le_refl _
  | n + 1, parts => by
    rw [decomposeLoop_succ_step]
    have := length_decomposeLoop_le ranks maxRank n (stepParts ranks maxRank parts)
    rcases length_stepParts ranks maxRank parts with h | h
    · rw [h] at this ⊢; exact this
    · omega

/-- A run that keeps the number of parts has not moved. -/
theorem decomposeLoop_eq_self_of_length (ranks : Ranks) (maxRank : Option Nat) :
    ∀ (n : Nat) (parts : List Bytes),
      (decomposeLoop ranks maxRank n parts).length = parts.length →
        decomposeLoop ranks maxRank n parts = parts
  | 0, _, _ => rfl
  | n + 1, parts, h => by
    rw [decomposeLoop_succ_step] at h ⊢
    rcases length_stepParts ranks maxRank parts with h1 | h1
    · rw [h1] at h ⊢; exact decomposeLoop_eq_self_of_length ranks maxRank n parts h
    · have := length_decomposeLoop_le ranks maxRank n (stepParts ranks maxRank parts)
      omega

/-- Two states of one run with the same number of parts are equal. -/
theorem decomposeLoop_eq_of_length_eq (ranks : Ranks) (maxRank : Option Nat) (j k : Nat)
    (parts : List Bytes)
    (h : (decomposeLoop ranks maxRank j parts).length =
      (decomposeLoop ranks maxRank k parts).length) :
    decomposeLoop ranks maxRank j parts = decomposeLoop ranks maxRank k parts := by
  rcases Nat.le_total j k with hjk | hjk
  · obtain ⟨d, rfl⟩ := Nat.exists_eq_add_of_le hjk
    rw [Nat.add_comm, decomposeLoop_comp] at h ⊢
    exact (decomposeLoop_eq_self_of_length ranks maxRank d _ h.symm).symm
  · obtain ⟨d, rfl⟩ := Nat.exists_eq_add_of_le hjk
    rw [Nat.add_comm, decomposeLoop_comp] at h ⊢
    exact decomposeLoop_eq_self_of_length ranks maxRank d _ h

/-- Two states of one run with no pair left are equal. -/
theorem decomposeLoop_eq_of_none (ranks : Ranks) (maxRank : Option Nat) (j k : Nat)
    (parts : List Bytes)
    (hj : bestPairIndex ranks maxRank 0 (decomposeLoop ranks maxRank j parts) = none)
    (hk : bestPairIndex ranks maxRank 0 (decomposeLoop ranks maxRank k parts) = none) :
    decomposeLoop ranks maxRank j parts = decomposeLoop ranks maxRank k parts := by
  rcases Nat.le_total j k with hjk | hjk
  · obtain ⟨d, rfl⟩ := Nat.exists_eq_add_of_le hjk
    rw [Nat.add_comm, decomposeLoop_comp, decomposeLoop_fix hj]
  · obtain ⟨d, rfl⟩ := Nat.exists_eq_add_of_le hjk
    rw [Nat.add_comm, decomposeLoop_comp, decomposeLoop_fix hk]

/-- Every state of a bounded run is a state of the unbounded run. -/
theorem exists_decomposeLoop_unbounded (ranks : Ranks) (maxRank : Option Nat)
    (parts : List Bytes) :
    ∀ n, ∃ k, decomposeLoop ranks maxRank n parts = decomposeLoop ranks none k parts
  | 0 => ⟨0, rfl⟩
  | n + 1 => by
    obtain ⟨k, hk⟩ := exists_decomposeLoop_unbounded ranks maxRank parts n
    rw [decomposeLoop_succ_step', hk]
    rcases stepParts_eq_or ranks maxRank (decomposeLoop ranks none k parts) with h | h
    · exact ⟨k, h⟩
    · exact ⟨k + 1, by rw [h, decomposeLoop_succ_step']⟩

/-- Every part is a single byte, or a token of two or more bytes with an allowed rank. -/
def PartsOk (ranks : Ranks) (maxRank : Option Nat) (parts : List Bytes) : Prop :=
  ∀ p ∈ parts, p.length = 1 ∨ (2 ≤ p.length ∧ ∃ r, allowedRank ranks maxRank p = some r)

theorem partsOk_stepParts {parts : List Bytes} (h : PartsOk ranks maxRank parts) :
    PartsOk ranks maxRank (stepParts ranks maxRank parts) := by
  cases hb : bestPairIndex ranks maxRank 0 parts with
  | none => rw [stepParts_of_none hb]; exact h
  | some q =>
    obtain ⟨i, s⟩ := q
    obtain ⟨L, x, y, R, rfl, -, hbest⟩ := bestPairIndex_eq_some_split ranks maxRank 0 _ i s hb
    rw [stepParts_of_isBestPair hbest]
    intro p hp
    simp only [List.mem_append, List.mem_cons] at hp
    have hx : 1 ≤ x.length := by rcases h x (by simp) with h' | ⟨h', -⟩ <;> omega
    have hy : 1 ≤ y.length := by rcases h y (by simp) with h' | ⟨h', -⟩ <;> omega
    rcases hp with hp | rfl | hp
    · exact h p (by simp [hp])
    · right
      refine ⟨?_, s, hbest.1⟩
      simp only [List.length_append]
      omega
    · exact h p (by simp [hp])

theorem partsOk_decomposeLoop {parts : List Bytes} (h : PartsOk ranks maxRank parts) :
    ∀ n, PartsOk ranks maxRank (decomposeLoop ranks maxRank n parts)
  | 0 => h
  | n + 1 => by
    rw [decomposeLoop_succ_step']
    exact partsOk_stepParts (partsOk_decomposeLoop h n)

theorem partsOk_singles (ranks : Ranks) (maxRank : Option Nat) (w : Bytes) :
    PartsOk ranks maxRank (w.map fun c => [c]) := by
  intro p hp
  obtain ⟨c, -, rfl⟩ := List.mem_map.mp hp
  exact Or.inl rfl

end DecomposeRun

/-!
## Locality of the merge loop, and why every merge is a recorded decomposition

Step 1 and 2 of the proof route of issue 14.
`exists_decomposeLoop_infix` (locality): take any state of a run of the loop from the single
bytes of a piece, and any run of consecutive parts `B` of it. Then `B` is a state of the run of
the loop on `B`'s bytes alone. A merge inside `B` was the leftmost lowest pair of the whole
list, so also of `B`'s window; merges outside `B` do not touch it.
`decomposeToken_eq_pair` (every merge is recorded): under condition C (a token `t` of rank `s`
with two or more bytes decomposes into exactly two parts with the ranks below `s`), if two
adjacent parts `x, y` of any state concatenate to a token of rank `s`, then the decomposition
of `x ++ y` below `s` is exactly `[x, y]`. Both lists are states of the unbounded run on
`x ++ y` with two parts, and two states of one run with as many parts are equal.
-/

noncomputable section RanksLocality
variable {ranks : Ranks} {maxRank : Option Nat}

/-- A list of one-byte parts is the single bytes of its concatenation. -/
theorem eq_map_singleton_flatten :
    ∀ B : List Bytes, (∀ p ∈ B, ∃ c, p = [c]) → B = B.flatten.map (fun c => [c])
  | [], _ => rfl
  | p :: B, h => by
    obtain ⟨c, rfl⟩ := h p List.mem_cons_self
    have ih := eq_map_singleton_flatten B (fun q hq => h q (List.mem_cons_of_mem _ hq))
    simp only [List.flatten_cons, List.singleton_append, List.map_cons]
    rw [← ih]

/-- **Locality**: consecutive parts of a state of a run are a state of the run on their
bytes alone. -/
theorem exists_decomposeLoop_infix (ranks : Ranks) (maxRank : Option Nat) (w : Bytes) :
    ∀ (n : Nat) (A B C : List Bytes),
      decomposeLoop ranks maxRank n (w.map fun c => [c]) = A ++ B ++ C →
        ∃ k, B = decomposeLoop ranks maxRank k (B.flatten.map fun c => [c])
  | 0, A, B, C, h => by
    refine ⟨0, eq_map_singleton_flatten B ?_⟩
    intro p hp
    have hp' : p ∈ w.map fun c => [c] := by
      have h' : w.map (fun c => [c]) = A ++ B ++ C := h
      rw [h']; simp [hp]
    obtain ⟨c, -, rfl⟩ := List.mem_map.mp hp'
    exact ⟨c, rfl⟩
  | n + 1, A, B, C, h => by
    have ih := exists_decomposeLoop_infix ranks maxRank w n
    rw [decomposeLoop_succ_step'] at h
    cases hb : bestPairIndex ranks maxRank 0 (decomposeLoop ranks maxRank n (w.map fun c => [c]))
      with
    | none =>
      rw [stepParts_of_none hb] at h
      exact ih A B C h
    | some q =>
      obtain ⟨i, s⟩ := q
      obtain ⟨L, x, y, R, hQ, -, hbest⟩ := bestPairIndex_eq_some_split ranks maxRank 0 _ i s hb
      rw [hQ, stepParts_of_isBestPair hbest] at h
      rcases append_cons_eq_append3 h with ⟨A2, rfl, rfl⟩ | ⟨B1, B2, rfl, rfl, rfl⟩ |
          ⟨C1, rfl, rfl⟩
      · exact ih (L ++ x :: y :: A2) B C (by rw [hQ]; simp)
      · obtain ⟨k, hk⟩ := ih A (B1 ++ x :: y :: B2) C (by rw [hQ]; simp)
        have hwin : IsBestPair ranks maxRank B1 x y B2 s := by
          refine ⟨hbest.1, ?_, ?_⟩
          · intro p hp s' hs'
            have hp' := mem_adjacentPairs_append_left A hp
            rw [← List.append_assoc] at hp'
            exact hbest.2.1 p hp' s' hs'
          · intro p hp s' hs'
            have hp' : p ∈ adjacentPairs (y :: (B2 ++ C)) := mem_adjacentPairs_append_right C hp
            exact hbest.2.2 p hp' s' hs'
        refine ⟨k + 1, ?_⟩
        have hflat : (B1 ++ (x ++ y) :: B2).flatten = (B1 ++ x :: y :: B2).flatten := by simp
        rw [hflat, decomposeLoop_succ_step', ← hk, stepParts_of_isBestPair hwin]
      · exact ih A B (C1 ++ x :: y :: R) (by rw [hQ]; simp)

/-- **Every merge is a recorded decomposition** (under condition C): two adjacent parts of any
state whose concatenation is a token of rank `s` are its decomposition below `s`. -/
theorem decomposeToken_eq_pair
    (hC : ∀ t r, rankOf ranks t = some r → 2 ≤ t.length →
      (decomposeToken ranks t (some r)).length = 2)
    {w : Bytes} {n : Nat} {A C : List Bytes} {x y : Bytes} {s : Nat}
    (h : decomposeLoop ranks maxRank n (w.map fun c => [c]) = A ++ x :: y :: C)
    (hs : rankOf ranks (x ++ y) = some s) :
    decomposeToken ranks (x ++ y) (some s) = [x, y] := by
  obtain ⟨k, hk⟩ := exists_decomposeLoop_infix ranks maxRank w n A [x, y] C
    (by rw [h]; simp)
  have hflat : [x, y].flatten = x ++ y := by simp
  rw [hflat] at hk
  obtain ⟨k1, hk1⟩ := exists_decomposeLoop_unbounded ranks maxRank
    ((x ++ y).map fun c => [c]) k
  obtain ⟨k2, hk2⟩ := exists_decomposeLoop_unbounded ranks (some s)
    ((x ++ y).map fun c => [c]) (x ++ y).length
  have hlen : 2 ≤ (x ++ y).length := by
    have := length_decomposeLoop_le ranks maxRank k ((x ++ y).map fun c => [c])
    rw [← hk] at this
    simpa using this
  have h2 := hC (x ++ y) s hs hlen
  unfold decomposeToken at h2 ⊢
  rw [hk2] at h2 ⊢
  rw [hk1] at hk
  rw [hk]
  have h3 : (decomposeLoop ranks none k1 ((x ++ y).map fun c => [c])).length = 2 := by
    simp only [← hk, List.length_cons, List.length_nil]
  apply decomposeLoop_eq_of_length_eq
  rw [h2, h3]

end RanksLocality

end Bpe
