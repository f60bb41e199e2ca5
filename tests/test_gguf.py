"""GGUF vocabularies: files written with ``gguf.GGUFWriter`` are read back and the tokenizer
built from them is compared with tiktoken on the same (truncated) rank table; the GPT-2
byte-to-unicode table against its definition; corrupt files raise ``MalformedGgufError``."""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

gguf = pytest.importorskip("gguf")
tiktoken = pytest.importorskip("tiktoken")

from verified_bpe.engine.patterns import CL100K_PATTERN, GPT2_PATTERN, LLAMA3_PATTERN, O200K_PATTERN  # noqa: E402
from verified_bpe.engine.vocab import load_ranks  # noqa: E402
from verified_bpe.errors import BpeError, MalformedGgufError  # noqa: E402
from verified_bpe.formats.gguf_vocab import (  # noqa: E402
    bytes_to_token_text,
    bytes_to_unicode,
    pattern_for_pre,
    read_gguf_vocab,
    token_text_to_bytes,
    tokenizer_from_gguf,
    unicode_to_bytes,
)
from verified_bpe.spec.seed.decompose import recover_merges  # noqa: E402

N_RANKS = 1000
EOT = "<|endoftext|>"
CONTROL = 3

TEXTS = [
    "Hello, world! It's 2024; the quick brown fox jumps over 13 lazy dogs.\n\n",
    "def f(x):\n    return x ** 2  # square\n\t\r\n",
    "中文字符和日本語のテキスト、한국어 문장도 있습니다。",
    "naïve café Ωμέγα Привет עברית مرحبا हिन्दी 😀👍🏽 e\u0301",
    "   leading and trailing spaces   ",
    "I'm you'll WE'VE they'd SHE'S",
]


# ---------------------------------------------------------------------------- building files
@cache
def rank_slice(name: str, n: int = N_RANKS) -> dict[bytes, int]:
    """The first ``n`` ranks of a real vocabulary (a valid BPE table on its own)."""
    return {token: rank for token, rank in load_ranks(name).items() if rank < n}


@cache
def merge_lines(name: str, n: int = N_RANKS) -> tuple[str, ...]:
    ranks = rank_slice(name, n)
    by_id = {rank: token for token, rank in ranks.items()}
    merges = sorted(recover_merges(ranks).items(), key=lambda item: item[1])
    return tuple(
        f"{bytes_to_token_text(by_id[a])} {bytes_to_token_text(by_id[b])}" for (a, b), _ in merges
    )


def token_texts(ranks: dict[bytes, int]) -> list[str]:
    by_id = sorted(ranks.items(), key=lambda item: item[1])
    assert [rank for _, rank in by_id] == list(range(len(by_id)))
    return [bytes_to_token_text(token) for token, _ in by_id]


def write_gguf(path: Path, **kv) -> Path:
    """Write a GGUF file with the given ``tokenizer.ggml.*`` entries (``None`` = leave out).

    Values are ``(kind, value)`` pairs where the test needs an unusual type."""
    writer = gguf.GGUFWriter(str(path), arch="llama")
    adders = {
        "model": ("tokenizer.ggml.model", writer.add_string),
        "pre": ("tokenizer.ggml.pre", writer.add_string),
        "tokens": ("tokenizer.ggml.tokens", writer.add_array),
        "merges": ("tokenizer.ggml.merges", writer.add_array),
        "token_type": ("tokenizer.ggml.token_type", writer.add_array),
        "bos": ("tokenizer.ggml.bos_token_id", writer.add_uint32),
        "eos": ("tokenizer.ggml.eos_token_id", writer.add_uint32),
    }
    for name, value in kv.items():
        if value is None:
            continue
        key, add = adders[name]
        if isinstance(value, tuple) and len(value) == 2 and value[0] in _RAW:
            _RAW[value[0]](writer, key, value[1])
        else:
            add(key, value)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


_RAW = {
    "u32": lambda w, k, v: w.add_uint32(k, v),
    "str": lambda w, k, v: w.add_string(k, v),
    "arr": lambda w, k, v: w.add_array(k, v),
}


def good_kv(name: str = "cl100k_base", pre: str = "llama-bpe", n: int = N_RANKS) -> dict:
    tokens = token_texts(rank_slice(name, n)) + [EOT]
    return {
        "model": "gpt2",
        "pre": pre,
        "tokens": tokens,
        "merges": list(merge_lines(name, n)),
        "token_type": [1] * (len(tokens) - 1) + [CONTROL],
        "bos": len(tokens) - 1,
        "eos": len(tokens) - 1,
    }


