module

public import Bpe.Ranks.Basic

/-!
# A search tree for a rank table, proven to answer as `rankOf`

`rankOf` walks the rank table and compares byte lists; on a table of 1,000 ranks the kernel
spends most of a `checkRanks` evaluation there. This module codes byte strings as numbers
(`keyOf`, injective: `keyOf_inj`) and stores the table in a balanced binary search tree over
those numbers (`RankTree`), so that a lookup (`lookTree`) costs one key computation and about
`log₂ n` comparisons of numbers (which the kernel does with GMP).

The tree of a table is computed by the kernel: key every entry (`keyedRanks`), sort by key
(`sortKeys`, a merge sort on a fuel), build the tree with the middle entry at the root
(`RankTree.build`). `checkRankTree ranks tree` tests that the sorted keys strictly increase (no
byte string twice) and that `tree` is that tree, so a generated module can write the tree once
as a literal and check it with one kernel evaluation. **`lookTree_eq`**: if
`checkRankTree ranks tree = true`, then `lookTree tree t = rankOf ranks t` for every byte
string `t`.
-/

@[expose] public section
noncomputable section

namespace Bpe

/-! ## Byte strings as numbers -/

/-- A byte string as a number: its bytes are the base-256 digits, the first byte the least
significant, under a leading digit 1 (so that `[]`, `[0]`, `[0, 0]` differ). -/
def keyOf : Bytes → Nat
  | [] => 1
  | b :: t => keyOf t * 256 + b.toNat

@[simp] theorem keyOf_nil : keyOf [] = 1 := rfl

@[simp] theorem keyOf_cons (b : UInt8) (t : Bytes) :
    keyOf (b :: t) = keyOf t * 256 + b.toNat := rfl

theorem keyOf_pos : ∀ t : Bytes, 0 < keyOf t
  | [] => Nat.one_pos
  | b :: t => by
    have := keyOf_pos t
    rw [keyOf_cons]
    omega

/-- Different byte strings have different keys. -/
theorem keyOf_inj : ∀ {s t : Bytes}, keyOf s = keyOf t → s = t
  | [], [], _ => rfl
  | [], b :: t, h => by
    have := keyOf_pos t
    rw [keyOf_nil, keyOf_cons] at h
    omega
  | a :: s, [], h => by
    have := keyOf_pos s
    rw [keyOf_nil, keyOf_cons] at h
    omega
  | a :: s, b :: t, h => by
    have ha : a.toNat < 256 := a.toBitVec.isLt
    have hb : b.toNat < 256 := b.toBitVec.isLt
    rw [keyOf_cons, keyOf_cons] at h
    have h1 : a.toNat = b.toNat := by omega
    have h2 : keyOf s = keyOf t := by omega
    rw [UInt8.toNat_inj.mp h1, keyOf_inj h2]

/-! ## The tree -/

/-- A binary search tree from keys to ranks: `left` holds the keys below `key`, `right` those
above. -/
inductive RankTree where
  /-- No key. -/
  | leaf : RankTree
  /-- The key `key` with its rank. -/
  | node (key rank : Nat) (left right : RankTree) : RankTree

namespace RankTree

/-- The rank stored under `k`, searching from the root. -/
def find : RankTree → Nat → Option Nat
  | leaf, _ => none
  | node key rank left right, k =>
    if k < key then left.find k else if key < k then right.find k else some rank

@[simp] theorem find_leaf (k : Nat) : leaf.find k = none := rfl

@[simp] theorem find_node (key rank : Nat) (left right : RankTree) (k : Nat) :
    (node key rank left right).find k =
      if k < key then left.find k else if key < k then right.find k else some rank := rfl

/-- Equality of trees, as a Boolean (for the kernel). -/
def beq : RankTree → RankTree → Bool
  | leaf, leaf => true
  | node k r left right, node k' r' left' right' =>
    k == k' && r == r' && beq left left' && beq right right'
  | _, _ => false

theorem eq_of_beq : ∀ {a b : RankTree}, a.beq b = true → a = b
  | leaf, leaf, _ => rfl
  | leaf, node .., h => by simp [beq] at h
  | node .., leaf, h => by simp [beq] at h
  | node k r left right, node k' r' left' right', h => by
    simp only [beq, Bool.and_eq_true, beq_iff_eq] at h
    obtain ⟨⟨⟨rfl, rfl⟩, hl⟩, hr⟩ := h
    rw [eq_of_beq hl, eq_of_beq hr]

