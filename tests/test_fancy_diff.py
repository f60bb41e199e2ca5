r"""The regex semantics against fancy-regex at tiktoken 0.14's version (issue 33, item 1).

Oracle: fancy-regex 0.19.0 (``rust/fancy_diff``, pinned to tiktoken 0.14.0's crates), built by
cargo on the first test (debug profile, cached in ``rust/target``).  The semantics' Python
mirror (:mod:`verified_bpe.spec.regex.match`) runs with :data:`~verified_bpe.verify.regex_gen.
CLASSES`, whose properties and case orbits are pinned against fancy-regex itself on the
alphabet (the module's ``class_mismatches``; the orbits over the cased code points here, over
every code point with ``--orbits-everywhere``).  The exploring run (10^5 patterns) is
``python -m verified_bpe.verify.fancy_diff --patterns 100000 --seed 33 --release``
(docs/regex.md).

Differences found, written down and pinned (none is one of the semantics' ``matchRe`` or
``findIter``; no pattern of the project meets them):

* fancy-regex refuses a repeat whose body is a lookahead (``(?:(?!a))?``: "Target of repeat
  operator is invalid"), to which the semantics gives a meaning; tiktoken could not build such
  a pattern.  The generator makes none (``test_lookahead_repeat_refused``).
* the printer did not escape ``&`` and ``~`` in a class, where fancy-regex reads ``&&`` and
  ``~~`` as set operators (fixed: ``test_class_set_operators_escaped``).
"""

from __future__ import annotations

import random
import shutil
import sys
from pathlib import Path

import pytest

from verified_bpe.engine import patterns as pattern_strings
from verified_bpe.spec.regex import patterns as terms
from verified_bpe.spec.regex.ascii import ascii_classes
from verified_bpe.spec.regex.match import find_iter_spans, match_at
from verified_bpe.spec.regex.print import to_regex
from verified_bpe.spec.regex.syntax import (
    Alt,
    Char,
    Cls,
    Empty,
    Group,
    ItemChar,
    ItemRange,
    NotAhead,
    Rep,
    Set,
)
from verified_bpe.verify import fancy_diff
from verified_bpe.verify.regex_gen import CLASSES, FANCY_ALPHABET

pytestmark = pytest.mark.skipif(shutil.which("cargo") is None, reason="needs cargo")

sys.setrecursionlimit(20000)


@pytest.fixture(scope="module")
def binary() -> Path:
    return fancy_diff.build()


def test_differential_sample(binary: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """CI's budget, through the module's command line: the classes pinned against fancy-regex
    (each property on the alphabet, each character's case orbit over the cased code points:
    ``class_mismatches``), then 300 random patterns, 3 texts each."""
    assert fancy_diff.main(["--patterns", "300", "--seed", "1"]) == 0
    last = capsys.readouterr().out.strip().split("\n")[-1]
    assert last == "fancy-regex differential: 300 patterns, 900 texts, 0 differ"


def test_differential_can_fail(binary: Path) -> None:
    """The same run with the ASCII classes (no Unicode properties, ASCII case orbits) differs."""
    _, _, bad = fancy_diff.run(binary, 100, seed=1, classes=ascii_classes())
    assert len(bad) > 5


@pytest.mark.parametrize(
    ("term", "string"),
    [
        (terms.seed_pattern(), pattern_strings.CL100K_PATTERN_ORIGINAL),
        (terms.gpt2_pattern(), pattern_strings.GPT2_PATTERN),
        (terms.cl100k_pattern(), pattern_strings.CL100K_PATTERN),
        (terms.o200k_pattern(), pattern_strings.O200K_PATTERN),
        (terms.llama3_pattern(), pattern_strings.LLAMA3_PATTERN),
    ],
)
def test_pattern_find_iter(binary: Path, term: object, string: str) -> None:
    """Each pattern's ``find_iter`` is fancy-regex's on 200 random texts of the alphabet and
    of pieces the patterns treat apart (contractions, case runs, digit runs, white space)."""
    assert to_regex(term) == string  # type: ignore[arg-type]
    words = ["'s", "'LL", "'\u017f", "Hello", "wORLD", "123456", " \n ", "\r\n", "  ", "!?"]
    rng = random.Random(len(string))
    alphabet = list(FANCY_ALPHABET) + words
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 16))) for _ in range(200)]
    [(err, answers)] = fancy_diff.run_fancy(binary, [(string, texts)])
    assert err is None
    for text, ans in zip(texts, answers, strict=True):
        t = [ord(c) for c in text]
        assert ans.error is None
        assert find_iter_spans(CLASSES, term, t) == ans.spans, text  # type: ignore[arg-type]


def test_lookahead_repeat_refused(binary: Path) -> None:
    """The difference: fancy-regex refuses to repeat a lookahead; the semantics matches it."""
    r = Rep(Group(NotAhead(Char(ord("a")))), 0, 1, False)
    assert to_regex(r) == "(?:(?!a))?"
    [(err, _)] = fancy_diff.run_fancy(binary, [(to_regex(r), ["b"])])
    assert err is not None and "Target of repeat operator is invalid" in err
    assert match_at(CLASSES, r, [ord("b")], 0) == 0


def test_class_set_operators_escaped(binary: Path) -> None:
    """Found by the exploring run (1 pair of 300,000) and fixed: the printer (``Regex/Print.lean``,
    ``isClassMeta``) did not escape ``&`` and ``~`` in a class, and fancy-regex reads ``&&`` and
    ``~~`` there as set operators, so ``[~~b-x]`` (the items ``~``, ``~``, ``b-x``) did not match
    ``~``.  Escaped, fancy-regex agrees with the semantics.  No pattern of the project has ``&``
    or ``~``."""
    tilde = ItemChar(ord("~"))
    r = Cls(Set(False, (tilde, tilde, ItemRange(ord("b"), ord("x")))))
    assert to_regex(r) == r"[\~\~b-x]"
    assert find_iter_spans(CLASSES, r, [ord("~")]) == [(0, 1)]
    amp = Cls(Set(False, (ItemChar(ord("&")), ItemChar(ord("&")), ItemChar(ord("a")))))
    assert to_regex(amp) == r"[\&\&a]"
    assert find_iter_spans(CLASSES, amp, [ord("&"), ord("a")]) == [(0, 1), (1, 2)]
    jobs = [("[~~b-x]", ["~"]), (to_regex(r), ["~"]), ("[&&a]", ["&a"]), (to_regex(amp), ["&a"])]
    found = [answers[0].spans for _, answers in fancy_diff.run_fancy(binary, jobs)]
    assert found == [[], [(0, 1)], [], [(0, 1), (1, 2)]]


def test_difference_empty_iteration(binary: Path) -> None:
    """Intended difference 3 of ``tests/test_spec_regex.py``, against fancy-regex too: in an
    unbounded repeat an iteration that consumes nothing fails in the semantics, so
    ``(?:|a)*`` on ``aa`` goes on to ``a`` and matches ``aa``; fancy-regex takes the empty
    alternative and matches nothing.  No pattern of the project has a body that matches empty
    in an unbounded repeat; the generator makes none."""
    r = Rep(Group(Alt(Empty(), Char(ord("a")))), 0, None, False)
    assert to_regex(r) == "(?:|a)*"
    [(err, [ans])] = fancy_diff.run_fancy(binary, [(to_regex(r), ["aa"])])
    assert err is None and ans.spans == [(0, 0), (1, 1), (2, 2)]
    assert find_iter_spans(CLASSES, r, [ord("a"), ord("a")]) == [(0, 2)]
