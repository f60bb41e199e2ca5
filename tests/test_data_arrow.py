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
from verified_bpe.errors import (  # noqa: E402
    InvalidArgumentError,
    InvalidUtf8Error,
    MissingExtraError,
)

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


def test_in_place_read_of_sliced_nulls_and_chunks():
    """The buffers read in place: a slice whose offset is not a multiple of 8 over a validity
    bitmap, both layouts, chunks of both sizes, against tiktoken and the copying path."""
    from verified_bpe.data.arrow import _flat_chunk

    enc = verified_bpe.get_encoding("o200k_base")
    rows = ROWS * 3
    for kind in (pa.string(), pa.large_string()):
        array = pa.array(rows, type=kind)
        for lo, hi in ((0, len(rows)), (3, 17), (9, 10), (13, len(rows)), (5, 5)):
            part = array.slice(lo, hi - lo)
            assert encode_arrow(enc, part).to_pylist() == expected("o200k_base", rows[lo:hi])
            assert _flat_chunk(enc, part, 2, False) == _flat_chunk(enc, part, 2, False, 0, False)
    for empty in (["", ""], [None, None], []):  # a data buffer of no bytes
        assert encode_arrow(enc, pa.array(empty, pa.string())).to_pylist() == [
            None if r is None else [] for r in empty
        ]
    chunked = pa.chunked_array([array.slice(2, 9), array.slice(11), array.slice(0, 0)])
    assert encode_arrow(enc, chunked).to_pylist() == expected("o200k_base", rows[2:11] + rows[11:])


def _raw(offsets, data, kind=None, width=4):
    """A string array over raw offsets and data (pyarrow checks only the buffers' sizes)."""
    import numpy as np

    buf = pa.py_buffer(np.array(offsets, dtype="<i4" if width == 4 else "<i8").tobytes())
    kind = pa.string() if kind is None else kind
    return pa.Array.from_buffers(kind, len(offsets) - 1, [None, buf, pa.py_buffer(data)])


def test_invalid_utf8_row_is_named():
    enc = verified_bpe.get_encoding("cl100k_base")
    bad = _raw([0, 2, 4], b"ok\xff\xfe")
    with pytest.raises(InvalidUtf8Error, match="array row 1 is not valid UTF-8: at byte 0"):
        encode_arrow(enc, bad)
    chunked = pa.chunked_array([pa.array(["a", "b", "c"]), _raw([0, 1, 3], b"x\xc3(")])
    with pytest.raises(InvalidUtf8Error, match="array row 4 .* at byte 0"):
        count_arrow(enc, chunked)


def test_decreasing_offsets_are_named():
    """Offsets that decrease (pyarrow's ``from_buffers`` lets them through): the package's
    typed error naming the row of the whole array, never a read outside the buffer."""
    enc = verified_bpe.get_encoding("cl100k_base")
    for kind, width in ((pa.string(), 4), (pa.large_string(), 8)):
        bad = _raw([0, 3, 2, 3], b"abc", kind, width=width)
        with pytest.raises(InvalidArgumentError, match="array: row 1: offsets 3..2 outside"):
            encode_arrow(enc, bad)
        with pytest.raises(InvalidArgumentError, match="array: row 3: offsets 3..2 outside"):
            encode_arrow(enc, pa.chunked_array([pa.array(["x", "y"], kind), bad]))


@pytest.mark.parametrize(
    "offsets, data, length, message",
    [
        ([0, 2, 9], b"abc", 2, "row 1: offsets 2..9 outside the data"),
        ([-1, 2], b"abc", 1, "row 0: offsets -1..2 outside the data"),
        ([0, 2**31 - 1], b"abc", 1, "row 0: offsets 0..2147483647 outside the data"),
        ([0, 1], b"ab", 5, "offsets buffer is shorter than the rows it should hold"),
    ],
)
def test_buffers_that_pyarrow_refuses_are_checked_natively(offsets, data, length, message):
    """Offsets past the data, negative, or fewer than the rows (pyarrow's validation refuses
    these arrays, so the engine's own checks are called with the raw buffers): ValueError,
    never a read outside the buffers."""
    import numpy as np

    native = verified_bpe.get_encoding("cl100k_base")._tokenizer._native
    for dtype, wide in (("<i4", False), ("<i8", True)):
        raw = memoryview(np.array(offsets, dtype=dtype).tobytes())
        with pytest.raises(ValueError, match=message):
            native.encode_utf8_flat(memoryview(data), raw, wide, 0, length, None, 2)


