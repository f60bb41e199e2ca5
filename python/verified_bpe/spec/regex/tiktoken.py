"""The whole encoder as tiktoken's ``encode_ordinary`` (issue 22, step 5).

Lean: ``Bpe.Regex.Tiktoken``.  :func:`tiktoken_encode_ordinary` reads as tiktoken 0.14's
``_encode_ordinary_native``: for each match of ``find_iter`` over the text, the match's UTF-8
bytes are one piece; a piece that is a token gives its rank, any other goes through
``byte_pair_encode`` (``encode_piece_ranks_by_size``); the ids are concatenated.  Lean proves
that under ``RanksOk`` the seed's encoder with the recovered merges returns these ids for every
string (``Bpe.Regex.Tiktoken.encodeCl100k_eq_tiktokenEncodeOrdinary`` and
``Bpe.Regex.Tiktoken.encodeO200k_eq_tiktokenEncodeOrdinary``, the instances of
``Bpe.Regex.Tiktoken.encodeWith_eq_tiktokenEncodeOrdinary``), and that under ``RanksOk``
decoding its ids gives the string back
(``Bpe.Regex.Tiktoken.decodeRanks_tiktokenEncodeOrdinary_cl100k``,
``Bpe.Regex.Tiktoken.decodeRanks_tiktokenEncodeOrdinary_o200k``, the instances of
``Bpe.Regex.Tiktoken.decodeRanks_tiktokenEncodeOrdinary``).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..ranks.basic import RankTable
from ..ranks.large import encode_piece_ranks_by_size
from .match import find_iter
from .syntax import Classes, Re


def _char_of_nat(n: int) -> str:
    """Lean's ``Char.ofNat``: the character of a valid code point, ``"\\0"`` otherwise."""
    return chr(n) if n < 0xD800 or 0xDFFF < n < 0x110000 else "\0"


def match_bytes(m: Sequence[int]) -> bytes:
    """The UTF-8 bytes of a match (Rust's ``mat.as_str().as_bytes()``).

    Lean: ``matchBytes`` (``Bpe.Regex.Tiktoken.matchBytes_map_toNat``: on a string's
    characters, their UTF-8 encodings).
    """
    return "".join(_char_of_nat(n) for n in m).encode("utf-8")


def tiktoken_encode_ordinary(c: Classes, r: Re, ranks: RankTable, s: str) -> list[int] | None:
    """tiktoken's ``encode_ordinary`` with pattern ``r`` read through the classes ``c``
    (``None`` where tiktoken would fail on a missing rank).  Lean: ``tiktokenEncodeOrdinary``.
    """
    out: list[int] = []
    for m in find_iter(c, r, [ord(ch) for ch in s]):
        ids = encode_piece_ranks_by_size(ranks, match_bytes(m))
        if ids is None:
            return None
        out += ids
    return out
