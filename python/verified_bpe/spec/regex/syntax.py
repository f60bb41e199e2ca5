"""Regex syntax: the fragment of the pre-tokenization patterns.

Lean: ``Bpe.Regex.Syntax``.  Each Lean inductive is a union of frozen dataclasses, one per
constructor, with the constructor's fields.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum


class Property(Enum):
    """Lean: ``Property``: ``\\p{L}``, ``\\p{N}``, ``\\p{Lu}``, ``\\p{Ll}``, ``\\p{Lt}``,
    ``\\p{Lm}``, ``\\p{Lo}``, ``\\p{M}``, ``\\s``."""

    LETTER = "letter"
    NUMBER = "number"
    UPPERCASE = "uppercase"
    LOWERCASE = "lowercase"
    TITLECASE = "titlecase"
    MODIFIER = "modifier"
    OTHER_LETTER = "otherLetter"
    MARK = "mark"
    WHITE_SPACE = "whiteSpace"


@dataclass(frozen=True)
class ItemChar:
    """Lean: ``Item.char``."""

    c: int


@dataclass(frozen=True)
class ItemRange:
    """Lean: ``Item.range``."""

    lo: int
    hi: int


@dataclass(frozen=True)
class ItemProp:
    """Lean: ``Item.prop``."""

    p: Property


Item = ItemChar | ItemRange | ItemProp


@dataclass(frozen=True)
class Esc:
    """Lean: ``CharClass.esc``: ``\\p{X}``/``\\s``, or ``\\P{X}``/``\\S`` when negated."""

    negated: bool
    p: Property


@dataclass(frozen=True)
class Set:
    """Lean: ``CharClass.set``: ``[...]``, or ``[^...]`` when negated."""

    negated: bool
    items: tuple[Item, ...]


CharClass = Esc | Set


@dataclass(frozen=True)
class Empty:
    """Lean: ``Re.empty``."""


@dataclass(frozen=True)
class Char:
    """Lean: ``Re.char``."""

    c: int


@dataclass(frozen=True)
class Cls:
    """Lean: ``Re.cls``."""

    k: CharClass


@dataclass(frozen=True)
class Seq:
    """Lean: ``Re.seq``."""

    a: Re
    b: Re


@dataclass(frozen=True)
class Alt:
    """Lean: ``Re.alt``."""

    a: Re
    b: Re


@dataclass(frozen=True)
class Rep:
    """Lean: ``Re.rep``: ``r{lo,hi}`` (``hi is None``: unbounded), possessive or greedy."""

    r: Re
    lo: int
    hi: int | None
    possessive: bool


@dataclass(frozen=True)
class Group:
    """Lean: ``Re.group``: ``(?:r)``."""

    r: Re


@dataclass(frozen=True)
class Caseless:
    """Lean: ``Re.caseless``: ``(?i:r)``."""

    r: Re


@dataclass(frozen=True)
class NotAhead:
    """Lean: ``Re.notAhead``: ``(?!r)``."""

    r: Re


@dataclass(frozen=True)
class Eos:
    """Lean: ``Re.eos``: ``$``."""


Re = Empty | Char | Cls | Seq | Alt | Rep | Group | Caseless | NotAhead | Eos


@dataclass(frozen=True)
class Classes:
    """Lean: ``Classes``: the properties as predicates, and each code point's case orbit."""

    has: Callable[[Property, int], bool]
    orbit: Callable[[int], Sequence[int]]


def classes(has: Callable[[Property, int], bool], orbit: Callable[[int], Sequence[int]]) -> Classes:
    """Lean: ``Classes`` (its constructor)."""
    return Classes(has, orbit)


def seqs(a: Re, rs: Sequence[Re]) -> Re:
    """Lean: ``seqs``: ``a`` followed by each of ``rs`` (right-nested)."""
    if not rs:
        return a
    return Seq(a, seqs(rs[0], rs[1:]))


def alts(a: Re, rs: Sequence[Re]) -> Re:
    """Lean: ``alts``: ``a|r1|...|rn`` (right-nested)."""
    if not rs:
        return a
    return Alt(a, alts(rs[0], rs[1:]))


def lits(cs: Sequence[int]) -> Re:
    """Lean: ``lits``: a literal string, one ``Char`` per code point."""
    if not cs:
        return Empty()
    if len(cs) == 1:
        return Char(cs[0])
    return Seq(Char(cs[0]), lits(cs[1:]))
