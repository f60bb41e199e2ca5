"""Encoding and decoding.

Lean: ``Bpe.Seed.Encode``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ...errors import NonAsciiError
from .merge import best_merge, decode_bytes, get_stats, merge
from .pretokenize import pre_tokenize_ascii
from .utf8 import bytes_to_string, lemma_ascii_utf8_roundtrip, string_bytes

__all__ = [
    "decode",
    "decode_chunk",
    "encode",
    "encode_chunk",
    "encode_loop",
    "encode_with",
    "lemma_ascii_utf8_roundtrip",  # Lean: Bpe.Seed.Utf8 (re-exported for the seed's naming)
]


def encode_loop(merges: Mapping[tuple[int, int], int], fuel: int, ids: Sequence[int]) -> list[int]:
    """The merge loop of ``encode_chunk``: while fuel lasts, apply the best merge (lowest
    merge index among the adjacent pairs, the first seen on ties) to every occurrence.

    Lean: ``Bpe.Seed.Encode.encodeLoop``.
    """
    ids = list(ids)
    while fuel > 0:
        best = best_merge(merges, get_stats(ids))
        if best is None:
            break
        ids = merge(ids, best[0], best[1])
        fuel -= 1
    return ids


def encode_chunk(
    merges: Mapping[tuple[int, int], int], byte_shuffle: Sequence[int], chunk: bytes
) -> list[int]:
    """``encode_chunk``: shuffle the bytes, then merge until no pair has a merge (fuel = chunk
    length, enough because each merge shortens the list:
    Lean ``Bpe.Seed.Encode.bestMerge_encodeChunk``,
    checked by :func:`lemma_fuel_sufficient`).

    Lean: ``Bpe.Seed.Encode.encodeChunk``.
    """
    ids = [byte_shuffle[b] for b in chunk]
    return encode_loop(merges, len(ids), ids)


def lemma_fuel_sufficient(
    merges: Mapping[tuple[int, int], int], byte_shuffle: Sequence[int], chunk: bytes
) -> bool:
    """Fuel sufficiency: the result of ``encode_chunk`` has no adjacent pair with a merge.

    Lean: ``Bpe.Seed.Encode.bestMerge_encodeChunk``.
    """
    return best_merge(merges, get_stats(encode_chunk(merges, byte_shuffle, chunk))) is None


def decode_chunk(
    vocab: Mapping[int, bytes], inverse_shuffle: Sequence[int], ids: Sequence[int]
) -> bytes:
    """``decode_chunk``: decode the ids, then apply the inverse shuffle to every byte.

    Lean: ``Bpe.Seed.Encode.decodeChunk``.  Unknown id:
    :class:`~verified_bpe.errors.UnknownTokenError`.
    """
    return bytes(inverse_shuffle[b] for b in decode_bytes(vocab, ids))


def encode_with(
    pre_tokenizer: Callable[[bytes], list[bytes]],
    merges: Mapping[tuple[int, int], int],
    byte_shuffle: Sequence[int],
    text: str,
) -> list[int]:
    """Encode a string with any pre-tokenizer (UTF-8 bytes -> chunks), chunk by chunk.

    Lean: ``Bpe.Seed.Encode.encodeWith``.
    """
    ids: list[int] = []
    for chunk in pre_tokenizer(string_bytes(text)):
        ids.extend(encode_chunk(merges, byte_shuffle, chunk))
    return ids


def encode(
    merges: Mapping[tuple[int, int], int], byte_shuffle: Sequence[int], text: str
) -> list[int]:
    """``encode``: the seed's encoder, with the ASCII pre-tokenizer.

    Lean: ``Bpe.Seed.Encode.encode``.  Difference: Lean's ``encode`` is total (the theorem assumes
    ``IsAsciiString``); this ASCII-only function raises
    :class:`~verified_bpe.errors.NonAsciiError` for a character above 127.
    """
    for position, char in enumerate(text):
        if ord(char) > 127:
            raise NonAsciiError(position, char)
    return encode_with(pre_tokenize_ascii, merges, byte_shuffle, text)


def decode(vocab: Mapping[int, bytes], inverse_shuffle: Sequence[int], ids: Sequence[int]) -> str:
    """``decode``: :func:`decode_chunk`, then strict UTF-8 decoding.

    Lean: ``Bpe.Seed.Encode.decode`` (``none`` on an unknown id or invalid UTF-8; here
    :class:`~verified_bpe.errors.UnknownTokenError` /
    :class:`~verified_bpe.errors.InvalidUtf8Error`).
    """
    return bytes_to_string(decode_chunk(vocab, inverse_shuffle, ids))
