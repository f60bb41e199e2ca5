r"""The Llama 3 pre-tokenizer over Unicode (llama.cpp's ``llama-bpe``).

Lean: ``Bpe.Unicode.Llama3``.  The pattern ``LLAMA3_PATTERN`` of
:mod:`verified_bpe.engine.patterns`::

    (?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])   match_contraction  (ASCII pairs)
    [^\r\n\p{L}\p{N}]?\p{L}+                                    match_word         (cl100k's)
    \p{N}{1,3}                                                  match_digits       (shared)
     ?[^\s\p{L}\p{N}]+[\r\n]*                                   match_punct        (cl100k's)
    \s*[\r\n]+                                                  match_newline_ws   (shared)
    \s+(?!\S)                                                   match_trailing_ws  (shared)
    \s+                                                         match_ws           (shared)

Each matcher returns the length in code points of its branch's match at ``i`` (0 = no match);
:func:`next_chunk_len` takes the first branch that matches.  Lean proves the machine equal to
``find_iter`` of the pattern for every list of code points
(``Bpe.Regex.Llama3.preTokenizeLlama3_eq_findIter``, with ``Llama3.exists_branch_ne_zero``:
the 1-unit fallback never fires), rank BPE over its chunks equal to tiktoken's
``encode_ordinary`` with the pattern for every rank table
(``Bpe.Regex.Llama3.encodeRanksWith_llama3_eq_tiktokenEncodeOrdinary``), its roundtrip under
``RanksDecodeOk`` (``Bpe.Regex.Llama3.decodeRanks_tiktokenEncodeOrdinary_llama3_of_decodeOk``),
and the seed's encoder equal to it under ``RanksOk``
(``Bpe.Regex.Llama3.encodeLlama3_eq_tiktokenEncodeOrdinary``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ..seed.encode import encode_with
from ..seed.roundtrip import theorem_bpe_roundtrip
from .cl100k import match_punct, match_word
from .pretokenize import (
    first_match,
    match_digits,
    match_newline_ws,
    match_trailing_ws,
    match_ws,
    pre_tokenize_with,
)


def head_is(a: int, b: int, cps: Sequence[int], i: int) -> bool:
    """The code point at ``i`` is ``a`` or ``b`` (false at the end).

    Lean: ``Bpe.Unicode.Llama3.headIs``."""
    return i < len(cps) and cps[i] in (a, b)


def match_contraction(cps: Sequence[int], i: int) -> int:
    """``(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])``: ASCII case pairs only.

    Lean: ``Bpe.Unicode.Llama3.matchContraction``."""
    if i + 1 >= len(cps) or cps[i] != 39:
        return 0
    c = cps[i + 1]
    if c in (115, 83) or c in (116, 84):  # s S t T
        return 2
    if c in (114, 82) and head_is(101, 69, cps, i + 2):  # re
        return 3
    if c in (118, 86) and head_is(101, 69, cps, i + 2):  # ve
        return 3
    if c in (109, 77):  # m M
        return 2
    if c in (108, 76) and head_is(108, 76, cps, i + 2):  # ll
        return 3
    if c in (100, 68):  # d D
        return 2
    return 0


#: The seven branches in priority order (the list Lean's ``nextChunkLen`` writes out).
BRANCH_MATCHERS: tuple[Callable[[Sequence[int], int], int], ...] = (
    match_contraction,
    match_word,
    match_digits,
    match_punct,
    match_newline_ws,
    match_trailing_ws,
    match_ws,
)


def next_chunk_len(cps: Sequence[int], i: int) -> int:
    """Length (code points) of the chunk at ``i``: the first branch that matches (evaluated
    lazily), else 1.

    Lean: ``Bpe.Unicode.Llama3.nextChunkLen``.
    """
    return first_match(match(cps, i) for match in BRANCH_MATCHERS)


def pre_tokenize_llama3(data: bytes) -> list[bytes]:
    """The Llama 3 pre-tokenizer on UTF-8 bytes.

    Lean: ``Bpe.Unicode.Llama3.preTokenizeLlama3``; its chunks concatenate back to ``data``
    (``flatten_preTokenizeLlama3``) and none is empty (``ne_nil_of_mem_preTokenizeLlama3``).
    """
    return pre_tokenize_with(next_chunk_len, data)


def encode_llama3(
    merges: Mapping[tuple[int, int], int], byte_shuffle: Sequence[int], text: str
) -> list[int]:
    """Llama 3's encoder with the seed's merge loop: ``encode_with`` this pre-tokenizer.

    Lean: ``Bpe.Unicode.Llama3.encodeLlama3``.
    """
    return encode_with(pre_tokenize_llama3, merges, byte_shuffle, text)


def theorem_encode_llama3_roundtrip(
    merges: Mapping[tuple[int, int], int],
    vocab: Mapping[int, bytes],
    byte_shuffle: Sequence[int],
    inverse_shuffle: Sequence[int],
    text: str,
) -> bool:
    """``decode (encode_llama3 text) == text`` for well-formed tables, for every string.

    Lean: ``Bpe.Unicode.Llama3.encodeLlama3_roundtrip``.
    """
    return theorem_bpe_roundtrip(
        pre_tokenize_llama3, merges, vocab, byte_shuffle, inverse_shuffle, text
    )
