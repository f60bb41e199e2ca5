"""A rank table as a balanced binary search tree over byte strings coded as numbers.

Lean: ``Bpe.Ranks.Tree``.  :func:`key_of` is ``Bpe.keyOf`` (the bytes as base-256 digits, the
first byte the least significant, under a leading digit 1); :func:`rank_tree` is
``Bpe.rankTree``: the ``(key, rank)`` pairs sorted by key, the middle pair (index
``len // 2``) at the root, each half built the same way.  A tree is ``None`` (Lean's ``leaf``)
or ``(key, rank, left, right)`` (``node``); :func:`find` is ``RankTree.find``.  Lean's fuel
arguments are kept (``build``, ``merge_keys``, ``sort_keys``), with the fuel Lean passes.
"""

from __future__ import annotations

from collections.abc import Sequence

RankTree = tuple[int, int, "RankTree", "RankTree"] | None
Keyed = list[tuple[int, int]]


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


def beq(a: RankTree, b: RankTree) -> bool:
    """Lean's ``RankTree.beq``: structural equality of two trees."""
    return a == b


def build(fuel: int, pairs: Keyed) -> RankTree:
    """Lean's ``RankTree.build`` on a list sorted by key: the middle pair at the root."""
    if fuel == 0:
        return None
    mid = len(pairs) // 2
    if mid >= len(pairs):
        return None
    key, rank = pairs[mid]
    return (key, rank, build(fuel - 1, pairs[:mid]), build(fuel - 1, pairs[mid + 1 :]))


def merge_keys(fuel: int, xs: Keyed, ys: Keyed) -> Keyed:
    """Lean's ``mergeKeys``: merge two lists sorted by key (on equal keys ``xs`` first)."""
    out: Keyed = []
    i = j = 0
    while fuel > 0 and i < len(xs) and j < len(ys):
        if ys[j][0] < xs[i][0]:
            out.append(ys[j])
            j += 1
        else:
            out.append(xs[i])
            i += 1
        fuel -= 1
    return out + xs[i:] + ys[j:]


def sort_keys(fuel: int, pairs: Keyed) -> Keyed:
    """Lean's ``sortKeys``: merge sort by key (stable)."""
    if fuel == 0 or len(pairs) < 2:
        return pairs
    mid = len(pairs) // 2
    return merge_keys(
        len(pairs), sort_keys(fuel - 1, pairs[:mid]), sort_keys(fuel - 1, pairs[mid:])
    )


def keys_strict(pairs: Keyed) -> bool:
    """Lean's ``keysStrict``: consecutive keys strictly increase."""
    return all(a[0] < b[0] for a, b in zip(pairs, pairs[1:], strict=False))


def keyed_ranks(entries: Sequence[tuple[bytes, int]]) -> Keyed:
    """Lean's ``keyedRanks``: the table as ``(key, rank)`` pairs, in table order."""
    return [(key_of(t), r) for t, r in entries]


def sorted_keys(entries: Sequence[tuple[bytes, int]]) -> Keyed:
    """Lean's ``sortedKeys``: the keyed table sorted by key."""
    return sort_keys(len(entries), keyed_ranks(entries))


def rank_tree(entries: Sequence[tuple[bytes, int]]) -> RankTree:
    """Lean's ``rankTree``: key every entry, sort by key, build."""
    entries = list(entries)
    return build(len(entries), sorted_keys(entries))


def check_rank_tree(entries: Sequence[tuple[bytes, int]], tree: RankTree) -> bool:
    """Lean's ``checkRankTree``: no byte string listed twice, and ``tree`` is the table's
    search tree (then ``look_tree tree t`` answers as ``rank_of``: Lean's ``lookTree_eq``)."""
    return keys_strict(sorted_keys(entries)) and beq(rank_tree(entries), tree)


def look_tree(tree: RankTree, token: bytes) -> int | None:
    """Lean's ``lookTree``: the rank of a byte string, looked up in a search tree."""
    return find(tree, key_of(token))
