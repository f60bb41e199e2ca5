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
Llama-3 pattern as used by llama.cpp (seed 003); ``LLAMA3_META_PATTERN`` is Meta's own (the
``pat_str`` of ``llama/tokenizer.py`` in meta-llama/llama3, used with ``tokenizer.model``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

import regex

from ..errors import PatternError, PatternTimeoutError, PatternUnicodeError

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

#: ``r50k_pat_str`` of ``tiktoken_ext/openai_public.py`` (tiktoken 0.14): gpt2, r50k_base,
#: p50k_base and p50k_edit (the GPT-2 pattern with possessive quantifiers).
R50K_PATTERN = (
    r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
)

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

#: Meta's Llama 3 pattern: the ``pat_str`` of ``llama/tokenizer.py`` (meta-llama/llama3, commit
#: e8f0267c), run by tiktoken over the ``.tiktoken`` rank file ``tokenizer.model``.  It is
#: ``LLAMA3_PATTERN`` with case-insensitive contractions (``'\u017f`` is one here).
LLAMA3_META_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+"""
    r"""|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)

PATTERNS = {
    "gpt2": GPT2_PATTERN,
    "cl100k_base": CL100K_PATTERN,
    "o200k_base": O200K_PATTERN,
    "llama3": LLAMA3_PATTERN,
    "r50k_base": R50K_PATTERN,
}


#: Patterns written in this package (their running time is linear in practice); any other
#: pattern (a ``.model`` file's, ``train --pattern``, ``Tokenizer.from_ranks``) runs under a
#: time budget, :func:`pattern_timeout`.
TRUSTED_PATTERNS: frozenset[str] = frozenset(
    {*PATTERNS.values(), CL100K_PATTERN_ORIGINAL, LLAMA3_META_PATTERN}
)

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


_ESCAPE = regex.compile(r"\\(?:[pP]\{[^}]*\}|[pP].|.)", regex.DOTALL)


@cache
def unpinned_constructs(pattern: str) -> tuple[str, ...]:
    r"""The escapes of ``pattern`` whose meaning depends on the Unicode version and that
    :func:`pin_classes` does not pin: ``\w``, ``\W``, ``\d``, ``\D``, ````, ``\B`` and
    properties other than those of :data:`PINNED_PROPERTIES` (scripts, ``\p{Nd}``...)."""
    found: list[str] = []
    for esc in _ESCAPE.finditer(pattern):
        text = esc.group()
        if text[1] in "wWdDbB":
            found.append(text)
        elif text[1] in "pP":
            name = text[3:-1] if text[2:3] == "{" else text[2:]
            if name not in PINNED_PROPERTIES:
                found.append(text)
    return tuple(dict.fromkeys(found))


def check_unicode_version(pattern: str, text: str) -> None:
    """Raise :class:`~verified_bpe.errors.PatternUnicodeError` if ``pattern`` has an
    :func:`unpinned_constructs` escape and ``text`` a character that ``regex``'s Unicode
    tables classify otherwise than tiktoken's (:func:`differing_characters`)."""
    if text.isascii():
        return
    constructs = unpinned_constructs(pattern)
    if constructs:
        differing = differing_characters(text)
        if differing:
            raise PatternUnicodeError(pattern, constructs[0], min(differing))


@cache
def pinned_splitter(pattern: str) -> PinnedSplitter:
    """One :class:`PinnedSplitter` per pattern."""
    return PinnedSplitter(pattern)


