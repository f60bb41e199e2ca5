"""The Boolean checker for condition C (``RanksOk``), proven sound in Lean.

Lean: ``Bpe.Ranks.Check``.  The table is a ``Mapping[bytes, int]`` or a sequence of
``(bytes, rank)`` pairs (Lean's association list, where a byte string may repeat); lookups
find the first entry, as ``List.lookup`` does.  Linear in the table apart from the
decompositions, so it runs on the full published tables (see ``tests/test_spec_ranks.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..seed.decompose import decompose_token, rank_of
from .basic import RANK_SENTINEL

RankEntries = Sequence[tuple[bytes, int]]


def _entries_and_lookup(
    ranks: Mapping[bytes, int] | RankEntries,
) -> tuple[list[tuple[bytes, int]], dict[bytes, int]]:
    """The entries in table order and a dict answering ``List.lookup`` (first entry wins)."""
    entries = list(ranks.items()) if isinstance(ranks, Mapping) else list(ranks)
    table: dict[bytes, int] = {}
    for t, r in entries:
        table.setdefault(t, r)
    return entries, table


def ranks_increasing(entries: RankEntries) -> bool:
    """The ranks strictly increase along the table.  Lean: ``Bpe.Ranks.Check.ranksIncreasing``."""
    return all(entries[i][1] < entries[i + 1][1] for i in range(len(entries) - 1))


def check_lookup(table: Mapping[bytes, int], entry: tuple[bytes, int]) -> bool:
    """Looking up the entry's bytes finds the entry's rank.

    Lean: ``Bpe.Ranks.Check.checkLookup``."""
    return rank_of(table, entry[0]) == entry[1]


def check_byte_rank(table: Mapping[bytes, int], b: int) -> bool:
    """Byte ``b`` is a one-byte token of rank below 256.
    Lean: ``Bpe.Ranks.Check.checkByteRank``."""
    r = rank_of(table, bytes([b % 256]))
    return r is not None and r < 256


def check_two_parts(table: Mapping[bytes, int], entry: tuple[bytes, int]) -> bool:
    """A token of two or more bytes decomposes into exactly two parts with the ranks below its
    own.  Lean: ``Bpe.Ranks.Check.checkTwoParts``."""
    token, rank = entry
    return len(token) < 2 or len(decompose_token(table, token, rank)) == 2


def check_rank_bound(entry: tuple[bytes, int]) -> bool:
    """The entry's rank is below tiktoken's sentinel ``RANK_SENTINEL`` (2**32 - 1).

    Lean: ``Bpe.Ranks.Check.checkRankBound``."""
    return entry[1] < RANK_SENTINEL


def check_ranks(ranks: Mapping[bytes, int] | RankEntries) -> bool:
    """``check_ranks``: ``True`` implies condition C (Lean: ``Bpe.Ranks.Check.checkRanks``;
    soundness ``Bpe.Ranks.Check.checkRanks_sound``)."""
    entries, table = _entries_and_lookup(ranks)
    return (
        ranks_increasing(entries)
        and all(check_lookup(table, e) for e in entries)
        and all(e[0] != b"" for e in entries)
        and all(check_byte_rank(table, b) for b in range(256))
        and all(check_two_parts(table, e) for e in entries)
        and all(check_rank_bound(e) for e in entries)
    )
