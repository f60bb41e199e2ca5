"""The ASCII instance of the character classes.

Lean: ``Bpe.Regex.Ascii``.
"""

from __future__ import annotations

from .syntax import Classes, Property


def is_upper_ascii(x: int) -> bool:
    """Lean: ``isUpperAscii``."""
    return 65 <= x <= 90


def is_lower_ascii(x: int) -> bool:
    """Lean: ``isLowerAscii``."""
    return 97 <= x <= 122


def ascii_has(p: Property, x: int) -> bool:
    """Lean: ``asciiHas``."""
    if p is Property.LETTER:
        return is_upper_ascii(x) or is_lower_ascii(x)
    if p is Property.NUMBER:
        return 48 <= x <= 57
    if p is Property.UPPERCASE:
        return is_upper_ascii(x)
    if p is Property.LOWERCASE:
        return is_lower_ascii(x)
    if p is Property.WHITE_SPACE:
        return 9 <= x <= 13 or x == 32
    return False


def fold_extra(lower: int) -> list[int]:
    """Lean: ``foldExtra``: U+017F for ``s``, U+212A for ``k``."""
    return [383] if lower == 115 else [8490] if lower == 107 else []


def ascii_orbit(x: int) -> list[int]:
    """Lean: ``asciiOrbit``."""
    if x == 383:
        return [115, 83]
    if x == 8490:
        return [107, 75]
    if is_upper_ascii(x):
        return [x + 32, *fold_extra(x + 32)]
    if is_lower_ascii(x):
        return [x - 32, *fold_extra(x)]
    return []


def ascii_classes() -> Classes:
    """Lean: ``asciiClasses``."""
    return Classes(ascii_has, ascii_orbit)
