"""Bpe.Ranks and Bpe.Ranks.Check: tiktoken's rank-based merging, the recovered tables, and the
checker of condition C (on the full published tables, and on one counterexample per field).

Oracles: tiktoken (the real encoder), brute-force evaluation of condition C from its
definition (``ranks_ok``), and hand-computed toy results."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verified_bpe.engine.vocab import encoding_spec, load_ranks
from verified_bpe.spec.ranks.basic import (
    byte_pair_merge,
    encode_piece_ranks,
    lemma_byte_pair_merge_fuel_sufficient,
    lowest_rank,
    pair_ranks,
    rank_shuffle,
    ranks_ok,
    recover_merges,
    theorem_byte_pair_merge_eq_decompose_token,
)
from verified_bpe.spec.ranks.check import check_ranks
from verified_bpe.spec.seed.decompose import decompose_token
from verified_bpe.spec.seed.encode import encode_chunk

BYTES = {bytes([b]): b for b in range(256)}
A, B, C, D = (ord(c) for c in "abcd")


def table(*multi: bytes) -> dict[bytes, int]:
    """The 256 single bytes (byte ``b`` has rank ``b``), then ``multi`` with ranks 256, 257…"""
    return BYTES | {t: 256 + k for k, t in enumerate(multi)}


def seed_encode(ranks, piece: bytes) -> list[int]:
    """The seed's encoder on the tables recovered from ``ranks``."""
    shuffle = [rank_shuffle(ranks, b) for b in range(256)]
    return encode_chunk(recover_merges(ranks), shuffle, piece)


def agree(ranks, piece: bytes) -> bool:
    """The conclusion of ``encodeChunk_eq_encodePieceRanks`` on one piece."""
    return seed_encode(ranks, piece) == encode_piece_ranks(ranks, piece)


# ------------------------------------------------------------------ the merge loop (toy)


def test_lowest_rank_takes_leftmost_on_ties():
    assert lowest_rank([None, 5, 3, 3, None]) == (2, 3)
    assert lowest_rank([None, None]) is None
    assert lowest_rank([]) is None


def test_byte_pair_merge_examples():
    ranks = table(b"aa")
    assert byte_pair_merge(ranks, b"aaa") == [b"aa", b"a"]  # leftmost first
    assert byte_pair_merge(ranks, b"aaaa") == [b"aa", b"aa"]
    ranks = table(b"bc", b"ab")  # "bc" (256) beats "ab" (257)
    assert byte_pair_merge(ranks, b"abc") == [b"a", b"bc"]
    assert encode_piece_ranks(ranks, b"abcd") == [A, 256, D]
    assert byte_pair_merge(ranks, b"") == []
    assert pair_ranks(ranks, [b"a", b"b", b"c"]) == [257, 256]
    ranks = table(b"abc")  # no pair inside "abc" is a token
    assert byte_pair_merge(ranks, b"abc") == [b"a", b"b", b"c"]
    assert encode_piece_ranks(ranks, b"abc") == [256]  # whole-piece shortcut


def test_encode_piece_ranks_unknown_part():
    assert encode_piece_ranks({b"a": 0}, b"ab") is None


small_tables = st.dictionaries(st.binary(min_size=1, max_size=4), st.integers(0, 60), max_size=30)


@given(small_tables, st.binary(max_size=16))
def test_byte_pair_merge_lemmas(ranks, piece):
    assert lemma_byte_pair_merge_fuel_sufficient(ranks, piece)
    assert theorem_byte_pair_merge_eq_decompose_token(ranks, piece)


# ------------------------------------------------------------------ the checker is sound


def trained_table(pairs: list[tuple[int, int]]) -> dict[bytes, int]:
    """Bytes, then tokens made by concatenating two earlier tokens over the alphabet
    ``a b c`` (a training-like table, which may or may not satisfy C)."""
    ranks = dict(BYTES)
    tokens = [b"a", b"b", b"c"]
    for i, j in pairs:
        t = tokens[i % len(tokens)] + tokens[j % len(tokens)]
        if t not in ranks:
            ranks[t] = len(ranks)
            tokens.append(t)
    return ranks


pair_lists = st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)), max_size=12)


@settings(max_examples=300)
@given(
    pairs=pair_lists,
    piece=st.lists(st.sampled_from([b"a", b"b", b"c"]), max_size=14).map(b"".join),
)
def test_check_ranks_sound_and_conclusion(pairs, piece, tally):
    """``check_ranks`` implies condition C (brute force), and then the seed's encoder on the
    recovered tables returns tiktoken's ids on every piece (the Lean theorem's conclusion)."""
    ranks = trained_table(pairs)
    if check_ranks(ranks):
        assert ranks_ok(ranks)
        assert agree(ranks, piece)
        tally("random tables passing check_ranks: pieces compared")


# ------------------------------------------------------------ one counterexample per field


