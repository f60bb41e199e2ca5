"""Bpe.Decompose: decompose_token, its roundtrip lemma, recover_merges (toy + real)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verified_bpe.engine.vocab import encoding_spec, load_ranks
from verified_bpe.errors import MalformedVocabError
from verified_bpe.spec.seed.decompose import (
    decompose_token,
    lemma_decompose_fuel_sufficient,
    lemma_decompose_roundtrip,
    recover_merges,
)

TOY = {b"a": 0, b"b": 1, b"c": 2, b"ab": 3, b"bc": 4, b"abc": 5}


@pytest.mark.parametrize(
    "token,max_rank,expected",
    [
        (b"abc", None, [b"abc"]),
        (b"abc", 6, [b"abc"]),
        (b"abc", 5, [b"ab", b"c"]),  # strict: rank 5 itself is not allowed
        (b"abc", 4, [b"ab", b"c"]),
        (b"abc", 3, [b"a", b"b", b"c"]),
        (b"abc", 0, [b"a", b"b", b"c"]),
        (b"bca", None, [b"bc", b"a"]),
        (b"", None, []),
        (b"z", None, [b"z"]),  # bytes without a rank still form parts
    ],
)
def test_decompose_examples(token, max_rank, expected):
    assert decompose_token(TOY, token, max_rank) == expected


def test_decompose_tie_takes_leftmost():
    ranks = {b"a": 0, b"aa": 1}
    assert decompose_token(ranks, b"aaa", None) == [b"aa", b"a"]
    assert decompose_token(ranks, b"aaaa", None) == [b"aa", b"aa"]


def test_decompose_lowest_rank_first():
    ranks = {b"a": 0, b"b": 1, b"c": 2, b"bc": 3, b"ab": 4}
    assert decompose_token(ranks, b"abc", None) == [b"a", b"bc"]


ranks_strategy = st.dictionaries(st.binary(min_size=1, max_size=4), st.integers(0, 50), max_size=30)


@given(ranks_strategy, st.binary(max_size=20), st.one_of(st.none(), st.integers(0, 60)))
def test_lemma_decompose_roundtrip(ranks, token, max_rank):
    parts = decompose_token(ranks, token, max_rank)
    assert b"".join(parts) == token
    assert all(parts)
    assert lemma_decompose_roundtrip(ranks, token, max_rank)
    assert lemma_decompose_fuel_sufficient(ranks, token, max_rank)


def test_recover_merges_toy():
    assert recover_merges(TOY) == {(0, 1): 3, (1, 2): 4, (3, 2): 5}


def test_recover_merges_rejects_a_token_that_does_not_split_in_two():
    with pytest.raises(MalformedVocabError, match="3 parts"):
        recover_merges({b"a": 0, b"b": 1, b"c": 2, b"abc": 3})


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_recover_merges_real_vocab(name):
    ranks = load_ranks(name)
    merges = recover_merges(ranks)
    assert len(merges) == encoding_spec(name).n_ranks - 256  # every multi-byte token
    by_rank = {rank: token for token, rank in ranks.items()}
    for (p0, p1), idx in merges.items():
        assert by_rank[idx] == by_rank[p0] + by_rank[p1]
        assert p0 < idx and p1 < idx


def test_allowed_rank():
    from verified_bpe.spec.seed.decompose import allowed_rank

    assert allowed_rank(TOY, None, b"ab") == 3
    assert allowed_rank(TOY, 4, b"ab") == 3
    assert allowed_rank(TOY, 3, b"ab") is None  # strict
    assert allowed_rank(TOY, None, b"zz") is None


def test_best_pair_index_and_merge_at():
    from verified_bpe.spec.seed.decompose import best_pair_index, decompose_loop, merge_at

    parts = [b"a", b"b", b"c"]
    assert best_pair_index(TOY, None, 0, parts) == (0, 3)
    assert best_pair_index(TOY, None, 10, parts) == (10, 3)  # positions count from i
    assert best_pair_index(TOY, 3, 0, parts) is None
    assert best_pair_index(TOY, None, 0, [b"a"]) is None
    assert merge_at(1, parts) == [b"a", b"bc"]
    assert merge_at(2, parts) == parts  # out of range: unchanged
    assert decompose_loop(TOY, None, 1, parts) == [b"ab", b"c"]  # fuel
    assert decompose_loop(TOY, None, 0, parts) == parts
