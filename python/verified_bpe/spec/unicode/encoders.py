"""The two published encoders over Unicode, and their roundtrip for every string.

Lean: ``Bpe.Unicode.Encoders``.  ``encode_cl100k`` and ``encode_o200k`` are ``encode_with`` with the
Unicode pre-tokenizer of the encoding; their roundtrip theorems are corollaries of
``bpe_roundtrip`` (the pre-tokenizers partition their input).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..seed.encode import encode_with
from ..seed.roundtrip import theorem_bpe_roundtrip
from .cl100k import pre_tokenize_cl100k
from .o200k import pre_tokenize_o200k


def encode_cl100k(
    merges: Mapping[tuple[int, int], int], byte_shuffle: Sequence[int], text: str
) -> list[int]:
    """cl100k_base's encoder: ``encode_with`` the cl100k Unicode pre-tokenizer.

    Lean: ``Bpe.Unicode.Encoders.encodeCl100k``.
    """
    return encode_with(pre_tokenize_cl100k, merges, byte_shuffle, text)


def encode_o200k(
    merges: Mapping[tuple[int, int], int], byte_shuffle: Sequence[int], text: str
) -> list[int]:
    """o200k_base's encoder: ``encode_with`` the o200k Unicode pre-tokenizer.

    Lean: ``Bpe.Unicode.Encoders.encodeO200k``.
    """
    return encode_with(pre_tokenize_o200k, merges, byte_shuffle, text)


def theorem_encode_cl100k_roundtrip(
    merges: Mapping[tuple[int, int], int],
    vocab: Mapping[int, bytes],
    byte_shuffle: Sequence[int],
    inverse_shuffle: Sequence[int],
    text: str,
) -> bool:
    """``decode (encode_cl100k text) == text`` for well-formed tables, for every string.

    Lean: ``Bpe.Unicode.Encoders.encodeCl100k_roundtrip``.
    """
    return theorem_bpe_roundtrip(
        pre_tokenize_cl100k, merges, vocab, byte_shuffle, inverse_shuffle, text
    )


def theorem_encode_o200k_roundtrip(
    merges: Mapping[tuple[int, int], int],
    vocab: Mapping[int, bytes],
    byte_shuffle: Sequence[int],
    inverse_shuffle: Sequence[int],
    text: str,
) -> bool:
    """``decode (encode_o200k text) == text`` for well-formed tables, for every string.

    Lean: ``Bpe.Unicode.Encoders.encodeO200k_roundtrip``.
    """
    return theorem_bpe_roundtrip(
        pre_tokenize_o200k, merges, vocab, byte_shuffle, inverse_shuffle, text
    )
