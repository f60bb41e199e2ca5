"""StreamingDecoder against two independent oracles.

* ``bytes.decode("utf-8", errors="replace")`` of the whole stream, its bytes taken from
  tiktoken (``decode_single_token_bytes`` of an ``Encoding`` built from the same rank file,
  never the decoder under test): the streamed pieces plus ``flush()`` must concatenate to it.
* "as soon as valid": after each token the text emitted so far must be exactly the decoding
  of the bytes seen so far without their trailing incomplete sequence, where "incomplete
  sequence" is defined here by brute force as a proper prefix of the UTF-8 encoding of some
  code point (the set is built by encoding every scalar value).
"""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verified_bpe.engine.tokenizer import Tokenizer
from verified_bpe.engine.vocab import load_ranks, tiktoken_encoding
from verified_bpe.errors import UnknownTokenError
from verified_bpe.formats.streaming import StreamingDecoder, is_incomplete_sequence, stream_decode

NAMES = ("cl100k_base", "o200k_base")

SAMPLES = [
    "中文字符和日本語のテキスト、한국어 문장도 있습니다。",
    "emoji: 😀👍🏽👨‍👩‍👧 🇫🇷 flags and 🧑🏿‍🚀 astronauts",
    "combining: e\u0301 a\u0308 n\u0303 Z\u0351\u0352\u0353 \u0915\u094d\u0937",
    "mixed: naïve café Ωμέγα Привет עברית مرحبا हिन्दी ไทย \U0001d400\U0001d401",
    "\ufeffBOM, \u200bzero width\u200d, \u2028line sep, \u3000ideographic space",
]


@cache
def tokenizer(name: str) -> Tokenizer:
    return Tokenizer.from_tiktoken(name)


@cache
def oracle(name: str):
    """tiktoken's ``Encoding`` of ``name``: where every token's bytes come from."""
    return tiktoken_encoding(name)


