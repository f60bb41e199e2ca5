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

from collections.abc import Callable
from functools import cache

import regex

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


def compile_pattern(pattern: str) -> regex.Pattern[str]:
    """Compile with the ``regex`` module (it keeps its own cache of compiled patterns)."""
    return regex.compile(pattern)


def pre_tokenize_regex(text: str, pattern: str) -> list[bytes]:
    """Split ``text`` with ``pattern`` (``findall`` semantics) and UTF-8 encode each chunk.

    For the patterns above every character of any text belongs to some match, so the chunks
    concatenate to ``text.encode("utf-8")`` (tested).  Lone surrogates cannot be encoded:
    ``UnicodeEncodeError`` (the tokenizer replaces them first, like tiktoken).
    """
    return [piece.encode("utf-8") for piece in compile_pattern(pattern).findall(text)]


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
_PINNED_PROPERTIES = {
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
    r"""The ranges of ``verified_bpe.spec.unicode_tables.<table>`` as the inside of a ``regex``
    character class (``\uXXXX``/``\UXXXXXXXX`` escapes, ``a-b`` for a range)."""
    from .spec import unicode_tables

    def esc(cp: int) -> str:
        return f"\\u{cp:04X}" if cp <= 0xFFFF else f"\\U{cp:08X}"

    ranges = getattr(unicode_tables, table)
    return "".join(esc(lo) if lo == hi else f"{esc(lo)}-{esc(hi)}" for lo, hi in ranges)


def pin_classes(pattern: str) -> str:
    r"""``pattern`` with its Unicode classes pinned to tiktoken's tables.

    The ``regex`` module's Unicode tables are newer than those of tiktoken's engine, so
    ``\p{L}`` and friends match recently assigned characters that tiktoken does not.  This
    rewrites ``\p{L}``, ``\p{N}``, ``\p{Lu}``, ``\p{Ll}``, ``\p{Lt}``, ``\p{Lm}``, ``\p{Lo}``,
    ``\p{M}`` and ``\s`` into the explicit ranges of :mod:`verified_bpe.spec.unicode_tables`
    (generated from tiktoken by :mod:`verified_bpe.unicode_gen`; Lean:
    ``Bpe.UnicodeTables``), wrapped in ``[...]`` outside a character class; ``\P{..}`` and
    ``\S`` outside a class become ``[^...]``.  Anything else is kept: other properties,
    ``\P{..}``/``\S`` inside a class (``regex`` has no complement inside a union without
    ``VERSION1``).  Used by the ``fast`` engine, so that it equals tiktoken on every code
    point (``python -m verified_bpe.unicode_gen --scan``).
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
                table = _PINNED_PROPERTIES.get(pattern[i + 3 : end])
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
_NATIVE_CLASSES = tuple(regex.compile(rf"\p{{{prop}}}") for prop in _PINNED_PROPERTIES) + (
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
    from .spec import unicode_tables

    names = [*_PINNED_PROPERTIES.values(), "WHITE_SPACE_RANGES"]  # same order as above
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
    r"""``findall`` with ``pattern`` as tiktoken's engine reads it, at the ``regex`` module's
    speed (the ``fast`` engine's splitter).

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
        self.native = regex.compile(pattern)
        self._pinned: regex.Pattern[str] | None = None
        self._stand_ins_allowed = stand_ins_allowed(pattern)

    @property
    def pinned(self) -> regex.Pattern[str]:
        """``pin_classes(pattern)``, compiled on first use."""
        if self._pinned is None:
            self._pinned = regex.compile(pin_classes(self.pattern))
        return self._pinned

    def findall(self, text: str) -> list[str]:
        if text.isascii():
            return self.native.findall(text)
        differing = differing_characters(text)
        if not differing:
            return self.native.findall(text)
        table = _stand_ins(differing) if self._stand_ins_allowed else None
        if table is None:
            return self.pinned.findall(text)
        proxy = text.translate(table)
        return [text[m.start() : m.end()] for m in self.native.finditer(proxy)]
