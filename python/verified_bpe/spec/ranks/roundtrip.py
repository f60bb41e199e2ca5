"""tiktoken's decoder, and the theorem that tiktoken's algorithm round-trips.

Lean: ``Bpe.Ranks.Roundtrip``.  ``Bpe.Ranks.Roundtrip.decodeRanks_encodeRanksWith``: under
condition C (``ranks_ok``), for every string and every pre-tokenizer whose chunks concatenate
back to its input, ``encode_ranks_with`` succeeds and ``decode_ranks`` of its ids is the string;
``Bpe.Ranks.Roundtrip.decodeRanks_encodeRanksWithBySize`` is the same for tiktoken 0.14's
by-length choice of merge loop (``encode_ranks_with_by_size``).
"""

from __future__ import annotations

from collections.abc import Sequence

from .basic import RankTable


def rank_vocab(ranks: RankTable) -> dict[int, bytes]:
    """tiktoken's decoder: rank ↦ byte string (the first entry of a rank, as ``List.lookup``
    on the swapped table).  Lean: ``rankVocab``.
    """
    vocab: dict[int, bytes] = {}
    for token, rank in ranks.items():
        vocab.setdefault(rank, token)
    return vocab


def decode_ranks(ranks: RankTable, ids: Sequence[int]) -> str | None:
    """tiktoken's ``decode``: the byte strings of ``ids`` concatenated and read as UTF-8;
    ``None`` on an unknown id or invalid UTF-8 (Lean ``String.fromUTF8?``, strict like
    Python's ``"strict"`` decoder).  Lean: ``decodeRanks``.
    """
    vocab = rank_vocab(ranks)
    out = bytearray()
    for i in ids:
        token = vocab.get(i)
        if token is None:
            return None
        out += token
    try:
        return bytes(out).decode("utf-8")
    except UnicodeDecodeError:
        return None
