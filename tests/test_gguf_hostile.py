"""Hostile GGUF files (issue 35): deep nesting, sparse giants, values of the wrong type in
byte-level and SentencePiece files.  The property is the package's promise: a tokenizer, or
a :class:`~verified_bpe.errors.MalformedGgufError` naming the file, quickly and in little
memory; on the command line one line on stderr and exit 1.  Files are written by
``tests/gguf_raw.py`` from the format's definition."""

from __future__ import annotations

import io
import struct
import time
import tracemalloc
from pathlib import Path

import pytest

import gguf_raw as g
from verified_bpe import cli
from verified_bpe.errors import MalformedGgufError
from verified_bpe.formats import gguf_file
from verified_bpe.formats.gguf_spm import SentencePieceBpeTokenizer, spm_tokenizer_from_gguf
from verified_bpe.formats.gguf_vocab import (
    llama_tokenizer_from_gguf,
    read_gguf_vocab,
    tokenizer_from_gguf,
)

BPE_LOADERS = (read_gguf_vocab, tokenizer_from_gguf, llama_tokenizer_from_gguf)
SPM_LOADERS = (tokenizer_from_gguf, spm_tokenizer_from_gguf)


def put(tmp_path: Path, pairs: list, name: str = "f.gguf") -> Path:
    path = tmp_path / name
    path.write_bytes(g.write(pairs))
    return path


def replace(pairs: list, key: str, val: g.Val | None) -> list:
    """``pairs`` with ``key``'s value replaced (``None``: removed)."""
    out = [(k, v) for k, v in pairs if k != key]
    return out if val is None else [*out, (key, val)]


