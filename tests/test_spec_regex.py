r"""The regex semantics (``verified_bpe.spec.regex``, mirror of ``lean/Bpe/Regex``) against
the ``regex`` module.

Oracle: the ``regex`` module (pinned in ``pyproject.toml``) running the printed pattern, with
the character classes pinned: texts are drawn from an alphabet on which ``regex``'s Unicode
tables and tiktoken's (:mod:`verified_bpe.spec.unicode.tables`, which the semantics reads)
agree (checked), and the case orbits of the alphabet are written out below.

Checked on random patterns of the fragment and random texts:

* the match anchored at every position (``match_at`` vs ``Pattern.match(text, pos)``);
* ``find_iter`` vs fancy-regex's ``find_iter`` rule run on ``Pattern.search`` (and vs
  ``Pattern.finditer`` itself when no match is empty).

Intended differences from the ``regex`` module, each tested on its own below:

1. ``$`` is the end of the haystack (fancy-regex, no multiline); ``regex``'s ``$`` also
   matches before a final ``"\n"``.  The oracle runs ``\Z`` in its place.
2. ``find_iter`` does not report an empty match where the previous match ended
   (fancy-regex); ``regex.finditer`` does (``a*`` on ``"baaab"``).
3. An unbounded repetition whose body can match the empty string: an iteration that consumes
   nothing fails.  Engines differ here (``regex``, and fancy-regex across versions, stop the
   loop instead), and no pattern of the project has such a body; the generator does not make
   them.
4. ``\p{Lu}``, ``\p{Ll}``, ``\p{Lt}`` inside ``(?i:…)``: the semantics closes the class
   under case orbits (fancy-regex folds the class: ``(?i:\p{Lt})`` is the title-case letters
   and their case partners); ``regex`` takes any cased letter (``(?i:\p{Lt})`` matches
   ``y``).  No pattern puts a property inside ``(?i:…)``; the generator does not either.

A bug of the ``regex`` module (2026.11.15), not a difference of the semantics: after a scoped
``(?i:…)``, some negated classes are matched case-insensitively (``(?i:B)|[^AZ]`` does not
match ``a``; ``(?i:B)|\P{Lu}`` does not match ``s``).  So a random pattern has ``(?i:…)``
groups or negated classes, not both (``test_regex_bug_negated_after_caseless``).  The five
patterns are not affected: their negated classes are closed under case
(``test_pattern_find_iter``).

The full run (10^5 patterns) is ``test_differential_full`` (marked slow); CI runs a sample.
"""

from __future__ import annotations

import random
import sys
import time

import pytest
import regex
from verified_bpe.patterns import differing_characters

from verified_bpe import patterns as pattern_strings
from verified_bpe.spec.regex import patterns as terms
from verified_bpe.spec.regex.match import find_iter_spans, match_at
from verified_bpe.spec.regex.print import to_regex
from verified_bpe.spec.regex.r50k_pattern import r50k_pattern
from verified_bpe.spec.regex.syntax import (
    Alt,
    Caseless,
    Char,
    Cls,
    Empty,
    Eos,
    Esc,
    Group,
    ItemChar,
    Property,
    Re,
    Rep,
    Seq,
    Set,
)
from verified_bpe.verify import regex_gen
from verified_bpe.verify.regex_gen import ALPHABET

sys.setrecursionlimit(20000)

CLASSES = regex_gen.CLASSES
_orbit = regex_gen.orbit


def test_alphabet_is_pinned() -> None:
    """On the alphabet, ``regex`` classifies as tiktoken's tables do, and the orbits are those
    of ``regex``'s case-insensitive matching."""
    assert differing_characters(ALPHABET) == set()
    for a in ALPHABET:
        for b in ALPHABET:
            same = a != b and regex.fullmatch("(?i:" + regex.escape(a) + ")", b) is not None
            assert same == (ord(a) in _orbit(ord(b))), (a, b)


# --- random patterns of the fragment (verified_bpe.verify.regex_gen) ---------------------

random_pattern = regex_gen.random_pattern


def _oracle_pattern(r: Re) -> str:
    """The printed pattern for the ``regex`` module: ``$`` as ``\\Z`` (intended difference 1;
    no literal of the generator prints a ``$``)."""
    return to_regex(r).replace("$", "\\Z")


