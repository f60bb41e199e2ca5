"""The Boolean checker for ``WellFormed`` (proven sound in Lean).

Lean: ``Bpe.Check``.  :func:`.well_formed.check_well_formed` is the same check with a reason
on failure; the two are tested to agree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .shuffle import invert_shuffle


def check_base_tokens(vocab: Mapping[int, bytes]) -> bool:
    """Every byte ``i`` is the token ``[i]``.  Lean: ``Bpe.Check.checkBaseTokens``."""
    return all(vocab.get(i) == bytes([i]) for i in range(256))


def check_merge_entry(vocab: Mapping[int, bytes], m: tuple[tuple[int, int], int]) -> bool:
    """One merge ``(p0, p1) -> idx``: ``vocab[idx] = vocab[p0] ++ vocab[p1]``, both parts
    shorter.  Lean: ``Bpe.Check.checkMergeEntry``."""
    (p0, p1), idx = m
    a, b, c = vocab.get(p0), vocab.get(p1), vocab.get(idx)
    if a is None or b is None or c is None:
        return False
    return c == a + b and len(a) < len(c) and len(b) < len(c)


def check_injective(vocab: Mapping[int, bytes]) -> bool:
    """No two entries with different ids carry the same bytes.

    Lean: ``Bpe.Check.checkInjective`` (quadratic there; a set here).
    """
    return len(set(vocab.values())) == len(vocab)


def check_shuffle(shuffle: Sequence[int]) -> bool:
    """The shuffle is a bijection: :func:`.shuffle.invert_shuffle` is a two-sided inverse on
    all 256 bytes.  Lean: ``Bpe.Check.checkShuffle``."""
    if len(shuffle) != 256 or not all(0 <= s <= 255 for s in shuffle):
        return False  # not a function UInt8 -> UInt8 (Lean's type rules this out)
    inverse = invert_shuffle(shuffle)
    return all(inverse[shuffle[i]] == i and shuffle[inverse[i]] == i for i in range(256))


def check_well_formed(
    merges: Mapping[tuple[int, int], int],
    vocab: Mapping[int, bytes],
    byte_shuffle: Sequence[int],
) -> bool:
    """``check_well_formed``.  Lean: ``Bpe.Check.checkWellFormed``."""
    return (
        check_base_tokens(vocab)
        and all(check_merge_entry(vocab, m) for m in merges.items())
        and check_injective(vocab)
        and check_shuffle(byte_shuffle)
    )