def test_counterexample_rank_used_twice():
    """``ranks_nodup``: "ab" gets rank 97, the rank of "a".  The seed's loop then keeps
    merging the new 97 as if it were "a": "abb" gives [97] instead of tiktoken's [97, 98]."""
    ranks = BYTES | {b"ab": A}
    assert not check_ranks(ranks) and not ranks_ok(ranks)
    assert encode_piece_ranks(ranks, b"abb") == [A, B]
    assert seed_encode(ranks, b"abb") == [A]


def test_counterexample_bytes_listed_twice():
    """``keys_nodup``: "ab" listed twice (only a list of pairs can say so).  Rejected; the
    conclusion still holds here (the second entry is never found by a lookup)."""
    ranks = [*BYTES.items(), (b"ab", 256), (b"ab", 257)]
    assert not check_ranks(ranks) and not ranks_ok(ranks)
    first = dict(ranks[:257])
    assert encode_piece_ranks(first, b"ab") == seed_encode(first, b"ab") == [256]


def test_counterexample_empty_token():
    """``token_ne_nil``: the empty byte string has a rank; tiktoken's shortcut returns it for the
    empty piece, the seed's encoder returns no id."""
    ranks = table(b"")
    assert not check_ranks(ranks) and not ranks_ok(ranks)
    assert encode_piece_ranks(ranks, b"") == [256]
    assert seed_encode(ranks, b"") == []


def test_counterexample_byte_without_rank():
    """``byte_rank``: byte "z" has no rank: tiktoken cannot encode "z", the seed's encoder
    outputs the byte itself."""
    ranks = {t: r for t, r in BYTES.items() if t != b"z"}
    assert not check_ranks(ranks) and not ranks_ok(ranks)
    assert encode_piece_ranks(ranks, b"z") is None
    assert seed_encode(ranks, b"z") == [ord("z")]


def test_counterexample_byte_rank_too_large():
    """``byte_rank``: byte 0 has rank 300, which is no byte: the shuffle wraps it to 44."""
    ranks = {t: (300 if t == b"\x00" else r) for t, r in BYTES.items()}
    assert not check_ranks(ranks) and not ranks_ok(ranks)
    assert encode_piece_ranks(ranks, b"\x00") == [300]
    assert seed_encode(ranks, b"\x00") == [44]


def test_counterexample_three_parts():
    """``two_parts``: "abc" has rank 256 but no pair inside it has a rank, so it decomposes
    into three parts and records no merge; tiktoken's shortcut still finds it."""
    ranks = table(b"abc")
    assert decompose_token(ranks, b"abc", 256) == [b"a", b"b", b"c"]
    assert not check_ranks(ranks) and not ranks_ok(ranks)
    assert encode_piece_ranks(ranks, b"abc") == [256]
    assert seed_encode(ranks, b"abc") == [A, B, C]


def test_counterexample_rank_at_sentinel():
    """``rank_lt_sentinel``: "ab" gets rank 2**32 - 1, tiktoken's sentinel ``Rank::MAX``.  Its
    merge loop reads that rank as "no merge", so real tiktoken encodes "abc" as [97, 98, 99]
    where tiktoken's algorithm as specified merges "ab"; one rank lower, the two agree.  A rank
    of 2**32 does not fit tiktoken's ``u32`` at all."""
    tiktoken = pytest.importorskip("tiktoken")

    def real(ranks):
        enc = tiktoken.Encoding(
            name="sentinel", pat_str=r"\S+", mergeable_ranks=ranks, special_tokens={}
        )
        return enc.encode_ordinary("abc")

    at, below = BYTES | {b"ab": 2**32 - 1}, BYTES | {b"ab": 2**32 - 2}
    assert not check_ranks(at) and not ranks_ok(at)
    assert encode_piece_ranks(at, b"abc") == [2**32 - 1, C] != real(at) == [A, B, C]
    assert check_ranks(below) and ranks_ok(below)
    assert encode_piece_ranks(below, b"abc") == real(below) == [2**32 - 2, C]


def test_counterexample_not_increasing():
    """The checker also asks for increasing ranks (stronger than distinct): a table in another
    order satisfies C but is rejected (the checker is sound, not complete)."""
    ranks = dict(reversed(list(table(b"ab").items())))
    assert ranks_ok(ranks)
    assert not check_ranks(ranks)


# ------------------------------------------------------------------ the published tables


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_check_ranks_full_table(name, tally):
    """Every one of the 100,256 / 199,998 tokens, no sampling."""
    ranks = load_ranks(name)
    assert len(ranks) == encoding_spec(name).n_ranks
    assert check_ranks(ranks)
    tally(f"check_ranks {name}: tokens checked", len(ranks))


def test_check_ranks_prefix_slices():
    """The slices used by the Lean cross-check modules (first ranks of cl100k_base) pass."""
    ranks = load_ranks("cl100k_base")
    items = list(ranks.items())
    for n in (256, 300, 1000):
        assert check_ranks(items[:n])
