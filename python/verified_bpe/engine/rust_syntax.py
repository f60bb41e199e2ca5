r"""A custom ``pat_str`` as tiktoken's engine (Rust's ``fancy-regex`` over ``regex-syntax``)
reads it, rewritten for the Python ``regex`` module (version 0), or refused.

tiktoken compiles ``pat_str`` with Rust's regex syntax; this package splits with ``regex``.
The two read some constructs differently, and a difference loses or moves text silently
(measured against tiktoken 0.14 in ``tests/test_reliability.py``).  :func:`rust_pattern`
translates what it can and raises :class:`~verified_bpe.errors.PatternError` naming the
construct for the rest.  The constructs (from the two engines' documentation, each checked
against tiktoken):

========================  ==============================  ==================================
construct                 Rust (tiktoken)                 ``regex`` V0 (this package)
========================  ==============================  ==================================
``[a&&b]`` ``[a--b]``     set intersection, difference,   literal ``&&``, ``--``, ``~~``:
``[a~~b]``                symmetric difference            translated (look-arounds)
``[a[bc]]``               nested class (union)            literal ``[``: translated
``[[:alpha:]]``           ASCII class                     Unicode property: translated
``$`` (no ``m`` flag)     end of text only                also before a final ``\n``:
                                                          translated to ``\z``
``\Z``                    end, or before a final ``\n``   end only: translated
``\x{1F600}``             code point                      syntax error: translated
``{e<=1}``, ``{x}``       literal braces                  fuzzy match: escaped
``(?U)``                  swap greedy and lazy            refused
``(?R)`` flag             CRLF mode                       recursion: refused
``(?|``, ``(?1)``,        syntax error in tiktoken        branch reset, recursion, octal,
``(?&n)``, ``\0``, flags                                  version flags: refused
``a L w f b e p r V``
========================  ==============================  ==================================

With the ``m`` flag, ``$`` means the same in both; a pattern that uses ``$`` and sets ``m``
anywhere but in one leading global flag group is refused (the scopes would need tracking).
Under the ``x`` flag the rewrite is not attempted for classes or anchors (refused if the
pattern has one of the constructs above).  Not translated, because they differ only on
characters assigned after tiktoken's Unicode version: ``\w``, ``\d``, ``\b`` and script
properties (``\p{L}``-style general categories and ``\s`` are pinned to tiktoken's tables by
:func:`~verified_bpe.engine.patterns.pin_classes`).  No Lean counterpart.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from ..errors import PatternError
from .patterns import TRUSTED_PATTERNS

#: Rust's ASCII classes (``[[:name:]]``), as ``regex`` class bodies.
POSIX_CLASSES = {
    "alnum": "0-9A-Za-z",
    "alpha": "A-Za-z",
    "ascii": "\\x00-\\x7F",
    "blank": "\\t ",
    "cntrl": "\\x00-\\x1F\\x7F",
    "digit": "0-9",
    "graph": "!-~",
    "lower": "a-z",
    "print": " -~",
    "punct": "!-/:-@\\[-`{-~",
    "space": "\\t\\n\\x0B\\f\\r ",
    "upper": "A-Z",
    "word": "0-9A-Za-z_",
    "xdigit": "0-9A-Fa-f",
}
_RUST_FLAGS = frozenset("imsxuU-R")
_ANY = "(?s:.)"
_REPEAT = re.compile(r"\{\d*(?:,\d*)?\}")
_FLAGS = re.compile(r"\(\?([A-Za-z\-]*)[:)]")
_HEX = re.compile(r"\\x\{([0-9A-Fa-f]{1,8})\}")


# ---------------------------------------------------------------------------- class trees
@dataclass(frozen=True)
class _Items:
    """A union of plain class items, as a ``regex`` class body (safe to concatenate)."""

    body: str


@dataclass(frozen=True)
class _Union:
    parts: tuple[_Node, ...]


@dataclass(frozen=True)
class _Op:
    op: str  # "&&", "--", "~~"
    left: _Node
    right: _Node


@dataclass(frozen=True)
class _Not:
    inner: _Node


_Node = _Items | _Union | _Op | _Not


def _emit(node: _Node) -> str:
    """A ``regex`` V0 expression matching exactly one code point of the set ``node``."""
    if isinstance(node, _Items):
        return f"[{node.body}]"
    if isinstance(node, _Not):
        if isinstance(node.inner, _Items):
            return f"[^{node.inner.body}]"
        return f"(?:(?!{_emit(node.inner)}){_ANY})"
    if isinstance(node, _Union):
        if all(isinstance(p, _Items) for p in node.parts):
            return "[" + "".join(p.body for p in node.parts) + "]"  # type: ignore[union-attr]
        return "(?:" + "|".join(_emit(p) for p in node.parts) + ")"
    left, right = _emit(node.left), _emit(node.right)
    if node.op == "&&":
        return f"(?:(?={left}){right})"
    if node.op == "--":
        return f"(?:(?!{right}){left})"
    return f"(?:(?={left})(?!{right}){_ANY}|(?={right})(?!{left}){_ANY})"


def _char(ch: str) -> str:
    """One literal code point inside a ``regex`` class."""
    return re.escape(ch) if ch.isascii() else ch


class _ClassParser:
    """Rust's class syntax, from the ``[`` at ``start`` (regex-syntax's precedence: ranges,
    then union, then ``&&``/``--``/``~~`` left to right, then negation)."""

    def __init__(self, pattern: str) -> None:
        self.p = pattern
        self.special = False  # uses a construct that ``regex`` reads differently

    def error(self, reason: str) -> PatternError:
        return PatternError(self.p, reason)

    def parse(self, i: int) -> tuple[_Node, int]:
        """The class opening at ``i``; returns it and the index after its ``]``."""
        p = self.p
        i += 1
        negated = p.startswith("^", i)
        i += negated
        operands: list[_Node] = []
        ops: list[str] = []
        items: list[_Node] = []
        first = True
        while True:
            if i >= len(p):
                raise self.error("unclosed character class")
            ch = p[i]
            if ch == "]" and not first:
                i += 1
                break
            first = False
            two = p[i : i + 2]
            if two in ("&&", "--", "~~"):
                self.special = True
                if not items:
                    raise self.error(f"class operator {two!r} without a left operand")
                operands.append(_union(items))
                ops.append(two)
                items = []
                i += 2
                continue
            if p.startswith("[:", i):
                end = p.find(":]", i + 2)
                name = p[i + 2 : end] if end >= 0 else ""
                bare = name.removeprefix("^")
                if end >= 0 and bare in POSIX_CLASSES:
                    self.special = True
                    node: _Node = _Items(POSIX_CLASSES[bare])
                    items.append(_Not(node) if name.startswith("^") else node)
                    i = end + 2
                    continue
            if ch == "[":
                self.special = True
                node, i = self.parse(i)
                items.append(node)
                continue
            lo, i = self.atom(i)
            if p.startswith("-", i) and not p.startswith(("-]", "--"), i) and i + 1 < len(p):
                hi, j = self.atom(i + 1)
                if hi.startswith("\\") and not _single(hi):
                    raise self.error(f"bad class range ending in {hi!r}")
                items.append(_Items(f"{lo}-{hi}"))
                i = j
                continue
            items.append(_Items(lo))
        if ops and not items:
            raise self.error(f"class operator {ops[-1]!r} without a right operand")
        node = _union(items)
        if ops:
            rights = [*operands[1:], node]
            node = operands[0]
            for op, right in zip(ops, rights, strict=True):
                node = _Op(op, node, right)
        return (_Not(node) if negated else node), i

    def atom(self, i: int) -> tuple[str, int]:
        """One class item that is not a nested class: a literal or an escape, as ``regex``
        class text."""
        p = self.p
        if p[i] != "\\":
            return _char(p[i]), i + 1
        found = _HEX.match(p, i)
        if found:
            self.special = True
            return _hex_char(p, found.group(1)), found.end()
        if p.startswith(("\\p{", "\\P{"), i):
            end = p.find("}", i)
            if end < 0:
                raise self.error("unclosed \\p{...}")
            return p[i : end + 1], end + 1
        if i + 1 >= len(p):
            raise self.error("pattern ends with a backslash")
        if p[i + 1] in "pP":
            return p[i : i + 3], i + 3
        return p[i : i + 2], i + 2


def _single(escape: str) -> bool:
    """Whether a class escape stands for one code point (may end a range)."""
    return escape[1:2] in ("x", "u", "U", "n", "t", "r", "f", "v", "a", "e") or (
        len(escape) == 2 and not escape[1].isalnum()
    )


def _union(items: list[_Node]) -> _Node:
    if len(items) == 1:
        return items[0]
    if all(isinstance(x, _Items) for x in items):
        return _Items("".join(x.body for x in items))  # type: ignore[union-attr]
    return _Union(tuple(items))


def _hex_char(pattern: str, digits: str) -> str:
    cp = int(digits, 16)
    if cp > 0x10FFFF or 0xD800 <= cp <= 0xDFFF:
        raise PatternError(pattern, f"\\x{{{digits}}} is not a Unicode scalar value")
    return f"\\U{cp:08X}"


# ---------------------------------------------------------------------------- flags
def _flag_groups(pattern: str) -> list[tuple[int, str]]:
    """``(index, flags)`` of every ``(?flags)`` / ``(?flags:`` group (escapes skipped)."""
    out: list[tuple[int, str]] = []
    i = 0
    while i < len(pattern):
        if pattern[i] == "\\":
            i += 2
            continue
        found = _FLAGS.match(pattern, i)
        if found and found.group(1):
            out.append((i, found.group(1)))
        i += 1
    return out


def _check_flags(pattern: str, groups: list[tuple[int, str]]) -> None:
    for _, flags in groups:
        if flags.startswith("P"):
            continue  # (?P<name>...) / (?P=name) / (?P>name): checked elsewhere
        if "U" in flags:
            raise PatternError(pattern, "flag U (Rust: swap greedy and lazy) is not supported")
        if "R" in flags:
            raise PatternError(pattern, "flag R (Rust: CRLF mode) is not supported")
        if "-u" in flags or not set(flags) <= _RUST_FLAGS:
            raise PatternError(pattern, f"flag group (?{flags}) is not Rust regex syntax")


# ---------------------------------------------------------------------------- translation
@cache
def rust_pattern(pattern: str) -> str:
    r"""``pattern`` (Rust regex syntax, as tiktoken reads ``pat_str``) rewritten so that the
    ``regex`` module splits every text as tiktoken does; the same string when nothing needs
    rewriting.  Constructs that cannot be translated:
    :class:`~verified_bpe.errors.PatternError` naming them (module docstring)."""
    if not isinstance(pattern, str):
        raise PatternError(repr(pattern), "a split pattern must be a str")
    if pattern in TRUSTED_PATTERNS:  # cl100k's ``\s++$``: ``\s++`` took any final ``\n``
        return pattern
    groups = _flag_groups(pattern)
    _check_flags(pattern, groups)
    m_groups = [(k, f) for k, f in groups if "m" in f]
    leading_m = bool(m_groups) and len(m_groups) == 1 and m_groups[0][0] == 0
    leading_m = leading_m and pattern.startswith(f"(?{m_groups[0][1]})")
    verbose = any("x" in f.split("-")[0] for _, f in groups)
    parser = _ClassParser(pattern)
    out: list[str] = []
    i = 0
    changed = False
    p = pattern
    while i < len(p):
        ch = p[i]
        if ch == "\\":
            found = _HEX.match(p, i)
            if found:
                out.append(_hex_char(p, found.group(1)))
                i = found.end()
                changed = True
                continue
            nxt = p[i + 1 : i + 2]
            if nxt == "":
                raise PatternError(p, "pattern ends with a backslash")
            if nxt == "Z":
                out.append("(?=\\n?\\z)")
                i += 2
                changed = True
                continue
            if nxt == "0" or (nxt.isdigit() and p[i + 2 : i + 3].isdigit()):
                raise PatternError(p, f"escape {p[i : i + 3]!r} (octal or back reference > 9)")
            if p.startswith(("\\p{", "\\P{"), i):
                end = p.find("}", i)
                if end < 0:
                    raise PatternError(p, "unclosed \\p{...}")
                out.append(p[i : end + 1])
                i = end + 1
                continue
            out.append(p[i : i + 2])
            i += 2
            continue
        if ch == "[":
            node, end = parser.parse(i)
            if parser.special:
                if verbose:
                    raise PatternError(p, "class syntax under the x flag is not translated")
                out.append(_emit(node))
                changed = True
                parser.special = False
            else:
                out.append(p[i:end])
            i = end
            continue
        if ch == "(" and p.startswith("(?", i):
            rest = p[i + 2 : i + 4]
            if (
                rest[:1] in ("|", "R", "&", "+")
                or rest[:1].isdigit()
                or (rest[:1] == "-" and rest[1:2].isdigit())
                or p.startswith(("(?P>", "(?'"), i)
            ):
                raise PatternError(p, f"group {p[i : i + 4]!r}... is not Rust regex syntax")
        if ch == "{" and out:
            found = _REPEAT.match(p, i)
            if found is None:
                out.append("\\{")
                i += 1
                changed = True
                continue
            out.append(found.group())
            i = found.end()
            continue
        if ch == "$" and not leading_m:
            if m_groups:
                raise PatternError(p, "'$' with the m flag set inside the pattern")
            if verbose:
                raise PatternError(p, "'$' under the x flag is not translated")
            out.append("\\z")
            i += 1
            changed = True
            continue
        out.append(ch)
        i += 1
    return "".join(out) if changed else pattern


__all__ = ["POSIX_CLASSES", "rust_pattern"]