@cache
def oracle(name: str, pattern: str, n: int = N_RANKS):
    """tiktoken on the same truncated rank table: the independent reference."""
    return tiktoken.Encoding(
        name=f"{name}-slice-{n}-{hash(pattern)}",
        pat_str=pattern,
        mergeable_ranks=rank_slice(name, n),
        special_tokens={EOT: n},
    )


# ---------------------------------------------------------------------------- byte <-> unicode
def test_bytes_to_unicode_is_a_bijection_onto_printable_chars():
    table = bytes_to_unicode()
    assert sorted(table) == list(range(256))
    chars = list(table.values())
    assert len(set(chars)) == 256
    assert all(len(c) == 1 and c.isprintable() and not c.isspace() for c in chars)
    assert unicode_to_bytes() == {c: b for b, c in table.items()}


def test_bytes_to_unicode_matches_definition():
    """Definition: a byte whose Latin-1 character is printable and not a space keeps it; the
    others, in increasing order, get U+0100, U+0101, ...  (Python's ``isprintable`` is false
    for the C0/C1 controls, NBSP and the soft hyphen: exactly GPT-2's excluded set.)"""
    table = bytes_to_unicode()
    kept = [b for b in range(256) if chr(b).isprintable() and b != 0x20]
    moved = [b for b in range(256) if b not in kept]
    assert len(kept) == 188 and len(moved) == 68
    for b in kept:
        assert table[b] == chr(b)
    assert [ord(table[b]) for b in moved] == list(range(256, 256 + 68))
    # the familiar spellings of GPT-2 vocabularies
    assert table[0x20] == "Ġ" and table[0x0A] == "Ċ" and table[0x09] == "ĉ"
    assert token_text_to_bytes("Ġhello") == b" hello"


@given(st.binary(max_size=64))
def test_token_text_roundtrip(data):
    assert token_text_to_bytes(bytes_to_token_text(data)) == data


@pytest.mark.parametrize("text", ["a b", "\u20ac", "x\u0144", "\n", "Ā\u0000"])
def test_token_text_outside_alphabet(text):
    with pytest.raises(MalformedGgufError, match="byte-to-unicode alphabet"):
        token_text_to_bytes(text)


def test_pre_names():
    assert pattern_for_pre("llama-bpe") == LLAMA3_PATTERN
    assert pattern_for_pre("gpt-4o") == O200K_PATTERN
    assert pattern_for_pre("default") == pattern_for_pre("gpt2") == GPT2_PATTERN
    with pytest.raises(MalformedGgufError, match="unknown pre-tokenizer"):
        pattern_for_pre("no-such-pre")


# ---------------------------------------------------------------------------- read back
@pytest.fixture(scope="module")
def cl100k_file(tmp_path_factory) -> Path:
    return write_gguf(tmp_path_factory.mktemp("gguf") / "cl100k-slice.gguf", **good_kv())


def test_read_back_fields(cl100k_file):
    vocab = read_gguf_vocab(cl100k_file)
    assert vocab.model == "gpt2" and vocab.pre == "llama-bpe"
    assert vocab.ranks == rank_slice("cl100k_base")
    assert vocab.special_tokens == {EOT: N_RANKS}
    assert vocab.bos_token_id == vocab.eos_token_id == N_RANKS
    assert len(vocab.merges) == N_RANKS - 256
    assert vocab.merge_order_problem() is None
    assert vocab.pattern == LLAMA3_PATTERN


@pytest.mark.parametrize(
    ("name", "pre", "pattern"),
    [
        ("cl100k_base", "llama-bpe", LLAMA3_PATTERN),
        ("cl100k_base", "gpt2", GPT2_PATTERN),
        ("cl100k_base", "cl100k_base", CL100K_PATTERN),
        ("o200k_base", "gpt-4o", O200K_PATTERN),
    ],
)
def test_encode_equals_tiktoken_on_slice(name, pre, pattern, tmp_path, stdlib_corpus, tally):
    path = write_gguf(tmp_path / "v.gguf", **good_kv(name, pre))
    tok = tokenizer_from_gguf(path)
    ref = oracle(name, pattern)
    texts = TEXTS + [text[:20_000] for _, text in stdlib_corpus[:40]]
    n_tokens = 0
    for text in texts:
        ids = tok.encode_ordinary(text)
        assert ids == ref.encode_ordinary(text)
        assert tok.decode(ids) == text
        n_tokens += len(ids)
    doc = f"one{EOT}two {EOT}"
    assert tok.encode(doc, allowed_special="all") == ref.encode(doc, allowed_special="all")
    tally(f"gguf slice {name} {pre}: tokens", n_tokens)


