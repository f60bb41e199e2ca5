"""Oracles written here from their definitions, independent of the package: minbpe's
textbook training loop and a split made by the ``regex`` module directly.

Used by ``test_train.py`` (the trainer) and ``test_cli.py`` (``train`` on the command line).
"""

from __future__ import annotations

import regex

Pair = tuple[int, int]


def naive_replace(ids: list[int], pair: Pair, idx: int) -> list[int]:
    """minbpe's ``merge``: every occurrence of ``pair``, left to right, becomes ``idx``."""
    out: list[int] = []
    i = 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
            out.append(idx)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def naive_train(chunks: list[bytes], num_merges: int) -> tuple[dict[Pair, int], list[list[int]]]:
    """minbpe's training loop: full recount each step; stops when no pair is left."""
    ids = [list(chunk) for chunk in chunks]
    merges: dict[Pair, int] = {}
    for k in range(num_merges):
        stats: dict[Pair, int] = {}
        for chunk_ids in ids:
            for pair in zip(chunk_ids, chunk_ids[1:], strict=False):
                stats[pair] = stats.get(pair, 0) + 1
        if not stats:
            break
        best = max(stats, key=stats.get)  # the first-inserted pair among equal counts
        merges[best] = 256 + k
        ids = [naive_replace(chunk_ids, best, 256 + k) for chunk_ids in ids]
    return merges, ids


def naive_vocab(merges: dict[Pair, int]) -> dict[int, bytes]:
    """minbpe's ``_build_vocab``: the 256 bytes, then each merge's two parts joined."""
    vocab = {i: bytes([i]) for i in range(256)}
    for (a, b), idx in sorted(merges.items(), key=lambda item: item[1]):
        vocab[idx] = vocab[a] + vocab[b]
    return vocab


def regex_chunks(text: str, pattern: str) -> list[bytes]:
    """The whole matches of ``pattern`` in ``text``, found by the ``regex`` module itself (its
    own Unicode tables: they agree with tiktoken's on every character assigned in Unicode 16
    except U+0295, which only o200k's case-sensitive classes tell apart), UTF-8 encoded.
    For a tokenizer's pattern the matches cover the text (checked)."""
    chunks = [match.group(0) for match in regex.finditer(pattern, text)]
    assert "".join(chunks) == text, "the pattern does not cover the text"
    return [chunk.encode("utf-8") for chunk in chunks]


# ---------------------------------------------------------------------------- GGUF
#: GGUF value types (llama.cpp's ``gguf.h``): fixed-size scalars as ``struct`` formats.
_GGUF_SCALARS = {
    0: "B",
    1: "b",
    2: "H",
    3: "h",
    4: "I",
    5: "i",
    6: "f",
    7: "?",
    10: "Q",
    11: "q",
    12: "d",
}
_GGUF_STRING, _GGUF_ARRAY = 8, 9


class GgufReadError(ValueError):
    """The bytes are not a GGUF header this reader can follow to the end of its key-values."""


def gguf_metadata(data: bytes) -> dict[bytes, object]:
    """The key-value section of a GGUF file (version 2 or 3), read from the format's
    definition: ``GGUF``, version u32, tensor count u64, key-value count u64, then each key
    (a string) with its type u32 and value (strings: u64 length + bytes, UTF-8 by the spec;
    arrays: element type u32, count u64, elements), all little-endian.  Keys and strings are
    left as bytes (a reader may ignore a key it does not use, whatever its bytes); arrays
    become lists.  :class:`GgufReadError` for anything that does not parse."""
    import struct

    pos = 0

    def take(n: int) -> bytes:
        nonlocal pos
        if n < 0 or pos + n > len(data):
            raise GgufReadError(f"{n} bytes needed at offset {pos}, {len(data) - pos} left")
        pos += n
        return data[pos - n : pos]

    def scalar(fmt: str) -> object:
        return struct.unpack("<" + fmt, take(struct.calcsize(fmt)))[0]

    def string() -> bytes:
        return take(int(scalar("Q")))  # type: ignore[call-overload]

    def value(kind: int) -> object:
        if kind in _GGUF_SCALARS:
            return scalar(_GGUF_SCALARS[kind])
        if kind == _GGUF_STRING:
            return string()
        if kind == _GGUF_ARRAY:
            element, count = scalar("I"), scalar("Q")
            if element == _GGUF_ARRAY:
                raise GgufReadError("nested array")
            if count > len(data):  # type: ignore[operator]
                raise GgufReadError(f"array of {count} elements in {len(data)} bytes")
            return [value(element) for _ in range(count)]  # type: ignore[arg-type, call-overload]
        raise GgufReadError(f"unknown value type {kind}")

    if take(4) != b"GGUF":
        raise GgufReadError("no GGUF magic")
    if scalar("I") not in (2, 3):
        raise GgufReadError("not GGUF version 2 or 3")
    scalar("Q")  # tensor count: the tensors are not read
    n_kv = scalar("Q")
    if n_kv > len(data):  # type: ignore[operator]
        raise GgufReadError(f"{n_kv} key-values in {len(data)} bytes")
    out: dict[bytes, object] = {}
    for _ in range(n_kv):  # type: ignore[call-overload]
        key = string()
        kind = scalar("I")
        out[key] = value(kind)  # type: ignore[arg-type]
    return out


def gpt2_token_bytes(text: str) -> bytes:
    """GPT-2's byte-level token text back to bytes: the printable bytes ``!``..``~``,
    ``¡``..``¬`` and ``®``..``ÿ`` stand for themselves, the other 68 bytes, in order, for
    U+0100, U+0101, ...  ``KeyError`` for a character outside the map."""
    printable = [*range(0x21, 0x7F), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    others = [b for b in range(256) if b not in printable]
    table = {chr(b): b for b in printable} | {chr(0x100 + k): b for k, b in enumerate(others)}
    return bytes(table[char] for char in text)
