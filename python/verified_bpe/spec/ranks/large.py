"""tiktoken's large-piece merge (``_byte_pair_merge_large``): a heap of ``(rank, start)``
entries with lazy invalidation, and tiktoken 0.14's choice of merge loop by piece length.

Lean: ``Bpe.Ranks.Large`` (``Bpe.Ranks.Large.bytePairMergeLarge_eq_bytePairMerge``: the heap
loop returns the parts of ``byte_pair_merge`` for every rank table, so
``encode_piece_ranks_by_size`` is ``encode_piece_ranks``).  A state is a list of
``(start, part)``; a heap is a list of ``(rank, start)`` entries (Python's tuple order is the
heap order, Lean ``entryLt``).  The Lean loops are recursions; here they are ``while`` loops
that take the same steps.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..seed.decompose import rank_of
from ..seed.utf8 import string_bytes
from .basic import RankTable, byte_pair_merge

State = list[tuple[int, bytes]]
Heap = list[tuple[int, int]]

#: tiktoken's threshold: pieces of at least this many bytes go through the heap
#: (Lean ``largePieceThreshold``).
LARGE_PIECE_THRESHOLD = 100


def init_state(i: int, bs: bytes) -> State:
    """Every byte is a part, its start is its offset plus ``i``.  Lean: ``initState``."""
    return [(i + k, bs[k : k + 1]) for k in range(len(bs))]


def pair_entry(ranks: RankTable, s: int, a: bytes, b: bytes) -> Heap:
    """``[(rank, s)]`` if ``a + b`` is a token, else ``[]``.  Lean: ``pairEntry``."""
    r = rank_of(ranks, a + b)
    return [] if r is None else [(r, s)]


def pair_entries(ranks: RankTable, st: Sequence[tuple[int, bytes]]) -> Heap:
    """The entries of every adjacent pair of the state.  Lean: ``pairEntries``."""
    out: Heap = []
    for k in range(len(st) - 1):
        out += pair_entry(ranks, st[k][0], st[k][1], st[k + 1][1])
    return out


def pair_rank_at(ranks: RankTable, s: int, st: Sequence[tuple[int, bytes]]) -> int | None:
    """tiktoken's ``state[s].next_rank``: the rank of the pair of parts starting at ``s``
    (``None``: no part starts there, it is the last part, or the pair is not a token).

    Lean: ``pairRankAt`` (the first part starting at ``s``).
    """
    for k in range(len(st) - 1):
        if st[k][0] == s:
            return rank_of(ranks, st[k][1] + st[k + 1][1])
    return None


def entry_lt(x: tuple[int, int], y: tuple[int, int]) -> bool:
    """Lower rank first, then lower start.  Lean: ``entryLt``."""
    return x[0] < y[0] or (x[0] == y[0] and x[1] < y[1])


def pop_min(heap: Sequence[tuple[int, int]]) -> tuple[tuple[int, int], Heap] | None:
    """A least entry (the first one of the least ones) and the others, in order; ``None`` on
    an empty heap.  Lean: ``popMin``.
    """
    if not heap:
        return None
    best = 0
    for k in range(1, len(heap)):
        if entry_lt(heap[k], heap[best]):
            best = k
    return heap[best], [*heap[:best], *heap[best + 1 :]]


def pop_valid(
    ranks: RankTable, st: Sequence[tuple[int, bytes]], fuel: int, heap: Sequence[tuple[int, int]]
) -> tuple[tuple[int, int], Heap] | None:
    """Pop until an entry is still valid; stale entries are dropped.  Lean: ``popValid``."""
    rest = list(heap)
    while fuel > 0:
        popped = pop_min(rest)
        if popped is None:
            return None
        m, rest = popped
        if pair_rank_at(ranks, m[1], st) == m[0]:
            return m, rest
        fuel -= 1
    return None


def merge_at_start(s: int, st: Sequence[tuple[int, bytes]]) -> State:
    """Merge the part starting at ``s`` with the next part.  Lean: ``mergeAtStart``."""
    for k in range(len(st) - 1):
        if st[k][0] == s:
            return [*st[:k], (s, st[k][1] + st[k + 1][1]), *st[k + 2 :]]
    return list(st)


def entries_near(ranks: RankTable, s: int, st: Sequence[tuple[int, bytes]]) -> Heap:
    """What tiktoken pushes after a merge at ``s``: the entries of the pair ending at ``s``
    and of the pair starting at ``s``, read on the new state.  Lean: ``entriesNear``.
    """
    out: Heap = []
    for k in range(len(st) - 1):
        (p0, p1), (q0, q1) = st[k], st[k + 1]
        if q0 == s:
            out += pair_entry(ranks, p0, p1, q1)
        elif p0 == s:
            return out + pair_entry(ranks, p0, p1, q1)
    return out


def large_loop(
    ranks: RankTable, fuel: int, st: Sequence[tuple[int, bytes]], heap: Sequence[tuple[int, int]]
) -> State:
    """Pop a valid entry, merge at its start, push the new entries; stop when no valid entry
    is left (fuel: the piece length).  Lean: ``largeLoop``.
    """
    st, heap = list(st), list(heap)
    while fuel > 0:
        popped = pop_valid(ranks, st, len(heap), heap)
        if popped is None:
            break
        m, rest = popped
        st = merge_at_start(m[1], st)
        heap = entries_near(ranks, m[1], st) + rest
        fuel -= 1
    return st


def byte_pair_merge_large(ranks: RankTable, piece: bytes) -> list[bytes]:
    """tiktoken's ``_byte_pair_merge_large``: the parts of ``piece``.

    Lean: ``bytePairMergeLarge``, equal to ``bytePairMerge``
    (``Bpe.Ranks.Large.bytePairMergeLarge_eq_bytePairMerge``).
    """
    st = init_state(0, piece)
    return [part for _, part in large_loop(ranks, len(piece), st, pair_entries(ranks, st))]


def byte_pair_merge_by_size(ranks: RankTable, piece: bytes) -> list[bytes]:
    """tiktoken 0.14's choice: the linear scan below 100 bytes, the heap from 100 bytes.

    Lean: ``bytePairMergeBySize``.
    """
    if len(piece) < LARGE_PIECE_THRESHOLD:
        return byte_pair_merge(ranks, piece)
    return byte_pair_merge_large(ranks, piece)


def encode_piece_ranks_by_size(ranks: RankTable, piece: bytes) -> list[int] | None:
    """tiktoken 0.14's ``byte_pair_encode`` behind its whole-piece lookup (``None`` where
    tiktoken would fail).  Lean: ``encodePieceRanksBySize``, equal to ``encodePieceRanks``
    (``Bpe.Ranks.Large.encodePieceRanksBySize_eq``).
    """
    r = rank_of(ranks, piece)
    if r is not None:
        return [r]
    out: list[int] = []
    for part in byte_pair_merge_by_size(ranks, piece):
        rp = rank_of(ranks, part)
        if rp is None:
            return None
        out.append(rp)
    return out


def encode_ranks_with_by_size(
    pre_tokenizer: Callable[[bytes], list[bytes]], ranks: RankTable, text: str
) -> list[int] | None:
    """tiktoken 0.14's encoder (no special tokens) over any pre-tokenizer.

    Lean: ``encodeRanksWithBySize``.
    """
    out: list[int] = []
    for piece in pre_tokenizer(string_bytes(text)):
        ids = encode_piece_ranks_by_size(ranks, piece)
        if ids is None:
            return None
        out += ids
    return out
