"""verified_bpe.engine.vocab: the .tiktoken parser, hash checks, the loader's fallback, and the
published facts (patterns, special tokens, hashes) against tiktoken_ext's source."""

from __future__ import annotations

import gzip
import hashlib
import time

import pytest

from verified_bpe.engine import vocab
from verified_bpe.engine.patterns import CL100K_PATTERN, GPT2_PATTERN, O200K_PATTERN
from verified_bpe.errors import BpeError, MalformedVocabError


def test_parse_example():
    text = b"YQ== 0\nYg== 1\n\nIGFi 2\n"  # "a", "b", " ab"
    assert vocab.parse_tiktoken_bpe(text) == {b"a": 0, b"b": 1, b" ab": 2}
    assert vocab.parse_tiktoken_bpe(b"") == {}
    assert vocab.parse_tiktoken_bpe(b"YQ== 0\r\nYg== 1") == {b"a": 0, b"b": 1}


@pytest.mark.parametrize(
    "contents,line,fragment",
    [
        (b"YQ== 0\nYg==\n", 2, "1 field"),
        (b"YQ== 0 extra\n", 1, "3 field"),
        (b"YQ== 0\nYg== 1\n!!!! 2\n", 3, "invalid base64"),
        (b"YQ= 0\n", 1, "invalid base64"),
        (b"YQ== zero\n", 1, "not an integer"),
        (b"YQ== -1\n", 1, "not an integer"),
        (b"YQ== 0\nYQ== 1\n", 2, "already has rank 0"),
        (b"YQ== 0\nYg== 0\n", 2, "rank 0 already used on line 1"),
    ],
)
def test_parse_malformed_lines(contents, line, fragment):
    with pytest.raises(MalformedVocabError) as info:
        vocab.parse_tiktoken_bpe(contents)
    assert info.value.line == line
    assert fragment in str(info.value)
    assert str(info.value).startswith(f"line {line}: ")
    assert isinstance(info.value, BpeError)


def test_read_file_plain_and_gzip_with_hash(tmp_path):
    contents = b"YQ== 0\nYg== 1\n"
    digest = hashlib.sha256(contents).hexdigest()
    plain = tmp_path / "toy.tiktoken"
    plain.write_bytes(contents)
    packed = tmp_path / "toy.tiktoken.gz"
    packed.write_bytes(gzip.compress(contents))
    for path in (plain, packed):
        assert vocab.read_tiktoken_file(path, sha256=digest) == {b"a": 0, b"b": 1}
        with pytest.raises(MalformedVocabError, match="SHA-256"):
            vocab.read_tiktoken_file(path, sha256="0" * 64)


def test_read_file_corrupt_gzip(tmp_path):
    path = tmp_path / "bad.tiktoken.gz"
    path.write_bytes(gzip.compress(b"YQ== 0\n")[:-6])
    with pytest.raises(MalformedVocabError):
        vocab.read_tiktoken_file(path)


def test_read_file_malformed_line_number(tmp_path):
    path = tmp_path / "bad.tiktoken.gz"
    path.write_bytes(gzip.compress(b"YQ== 0\nYg== 1\nYw== x\n"))
    with pytest.raises(MalformedVocabError, match="^line 3: "):
        vocab.read_tiktoken_file(path)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_bundled_file_hash_is_of_the_decompressed_file(name):
    path = vocab.bundled_vocab_path(name)
    raw = path.read_bytes()
    expected = vocab.encoding_spec(name).sha256
    assert hashlib.sha256(gzip.decompress(raw)).hexdigest() == expected
    assert hashlib.sha256(raw).hexdigest() != expected


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_fallback_loader_reads_the_bundled_file(monkeypatch, name):
    monkeypatch.setattr(vocab, "_ranks_via_tiktoken", lambda name, timeout: None)
    vocab.load_ranks_with_source.cache_clear()
    try:
        ranks, source = vocab.load_ranks_with_source(name)
    finally:
        vocab.load_ranks_with_source.cache_clear()
    assert source.endswith(f"{name}.tiktoken.gz")
    n = vocab.encoding_spec(name).n_ranks
    assert len(ranks) == n
    assert sorted(ranks.values()) == list(range(n))
    assert ranks[b"hello"] == {"cl100k_base": 15339, "o200k_base": 24912}[name]


