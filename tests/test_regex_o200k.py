"""o200k_base's machine and its regex under the Unicode classes (issue 22, step 4).

Lean proves ``Bpe.Regex.preTokenizeO200k_eq_findIter`` (the code-point machine is ``findIter``
of ``o200kPattern`` under ``unicodeClasses``) and its bridges from bytes and strings. These tests
run the Python mirrors against independent oracles: Python's ``regex`` module on the pattern
string, and tiktoken's own engine for the one new hypothesis on the case orbits (no code point
but ``'`` matches ``(?i:')``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
import regex
from verified_bpe.patterns import O200K_PATTERN

from verified_bpe.spec.regex.match import char_holds, find_iter
from verified_bpe.spec.regex.patterns import o200k_pattern
from verified_bpe.spec.regex.unicode import unicode_classes
from verified_bpe.spec.unicode.code_points import (
    code_points,
    pre_tokenize_code_points,
    unit_chunks,
)
from verified_bpe.spec.unicode.o200k import next_chunk_len, pre_tokenize_o200k
from verified_bpe.spec.unicode.pretokenize import unit_code_point

#: pieces that exercise every branch and the backtracking of the word branches: case runs
#: (`HTMLParser`, `ABCdef`), marks and modifier/other letters (in both `U` and `W`), a titlecase
#: letter (only `U`), contractions in any case (with U+017F), digits, punctuation, `/`, newlines.
WORDS = ["'s", "'LL", "'ſ", "'Ve", "'RE", "’s", "HTML", "Parser", "ABCdef", "aBc", "Grüße",
         "ÉTÉ", "ǅ", "ǆ", "ʰ", "\u0301", "世界", "\u05d0", "x", "X", "123456", "\u0663", "½",
         " \n ", "\r\n", "\t", "  ", "\u00a0", "\u3000", "!?", "/", "≈", "\U0001f600", " ",
         ".\n/"]


def _next(rest: Sequence[int]) -> int:
    return next_chunk_len(rest, 0)


def _random_text(rng: random.Random) -> str:
    return "".join(rng.choice(WORDS) for _ in range(rng.randint(0, 10)))


def test_find_iter_unicode_is_machine_and_regex() -> None:
    """``find_iter`` under the Unicode classes, the code-point machine and ``regex.findall``
    agree on 300 random texts."""
    term = o200k_pattern()
    classes = unicode_classes()
    rng = random.Random(4)
    for _ in range(300):
        text = _random_text(rng)
        cps = [ord(c) for c in text]
        expected = [[ord(c) for c in m] for m in regex.findall(O200K_PATTERN, text)]
        assert find_iter(classes, term, cps) == expected, text
        assert pre_tokenize_code_points(_next, cps) == expected, text


def test_unit_chunks_bridge() -> None:
    """The byte machine's chunks are its chunks of UTF-8 units flattened, and those units read
    as code points are the code-point machine's chunks (valid UTF-8 or not)."""
    rng = random.Random(6)
    for _ in range(300):
        data = rng.choice([
            _random_text(rng).encode(),
            bytes(rng.randrange(256) for _ in range(rng.randint(0, 12))),
        ])
        groups = unit_chunks(_next, data)
        assert pre_tokenize_o200k(data) == [b"".join(g) for g in groups], data
        assert [[unit_code_point(u) for u in g] for g in groups] == pre_tokenize_code_points(
            _next, code_points(data)
        ), data


def test_apostrophe_orbit_as_tiktoken() -> None:
    """The hypothesis ``ReadsTablesO200k.orbit_apostrophe`` holds in tiktoken's engine: inside
    ``(?i:…)`` the apostrophe matches only itself, and so it does under ``unicodeClasses``."""
    unicode_classes_probe = pytest.importorskip("verified_bpe.verify.unicode_classes")
    pytest.importorskip("tiktoken")
    assert unicode_classes_probe.tiktoken_class("(?i:')") == {39}
    classes = unicode_classes()
    assert [x for x in range(0x110000) if char_holds(classes, True, 39, x)] == [39]


#: the o200k_base facts of ``lean/BpeTest/RegexExamples.lean`` under the Unicode classes
KERNEL_EXAMPLES = [
    ("HTMLParser's ABCdef", ["HTMLParser's", " ABCdef"]),
    ("ÉTÉ'S aBc ǅx\u0301", ["ÉTÉ'S", " a", "Bc", " ǅx\u0301"]),
    ("1234 !?/\n\n  x", ["123", "4", " !?/\n\n", " ", " x"]),
]


@pytest.mark.parametrize(("text", "chunks"), KERNEL_EXAMPLES)
def test_kernel_examples_unicode(text: str, chunks: list[str]) -> None:
    """The kernel-checked facts are ``regex.findall``'s, the mirror's and the machine's."""
    cps = [ord(c) for c in text]
    expected = [[ord(c) for c in m] for m in chunks]
    assert regex.findall(O200K_PATTERN, text) == chunks
    assert find_iter(unicode_classes(), o200k_pattern(), cps) == expected
    assert pre_tokenize_code_points(_next, cps) == expected