/-- The balanced tree of a list sorted by key: the middle entry (index `length / 2`) at the
root, the entries before it on the left, those after it on the right (fuel: the length). -/
def build : Nat → List (Nat × Nat) → RankTree
  | 0, _ => leaf
  | fuel + 1, l =>
    match l.drop (l.length / 2) with
    | [] => leaf
    | (k, r) :: right => node k r (build fuel (l.take (l.length / 2))) (build fuel right)

end RankTree

/-! ## Sorting by key -/

/-- Merge two lists sorted by key (fuel: the total length). -/
def mergeKeys : Nat → List (Nat × Nat) → List (Nat × Nat) → List (Nat × Nat)
  | 0, xs, ys => xs ++ ys
  | _ + 1, [], ys => ys
  | _ + 1, x :: xs, [] => x :: xs
  | fuel + 1, x :: xs, y :: ys =>
    if y.1 < x.1 then y :: mergeKeys fuel (x :: xs) ys else x :: mergeKeys fuel xs (y :: ys)

/-- Merge sort by key (fuel: the length bounds the recursion depth). -/
def sortKeys : Nat → List (Nat × Nat) → List (Nat × Nat)
  | 0, l => l
  | fuel + 1, l =>
    if l.length < 2 then l
    else
      mergeKeys l.length (sortKeys fuel (l.take (l.length / 2)))
        (sortKeys fuel (l.drop (l.length / 2)))

/-- Consecutive keys strictly increase. -/
def keysStrict : List (Nat × Nat) → Bool
  | a :: b :: rest => a.1 < b.1 && keysStrict (b :: rest)
  | _ => true

theorem mergeKeys_perm : ∀ (fuel : Nat) (xs ys : List (Nat × Nat)),
    (mergeKeys fuel xs ys).Perm (xs ++ ys)
  | 0, _, _ => List.Perm.refl _
  | _ + 1, [], ys => List.Perm.of_eq (by simp [mergeKeys])
  | _ + 1, _ :: _, [] => List.Perm.of_eq (by simp [mergeKeys])
  | fuel + 1, x :: xs, y :: ys => by
    simp only [mergeKeys]
    split
    · exact ((mergeKeys_perm fuel (x :: xs) ys).cons y).trans List.perm_middle.symm
    · exact (mergeKeys_perm fuel xs (y :: ys)).cons x

theorem sortKeys_perm : ∀ (fuel : Nat) (l : List (Nat × Nat)), (sortKeys fuel l).Perm l
  | 0, _ => List.Perm.refl _
  | fuel + 1, l => by
    simp only [sortKeys]
    split
    · exact List.Perm.refl _
    · refine (mergeKeys_perm _ _ _).trans ?_
      refine ((sortKeys_perm fuel _).append (sortKeys_perm fuel _)).trans ?_
      exact List.Perm.of_eq (List.take_append_drop _ _)

theorem pairwise_of_keysStrict : ∀ l : List (Nat × Nat), keysStrict l = true →
    l.Pairwise (fun a b => a.1 < b.1)
  | [], _ => List.Pairwise.nil
  | [_], _ => List.pairwise_singleton _ _
  | a :: b :: rest, h => by
    simp only [keysStrict, Bool.and_eq_true, decide_eq_true_eq] at h
    have ih := pairwise_of_keysStrict (b :: rest) h.2
    refine List.Pairwise.cons ?_ ih
    intro x hx
    rcases List.mem_cons.mp hx with rfl | hx
    · exact h.1
    · exact Nat.lt_trans h.1 (List.rel_of_pairwise_cons ih hx)

/-! ## Lookups -/

theorem lookup_eq_none_of_ne {k : Nat} {l : List (Nat × Nat)} (h : ∀ e ∈ l, e.1 ≠ k) :
    l.lookup k = none :=
  List.lookup_eq_none_iff.mpr fun e he => by
    simp only [bne_iff_ne, ne_eq]
    exact fun hk => h e he hk.symm