def test_tiktoken_loader_success_is_used(monkeypatch):
    tiktoken = pytest.importorskip("tiktoken")

    class Fake:
        _mergeable_ranks = {b"x": 0}

    monkeypatch.setattr(tiktoken, "get_encoding", lambda name: Fake())
    assert vocab._ranks_via_tiktoken("cl100k_base", 5) == {b"x": 0}


def test_tiktoken_loader_times_out_quickly(monkeypatch):
    tiktoken = pytest.importorskip("tiktoken")
    monkeypatch.setattr(tiktoken, "get_encoding", lambda name: time.sleep(3))
    start = time.monotonic()
    assert vocab._ranks_via_tiktoken("cl100k_base", 0.2) is None
    assert time.monotonic() - start < 2
    assert vocab._ranks_via_tiktoken("cl100k_base", 0) is None  # 0 = do not try


def test_tiktoken_loader_failure_is_none(monkeypatch):
    tiktoken = pytest.importorskip("tiktoken")

    def boom(name):
        raise OSError("offline")

    monkeypatch.setattr(tiktoken, "get_encoding", boom)
    assert vocab._ranks_via_tiktoken("cl100k_base", 5) is None


def test_unknown_encoding():
    with pytest.raises(KeyError, match="unknown encoding"):
        vocab.load_ranks("p50k")


def test_published_facts_match_tiktoken_ext(monkeypatch):
    """Patterns, special tokens and hashes are the ones in tiktoken_ext/openai_public.py."""
    openai_public = pytest.importorskip("tiktoken_ext.openai_public")
    seen_hashes: list[str] = []

    def fake_load(url, expected_hash=None):
        seen_hashes.append(expected_hash)
        return {}

    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", fake_load)
    cl100k = openai_public.cl100k_base()
    o200k = openai_public.o200k_base()
    assert cl100k["pat_str"] == CL100K_PATTERN
    assert o200k["pat_str"] == O200K_PATTERN
    assert cl100k["special_tokens"] == vocab.special_tokens("cl100k_base")
    assert o200k["special_tokens"] == vocab.special_tokens("o200k_base")
    assert seen_hashes == [vocab.encoding_spec(n).sha256 for n in ("cl100k_base", "o200k_base")]
    import inspect

    assert GPT2_PATTERN in inspect.getsource(openai_public)


@pytest.mark.parametrize(
    "name,text,ids",
    [
        ("cl100k_base", "hello world", [15339, 1917]),
        ("o200k_base", "hello world", [24912, 2375]),
    ],
)
def test_oracle_builds_offline(name, text, ids):
    pytest.importorskip("tiktoken")
    oracle = vocab.tiktoken_encoding(name)
    assert oracle.encode(text) == ids
    assert oracle.encode("<|endoftext|>", allowed_special="all") == [
        vocab.special_tokens(name)["<|endoftext|>"]
    ]


def test_base64_step_equals_b64decode_validate():
    """The parser decodes each token with ``binascii.a2b_base64(strict_mode=True)``: the same
    outcome (bytes, or an error) as ``base64.b64decode(validate=True)`` on every string of up
    to 5 characters over an alphabet with padding, a bad digit and whitespace (the bundled
    files themselves are checked by the loader tests)."""
    import base64
    import binascii
    import itertools

    def outcome(decode, s):
        try:
            return decode(s)
        except (binascii.Error, ValueError):
            return "error"

    for n in range(6):
        for chars in itertools.product(b"AQ/=- \n", repeat=n):
            s = bytes(chars)
            want = outcome(lambda t: base64.b64decode(t, validate=True), s)
            assert outcome(lambda t: binascii.a2b_base64(t, strict_mode=True), s) == want, s
