"""GGUF files written and read from the format's definition with every value's type kept,
for the hostile-input tests and the structure-aware fuzzer (``test_gguf_hostile.py``).

The format (llama.cpp's ``gguf.h``, little-endian): ``GGUF``, version u32, tensor count
u64, key-value count u64, then each key (a string: u64 length + bytes), its value type u32
and the value.  Types: 0 u8, 1 i8, 2 u16, 3 i16, 4 u32, 5 i32, 6 f32, 7 bool, 8 string,
9 array (element type u32, count u64, elements; an element of type 9 is again element type,
count, elements), 10 u64, 11 i64, 12 f64.  Written here from that definition alone,
independent of ``verified_bpe.formats.gguf_file``; ``read`` is the inverse of ``write``
(checked by the tests on llama.cpp's own files).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

UINT8, INT8, UINT16, INT16, UINT32, INT32, FLOAT32, BOOL, STRING, ARRAY, UINT64, INT64, FLOAT64 = (
    range(13)
)
SCALARS = {
    UINT8: "B", INT8: "b", UINT16: "H", INT16: "h", UINT32: "I", INT32: "i",
    FLOAT32: "f", BOOL: "?", UINT64: "Q", INT64: "q", FLOAT64: "d",
}  # fmt: skip


@dataclass
class Val:
    """A typed value: a scalar, ``bytes`` for a string, or for an array the element type
    and a list of elements (Python values; for nested arrays, ``Val`` objects of type
    ``ARRAY``)."""

    type: int
    value: Any
    element: int | None = None
    raw: bytes | None = None  # the encoded value, when given (deep nesting)


def string(text: str | bytes) -> Val:
    return Val(STRING, text.encode("utf-8") if isinstance(text, str) else text)


def array(element: int, items: list[Any]) -> Val:
    if element == STRING:
        items = [t.encode("utf-8") if isinstance(t, str) else t for t in items]
    return Val(ARRAY, items, element)


def nested(depth: int) -> Val:
    """Arrays nested ``depth`` deep around one u8 (depth 1 is a flat array), encoded
    without recursion (the writer must not fail where the reader is tested)."""
    raw = struct.pack("<IQB", UINT8, 1, 7)
    for _ in range(depth - 1):
        raw = struct.pack("<IQ", ARRAY, 1) + raw
    return Val(ARRAY, None, ARRAY if depth > 1 else UINT8, raw)


def _encode(kind: int, value: Any, element: int | None = None) -> bytes:
    if kind in SCALARS:
        return struct.pack("<" + SCALARS[kind], value)
    if kind == STRING:
        return struct.pack("<Q", len(value)) + value
    if kind == ARRAY:
        assert element is not None
        head = struct.pack("<IQ", element, len(value))
        if element == ARRAY:
            return head + b"".join(_encode(ARRAY, v.value, v.element) for v in value)
        return head + b"".join(_encode(element, v) for v in value)
    raise ValueError(f"type {kind}")


def write(pairs: list[tuple[str | bytes, Val]], version: int = 3) -> bytes:
    """A GGUF file (no tensors) holding ``pairs`` in order."""
    out = [b"GGUF", struct.pack("<IQQ", version, 0, len(pairs))]
    for key, val in pairs:
        raw = key.encode("utf-8") if isinstance(key, str) else key
        out.append(struct.pack("<Q", len(raw)) + raw + struct.pack("<I", val.type))
        out.append(val.raw if val.raw is not None else _encode(val.type, val.value, val.element))
    return b"".join(out)


def read(data: bytes) -> list[tuple[bytes, Val]]:
    """The key-value pairs of ``data`` (``ValueError`` for what does not parse)."""
    pos = 0

    def take(n: int) -> bytes:
        nonlocal pos
        if n < 0 or pos + n > len(data):
            raise ValueError(f"{n} bytes needed at {pos}")
        pos += n
        return data[pos - n : pos]

    def scalar(kind: int) -> Any:
        fmt = "<" + SCALARS[kind]
        return struct.unpack(fmt, take(struct.calcsize(fmt)))[0]

    def value(kind: int, depth: int = 0) -> Val:
        if kind in SCALARS:
            return Val(kind, scalar(kind))
        if kind == STRING:
            return Val(STRING, take(scalar(UINT64)))
        if kind != ARRAY or depth > 64:
            raise ValueError(f"type {kind}")
        element, count = scalar(UINT32), scalar(UINT64)
        if count > len(data):
            raise ValueError("count")
        if element == ARRAY:
            return Val(ARRAY, [value(ARRAY, depth + 1) for _ in range(count)], ARRAY)
        return Val(ARRAY, [value(element).value for _ in range(count)], element)

    if take(4) != b"GGUF":
        raise ValueError("magic")
    scalar(UINT32)
    scalar(UINT64)
    n = scalar(UINT64)
    if n > len(data):
        raise ValueError("key count")
    pairs = []
    for _ in range(n):
        key = take(scalar(UINT64))
        kind = scalar(UINT32)
        start = pos
        val = value(kind)
        val.raw = data[start:pos]  # written back as it was (fast for real vocabularies)
        pairs.append((key, val))
    return pairs


def gpt2_alphabet() -> list[str]:
    """GPT-2's byte -> character table as a list indexed by byte: the printable bytes
    ``!``..``~``, ``¡``..``¬``, ``®``..``ÿ`` stand for themselves, the other 68 bytes, in
    order, for U+0100, U+0101, ..."""
    printable = [*range(0x21, 0x7F), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    others = iter(range(0x100, 0x200))
    return [chr(b) if b in printable else chr(next(others)) for b in range(256)]


def small_bpe() -> list[tuple[str, Val]]:
    """A byte-level BPE vocabulary (``gpt2``): the 256 bytes, merges ``a b``, ``ab c``,
    ``Ġ a``, and one control token."""
    alpha = gpt2_alphabet()
    space = alpha[32]
    tokens = [*alpha, "ab", "abc", space + "a", "<|end|>"]
    return [
        ("general.architecture", string("llama")),
        ("tokenizer.ggml.model", string("gpt2")),
        ("tokenizer.ggml.pre", string("gpt2")),
        ("tokenizer.ggml.tokens", array(STRING, tokens)),
        ("tokenizer.ggml.token_type", array(INT32, [1] * (len(tokens) - 1) + [3])),
        ("tokenizer.ggml.merges", array(STRING, ["a b", "ab c", f"{space} a"])),
        ("tokenizer.ggml.eos_token_id", Val(UINT32, len(tokens) - 1)),
    ]


def small_spm() -> list[tuple[str, Val]]:
    """A SentencePiece vocabulary (``llama``): unknown, control, the 256 byte tokens,
    ``▁``, ``a``, ``b``, ``▁a``, ``ab``, ``▁ab`` with scores favouring longer pieces."""
    pieces = ["\u2581", "a", "b", "\u2581a", "ab", "\u2581ab"]
    tokens = ["<unk>", "<s>", *(f"<0x{b:02X}>" for b in range(256)), *pieces]
    types = [2, 3, *([6] * 256), *([1] * len(pieces))]
    scores = [0.0, 0.0, *([0.0] * 256), -1.0, -2.0, -3.0, -0.5, -0.6, -0.1]
    return [
        ("general.architecture", string("llama")),
        ("tokenizer.ggml.model", string("llama")),
        ("tokenizer.ggml.tokens", array(STRING, tokens)),
        ("tokenizer.ggml.scores", array(FLOAT32, scores)),
        ("tokenizer.ggml.token_type", array(INT32, types)),
        ("tokenizer.ggml.add_space_prefix", Val(BOOL, True)),
    ]
