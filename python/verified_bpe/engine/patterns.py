r"""Pre-tokenization patterns and the general (full-Unicode) regex pre-tokenizer.

The ASCII state machines in :mod:`verified_bpe.spec.seed.pretokenize` and
:mod:`verified_bpe.spec.unicode.o200k` are the proven path; this module handles any
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
from collections.abc import Callable
from functools import cache

import regex

from ..errors import PatternError, PatternTimeoutError

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


def _matches(
    compiled: regex.Pattern[str] | re.Pattern[str], text: str, timeout: float | None
) -> list[regex.Match[str]] | list[re.Match[str]]:
    """Every successive match of ``compiled`` in ``text``, collected under ``timeout``
    (seconds, ``regex`` patterns only; exceeding it raises
    :class:`~verified_bpe.errors.PatternTimeoutError` naming the pattern)."""
    if timeout is None:
        return list(compiled.finditer(text))
    try:
        return list(compiled.finditer(text, timeout=timeout))  # type: ignore[call-overload]
    except TimeoutError:
        raise PatternTimeoutError(compiled.pattern, timeout, len(text)) from None


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
    return [found.group(0) for found in _matches(compiled, text, timeout)]


def pre_tokenize_regex(text: str, pattern: str) -> list[bytes]:
    """Split ``text`` with ``pattern`` as tiktoken's engine reads it (whole matches with the
    character classes pinned to tiktoken's tables, :class:`PinnedSplitter`, under the budget
    :func:`pattern_timeout`) and UTF-8 encode each chunk.

    For the patterns above every character of any text belongs to some match, so the chunks
    concatenate to ``text.encode("utf-8")`` (tested).  Lone surrogates cannot be encoded:
    ``UnicodeEncodeError`` (the tokenizer replaces them first, like tiktoken).
    """
    pieces = pinned_splitter(pattern).split(text, pattern_timeout(pattern, len(text)))
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


#: ``\p{...}`` properties (and ``\s``) that :func:`pin_classes` replaces, with their tables.
PINNED_PROPERTIES = {
    "L": "L_RANGES",
    "N": "N_RANGES",
    "Lu": "LU_RANGES",
    "Ll": "LL_RANGES",
    "Lt": "LT_RANGES",
    "Lm": "LM_RANGES",
    "Lo": "LO_RANGES",
    "M": "M_RANGES",
}


def _class_body(table: str) -> str:
    r"""The ranges of ``verified_bpe.spec.unicode.tables.<table>`` as the inside of a ``regex``
    character class (``\uXXXX``/``\UXXXXXXXX`` escapes, ``a-b`` for a range)."""
    from ..spec.unicode import tables as unicode_tables

    def esc(cp: int) -> str:
        return f"\\u{cp:04X}" if cp <= 0xFFFF else f"\\U{cp:08X}"

    ranges = getattr(unicode_tables, table)
    return "".join(esc(lo) if lo == hi else f"{esc(lo)}-{esc(hi)}" for lo, hi in ranges)


def pin_classes(pattern: str) -> str:
    r"""``pattern`` with its Unicode classes pinned to tiktoken's tables.

    The ``regex`` module's Unicode tables are newer than those of tiktoken's engine, so
    ``\p{L}`` and friends match recently assigned characters that tiktoken does not.  This
    rewrites ``\p{L}``, ``\p{N}``, ``\p{Lu}``, ``\p{Ll}``, ``\p{Lt}``, ``\p{Lm}``, ``\p{Lo}``,
    ``\p{M}`` and ``\s`` into the explicit ranges of :mod:`verified_bpe.spec.unicode.tables`
    (generated from tiktoken by :mod:`verified_bpe.verify.unicode_gen`; Lean:
    ``Bpe.Unicode.Tables``), wrapped in ``[...]`` outside a character class; ``\P{..}`` and
    ``\S`` outside a class become ``[^...]``.  Anything else is kept: other properties,
    ``\P{..}``/``\S`` inside a class (``regex`` has no complement inside a union without
    ``VERSION1``).  Used by the ``fast`` engine, so that it equals tiktoken on every code
    point (``python -m verified_bpe.verify.unicode_gen --scan``).
    """
    out: list[str] = []
    i = 0
    depth = 0  # inside [...]?
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            esc = pattern[i + 1 : i + 2]
            body = None
            width = 2
            if esc in ("p", "P") and pattern.startswith("{", i + 2):
                end = pattern.find("}", i)
                table = PINNED_PROPERTIES.get(pattern[i + 3 : end])
                if table is not None:
                    body = _class_body(table)
                    width = end + 1 - i
            elif esc in ("s", "S"):
                body = _class_body("WHITE_SPACE_RANGES")
            negated = esc in ("P", "S")
            if body is None or (depth and negated):
                out.append(pattern[i : i + 2])
                i += 2
                continue
            out.append(body if depth else ("[^" if negated else "[") + body + "]")
            i += width
            continue
        if ch == "[" and not depth:
            depth = 1
            out.append("[^" if pattern.startswith("[^", i) else "[")
            i += len(out[-1])
            if pattern.startswith("]", i):  # a leading ']' is a literal
                out.append("]")
                i += 1
            continue
        if ch == "]" and depth:
            depth = 0
        out.append(ch)
        i += 1
    return "".join(out)


#: The ``regex`` module's own view of each pinned class, to find where it differs from
#: tiktoken's (:func:`_table_classes`, same order).
_NATIVE_CLASSES = tuple(regex.compile(rf"\p{{{prop}}}") for prop in PINNED_PROPERTIES) + (
    regex.compile(r"\s"),
)
_SAME_CLASSES: set[str] = set()  # characters both views put in the same classes
_OTHER_CLASSES: set[str] = set()  # characters they do not
#: Old, stable non-ASCII characters, one per combination of the classes; a character on which
#: the two views differ is replaced by the one that ``regex`` classifies as tiktoken
#: classifies it (no class, Lu, Ll, Lt, Lm, Lo, M, N, White_Space).
_STAND_IN_CANDIDATES = "\u00a7\u00c0\u00e0\u01c5\u02b0\u05d0\u0301\u0663\u3000"
_CASELESS_ASCII_LETTER = regex.compile(r"(?i)[a-z]")


@cache
def _table_classes() -> tuple[Callable[[int], bool], ...]:
    from ..spec.unicode import tables as unicode_tables

    names = [*PINNED_PROPERTIES.values(), "WHITE_SPACE_RANGES"]  # same order as above
    return tuple(getattr(unicode_tables, "is_" + n.removesuffix("_RANGES").lower()) for n in names)


def _classes(ch: str, native: bool) -> tuple[bool, ...]:
    """The memberships of ``ch`` in the pinned classes, by ``regex`` or by tiktoken."""
    if native:
        return tuple(bool(c.match(ch)) for c in _NATIVE_CLASSES)
    return tuple(t(ord(ch)) for t in _table_classes())


def differing_characters(text: str) -> set[str]:
    r"""The characters of ``text`` that ``regex``'s tables put in another set of the classes
    of :func:`pin_classes` than tiktoken's tables do (each distinct character is classified
    once; the answers are cached)."""
    chars = set(text)
    for ch in chars - _SAME_CLASSES - _OTHER_CLASSES:
        same = _classes(ch, native=True) == _classes(ch, native=False)
        (_SAME_CLASSES if same else _OTHER_CLASSES).add(ch)
    return chars & _OTHER_CLASSES


@cache
def _stand_in_by_classes() -> dict[tuple[bool, ...], str]:
    """The candidates that both views put in the same classes, by those classes."""
    return {
        _classes(d, native=True): d
        for d in _STAND_IN_CANDIDATES
        if _classes(d, native=True) == _classes(d, native=False)
    }


def _stand_ins(chars: set[str]) -> dict[int, str] | None:
    """``{ord(c): d}`` with ``d`` in the same classes for ``regex`` as ``c`` for tiktoken, for
    each of ``chars``; ``None`` if some character has no stand-in."""
    by_classes = _stand_in_by_classes()
    out: dict[int, str] = {}
    for ch in chars:
        d = by_classes.get(_classes(ch, native=False))
        if d is None or _CASELESS_ASCII_LETTER.match(ch):
            return None
        out[ord(ch)] = d
    return out


#: Escapes a pattern may use for the stand-in route (besides the pinned classes): no other
#: property, no ``\w``/``\d``/``\b``, no ``.``; the literals are ASCII.
_NEUTRAL = regex.compile(
    r"(?:\\p\{(?:L|N|Lu|Ll|Lt|Lm|Lo|M)\}|\\P\{(?:L|N|Lu|Ll|Lt|Lm|Lo|M)\}|\\[sSrntfv]"
    r"|\\[^A-Za-z0-9]|[^\\.])*"
)


def stand_ins_allowed(pattern: str) -> bool:
    r"""Whether ``pattern`` reads a non-ASCII character only through the pinned classes: ASCII
    literals, the classes of :func:`pin_classes`, escaped punctuation, ``\r\n\t\f\v``, and no
    ``.``.  True for the GPT-2, cl100k, o200k and Llama-3 patterns."""
    return pattern.isascii() and _NEUTRAL.fullmatch(pattern) is not None


class PinnedSplitter:
    r"""The split of ``pattern`` as tiktoken's engine reads it, at the ``regex`` module's
    speed (the ``fast`` engine's splitter for text with characters above U+FFFF).

    :func:`pin_classes` is exact, but its explicit ranges make ``regex`` 15-50 times slower on
    non-ASCII text (measured on ``/usr/share/locale`` messages).  The native pattern is fast,
    and it splits a text exactly as the pinned one does when ``regex`` classifies each of the
    text's characters as tiktoken does: the split depends on a character only through the
    classes and the pattern's ASCII literals (:func:`stand_ins_allowed`).  So:

    * no :func:`differing_characters` (they are characters assigned after tiktoken's Unicode
      version, and one recategorized letter): the native pattern;
    * otherwise each differing character is replaced by a stand-in in the same classes for
      ``regex`` as it is for tiktoken (same length, so the native matches' spans cut the
      original text);
    * if that is not possible: the pinned pattern, compiled on first use (about 1 s).
    """

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.native = compile_pattern(pattern)
        self._pinned: regex.Pattern[str] | None = None
        self._stand_ins_allowed = stand_ins_allowed(pattern)

    @property
    def pinned(self) -> regex.Pattern[str]:
        """``pin_classes(pattern)``, compiled on first use."""
        if self._pinned is None:
            self._pinned = regex.compile(pin_classes(self.pattern))
        return self._pinned

    def split(self, text: str, timeout: float | None = None) -> list[str]:
        """The whole matches of the pattern in ``text`` as tiktoken's engine finds them
        (:func:`split_pattern`, under ``timeout``)."""
        if text.isascii():
            return split_pattern(self.native, text, timeout)
        differing = differing_characters(text)
        if not differing:
            return split_pattern(self.native, text, timeout)
        table = _stand_ins(differing) if self._stand_ins_allowed else None
        if table is None:
            return split_pattern(self.pinned, text, timeout)
        proxy = text.translate(table)
        return [text[m.start() : m.end()] for m in _matches(self.native, proxy, timeout)]


@cache
def pinned_splitter(pattern: str) -> PinnedSplitter:
    """One :class:`PinnedSplitter` per pattern."""
    return PinnedSplitter(pattern)
