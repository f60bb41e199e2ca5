"""Bpe.Merge: get_stats, merge, decode_bytes, Lemma 1 and Lemma 6."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verified_bpe.errors import BpeError, UnknownTokenError
from verified_bpe.spec.seed.merge import (
    decode_bytes,
    get_stats,
    lemma_decode_bytes_append,
    lemma_merge_preserves_decode,
    merge,
)


def test_get_stats_counts_and_first_occurrence_order():
    stats = get_stats([1, 2, 3, 1, 2])
    assert stats == {(1, 2): 2, (2, 3): 1, (3, 1): 1}
    assert list(stats) == [(1, 2), (2, 3), (3, 1)]
    assert get_stats([]) == {}
    assert get_stats([7]) == {}
    assert get_stats([4, 4, 4]) == {(4, 4): 2}  # overlapping occurrences are counted


@pytest.mark.parametrize(
    "ids,pair,idx,expected",
    [
        ([1, 2, 3, 1, 2], (1, 2), 99, [99, 3, 99]),
        ([5, 5, 5], (5, 5), 7, [7, 5]),  # left to right, no overlap
        ([5, 5, 5, 5], (5, 5), 7, [7, 7]),
        ([1, 2], (2, 1), 9, [1, 2]),
        ([], (1, 2), 9, []),
        ([1], (1, 1), 9, [1]),
        ([2, 1, 2, 1, 2], (1, 2), 0, [2, 0, 0]),
    ],
)
def test_merge_examples(ids, pair, idx, expected):
    assert merge(ids, pair, idx) == expected


def test_merge_does_not_mutate_input():
    ids = [1, 2, 1, 2]
    merge(ids, (1, 2), 3)
    assert ids == [1, 2, 1, 2]


def test_decode_bytes_examples():
    vocab = {1: b"a", 2: b"bc", 3: b""}
    assert decode_bytes(vocab, [1, 2, 1]) == b"abca"
    assert decode_bytes(vocab, []) == b""
    assert decode_bytes(vocab, [3, 3]) == b""


def test_decode_bytes_unknown_id_is_typed():
    with pytest.raises(UnknownTokenError) as info:
        decode_bytes({1: b"a"}, [1, 42, 1])
    assert info.value.token_id == 42
    assert isinstance(info.value, BpeError)
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, KeyError)
    assert "42" in str(info.value)


@st.composite
def vocab_with_merge(draw):
    """A vocab over ids 0..k-1 (random byte strings) plus ``idx = k`` defined as the
    concatenation of a random pair, and ids drawn from that vocab (biased to the pair)."""
    pieces = draw(st.lists(st.binary(min_size=1, max_size=3), min_size=1, max_size=6))
    vocab = dict(enumerate(pieces))
    p0 = draw(st.integers(0, len(pieces) - 1))
    p1 = draw(st.integers(0, len(pieces) - 1))
    idx = len(pieces)
    vocab[idx] = vocab[p0] + vocab[p1]
    choices = st.one_of(st.sampled_from([p0, p1]), st.integers(0, idx))
    ids = draw(st.lists(choices, max_size=30))
    return vocab, ids, (p0, p1), idx


@given(vocab_with_merge())
def test_lemma_1_merge_preserves_decode(case):
    vocab, ids, pair, idx = case
    assert decode_bytes(vocab, merge(ids, pair, idx)) == decode_bytes(vocab, ids)
    assert lemma_merge_preserves_decode(vocab, ids, pair, idx)


def test_lemma_1_needs_its_hypothesis():
    vocab = {0: b"a", 1: b"b", 2: b"ba"}  # vocab[2] != vocab[0] ++ vocab[1]
    ids = [0, 1]
    assert decode_bytes(vocab, merge(ids, (0, 1), 2)) != decode_bytes(vocab, ids)
    assert lemma_merge_preserves_decode(vocab, ids, (0, 1), 2)  # vacuously true


def test_lemma_1_check_detects_a_broken_merge(monkeypatch):
    from verified_bpe.spec.seed import merge as merge_module

    monkeypatch.setattr(merge_module, "merge", lambda ids, pair, idx: list(ids)[1:])
    vocab = {0: b"a", 1: b"b", 2: b"ab"}
    assert not merge_module.lemma_merge_preserves_decode(vocab, [0, 1], (0, 1), 2)


vocab_strategy = st.dictionaries(st.integers(0, 20), st.binary(max_size=4), max_size=12)


ids_strategy = st.lists(st.integers(0, 24), max_size=15)


@given(vocab_strategy, ids_strategy, ids_strategy)
def test_lemma_6_decode_bytes_append(vocab, xs, ys):
    assert lemma_decode_bytes_append(vocab, xs, ys)
    known = all(i in vocab for i in xs + ys)
    if known:
        assert decode_bytes(vocab, xs + ys) == decode_bytes(vocab, xs) + decode_bytes(vocab, ys)
    else:
        with pytest.raises(UnknownTokenError):
            decode_bytes(vocab, xs + ys)


def test_lemma_6_check_detects_a_broken_decode(monkeypatch):
    from verified_bpe.spec.seed import merge as merge_module

    original = merge_module.decode_bytes
    monkeypatch.setattr(merge_module, "decode_bytes", lambda v, ids: original(v, list(ids)[:1]))
    assert not merge_module.lemma_decode_bytes_append({1: b"a", 2: b"b"}, [1], [2])


def test_adjacent_pairs_and_bump_count():
    from verified_bpe.spec.seed.merge import adjacent_pairs, bump_count

    assert adjacent_pairs([1, 2, 3]) == [(1, 2), (2, 3)]
    assert adjacent_pairs([1]) == [] and adjacent_pairs([]) == []
    counts = bump_count((1, 2), {})
    assert counts == {(1, 2): 1}
    assert bump_count((1, 2), bump_count((3, 4), counts)) == {(1, 2): 2, (3, 4): 1}


def test_best_merge():
    from verified_bpe.spec.seed.merge import best_merge

    merges = {(1, 2): 300, (2, 3): 299, (3, 4): 299}
    assert best_merge(merges, {(1, 2): 5, (2, 3): 1}) == ((2, 3), 299)
    assert best_merge(merges, {(3, 4): 1, (2, 3): 1}) == ((3, 4), 299)  # first on ties
    assert best_merge(merges, {(2, 3): 1, (3, 4): 1}) == ((2, 3), 299)
    assert best_merge(merges, {(9, 9): 1}) is None
    assert best_merge(merges, {}) is None


def test_lemma_1_option_semantics():
    # all of vocab[p0], vocab[p1], vocab[idx] unknown: the hypothesis holds (none = none)
    vocab = {0: b"a"}
    assert lemma_merge_preserves_decode(vocab, [5, 6, 0], (5, 6), 7)
    with pytest.raises(UnknownTokenError):
        decode_bytes(vocab, merge([5, 6, 0], (5, 6), 7))


@given(st.lists(st.integers(0, 3), max_size=30), st.integers(0, 3), st.integers(0, 3))
def test_length_merge_le(ids, a, b):
    from verified_bpe.spec.seed.merge import lemma_length_merge_le

    merged = merge(ids, (a, b), 9)
    assert len(merged) == len(ids) - merged.count(9)
    assert lemma_length_merge_le(ids, (a, b), 9)
