"""The mirror of ``Bpe.Ranks.Roundtrip`` (tiktoken's decoder) against the stated property
(``Bpe.Ranks.Roundtrip.decodeRanks_encodeRanksWith``: under condition C, decoding tiktoken's ids
gives the text back, for every partitioning pre-tokenizer) and tiktoken's own ``decode``.
"""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

tiktoken = pytest.importorskip("tiktoken")

from verified_bpe.engine.vocab import load_ranks, tiktoken_encoding  # noqa: E402
from verified_bpe.spec.ranks.large import encode_ranks_with_by_size  # noqa: E402
from verified_bpe.spec.ranks.roundtrip import decode_ranks  # noqa: E402

NAMES = ("cl100k_base", "o200k_base")


@cache
def oracle(name: str):  # noqa: ANN201 - tiktoken.Encoding
    return tiktoken_encoding(name)


def chunker(size: int):  # noqa: ANN201 - a pre-tokenizer
    """A partitioning pre-tokenizer: consecutive chunks of ``size`` bytes."""
    return lambda data: [data[i : i + size] for i in range(0, len(data), size)]


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=25, deadline=None)
@given(text=st.text(max_size=160), size=st.sampled_from([1, 7, 120, 10_000]))
def test_decode_encode_roundtrip(name, text, size):
    ranks = load_ranks(name)
    ids = encode_ranks_with_by_size(chunker(size), ranks, text)
    assert ids is not None
    assert decode_ranks(ranks, ids) == text
    assert oracle(name).decode_bytes(ids) == text.encode()


def test_decode_ranks_refuses_unknown_ids_and_bad_utf8():
    ranks = {b"a": 0, b"\xff": 1}
    assert decode_ranks(ranks, [0, 0]) == "aa"
    assert decode_ranks(ranks, [2]) is None
    assert decode_ranks(ranks, [1]) is None
