r"""The cl100k_base pre-tokenizer over Unicode, as tiktoken 0.14 ships it.

Lean: ``Bpe.Unicode.Cl100k``.  The pattern (``tiktoken_ext/openai_public.py``)::

    '(?i:[sdmt]|ll|ve|re)              match_contraction   (shared)
    [^\r\n\p{L}\p{N}]?+\p{L}++         match_word
    \p{N}{1,3}+                        match_digits        (shared)
     ?[^\s\p{L}\p{N}]++[\r\n]*+        match_punct
    \s++$                              match_end_ws
    \s*[\r\n]                          match_newline_ws    (shared)
    \s+(?!\S)                          match_trailing_ws   (shared)
    \s                                 match_one_ws

Each matcher returns the length in code points of its branch's match at ``i`` (0 = no match);
:func:`next_chunk_len` takes the first branch that matches (alternation is ordered).  Branches
are over code points with the classes of :mod:`.unicode_tables`.  Possessive quantifiers
change nothing here: no branch could succeed by giving back what they took (the lead of
``match_word`` is not a letter, a space is not punctuation).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .pretokenize import (
    drop_code_points,
    first_match,
    is_newline,
    is_punct,
    is_word_lead,
    match_contraction,
    match_digits,
    match_newline_ws,
    match_trailing_ws,
    pre_tokenize_with,
    reaches_end,
    run_length,
)
from .tables import is_l, is_white_space


def match_word(cps: Sequence[int], i: int) -> int:
    r"""``[^\r\n\p{L}\p{N}]?+\p{L}++``.  Lean: ``Bpe.Unicode.Cl100k.matchWord``."""
    if i >= len(cps):
        return 0
    c = cps[i]
    if is_l(c):
        return run_length(is_l, cps, i)
    if is_word_lead(c):
        n = run_length(is_l, cps, i + 1)
        return 0 if n == 0 else n + 1
    return 0


def punct_tail(cps: Sequence[int], i: int) -> int:
    r"""``[^\s\p{L}\p{N}]++[\r\n]*+``: 0 unless at least one punctuation code point.

    Lean: ``Bpe.Unicode.Cl100k.punctTail``.
    """
    n = run_length(is_punct, cps, i)
    return 0 if n == 0 else n + run_length(is_newline, cps, drop_code_points(n, cps, i))


def match_punct(cps: Sequence[int], i: int) -> int:
    r"""`` ?[^\s\p{L}\p{N}]++[\r\n]*+``.  Lean: ``Bpe.Unicode.Cl100k.matchPunct``."""
    if i >= len(cps):
        return 0
    if cps[i] == 32:
        n = punct_tail(cps, i + 1)
        return 0 if n == 0 else n + 1
    return punct_tail(cps, i)


def match_end_ws(cps: Sequence[int], i: int) -> int:
    r"""``\s++$``: a whitespace run that reaches the end of the text.

    Lean: ``Bpe.Unicode.Cl100k.matchEndWs``.
    """
    w = run_length(is_white_space, cps, i)
    return w if reaches_end(w, cps, i) else 0


def match_one_ws(cps: Sequence[int], i: int) -> int:
    r"""``\s``.  Lean: ``Bpe.Unicode.Cl100k.matchOneWs``."""
    return 1 if i < len(cps) and is_white_space(cps[i]) else 0


#: The eight branches in priority order (the list Lean's ``nextChunkLen`` writes out).
BRANCH_MATCHERS: tuple[Callable[[Sequence[int], int], int], ...] = (
    match_contraction,
    match_word,
    match_digits,
    match_punct,
    match_end_ws,
    match_newline_ws,
    match_trailing_ws,
    match_one_ws,
)


def next_chunk_len(cps: Sequence[int], i: int) -> int:
    """Length (code points) of the chunk at ``i``: the first branch that matches (evaluated
    lazily, as the kernel does), else 1.

    Lean: ``Bpe.Unicode.Cl100k.nextChunkLen``.
    """
    return first_match(match(cps, i) for match in BRANCH_MATCHERS)


def pre_tokenize_cl100k(data: bytes) -> list[bytes]:
    """The cl100k_base pre-tokenizer on UTF-8 bytes.

    Lean: ``Bpe.Unicode.Cl100k.preTokenizeCl100k``; its chunks concatenate back to
    ``data`` (``flatten_preTokenizeCl100k``) and none is empty
    (``ne_nil_of_mem_preTokenizeCl100k``).
    """
    return pre_tokenize_with(next_chunk_len, data)
