"""The Boolean checker for ``WellFormed`` (proven sound in Lean).

Lean: ``Bpe.Seed.Check``.  :func:`.well_formed.check_well_formed` is the same check with a reason
on failure; the two are tested to agree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .shuffle import invert_shuffle


def check_base_tokens(vocab: Mapping[int, bytes]) -> bool:
    """Every byte ``i`` is the token ``[i]``.  Lean: ``Bpe.Seed.Check.checkBaseTokens``."""
    return all(vocab.get(i) == bytes([i]) for i in range(256))


def check_merge_entry(vocab: Mapping[int, bytes], m: tuple[tuple[int, int], int]) -> bool:
    """One merge ``(p0, p1) -> idx``: ``vocab[idx] = vocab[p0] ++ vocab[p1]``, both parts
    shorter.  Lean: ``Bpe.Seed.Check.checkMergeEntry``."""
    (p0, p1), idx = m
    a, b, c = vocab.get(p0), vocab.get(p1), vocab.get(idx)
    if a is None or b is None or c is None:
        return False
    return c == a + b and len(a) < len(c) and len(b) < len(c)


VocabEntries = list[tuple[int, bytes]]


def bytes_lt(s: bytes, t: bytes) -> bool:
    """Strict lexicographic order on byte strings.  Lean: ``Bpe.Seed.Check.bytesLt``."""
    return s < t


def merge_sorted(fuel: int, xs: VocabEntries, ys: VocabEntries) -> VocabEntries:
    """Merge two lists ordered by their byte strings; ties keep ``xs`` first.

    Lean: ``Bpe.Seed.Check.mergeSorted`` (fuel: the total length).
    """
    out: VocabEntries = []
    i = j = 0
    while fuel > 0 and i < len(xs) and j < len(ys):
        if bytes_lt(ys[j][1], xs[i][1]):
            out.append(ys[j])
            j += 1
        else:
            out.append(xs[i])
            i += 1
        fuel -= 1
    return out + xs[i:] + ys[j:]


def sort_by_bytes(fuel: int, entries: VocabEntries) -> VocabEntries:
    """Merge sort by byte string.  Lean: ``Bpe.Seed.Check.sortByBytes``."""
    if fuel == 0 or len(entries) < 2:
        return list(entries)
    half = len(entries) // 2
    return merge_sorted(
        len(entries),
        sort_by_bytes(fuel - 1, entries[:half]),
        sort_by_bytes(fuel - 1, entries[half:]),
    )


def sorted_strict(entries: VocabEntries) -> bool:
    """Consecutive byte strings strictly increase.  Lean: ``Bpe.Seed.Check.sortedStrict``."""
    return all(bytes_lt(a[1], b[1]) for a, b in zip(entries, entries[1:], strict=False))


def check_injective(vocab: Mapping[int, bytes]) -> bool:
    """No two entries carry the same bytes: sorted by bytes, neighbours strictly increase.

    Lean: ``Bpe.Seed.Check.checkInjective``.
    """
    entries = list(vocab.items())
    return sorted_strict(sort_by_bytes(len(entries), entries))


def shuffle_inverse_at(shuffle: Sequence[int], inverse: Sequence[int], i: int) -> bool:
    """``inverse`` is a two-sided inverse of ``shuffle`` at byte ``i``.

    Lean: ``Bpe.Seed.Check.shuffleInverseAt`` (which recomputes ``invertShuffle f``; here it is
    passed in once).
    """
    return inverse[shuffle[i]] == i and shuffle[inverse[i]] == i


def check_shuffle(shuffle: Sequence[int]) -> bool:
    """The shuffle is a bijection: :func:`.shuffle.invert_shuffle` is a two-sided inverse on
    all 256 bytes.  Lean: ``Bpe.Seed.Check.checkShuffle``."""
    if len(shuffle) != 256 or not all(0 <= s <= 255 for s in shuffle):
        return False  # not a function UInt8 -> UInt8 (Lean's type rules this out)
    inverse = invert_shuffle(shuffle)
    return all(shuffle_inverse_at(shuffle, inverse, i) for i in range(256))


def check_well_formed(
    merges: Mapping[tuple[int, int], int],
    vocab: Mapping[int, bytes],
    byte_shuffle: Sequence[int],
) -> bool:
    """``check_well_formed``.  Lean: ``Bpe.Seed.Check.checkWellFormed``."""
    return (
        check_base_tokens(vocab)
        and all(check_merge_entry(vocab, m) for m in merges.items())
        and check_injective(vocab)
        and check_shuffle(byte_shuffle)
    )
