r"""Pre-tokenization patterns and the general (full-Unicode) regex pre-tokenizer.

The ASCII state machines in :mod:`verified_bpe.spec.pretokenize` and
:mod:`verified_bpe.spec.pretokenize_o200k` are the proven path; this module handles any
Unicode text with the third-party ``regex`` module (needed for ``\p{L}``, possessive
quantifiers and ``(?i:...)`` groups).

Sources of the constants (facts, checked by ``tests/test_vocab.py`` where tiktoken is
installed): ``CL100K_PATTERN`` and ``O200K_PATTERN`` are the ``pat_str`` values of
``tiktoken_ext/openai_public.py`` in tiktoken 0.14.0; ``CL100K_PATTERN_ORIGINAL`` is the
cl100k pattern as first published (the one the ASCII state machine mirrors branch by
branch); ``GPT2_PATTERN`` is the original GPT-2 release pattern (quoted in a comment
there); ``LLAMA3_PATTERN`` is the
Llama-3 pattern as used by llama.cpp (seed 003).
"""

from __future__ import annotations

import re

import regex

from .errors import PatternError, PatternTimeoutError

GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?[\p{L}]+| ?[\p{N}]+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""

CL100K_PATTERN_ORIGINAL = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*"""
    r"""|\s*[\r\n]|\s+(?!\S)|\s+"""
)

CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)

GPT4_PATTERN = CL100K_PATTERN

O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+"""
        r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*"""
        r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)

LLAMA3_PATTERN = (
    r"""(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+"""
    r"""|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)

PATTERNS = {
    "gpt2": GPT2_PATTERN,
    "cl100k_base": CL100K_PATTERN,
    "o200k_base": O200K_PATTERN,
    "llama3": LLAMA3_PATTERN,
}


#: Patterns written in this package (their running time is linear in practice); any other
#: pattern (a ``.model`` file's, ``train --pattern``, ``Tokenizer.from_ranks``) runs under a
#: time budget, :func:`pattern_timeout`.
TRUSTED_PATTERNS: frozenset[str] = frozenset({*PATTERNS.values(), CL100K_PATTERN_ORIGINAL})

#: Time budget of an untrusted pattern on a text of ``n`` characters: ``BASE + PER_CHAR * n``
#: seconds (the patterns above need at most about 1 us per character; 50 us leaves room for
#: a loaded machine).  Exceeding it raises :class:`~verified_bpe.errors.PatternTimeoutError`.
PATTERN_TIMEOUT_BASE = 1.0
PATTERN_TIMEOUT_PER_CHAR = 50e-6


def compile_pattern(pattern: str) -> regex.Pattern[str]:
    """Compile with the ``regex`` module (it keeps its own cache of compiled patterns).

    A pattern that does not compile: :class:`~verified_bpe.errors.PatternError`.
    """
    if not isinstance(pattern, str):
        raise PatternError(repr(pattern), "a split pattern must be a str")
    try:
        return regex.compile(pattern)
    except (regex.error, OverflowError, RecursionError, ValueError, TypeError) as exc:
        raise PatternError(pattern, str(exc) or type(exc).__name__) from None


def pattern_timeout(pattern: str, n_chars: int) -> float | None:
    """The time budget (seconds) for splitting ``n_chars`` characters with ``pattern``:
    ``None`` (no limit) for :data:`TRUSTED_PATTERNS`."""
    if pattern in TRUSTED_PATTERNS:
        return None
    return PATTERN_TIMEOUT_BASE + PATTERN_TIMEOUT_PER_CHAR * n_chars


def split_pattern(
    compiled: regex.Pattern[str] | re.Pattern[str], text: str, timeout: float | None = None
) -> list[str]:
    """The pieces of ``text``: the WHOLE match (``group(0)``) of each successive match of
    ``compiled``, as tiktoken does.  ``findall`` would be wrong: with a capturing group it
    returns the group's contents instead of the match (and tuples for several groups).

    ``timeout`` (seconds, ``regex`` patterns only) bounds the whole split; exceeding it
    raises :class:`~verified_bpe.errors.PatternTimeoutError` naming the pattern.  Matches
    are collected before they are returned, so the caller's work is not charged to it.
    """
    if timeout is None:
        return [found.group(0) for found in compiled.finditer(text)]
    try:
        return [found.group(0) for found in compiled.finditer(text, timeout=timeout)]  # type: ignore[call-overload]
    except TimeoutError:
        raise PatternTimeoutError(compiled.pattern, timeout, len(text)) from None


def pre_tokenize_regex(text: str, pattern: str) -> list[bytes]:
    """Split ``text`` with ``pattern`` (:func:`split_pattern`: whole matches, under the
    budget :func:`pattern_timeout`) and UTF-8 encode each chunk.

    For the patterns above every character of any text belongs to some match, so the chunks
    concatenate to ``text.encode("utf-8")`` (tested).  Lone surrogates cannot be encoded:
    ``UnicodeEncodeError`` (the tokenizer replaces them first, like tiktoken).
    """
    compiled = compile_pattern(pattern)
    pieces = split_pattern(compiled, text, pattern_timeout(pattern, len(text)))
    return [piece.encode("utf-8") for piece in pieces]


#: ASCII meaning of the Unicode properties used by the patterns above.
_ASCII_CLASSES = {
    r"\p{L}": "A-Za-z",
    r"\p{Lu}": "A-Z",
    r"\p{Lt}": "",
    r"\p{Ll}": "a-z",
    r"\p{Lm}": "",
    r"\p{Lo}": "",
    r"\p{M}": "",
    r"\p{N}": "0-9",
}


def ascii_pattern(pattern: str) -> str:
    r"""The same pattern for ASCII-only text, for the standard library's ``re`` with
    ``re.ASCII`` (Python >= 3.11 has possessive quantifiers): each ``\p{...}`` becomes its
    ASCII range (``\p{L}`` -> ``A-Za-z``, ``\p{N}`` -> ``0-9``, ``\p{Lm}`` -> nothing, ...),
    wrapped in ``[...]`` when it stands outside a character class.  On ASCII input, ``re``
    with ``re.ASCII`` then agrees with ``regex`` on the original pattern (``\s`` is 9-13 and
    32 in both).  Tested exhaustively on short strings; used by the fast engine, which is
    about 2.5x faster with ``re`` than with ``regex``.

    Raises ``ValueError`` for a property it does not know or an empty class outside ``[]``.
    """
    out: list[str] = []
    i = 0
    depth = 0  # inside [...]?
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            if pattern.startswith(("\\p{", "\\P{"), i):
                end = pattern.index("}", i)
                prop = "\\p" + pattern[i + 2 : end + 1]
                if pattern[i + 1] == "P" or prop not in _ASCII_CLASSES:
                    raise ValueError(f"no ASCII translation for {pattern[i : end + 1]!r}")
                ranges = _ASCII_CLASSES[prop]
                if depth:
                    out.append(ranges)
                elif ranges:
                    out.append("[" + ranges + "]")
                else:
                    raise ValueError(f"{prop} is empty on ASCII outside a character class")
                i = end + 1
                continue
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if ch == "[" and not depth:
            depth = 1
        elif ch == "]" and depth and out and out[-1] != "[" and out[-1] != "[^":
            depth = 0
        out.append(ch)
        if ch == "[" and pattern.startswith("[^", i):
            out[-1] = "[^"
            i += 2
            continue
        i += 1
    return "".join(out)
