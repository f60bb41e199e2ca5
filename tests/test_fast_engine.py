"""The fast engine's speed-ups against independent oracles:

* ``fast_split.Splitter`` (``re`` with BMP classes) against the ``regex`` module's whole
  matches of the pattern with its classes pinned to tiktoken's tables
  (``patterns.pin_classes``, itself tested against tiktoken in ``test_unicode_tables.py``):
  every BMP character in several contexts, real text, hypothesis text; the hand-written
  ASCII patterns (``fast_split.ASCII_PATTERNS``) on every short string over one character of
  each ASCII class, every pair of ASCII characters in those contexts and hypothesis text;
* ``tokenizer.text_blocks``: for the patterns in ``BLOCK_SAFE_PATTERNS``, splitting block by
  block gives ``regex``'s pieces of the whole text; the whole tokenizer with tiny blocks
  gives tiktoken's ids;
* ``tokenizer.PieceCache`` stays bounded and its ids are tiktoken's.
"""

from __future__ import annotations

import itertools
import random

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import UNICODE_SNIPPETS, unicode_corpus  # noqa: E402
from verified_bpe.engine import tokenizer as tokenizer_module
from verified_bpe.engine.fast_split import ASCII_PATTERNS, Splitter, bmp_pattern
from verified_bpe.engine.patterns import GPT2_PATTERN, LLAMA3_META_PATTERN, PATTERNS, pin_classes
from verified_bpe.engine.tokenizer import BLOCK_SAFE_PATTERNS, PieceCache, Tokenizer, text_blocks

#: Meta's Llama 3 pattern is left out: it is llama.cpp's Llama 3 pattern with o200k_base's
#: ``(?i:…)`` contractions, both translated by the fast splitter and tested here (its BMP scan
#: alone took 58 s on a loaded machine); its text blocks are tested below.
ALL_PATTERNS = sorted((set(PATTERNS.values()) | BLOCK_SAFE_PATTERNS) - {LLAMA3_META_PATTERN})
BMP = [chr(c) for c in range(0x10000) if not 0xD800 <= c < 0xE000]


def pinned_oracle(pattern: str) -> regex.Pattern[str]:
    """The pattern as tiktoken's engine reads it: ``regex`` with the pinned classes."""
    return regex.compile(pin_classes(pattern))


CONTEXTS = ("{}", "a{}", "{}a", " {}x", "'{}", "{}\n", "1{}2", "\n{}", " {} ", "A{}'s")


def bmp_texts() -> list[str]:
    """Every BMP character in each context, plus shuffled runs of characters."""
    rng = random.Random(13)
    texts = ["".join(ctx.format(c) for c in BMP) for ctx in CONTEXTS]
    sample = BMP[:]
    for _ in range(4):
        rng.shuffle(sample)
        texts.append("".join(sample))
    return texts


@pytest.mark.parametrize("pattern", ALL_PATTERNS)
def test_splitter_equals_regex_on_every_bmp_character(pattern, tally):
    split = Splitter(pattern)
    assert split.translated
    oracle = pinned_oracle(pattern)
    for text in bmp_texts():
        assert split(text) == oracle.findall(text)
    tally("fast_split vs pinned regex: BMP characters x contexts", len(BMP) * len(CONTEXTS))


@pytest.mark.parametrize("pattern", ALL_PATTERNS)
def test_splitter_equals_regex_on_real_text(pattern, stdlib_corpus, tally):
    split = Splitter(pattern)
    oracle = pinned_oracle(pattern)
    texts = [text for _, text in stdlib_corpus[::8] + unicode_corpus()]
    for text in texts:
        assert split(text) == oracle.findall(text)
    tally("fast_split vs pinned regex: real texts", len(texts))


unicode_text = st.lists(
    st.one_of(st.sampled_from(UNICODE_SNIPPETS), st.text(max_size=4)), max_size=12
).map("".join)


@pytest.mark.parametrize("pattern", ALL_PATTERNS)
@settings(max_examples=300)
@given(text=unicode_text)
def test_splitter_equals_regex_hypothesis(pattern, text):
    assert Splitter(pattern)(text) == pinned_oracle(pattern).findall(text)


def test_bmp_pattern_refuses_what_it_cannot_translate():
    refused = (r"\w+", r"\d", r"\p{Sc}", r"\P{L}", r"(?i)ab", r"[\S]", r"\b", "[[:alpha:]]+")
    for pattern in refused:
        with pytest.raises(ValueError):
            bmp_pattern(pattern)
    assert not Splitter(r"\w+|\s").translated
    assert Splitter(r"\w+|\s")("héllo 🙂 x") == regex.findall(r"\w+|\s", "héllo 🙂 x")


