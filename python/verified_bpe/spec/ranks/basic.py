"""tiktoken's encoder as a specification: rank-based byte-pair merging, and the seed's tables
recovered from a rank table.

Lean: ``Bpe.Ranks.Basic``.  A rank table is a ``Mapping[bytes, int]`` (Lean ``Ranks``, an
association list; a dict is one without repeated keys, looked up like ``List.lookup``).
Where Lean returns ``none`` these functions return ``None`` (tiktoken would fail instead).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

# ``rank_of`` (Lean ``rankOf``) lives next to ``Ranks`` in ``seed.decompose``; it stays importable
# from here.
from ..seed.decompose import decompose_token, merge_at, rank_of
from ..seed.utf8 import string_bytes

RankTable = Mapping[bytes, int]


def pair_ranks(ranks: RankTable, parts: Sequence[bytes]) -> list[int | None]:
    """Entry ``i`` is the rank of ``parts[i] + parts[i + 1]`` (``None`` if not a token).

    Lean: ``Bpe.Ranks.Basic.pairRanks``.
    """
    return [rank_of(ranks, parts[i] + parts[i + 1]) for i in range(len(parts) - 1)]


def lowest_rank(rs: Sequence[int | None]) -> tuple[int, int] | None:
    """Position and value of the lowest rank, the leftmost on ties; ``None`` if no entry has
    a rank.  Lean: ``Bpe.Ranks.Basic.lowestRank``.
    """
    best: tuple[int, int] | None = None
    for i, r in enumerate(rs):
        if r is not None and (best is None or r < best[1]):
            best = (i, r)
    return best


def byte_pair_merge_loop(ranks: RankTable, fuel: int, parts: Sequence[bytes]) -> list[bytes]:
    """While fuel lasts and some adjacent pair has a rank, merge the leftmost pair of lowest
    rank.  Lean: ``Bpe.Ranks.Basic.bytePairMergeLoop``.
    """
    parts = list(parts)
    while fuel > 0:
        best = lowest_rank(pair_ranks(ranks, parts))
        if best is None:
            break
        parts = merge_at(best[0], parts)
        fuel -= 1
    return parts


def byte_pair_merge(ranks: RankTable, piece: bytes) -> list[bytes]:
    """tiktoken's ``_byte_pair_merge``: the parts of ``piece``, starting from its single bytes
    (fuel: the piece length).  Lean: ``Bpe.Ranks.Basic.bytePairMerge``.
    """
    return byte_pair_merge_loop(ranks, len(piece), [piece[i : i + 1] for i in range(len(piece))])


def encode_piece_ranks(ranks: RankTable, piece: bytes) -> list[int] | None:
    """tiktoken's ``byte_pair_encode``: the piece's rank if it is a token, else the ranks of
    the parts of :func:`byte_pair_merge` (``None`` if a part has no rank).

    Lean: ``Bpe.Ranks.Basic.encodePieceRanks``.
    """
    r = rank_of(ranks, piece)
    if r is not None:
        return [r]
    out: list[int] = []
    for part in byte_pair_merge(ranks, piece):
        rp = rank_of(ranks, part)
        if rp is None:
            return None
        out.append(rp)
    return out


def encode_ranks_with(
    pre_tokenizer: Callable[[bytes], list[bytes]], ranks: RankTable, text: str
) -> list[int] | None:
    """tiktoken's encoder (no special tokens) over any pre-tokenizer; ``None`` if a piece
    cannot be encoded.  Lean: ``Bpe.Ranks.Basic.encodeRanksWith``.
    """
    out: list[int] = []
    for piece in pre_tokenizer(string_bytes(text)):
        ids = encode_piece_ranks(ranks, piece)
        if ids is None:
            return None
        out += ids
    return out


def rank_shuffle(ranks: RankTable, b: int) -> int:
    """Byte ``b`` ↦ the rank of ``bytes([b])``, as a byte (Lean ``UInt8.ofNat``: modulo 256);
    ``b`` itself if it has no rank.  Lean: ``Bpe.Ranks.Basic.rankShuffle``.
    """
    r = rank_of(ranks, bytes([b]))
    return r % 256 if r is not None else b


def recover_merge(ranks: RankTable, entry: tuple[bytes, int]) -> tuple[tuple[int, int], int] | None:
    """For a token ``t`` of rank ``r`` whose decomposition with the ranks below ``r`` has
    exactly two parts ``a, b`` (both with a rank): ``((rank a, rank b), r)``; else ``None``.

    Lean: ``Bpe.Ranks.Basic.recoverMerge``.
    """
    token, rank = entry
    parts = decompose_token(ranks, token, rank)
    if len(parts) != 2:
        return None
    ra, rb = rank_of(ranks, parts[0]), rank_of(ranks, parts[1])
    if ra is None or rb is None:
        return None
    return ((ra, rb), rank)


def recover_merges(ranks: RankTable) -> dict[tuple[int, int], int]:
    """The seed's merge table behind a rank table, in table order (a pair seen twice keeps its
    first merge, as ``List.lookup`` does).  Lean: ``Bpe.Ranks.Basic.recoverMerges``.
    """
    merges: dict[tuple[int, int], int] = {}
    for entry in ranks.items():
        m = recover_merge(ranks, entry)
        if m is not None:
            merges.setdefault(m[0], m[1])
    return merges


def rank_sentinel() -> int:
    """tiktoken's sentinel rank ``Rank::MAX`` = ``u32::MAX`` = 2**32 - 1 (its merge loop stores it
    for a pair with no rank): condition C asks every rank to be below it.

    Lean: ``Bpe.Ranks.Basic.rankSentinel``."""
    return 2**32 - 1


#: :func:`rank_sentinel` as a constant.
RANK_SENTINEL = rank_sentinel()


def ranks_ok(ranks: RankTable | Sequence[tuple[bytes, int]]) -> bool:
    """Condition C, evaluated directly from its definition (quadratic; for small tables).

    Lean: ``Bpe.Ranks.Basic.RanksOk``.  Accepts a list of pairs too, so that a repeated byte string
    can be expressed; lookups then find the first entry, as ``List.lookup``.
    """
    entries = list(ranks.items()) if isinstance(ranks, Mapping) else list(ranks)
    table: dict[bytes, int] = {}
    for t, r in entries:
        table.setdefault(t, r)
    keys = [t for t, _ in entries]
    values = [r for _, r in entries]
    return (
        len(set(keys)) == len(keys)
        and len(set(values)) == len(values)
        and all(t != b"" for t in keys)
        and all((r := table.get(bytes([b]))) is not None and r < 256 for b in range(256))
        and all(len(t) < 2 or len(decompose_token(table, t, r)) == 2 for t, r in entries)
        and all(r < RANK_SENTINEL for r in values)
    )


def theorem_byte_pair_merge_eq_decompose_token(ranks: RankTable, piece: bytes) -> bool:
    """``bytePairMerge`` is ``decomposeToken`` without a rank bound.

    Lean: ``Bpe.Ranks.Basic.bytePairMerge_eq_decomposeToken``.
    """
    return byte_pair_merge(ranks, piece) == decompose_token(ranks, piece, None)


def lemma_byte_pair_merge_fuel_sufficient(ranks: RankTable, piece: bytes) -> bool:
    """Fuel sufficiency: when ``byte_pair_merge`` returns, no adjacent pair has a rank, and
    the parts concatenate back to the piece.

    Lean: ``Bpe.Ranks.Basic.lowestRank_pairRanks_bytePairMerge``,
    ``Bpe.Ranks.Basic.flatten_bytePairMerge``.
    """
    parts = byte_pair_merge(ranks, piece)
    return lowest_rank(pair_ranks(ranks, parts)) is None and b"".join(parts) == piece
