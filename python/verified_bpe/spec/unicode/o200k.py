r"""The o200k_base pre-tokenizer over Unicode.

Lean: ``Bpe.Unicode.O200k``.  With ``U = [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]``,
``W = [\p{Ll}\p{Lm}\p{Lo}\p{M}]`` and ``C = (?i:'s|'t|'re|'ve|'m|'ll|'d)`` the pattern
(``tiktoken_ext/openai_public.py``) is::

    [^\r\n\p{L}\p{N}]?U*W+C?           match_word_cased
    [^\r\n\p{L}\p{N}]?U+W*C?           match_word_upper
    \p{N}{1,3}                         match_digits        (shared)
     ?[^\s\p{L}\p{N}]+[\r\n/]*         match_punct
    \s*[\r\n]+                         match_newline_ws    (shared; same length as \s*[\r\n])
    \s+(?!\S)                          match_trailing_ws   (shared)
    \s+                                match_ws            (shared)

Unlike cl100k's, these quantifiers are not possessive, and the classes overlap (marks are
word leads and in both ``U`` and ``W``; ``Lm``/``Lo`` are in both ``U`` and ``W``), so the
matchers compute the first match of the backtracking order:

* ``U*W+`` (:func:`cased_core`): after the greedy ``U`` run, ``W+`` either continues with a
  ``W`` run, or backs off to just after the last ``W`` code point inside the ``U`` run;
* ``U+W*`` (:func:`upper_core`): the ``U`` run (at least one) and then the ``W`` run;
* the optional lead (:func:`with_lead`) is tried first, and dropped if the rest fails;
* ``C?`` (:func:`with_contraction`) is taken when it matches after the word.

The contraction set is cl100k's (:func:`.pretokenize_unicode.match_contraction`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .pretokenize import (
    drop_code_points,
    first_match,
    is_punct,
    is_word_lead,
    match_contraction,
    match_digits,
    match_newline_ws,
    match_trailing_ws,
    match_ws,
    pre_tokenize_with,
    run_length,
)
from .tables import is_ll, is_lm, is_lo, is_lt, is_lu, is_m


def is_upper_class(c: int) -> bool:
    r"""``[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]``.  Lean: ``Bpe.Unicode.O200k.isUpperClass``."""
    return is_lu(c) or is_lt(c) or is_lm(c) or is_lo(c) or is_m(c)


def is_lower_class(c: int) -> bool:
    r"""``[\p{Ll}\p{Lm}\p{Lo}\p{M}]``.  Lean: ``Bpe.Unicode.O200k.isLowerClass``."""
    return is_ll(c) or is_lm(c) or is_lo(c) or is_m(c)


def last_lower_end(n: int, cps: Sequence[int], i: int) -> int:
    """One past the last ``W`` code point among the ``n`` from ``i``, or 0 if none.

    Lean: ``Bpe.Unicode.O200k.lastLowerEnd``.
    """
    end = 0
    for k in range(min(n, len(cps) - i)):
        if is_lower_class(cps[i + k]):
            end = k + 1
    return end


def cased_core(cps: Sequence[int], i: int) -> int:
    """``U*W+``: length of its first match at ``i`` in backtracking order, 0 if none.

    Lean: ``Bpe.Unicode.O200k.casedCore``.
    """
    u = run_length(is_upper_class, cps, i)
    w = run_length(is_lower_class, cps, drop_code_points(u, cps, i))
    return u + w if w != 0 else last_lower_end(u, cps, i)


def upper_core(cps: Sequence[int], i: int) -> int:
    """``U+W*``: the ``U`` run (at least one) then the ``W`` run, 0 if no ``U``.

    Lean: ``Bpe.Unicode.O200k.upperCore``.
    """
    u = run_length(is_upper_class, cps, i)
    return 0 if u == 0 else u + run_length(is_lower_class, cps, drop_code_points(u, cps, i))


def with_lead(core: Callable[[Sequence[int], int], int], cps: Sequence[int], i: int) -> int:
    r"""``[^\r\n\p{L}\p{N}]?`` before ``core``: with the lead if that matches, else without.

    Lean: ``Bpe.Unicode.O200k.withLead``.
    """
    if i < len(cps) and is_word_lead(cps[i]):
        n = core(cps, i + 1)
        if n != 0:
            return n + 1
    return core(cps, i)


def with_contraction(n: int, cps: Sequence[int], i: int) -> int:
    """A word of length ``n`` at ``i`` followed by ``C?``; 0 stays 0.

    Lean: ``Bpe.Unicode.O200k.withContraction``.
    """
    return 0 if n == 0 else n + match_contraction(cps, drop_code_points(n, cps, i))


def match_word_cased(cps: Sequence[int], i: int) -> int:
    r"""``[^\r\n\p{L}\p{N}]?U*W+C?``.  Lean: ``Bpe.Unicode.O200k.matchWordCased``."""
    return with_contraction(with_lead(cased_core, cps, i), cps, i)


def match_word_upper(cps: Sequence[int], i: int) -> int:
    r"""``[^\r\n\p{L}\p{N}]?U+W*C?``.  Lean: ``Bpe.Unicode.O200k.matchWordUpper``."""
    return with_contraction(with_lead(upper_core, cps, i), cps, i)


def is_punct_tail(c: int) -> bool:
    r"""``[\r\n/]``.  Lean: ``Bpe.Unicode.O200k.isPunctTail``."""
    return c == 10 or c == 13 or c == 47


def match_punct(cps: Sequence[int], i: int) -> int:
    r"""`` ?[^\s\p{L}\p{N}]+[\r\n/]*``.  Lean: ``Bpe.Unicode.O200k.matchPunct``.

    Giving back the space cannot help (a space is not punctuation), nor can shortening the
    punctuation run (``[\r\n/]*`` always matches).
    """
    lead = 1 if i < len(cps) and cps[i] == 32 else 0
    n = run_length(is_punct, cps, drop_code_points(lead, cps, i))
    if n == 0:
        return 0
    return lead + n + run_length(is_punct_tail, cps, drop_code_points(lead + n, cps, i))


#: The seven branches in priority order (the list Lean's ``nextChunkLen`` writes out).
BRANCH_MATCHERS: tuple[Callable[[Sequence[int], int], int], ...] = (
    match_word_cased,
    match_word_upper,
    match_digits,
    match_punct,
    match_newline_ws,
    match_trailing_ws,
    match_ws,
)


def next_chunk_len(cps: Sequence[int], i: int) -> int:
    """Length (code points) of the chunk at ``i``: the first branch that matches, else 1.

    Lean: ``Bpe.Unicode.O200k.nextChunkLen``.
    """
    return first_match(match(cps, i) for match in BRANCH_MATCHERS)


def pre_tokenize_o200k(data: bytes) -> list[bytes]:
    """The o200k_base pre-tokenizer on UTF-8 bytes.

    Lean: ``Bpe.Unicode.O200k.preTokenizeO200k``; its chunks concatenate back to ``data``
    (``flatten_preTokenizeO200k``) and none is empty (``ne_nil_of_mem_preTokenizeO200k``).
    """
    return pre_tokenize_with(next_chunk_len, data)