@cache
def incomplete_prefixes() -> frozenset[bytes]:
    """Every proper, non-empty prefix of the UTF-8 encoding of every Unicode scalar value."""
    out: set[bytes] = set()
    for cp in range(0x80, 0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        enc = chr(cp).encode("utf-8")
        for k in range(1, len(enc)):
            out.add(enc[:k])
    return frozenset(out)


def settled_text(data: bytes) -> str:
    """The oracle for "emit as soon as valid": decode ``data`` without its longest suffix
    that is an incomplete UTF-8 sequence."""
    prefixes = incomplete_prefixes()
    hold = 0
    for k in range(1, min(3, len(data)) + 1):
        if data[-k:] in prefixes:
            hold = k
    return data[: len(data) - hold].decode("utf-8", errors="replace")


def check_stream(tok: Tokenizer, ids: list[int]) -> None:
    """Feed ``ids`` one at a time and compare every intermediate state with the oracles
    (token bytes from tiktoken's ``Encoding`` of the same name)."""
    token_bytes = oracle(tok.name).decode_single_token_bytes
    batch_bytes = b"".join(token_bytes(i) for i in ids)
    batch = batch_bytes.decode("utf-8", errors="replace")
    assert tok.decode(ids) == batch
    dec = StreamingDecoder(tok)
    emitted = ""
    seen = b""
    for token_id in ids:
        emitted += dec.feed(token_id)
        seen += token_bytes(token_id)
        assert batch.startswith(emitted)
        assert emitted == settled_text(seen)
        assert seen.endswith(dec.pending)
        assert len(dec.pending) <= 3
    emitted += dec.flush()
    assert emitted == batch
    assert dec.pending == b""


@pytest.fixture(scope="module", params=NAMES)
def name(request):
    return request.param


def test_oracle_prefix_set():
    """Sanity of the brute-force oracle itself: sizes by sequence length."""
    prefixes = incomplete_prefixes()
    assert b"\xe4" in prefixes and b"\xe4\xb8" in prefixes and b"\xe4\xb8\xad" not in prefixes
    assert b"\xed\xa0" not in prefixes  # would be a surrogate
    assert b"\xc0" not in prefixes and b"\xf5" not in prefixes and b"\x80" not in prefixes
    assert max(map(len, prefixes)) == 3


def test_is_incomplete_sequence_vs_brute_force():
    """The decoder's table against the brute-force set: every 1- and 2-byte string, and
    3-byte strings with a lead byte and boundary values of the Unicode table after it."""
    prefixes = incomplete_prefixes()
    cases = [bytes([a]) for a in range(256)]
    cases += [bytes([a, b]) for a in range(256) for b in range(256)]
    edges = (0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF)
    cases += [bytes([a, b, c]) for a in range(0xC0, 0x100) for b in edges for c in edges]
    for part in cases:
        assert is_incomplete_sequence(part) == (part in prefixes), part


def test_samples_one_id_at_a_time(name, non_english_corpus, tally):
    tok = tokenizer(name)
    reference = oracle(name)
    texts = SAMPLES + [text[:3000] for _, text in non_english_corpus]
    split_tokens = 0
    for text in texts:
        ids = reference.encode_ordinary(text)
        assert reference.decode(ids) == text
        check_stream(tok, ids)
        split_tokens += sum(
            1
            for i in ids
            if reference.decode_single_token_bytes(i).decode("utf-8", errors="ignore").encode()
            != reference.decode_single_token_bytes(i)
        )
    # the corpus really exercises tokens that are not valid UTF-8 on their own
    assert split_tokens > 0
    tally(f"streaming real texts {name}", len(texts))


def test_every_token_boundary(name):
    """Stop a stream after every prefix of the ids, flush, and compare with the batch decode
    of that prefix; then stream the rest into a fresh decoder."""
    tok = tokenizer(name)
    reference = oracle(name)
    for text in SAMPLES:
        ids = reference.encode_ordinary(text)
        for k in range(len(ids) + 1):
            head, tail = ids[:k], ids[k:]
            dec = StreamingDecoder(tok)
            got = dec.feed_many(head) + dec.flush()
            assert got == reference.decode_bytes(head).decode("utf-8", errors="replace")
            got_tail = dec.feed_many(tail) + dec.flush()  # the decoder is reusable after flush
            assert got_tail == reference.decode_bytes(tail).decode("utf-8", errors="replace")


def byte_ids(name: str) -> list[int]:
    ranks = load_ranks(name)
    return [ranks[bytes([b])] for b in range(256)]


@pytest.mark.parametrize("name_", NAMES)
@settings(max_examples=150)
@given(data=st.binary(max_size=60))
def test_random_bytes(name_, data):
    """Single-byte tokens spelling arbitrary bytes (valid, invalid, truncated UTF-8)."""
    tok = tokenizer(name_)
    table = byte_ids(name_)
    ids = [table[b] for b in data]
    check_stream(tok, ids)
    assert "".join(stream_decode(tok, ids)) == data.decode("utf-8", errors="replace")


utf8_fragments = st.sampled_from(
    [
        b"\xe4",
        b"\xb8",
        b"\xad",
        b"\xf0",
        b"\x9f",
        b"\x98",
        b"\x80",
        b"\xed",
        b"\xa0",
        b"\xc3",
        b"\xa9",
        b"\xc0",
        b"\xff",
        b"\xf4",
        b"\x90",
        b"a",
        b" ",
    ]
)


@pytest.mark.parametrize("name_", NAMES)
@settings(max_examples=150)
@given(parts=st.lists(st.one_of(utf8_fragments, st.binary(max_size=3)), max_size=40))
def test_random_bytes_biased(name_, parts):
    """Byte soup biased towards lead, continuation and never-valid bytes."""
    tok = tokenizer(name_)
    table = byte_ids(name_)
    ids = [table[b] for b in b"".join(parts)]
    check_stream(tok, ids)


@pytest.mark.parametrize("name_", NAMES)
@settings(max_examples=100)
@given(data=st.data())
def test_random_vocab_ids(name_, data):
    """Arbitrary ids of the vocabulary (many multi-byte tokens are partial UTF-8)."""
    tok = tokenizer(name_)
    n = len(load_ranks(name_))
    ids = data.draw(st.lists(st.integers(0, n - 1), max_size=30))
    check_stream(tok, ids)


def test_special_tokens_stream(name):
    tok = tokenizer(name)
    text = "a 中<|endoftext|>文 b"
    ids = tok.encode(text, allowed_special="all")
    check_stream(tok, ids)
    assert "".join(stream_decode(tok, ids)) == text


def test_unknown_id_raises_and_keeps_state(name):
    tok = tokenizer(name)
    table = byte_ids(name)
    dec = StreamingDecoder(tok)
    assert dec.feed(table[0xE4]) == ""
    with pytest.raises(UnknownTokenError):
        dec.feed(10**9)
    assert dec.pending == b"\xe4"
    assert dec.feed(table[0xB8]) + dec.feed(table[0xAD]) == "中"


def test_truncated_tail_flushes_replacement(name):
    tok = tokenizer(name)
    table = byte_ids(name)
    dec = StreamingDecoder(tok)
    assert dec.feed_many([table[0xF0], table[0x9F], table[0x98]]) == ""
    assert dec.flush() == b"\xf0\x9f\x98".decode("utf-8", errors="replace")
    dec.feed(table[0xE4])
    dec.reset()
    assert dec.pending == b"" and dec.flush() == ""


def test_spec_engine_stream():
    tok = Tokenizer.from_tiktoken("cl100k_base", engine="spec")
    for text in SAMPLES:
        check_stream(tok, tok.encode_ordinary(text))
