"""Bpe.Shuffle: invert_shuffle, Lemma 2, byte_shuffle_from_ranks."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verified_bpe.errors import MalformedVocabError
from verified_bpe.spec.seed.shuffle import (
    byte_shuffle_from_ranks,
    invert_shuffle,
    is_bijective,
    lemma_shuffle_cancel,
)

permutations = st.permutations(list(range(256)))


def test_invert_identity_and_swap():
    identity = list(range(256))
    assert invert_shuffle(identity) == identity
    swap = list(range(256))
    swap[0], swap[200] = 200, 0
    assert invert_shuffle(swap) == swap  # a transposition is its own inverse


def test_invert_rotation():
    rotation = [(b + 1) % 256 for b in range(256)]
    assert invert_shuffle(rotation) == [(b - 1) % 256 for b in range(256)]


@given(permutations)
def test_lemma_2_shuffle_cancel(shuffle):
    inverse = invert_shuffle(shuffle)
    assert all(inverse[shuffle[b]] == b for b in range(256))
    assert all(shuffle[inverse[b]] == b for b in range(256))
    assert lemma_shuffle_cancel(shuffle)


def test_non_bijective_shuffle_search_semantics():
    constant = [0] * 256
    inverse = invert_shuffle(constant)
    assert inverse == list(range(256))  # 0 found at x=0, others not found: b itself
    assert not is_bijective(constant)
    assert inverse[constant[1]] != 1  # the lemma needs bijectivity
    assert lemma_shuffle_cancel(constant)  # vacuous


def test_lemma_2_check_detects_a_broken_inverse(monkeypatch):
    from verified_bpe.spec.seed import shuffle as shuffle_module

    monkeypatch.setattr(shuffle_module, "invert_shuffle", lambda s: list(range(256)))
    rotation = [(b + 1) % 256 for b in range(256)]
    assert not shuffle_module.lemma_shuffle_cancel(rotation)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_byte_shuffle_of_real_vocab_matches_tiktoken(name):
    from verified_bpe.engine.vocab import load_ranks, tiktoken_encoding

    pytest.importorskip("tiktoken")
    oracle = tiktoken_encoding(name)
    shuffle = byte_shuffle_from_ranks(load_ranks(name))
    assert shuffle == [oracle.encode_single_token(bytes([b])) for b in range(256)]
    assert is_bijective(shuffle)


def test_byte_shuffle_missing_byte():
    ranks = {bytes([b]): b for b in range(256) if b != 65}
    with pytest.raises(MalformedVocabError, match="byte 65"):
        byte_shuffle_from_ranks(ranks)
