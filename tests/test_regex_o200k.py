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
from verified_bpe.patterns import O200K_PATTERN

from regex_machines import (
    check_kernel_example,
    check_machine_is_regex,
    check_unit_chunks_bridge,
    random_text,
)
from verified_bpe.spec.regex.match import char_holds
from verified_bpe.spec.regex.patterns import o200k_pattern
from verified_bpe.spec.regex.unicode import unicode_classes
from verified_bpe.spec.unicode.o200k import next_chunk_len, pre_tokenize_o200k

#: pieces that exercise every branch and the backtracking of the word branches: case runs
#: (`HTMLParser`, `ABCdef`), marks and modifier/other letters (in both `U` and `W`), a titlecase
#: letter (only `U`), contractions in any case (with U+017F), digits, punctuation, `/`, newlines.
WORDS = [
    "'s",
    "'LL",
    "'ſ",
    "'Ve",
    "'RE",
    "’s",
    "HTML",
    "Parser",
    "ABCdef",
    "aBc",
    "Grüße",
    "ÉTÉ",
    "ǅ",
    "ǆ",
    "ʰ",
    "\u0301",
    "世界",
    "\u05d0",
    "x",
    "X",
    "123456",
    "\u0663",
    "½",
    " \n ",
    "\r\n",
    "\t",
    "  ",
    "\u00a0",
    "\u3000",
    "!?",
    "/",
    "≈",
    "\U0001f600",
    " ",
    ".\n/",
]


def _next(rest: Sequence[int]) -> int:
    return next_chunk_len(rest, 0)


def _random_text(rng: random.Random) -> str:
    return random_text(rng, WORDS)


def test_find_iter_unicode_is_machine_and_regex() -> None:
    """``find_iter`` under the Unicode classes, the code-point machine and ``regex.findall``
    agree on 300 random texts."""
    check_machine_is_regex(o200k_pattern(), O200K_PATTERN, _next, WORDS, seed=4)


def test_unit_chunks_bridge() -> None:
    """The byte machine's chunks are its chunks of UTF-8 units, read back as code points."""
    check_unit_chunks_bridge(pre_tokenize_o200k, _next, WORDS, seed=6)


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
    check_kernel_example(o200k_pattern(), O200K_PATTERN, _next, text, chunks)
