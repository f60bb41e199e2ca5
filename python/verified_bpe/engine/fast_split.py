r"""Fast pre-tokenization for the fast engine: the pattern translated for the standard
library's ``re`` with explicit Basic Multilingual Plane (BMP) classes.

The ``regex`` module is needed for ``\p{L}`` and friends, but on ordinary text it is 2-4x
slower than ``re``.  ``re`` compiles a character class whose members are all below U+10000
into a constant-time bitmap (its "big charset"); a class with members above U+FFFF is checked
range by range.  So :func:`bmp_pattern` rewrites the pattern with the BMP part of each class
*as tiktoken's engine sees it*: ``\p{L}`` and the other classes and ``\s`` from the tables
pinned to tiktoken (:mod:`verified_bpe.spec.unicode.tables`), case-insensitive letters
(``(?i:s)``) from the ``regex`` module; :class:`Splitter` uses it only on text with no
character above U+FFFF.  The remaining syntax (alternation, greedy/possessive quantifiers,
``(?!...)``, ``$``) means the same in ``re`` and ``regex``; text with a character above U+FFFF
goes to :class:`~verified_bpe.engine.patterns.PinnedSplitter`.  Text that is all ASCII goes to a
hand-written equivalent when the pattern has one (:data:`ASCII_PATTERNS`: o200k's, whose
literal translation backtracks more than it needs to on ASCII).  ``tests/test_fast_engine.py``
checks the translation against the pinned pattern on every BMP character in several contexts
and on random text, and the ASCII patterns on every short string over the ASCII classes.

No Lean counterpart: this is an implementation of the pattern's whole-match split, the same
function as :func:`verified_bpe.engine.patterns.pre_tokenize_regex` (the spec's pre-tokenizer).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

import regex

from .patterns import (
    O200K_PATTERN,
    PINNED_PROPERTIES,
    PinnedSplitter,
    pattern_timeout,
    split_pattern,
)

#: A function that cuts text into pre-tokenization pieces: whole matches.
SplitFn = Callable[[str], list[str]]

_NON_BMP = re.compile("[\U00010000-\U0010ffff]")
_SUPPORTED_PROPERTIES = ("L", "Lu", "Lt", "Ll", "Lm", "Lo", "M", "N")
#: The items whose BMP characters come from the tables pinned to tiktoken.
_PINNED_ITEMS = {
    **{f"\\p{{{prop}}}": table for prop, table in PINNED_PROPERTIES.items()},
    "\\s": "WHITE_SPACE_RANGES",
}


@cache
def _bmp_text() -> str:
    """Every BMP character except the surrogates, in order."""
    return "".join(map(chr, range(0xD800))) + "".join(map(chr, range(0xE000, 0x10000)))


@cache
def bmp_class(item: str) -> str:
    r"""The body of an ``re`` character class (ranges, escaped) holding exactly the BMP
    characters that tiktoken's engine matches with ``item``: for ``r"\p{L}"`` and the other
    pinned classes and ``r"\s"`` the ranges of :mod:`verified_bpe.spec.unicode.tables`
    (read off tiktoken, see :func:`~verified_bpe.engine.patterns.pin_classes`), for a
    case-insensitive letter such as ``"(?i:s)"`` the characters ``regex`` matches."""
    table = _PINNED_ITEMS.get(item)
    if table is not None:
        from ..spec.unicode import tables as unicode_tables

        return "".join(
            _escape(chr(lo)) if lo == hi else f"{_escape(chr(lo))}-{_escape(chr(min(hi, 0xFFFF)))}"
            for lo, hi in getattr(unicode_tables, table)
            if lo <= 0xFFFF
        )
    parts: list[str] = []
    for match in regex.finditer(f"(?:{item})+", _bmp_text()):
        first, last = match.group()[0], match.group()[-1]
        parts.append(_escape(first) if first == last else f"{_escape(first)}-{_escape(last)}")
    return "".join(parts)


def _escape(ch: str) -> str:
    return f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}"


def _case_group(body: str) -> str:
    r"""``(?i:...)`` with letters, ``'``, ``|`` and ``[...]`` of letters, as a plain group whose
    letters are classes of their case variants (as ``regex`` matches them)."""
    out: list[str] = []
    in_class = False
    for ch in body:
        if ch.isascii() and ch.isalpha():
            variants = bmp_class(f"(?i:{ch})")
            out.append(variants if in_class else f"[{variants}]")
        elif ch == "[" and not in_class:
            in_class = True
            out.append(ch)
        elif ch == "]" and in_class:
            in_class = False
            out.append(ch)
        elif ch in "'|" and not in_class:
            out.append(ch)
        else:
            raise ValueError(f"unsupported character {ch!r} in a case-insensitive group")
    return "(?:" + "".join(out) + ")"


def bmp_pattern(pattern: str) -> str:
    r"""``pattern`` for ``re`` on text without characters above U+FFFF.

    ``\p{X}`` (X in L, Lu, Lt, Ll, Lm, Lo, M, N) and ``\s`` become explicit BMP ranges (a
    class of their own outside ``[...]``), ``\S`` outside ``[...]`` the negated ``\s`` class,
    ``(?i:...)`` groups of letters become groups of
    case-variant classes; other escapes must be ``\r``, ``\n``, ``\t`` or an escaped
    punctuation character.  Raises ``ValueError`` for anything else (``\w``, ``\d``, ``\b``,
    ``\P{..}``, flags, named groups, lookbehind, ``[`` inside a class as in ``[[:alpha:]]``):
    the caller then keeps ``regex``.
    """
    out: list[str] = []
    i = 0
    in_class = False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            if pattern.startswith("\\p{", i):
                end = pattern.index("}", i)
                if pattern[i + 3 : end] not in _SUPPORTED_PROPERTIES:
                    raise ValueError(f"unsupported property {pattern[i : end + 1]!r}")
                item, i = pattern[i : end + 1], end + 1
            elif pattern.startswith("\\s", i):
                item, i = "\\s", i + 2
            elif pattern.startswith("\\S", i) and not in_class:
                out.append(f"[^{bmp_class(chr(92) + 's')}]")
                i += 2
                continue
            elif i + 1 < len(pattern) and (pattern[i + 1] in "rnt" or not pattern[i + 1].isalnum()):
                out.append(pattern[i : i + 2])
                i += 2
                continue
            else:
                raise ValueError(f"unsupported escape {pattern[i : i + 2]!r}")
            ranges = bmp_class(item)
            out.append(ranges if in_class else f"[{ranges}]")
            continue
        if in_class:
            if ch == "[":  # a POSIX class or a nested set in regex, a literal in re
                raise ValueError("'[' inside a character class")
            if ch == "]" and out[-1] not in ("[", "[^"):
                in_class = False
            out.append(ch)
            i += 1
        elif ch == "[":
            in_class = True
            caret = pattern.startswith("[^", i)
            out.append("[^" if caret else "[")
            i += 2 if caret else 1
        elif pattern.startswith("(?i:", i):
            depth, j = 1, i + 4
            while depth:
                depth += {"(": 1, ")": -1}.get(pattern[j], 0)
                j += 1
            out.append(_case_group(pattern[i + 4 : j - 1]))
            i = j
        elif pattern.startswith("(?", i) and not pattern.startswith(("(?:", "(?!", "(?="), i):
            raise ValueError(f"unsupported group {pattern[i : i + 4]!r}")
        else:
            out.append(ch)
            i += 1
    return "".join(out)


_WS = r"[\t\n\x0b\x0c\r ]"  # \s on ASCII text (the pinned White_Space table)
_WS_NOT_NL = r"[\t\x0b\x0c ]"  # \s without \r and \n
_NOT_WS = r"[^\t\n\x0b\x0c\r ]"  # \S
#: O200K_PATTERN on text whose characters are all ASCII, rewritten so that no branch retries
#: what cannot succeed (the literal translation re-enters the optional lead character of both
#: letter branches, and the first newline branch backtracks over every space run): the split
#: of 1 MB of ASCII code takes 0.033 s instead of 0.044 s.  On ASCII text \p{L} is
#: [A-Za-z], \p{Lu} [A-Z], \p{Ll} [a-z], \p{Lt}, \p{Lm}, \p{Lo} and \p{M} are empty,
#: \p{N} is [0-9], \s is _WS, and (?i:'s|...) matches ASCII case variants only.  Branch by
#: branch, each given that the ones before it failed at the same position:
#:
#: 1-2. ``[^\r\n\p{L}\p{N}]?[Lu..M]*[Ll..M]+C?|[^\r\n\p{L}\p{N}]?[Lu..M]+[Ll..M]*C?``: the
#:    lead is not a letter and a letter must follow it, so it is taken iff a letter follows
#:    (possessive); then U*L+ takes the uppercase run and the lowercase run after it and
#:    fails iff that is empty, where U+L* takes the uppercase run: one branch
#:    ``[a-z]++|[A-Z]++[a-z]*+``; the contractions are prefix-free and end the branch.
#: 3.  ``\p{N}{1,3}``: nothing follows it (possessive).
#: 4.  `` ?[^\s\p{L}\p{N}]+[\r\n/]*``: a space is taken iff such a character follows;
#:    ``[\r\n/]*`` can match nothing, so nothing backtracks.
#: 5.  ``\s*[\r\n]+`` matches the whitespace run up to its last \r or \n and fails iff the
#:    run has none: spaces and a newline, then (spaces and a newline) as often as possible.
#: 6-7. ``\s+(?!\S)|\s+``: branch 5 failed, so the run has no \r or \n; ``\s+`` takes the
#:    run exactly.
#:
#: Tested against the pinned pattern on every string of up to four characters over one
#: representative of each ASCII class, every pair of ASCII characters in contexts and
#: hypothesis text (``tests/test_fast_engine.py``).
O200K_ASCII = "|".join(
    [
        r"[^\r\nA-Za-z0-9]?+(?:[a-z]++|[A-Z]++[a-z]*+)"
        r"(?:'(?:[sdmtSDMT]|[lL][lL]|[vV][eE]|[rR][eE]))?+",
        r"[0-9]{1,3}+",
        r" ?+[^\t\n\x0b\x0c\r A-Za-z0-9]++[\r\n/]*+",
        rf"{_WS_NOT_NL}*+[\r\n](?:{_WS_NOT_NL}*+[\r\n])*+",
        rf"{_WS_NOT_NL}+(?!{_NOT_WS})",
        rf"{_WS_NOT_NL}++",
    ]
)
#: Patterns with a faster equivalent for ``re`` on ASCII text (no capturing group).
ASCII_PATTERNS = {O200K_PATTERN: O200K_ASCII}


class Splitter:
    """The whole matches of ``pattern`` (:func:`~verified_bpe.engine.patterns.split_pattern`):
    ``re`` with :func:`bmp_pattern` on text whose characters are all in the BMP, for the
    package's own patterns (on ASCII text with the pattern's entry in :data:`ASCII_PATTERNS`
    if it has one); :class:`~verified_bpe.engine.patterns.PinnedSplitter` otherwise (or
    always, when the pattern has no translation), under the time budget
    :func:`~verified_bpe.engine.patterns.pattern_timeout`."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._pinned = PinnedSplitter(pattern)
        self._bmp: re.Pattern[str] | None = None
        if pattern_timeout(pattern, 0) is None:  # ``re`` has no time-out: own patterns only
            try:
                self._bmp = _compile_bmp(pattern)
            except (ValueError, re.error):
                self._bmp = None
        # ``findall`` returns the whole matches only when the pattern has no capturing group;
        # it builds no match objects, which halves the cost of splitting.
        self._findall: SplitFn | None = None
        if self._bmp is not None and not self._bmp.groups:
            self._findall = self._bmp.findall
        self._ascii: SplitFn | None = self._findall
        if self._findall is not None and pattern in ASCII_PATTERNS:
            self._ascii = re.compile(ASCII_PATTERNS[pattern]).findall

    @property
    def translated(self) -> bool:
        """Whether BMP text goes through ``re``."""
        return self._bmp is not None

    def __call__(self, text: str) -> list[str]:
        if self._ascii is not None and text.isascii():
            return self._ascii(text)
        if self._bmp is not None and (text.isascii() or not _NON_BMP.search(text)):
            if self._findall is not None:
                return self._findall(text)
            return split_pattern(self._bmp, text)
        return self._pinned.split(text, pattern_timeout(self.pattern, len(text)))


@cache
def _compile_bmp(pattern: str) -> re.Pattern[str]:
    return re.compile(bmp_pattern(pattern))


__all__ = ["ASCII_PATTERNS", "O200K_ASCII", "SplitFn", "Splitter", "bmp_class", "bmp_pattern"]
