r"""The Llama 3 pre-tokenizers over Unicode (llama.cpp's ``llama-bpe``, Meta's ``tokenizer.model``).

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

Meta's pattern ``LLAMA3_META_PATTERN`` differs only in the first branch,
``(?i:'s|'t|'re|'ve|'m|'ll|'d)``: o200k's case-folding ``match_contraction`` of
:mod:`.pretokenize` (``'ſ``, U+017F, is a contraction there).  :func:`next_chunk_len_with`
takes the first branch as a parameter; Lean proves Meta's machine equal to ``find_iter`` of
``llama3MetaPattern`` (``Bpe.Regex.Llama3Meta.preTokenizeLlama3Meta_eq_findIter``) and rank BPE
over it equal to tiktoken's ``encode_ordinary`` with it for every table
(``Bpe.Regex.Llama3Meta.encodeRanksWith_llama3Meta_eq_tiktokenEncodeOrdinary``).
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
from .pretokenize import (
    match_contraction as match_contraction_caseless,
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


#: The six branches after the contractions, in priority order (shared by both patterns).
SHARED_MATCHERS: tuple[Callable[[Sequence[int], int], int], ...] = (
    match_word,
    match_digits,
    match_punct,
    match_newline_ws,
    match_trailing_ws,
    match_ws,
)

#: The seven branches of llama.cpp's pattern in priority order.
BRANCH_MATCHERS: tuple[Callable[[Sequence[int], int], int], ...] = (
    match_contraction,
    *SHARED_MATCHERS,
)


def next_chunk_len_with(
    contraction: Callable[[Sequence[int], int], int], cps: Sequence[int], i: int
) -> int:
    """Length (code points) of the chunk at ``i`` under a Llama 3 pattern whose first branch is
    ``contraction``: the first branch that matches (evaluated lazily), else 1.

    Lean: ``Bpe.Unicode.Llama3.nextChunkLenWith``.
    """
    return first_match(match(cps, i) for match in (contraction, *SHARED_MATCHERS))


def next_chunk_len(cps: Sequence[int], i: int) -> int:
    """llama.cpp's machine (ASCII-pair contractions).

    Lean: ``Bpe.Unicode.Llama3.nextChunkLen``.
    """
    return next_chunk_len_with(match_contraction, cps, i)


def next_chunk_len_meta(cps: Sequence[int], i: int) -> int:
    """Meta's machine (``(?i:…)`` contractions).

    Lean: ``Bpe.Unicode.Llama3.nextChunkLenMeta``.
    """
    return next_chunk_len_with(match_contraction_caseless, cps, i)


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


def pre_tokenize_llama3_meta(data: bytes) -> list[bytes]:
    """Meta's Llama 3 pre-tokenizer on UTF-8 bytes.

    Lean: ``Bpe.Unicode.Llama3.preTokenizeLlama3Meta``; its chunks concatenate back to
    ``data`` (``flatten_preTokenizeLlama3Meta``).
    """
    return pre_tokenize_with(next_chunk_len_meta, data)
