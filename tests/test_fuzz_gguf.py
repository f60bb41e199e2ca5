"""A structure-aware GGUF fuzzer (issue 35): files are key/value trees (``tests/gguf_raw.py``,
written from the format's definition), mutated as trees: random key/value trees inserted
(scalars, strings, arrays, arrays nested past the reader's bound, tokenizer keys with values
of any type), values swapped for values of another type, pairs dropped or repeated, and the
written file cut at a random offset.  The bases are the two small generated vocabularies
(byte-level and SentencePiece) and two of llama.cpp's own files (llama-spm, deepseek-coder).

Property (the package's promise): ``tokenizer_from_gguf`` returns a tokenizer or raises a
:class:`~verified_bpe.errors.MalformedGgufError` naming the file, within ``CASE_SECONDS``
and ``CASE_BYTES`` of Python allocations; a tokenizer encodes a sample to ids that decode
back to it, or raises a typed error.  Memory is measured with ``tracemalloc`` on the
generated bases (it makes a real file's load 10-15 times slower, so there time alone is
bounded, and under ``tracemalloc`` the time bound is ten times looser).  Derandomized;
``VERIFIED_BPE_FUZZ_SCALE=N`` runs N times as many cases (the exploring run quoted in
docs/fuzzing.md).
"""

from __future__ import annotations

import dataclasses
import os
import time
import tracemalloc
from functools import cache

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gguf_raw as g
from verified_bpe.errors import BpeError, MalformedGgufError
from verified_bpe.formats.gguf_vocab import tokenizer_from_gguf

SCALE = int(os.environ.get("VERIFIED_BPE_FUZZ_SCALE", "1"))
CASE_SECONDS = 2.0
CASE_BYTES = 256 << 20
SAMPLE = "Hello world, abc ab a 123 caf\u00e9 \U0001f999\n\tend"
REAL = ("llama-spm", "deepseek-coder")

KEYS = [
    "tokenizer.ggml.model",
    "tokenizer.ggml.pre",
    "tokenizer.ggml.tokens",
    "tokenizer.ggml.merges",
    "tokenizer.ggml.token_type",
    "tokenizer.ggml.scores",
    "tokenizer.ggml.add_space_prefix",
    "tokenizer.ggml.bos_token_id",
    "tokenizer.ggml.eos_token_id",
    "general.architecture",
    "general.junk",
    "",
]


@cache
def base(name: str) -> tuple[tuple[bytes, g.Val], ...]:
    if name == "small-bpe":
        pairs = g.small_bpe()
    elif name == "small-spm":
        pairs = g.small_spm()
    else:
        from verified_bpe.verify.testdata import vocab_path

        return tuple(g.read(vocab_path(name).read_bytes()))
    return tuple((k.encode(), v) for k, v in pairs)


# ---------------------------------------------------------------------------- values
SCALAR_VALUES = {
    g.UINT8: st.integers(0, 255),
    g.INT8: st.integers(-128, 127),
    g.UINT16: st.integers(0, 2**16 - 1),
    g.INT16: st.integers(-(2**15), 2**15 - 1),
    g.UINT32: st.integers(0, 2**32 - 1),
    g.INT32: st.integers(-(2**31), 2**31 - 1),
    g.FLOAT32: st.floats(width=32, allow_nan=True),
    g.BOOL: st.booleans(),
    g.UINT64: st.integers(0, 2**64 - 1),
    g.INT64: st.integers(-(2**63), 2**63 - 1),
    g.FLOAT64: st.floats(allow_nan=True),
}
TEXTS = st.sampled_from(
    ["", "a", "ab", "a b", "gpt2", "llama", "false", "true", "<0x41>", "\u2581a", "\u0120a"]
) | st.text(max_size=6)


@st.composite
def values(draw: st.DrawFn, depth: int = 0) -> g.Val:
    """A random typed value; arrays up to 40 elements, nesting past the reader's bound."""
    kind = draw(st.sampled_from([*SCALAR_VALUES, g.STRING, g.ARRAY]))
    if kind in SCALAR_VALUES:
        return g.Val(kind, draw(SCALAR_VALUES[kind]))
    if kind == g.STRING:
        return g.string(draw(TEXTS))
    if draw(st.integers(0, 9)) == 0:  # deep: one chain past the bound
        return g.nested(draw(st.integers(2, 3 * g_max_depth())))
    element = draw(st.sampled_from([*SCALAR_VALUES, g.STRING] + ([g.ARRAY] if depth < 3 else [])))
    n = draw(st.integers(0, 40))
    if element == g.ARRAY:
        return g.Val(g.ARRAY, [draw(values(depth + 1)) for _ in range(min(n, 3))], g.ARRAY)
    items = TEXTS if element == g.STRING else SCALAR_VALUES[element]
    return g.array(element, draw(st.lists(items, min_size=n, max_size=n)))