def _fancy_find_iter(compiled: regex.Pattern[str], text: str) -> list[tuple[int, int]]:
    """fancy-regex's ``find_iter`` loop on ``regex``'s leftmost-first search: after an empty
    match, resume one character further; an empty match where the last match ended is not
    reported."""
    out: list[tuple[int, int]] = []
    pos, last_end = 0, None
    while pos <= len(text):
        m = compiled.search(text, pos)
        if m is None:
            break
        if m.start() == m.end():
            pos = m.end() + 1
            if m.end() == last_end:
                continue
        else:
            pos = m.end()
        last_end = m.end()
        out.append(m.span())
    return out


def _check(r: Re, texts: list[str]) -> list[str]:
    """The mismatches of ``r`` on ``texts`` (empty when the semantics agrees with ``regex``)."""
    compiled = regex.compile(_oracle_pattern(r))
    bad = []
    for text in texts:
        t = [ord(c) for c in text]
        for i in range(len(t) + 1):
            m = compiled.match(text, i)
            if match_at(CLASSES, r, t, i) != (m.end() if m else None):
                bad.append(f"match_at {to_regex(r)!r} {text!r} at {i}")
        spans = find_iter_spans(CLASSES, r, t)
        if spans != _fancy_find_iter(compiled, text):
            bad.append(f"find_iter {to_regex(r)!r} {text!r}")
        native = [m.span() for m in compiled.finditer(text)]
        if all(a < b for a, b in native) and spans != native:
            bad.append(f"finditer {to_regex(r)!r} {text!r}")
    return bad


def run_differential(
    n_patterns: int, seed: int, texts_per_pattern: int = 3
) -> tuple[int, list[str]]:
    """``n_patterns`` random patterns, each on ``texts_per_pattern`` random texts; returns the
    number of (pattern, text) pairs and the mismatches."""
    rng = random.Random(seed)
    bad: list[str] = []
    for _ in range(n_patterns):
        r = random_pattern(rng)
        bad += _check(r, [regex_gen.random_text(rng) for _ in range(texts_per_pattern)])
    return n_patterns * texts_per_pattern, bad


def test_differential_sample() -> None:
    _, bad = run_differential(1000, seed=1)
    assert bad == []


@pytest.mark.slow
def test_differential_full() -> None:
    start = time.monotonic()
    pairs, bad = run_differential(100_000, seed=22, texts_per_pattern=2)
    print(
        f"differential: 100000 patterns, {pairs} texts, {len(bad)} mismatches, "
        f"{time.monotonic() - start:.0f} s"
    )
    assert bad == []


# --- the patterns ----------------------------------------------------------------------------

PATTERNS = [
    (terms.seed_pattern(), pattern_strings.CL100K_PATTERN_ORIGINAL),
    (terms.gpt2_pattern(), pattern_strings.GPT2_PATTERN),
    (r50k_pattern(), pattern_strings.R50K_PATTERN),
    (terms.cl100k_pattern(), pattern_strings.CL100K_PATTERN),
    (terms.o200k_pattern(), pattern_strings.O200K_PATTERN),
    (terms.llama3_pattern(), pattern_strings.LLAMA3_PATTERN),
    (terms.llama3_meta_pattern(), pattern_strings.LLAMA3_META_PATTERN),
]


@pytest.mark.parametrize(("term", "string"), PATTERNS)
def test_pattern_prints_to_string(term: Re, string: str) -> None:
    """Each term prints back to the exact pattern string (tiktoken 0.14's, the seed's)."""
    assert to_regex(term) == string


@pytest.mark.parametrize(("term", "string"), PATTERNS)
def test_pattern_find_iter(term: Re, string: str) -> None:
    """Each pattern's ``find_iter`` equals ``regex.finditer`` of its string on random texts of
    the alphabet (its whitespace runs, contractions, case runs, digits, marks)."""
    compiled = regex.compile(string.replace("$", "\\Z"))
    as_is = regex.compile(string)
    rng = random.Random(len(string))
    words = [
        "'s",
        "'LL",
        "'ſ",
        "Hello",
        "wORLD",
        "123456",
        " \n ",
        "\r\n",
        "\t",
        "  ",
        "!?",
        "/",
        "\u00e9\u0301",
        "\u05d0\u02b0",
        "\u3000",
        "\u01c5x",
        "\u0663",
    ]
    for _ in range(300):
        text = "".join(rng.choice(words + list(ALPHABET)) for _ in range(rng.randint(0, 12)))
        spans = find_iter_spans(CLASSES, term, [ord(c) for c in text])
        assert spans == [m.span() for m in compiled.finditer(text)], text
        # No pattern's `$` sees the difference: cl100k_base's `\s++` takes a final "\n" too.
        assert spans == [m.span() for m in as_is.finditer(text)], text


