"""Merge-list BPE, as llama.cpp and Hugging Face ``tokenizers`` run it.

A merge list ``[(left, right), ...]`` (token bytes) ranks pairs by their index in the list (a
pair listed twice keeps its first index, as llama.cpp's ``bpe_ranks.emplace``).  A piece of
text starts as one part per byte; while some adjacent pair of parts is in the list, the pair
with the lowest index is merged, the leftmost one on ties.  The token ids come afterwards,
from the vocabulary (``{bytes: id}``): ids and merge order need not agree.

Relation to the seed (Lean ``Bpe.Seed.Encode.encodeChunk``, mirrored by
:func:`verified_bpe.spec.seed.encode.encode_chunk`): number the merges in list order (merge
``i`` makes id ``256 + i``; a byte is its own id) and the seed's loop -- lowest merge index
first, every occurrence left to right -- gives the same parts whenever each merge's two sides
are single bytes or made by earlier merges (then a merge never creates a pair ranked before
the one just applied, so "every occurrence" and "leftmost first" agree).  Tested on the real
merge lists (``tests/test_gguf_llama.py``).  Where ids are the merge order (tiktoken-style
ranks), rank BPE (:mod:`verified_bpe.spec.ranks`) is the same computation.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Mapping
from typing import TypeVar

T = TypeVar("T", bytes, str)

PairRanks = Mapping[tuple[bytes, bytes], int]


def pair_ranks(merges: Iterable[tuple[bytes, bytes]]) -> dict[tuple[bytes, bytes], int]:
    """``{(left, right): index}``, the first index of a pair listed more than once."""
    pairs = list(merges)
    # built backwards, so that the first index of a repeated pair is the one kept
    return dict(zip(reversed(pairs), range(len(pairs) - 1, -1, -1), strict=True))


def merge_parts(parts: list[T], rank: Callable[[T, T], int | None]) -> list[T]:
    """Merge-list BPE on ``parts`` (bytes or token texts, concatenated by ``+``): while some
    adjacent pair has a ``rank``, merge the pair with the lowest one, the leftmost on ties.

    A priority queue of candidate pairs keyed by ``(rank, left position)``, over a doubly
    linked list of parts; a popped pair whose parts changed since it was queued is skipped
    (llama.cpp's ``llm_tokenizer_bpe_session`` works the same way): O(n log n).  A part only
    grows, so "unchanged" is "the same object".
    """
    n = len(parts)
    if n < 2:
        return list(parts)
    parts = list(parts)
    prev = list(range(-1, n - 1))
    nxt = [*range(1, n), -1]
    heap: list[tuple[int, int, T, T]] = []
    for i in range(n - 1):
        r = rank(parts[i], parts[i + 1])
        if r is not None:
            heap.append((r, i, parts[i], parts[i + 1]))
    heapq.heapify(heap)
    while heap:
        _, left, a, b = heapq.heappop(heap)
        right = nxt[left]
        if right < 0 or parts[left] is not a or parts[right] is not b:
            continue  # outdated
        merged = a + b  # type: ignore[operator]
        parts[left] = merged
        parts[right] = a[:0]
        after = nxt[right]
        nxt[left] = after
        if after >= 0:
            prev[after] = left
        before = prev[left]
        if before >= 0:
            r = rank(parts[before], merged)
            if r is not None:
                heapq.heappush(heap, (r, before, parts[before], merged))
        if after >= 0:
            r = rank(merged, parts[after])
            if r is not None:
                heapq.heappush(heap, (r, left, merged, parts[after]))
    out: list[T] = []
    i = 0
    while i >= 0:
        out.append(parts[i])
        i = nxt[i]
    return out


def merge_list_bpe(piece: bytes, ranks: PairRanks) -> list[bytes]:
    """The parts of ``piece`` after merge-list BPE (see the module docstring): one part per
    byte to start with, ``ranks`` from :func:`pair_ranks`."""
    get = ranks.get
    return merge_parts([piece[i : i + 1] for i in range(len(piece))], lambda a, b: get((a, b)))


__all__ = ["PairRanks", "merge_list_bpe", "merge_parts", "pair_ranks"]