def g_max_depth() -> int:
    from verified_bpe.formats.gguf_file import MAX_DEPTH

    return MAX_DEPTH


def nested_ok(val: g.Val) -> g.Val:
    """Nested arrays of random values must be ``ARRAY`` elements all through."""
    if val.type == g.ARRAY and val.element == g.ARRAY and val.raw is None:
        kept = [nested_ok(v) for v in val.value if v.type == g.ARRAY]
        return g.Val(g.ARRAY, kept, g.ARRAY)
    return val


def converted(val: g.Val, element: int) -> g.Val | None:
    """An array with its elements re-typed (same count): the type swap of a real list."""
    if val.type != g.ARRAY or val.raw is not None and val.value is None:
        return None
    if element == g.STRING:
        return g.array(g.STRING, [str(v).encode()[:8] for v in val.value])
    if element in (g.FLOAT32, g.FLOAT64):
        return g.Val(
            g.ARRAY, [float(len(v) if isinstance(v, bytes) else v) for v in val.value], element
        )
    if element == g.BOOL:
        return g.Val(g.ARRAY, [bool(v) for v in val.value], element)
    return g.Val(
        g.ARRAY,
        [len(v) % 128 if isinstance(v, bytes) else int(v) % 128 for v in val.value],
        element,
    )


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, bytes]:
    name = draw(st.sampled_from(["small-bpe", "small-spm", *REAL]))
    pairs = list(base(name))
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["tree", "swap", "retype", "drop", "dup"]))
        at = draw(st.integers(0, max(len(pairs) - 1, 0)))
        if kind == "tree":
            key = draw(st.sampled_from(KEYS)).encode()
            pairs.insert(at, (key, nested_ok(draw(values()))))
        elif not pairs:
            continue
        elif kind == "swap":
            pairs[at] = (pairs[at][0], nested_ok(draw(values())))
        elif kind == "retype":
            element = draw(st.sampled_from([g.STRING, g.FLOAT32, g.INT32, g.UINT8, g.BOOL]))
            new = converted(pairs[at][1], element)
            if new is not None:
                pairs[at] = (pairs[at][0], new)
        elif kind == "drop":
            del pairs[at]
        else:
            pairs.insert(draw(st.integers(0, len(pairs))), pairs[at])
    data = g.write(pairs)
    if draw(st.integers(0, 3)) == 0:
        data = data[: draw(st.integers(0, len(data)))]
    return name, data


@settings(
    max_examples=12 * SCALE,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(case=mutated())
def test_fuzz_gguf_trees(case, tmp_path_factory, tally):
    name, data = case
    path = tmp_path_factory.mktemp("t") / "fuzz.gguf"
    path.write_bytes(data)
    traced = name not in REAL  # tracemalloc makes a real file's load 10-15 times slower
    if traced:
        tracemalloc.start()
    start = time.perf_counter()
    try:
        try:
            tok = tokenizer_from_gguf(path)
        except MalformedGgufError as exc:
            tok, error = None, exc
        elapsed = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1] if traced else 0
    finally:
        tracemalloc.stop()
    assert elapsed < CASE_SECONDS * (10 if traced else 1), (name, elapsed)
    assert peak < CASE_BYTES, (name, peak)
    base_kind = "real" if name in REAL else "generated"
    if tok is None:
        assert error.path == str(path), error
        tally(f"fuzz: GGUF trees ({base_kind}) -> MalformedGgufError")
        return
    try:
        ids = tok.encode(SAMPLE)
    except BpeError:
        tally(f"fuzz: GGUF trees ({base_kind}) -> loaded, sample refused (typed)")
        return
    assert tok.decode(ids) == SAMPLE, name
    tally(f"fuzz: GGUF trees ({base_kind}) -> loaded, sample round-trips")


def test_raw_reader_and_writer_agree_on_llama_cpp_files():
    """``gguf_raw.write`` of what ``gguf_raw.read`` finds (re-encoded, not copied) is the
    file's key-value section: the fuzzer's trees are the real files."""
    import struct

    from verified_bpe.verify.testdata import vocab_path

    data = vocab_path("llama-spm").read_bytes()
    pairs = [(k, dataclasses.replace(v, raw=None)) for k, v in base("llama-spm")]
    version = struct.unpack_from("<I", data, 4)[0]
    assert data.startswith(g.write(pairs, version=version))