# --- intended differences --------------------------------------------------------------------


def test_difference_dollar() -> None:
    """1. ``$`` is the end of the haystack only; ``regex``'s also matches before a final
    newline."""
    r = Seq(Char(ord("a")), Eos())
    assert regex.search("a$", "a\n") is not None
    assert match_at(CLASSES, r, [ord("a"), 10], 0) is None
    assert find_iter_spans(CLASSES, r, [ord("a"), 10]) == []
    assert find_iter_spans(CLASSES, r, [ord("a")]) == [(0, 1)]


def test_difference_empty_after_match() -> None:
    """2. No empty match where the previous match ended (fancy-regex); ``regex`` reports it."""
    r = Rep(Char(ord("a")), 0, None, False)
    t = [ord(c) for c in "baaab"]
    assert [m.span() for m in regex.finditer("a*", "baaab")] == [(0, 0), (1, 4), (4, 4), (5, 5)]
    assert find_iter_spans(CLASSES, r, t) == [(0, 0), (1, 4), (5, 5)]


def test_difference_empty_iteration() -> None:
    """3. An unbounded loop whose iteration consumes nothing fails that iteration (so the loop
    goes on to the alternative that consumes); ``regex`` stops the loop."""
    r = Rep(Group(Alt(Empty(), Char(ord("a")))), 0, None, False)
    assert regex.match("(?:|a)*", "aa").end() == 0
    assert match_at(CLASSES, r, [ord("a"), ord("a")], 0) == 2


def test_difference_cased_property_caseless() -> None:
    r"""4. ``(?i:\p{Lt})``: case closure of the title-case letters (not ``y``); ``regex``: any
    cased letter."""
    r = Caseless(Cls(Esc(False, Property.TITLECASE)))
    assert regex.match(r"(?i:\p{Lt})", "y") is not None
    assert match_at(CLASSES, r, [ord("y")], 0) is None
    assert match_at(CLASSES, r, [0x1C5], 0) == 1


def test_regex_bug_negated_after_caseless() -> None:
    """The ``regex`` bug that the generator avoids: a negated class after ``(?i:…)``."""
    assert regex.match(r"[^AZ]", "a") is not None
    assert regex.match(r"(?i:B)|[^AZ]", "a") is None  # should match "a"
    r = Alt(Caseless(Char(ord("B"))), Cls(Set(True, (ItemChar(ord("A")), ItemChar(ord("Z"))))))
    assert match_at(CLASSES, r, [ord("a")], 0) == 1


def test_kernel_examples() -> None:
    """The facts of ``lean/BpeTest/RegexExamples.lean``, on the mirror (ASCII classes)."""
    from verified_bpe.spec.regex.ascii import ascii_classes
    from verified_bpe.spec.regex.match import find_iter

    def chunks(r: Re, text: str) -> list[str]:
        return ["".join(map(chr, c)) for c in find_iter(ascii_classes(), r, [ord(c) for c in text])]

    seed, cl100k = terms.seed_pattern(), terms.cl100k_pattern()
    assert chunks(seed, "Hello world's 1234!!\n") == [
        "Hello",
        " world",
        "'s",
        " ",
        "123",
        "4",
        "!!\n",
    ]
    assert chunks(seed, "I'll   go\t\n\n  x  ") == [
        "I",
        "'ll",
        "  ",
        " go",
        "\t\n\n",
        " ",
        " x",
        "  ",
    ]
    assert chunks(cl100k, "a\n ") == ["a", "\n "]
    assert chunks(seed, "a\n ") == ["a", "\n", " "]
    assert chunks(seed, "'S'\u017f'x") == ["'S", "'\u017f", "'x"]
    assert chunks(terms.o200k_pattern(), "HelloWorld's ABCdef") == ["Hello", "World's", " ABCdef"]
    a_star = Rep(Char(ord("a")), 0, None, False)
    assert chunks(Seq(a_star, Char(ord("a"))), "aaa") == ["aaa"]
    assert chunks(Seq(Rep(Char(ord("a")), 0, None, True), Char(ord("a"))), "aaa") == []
