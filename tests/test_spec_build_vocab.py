"""Bpe.BuildVocab (Lemma 5): numbered tables give the base-token and merge fields; the
counterexample to unconditional injectivity; the corrected injectivity statement.  The
oracle is ``check_well_formed`` (field by field) and the real rank tables."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verified_bpe.spec.seed import build_vocab as bv
from verified_bpe.spec.seed.decompose import recover_merges
from verified_bpe.spec.seed.well_formed import base_vocab, build_vocab, check_well_formed

IDENTITY = list(range(256))


@st.composite
def numbered_tables(draw, max_merges: int = 40):
    """Numbered merge tables with arbitrary parts (duplicate byte strings allowed)."""
    merges: dict[tuple[int, int], int] = {}
    small = list(range(95, 100))  # few distinct bytes, so that collisions happen
    for _ in range(draw(st.integers(0, max_merges))):
        ids = small + list(range(256, 256 + len(merges)))
        pair = (draw(st.sampled_from(ids)), draw(st.sampled_from(ids)))
        if pair in merges:
            continue
        merges[pair] = 256 + len(merges)
    return merges


@given(numbered_tables())
def test_lemma_5_on_numbered_tables(merges):
    assert bv.merges_numbered(256, merges)
    assert bv.defined_below(256 + len(merges), build_vocab(merges))
    assert bv.lemma_build_vocab_base_tokens(merges)
    assert bv.lemma_build_vocab_merge_decomp(merges)
    assert bv.lemma_build_vocab_injectivity(merges)
    result = check_well_formed(merges, build_vocab(merges), IDENTITY)
    # the two fields Lemma 5 proves always hold; only injectivity may fail
    assert result.ok or result.field == "injectivity"


def test_counterexample_to_injectivity():
    merges = bv.NOT_INJECTIVE_MERGES
    assert bv.merges_numbered(256, merges)
    vocab = build_vocab(merges)
    assert vocab[257] == vocab[259] == b"abc"
    result = check_well_formed(merges, vocab, IDENTITY)
    assert not result.ok and result.field == "injectivity"


def test_conditions_of_lemma_5_are_needed():
    # an id below 256 overwrites a base token: base_tokens fails
    low = {(97, 98): 97}
    assert not bv.merges_numbered(256, low)
    assert check_well_formed(low, build_vocab(low), IDENTITY).field == "base_tokens"
    # an id reused: the later entry shadows the earlier, merge_decomp fails
    reused = {(97, 98): 256, (99, 100): 256}
    assert not bv.merges_numbered(256, reused)
    assert check_well_formed(reused, build_vocab(reused), IDENTITY).field == "merge_decomp"


def test_defined_below():
    assert bv.defined_below(256, base_vocab())
    assert not bv.defined_below(255, base_vocab())
    assert not bv.defined_below(257, base_vocab())
    assert not bv.defined_below(256, {**base_vocab(), 3: b""})


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_real_rank_tables_are_numbered(name):
    from verified_bpe.engine.vocab import load_ranks

    ranks = load_ranks(name)
    merges = recover_merges(ranks)
    assert bv.merges_numbered(256, merges)
    assert bv.lemma_build_vocab_merge_decomp(merges)
    assert bv.lemma_build_vocab_base_tokens(merges)
