"""Bpe.Ranks.WholePieces: tables with whole-piece tokens (Llama 3).

Oracles: tiktoken (the real encoder) on the counterexample table, the definition of the
condition (``ranks_decode_ok``) against its checker on random tables.  Llama 3's own table
passes the checker in ``tests/test_gguf_llama.py`` (which has the file loaded already)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verified_bpe.spec.ranks.basic import (
    encode_piece_ranks,
    rank_shuffle,
    ranks_ok,
    recover_merges,
)
from verified_bpe.spec.ranks.check import check_two_parts
from verified_bpe.spec.ranks.whole_pieces import (
    check_ranks_decode,
    ranks_decode_ok,
    whole_piece_ranks,
)
from verified_bpe.spec.seed.encode import encode_chunk


def seed_encode(ranks: dict[bytes, int], piece: bytes) -> list[int]:
    """The seed's encoder on the merges and byte shuffle recovered from ``ranks``."""
    shuffle = [rank_shuffle(ranks, b) for b in range(256)]
    return encode_chunk(recover_merges(ranks), shuffle, piece)


def test_counterexample_table():
    """The kernel-checked facts of ``wholePieceRanks``, and tiktoken's answer on ``abc``."""
    entries = whole_piece_ranks()
    ranks = dict(entries)
    assert check_ranks_decode(entries) and ranks_decode_ok(entries)
    assert not ranks_ok(entries) and not check_two_parts(ranks, (b"abc", 256))
    assert seed_encode(ranks, b"abc") == [97, 98, 99]
    assert encode_piece_ranks(ranks, b"abc") == [256]
    tiktoken = pytest.importorskip("tiktoken")
    enc = tiktoken.Encoding(
        "whole_piece", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={}
    )
    assert enc.encode_ordinary("abc") == [256]
    assert enc.decode([256]) == enc.decode([97, 98, 99]) == "abc"


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.tuples(st.binary(min_size=2, max_size=3), st.integers(0, 300)), max_size=8),
    st.sets(st.integers(0, 255), max_size=3),
)
def test_check_ranks_decode_sound(extra, missing):
    """``check_ranks_decode`` true implies the definition (soundness), on tables near the
    boundary: bytes missing, ranks repeated or out of order; and it accepts every table whose
    ranks increase and which lists every byte."""
    entries = [(bytes([b]), b) for b in range(256) if b not in missing] + [
        (t, 256 + r) for t, r in extra
    ]
    if check_ranks_decode(entries):
        assert ranks_decode_ok(entries)
    increasing = all(a[1] < b[1] for a, b in zip(extra, extra[1:], strict=False))
    assert check_ranks_decode(entries) == (not missing and increasing)
