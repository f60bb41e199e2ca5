"""Bpe.Ranks.Run: the long-run step as a function (``pump_run``), whose answers Lean proves
equal to the merge of the whole piece (``bytePairMerge_eq_of_pumpRun_eq_some``).

Oracles: the spec's merge and the brute-force definition (tests/test_engine_heap.py) on random
tables, repeated ranks included, with short windows (the theorem holds for every window
length).  The native ``bpe_run`` is tested against the heap merge in tests/test_native_runs.py."""

from __future__ import annotations

import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from verified_bpe.spec.ranks.basic import byte_pair_merge
from verified_bpe.spec.ranks.run import pump_run, twin_parts

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_engine_heap import brute_force  # noqa: E402


@st.composite
def run_case(draw) -> tuple[dict[bytes, int], bytes, int, int, int, bytes]:
    """A table over ``a``/``b`` (bytes at their own ranks, runs of ``a`` and a few mixed
    tokens at ranks 256..259, so ranks repeat), a lead ``u``, the run byte ``a``, ``n`` and a
    window ``m <= n``, a tail ``v``."""
    ranks = {bytes([b]): b for b in range(256)}
    word = st.lists(st.sampled_from(list(b"ab")), min_size=2, max_size=6).map(bytes)
    tokens = draw(st.lists(word, max_size=10, unique=True))
    tokens += [b"a" * k for k in draw(st.lists(st.integers(2, 8), max_size=5, unique=True))]
    for token in tokens:
        ranks[token] = draw(st.integers(256, 259))
    edge = st.lists(st.sampled_from(list(b"ab")), max_size=3).map(bytes)
    m = draw(st.integers(0, 24))
    n = m + draw(st.integers(0, 40))
    return ranks, draw(edge), ord("a"), n, m, draw(edge)


@settings(max_examples=300, deadline=None)
@given(case=run_case())
def test_pump_run_is_the_merge(case):
    """Whenever the step answers, its answer is the definition's merge of the whole piece."""
    ranks, u, c, n, m, v = case
    found = pump_run(ranks, u, c, n, m, v)
    if found is not None:
        piece = u + bytes([c]) * n + v
        assert found == byte_pair_merge(ranks, piece)
        if piece not in ranks:
            assert [ranks[p] for p in found] == brute_force(ranks, piece)


def test_pump_run_answers():
    """Not vacuous: on a table with ``aa`` the step answers for long runs, and repeats."""
    ranks = {bytes([b]): b for b in range(256)} | {b"aa": 256, b"aaaa": 257}
    found = pump_run(ranks, b"b", ord("a"), 1030, 10, b"b")
    assert found is not None and found == byte_pair_merge(ranks, b"b" + b"a" * 1030 + b"b")
    assert found.count(b"aaaa") == 257


def test_twin_parts_by_span_not_bytes():
    """Two parts of one length inside the range, the first such pair; outside the range or of
    other lengths they do not count; ``d`` must be a multiple of the length."""
    parts = [b"x", b"aa", b"aaa", b"aa", b"aa", b"y"]
    assert twin_parts(1, 10, 4, 0, parts) == ([b"x", b"aa", b"aaa"], 2, [b"y"])
    assert twin_parts(1, 9, 4, 0, parts) is None  # the pair ends at byte 10
    assert twin_parts(1, 10, 3, 0, parts) is None  # 2 does not divide 3
