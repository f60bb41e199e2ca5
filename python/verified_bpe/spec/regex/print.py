"""Printing a regex term back in regex syntax.

Lean: ``Bpe.Regex.Print``.  The printer adds no parentheses: a term carries its groups.
"""

from __future__ import annotations

from collections.abc import Sequence

from .syntax import (
    Alt,
    Caseless,
    Char,
    CharClass,
    Cls,
    Empty,
    Eos,
    Esc,
    Group,
    Item,
    ItemChar,
    ItemProp,
    ItemRange,
    NotAhead,
    Property,
    Re,
    Rep,
    Seq,
)

_NAMES = {
    Property.LETTER: "L",
    Property.NUMBER: "N",
    Property.UPPERCASE: "Lu",
    Property.LOWERCASE: "Ll",
    Property.TITLECASE: "Lt",
    Property.MODIFIER: "Lm",
    Property.OTHER_LETTER: "Lo",
    Property.MARK: "M",
    Property.WHITE_SPACE: "s",
}


def property_name(p: Property) -> str:
    """Lean: ``propertyName``."""
    return _NAMES[p]


def property_to_regex(negated: bool, p: Property) -> str:
    """Lean: ``propertyToRegex``: ``\\p{X}``/``\\s``, or ``\\P{X}``/``\\S``."""
    if p is Property.WHITE_SPACE:
        return "\\S" if negated else "\\s"
    return ("\\P{" if negated else "\\p{") + property_name(p) + "}"


def is_meta(c: int) -> bool:
    """Lean: ``isMeta``."""
    return c in (92, 46, 94, 36, 124, 63, 42, 43, 40, 41, 91, 93, 123, 125)


def is_class_meta(c: int) -> bool:
    """Lean: ``isClassMeta`` (``&`` and ``~`` too: fancy-regex reads ``&&`` and ``~~`` in a
    class as set operators)."""
    return c in (92, 93, 91, 94, 45, 38, 126)


def char_to_regex(in_class: bool, c: int) -> str:
    """Lean: ``charToRegex``."""
    if c == 9:
        return "\\t"
    if c == 10:
        return "\\n"
    if c == 13:
        return "\\r"
    if is_class_meta(c) if in_class else is_meta(c):
        return "\\" + chr(c)
    return chr(c)


def item_to_regex(i: Item) -> str:
    """Lean: ``itemToRegex``."""
    if isinstance(i, ItemChar):
        return char_to_regex(True, i.c)
    if isinstance(i, ItemRange):
        return char_to_regex(True, i.lo) + "-" + char_to_regex(True, i.hi)
    assert isinstance(i, ItemProp)
    return property_to_regex(False, i.p)


def items_to_regex(items: Sequence[Item]) -> str:
    """Lean: ``itemsToRegex``."""
    return "".join(item_to_regex(i) for i in items)


def class_to_regex(k: CharClass) -> str:
    """Lean: ``classToRegex``."""
    if isinstance(k, Esc):
        return property_to_regex(k.negated, k.p)
    return ("[^" if k.negated else "[") + items_to_regex(k.items) + "]"


def nat_digits(fuel: int, n: int, acc: str) -> str:
    """``acc`` after the decimal digits of ``n``.  Lean: ``natDigits``."""
    while fuel > 0:
        acc = chr(48 + n % 10) + acc
        if n < 10:
            return acc
        fuel, n = fuel - 1, n // 10
    return acc


def nat_to_regex(n: int) -> str:
    """A count in decimal, as ``str(n)``.  Lean: ``natToRegex``."""
    return nat_digits(n + 1, n, "")


def quantifier(lo: int, hi: int | None) -> str:
    """Lean: ``quantifier``."""
    if hi is None:
        return "*" if lo == 0 else "+" if lo == 1 else "{" + nat_to_regex(lo) + ",}"
    if lo == 0 and hi == 1:
        return "?"
    if lo == hi:
        return "{" + nat_to_regex(lo) + "}"
    return "{" + nat_to_regex(lo) + "," + nat_to_regex(hi) + "}"


def to_regex(r: Re) -> str:
    """Lean: ``toRegex``."""
    if isinstance(r, Empty):
        return ""
    if isinstance(r, Char):
        return char_to_regex(False, r.c)
    if isinstance(r, Cls):
        return class_to_regex(r.k)
    if isinstance(r, Seq):
        return to_regex(r.a) + to_regex(r.b)
    if isinstance(r, Alt):
        return to_regex(r.a) + "|" + to_regex(r.b)
    if isinstance(r, Rep):
        return to_regex(r.r) + quantifier(r.lo, r.hi) + ("+" if r.possessive else "")
    if isinstance(r, Group):
        return "(?:" + to_regex(r.r) + ")"
    if isinstance(r, Caseless):
        return "(?i:" + to_regex(r.r) + ")"
    if isinstance(r, NotAhead):
        return "(?!" + to_regex(r.r) + ")"
    assert isinstance(r, Eos)
    return "$"
