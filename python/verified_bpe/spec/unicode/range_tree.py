"""Membership in a set of code points given as sorted, disjoint ranges.

Lean: ``Bpe.Unicode.RangeTree``.  Lean stores the ranges as a balanced binary search tree whose root
is the middle range (index ``len // 2``) and whose subtrees are built the same way from the
two halves; :func:`contains` is the binary search over the sorted tuple that visits exactly
the ranges that Lean's ``RangeTree.contains`` visits, in the same order, with the same two
comparisons per step.  A range is a pair ``(lo, hi)`` with ``lo <= hi``, both inclusive.
"""

from __future__ import annotations

Ranges = tuple[tuple[int, int], ...]


def contains(ranges: Ranges, cp: int) -> bool:
    """Whether ``lo <= cp <= hi`` for some range of the sorted tuple ``ranges``.

    Lean: ``Bpe.Unicode.RangeTree.contains`` (on the tree the generator builds from ``ranges``).
    """
    lo, hi = 0, len(ranges)
    while lo < hi:
        mid = (lo + hi) // 2
        first, last = ranges[mid]
        if cp < first:
            hi = mid
        elif last < cp:
            lo = mid + 1
        else:
            return True
    return False
