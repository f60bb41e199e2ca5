"""A small, fast reader of the metadata (key-value) section of a GGUF file.

GGUF (llama.cpp's model format, versions 2 and 3; little-endian): the magic ``GGUF``, a
``uint32`` version, ``uint64`` tensor count, ``uint64`` key count, then the keys: a string
(``uint64`` length + UTF-8 bytes), a ``uint32`` value type and the value.  Types: 0 uint8,
1 int8, 2 uint16, 3 int16, 4 uint32, 5 int32, 6 float32, 7 bool, 8 string, 9 array (``uint32``
element type, ``uint64`` count, elements), 10 uint64, 11 int64, 12 float64.

Why not ``gguf.GGUFReader``: it builds a numpy view per array element (hundreds of thousands
of tiny arrays for a tokenizer's token and merge lists) and maps the tensor section too; it
took minutes per vocabulary file.  This reader reads only the metadata, numeric arrays with
one ``struct``/``array`` call, and string arrays in one pass of ``struct.unpack_from``; it
stops before the tensor infos (so a multi-GB model costs no more than its metadata).
The file is memory-mapped; every read is bounds-checked, so a truncated or corrupt file
raises :class:`~verified_bpe.errors.MalformedGgufError` naming what was being read.
"""

from __future__ import annotations

import mmap
import os
import struct
import sys
from array import array
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..errors import MalformedGgufError

MAGIC = b"GGUF"

# value types
UINT8, INT8, UINT16, INT16, UINT32, INT32, FLOAT32, BOOL, STRING, ARRAY, UINT64, INT64, FLOAT64 = (
    range(13)
)

TYPE_NAMES = (
    "uint8", "int8", "uint16", "int16", "uint32", "int32", "float32",
    "bool", "string", "array", "uint64", "int64", "float64",
)  # fmt: skip

#: struct format of each fixed-size type (little-endian)
_FORMATS = {
    UINT8: "B", INT8: "b", UINT16: "H", INT16: "h", UINT32: "I", INT32: "i",
    FLOAT32: "f", BOOL: "?", UINT64: "Q", INT64: "q", FLOAT64: "d",
}  # fmt: skip

INTEGER_TYPES = frozenset({UINT8, INT8, UINT16, INT16, UINT32, INT32, UINT64, INT64})

#: Longest string accepted (a key or a value): more is a corrupt length field.
MAX_STRING = 1 << 30


@dataclass(frozen=True)
class GgufValue:
    """One metadata value: its type (for an array, ``element`` is the element type) and the
    Python value (``int``/``float``/``bool``/``str``, or a list of them)."""

    type: int
    value: Any
    element: int | None = None

    @property
    def type_name(self) -> str:
        """``"uint32"``, ``"string"``, ``"array/string"``..."""
        name = TYPE_NAMES[self.type]
        return name if self.element is None else f"{name}/{TYPE_NAMES[self.element]}"