def cli_error(path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """``encode --gguf path x`` in process: exit 1 and one line on stderr naming the file."""
    code = cli.main(["encode", "--gguf", str(path), "x"], stdin=io.BytesIO(), stdout=io.BytesIO())
    err = capsys.readouterr().err
    assert code == 1, err
    assert len(err.strip().splitlines()) == 1 and str(path) in err, err
    return err


def test_the_small_files_load():
    """The two generated vocabularies are valid (the cases below break one thing each)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        bpe = tokenizer_from_gguf(put(Path(tmp), g.small_bpe()))
        assert bpe.decode(bpe.encode_ordinary("abc a")) == "abc a"
        spm = tokenizer_from_gguf(put(Path(tmp), g.small_spm(), "s.gguf"))
        assert isinstance(spm, SentencePieceBpeTokenizer)
        assert spm.decode(spm.encode("ab a\u00e9")) == "ab a\u00e9"


# ---------------------------------------------------------------------------- nesting
@pytest.mark.parametrize("kind", ["bpe", "spm"])
def test_deep_nesting_is_a_typed_error(tmp_path, kind, capsys):
    """Arrays nested 5,000 deep under a key no reader needs (a 60 KB file): a
    ``RecursionError`` before; now refused at depth :data:`~gguf_file.MAX_DEPTH` + 1."""
    base = g.small_bpe() if kind == "bpe" else g.small_spm()
    path = put(tmp_path, [("general.junk", g.nested(5000)), *base])
    for load in BPE_LOADERS if kind == "bpe" else SPM_LOADERS:
        with pytest.raises(MalformedGgufError, match="nested more than") as info:
            load(path)
        assert info.value.path == str(path), load
    with pytest.raises(MalformedGgufError, match="nested more than"):
        gguf_file.parse_metadata(path.read_bytes())
    cli_error(path, capsys)


def test_nesting_within_the_bound_is_read(tmp_path):
    limit = gguf_file.MAX_DEPTH
    path = put(tmp_path, [("general.junk", g.nested(limit)), *g.small_bpe()])
    tokenizer_from_gguf(path)
    value = gguf_file.read_metadata(path, ["general.junk"])["general.junk"].value
    for _ in range(limit - 1):
        (value,) = value
    assert value == [7]
    with pytest.raises(MalformedGgufError, match="nested more than"):
        tokenizer_from_gguf(put(tmp_path, [("j", g.nested(limit + 1)), *g.small_bpe()]))


# ---------------------------------------------------------------------------- sparse giants
SPARSE_SIZE = 1 << 32  # 4 GiB declared, a few bytes on disk


def sparse_file(tmp_path: Path, key: str, element: int, extra: list | None = None) -> Path:
    """``model = gpt2``, then ``key``: an array of ``element`` claiming as many (empty)
    elements as the declared size allows, the rest of the file a hole."""
    head = g.write([*(extra or []), ("tokenizer.ggml.model", g.string("gpt2"))])
    head = head[:16] + struct.pack("<Q", len(extra or []) + 2) + head[24:]
    raw = key.encode()
    pre = head + struct.pack("<Q", len(raw)) + raw + struct.pack("<II", g.ARRAY, element)
    width = {g.STRING: 8, g.ARRAY: 12}.get(element, 1)
    count = (SPARSE_SIZE - len(pre) - 8) // width
    path = tmp_path / f"sparse-{key}-{element}.gguf"
    with open(path, "wb") as f:
        f.write(pre + struct.pack("<Q", count))
        f.truncate(SPARSE_SIZE)
    return path


@pytest.mark.parametrize(
    ("key", "element", "extra", "match"),
    [
        ("tokenizer.ggml.tokens", g.STRING, None, r"tokens'\[0\] is empty"),
        ("tokenizer.ggml.merges", g.STRING, None, "missing key|is empty"),
        ("general.junk", g.STRING, None, "missing key"),
        ("general.junk", g.ARRAY, None, "missing key"),
        ("general.junk", g.UINT8, None, "missing key"),
        (
            "tokenizer.ggml.token_type",
            g.UINT8,
            [("tokenizer.ggml.tokens", g.array(g.STRING, ["a"]))],
            "entries for 1 tokens",
        ),
    ],
)
def test_sparse_giant_is_refused_at_once(tmp_path, key, element, extra, match, capsys):
    """A 4 GiB sparse file whose array claims as many empty elements as the size allows:
    refused in well under a second and a few MB (it took 15-25 s and 1.5 GB for a smaller
    one); the holes are found with ``lseek``, never read."""
    path = sparse_file(tmp_path, key, element, extra)
    tracemalloc.start()
    start = time.perf_counter()
    try:
        with pytest.raises(MalformedGgufError, match=match):
            tokenizer_from_gguf(path)
        elapsed = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert elapsed < 2.0 and peak < 16 << 20, (elapsed, peak)
    cli_error(path, capsys)


def test_counts_are_checked_before_allocating(tmp_path):
    """A count that the bytes left cannot hold is refused before the array is built."""
    for element in (g.STRING, g.ARRAY, g.UINT64):
        data = bytearray(g.write([("general.junk", g.array(element, [])), *g.small_bpe()]))
        at = data.index(b"general.junk") + len("general.junk") + 8
        data[at : at + 8] = struct.pack("<Q", 2**40)
        with pytest.raises(MalformedGgufError, match="truncated file|bytes"):
            gguf_file.parse_metadata(bytes(data))


# ---------------------------------------------------------------------------- value types
SPM_SWAPS = {
    "scores as strings": ("tokenizer.ggml.scores", lambda n: g.array(g.STRING, ["0"] * n)),
    "scores as bools": ("tokenizer.ggml.scores", lambda n: g.array(g.BOOL, [True] * n)),
    "scores, one short": ("tokenizer.ggml.scores", lambda n: g.array(g.FLOAT32, [0.0] * (n - 1))),
    "tokens as uint32": ("tokenizer.ggml.tokens", lambda n: g.array(g.UINT32, list(range(n)))),
    "tokens, a string": ("tokenizer.ggml.tokens", lambda n: g.string("a")),
    "token types as strings": ("tokenizer.ggml.token_type", lambda n: g.array(g.STRING, ["6"] * n)),
    "token types as floats": ("tokenizer.ggml.token_type", lambda n: g.array(g.FLOAT32, [1.0] * n)),
    "token types missing": ("tokenizer.ggml.token_type", lambda n: None),
    "add_space_prefix 'false'": ("tokenizer.ggml.add_space_prefix", lambda n: g.string("false")),
    "add_space_prefix 0": ("tokenizer.ggml.add_space_prefix", lambda n: g.Val(g.UINT8, 0)),
    "model as an array": ("tokenizer.ggml.model", lambda n: g.array(g.STRING, ["llama"])),
}
N_SPM = 264


@pytest.mark.parametrize("case", sorted(SPM_SWAPS))
def test_sentencepiece_value_types_are_checked(tmp_path, case, capsys):
    """Each of these loaded (then failed in ``encode``, or read ``"false"`` as true, or
    lost the byte tokens) or raised ``AttributeError``; now a typed error naming the key."""
    key, make = SPM_SWAPS[case]
    path = put(tmp_path, replace(g.small_spm(), key, make(N_SPM)))
    for load in SPM_LOADERS:
        with pytest.raises(MalformedGgufError, match=key.replace(".", r"\.")) as info:
            load(path)
        assert info.value.path == str(path)
    cli_error(path, capsys)


def test_add_space_prefix_false_is_honoured(tmp_path):
    """A real ``false`` (bool) switches the prefix off: ``"a"`` alone is token ``a``, with
    the prefix ``▁a`` (llama.cpp's rule, module docstring of gguf_spm)."""
    ids = {t: i for i, t in enumerate(g.small_spm()[2][1].value)}
    on = spm_tokenizer_from_gguf(put(tmp_path, g.small_spm(), "on.gguf"))
    off_pairs = replace(g.small_spm(), "tokenizer.ggml.add_space_prefix", g.Val(g.BOOL, False))
    off = spm_tokenizer_from_gguf(put(tmp_path, off_pairs, "off.gguf"))
    assert on.encode("a") == [ids["\u2581a".encode()]]
    assert off.encode("a") == [ids[b"a"]]


BPE_SWAPS = {
    "tokens as uint32": ("tokenizer.ggml.tokens", g.array(g.UINT32, [1, 2])),
    "token types as strings": ("tokenizer.ggml.token_type", g.array(g.STRING, ["1"] * 260)),
    "token types nested": ("tokenizer.ggml.token_type", g.nested(2)),
    "merges as int8": ("tokenizer.ggml.merges", g.array(g.INT8, [1])),
    "pre as bool": ("tokenizer.ggml.pre", g.Val(g.BOOL, True)),
    "eos as float": ("tokenizer.ggml.eos_token_id", g.Val(g.FLOAT64, 1.0)),
    "bos as string": ("tokenizer.ggml.bos_token_id", g.string("1")),
}


@pytest.mark.parametrize("case", sorted(BPE_SWAPS))
def test_byte_level_value_types_are_checked(tmp_path, case):
    key, val = BPE_SWAPS[case]
    path = put(tmp_path, replace(g.small_bpe(), key, val))
    for load in BPE_LOADERS:
        with pytest.raises(MalformedGgufError, match=key.replace(".", r"\.")):
            load(path)
