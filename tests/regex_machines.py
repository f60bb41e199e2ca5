"""Checks shared by ``test_regex_cl100k.py`` and ``test_regex_o200k.py``: a Unicode machine
against ``find_iter`` of its pattern term (the Python mirror of ``Bpe.Regex.Match``) and against
the ``regex`` module on the pattern string, and the bridge from bytes through UTF-8 units."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import regex

from verified_bpe.spec.regex.match import find_iter
from verified_bpe.spec.regex.unicode import unicode_classes
from verified_bpe.spec.unicode.code_points import (
    code_points,
    pre_tokenize_code_points,
    unit_chunks,
)
from verified_bpe.spec.unicode.pretokenize import unit_code_point

NextLen = Callable[[Sequence[int]], int]


def random_text(rng: random.Random, words: Sequence[str]) -> str:
    """Up to ten pieces of ``words``, concatenated."""
    return "".join(rng.choice(words) for _ in range(rng.randint(0, 10)))


def check_machine_is_regex(
    term: object, pattern: str, next_len: NextLen, words: Sequence[str], seed: int, count: int = 300
) -> None:
    """``find_iter`` under the Unicode classes, the code-point machine and ``regex.findall``
    agree on ``count`` random texts."""
    classes = unicode_classes()
    rng = random.Random(seed)
    for _ in range(count):
        text = random_text(rng, words)
        cps = [ord(c) for c in text]
        expected = [[ord(c) for c in m] for m in regex.findall(pattern, text)]
        assert find_iter(classes, term, cps) == expected, text
        assert pre_tokenize_code_points(next_len, cps) == expected, text


def check_unit_chunks_bridge(
    pre_tokenize: Callable[[bytes], list[bytes]],
    next_len: NextLen,
    words: Sequence[str],
    seed: int,
    count: int = 300,
) -> None:
    """The byte machine's chunks are its chunks of UTF-8 units flattened, and those units read
    as code points are the code-point machine's chunks (valid UTF-8 or not)."""
    rng = random.Random(seed)
    for _ in range(count):
        data = rng.choice(
            [
                random_text(rng, words).encode(),
                bytes(rng.randrange(256) for _ in range(rng.randint(0, 12))),
            ]
        )
        groups = unit_chunks(next_len, data)
        assert pre_tokenize(data) == [b"".join(g) for g in groups], data
        assert [[unit_code_point(u) for u in g] for g in groups] == pre_tokenize_code_points(
            next_len, code_points(data)
        ), data


def check_kernel_example(
    term: object, pattern: str, next_len: NextLen, text: str, chunks: list[str]
) -> None:
    """A kernel-checked fact of ``BpeTest.RegexExamples`` is ``regex.findall``'s, the
    mirror's and the machine's."""
    cps = [ord(c) for c in text]
    expected = [[ord(c) for c in m] for m in chunks]
    assert regex.findall(pattern, text) == chunks
    assert find_iter(unicode_classes(), term, cps) == expected
    assert pre_tokenize_code_points(next_len, cps) == expected
