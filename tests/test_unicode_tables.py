r"""Unicode classes pinned to tiktoken: the generated tables (Python and Lean) are current and
equal tiktoken's own engine, and the ``fast`` engine equals tiktoken on the code points where
the ``regex`` module's newer tables differ.  The oracle is tiktoken throughout (its engine read
through class-only patterns, and its encoders on the real vocabularies).  The exhaustive
version is ``python -m verified_bpe.verify.unicode_gen --scan``."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verified_bpe.engine.patterns import PATTERNS, PinnedSplitter, pin_classes
from verified_bpe.spec.unicode import tables as unicode_tables
from verified_bpe.spec.unicode.range_tree import contains
from verified_bpe.verify import unicode_classes, unicode_gen, unicode_scan

tiktoken = pytest.importorskip("tiktoken")


@pytest.fixture(scope="module")
def tik() -> dict[str, set[int]]:
    """Each class as tiktoken's engine matches it, over every code point."""
    return {c.py_name: unicode_classes.tiktoken_class(c.regex) for c in unicode_classes.CLASSES}


def test_generated_files_are_current(capsys):
    assert unicode_gen.main(["--check"]) == 0, capsys.readouterr().out


def test_lean_trees_are_search_trees_of_tiktoken_classes(tik):
    lean = unicode_scan.parse_lean_tables(unicode_classes.LEAN_FILE.read_text("utf-8"))
    assert set(lean) == {c.lean_name for c in unicode_classes.CLASSES}
    for c in unicode_classes.CLASSES:
        got = {cp for lo, hi in lean[c.lean_name] for cp in range(lo, hi + 1)}
        assert got == tik[c.py_name], c.regex


def test_python_lookups_at_every_range_edge(tik):
    """``is_*`` is a step function changing only at range edges: check both sides of each."""
    for c in unicode_classes.CLASSES:
        is_x = getattr(unicode_tables, f"is_{c.py_name}")
        ranges = getattr(unicode_tables, f"{c.py_name.upper()}_RANGES")
        edges = {e for lo, hi in ranges for e in (lo - 1, lo, hi, hi + 1)} | {0, 0x10FFFF}
        wrong = [e for e in edges if e >= 0 and is_x(e) != (e in tik[c.py_name])]
        assert not wrong, (c.regex, wrong[:5])


def test_class_expressions_of_the_patterns(tik):
    r"""``\S``, ``[^\r\n\p{L}\p{N}]``, ``[^\s\p{L}\p{N}]``, o200k's unions and ``\p{L}`` as
    the union of Lu/Ll/Lt/Lm/Lo: tiktoken's engine agrees with the set algebra of the tables."""
    for expr, expected in unicode_scan.derived_classes(tik).items():
        assert unicode_classes.tiktoken_class(expr) == expected, expr


@given(st.lists(st.integers(0, 300), max_size=30), st.integers(-1, 310))
def test_contains_is_membership(points, cp):
    ranges = unicode_classes.to_ranges(points)
    assert contains(ranges, cp) == (cp in points)


def test_pin_classes_keeps_the_rest_of_the_pattern():
    pinned = pin_classes(r"[^\s\p{L}]\S\p{Han}[\P{N}]x\p{Lt}")
    assert pinned.startswith(r"[^\u0009-\u000D\u0020")
    assert r"\p{Han}[\P{N}]x[\u01C5\u01C8" in pinned
    assert "[^\\u0009-\\u000D" in pinned.split("]", 1)[1]  # \S outside a class


@pytest.fixture(scope="module")
def regex_differs(tik) -> list[int]:
    """Code points where the ``regex`` module's own tables differ from tiktoken's (the ones
    the issue found), with the code points next to each run of them."""
    out: set[int] = set()
    for c in unicode_classes.CLASSES:
        out |= unicode_scan.regex_class(c.regex) ^ tik[c.py_name]
    edges = {e for lo, hi in unicode_classes.to_ranges(out) for e in (lo - 1, hi + 1)}
    return sorted(cp for cp in out | edges if cp not in unicode_gen.SURROGATES)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_fast_engine_equals_tiktoken_where_regex_tables_differ(name, regex_differs):
    from verified_bpe.engine.tokenizer import Tokenizer
    from verified_bpe.engine.vocab import tiktoken_encoding

    assert len(regex_differs) > 17_000  # the issue's 17,480 / 17,559 code points are in here
    ours = Tokenizer.from_tiktoken(name, engine="fast").encode_ordinary
    theirs = tiktoken_encoding(name).encode_ordinary
    assert unicode_scan.disagreeing(ours, theirs, regex_differs) == []


def test_issue_example():
    from verified_bpe.engine.tokenizer import Tokenizer

    ids = Tokenizer.from_tiktoken("o200k_base").encode_ordinary("6\u0cdc-l")
    assert ids == [21, 670, 250, 12, 75]  # tiktoken 0.14's answer, quoted in issue 15


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_one_recent_character_in_a_long_text(name):
    """One character the two tables disagree on switches the whole text to the pinned
    pattern (the native split is different here); the ids equal tiktoken's."""
    from verified_bpe.engine.tokenizer import Tokenizer
    from verified_bpe.engine.vocab import tiktoken_encoding

    text = "Grüße, 世界! x\u0cdc y \U000323b0z 123456 can't\n\n  \u1e9e\u0cdd ok"
    splitter = PinnedSplitter(PATTERNS[name])
    assert splitter.split(text) != splitter.native.findall(text)
    ours = Tokenizer.from_tiktoken(name, engine="fast").encode_ordinary(text)
    assert ours == tiktoken_encoding(name).encode_ordinary(text)


def test_pinned_pattern_route():
    """A pattern that reads characters otherwise than through the pinned classes (here ``.``)
    gets no stand-ins: a text with a differing character is split by the pinned pattern."""
    from verified_bpe.engine.tokenizer import Tokenizer
    from verified_bpe.engine.vocab import load_ranks

    pattern = r"\p{L}+|\p{N}{1,3}|\s+|."
    splitter = PinnedSplitter(pattern)
    assert splitter._stand_ins_allowed is False
    text = "x\u0cdcy 12\u0295\u0295 \U000323b0\u05c8 ok"
    ranks = load_ranks("cl100k_base")
    tok = Tokenizer.from_ranks(ranks, pattern)
    ours = tok.encode_ordinary(text)
    theirs = tiktoken.Encoding(
        name="dot", pat_str=pattern, mergeable_ranks=ranks, special_tokens={}
    ).encode_ordinary(text)
    assert ours == theirs
    assert tok._split._pinned._pinned is not None  # the pinned route was taken