@settings(max_examples=100, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=200))
def test_encode_equals_tiktoken_hypothesis(cl100k_file, text):
    tok = _cached_tokenizer(str(cl100k_file))
    ids = tok.encode(text, disallowed_special=())
    assert ids == oracle("cl100k_base", LLAMA3_PATTERN).encode(text, disallowed_special=())


@cache
def _cached_tokenizer(path: str):
    return tokenizer_from_gguf(path)


def test_spec_engine_from_gguf(cl100k_file):
    tok = tokenizer_from_gguf(cl100k_file, engine="spec")
    ref = oracle("cl100k_base", LLAMA3_PATTERN)
    for text in TEXTS:
        assert tok.encode_ordinary(text) == ref.encode_ordinary(text)


def test_pattern_override_and_default_pre(tmp_path):
    kv = good_kv()
    kv["pre"] = None  # llama.cpp: a missing pre means "default" (the GPT-2 split)
    path = write_gguf(tmp_path / "nopre.gguf", **kv)
    assert read_gguf_vocab(path).pre == "default"
    kv["pre"] = "some-future-pre"
    path = write_gguf(tmp_path / "unknown.gguf", **kv)
    with pytest.raises(MalformedGgufError, match="unknown pre-tokenizer"):
        tokenizer_from_gguf(path)
    tok = tokenizer_from_gguf(path, pattern=CL100K_PATTERN)
    ref = oracle("cl100k_base", CL100K_PATTERN)
    assert tok.encode_ordinary(TEXTS[0]) == ref.encode_ordinary(TEXTS[0])


# ---------------------------------------------------------------------------- corrupt files
SMALL_N = 300


@pytest.fixture(scope="module")
def small_file(tmp_path_factory) -> bytes:
    path = tmp_path_factory.mktemp("gguf") / "small.gguf"
    return write_gguf(path, **good_kv(n=SMALL_N)).read_bytes()


