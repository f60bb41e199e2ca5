"""Byte classifiers for the ASCII pre-tokenizer.

Lean: ``Bpe.Seed.Classify``.  A byte is an ``int`` in ``0..255`` (Lean: ``UInt8``).

The classes agree with the Unicode properties used by the cl100k/o200k patterns, restricted
to ASCII: ``\\p{L}`` = :func:`is_letter`, ``\\p{N}`` = :func:`is_digit`, ``\\s`` =
:func:`is_space` (Unicode White_Space: note that 0x1C-0x1F are *not* ``\\s`` although
Python's ``str.isspace`` says they are), and :func:`is_punct` is "everything else in ASCII".
"""

from __future__ import annotations


def is_ascii(b: int) -> bool:
    """``0 <= b <= 127``.  Lean: ``Bpe.Seed.Classify.isAscii``."""
    return 0 <= b <= 127


def is_letter(b: int) -> bool:
    """``A-Z`` or ``a-z``.  Lean: ``Bpe.Seed.Classify.isLetter``."""
    return 65 <= b <= 90 or 97 <= b <= 122


def is_digit(b: int) -> bool:
    """``0-9``.  Lean: ``Bpe.Seed.Classify.isDigit``."""
    return 48 <= b <= 57


def is_space(b: int) -> bool:
    """``\\t \\n \\v \\f \\r`` and space (9-13, 32).  Lean: ``Bpe.Seed.Classify.isSpace``."""
    return b in (9, 10, 11, 12, 13, 32)


def is_newline(b: int) -> bool:
    """``\\n`` or ``\\r``.  Lean: ``Bpe.Seed.Classify.isNewline``."""
    return b == 10 or b == 13


def is_punct(b: int) -> bool:
    """ASCII, not a letter, digit or space.  Lean: ``Bpe.Seed.Classify.isPunct``.

    Erratum to seed 000: there is no ``b >= 32`` conjunct, so the control bytes 0-8, 14-31
    and 127 are punctuation, exactly as ``[^\\s\\p{L}\\p{N}]`` treats them.
    """
    return is_ascii(b) and not is_letter(b) and not is_digit(b) and not is_space(b)


def is_punct_seed(b: int) -> bool:
    """The seed's (wrong) version with ``b >= 32``; kept only to test the erratum.

    Lean: ``Bpe.Seed.Classify.isPunctSeed``.
    """
    return is_ascii(b) and not is_letter(b) and not is_digit(b) and not is_space(b) and b >= 32


def to_lower(b: int) -> int:
    """``A-Z`` to ``a-z``, other bytes unchanged.  Lean: ``Bpe.Seed.Classify.toLower``."""
    return b + 32 if 65 <= b <= 90 else b
