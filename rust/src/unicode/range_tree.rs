//! Membership in a set of code points given as sorted, disjoint, inclusive ranges.
//!
//! Lean: `Bpe.Unicode.RangeTree`; Python mirror: `verified_bpe.spec.unicode.range_tree`.
//! Lean stores the ranges as a balanced binary search tree whose root is the middle range
//! (index `len / 2`); [`contains`] is the binary search over the sorted slice that visits the
//! same ranges in the same order, with the same two comparisons per step.

/// Sorted, disjoint, inclusive `(lo, hi)` ranges of code points.
pub type Ranges = &'static [(u32, u32)];

/// Whether `lo <= cp <= hi` for some range of `ranges`.  Lean: `Bpe.Unicode.RangeTree.contains`.
pub fn contains(ranges: Ranges, cp: u32) -> bool {
    let (mut lo, mut hi) = (0usize, ranges.len());
    while lo < hi {
        let mid = (lo + hi) / 2;
        let (first, last) = ranges[mid];
        if cp < first {
            hi = mid;
        } else if last < cp {
            lo = mid + 1;
        } else {
            return true;
        }
    }
    false
}

/// The ASCII part of `ranges` as a bit mask (bit `c` set iff `contains(ranges, c)`), computed
/// at compile time from the same ranges: the class functions answer code points below 128
/// from it without a search (an implementation shortcut with the same answers, no Lean
/// counterpart; `tests/test_native.py` compares every code point with the Python tables).
pub const fn ascii_mask(ranges: Ranges) -> u128 {
    let mut mask: u128 = 0;
    let mut k = 0;
    while k < ranges.len() {
        let (lo, hi) = ranges[k];
        let mut c = lo;
        while c <= hi && c < 128 {
            mask |= 1u128 << c;
            c += 1;
        }
        k += 1;
    }
    mask
}
