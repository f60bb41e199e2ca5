"""The byte shuffle and its inverse; Lemma 2.

Lean: ``Bpe.Seed.Shuffle``.  A shuffle is a ``list[int]`` of length 256 (Lean ``UInt8 → UInt8``):
``shuffle[b]`` is the id of the single-byte token of byte ``b``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ...errors import MalformedVocabError


def is_bijective(shuffle: Sequence[int]) -> bool:
    """``shuffle`` is a bijection of ``0..255``.  Lean: ``Bpe.Seed.Shuffle.Bijective``."""
    return len(shuffle) == 256 and sorted(shuffle) == list(range(256))


def invert_shuffle(shuffle: Sequence[int]) -> list[int]:
    """``inverse[b]`` = the first ``x`` in ``0..255`` with ``shuffle[x] = b``, or ``b`` if there
    is none.

    Lean: ``Bpe.Seed.Shuffle.invertShuffle`` (computed by search, so it is total).
    """
    inverse: list[int] = []
    for b in range(256):
        found = b
        for x in range(256):
            if shuffle[x] == b:
                found = x
                break
        inverse.append(found)
    return inverse


def lemma_shuffle_cancel(shuffle: Sequence[int]) -> bool:
    """Lemma 2: for an injective shuffle, ``invert_shuffle(shuffle)[shuffle[b]] = b``.

    Lean: ``Bpe.Seed.Shuffle.invertShuffle_shuffle`` (hypothesis ``Function.Injective``; on
    ``0..255`` injective and bijective coincide).
    """
    if len(shuffle) != 256 or len(set(shuffle)) != 256:
        return True
    inverse = invert_shuffle(shuffle)
    return all(inverse[shuffle[b]] == b for b in range(256))


def byte_shuffle_from_ranks(ranks: Mapping[bytes, int]) -> list[int]:
    """``[ranks[bytes([b])] for b in 0..255]`` (Python only).

    Raises :class:`~verified_bpe.errors.MalformedVocabError` if a byte has no single-byte token.
    """
    shuffle: list[int] = []
    for b in range(256):
        rank = ranks.get(bytes([b]))
        if rank is None:
            raise MalformedVocabError(f"no single-byte token for byte {b}")
        shuffle.append(rank)
    return shuffle
