"""Bpe.Classify: each classifier against the regex engine's Unicode classes on all ASCII."""

from __future__ import annotations

import regex

from verified_bpe.spec.seed import classify as c

ASCII = range(128)


def _matches(pattern: str, b: int) -> bool:
    return regex.fullmatch(pattern, chr(b)) is not None


def test_is_ascii_boundaries():
    assert [b for b in range(256) if c.is_ascii(b)] == list(range(128))
    assert not c.is_ascii(-1)


def test_is_letter_is_unicode_L_on_ascii():
    assert [b for b in ASCII if c.is_letter(b)] == [b for b in ASCII if _matches(r"\p{L}", b)]
    assert not any(c.is_letter(b) for b in range(128, 256))  # bytes, not code points


def test_is_digit_is_unicode_N_on_ascii():
    assert [b for b in ASCII if c.is_digit(b)] == [b for b in ASCII if _matches(r"\p{N}", b)]


def test_is_space_is_regex_backslash_s_on_ascii():
    assert [b for b in ASCII if c.is_space(b)] == [b for b in ASCII if _matches(r"\s", b)]
    assert [b for b in ASCII if c.is_space(b)] == [9, 10, 11, 12, 13, 32]


def test_file_separators_are_not_space_although_python_says_so():
    # 0x1C-0x1F: str.isspace() is True, Unicode White_Space (regex \s) is False.
    for b in range(0x1C, 0x20):
        assert chr(b).isspace()
        assert not _matches(r"\s", b)
        assert not c.is_space(b)
        assert c.is_punct(b)


def test_is_newline():
    assert [b for b in ASCII if c.is_newline(b)] == [b for b in ASCII if _matches(r"[\r\n]", b)]


def test_is_punct_is_the_pattern_class_on_ascii():
    expected = [b for b in ASCII if _matches(r"[^\s\p{L}\p{N}]", b)]
    assert [b for b in ASCII if c.is_punct(b)] == expected
    # every ASCII byte is in exactly one of letter / digit / space / punct
    for b in ASCII:
        assert [c.is_letter(b), c.is_digit(b), c.is_space(b), c.is_punct(b)].count(True) == 1


def test_is_punct_seed_erratum():
    """The seed's version excludes exactly the control bytes 0-8, 14-31 (and keeps 127)."""
    differ = [b for b in ASCII if c.is_punct(b) != c.is_punct_seed(b)]
    assert differ == list(range(0, 9)) + list(range(14, 32))


def test_to_lower():
    for b in ASCII:
        assert c.to_lower(b) == ord(chr(b).lower())
    for b in range(128, 256):
        assert c.to_lower(b) == b
