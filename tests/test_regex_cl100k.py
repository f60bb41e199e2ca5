"""cl100k_base's machine and its regex under the Unicode classes (issue 22, step 3).

Lean proves ``Bpe.Regex.preTokenizeCl100k_eq_findIter`` (the code-point machine is ``findIter``
of ``cl100kPattern`` under ``unicodeClasses``) and its bridge from bytes. These tests run the
Python mirrors against independent oracles: Python's ``regex`` module on the pattern string, and
tiktoken's own engine for the one hypothesis the proof takes on the case orbits (that the
contraction letters inside ``(?i:…)`` match exactly the code points the machine folds to them).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from verified_bpe.patterns import CL100K_PATTERN

from regex_machines import (
    check_kernel_example,
    check_machine_is_regex,
    check_unit_chunks_bridge,
    random_text,
)
from verified_bpe.spec.regex.match import char_holds
from verified_bpe.spec.regex.patterns import cl100k_pattern
from verified_bpe.spec.regex.unicode import unicode_classes
from verified_bpe.spec.unicode.cl100k import next_chunk_len, pre_tokenize_cl100k
from verified_bpe.spec.unicode.code_points import (
    code_points,
)
from verified_bpe.spec.unicode.pretokenize import fold_case

CONTRACTION_LETTERS = "sdmtlvre"
#: pieces that exercise every branch: contractions (with U+017F), letters of several scripts,
#: digits of several scripts, punctuation, and whitespace runs with newlines and U+00A0/U+3000.
WORDS = [
    "'s",
    "'LL",
    "'ſ",
    "'Ve",
    "’s",
    "Grüße",
    "naïve",
    "ÉTÉ",
    "世界",
    "\u05d0\u05d1",
    "123456",
    "\u0663\u0664",
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
    "\u0301",
    "\U0001f600",
    "x",
    " ",
]


def _next(rest: Sequence[int]) -> int:
    return next_chunk_len(rest, 0)


def _random_text(rng: random.Random) -> str:
    return random_text(rng, WORDS)


def test_find_iter_unicode_is_machine_and_regex() -> None:
    """``find_iter`` under the Unicode classes, the code-point machine and ``regex.findall``
    agree on 300 random texts."""
    check_machine_is_regex(cl100k_pattern(), CL100K_PATTERN, _next, WORDS, seed=22)


def test_unit_chunks_bridge() -> None:
    """The byte machine's chunks are its chunks of UTF-8 units, read back as code points."""
    check_unit_chunks_bridge(pre_tokenize_cl100k, _next, WORDS, seed=3)


def test_code_points_of_valid_utf8() -> None:
    """On valid UTF-8 the decoded code points are the string's (the bridge to strings)."""
    rng = random.Random(5)
    for _ in range(300):
        text = _random_text(rng)
        assert code_points(text.encode()) == [ord(c) for c in text], text


def test_contraction_letters_fold_as_tiktoken() -> None:
    """The hypothesis ``ReadsTables.orbit`` holds in tiktoken's engine: inside ``(?i:…)`` each
    contraction letter matches exactly the code points that ``foldCase`` sends to it, and so
    does the semantics under ``unicodeClasses``."""
    unicode_classes_probe = pytest.importorskip("verified_bpe.verify.unicode_classes")
    pytest.importorskip("tiktoken")
    classes = unicode_classes()
    candidates = [*range(128), 0x17F, 0x212A]
    for letter in CONTRACTION_LETTERS:
        c = ord(letter)
        engine = unicode_classes_probe.tiktoken_class(f"(?i:{letter})")
        assert engine == {x for x in candidates if fold_case(x) == c}, letter
        assert engine == {x for x in candidates if char_holds(classes, True, c, x)}, letter
    # every other code point has an empty orbit and folds to itself
    assert all(
        not classes.orbit(x) and fold_case(x) == x
        for x in range(128, 0x110000)
        if x not in (0x17F, 0x212A)
    )


#: the cl100k_base facts of ``lean/BpeTest/RegexExamples.lean`` under the Unicode classes
KERNEL_EXAMPLES = [
    ("Grüße, 世界! 12345\n\n", ["Grüße", ",", " 世界", "!", " ", "123", "45", "\n\n"]),
    ("ÉTÉ'ſ naïve’s  \u00a0x\u3000", ["ÉTÉ", "'ſ", " naïve", "’s", "  ", "\u00a0x", "\u3000"]),
    ("Ω≈ç √ 1/2 ½\r\n  ", ["Ω", "≈ç", " √", " ", "1", "/", "2", " ", "½", "\r\n  "]),
]


@pytest.mark.parametrize(("text", "chunks"), KERNEL_EXAMPLES)
def test_kernel_examples_unicode(text: str, chunks: list[str]) -> None:
    """The kernel-checked facts are ``regex.findall``'s, the mirror's and the machine's."""
    check_kernel_example(cl100k_pattern(), CL100K_PATTERN, _next, text, chunks)
