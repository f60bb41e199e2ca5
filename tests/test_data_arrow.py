"""verified_bpe.data on Arrow arrays: ids row for row equal to tiktoken's (the oracle), nulls
kept, every string layout (string, large_string, sliced, chunked), bad rows named, and the
package working without pyarrow."""

from __future__ import annotations

import subprocess
import sys

import pytest

pa = pytest.importorskip("pyarrow")
pytest.importorskip("tiktoken")

import verified_bpe  # noqa: E402
from verified_bpe.data import count_arrow, encode_arrow  # noqa: E402
from verified_bpe.engine.tokenizer import Tokenizer  # noqa: E402
from verified_bpe.engine.vocab import tiktoken_encoding  # noqa: E402
from verified_bpe.errors import MissingExtraError  # noqa: E402

ROWS = [
    "hello world",
    None,
    "",
    "caf\u00e9 \u65e5\u672c\u8a9e \U0001f600 <|endoftext|>",
    "def f(x):\n    return x\n" * 500,
    None,
    "last",
]


def expected(name, rows):
    oracle = tiktoken_encoding(name)
    return [None if r is None else oracle.encode_ordinary(r) for r in rows]


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
@pytest.mark.parametrize("kind", ["string", "large_string"])
def test_encode_arrow_equals_tiktoken(name, kind):
    enc = verified_bpe.get_encoding(name)
    array = pa.array(ROWS, type=getattr(pa, kind)())
    got = encode_arrow(enc, array, num_threads=2)
    assert got.type == pa.large_list(pa.uint32())
    assert got.to_pylist() == expected(name, ROWS)
    counts = count_arrow(enc, array)
    assert counts.type == pa.int64()
    assert counts.to_pylist() == [None if r is None else len(r) for r in expected(name, ROWS)]


def test_sliced_and_chunked():
    enc = verified_bpe.get_encoding("cl100k_base")
    array = pa.array(ROWS)
    chunked = pa.chunked_array([array.slice(1, 3), array.slice(4), pa.array([], pa.string())])
    rows = ROWS[1:4] + ROWS[4:]
    assert encode_arrow(enc, chunked).to_pylist() == expected("cl100k_base", rows)
    assert count_arrow(enc, chunked).null_count == 2
    empty = pa.chunked_array([], type=pa.string())
    assert encode_arrow(enc, empty).to_pylist() == []
    assert count_arrow(enc, empty).to_pylist() == []


def test_python_engine_fallback():
    enc = verified_bpe.get_encoding("cl100k_base")
    fallback = verified_bpe.api.encoding.Encoding(
        "cl100k_base",
        pat_str=enc._pat_str,
        mergeable_ranks=enc._mergeable_ranks,
        special_tokens=enc._special_tokens,
    )
    fallback._tokenizer = Tokenizer.from_tiktoken("cl100k_base", engine="fast")
    assert encode_arrow(fallback, pa.array(ROWS)).to_pylist() == expected("cl100k_base", ROWS)


def test_invalid_utf8_row_is_named():
    enc = verified_bpe.get_encoding("cl100k_base")
    offsets = pa.py_buffer(pa.array([0, 2, 4], pa.int32()).buffers()[1])
    bad = pa.Array.from_buffers(pa.string(), 2, [None, offsets, pa.py_buffer(b"ok\xff\xfe")])
    with pytest.raises(ValueError, match="row 1: invalid UTF-8 at byte 0"):
        encode_arrow(enc, bad)


def test_wrong_types_are_named():
    enc = verified_bpe.get_encoding("cl100k_base")
    with pytest.raises(TypeError, match="string"):
        encode_arrow(enc, pa.array([1, 2]))
    with pytest.raises(TypeError, match="list"):
        encode_arrow(enc, ["a"])


def test_without_pyarrow_names_the_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    enc = verified_bpe.get_encoding("cl100k_base")
    with pytest.raises(MissingExtraError, match=r"pip install 'verified-bpe\[data\]'"):
        encode_arrow(enc, ["a"])


def test_package_imports_without_the_extras():
    """``import verified_bpe`` and the tiktoken face work with pyarrow, numpy, dask and ray
    unimportable (a subprocess: the modules of this one are already loaded)."""
    code = (
        "import sys\n"
        "for m in ('pyarrow', 'numpy', 'dask', 'ray', 'pandas'): sys.modules[m] = None\n"
        "import verified_bpe, verified_bpe.data\n"
        "e = verified_bpe.get_encoding('cl100k_base')\n"
        "assert e.encode('hi') == [6151]\n"
        "assert not any(m in sys.modules and sys.modules[m] for m in ('pyarrow', 'numpy'))\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
