module

/-!
# Sets of code points as balanced decision trees over ranges

A Unicode character class (`\p{L}`, `\s`, …) is a few hundred inclusive ranges of code points.
`RangeTree` stores them as a binary search tree: each node holds one range `[lo, hi]`, its left
subtree the ranges below `lo`, its right subtree the ranges above `hi`. `RangeTree.contains`
walks from the root, comparing the code point with the node's two bounds, so a lookup costs
one path (about `log₂` of the number of ranges, 10 steps for 650 ranges). It is structural
recursion on the tree, so the kernel evaluates it (`decide +kernel`) without ever enumerating
code points.

The trees of `Bpe.Unicode.Tables` are generated (`python -m verified_bpe.verify.unicode_gen`) from
sorted, disjoint ranges, with the middle range (index `n / 2`) at the root and each half built
the same way; Python's `verified_bpe.spec.unicode.range_tree.contains` is the binary search that
makes exactly the same comparisons.
-/

@[expose] public section
noncomputable section

namespace Bpe

/-- A binary search tree of inclusive code-point ranges. -/
inductive RangeTree where
  /-- No code point. -/
  | leaf : RangeTree
  /-- The range `[lo, hi]`; `left` holds the ranges below `lo`, `right` those above `hi`. -/
  | node (lo hi : Nat) (left right : RangeTree) : RangeTree

namespace RangeTree

/-- Whether `c` lies in a range of the tree, searching from the root: below the node's range go
left, above it go right, otherwise `c` is in the node's range. -/
def contains : RangeTree → Nat → Bool
  | leaf, _ => false
  | node lo hi left right, c =>
    if c < lo then left.contains c else if hi < c then right.contains c else true

@[simp] theorem contains_leaf (c : Nat) : leaf.contains c = false := rfl

@[simp] theorem contains_node (lo hi : Nat) (left right : RangeTree) (c : Nat) :
    (node lo hi left right).contains c =
      if c < lo then left.contains c else if hi < c then right.contains c else true := rfl

end RangeTree

end Bpe