class _Cursor:
    """Bounds-checked little-endian reads from a buffer."""

    def __init__(self, data: bytes | mmap.mmap | memoryview, offset: int = 0) -> None:
        self.data = data
        self.size = len(data)
        self.pos = offset

    def need(self, n: int, what: str) -> int:
        start = self.pos
        end = start + n
        if n < 0 or end > self.size:
            raise MalformedGgufError(
                f"truncated file: {what} needs bytes {start}..{end}, the file has {self.size}"
            )
        self.pos = end
        return start

    def fixed(self, kind: int, what: str) -> Any:
        fmt = "<" + _FORMATS[kind]
        start = self.need(struct.calcsize(fmt), what)
        return struct.unpack_from(fmt, self.data, start)[0]

    def string(self, what: str) -> str:
        n = self.fixed(UINT64, what)
        if n > MAX_STRING:
            raise MalformedGgufError(f"{what}: string length {n} is not plausible")
        start = self.need(n, what)
        try:
            return bytes(self.data[start : start + n]).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise MalformedGgufError(f"{what} is not valid UTF-8: {exc}") from None

    def strings(self, count: int, what: str) -> list[str]:
        """``count`` strings, read in one loop (the hot path for token and merge lists):
        the slices first (a short slice at the end of the data shows as ``pos > size``),
        then one ``map`` of ``bytes.decode``."""
        data, size, pos = self.data, self.size, self.pos
        unpack = struct.Struct("<Q").unpack_from
        raw: list[bytes] = []
        append = raw.append
        try:
            for _ in range(count):
                (n,) = unpack(data, pos)
                pos += 8
                append(data[pos : pos + n])
                pos += n
        except (struct.error, OverflowError):  # a length beyond the file (or beyond ssize_t)
            pos = size + 1
        if pos > size:
            index = len(raw) - (pos != size + 1 or len(raw) == count)
            raise MalformedGgufError(
                f"truncated file: {what}[{max(index, 0)}] runs past the end of the file "
                f"({size} bytes)"
            )
        try:
            out = list(map(bytes.decode, raw))
        except UnicodeDecodeError as exc:
            bad = next(i for i, b in enumerate(raw) if not _is_utf8(b))
            raise MalformedGgufError(f"{what}[{bad}] is not valid UTF-8: {exc}") from None
        self.pos = pos
        return out

    def numbers(self, kind: int, count: int, what: str) -> list[Any]:
        fmt = _FORMATS[kind]
        width = struct.calcsize(fmt)
        start = self.need(width * count, what)
        chunk = bytes(self.data[start : start + width * count])
        if kind == BOOL:
            return [b != 0 for b in chunk]
        values = array(fmt)
        values.frombytes(chunk)
        if sys.byteorder == "big":  # pragma: no cover
            values.byteswap()
        return values.tolist()

    def value(self, kind: int, what: str) -> GgufValue:
        if kind == STRING:
            return GgufValue(STRING, self.string(what))
        if kind in _FORMATS:
            return GgufValue(kind, self.fixed(kind, what))
        if kind != ARRAY:
            raise MalformedGgufError(f"{what}: unknown value type {kind}")
        element = self.fixed(UINT32, what)
        count = self.fixed(UINT64, what)
        if element == STRING:
            if count * 8 > self.size - self.pos:
                raise MalformedGgufError(f"truncated file: {what} claims {count} strings")
            return GgufValue(ARRAY, self.strings(count, what), STRING)
        if element in _FORMATS:
            return GgufValue(ARRAY, self.numbers(element, count, what), element)
        if element == ARRAY:
            items = [self.value(ARRAY, f"{what}[{i}]").value for i in range(count)]
            return GgufValue(ARRAY, items, ARRAY)
        raise MalformedGgufError(f"{what}: unknown array element type {element}")


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def parse_metadata(
    data: bytes | mmap.mmap | memoryview, keep: Iterable[str] | None = None
) -> dict[str, GgufValue]:
    """The metadata of the GGUF file held in ``data``: ``{key: value}``; with ``keep``, only
    those keys (the others are still parsed, to find where the next key starts: a string
    array must be walked anyway)."""
    wanted = None if keep is None else frozenset(keep)
    if isinstance(data, memoryview):
        data = data.tobytes()  # slices must be bytes (they are decoded)
    cur = _Cursor(data)
    start = cur.need(4, "the magic")
    magic = bytes(data[start : start + 4])
    if magic != MAGIC:
        raise MalformedGgufError(f"not a GGUF file: magic {magic!r}, expected {MAGIC!r}")
    version = cur.fixed(UINT32, "the version")
    if version not in (2, 3):
        hint = " (a big-endian file?)" if version > 0xFFFF else ""
        raise MalformedGgufError(f"GGUF version {version} is not supported (2 or 3){hint}")
    cur.fixed(UINT64, "the tensor count")
    n_keys = cur.fixed(UINT64, "the key count")
    if n_keys > cur.size:
        raise MalformedGgufError(f"key count {n_keys} is not plausible")
    out: dict[str, GgufValue] = {}
    for index in range(n_keys):
        key = cur.string(f"key {index}")
        kind = cur.fixed(UINT32, f"the type of {key!r}")
        if wanted is not None and key not in wanted and kind != ARRAY:
            _skip(cur, kind, key)
            continue
        value = cur.value(kind, repr(key))
        if wanted is None or key in wanted:
            if key in out:
                raise MalformedGgufError(f"key {key!r} appears twice")
            out[key] = value
    return out


def _skip(cur: _Cursor, kind: int, key: str) -> None:
    if kind == STRING:
        n = cur.fixed(UINT64, repr(key))
        cur.need(n, repr(key))
    elif kind in _FORMATS:
        cur.need(struct.calcsize(_FORMATS[kind]), repr(key))
    else:
        raise MalformedGgufError(f"{key!r}: unknown value type {kind}")


def read_metadata(
    path: str | os.PathLike[str], keep: Iterable[str] | None = None
) -> dict[str, GgufValue]:
    """:func:`parse_metadata` of the file at ``path`` (memory-mapped: the tensor data is
    never read).  ``OSError`` if it cannot be opened; an empty file is malformed."""
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size == 0:
            raise MalformedGgufError("not a GGUF file: it is empty")
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            return parse_metadata(mapped, keep)


__all__ = ["GgufValue", "parse_metadata", "read_metadata"]
