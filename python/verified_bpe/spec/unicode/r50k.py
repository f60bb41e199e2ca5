r"""The r50k_base pre-tokenizer (GPT-2's pattern) over Unicode, as tiktoken 0.14 ships it.

Lean: ``Bpe.Unicode.R50k``.  The pattern ``r50k_pat_str`` (``tiktoken_ext/openai_public.py``;
the encodings gpt2, r50k_base, p50k_base, p50k_edit)::

    '(?:[sdmt]|ll|ve|re)               match_contraction   (case-sensitive)
     ?\p{L}++                          match_space_run(is_l)
     ?\p{N}++                          match_space_run(is_n)
     ?[^\s\p{L}\p{N}]++                match_space_run(is_punct)
    \s++$                              match_end_ws        (cl100k's)
    \s+(?!\S)                          match_trailing_ws   (shared)
    \s                                 match_one_ws        (cl100k's)

Each matcher returns the length in code points of its branch's match at ``i`` (0 = no match);
:func:`next_chunk_len` takes the first branch that matches.  Lean proves the machine equal to
``find_iter`` of the pattern for every list of code points
(``Bpe.Regex.R50k.preTokenizeR50k_eq_findIter``, with ``R50k.exists_branch_ne_zero``: the
1-unit fallback never fires), and the encoder equal to tiktoken's ``encode_ordinary`` under
``RanksOk`` (``Bpe.Regex.TiktokenR50k.encodeR50k_eq_tiktokenEncodeOrdinary``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ..seed.encode import encode_with
from ..seed.roundtrip import theorem_bpe_roundtrip
from .cl100k import match_end_ws, match_one_ws
from .pretokenize import first_match, is_punct, match_trailing_ws, pre_tokenize_with, run_length
from .tables import is_l, is_n


def match_contraction(cps: Sequence[int], i: int) -> int:
    """``'(?:[sdmt]|ll|ve|re)``: an apostrophe, then ``s d m t`` or ``ll ve re`` (case matters).

    Lean: ``Bpe.Unicode.R50k.matchContraction``.
    """
    if i + 1 < len(cps) and cps[i] == 39:
        c = cps[i + 1]
        if c in (115, 100, 109, 116):  # s d m t
            return 2
        if i + 2 < len(cps) and (c, cps[i + 2]) in ((108, 108), (118, 101), (114, 101)):
            return 3  # ll ve re
    return 0


def match_space_run(pred: Callable[[int], bool], cps: Sequence[int], i: int) -> int:
    """`` ?X++`` for a class ``X`` (``pred``) without the space: the space and the run after it
    if that run is not empty, else the run at ``i``.

    Lean: ``Bpe.Unicode.R50k.matchSpaceRun``.
    """
    if i >= len(cps):
        return 0
    if cps[i] == 32:
        n = run_length(pred, cps, i + 1)
        return 0 if n == 0 else n + 1
    return run_length(pred, cps, i)


#: The seven branches in priority order (the list Lean's ``nextChunkLen`` writes out).
BRANCH_MATCHERS: tuple[Callable[[Sequence[int], int], int], ...] = (
    match_contraction,
    lambda cps, i: match_space_run(is_l, cps, i),
    lambda cps, i: match_space_run(is_n, cps, i),
    lambda cps, i: match_space_run(is_punct, cps, i),
    match_end_ws,
    match_trailing_ws,
    match_one_ws,
)


def next_chunk_len(cps: Sequence[int], i: int) -> int:
    """Length (code points) of the chunk at ``i``: the first branch that matches (evaluated
    lazily), else 1.

    Lean: ``Bpe.Unicode.R50k.nextChunkLen``.
    """
    return first_match(match(cps, i) for match in BRANCH_MATCHERS)


def pre_tokenize_r50k(data: bytes) -> list[bytes]:
    """The r50k_base pre-tokenizer on UTF-8 bytes.

    Lean: ``Bpe.Unicode.R50k.preTokenizeR50k``; its chunks concatenate back to ``data``
    (``flatten_preTokenizeR50k``) and none is empty (``ne_nil_of_mem_preTokenizeR50k``).
    """
    return pre_tokenize_with(next_chunk_len, data)


def encode_r50k(
    merges: Mapping[tuple[int, int], int], byte_shuffle: Sequence[int], text: str
) -> list[int]:
    """r50k_base's encoder (also p50k_base's and gpt2's): ``encode_with`` this pre-tokenizer.

    Lean: ``Bpe.Unicode.R50k.encodeR50k``.
    """
    return encode_with(pre_tokenize_r50k, merges, byte_shuffle, text)


def theorem_encode_r50k_roundtrip(
    merges: Mapping[tuple[int, int], int],
    vocab: Mapping[int, bytes],
    byte_shuffle: Sequence[int],
    inverse_shuffle: Sequence[int],
    text: str,
) -> bool:
    """``decode (encode_r50k text) == text`` for well-formed tables, for every string.

    Lean: ``Bpe.Unicode.R50k.encodeR50k_roundtrip``.
    """
    return theorem_bpe_roundtrip(
        pre_tokenize_r50k, merges, vocab, byte_shuffle, inverse_shuffle, text
    )
