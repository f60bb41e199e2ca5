"""Token-for-token differential tests against tiktoken (cl100k_base and o200k_base, both
engines): hypothesis on ASCII and on full Unicode, and real corpora (CPython's standard
library sources; translated messages and CJK samples installed on this machine)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

tiktoken = pytest.importorskip("tiktoken")

from conftest import UNICODE_SNIPPETS  # noqa: E402
from verified_bpe.engine.tokenizer import Tokenizer  # noqa: E402
from verified_bpe.engine.vocab import tiktoken_encoding  # noqa: E402

NAMES = ("cl100k_base", "o200k_base")
ENGINES = ("fast", "spec")

_TOKENIZERS: dict[tuple[str, str], Tokenizer] = {}


def tokenizer(name: str, engine: str) -> Tokenizer:
    key = (name, engine)
    if key not in _TOKENIZERS:
        _TOKENIZERS[key] = Tokenizer.from_tiktoken(name, engine=engine)  # type: ignore[arg-type]
    return _TOKENIZERS[key]


ascii_snippets = st.sampled_from(
    [
        "'s",
        "'T",
        "'ll",
        "'VE",
        "'re",
        "'d",
        "'M",
        "'",
        "the",
        "The",
        "HTTP",
        "getX",
        "x",
        "0",
        "123",
        "4567",
        " ",
        "  ",
        "    ",
        "\t",
        "\n",
        "\r\n",
        "\n\n",
        "\r",
        "\x0b",
        "\x0c",
        "!",
        ".",
        "...",
        "/",
        "//",
        "(",
        "):",
        "\x01",
        "\x1a",
        "\x1c",
        "\x7f",
        "_",
        "-",
        "=",
        "{",
        "\\",
    ]
)
ascii_text = st.one_of(
    st.text(alphabet=st.characters(max_codepoint=127), max_size=400),
    st.lists(ascii_snippets, max_size=150).map("".join),
)
unicode_snippets = st.sampled_from(UNICODE_SNIPPETS)
unicode_text = st.one_of(
    st.text(max_size=300),
    st.lists(unicode_snippets, max_size=80).map("".join),
    st.lists(st.one_of(unicode_snippets, ascii_snippets), max_size=100).map("".join),
)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=150)
@given(text=ascii_text)
def test_ascii_vs_tiktoken(name, engine, text, tally):
    ids = tokenizer(name, engine).encode_ordinary(text)
    assert ids == tiktoken_encoding(name).encode_ordinary(text)
    assert tokenizer(name, engine).decode(ids) == text
    tally(f"differential hypothesis ASCII {name} {engine}")


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=150)
@given(text=unicode_text)
def test_unicode_vs_tiktoken(name, engine, text, tally):
    ids = tokenizer(name, engine).encode_ordinary(text)
    assert ids == tiktoken_encoding(name).encode_ordinary(text)
    tally(f"differential hypothesis Unicode {name} {engine}")


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", NAMES)
@given(text=unicode_text)
def test_full_roundtrip_unicode(name, engine, text):
    tok = tokenizer(name, engine)
    ids = tok.encode(text, disallowed_special=())
    assert tok.decode(ids) == text
    assert tok.decode_bytes(ids) == text.encode("utf-8")


def _compare_corpus(name, engine, texts, tally, label):
    tok = tokenizer(name, engine)
    oracle = tiktoken_encoding(name)
    mismatches = []
    n_tokens = 0
    for key, text in texts:
        expected = oracle.encode_ordinary(text)
        n_tokens += len(expected)
        if tok.encode_ordinary(text) != expected:
            mismatches.append(key)
    tally(f"differential corpus {label} {name} {engine}: texts", len(texts))
    tally(f"differential corpus {label} {name} {engine}: tokens", n_tokens)
    assert not mismatches, mismatches[:10]


@pytest.mark.parametrize("name", NAMES)
def test_stdlib_corpus_fast(name, stdlib_corpus, tally):
    _compare_corpus(name, "fast", stdlib_corpus, tally, "stdlib (all files)")


@pytest.mark.parametrize("name", NAMES)
def test_stdlib_corpus_spec_sample(name, stdlib_corpus, tally):
    _compare_corpus(name, "spec", stdlib_corpus[::6], tally, "stdlib (every 6th file)")


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_stdlib_corpus_spec_all(name, stdlib_corpus, tally):
    _compare_corpus(name, "spec", stdlib_corpus, tally, "stdlib (all files)")


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", NAMES)
def test_non_english_corpus(name, engine, non_english_corpus, tally):
    _compare_corpus(name, engine, non_english_corpus, tally, "non-English")


@pytest.mark.parametrize("name", NAMES)
def test_corpus_lines_vs_tiktoken(name, stdlib_corpus, non_english_corpus, tally):
    """Every line on its own (different chunk boundaries at the ends), fast engine."""
    lines = [
        (key, line)
        for key, text in stdlib_corpus[::3] + non_english_corpus
        for line in text.splitlines(keepends=True)
    ]
    _compare_corpus(name, "fast", lines, tally, "lines")


# ------------------------------------------- tiktoken's algorithm as written in the Lean spec
# `Bpe.Ranks.encodeRanksWith` (rank-based byte-pair merging, one pair per step, with the
# whole-piece shortcut), mirrored by `verified_bpe.spec.ranks.basic`, is one more oracle: with the
# official pre-tokenizer it must give tiktoken's ids.


def _encode_ranks(name: str, text: str) -> list[int] | None:
    from verified_bpe.engine.patterns import pre_tokenize_regex
    from verified_bpe.engine.vocab import encoding_spec, load_ranks
    from verified_bpe.spec.ranks.basic import encode_ranks_with

    pattern = encoding_spec(name).pattern
    return encode_ranks_with(
        lambda data: pre_tokenize_regex(data.decode("utf-8"), pattern), load_ranks(name), text
    )


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=100)
@given(text=unicode_text)
def test_byte_pair_merge_spec_unicode_vs_tiktoken(name, text, tally):
    assert _encode_ranks(name, text) == tiktoken_encoding(name).encode_ordinary(text)
    tally(f"differential hypothesis Unicode {name} bytePairMerge spec")


@pytest.mark.parametrize("name", NAMES)
def test_byte_pair_merge_spec_corpus_vs_tiktoken(name, stdlib_corpus, non_english_corpus, tally):
    texts = stdlib_corpus[::12] + non_english_corpus
    oracle = tiktoken_encoding(name)
    mismatches = []
    n_tokens = 0
    for key, text in texts:
        expected = oracle.encode_ordinary(text)
        n_tokens += len(expected)
        if _encode_ranks(name, text) != expected:
            mismatches.append(key)
    tally(f"differential corpus bytePairMerge spec {name}: texts", len(texts))
    tally(f"differential corpus bytePairMerge spec {name}: tokens", n_tokens)
    assert not mismatches, mismatches[:10]
