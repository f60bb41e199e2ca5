"""A rank table as a balanced binary search tree over byte strings coded as numbers.

Lean: ``Bpe.RankTree``.  :func:`key_of` is ``Bpe.keyOf`` (the bytes as base-256 digits, the
first byte the least significant, under a leading digit 1); :func:`rank_tree` is
``Bpe.rankTree``: the ``(key, rank)`` pairs sorted by key, the middle pair (index
``len // 2``) at the root, each half built the same way.  A tree is ``None`` (Lean's ``leaf``)
or ``(key, rank, left, right)`` (``node``); :func:`find` is ``RankTree.find``.
"""

from __future__ import annotations

from collections.abc import Iterable

RankTree = tuple[int, int, "RankTree", "RankTree"] | None


def key_of(token: bytes) -> int:
    """Lean's ``keyOf``: ``keyOf [] = 1``, ``keyOf (b :: t) = keyOf t * 256 + b``."""
    key = 1
    for b in reversed(token):
        key = key * 256 + b
    return key


def find(tree: RankTree, key: int) -> int | None:
    """Lean's ``RankTree.find``."""
    while tree is not None:
        k, r, left, right = tree
        if key < k:
            tree = left
        elif k < key:
            tree = right
        else:
            return r
    return None


def build(pairs: list[tuple[int, int]]) -> RankTree:
    """Lean's ``RankTree.build`` on a list sorted by key."""
    if not pairs:
        return None
    mid = len(pairs) // 2
    key, rank = pairs[mid]
    return (key, rank, build(pairs[:mid]), build(pairs[mid + 1 :]))


def rank_tree(entries: Iterable[tuple[bytes, int]]) -> RankTree:
    """Lean's ``rankTree``: key every entry, sort by key, build."""
    return build(sorted((key_of(t), r) for t, r in entries))
