"""BPE helpers: pair statistics, the best merge, one merge step, decoding ids to bytes;
Lemma 1 and Lemma 6.

Lean: ``Bpe.Seed.Merge``.  Token ids are ``int``; a merge table maps a pair of ids to the id of
the merged token, which is also its rank (Lean ``Merges``); ``vocab`` maps an id to its bytes
(Lean ``Vocab``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ...errors import UnknownTokenError

Pair = tuple[int, int]


def bump_count(p: Pair, counts: dict[Pair, int]) -> dict[Pair, int]:
    """Add one occurrence of ``p`` (first-occurrence order is kept).

    Lean: ``Bpe.Seed.Merge.bumpCount``.  Updates and returns the accumulator ``counts`` (Lean
    rebuilds the list; only :func:`get_stats` calls this, on its own fresh dict).
    """
    counts[p] = counts.get(p, 0) + 1
    return counts


def adjacent_pairs(ids: Sequence[int]) -> list[Pair]:
    """Adjacent pairs of a list of ids.  Lean: ``Bpe.Seed.Merge.adjacentPairs``."""
    return [(ids[k], ids[k + 1]) for k in range(len(ids) - 1)]


def get_stats(ids: Sequence[int]) -> dict[Pair, int]:
    """``get_stats``: the count of each adjacent pair, in order of first occurrence.

    Lean: ``Bpe.Seed.Merge.getStats``.
    """
    counts: dict[Pair, int] = {}
    for p in adjacent_pairs(ids):
        counts = bump_count(p, counts)
    return counts


def best_merge(merges: Mapping[Pair, int], stats: Mapping[Pair, int]) -> tuple[Pair, int] | None:
    """Among the pairs of ``stats`` that have a merge, the one with the lowest merge index (the
    first one on ties), with that index; ``None`` if no pair has a merge.

    Lean: ``Bpe.Seed.Merge.bestMerge``.
    """
    best: tuple[Pair, int] | None = None
    for p in stats:
        i = merges.get(p)
        if i is not None and (best is None or i < best[1]):
            best = (p, i)
    return best


def merge(ids: Sequence[int], pair: Pair, idx: int) -> list[int]:
    """``merge``: replace every adjacent ``(pair[0], pair[1])`` with ``idx``, left to right,
    never overlapping (``[a, a, a]`` with ``(a, a)`` gives ``[idx, a]``).

    Lean: ``Bpe.Seed.Merge.merge``.
    """
    out: list[int] = []
    k = 0
    while k < len(ids):
        if k + 1 < len(ids) and ids[k] == pair[0] and ids[k + 1] == pair[1]:
            out.append(idx)
            k += 2
        else:
            out.append(ids[k])
            k += 1
    return out


def decode_bytes(vocab: Mapping[int, bytes], ids: Sequence[int]) -> bytes:
    """``decode_bytes``: concatenate the byte strings of ``ids``.

    Lean: ``Bpe.Seed.Merge.decodeBytes`` (``none`` on an unknown id; here
    :class:`~verified_bpe.errors.UnknownTokenError`).
    """
    parts: list[bytes] = []
    for token_id in ids:
        piece = vocab.get(token_id)
        if piece is None:
            raise UnknownTokenError(token_id)
        parts.append(piece)
    return b"".join(parts)


def _decode_bytes_opt(vocab: Mapping[int, bytes], ids: Sequence[int]) -> bytes | None:
    """:func:`decode_bytes` with the Lean ``Option`` result (``None`` = unknown id)."""
    try:
        return decode_bytes(vocab, ids)
    except UnknownTokenError:
        return None


def lemma_decode_bytes_append(
    vocab: Mapping[int, bytes], xs: Sequence[int], ys: Sequence[int]
) -> bool:
    """Lemma 6: ``decode_bytes(xs ++ ys) = decode_bytes(xs) ++ decode_bytes(ys)`` (as options:
    the left side is ``none`` exactly when one of the right-hand parts is).

    Lean: ``Bpe.Seed.Merge.decodeBytes_append`` (and ``decodeBytes_append_some``).
    """
    whole = _decode_bytes_opt(vocab, list(xs) + list(ys))
    left, right = _decode_bytes_opt(vocab, xs), _decode_bytes_opt(vocab, ys)
    if left is None or right is None:
        return whole is None
    return whole == left + right


def lemma_merge_preserves_decode(
    vocab: Mapping[int, bytes], ids: Sequence[int], pair: Pair, idx: int
) -> bool:
    """Lemma 1: if ``vocab[idx] = vocab[pair[0]] ++ vocab[pair[1]]`` (as options: unknown on
    one side iff unknown on the other), merging does not change the decoded bytes.

    Lean: ``Bpe.Seed.Merge.decodeBytes_merge``.
    """
    p0, p1, new = vocab.get(pair[0]), vocab.get(pair[1]), vocab.get(idx)
    concatenation = None if p0 is None or p1 is None else p0 + p1
    if new != concatenation:
        return True  # hypothesis does not hold
    return _decode_bytes_opt(vocab, merge(ids, pair, idx)) == _decode_bytes_opt(vocab, ids)


def lemma_length_merge_le(ids: Sequence[int], pair: Pair, idx: int) -> bool:
    """``merge`` never makes a list longer.  Lean: ``Bpe.Seed.Merge.length_merge_le``."""
    return len(merge(ids, pair, idx)) <= len(ids)
