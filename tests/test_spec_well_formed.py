"""Bpe.WellFormed: build_vocab and every failure field of check_well_formed; the real
vocabularies are well formed and agree with tiktoken."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verified_bpe.errors import MalformedVocabError
from verified_bpe.spec.seed import check
from verified_bpe.spec.seed.decompose import recover_merges
from verified_bpe.spec.seed.shuffle import byte_shuffle_from_ranks, invert_shuffle
from verified_bpe.spec.seed.well_formed import WellFormedResult, build_vocab, check_well_formed

IDENTITY = list(range(256))
MERGES = {(97, 98): 256, (256, 99): 257, (32, 257): 258}


def base_vocab() -> dict[int, bytes]:
    return {i: bytes([i]) for i in range(256)}


def test_build_vocab_example():
    vocab = build_vocab(MERGES)
    assert len(vocab) == 259
    assert vocab[97] == b"a" and vocab[0] == b"\x00" and vocab[255] == b"\xff"
    assert vocab[256] == b"ab"
    assert vocab[257] == b"abc"
    assert vocab[258] == b" abc"


def test_build_vocab_undefined_part():
    with pytest.raises(MalformedVocabError, match="not defined"):
        build_vocab({(97, 300): 256})


def test_well_formed_ok():
    result = check_well_formed(MERGES, build_vocab(MERGES), IDENTITY)
    assert result == WellFormedResult(True)
    assert result


def _fails(result: WellFormedResult, field: str, fragment: str) -> None:
    assert not result.ok and not result
    assert result.field == field
    assert fragment in result.reason, result.reason


def test_base_tokens_field():
    vocab = build_vocab(MERGES)
    vocab[65] = b"B"
    _fails(check_well_formed(MERGES, vocab, IDENTITY), "base_tokens", "vocab[65]")
    del vocab[65]
    _fails(check_well_formed(MERGES, vocab, IDENTITY), "base_tokens", "vocab[65] = None")


def test_merge_decomp_concatenation():
    vocab = build_vocab(MERGES)
    vocab[257] = b"abd"
    _fails(check_well_formed(MERGES, vocab, IDENTITY), "merge_decomp", "vocab[257] = b'abd'")


def test_merge_decomp_missing_id():
    vocab = build_vocab(MERGES)
    del vocab[258]
    _fails(check_well_formed(MERGES, vocab, IDENTITY), "merge_decomp", "idx=258 not in vocab")


def test_merge_decomp_size_inequalities():
    # with an empty token, vocab[idx] = vocab[p0] ++ vocab[p1] holds but a size does not grow
    vocab = base_vocab()
    vocab[256] = b""
    vocab[300] = b"a"  # = vocab[97] ++ vocab[256]
    vocab[301] = b"b"  # = vocab[256] ++ vocab[98]
    _fails(
        check_well_formed({(97, 256): 300}, vocab, IDENTITY),
        "merge_decomp",
        "|vocab[97]| = 1 not < 1",
    )
    _fails(
        check_well_formed({(256, 98): 301}, vocab, IDENTITY),
        "merge_decomp",
        "|vocab[98]| = 1 not < 1",
    )


def test_injectivity():
    merges = {(97, 98): 256}
    vocab = build_vocab(merges)
    vocab[400] = b"ab"
    _fails(check_well_formed(merges, vocab, IDENTITY), "injectivity", "b'ab'")


def test_shuffle_bijection():
    vocab = build_vocab(MERGES)
    _fails(check_well_formed(MERGES, vocab, IDENTITY[:-1]), "shuffle_bijection", "length 255")
    bad = list(IDENTITY)
    bad[3] = 4
    _fails(check_well_formed(MERGES, vocab, bad), "shuffle_bijection", "not injective")
    bad = list(IDENTITY)
    bad[3] = 256
    _fails(check_well_formed(MERGES, vocab, bad), "shuffle_bijection", "not a byte")


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_real_vocab_is_well_formed_and_matches_tiktoken(name):
    pytest.importorskip("tiktoken")
    from verified_bpe.engine.vocab import load_ranks, tiktoken_encoding

    ranks = load_ranks(name)
    merges = recover_merges(ranks)
    shuffle = byte_shuffle_from_ranks(ranks)
    vocab = build_vocab(merges)
    assert check_well_formed(merges, vocab, shuffle).ok
    inverse = invert_shuffle(shuffle)
    oracle = tiktoken_encoding(name)
    assert len(vocab) == len(ranks)
    for rank, shuffled in vocab.items():
        unshuffled = bytes(inverse[b] for b in shuffled)
        assert unshuffled == oracle.decode_single_token_bytes(rank)


def test_base_vocab():
    from verified_bpe.spec.seed.well_formed import base_vocab

    vocab = base_vocab()
    assert sorted(vocab) == list(range(256))
    assert all(vocab[i] == bytes([i]) for i in range(256))


def test_well_formed_shuffle_cancel():
    from verified_bpe.spec.seed.well_formed import well_formed_shuffle_cancel

    assert well_formed_shuffle_cancel([(b + 7) % 256 for b in range(256)])
    assert well_formed_shuffle_cancel([0] * 256)  # vacuous


BROKEN_CASES = {
    "ok": lambda m, v, s: (m, v, s),
    "base": lambda m, v, s: (m, {**v, 65: b"B"}, s),
    "concat": lambda m, v, s: (m, {**v, 257: b"abd"}, s),
    "missing": lambda m, v, s: (m, {k: x for k, x in v.items() if k != 258}, s),
    "undefined-part": lambda m, v, s: ({**m, (999, 97): 259}, v, s),
    "injective": lambda m, v, s: (m, {**v, 400: b"ab"}, s),
    "shuffle-dup": lambda m, v, s: (m, v, [0, *s[1:-1], 0]),
    "shuffle-range": lambda m, v, s: (m, v, [*s[:-1], 256]),
    "shuffle-short": lambda m, v, s: (m, v, s[:-1]),
}


@pytest.mark.parametrize("case", list(BROKEN_CASES))
def test_boolean_checker_agrees(case):
    from verified_bpe.spec.seed import check

    merges, vocab, shuffle = BROKEN_CASES[case](MERGES, build_vocab(MERGES), IDENTITY)
    expected = case == "ok"
    assert check.check_well_formed(merges, vocab, shuffle) is expected
    assert check_well_formed(merges, vocab, shuffle).ok is expected


def test_boolean_checker_parts():
    from verified_bpe.spec.seed import check

    vocab = build_vocab(MERGES)
    assert check.check_base_tokens(vocab)
    assert check.check_merge_entry(vocab, ((97, 98), 256))
    assert not check.check_merge_entry(vocab, ((98, 97), 256))
    assert not check.check_merge_entry(vocab, ((97, 98), 999))
    assert check.check_injective(vocab)
    assert not check.check_injective({1: b"x", 2: b"x"})
    assert check.check_shuffle(IDENTITY)
    assert not check.check_shuffle([0] * 256)


@given(st.lists(st.tuples(st.integers(0, 50), st.binary(max_size=4)), max_size=60))
def test_sort_by_bytes_is_a_stable_sort(entries):
    # oracle: Python's stable sort on the byte strings
    assert check.sort_by_bytes(len(entries), entries) == sorted(entries, key=lambda e: e[1])


@given(st.dictionaries(st.integers(0, 300), st.binary(max_size=3), max_size=80))
def test_check_injective_agrees_with_a_set(vocab):
    assert check.check_injective(vocab) == (len(set(vocab.values())) == len(vocab))