# ---------------------------------------------------------------------- llama.cpp
#: llama.cpp's pre-tokenizers: a sequence of regexes per ``tokenizer.ggml.pre`` type, as
#: written in ``src/llama-vocab.cpp`` (``llm_tokenizer_bpe``) of the llama.cpp vendored by
#: llama-cpp-python 0.3.36 (facts; the regex strings are kept verbatim).  Applied in sequence
#: by :func:`split_sequence`.
_LLAMA_CPP_GPT2 = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)"""
_LLAMA_CPP_LLAMA3 = (
    r"""(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+"""
    r"""|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
_CJK = "[\u4e00-\u9fa5\u0800-\u4e00\uac00-\ud7ff]+"
_DEEPSEEK_LLM_LETTERS = (
    "\\s?[A-Za-z\u00b5\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u01ba\u01bc-\u01bf\u01c4-\u0293"
    "\u0295-\u02af\u0370-\u0373\u0376\u0377\u037b-\u037d\u037f\u0386\u0388-\u038a\u038c"
    "\u038e-\u03a1\u03a3-\u03f5\u03f7-\u0481\u048a-\u052f\u0531-\u0556\u10a0-\u10c5"
    "\u13a0-\u13f5\u13f8-\u13fd\u1c90-\u1cba\u1cbd-\u1cbf\u1d00-\u1d2b\u1d6b-\u1d77"
    "\u1d79-\u1d9a\u1e00-\u1f15\u1f18-\u1f1d\u1f20-\u1f45\u1f48-\u1f4d\u1f50-\u1f57\u1f59"
    "\u1f5b\u1f5d\u1f5f-\u1f7d\u1f80-\u1fb4\u1fb6-\u1fbc\u1fbe\u1fc2-\u1fc4\u1fc6-\u1fcc"
    "\u1fd0-\u1fd3\u1fd6-\u1fdb\u1fe0-\u1fec\u1ff2-\u1ff4\u1ff6-\u1ffc\u2102\u2107"
    "\u210a-\u2113\u2115\u2119-\u211d\u2124\u2126\u2128\u212a-\u212d\u212f-\u2134\u2139"
    "\u213c-\u213f\u2145-\u2149\u214e\u2183\u2184\u2c00-\u2c7b\u2c7e-\u2ce4\u2ceb-\u2cee"
    "\u2cf2\u2cf3\ua640-\ua66d\ua680-\ua69b\ua722-\ua76f\ua771-\ua787\ua78b-\ua78e"
    "\uab70-\uabbf\ufb00-\ufb06\ufb13-\ufb17\uff21-\uff3a\uff41-\uff5a\U00010400-\U0001044f"
    "\U000104b0-\U000104d3\U000104d8-\U000104fb\U00010c80-\U00010cb2\U00010cc0-\U00010cf2"
    "\U000118a0-\U000118df\U0001e900-\U0001e943]+"
)
LLAMA_CPP_REGEXES: dict[str, tuple[str, ...]] = {
    "default": (
        r"""[\p{P}\$\+<=>\^~\|]+""",
        _LLAMA_CPP_GPT2,
        r"""\p{N}+""",
        r"""[0-9][0-9][0-9]""",
    ),
    "llama3": (_LLAMA_CPP_LLAMA3,),
    "deepseek-llm": (
        "[\r\n]",
        _DEEPSEEK_LLM_LETTERS,
        "\\s?[!-/:-~\uff01-\uff0f\uff1a-\uff5e\u2018-\u201f\u3000-\u3002]+",
        r"""\s+$""",
        _CJK,
        r"""\p{N}+""",
    ),
    "deepseek-coder": ("[\r\n]", r"""\s?\p{L}+""", r"""\s?\p{P}+""", _CJK, r"""\p{N}"""),
    "falcon": (
        r"""[\p{P}\$\+<=>\^~\|`]+""",
        _LLAMA_CPP_GPT2,
        r"""[0-9][0-9][0-9]""",
    ),
    "starcoder": (r"""\p{N}""", _LLAMA_CPP_GPT2),
    "gpt2": (_LLAMA_CPP_GPT2,),
    "qwen2": (
        r"""(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+"""
        r"""|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
    ),
    "qwen35": (
        r"""(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])"""
        r"""|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*"""
        r"""|\s*[\r\n]+|\s+(?!\S)|\s+""",
    ),
    "gpt-4o": (
        r"""[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))*((?=[\p{L}])([^A-Z]))+"""
        r"""(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?"""
        r"""|[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))+((?=[\p{L}])([^A-Z]))*"""
        r"""(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?"""
        r"""|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
    ),
}

