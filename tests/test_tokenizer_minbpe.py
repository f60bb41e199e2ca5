"""Does minbpe-style encoding (merges recovered from the ranks, ``encode_chunk``: merge every
occurrence of the pair with the smallest merge id) ever differ from tiktoken's rank-based
encoding (merge the leftmost adjacent pair whose concatenation has the smallest rank; a chunk
that is itself a token is returned directly)?  Searched on the real vocabularies.

Why none is expected (argument, not a proof checked by Lean): take the rank-based run on a
chunk and the step that joins adjacent parts ``a, b`` into ``c``.  Parts only grow, so every
earlier merge inside ``c``'s span stayed inside it, and each was the lowest-ranked (leftmost)
pair of the span when it happened.  ``decompose_token(c, rank(c))`` makes the same choices
while they rank below ``rank(c)``; if it stopped earlier it would stop with three or more
parts, but ``recover_merges`` checked that it stops with exactly two.  So ``(a, b)`` is
``c``'s recovered merge: every rank-based step is a minbpe step.  After joining the leftmost
``(a, b)``, a new pair ``(x, c)`` or ``(c, y)`` cannot be joined before the remaining
``(a, b)``: it would be a recovered merge with the part ``c`` of higher rank than the result,
which ``recover_merges`` never produces.  So rank-based BPE next joins the remaining
``(a, b)`` left to right, which is what ``merge`` does in one pass.  The same argument on a
token's own bytes gives the token back, so tiktoken's whole-chunk shortcut never changes the
result.
"""

from __future__ import annotations

import os
import random

import pytest

tiktoken = pytest.importorskip("tiktoken")

from verified_bpe.engine.tokenizer import Tokenizer, _named_spec_tables, bpe_ranks  # noqa: E402
from verified_bpe.engine.vocab import load_ranks, tiktoken_encoding  # noqa: E402
from verified_bpe.spec.seed.encode import encode_chunk  # noqa: E402

NAMES = ("cl100k_base", "o200k_base")


def _smallest(cases):
    return min(cases, key=lambda c: (len(c[0]), c[0])) if cases else None


@pytest.mark.parametrize("name", NAMES)
def test_every_token_encodes_to_itself(name, tally):
    """minbpe on the bytes of every token gives that token, as does tiktoken (oracle)."""
    ranks = load_ranks(name)
    tables = _named_spec_tables(name)
    oracle = tiktoken_encoding(name)
    bad = []
    for token, rank in ranks.items():
        got = encode_chunk(tables.merges, tables.byte_shuffle, token)
        if got != [rank] or oracle._encode_single_piece(token) != [rank]:
            bad.append((token, rank, got))
    tally(f"minbpe vs tiktoken: vocab tokens as chunks {name}", len(ranks))
    assert not bad, f"{len(bad)} differ; smallest: {_smallest(bad)}"


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_every_token_as_a_string(name, tally):
    """Every token that is valid UTF-8, encoded as text (pre-tokenizer included) by the spec
    engine and by tiktoken."""
    spec = Tokenizer.from_tiktoken(name, engine="spec")
    oracle = tiktoken_encoding(name)
    bad = []
    n = 0
    for token in load_ranks(name):
        try:
            text = token.decode("utf-8")
        except UnicodeDecodeError:
            continue
        n += 1
        got = spec.encode_ordinary(text)
        expected = oracle.encode_ordinary(text)
        if got != expected:
            bad.append((token, got, expected))
    tally(f"minbpe vs tiktoken: vocab tokens as strings {name}", n)
    assert not bad, f"{len(bad)} differ; smallest: {_smallest(bad)}"


def _random_chunks(ranks, rng, count):
    tokens = list(ranks)
    for _ in range(count):
        chunk = b"".join(rng.choice(tokens) for _ in range(rng.randint(2, 4)))
        if rng.random() < 0.5:
            start = rng.randrange(len(chunk))
            chunk = chunk[start : rng.randint(start + 1, len(chunk))]
        yield chunk


def _non_canonical_contexts(ranks, merges, rng, count):
    """Chunks ``p + a + b + s`` where ``a + b`` is a token but ``(a, b)`` is not its merge:
    the only way rank-based and minbpe encoding could ever disagree."""
    by_rank = {r: t for t, r in ranks.items()}
    canonical = {idx: (by_rank[p0], by_rank[p1]) for (p0, p1), idx in merges.items()}
    splits = []
    for token, rank in ranks.items():
        for k in range(1, len(token)):
            a, b = token[:k], token[k:]
            if a in ranks and b in ranks and canonical.get(rank) != (a, b):
                splits.append((a, b))
    tokens = list(ranks)
    for a, b in rng.sample(splits, min(count, len(splits))):
        p = rng.choice(tokens)
        s = rng.choice(tokens)
        yield p[len(p) - rng.randint(0, min(3, len(p))) :] + a + b + s[: rng.randint(0, 3)]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("kind", ["random", "non-canonical"])
def test_random_chunks_minbpe_equals_tiktoken(name, kind, tally):
    count = int(os.environ.get("VERIFIED_BPE_SEARCH_CHUNKS", "20000"))
    ranks = load_ranks(name)
    tables = _named_spec_tables(name)
    oracle = tiktoken_encoding(name)
    rng = random.Random(f"{name}-{kind}")
    chunks = (
        _random_chunks(ranks, rng, count)
        if kind == "random"
        else _non_canonical_contexts(ranks, tables.merges, rng, count)
    )
    bad = []
    n = 0
    for chunk in chunks:
        n += 1
        expected = oracle._encode_single_piece(chunk)
        minbpe = encode_chunk(tables.merges, tables.byte_shuffle, chunk)
        fast = bpe_ranks(ranks, chunk)
        if minbpe != expected or fast != expected:
            bad.append((chunk, minbpe, fast, expected))
    tally(f"minbpe vs tiktoken: {kind} chunks {name}", n)
    assert n >= min(count, 1000)
    assert not bad, f"{len(bad)} differ; smallest: {_smallest(bad)}"


def test_the_comparison_detects_a_sabotaged_merge_table():
    """The harness is not vacuous: drop one recovered merge and the chunk that needs it
    encodes differently from tiktoken."""
    ranks = load_ranks("cl100k_base")
    tables = _named_spec_tables("cl100k_base")
    oracle = tiktoken_encoding("cl100k_base")
    target = ranks[b" the"]
    sabotaged = {pair: idx for pair, idx in tables.merges.items() if idx != target}
    assert len(sabotaged) == len(tables.merges) - 1
    expected = oracle._encode_single_piece(b" the")
    assert expected == [target]
    assert encode_chunk(tables.merges, tables.byte_shuffle, b" the") == expected
    assert encode_chunk(sabotaged, tables.byte_shuffle, b" the") != expected
