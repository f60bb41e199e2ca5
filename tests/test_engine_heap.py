"""The fast engine's heap + linked-list merge loop (``bpe_ranks``) against three references:

* the spec engine (``encode_chunk`` with the merges recovered by ``spec_tables``), a literal
  mirror of the Lean definition;
* tiktoken's ``_encode_single_piece`` (the oracle);
* on small synthetic rank tables full of ties, a brute-force definition written here: while
  some adjacent pair's concatenation is a token, merge the pair with the lowest rank, the
  leftmost one on ties (plus tiktoken's shortcut: a chunk that is itself a token is that
  token).

``tests/test_tokenizer_minbpe.py`` already compares the three on random concatenations of
vocabulary tokens and on every token; ``tests/test_tokenizer_differential.py`` on
pre-tokenized corpora.  This file adds chunks that pre-tokenization never produces: arbitrary
bytes, long repetitions (many equal pairs: ties and stale heap entries), and whole lines of
text as one chunk.
"""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

tiktoken = pytest.importorskip("tiktoken")

from verified_bpe.engine import native  # noqa: E402
from verified_bpe.engine.tokenizer import (  # noqa: E402
    SpecTables,
    bpe_ranks,
    bpe_ranks_buckets,
    bpe_ranks_heap,
    spec_tables,
)
from verified_bpe.engine.vocab import load_ranks, tiktoken_encoding  # noqa: E402
from verified_bpe.spec.seed.encode import encode_chunk  # noqa: E402

NAMES = ("cl100k_base", "o200k_base")


@cache
def tables(name: str) -> SpecTables:
    return spec_tables(load_ranks(name))


@cache
def tokens_by_rank(name: str) -> list[bytes]:
    return [token for token, _ in sorted(load_ranks(name).items(), key=lambda item: item[1])]


def check_real(name: str, chunk: bytes, spec: bool = True) -> list[int]:
    ranks = load_ranks(name)
    got = bpe_ranks(ranks, chunk)
    if chunk:  # tiktoken panics on an empty piece (its regex never yields one)
        assert got == tiktoken_encoding(name)._encode_single_piece(chunk), chunk
    if spec:
        t = tables(name)
        assert got == encode_chunk(t.merges, t.byte_shuffle, chunk), chunk
    assert b"".join(tokens_by_rank(name)[i] for i in got) == chunk
    return got


# ---------------------------------------------------------------------------- real vocabularies
def vocab_token(name: str) -> st.SearchStrategy[bytes]:
    return st.integers(0, len(load_ranks(name)) - 1).map(lambda r: tokens_by_rank(name)[r])


def real_chunks(name: str) -> st.SearchStrategy[bytes]:
    token = vocab_token(name)
    unit = st.one_of(
        token,
        st.binary(min_size=1, max_size=3),
        st.sampled_from([b" ", b"a", b"=", b"\n", b"0", b"ab", b" the", b"\xe4\xb8\xad", b"-"]),
    )
    repeated = st.builds(
        lambda prefix, u, n, suffix: prefix + u * n + suffix,
        st.binary(max_size=2),
        unit,
        st.integers(1, 40),
        st.binary(max_size=2),
    )
    mixed = st.lists(st.one_of(token, unit), min_size=1, max_size=8).map(b"".join)
    return st.one_of(st.binary(max_size=48), repeated, mixed)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=200)
@given(data=st.data())
def test_hypothesis_chunks(name, data):
    check_real(name, data.draw(real_chunks(name)))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(
    "unit", [b" ", b"a", b"aa", b"ab", b"=", b"\n", b"0", b"\t", b"\xff", b"\xe4\xb8\xad", b"--"]
)
def test_long_repetitions(name, unit):
    for n in (1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 64, 257, 600):
        check_real(name, unit * n, spec=n <= 257)


@pytest.mark.parametrize("name", NAMES)
def test_whole_lines_as_one_chunk(name, stdlib_corpus, non_english_corpus, tally):
    """Lines of real text, not pre-tokenized (spaces, digits and letters in one chunk):
    every line against tiktoken, every 8th (at most 160 bytes) against the spec engine."""
    lines = [
        line.encode("utf-8")
        for _, text in stdlib_corpus[::4] + non_english_corpus
        for line in text[:20_000].splitlines(keepends=True)
    ]
    for k, line in enumerate(lines):
        check_real(name, line, spec=k % 8 == 0 and len(line) <= 160)
    tally(f"heap vs tiktoken: whole lines {name}", len(lines))


