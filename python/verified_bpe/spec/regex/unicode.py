"""The Unicode instance of the character classes.

Lean: ``Bpe.Regex.Unicode``. The properties are read through the tables of
``verified_bpe.spec.unicode.tables``; the case orbits are the ASCII instance's (exact for the
ASCII letters that the patterns put inside ``(?i:…)``).
"""

from __future__ import annotations

from ..unicode import tables
from .ascii import ascii_orbit
from .syntax import Classes, Property

_TABLES = {
    Property.LETTER: tables.is_l,
    Property.NUMBER: tables.is_n,
    Property.UPPERCASE: tables.is_lu,
    Property.LOWERCASE: tables.is_ll,
    Property.TITLECASE: tables.is_lt,
    Property.MODIFIER: tables.is_lm,
    Property.OTHER_LETTER: tables.is_lo,
    Property.MARK: tables.is_m,
    Property.WHITE_SPACE: tables.is_white_space,
}


def unicode_has(p: Property, x: int) -> bool:
    """Lean: ``unicodeHas``."""
    return _TABLES[p](x)


def unicode_classes() -> Classes:
    """Lean: ``unicodeClasses``."""
    return Classes(unicode_has, ascii_orbit)
