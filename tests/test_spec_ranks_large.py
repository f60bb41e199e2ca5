"""The mirror of ``Bpe.Ranks.Large`` (tiktoken's heap merge for pieces of 100+ bytes), against
independent oracles:

* tiktoken 0.14's own ``_encode_single_piece`` (whole-piece lookup, then ``byte_pair_encode``,
  which picks ``_byte_pair_merge`` below 100 bytes and ``_byte_pair_merge_large`` from 100) on
  the real vocabularies: pieces of 90-110 bytes around the threshold and long adversarial
  pieces (one repeated byte, repeated pairs full of equal-rank ties, cascades of merges, random
  bytes, non-ASCII text);
* the linear scan ``byte_pair_merge`` (``Bpe.Ranks.Basic.bytePairMerge``) on small synthetic
  tables, including tables with repeated ranks (the Lean theorem needs no distinct ranks).
"""

from __future__ import annotations

import random
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

tiktoken = pytest.importorskip("tiktoken")

from verified_bpe.engine.vocab import load_ranks, tiktoken_encoding  # noqa: E402
from verified_bpe.spec.ranks.basic import byte_pair_merge  # noqa: E402
from verified_bpe.spec.ranks.large import (  # noqa: E402
    LARGE_PIECE_THRESHOLD,
    byte_pair_merge_large,
    encode_piece_ranks_by_size,
    pop_min,
)

NAMES = ("cl100k_base", "o200k_base")


@cache
def oracle(name: str):  # noqa: ANN201 - tiktoken.Encoding
    return tiktoken_encoding(name)


def adversarial_pieces(seed: int) -> list[bytes]:
    """Pieces that stress the heap: long runs, ties, cascades, random bytes, UTF-8 text."""
    rng = random.Random(seed)
    letters = bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyz") for _ in range(600))
    return [
        b"a" * 700,
        b" " * 500,
        b"ab" * 300,
        b"abc" * 210,
        b"\n" * 257,
        b"0123456789" * 40,
        letters,
        letters.upper()[:300],
        bytes(rng.randrange(256) for _ in range(400)),
        ("тиктокен " * 40).encode(),
        ("分词器" * 60).encode(),
        b"-=" * 150 + b"=" * 101,
        b"internationalization" * 25,
    ]


def threshold_pieces(seed: int) -> list[bytes]:
    """Pieces of 90..110 bytes: both sides of tiktoken's switch at 100."""
    rng = random.Random(seed)
    out = []
    for n in range(LARGE_PIECE_THRESHOLD - 10, LARGE_PIECE_THRESHOLD + 11):
        out.append(bytes(rng.choice(b"etaoinshrdlu") for _ in range(n)))
        out.append(b"x" * n)
        out.append((b"ab" * n)[:n])
    return out


@pytest.mark.parametrize("name", NAMES)
def test_by_size_is_tiktoken_around_threshold(name):
    ranks = load_ranks(name)
    for piece in threshold_pieces(1):
        assert encode_piece_ranks_by_size(ranks, piece) == oracle(name)._encode_single_piece(
            piece
        ), piece


@pytest.mark.parametrize("name", NAMES)
def test_by_size_is_tiktoken_on_long_adversarial_pieces(name):
    ranks = load_ranks(name)
    for piece in adversarial_pieces(2):
        assert len(piece) >= LARGE_PIECE_THRESHOLD
        want = oracle(name)._encode_single_piece(piece)
        assert encode_piece_ranks_by_size(ranks, piece) == want, piece[:40]
        # and the heap loop alone gives the linear scan's parts (the Lean theorem)
        parts = byte_pair_merge_large(ranks, piece)
        assert [ranks[p] for p in parts] == want
        assert b"".join(parts) == piece


def test_pop_min_is_the_first_least_entry():
    assert pop_min([]) is None
    assert pop_min([(3, 1), (2, 5), (2, 4), (2, 4)]) == ((2, 4), [(3, 1), (2, 5), (2, 4)])


# ------------------------------------------------------------------------ synthetic tables
def small_table(data: st.DataObject) -> dict[bytes, int]:
    """A table over the bytes ``a``, ``b``, ``c``: every byte plus random longer strings, with
    random ranks drawn from a small range (so ranks repeat)."""
    tokens = data.draw(st.lists(st.text("abc", min_size=2, max_size=4), max_size=12))
    table = {bytes([b]): data.draw(st.integers(0, 6)) for b in b"abc"}
    for t in tokens:
        table.setdefault(t.encode(), data.draw(st.integers(0, 6)))
    return table


@settings(max_examples=300, deadline=None)
@given(st.data(), st.text("abc", max_size=40))
def test_large_is_linear_scan_on_any_table(data, text):
    ranks = small_table(data)
    piece = text.encode()
    assert byte_pair_merge_large(ranks, piece) == byte_pair_merge(ranks, piece)
