"""Token decomposition (recovering minbpe-style merges from tiktoken's ranks) and Lemma 3.

Lean: ``Bpe.Seed.Decompose``.  ``ranks`` maps a token's bytes to its rank (Lean ``Ranks``); a rank
is also the token's id.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ...errors import MalformedVocabError


def rank_of(ranks: Mapping[bytes, int], data: bytes) -> int | None:
    """The rank of a byte string, if it is a token.  Lean: ``Bpe.Seed.Decompose.rankOf``."""
    return ranks.get(data)


def allowed_rank(ranks: Mapping[bytes, int], max_rank: int | None, t: bytes) -> int | None:
    """The rank of ``t`` if it has one below ``max_rank`` (``None`` = no bound).

    Lean: ``Bpe.Seed.Decompose.allowedRank``.
    """
    r = rank_of(ranks, t)
    if r is None:
        return None
    if max_rank is not None and not r < max_rank:
        return None
    return r


def best_pair_index(
    ranks: Mapping[bytes, int], max_rank: int | None, i: int, parts: Sequence[bytes]
) -> tuple[int, int] | None:
    """Position (counting from ``i``) and rank of the adjacent pair of ``parts`` whose
    concatenation has the lowest allowed rank, the leftmost on ties; ``None`` if none.

    Lean: ``Bpe.Seed.Decompose.bestPairIndex``.
    """
    best: tuple[int, int] | None = None
    for k in range(len(parts) - 1):
        r = allowed_rank(ranks, max_rank, parts[k] + parts[k + 1])
        if r is not None and (best is None or r < best[1]):
            best = (i + k, r)
    return best


def merge_at(i: int, parts: Sequence[bytes]) -> list[bytes]:
    """Replace ``parts[i], parts[i+1]`` by their concatenation (no change if out of range).

    Lean: ``Bpe.Seed.Decompose.mergeAt``.
    """
    if i >= 0 and i + 1 < len(parts):
        return [*parts[:i], parts[i] + parts[i + 1], *parts[i + 2 :]]
    return list(parts)


def decompose_loop(
    ranks: Mapping[bytes, int], max_rank: int | None, fuel: int, parts: Sequence[bytes]
) -> list[bytes]:
    """The decomposition loop: merge the best pair until none qualifies or fuel runs out.

    Lean: ``Bpe.Seed.Decompose.decomposeLoop``.
    """
    parts = list(parts)
    while fuel > 0:
        best = best_pair_index(ranks, max_rank, 0, parts)
        if best is None:
            break
        parts = merge_at(best[0], parts)
        fuel -= 1
    return parts


def decompose_token(ranks: Mapping[bytes, int], token: bytes, max_rank: int | None) -> list[bytes]:
    """``decompose_token``: split ``token`` into single bytes, then repeatedly join the
    adjacent pair whose concatenation has the lowest rank strictly below ``max_rank`` (the
    leftmost on ties), with fuel = token length.

    Lean: ``Bpe.Seed.Decompose.decomposeToken``.
    """
    return decompose_loop(
        ranks, max_rank, len(token), [token[k : k + 1] for k in range(len(token))]
    )


def lemma_decompose_roundtrip(
    ranks: Mapping[bytes, int], token: bytes, max_rank: int | None
) -> bool:
    """Lemma 3 (decompose roundtrip): the parts concatenate back to ``token``.

    Lean: ``Bpe.Seed.Decompose.flatten_decomposeToken``.
    """
    return b"".join(decompose_token(ranks, token, max_rank)) == token


def lemma_decompose_fuel_sufficient(
    ranks: Mapping[bytes, int], token: bytes, max_rank: int | None
) -> bool:
    """Fuel sufficiency: the result of ``decompose_token`` has no adjacent pair left to merge,
    and running the loop with more fuel gives the same parts (the fuel never runs out).

    Lean: ``Bpe.Seed.Decompose.bestPairIndex_decomposeToken``,
    ``Bpe.Seed.Decompose.decomposeLoop_add``,
    ``Bpe.Seed.Decompose.decomposeLoop_length_eq``.
    """
    parts = decompose_token(ranks, token, max_rank)
    singles = [token[k : k + 1] for k in range(len(token))]
    more_fuel = decompose_loop(ranks, max_rank, 2 * len(token) + 1, singles)
    return best_pair_index(ranks, max_rank, 0, parts) is None and more_fuel == parts


def recover_merges(ranks: Mapping[bytes, int]) -> dict[tuple[int, int], int]:
    """The merge table behind ``ranks`` (Python only; minbpe's recovery): for every token of
    two or more bytes, in rank order, ``decompose_token(ranks, token, rank)`` must stop at
    exactly two parts ``p0, p1``; then ``merges[(ranks[p0], ranks[p1])] = rank``.

    Raises :class:`~verified_bpe.errors.MalformedVocabError` if a token does not split in two.
    """
    merges: dict[tuple[int, int], int] = {}
    for token, rank in sorted(ranks.items(), key=lambda item: item[1]):
        if len(token) < 2:
            continue
        parts = decompose_token(ranks, token, rank)
        if len(parts) != 2:
            raise MalformedVocabError(
                f"token {token!r} (rank {rank}) decomposes into {len(parts)} parts, not 2"
            )
        merges[(ranks[parts[0]], ranks[parts[1]])] = rank
    return merges