# ---------------------------------------------------------------------------- ASCII
#: One character of each class the patterns tell apart on ASCII text: \r, \n, "/", space,
#: the other whitespace, a digit, the apostrophe, other punctuation, and the letters of the
#: contractions (both cases) next to a letter that is in none.
ASCII_CLASSES = "\r\n/ \t\x0b0'!aslverASLVER"
ASCII = [chr(c) for c in range(128)]


def test_ascii_patterns_are_used_on_ascii_text_only():
    from verified_bpe.engine.patterns import O200K_PATTERN

    assert O200K_PATTERN in ASCII_PATTERNS
    split = Splitter(O200K_PATTERN)
    assert split._ascii is not split._findall
    # a pattern that would be wrong on any text: it must never see non-ASCII text
    assert split("héllo wörld") == pinned_oracle(O200K_PATTERN).findall("héllo wörld")


@pytest.mark.parametrize("pattern", sorted(ASCII_PATTERNS))
def test_ascii_pattern_equals_regex_on_every_short_string(pattern, tally):
    """Every string of up to four characters over ``ASCII_CLASSES`` (204,204 strings)."""
    split = Splitter(pattern)
    oracle = pinned_oracle(pattern)
    count = 0
    for size in range(1, 5):
        for chars in itertools.product(ASCII_CLASSES, repeat=size):
            text = "".join(chars)
            assert split(text) == oracle.findall(text), repr(text)
            count += 1
    tally("ASCII patterns vs pinned regex: short strings", count)


@pytest.mark.parametrize("pattern", sorted(ASCII_PATTERNS))
def test_ascii_pattern_equals_regex_on_every_ascii_pair(pattern, tally):
    split = Splitter(pattern)
    oracle = pinned_oracle(pattern)
    pairs = [a + b for a in ASCII for b in ASCII]
    for context in CONTEXTS:
        singles = "".join(map(context.format, ASCII))
        for text in (singles, "".join(map(context.format, pairs))):
            assert text.isascii()
            assert split(text) == oracle.findall(text)
    tally("ASCII patterns vs pinned regex: ASCII pairs x contexts", len(pairs) * len(CONTEXTS))


ascii_text = st.lists(
    st.one_of(
        st.sampled_from(["'s", "'LL", "'Ve", "  ", " \n ", "\r\n", "//", "123456", "aBc", "ABc"]),
        st.text(alphabet=ASCII, max_size=4),
    ),
    max_size=16,
).map("".join)


@pytest.mark.parametrize("pattern", sorted(ASCII_PATTERNS))
@settings(max_examples=500)
@given(text=ascii_text)
def test_ascii_pattern_equals_regex_hypothesis(pattern, text):
    assert Splitter(pattern)(text) == pinned_oracle(pattern).findall(text)


# ---------------------------------------------------------------------------- blocks
def block_texts() -> list[str]:
    base = [text for _, text in unicode_corpus()]
    tricky = [
        "a \nb",
        "x;\nb",
        "a  \n\nb",
        "a\r\nB",
        "1\n2",
        "'s\nt",
        "  \n  \nx",
        "é\nZ",
        "x\n",
        "\nq",
    ]
    return base + ["".join(tricky * 3)]


@pytest.mark.parametrize("pattern", sorted(BLOCK_SAFE_PATTERNS))
def test_blocks_do_not_change_pieces(pattern, tally):
    oracle = regex.compile(pattern)
    cases = 0
    for text in block_texts():
        whole = oracle.findall(text)
        for size in (1, 7, 200):
            blocks = list(text_blocks(text, size))
            assert "".join(blocks) == text
            assert [p for b in blocks for p in oracle.findall(b)] == whole
            cases += len(blocks)
    tally("blocks vs whole text: blocks", cases)


@pytest.mark.parametrize("pattern", sorted(BLOCK_SAFE_PATTERNS - {LLAMA3_META_PATTERN}))
@settings(max_examples=300)
@given(
    parts=st.lists(
        st.one_of(
            st.sampled_from(["\n", " \n", "\r\n", "a", "Z", "7", " ", "'s", ";", "é", "\n\n"]),
            st.text(max_size=3),
        ),
        max_size=16,
    )
)
def test_blocks_do_not_change_pieces_hypothesis(pattern, parts):
    text = "".join(parts)
    oracle = regex.compile(pattern)
    blocks = list(text_blocks(text, 1))
    assert [p for b in blocks for p in oracle.findall(b)] == oracle.findall(text)


def test_gpt2_pattern_is_not_block_safe():
    """Why the set is explicit: with GPT-2's ``\\s+(?!\\S)`` the whitespace before a cut
    splits differently when the text ends there."""
    oracle = regex.compile(GPT2_PATTERN)
    assert GPT2_PATTERN not in BLOCK_SAFE_PATTERNS
    assert oracle.findall("a \nb") == ["a", " ", "\n", "b"]
    assert oracle.findall("a \n") == ["a", " \n"]


