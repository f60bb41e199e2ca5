r"""The o200k_base pre-tokenizer on ASCII input, as a state machine.

Python only: there is no Lean counterpart (yet); a Lean module ``PreTokenizeO200k`` would
mirror the functions below one to one.  Same conventions as :mod:`.pretokenize`; the
o200k_base pattern (tiktoken_ext.openai_public) restricted to ASCII, where
``\p{Lu}``/``\p{Lt}`` are ``A-Z``, ``\p{Ll}`` is ``a-z`` and ``\p{Lm}``/``\p{Lo}``/``\p{M}``
are empty::

    [^\r\n\p{L}\p{N}]?[Lu Lt Lm Lo M]*[Ll Lm Lo M]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
                                                   match_word_cased
    [^\r\n\p{L}\p{N}]?[Lu Lt Lm Lo M]+[Ll Lm Lo M]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
                                                   match_word_upper
    \p{N}{1,3}                                     match_digits        (shared)
     ?[^\s\p{L}\p{N}]+[\r\n/]*                     match_punct_o200k
    \s*[\r\n]+                                     match_newline_ws    (shared)
    \s+(?!\S)                                      match_trailing_ws   (shared)
    \s+                                            match_other_ws      (shared)

The contraction suffix is the same set as cl100k's contraction branch, so
:func:`.pretokenize.match_contraction` is reused.  ``\s*[\r\n]+`` has the same length as
``\s*[\r\n]`` (``\s*`` backs off to the *last* newline of the run, after which ``[\r\n]+``
can take only that newline).
"""

from __future__ import annotations

from .classify import is_punct
from .pretokenize import (
    is_word_lead,
    match_contraction,
    match_digits,
    match_newline_ws,
    match_other_ws,
    match_trailing_ws,
    run_length,
)


def is_upper(b: int) -> bool:
    """``A-Z``.  Lean: none (would be ``isUpper``)."""
    return 65 <= b <= 90


def is_lower(b: int) -> bool:
    """``a-z``.  Lean: none (would be ``isLower``)."""
    return 97 <= b <= 122


def match_word_cased(data: bytes, i: int) -> int:
    """Lead?, upper*, lower+, contraction?.  Lean: none (would be ``matchWordCased``).

    Backtracking never helps: giving back an upper-case letter cannot start the lower-case
    run, and giving back the lead leaves a non-letter in front.
    """
    lead = 1 if i < len(data) and is_word_lead(data[i]) else 0
    upper = run_length(is_upper, data, i + lead)
    lower = run_length(is_lower, data, i + lead + upper)
    if lower == 0:
        return 0
    end = i + lead + upper + lower
    return end + match_contraction(data, end) - i


def match_word_upper(data: bytes, i: int) -> int:
    """Lead?, upper+, lower*, contraction?.  Lean: none (would be ``matchWordUpper``)."""
    lead = 1 if i < len(data) and is_word_lead(data[i]) else 0
    upper = run_length(is_upper, data, i + lead)
    if upper == 0:
        return 0
    lower = run_length(is_lower, data, i + lead + upper)
    end = i + lead + upper + lower
    return end + match_contraction(data, end) - i


def is_punct_tail(b: int) -> bool:
    """``[\\r\\n/]``.  Lean: none (would be ``isPunctTail``)."""
    return b == 10 or b == 13 or b == 47


def match_punct_o200k(data: bytes, i: int) -> int:
    r"""`` ?[^\s\p{L}\p{N}]+[\r\n/]*``.  Lean: none (would be ``matchPunct``).

    The greedy punctuation run is maximal, and then ``[\r\n/]*`` takes any mix of newlines
    and slashes (a slash after a newline included).
    """
    lead = 1 if i < len(data) and data[i] == 32 else 0
    puncts = run_length(is_punct, data, i + lead)
    if puncts == 0:
        return 0
    return lead + puncts + run_length(is_punct_tail, data, i + lead + puncts)


def next_chunk_len_o200k(data: bytes, i: int) -> int:
    """First matching branch in pattern order, else 1.

    Lean: none (would be ``nextChunkLen``).
    """
    for branch in (
        match_word_cased,
        match_word_upper,
        match_digits,
        match_punct_o200k,
        match_newline_ws,
        match_trailing_ws,
        match_other_ws,
    ):
        n = branch(data, i)
        if n > 0:
            return n
    return 1


def pre_tokenize_ascii_o200k(data: bytes) -> list[bytes]:
    """Split ``data`` into consecutive non-empty chunks (o200k_base, ASCII).

    Lean: none (would be ``preTokenizeAscii``).
    """
    chunks: list[bytes] = []
    i = 0
    while i < len(data):
        n = next_chunk_len_o200k(data, i)
        chunks.append(data[i : i + n])
        i += n
    return chunks