def _write_bytes(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "corrupt.gguf"
    path.write_bytes(data)
    return path


def test_bad_magic_version_empty_garbage(small_file, tmp_path):
    cases = {
        "magic": b"GGUX" + small_file[4:],
        "version": small_file[:4] + (99).to_bytes(4, "little") + small_file[8:],
        "empty": b"",
        "garbage": bytes(random.Random(0).randrange(256) for _ in range(500)),
        "text": b"this is not a gguf file\n" * 10,
    }
    for label, data in cases.items():
        with pytest.raises(MalformedGgufError) as info:
            read_gguf_vocab(_write_bytes(tmp_path, data))
        assert str(tmp_path) in str(info.value), label


def test_truncated_everywhere(small_file, tmp_path, tally):
    """Cut the file at many offsets (all of the header and the end, every 41st elsewhere;
    every offset was checked once, 30 s): a cut inside the metadata raises the typed error;
    a cut only inside the final alignment padding (< 32 bytes) reads the same vocabulary."""
    full = read_gguf_vocab(_write_bytes(tmp_path, small_file))
    size = len(small_file)
    cuts = sorted({*range(128), *range(0, size, 41), *range(size - 64, size)})
    readable = []
    for cut in cuts:
        path = _write_bytes(tmp_path, small_file[:cut])
        try:
            vocab = read_gguf_vocab(path)
        except MalformedGgufError:
            continue
        assert vocab == full, cut  # only padding was lost
        readable.append(cut)
    assert len(readable) < 32
    assert all(cut > len(small_file) - 32 for cut in readable)
    tally("gguf truncation offsets", len(cuts))


def test_missing_file_is_oserror(tmp_path):
    with pytest.raises(OSError):
        read_gguf_vocab(tmp_path / "nope.gguf")


@pytest.mark.parametrize("key", ["model", "tokens", "merges"])
def test_missing_keys(tmp_path, key):
    kv = good_kv(n=SMALL_N)
    kv[key] = None
    with pytest.raises(MalformedGgufError, match="missing key"):
        read_gguf_vocab(write_gguf(tmp_path / "m.gguf", **kv))


@pytest.mark.parametrize(
    ("key", "value", "match"),
    [
        ("model", ("u32", 2), "must be a string"),
        ("pre", ("arr", ["a"]), "must be a string"),
        ("tokens", ("arr", [1, 2, 3]), "array of strings"),
        ("tokens", ("str", "abc"), "must be an array"),
        ("merges", ("arr", [1.5]), "array of strings"),
        ("token_type", ("arr", ["x"] * (SMALL_N + 1)), "array of integers"),
        ("bos", ("str", "1"), "must be an integer"),
        ("eos", ("arr", [1]), "must be an integer"),
    ],
)
def test_wrong_types(tmp_path, key, value, match):
    kv = good_kv(n=SMALL_N)
    kv[key] = value
    with pytest.raises(MalformedGgufError, match=match):
        read_gguf_vocab(write_gguf(tmp_path / "t.gguf", **kv))


def _edit(kv: dict, key: str, index: int, value) -> dict:
    kv[key] = list(kv[key])
    kv[key][index] = value
    return kv


@pytest.mark.parametrize(
    ("edit", "match"),
    [
        (lambda kv: _edit(kv, "tokens", 280, "a b"), "byte-to-unicode alphabet"),
        (lambda kv: _edit(kv, "tokens", 280, "\u20ac"), "byte-to-unicode alphabet"),
        (lambda kv: _edit(kv, "tokens", 280, ""), "is empty"),
        (lambda kv: _edit(kv, "tokens", 280, kv["tokens"][10]), "are both the bytes"),
        (lambda kv: _edit(kv, "tokens", 65, "ĠĠĠĠĠĠĠĠĠĠ"), "single bytes have no token"),
        (lambda kv: _edit(kv, "merges", 3, "Ġ Ġ Ġ"), "is not 'left right'"),
        (lambda kv: _edit(kv, "merges", 3, "Ġt"), "is not 'left right'"),
        (lambda kv: _edit(kv, "merges", 3, "Ġthe qzx"), "unknown token"),
        (lambda kv: _edit(kv, "merges", 3, "Ġ €"), "byte-to-unicode alphabet"),
        (lambda kv: _edit(kv, "merges", 3, "q z"), "not a token"),
        (lambda kv: {**kv, "token_type": [1] * 5}, "entries for"),
        (lambda kv: _edit(kv, "token_type", 7, 6), "unsupported"),
        (lambda kv: {**kv, "bos": 10**6}, "is not a token id"),
        (lambda kv: {**kv, "tokens": [b"\xff\xfe"] + kv["tokens"][1:]}, "not valid UTF-8"),
        (lambda kv: _edit(kv, "tokens", SMALL_N, kv["tokens"][SMALL_N - 1]), None),
    ],
)
def test_malformed_contents(tmp_path, edit, match):
    kv = edit(good_kv(n=SMALL_N))
    path = write_gguf(tmp_path / "c.gguf", **kv)
    if match is None:  # a control token may share its text with a normal token's spelling
        assert read_gguf_vocab(path).special_tokens
        return
    with pytest.raises(MalformedGgufError, match=match):
        read_gguf_vocab(path)


def test_empty_token_array(tmp_path):
    """GGUFWriter refuses empty arrays, so patch one in: a one-element token list whose
    count is set to 0 and whose element is cut out."""
    kv = good_kv(n=SMALL_N)
    kv["tokens"] = ["!"]
    kv["token_type"] = kv["bos"] = kv["eos"] = None
    raw = write_gguf(tmp_path / "one.gguf", **kv).read_bytes()
    key = b"tokenizer.ggml.tokens"
    at = raw.index(key) + len(key) + 4 + 4  # value type, element type
    one = (1).to_bytes(8, "little") + (1).to_bytes(8, "little") + b"!"
    assert raw[at : at + len(one)] == one
    patched = raw[:at] + (0).to_bytes(8, "little") + raw[at + len(one) :]
    with pytest.raises(MalformedGgufError, match="is empty"):
        read_gguf_vocab(_write_bytes(tmp_path, patched))


def test_not_bpe_or_bad_merge_order(tmp_path):
    kv = good_kv(n=SMALL_N)
    kv["model"] = "llama"
    with pytest.raises(MalformedGgufError, match="not byte-level BPE"):
        tokenizer_from_gguf(write_gguf(tmp_path / "spm.gguf", **kv))
    kv = good_kv(n=SMALL_N)
    kv["merges"] = list(reversed(kv["merges"]))  # well-formed, but not in id order
    path = write_gguf(tmp_path / "order.gguf", **kv)
    assert read_gguf_vocab(path).merge_order_problem() is not None
    with pytest.raises(MalformedGgufError, match="cannot be expressed as ranks"):
        tokenizer_from_gguf(path)


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzzed_files_raise_only_typed_errors(small_file, tmp_path, data):
    """Random byte flips and cuts: reading either succeeds or raises MalformedGgufError."""
    raw = bytearray(small_file)
    for _ in range(data.draw(st.integers(1, 4))):
        pos = data.draw(st.integers(0, len(raw) - 1))
        raw[pos] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(raw)))
    path = _write_bytes(tmp_path, bytes(raw[:cut]) if data.draw(st.booleans()) else bytes(raw))
    try:
        tokenizer_from_gguf(path)
    except MalformedGgufError:
        pass
    except BpeError as exc:  # pragma: no cover - would be a bug: wrong error class
        pytest.fail(f"untyped error {type(exc).__name__}: {exc}")
