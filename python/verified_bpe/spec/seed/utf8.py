"""Strings as UTF-8 bytes; Lemma 7.

Lean: ``Bpe.Seed.Utf8``.
"""

from __future__ import annotations

from ...errors import InvalidUtf8Error


def string_bytes(s: str) -> bytes:
    """UTF-8 encoding.  Lean: ``Bpe.Seed.Utf8.stringBytes``.

    (Lone surrogates, which Lean strings cannot contain, raise ``UnicodeEncodeError``.)
    """
    return s.encode("utf-8")


def bytes_to_string(bs: bytes) -> str:
    """UTF-8 decoding.  Lean: ``Bpe.Seed.Utf8.bytesToString?`` (``none`` on invalid UTF-8; here
    :class:`~verified_bpe.errors.InvalidUtf8Error`)."""
    try:
        return bs.decode("utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        raise InvalidUtf8Error(bs, str(exc)) from None


def is_ascii_string(s: str) -> bool:
    """Every character has a code below 128.  Lean: ``Bpe.Seed.Utf8.IsAsciiString``."""
    return all(ord(c) < 128 for c in s)


def lemma_utf8_roundtrip(s: str) -> bool:
    """Lemma 7: decoding the encoding of any string gives it back.

    Lean: ``Bpe.Seed.Utf8.bytesToString?_stringBytes``.
    """
    return bytes_to_string(string_bytes(s)) == s


def lemma_ascii_utf8_roundtrip(s: str) -> bool:
    """Lemma 7 in the seed's form: for an ASCII string the encoding is the identity on code
    points (one byte per character, equal to its code), and decoding gives the string back.

    Lean: ``Bpe.Seed.Utf8.bytesToString?_stringBytes``; the ASCII identity part is what the Lean
    module doc calls ``stringBytes_of_isAsciiString``.
    """
    if not is_ascii_string(s):
        return True
    return list(string_bytes(s)) == [ord(c) for c in s] and lemma_utf8_roundtrip(s)
