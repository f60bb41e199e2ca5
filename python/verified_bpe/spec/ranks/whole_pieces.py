"""Tables with whole-piece tokens (Llama 3): the condition under which tiktoken's algorithm still
round-trips, its checker, and the counterexample table.

Lean: ``Bpe.Ranks.WholePieces``.  Llama 3's table fails condition C (``ranks_ok``): 678 tokens
such as `` việc`` have no two-part decomposition below their rank, and on such a token the seed's
encoder with the recovered merges is not tiktoken's
(``Bpe.Ranks.WholePieces.not_ranksOk_wholePieceRanks``,
``Bpe.Ranks.WholePieces.encodeChunk_ne_encodePieceRanks_wholePieceRanks``, checked by the kernel
on :func:`whole_piece_ranks`).  What still holds is the roundtrip of tiktoken's algorithm under
:func:`ranks_decode_ok` (``Bpe.Ranks.WholePieces.decodeRanks_encodeRanksWith_of_decodeOk``);
:func:`check_ranks_decode` is its linear checker (``Bpe.Ranks.WholePieces.checkRanksDecode_sound``),
run on Llama 3's table by ``tests/test_gguf_llama.py``; the counterexample's table
passes it (``Bpe.Ranks.WholePieces.ranksDecodeOk_wholePieceRanks``).

For tiktoken's ``encode_ordinary`` (``Bpe.Regex.TiktokenWholePieces``): it round-trips under the
same condition for any pre-tokenizer that is ``find_iter``
(``Bpe.Regex.TiktokenWholePieces.decodeRanks_tiktokenEncodeOrdinary_of_decodeOk``; instances
``…_cl100k_of_decodeOk``, ``…_o200k_of_decodeOk``, ``…_r50k_of_decodeOk``), and the end-to-end
theorem is false without condition C's two-part clause
(``Bpe.Regex.TiktokenWholePieces.encodeCl100k_ne_tiktokenEncodeOrdinary_wholePieceRanks``).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..seed.decompose import rank_of
from .check import RankEntries, _entries_and_lookup, ranks_increasing


def ranks_decode_ok(ranks: Mapping[bytes, int] | RankEntries) -> bool:
    """No rank is used twice and every single byte is a token, from the definition.

    Lean: ``Bpe.Ranks.WholePieces.RanksDecodeOk``."""
    entries, table = _entries_and_lookup(ranks)
    values = [r for _, r in entries]
    return len(set(values)) == len(values) and all(bytes([b]) in table for b in range(256))


def check_byte_token(table: Mapping[bytes, int], b: int) -> bool:
    """Byte ``b`` is a one-byte token (of any rank).

    Lean: ``Bpe.Ranks.WholePieces.checkByteToken``."""
    return rank_of(table, bytes([b % 256])) is not None


def check_ranks_decode(ranks: Mapping[bytes, int] | RankEntries) -> bool:
    """The ranks strictly increase along the table and every byte is a token; ``True`` implies
    :func:`ranks_decode_ok` (Lean: ``Bpe.Ranks.WholePieces.checkRanksDecode``)."""
    entries, table = _entries_and_lookup(ranks)
    return ranks_increasing(entries) and all(check_byte_token(table, b) for b in range(256))


def byte_ranks_from(k: int, n: int) -> list[tuple[bytes, int]]:
    """The single bytes ``k, …, k + n - 1``, byte ``b`` with rank ``b``.

    Lean: ``Bpe.Ranks.WholePieces.byteRanksFrom``."""
    return [(bytes([b % 256]), b) for b in range(k, k + n)]


def whole_piece_ranks() -> list[tuple[bytes, int]]:
    """The counterexample: the 256 bytes and ``abc`` with rank 256, a token with no two-part
    decomposition below its rank.  Lean: ``Bpe.Ranks.WholePieces.wholePieceRanks``."""
    return [*byte_ranks_from(0, 256), (b"abc", 256)]