# ---------------------------------------------------------------------------- synthetic tables
def brute_force(ranks: dict[bytes, int], chunk: bytes) -> list[int]:
    """Rank-based BPE by its definition (quadratic, obviously correct)."""
    if chunk in ranks:
        return [ranks[chunk]]
    parts = [chunk[k : k + 1] for k in range(len(chunk))]
    while True:
        candidates = [
            (ranks[parts[k] + parts[k + 1]], k)
            for k in range(len(parts) - 1)
            if parts[k] + parts[k + 1] in ranks
        ]
        if not candidates:
            return [ranks[p] for p in parts]
        _, k = min(candidates)  # lowest rank, then leftmost
        parts[k : k + 2] = [parts[k] + parts[k + 1]]


@st.composite
def synthetic_table(draw) -> tuple[dict[bytes, int], bytes]:
    """A rank table over a 2- or 3-letter alphabet: the single bytes plus random strings of
    2-6 letters (not necessarily reachable by merges), ranks a random permutation; and a
    chunk over the same alphabet, often a repetition (many equal adjacent pairs)."""
    alphabet = draw(st.sampled_from([b"ab", b"abc", b"a b"]))
    word = st.lists(st.sampled_from(list(alphabet)), min_size=2, max_size=6).map(bytes)
    multi = draw(st.lists(word, max_size=14, unique=True))
    tokens = [bytes([c]) for c in alphabet] + multi
    order = draw(st.permutations(range(len(tokens))))
    ranks = dict(zip(tokens, order, strict=True))
    letters = st.sampled_from(list(alphabet))
    chunk = draw(
        st.one_of(
            st.lists(letters, max_size=24).map(bytes),
            st.builds(lambda w, n: w * n, word, st.integers(1, 8)),
            st.builds(lambda c, n: bytes([c]) * n, letters, st.integers(1, 20)),
        )
    )
    return ranks, chunk


@settings(max_examples=400)
@given(case=synthetic_table())
def test_synthetic_tables_vs_brute_force(case):
    ranks, chunk = case
    assert bpe_ranks(ranks, chunk) == brute_force(ranks, chunk)


@settings(max_examples=100)
@given(case=synthetic_table())
def test_synthetic_tables_vs_tiktoken(case):
    ranks, chunk = case
    assume(chunk)  # tiktoken panics on an empty piece
    oracle = tiktoken.Encoding(
        "synthetic", pat_str=r"[\s\S]+", mergeable_ranks=ranks, special_tokens={}
    )
    assert bpe_ranks(ranks, chunk) == oracle._encode_single_piece(chunk)


@st.composite
def repeated_rank_table(draw) -> tuple[dict[bytes, int], bytes]:
    """As :func:`synthetic_table`, with ranks drawn from a few values, so tokens share ranks
    (the public constructors refuse such a table, as tiktoken does; the merge functions take
    every table, as Lean's ``bytePairMerge`` does, lowest rank then leftmost)."""
    ranks, chunk = draw(synthetic_table())
    values = st.integers(0, 3)
    return {token: draw(values) for token in ranks}, chunk


@settings(max_examples=300)
@given(case=repeated_rank_table())
# merging ``ab`` at 0 creates ``aba`` of the same rank 1, which must go before ``ab`` at 2
@example(case=({b"a": 0, b"b": 0, b"ab": 1, b"ba": 2, b"abaa": 2, b"aba": 1}, b"abab"))
def test_repeated_ranks_vs_brute_force(case):
    """The heap and bucket merges (Python and native) on tables that repeat ranks: a merge may
    then create a pair of the rank being processed, which the bucket merge must open again."""
    ranks, chunk = case
    expected = brute_force(ranks, chunk)
    assert bpe_ranks_heap(ranks, chunk) == expected
    assert bpe_ranks_buckets(ranks, chunk) == expected
    if native.available():
        m = native.NativeMerger(ranks, r"[\s\S]+")
        assert m.bpe(chunk) == expected
        if chunk not in ranks:  # the merges alone, without the whole-piece shortcut
            for algorithm in ("scan", "heap", "buckets"):
                assert m.bpe(chunk, algorithm) == expected, algorithm


def test_brute_force_is_not_vacuous():
    """The brute force really breaks ties to the left and prefers lower ranks."""
    ranks = {b"a": 0, b"b": 1, b"aa": 2, b"ab": 3, b"aab": 4}
    assert brute_force(ranks, b"aab") == [4]  # shortcut
    assert brute_force(ranks, b"aaa") == [2, 0]  # leftmost of two equal pairs
    assert brute_force(ranks, b"aabb") == [4, 1]  # aa before ab, then aa+b
    ranks = {b"a": 0, b"b": 1, b"ab": 2, b"ba": 3}
    assert brute_force(ranks, b"bab") == [1, 2]  # ab (2) beats ba (3)