#: ``tokenizer.ggml.pre`` name -> (key of :data:`LLAMA_CPP_REGEXES`, ignore_merges): the
#: names llama.cpp's ``llama_vocab::impl::load`` maps to those pre-tokenizer types (a word
#: that is itself a token is emitted whole when ``ignore_merges``).
LLAMA_CPP_PRE: dict[str, tuple[str, bool]] = {
    "default": ("default", False),
    **dict.fromkeys(
        (
            "llama3",
            "llama-v3",
            "llama-bpe",
            "falcon3",
            "falcon-h1",
            "pixtral",
            "midm-2.0",
            "lfm2",
            "jina-v5-nano",
        ),
        ("llama3", True),
    ),  # fmt: skip
    "dbrx": ("llama3", False),
    "smaug-bpe": ("llama3", False),
    "deepseek-llm": ("deepseek-llm", False),
    "deepseek-coder": ("deepseek-coder", False),
    "falcon": ("falcon", False),
    **dict.fromkeys(
        ("starcoder", "refact", "command-r", "smollm", "codeshell", "exaone", "minerva-7b"),
        ("starcoder", False),
    ),  # fmt: skip
    **dict.fromkeys(
        (
            "gpt-2",
            "mpt",
            "olmo",
            "jais",
            "trillion",
            "granite-docling",
            "phi-2",
            "jina-es",
            "jina-de",
            "gigachat",
            "jina-v2-es",
            "jina-v2-de",
            "a.x-4.0",
            "mellum",
            "modern-bert",
            "exaone4",
        ),
        ("gpt2", False),
    ),  # fmt: skip
    **dict.fromkeys(
        ("qwen2", "deepseek-r1-qwen", "kormo", "f2llmv2", "stablelm2", "megrez", "hunyuan"),
        ("qwen2", False),
    ),  # fmt: skip
    "qwen35": ("qwen35", False),
    **dict.fromkeys(("gpt-4o", "llama4", "kanana2", "talkie", "minimax-m2"), ("gpt-4o", False)),
}

_DOLLAR = regex.compile(r"\\.|\[(?:\\.|[^\]])*\]|\$")


def ecmascript_to_regex(pattern: str) -> str:
    r"""A llama.cpp regex (run by ``std::regex``, ECMAScript) for the ``regex`` module: an
    unescaped ``$`` outside a character class becomes ``\Z`` (ECMAScript's ``$`` without the
    multiline flag matches only at the end of the input; Python's also before a final
    newline).  Everything else these patterns use means the same in both."""
    return _DOLLAR.sub(lambda m: r"\Z" if m.group(0) == "$" else m.group(0), pattern)


@cache
def _compiled_sequence(patterns: tuple[str, ...]) -> tuple[regex.Pattern[str], ...]:
    return tuple(compile_pattern(ecmascript_to_regex(p)) for p in patterns)


def split_sequence(text: str, patterns: tuple[str, ...]) -> list[str]:
    """llama.cpp's ``unicode_regex_split``: the text is one piece; each pattern in turn splits
    every piece into its matches AND the text between them (nothing is dropped), searching
    each piece on its own (so ``$`` and look-aheads see the piece's end).  Empty pieces are
    left out (they give no tokens)."""
    pieces = [text] if text else []
    for compiled in _compiled_sequence(patterns):
        out: list[str] = []
        for piece in pieces:
            pos = 0
            for m in compiled.finditer(piece):
                start, end = m.span()
                if start > pos:
                    out.append(piece[pos:start])
                if end > start:
                    out.append(piece[start:end])
                pos = end
            if pos < len(piece):
                out.append(piece[pos:])
        pieces = out
    return pieces