@pytest.mark.parametrize("name", ("cl100k_base", "o200k_base"))
def test_tokenizer_with_tiny_blocks_equals_tiktoken(name, monkeypatch, stdlib_corpus, tally):
    pytest.importorskip("tiktoken")
    from verified_bpe.engine.vocab import tiktoken_encoding

    monkeypatch.setattr(tokenizer_module, "BLOCK_CHARS", 64)
    oracle = tiktoken_encoding(name)
    tok = Tokenizer.from_tiktoken(name)
    texts = [text[:30_000] for _, text in stdlib_corpus[::16] + unicode_corpus()]
    texts.append("".join(block_texts()[-1:]) * 40)
    for text in texts:
        assert tok.encode_ordinary(text) == oracle.encode_ordinary(text)
    tally(f"tiny blocks vs tiktoken {name}: texts", len(texts))


# ---------------------------------------------------------------------------- cache
def test_piece_cache_is_bounded_and_equals_tiktoken():
    pytest.importorskip("tiktoken")
    from verified_bpe.engine.vocab import load_ranks, tiktoken_encoding

    oracle = tiktoken_encoding("cl100k_base")
    cache = PieceCache(load_ranks("cl100k_base"), limit=3, max_piece=10)
    for word in (" alpha", " betaxyz", " gammaqq", " delta", " alpha", "x" * 11, "x" * 11):
        assert cache[word] == oracle._encode_single_piece(word.encode())
        assert len(cache) <= 3
    assert "x" * 11 not in cache


# ---------------------------------------------------------------------------- long pieces
def long_chunks(seed: int) -> list[bytes]:
    """Chunks around and above LONG_PIECE: random bytes, random vocabulary tokens glued
    together, runs of one unit, random letters, base64-like text."""
    from verified_bpe.engine.vocab import load_ranks

    rng = random.Random(seed)
    tokens = list(load_ranks("cl100k_base"))
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    out = [bytes(rng.randrange(256) for _ in range(rng.randrange(1, 700))) for _ in range(20)]
    out += [b"".join(rng.choice(tokens) for _ in range(rng.randrange(1, 150))) for _ in range(20)]
    units = (b" ", b"x", b"ab", b"\xe4\xb8\xad", b"=", b"\n", b"\t ")
    out += [u * k for u in units for k in (255, 256, 999)]
    out += ["".join(rng.choice(alphabet[:26].lower()) for _ in range(3000)).encode()]
    out += ["".join(rng.choice(alphabet) for _ in range(3000)).encode()]
    return out


@pytest.mark.parametrize("compact", (False, True), ids=("lists", "arrays"))
@pytest.mark.parametrize("name", ("cl100k_base", "o200k_base"))
def test_bucket_and_heap_merges_equal_tiktoken(name, compact, monkeypatch, tally):
    """Both merge loops on every chunk (the buckets also on short ones) against tiktoken's
    ``_encode_single_piece``; the buckets with the linked list in lists, and in arrays as
    they keep it for long pieces with many ranks."""
    pytest.importorskip("tiktoken")
    if compact:
        monkeypatch.setattr(tokenizer_module, "COMPACT_PIECE", 0)
        monkeypatch.setattr(tokenizer_module, "COMPACT_RANKS", 0)
    from verified_bpe.engine.tokenizer import bpe_ranks, bpe_ranks_buckets, bpe_ranks_heap
    from verified_bpe.engine.vocab import load_ranks, tiktoken_encoding

    ranks = load_ranks(name)
    oracle = tiktoken_encoding(name)
    chunks = long_chunks(1)
    for chunk in chunks:
        expected = oracle._encode_single_piece(chunk)
        assert bpe_ranks_buckets(ranks, chunk) == expected, chunk[:40]
        assert bpe_ranks_heap(ranks, chunk) == expected, chunk[:40]
        assert bpe_ranks(ranks, chunk) == expected
    kind = "arrays" if compact else "lists"
    tally(f"bucket + heap merges vs tiktoken {name} ({kind}): chunks", len(chunks))


@pytest.mark.parametrize("name", ("cl100k_base", "o200k_base"))
def test_long_inputs_equal_tiktoken(name):
    """Whole texts made of one long piece (the benchmark's shapes, smaller)."""
    pytest.importorskip("tiktoken")
    from verified_bpe.engine.vocab import tiktoken_encoding

    rng = random.Random(2)
    oracle = tiktoken_encoding(name)
    tok = Tokenizer.from_tiktoken(name)
    letters = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(20_000))
    assert len(letters) >= tokenizer_module.COMPACT_PIECE  # the buckets keep arrays here
    for text in ("x" * 50_000, " " * 50_000, " " * 20_000 + "x", letters, "é" * 10_000):
        assert tok.encode_ordinary(text) == oracle.encode_ordinary(text)