def _first_bad_row(offsets, data):
    """The oracle for the native check: the first row, in row order, whose offsets are not a
    range of ``data`` or whose bytes Python does not decode as UTF-8."""
    for row, (lo, hi) in enumerate(zip(offsets, offsets[1:], strict=False)):
        if lo < 0 or hi < lo or hi > len(data):
            return row, "offsets", f"row {row}: offsets {lo}..{hi} outside the data"
        try:
            data[lo:hi].decode("utf-8")
        except UnicodeDecodeError as e:
            return row, "utf8", f"row {row}: invalid UTF-8 at byte {e.start}"
    return None


@pytest.mark.parametrize("num_threads", [1, 2, 3, 8])
def test_first_bad_row_in_row_order_on_threads(num_threads):
    """Each row's UTF-8 is checked by the batch thread that encodes it (longest rows first):
    the error is still the first bad row in row order, as Python's decoding finds it, whether
    the bad rows are short or long, early or late, and when a bad offset comes after or before
    a row that is not UTF-8; the good batch's ids are tiktoken's."""
    import random

    import numpy as np

    native = verified_bpe.get_encoding("o200k_base")._tokenizer._native
    rng = random.Random(7)
    good = ["caf\u00e9 \u65e5\u672c \U0001f600 x = 1\n" * rng.randrange(1, 60) for _ in range(40)]
    bads = [b"\xff", b"ab\xc3(", b"\xe6\x97", b"\xed\xa0\x80", b"\xf0\x9f\x98"]
    cases = []
    for _ in range(12):
        rows = [t.encode() for t in good]
        for _ in range(rng.randrange(1, 4)):
            k = rng.randrange(len(rows))
            cut = rng.randrange(len(rows[k]) + 1)
            rows[k] = rows[k][:cut] + rng.choice(bads) + rows[k][cut:]
        data = b"".join(rows)
        offsets = [0, *np.cumsum([len(r) for r in rows]).tolist()]
        cases.append((offsets, data))
        if rng.random() < 0.5:  # a decreasing offset somewhere too
            k = rng.randrange(1, len(offsets) - 1)
            bent = list(offsets)
            bent[k] = bent[k - 1] - 1 if bent[k - 1] > 0 else len(data) + 1
            cases.append((bent, data))
    cases.append(
        ([0, *np.cumsum([len(t.encode()) for t in good]).tolist()], "".join(good).encode())
    )
    for offsets, data in cases:
        want = _first_bad_row(offsets, data)
        raw = memoryview(np.array(offsets, dtype="<i8").tobytes())
        if want is None:
            ids, bounds = native.encode_utf8_flat(
                memoryview(data), raw, True, 0, len(offsets) - 1, None, num_threads
            )
            ids = np.frombuffer(ids, dtype=np.uint32)
            bounds = np.frombuffer(bounds, dtype=np.int64)
            got = [ids[bounds[k] : bounds[k + 1]].tolist() for k in range(len(good))]
            assert got == expected("o200k_base", good)
            continue
        with pytest.raises(ValueError) as info:
            native.encode_utf8_flat(
                memoryview(data), raw, True, 0, len(offsets) - 1, None, num_threads
            )
        assert info.value.args == want


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


def test_count_arrow_in_a_fresh_interpreter():
    """``count_arrow`` loads ``pyarrow.compute`` itself: ``import pyarrow`` does not, and in this
    process another test (or pandas, which pyarrow loads where installed) may already have:
    a subprocess without pandas (the CI run of stop 42 failed on this)."""
    code = (
        "import sys\n"
        "class NoPandas:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'pandas': raise ModuleNotFoundError(name)\n"
        "sys.meta_path.insert(0, NoPandas())\n"
        "import pyarrow as pa, verified_bpe\n"
        "from verified_bpe.data import count_arrow\n"
        "assert 'pyarrow.compute' not in sys.modules\n"
        "e = verified_bpe.get_encoding('cl100k_base')\n"
        "got = count_arrow(e, pa.array(['hello world', None, ''])).to_pylist()\n"
        "assert got == [len(e.encode('hello world')), None, 0], got\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


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