/-- On a list whose keys strictly increase, the tree built from it answers as `List.lookup`. -/
theorem RankTree.find_build : ∀ (fuel : Nat) (l : List (Nat × Nat)), l.length ≤ fuel →
    l.Pairwise (fun a b => a.1 < b.1) → ∀ k, (RankTree.build fuel l).find k = l.lookup k
  | 0, l, hl, _, k => by
    have : l = [] := List.eq_nil_of_length_eq_zero (by omega)
    subst this
    rfl
  | fuel + 1, l, hl, hp, k => by
    simp only [RankTree.build]
    split
    next hd =>
      have h0 := congrArg List.length hd
      rw [List.length_drop, List.length_nil] at h0
      have : l = [] := List.eq_nil_of_length_eq_zero (by omega)
      subst this
      rfl
    next k0 r0 right hd =>
      have hsplit := List.take_append_drop (l.length / 2) l
      rw [hd] at hsplit
      obtain ⟨A, hA⟩ : ∃ A, l.take (l.length / 2) = A := ⟨_, rfl⟩
      rw [hA] at hsplit ⊢
      subst hsplit
      simp only [List.length_append, List.length_cons] at hl
      rw [List.pairwise_append, List.pairwise_cons] at hp
      obtain ⟨hpl, ⟨hk0, hpr⟩, hlr⟩ := hp
      have hA : ∀ a ∈ A, a.1 < k0 := fun a ha => hlr a ha (k0, r0) List.mem_cons_self
      rw [RankTree.find_node, RankTree.find_build fuel A (by omega) hpl k,
        RankTree.find_build fuel right (by omega) hpr k,
        List.lookup_append]
      by_cases h1 : k < k0
      · rw [if_pos h1, lookup_eq_none_of_ne (l := (k0, r0) :: right), Option.or_none]
        intro e he
        rcases List.mem_cons.mp he with rfl | he
        · show k0 ≠ k
          omega
        · have : k0 < e.1 := hk0 e he
          omega
      · rw [if_neg h1, lookup_eq_none_of_ne (l := A), Option.none_or]
        · by_cases h2 : k0 < k
          · rw [if_pos h2, lookup_cons_ne (k := k0) (i := k) r0 right (by omega)]
          · rw [if_neg h2, (by omega : k = k0), List.lookup_cons_self]
        · intro a ha
          have := hA a ha
          omega

/-- On lists whose keys strictly increase, `List.lookup` is the same in any permutation. -/
theorem lookup_eq_of_perm_of_pairwise {S L : List (Nat × Nat)}
    (hS : S.Pairwise (fun a b => a.1 < b.1)) (hp : S.Perm L) (k : Nat) :
    S.lookup k = L.lookup k := by
  refine lookup_eq_of_perm hp ?_ k
  unfold List.Nodup
  rw [List.pairwise_map]
  exact hS.imp fun h => Nat.ne_of_lt h

/-! ## The tree of a rank table -/

/-- The table as `(key, rank)` pairs, in table order. -/
def keyedRanks (ranks : Ranks) : List (Nat × Nat) := ranks.map fun e => (keyOf e.1, e.2)

/-- The keyed table sorted by key. -/
def sortedKeys (ranks : Ranks) : List (Nat × Nat) := sortKeys ranks.length (keyedRanks ranks)

/-- The balanced search tree of a rank table. -/
def rankTree (ranks : Ranks) : RankTree := RankTree.build ranks.length (sortedKeys ranks)

/-- `tree` is the search tree of `ranks`, and no byte string is listed twice (the sorted keys
strictly increase). -/
def checkRankTree (ranks : Ranks) (tree : RankTree) : Bool :=
  keysStrict (sortedKeys ranks) && (rankTree ranks).beq tree

/-- The rank of a byte string, looked up in a search tree. -/
def lookTree (tree : RankTree) (t : Bytes) : Option Nat := tree.find (keyOf t)

theorem lookup_keyedRanks (t : Bytes) : ∀ ranks : Ranks,
    (keyedRanks ranks).lookup (keyOf t) = rankOf ranks t
  | [] => rfl
  | (s, r) :: ranks => by
    have ih := lookup_keyedRanks t ranks
    simp only [keyedRanks, List.map_cons] at ih ⊢
    rw [rankOf_cons]
    by_cases h : t = s
    · subst h
      rw [List.lookup_cons_self, if_pos rfl]
    · rw [lookup_cons_ne (k := keyOf s) (i := keyOf t) r _ (fun hk => h (keyOf_inj hk)),
        if_neg h, ih]

/-- **The tree answers as the table**: if `checkRankTree ranks tree = true`, looking a byte
string up in `tree` gives its rank in `ranks` (`none` if it has none). -/
theorem lookTree_eq {ranks : Ranks} {tree : RankTree} (h : checkRankTree ranks tree = true)
    (t : Bytes) : lookTree tree t = rankOf ranks t := by
  simp only [checkRankTree, Bool.and_eq_true] at h
  obtain ⟨hs, hb⟩ := h
  have hp := pairwise_of_keysStrict _ hs
  have hperm : (sortedKeys ranks).Perm (keyedRanks ranks) := sortKeys_perm _ _
  have hlen : (sortedKeys ranks).length ≤ ranks.length := by
    rw [hperm.length_eq]
    simp [keyedRanks]
  rw [← RankTree.eq_of_beq hb, ← lookup_keyedRanks t ranks,
    ← lookup_eq_of_perm_of_pairwise hp hperm]
  exact RankTree.find_build _ _ hlen hp _

end Bpe
