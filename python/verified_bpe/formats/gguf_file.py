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

Hostile files (issue 35): :class:`GgufMetadata` first indexes the section in a pass that
builds no value (arrays nested at most :data:`MAX_DEPTH` deep; every count checked against
the bytes left before anything is read; runs of empty elements, a sparse file's holes
included, skipped at once), then reads each key the caller needs after checking its type.
"""

from __future__ import annotations

import mmap
import os
import struct
import sys
from array import array
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
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


#: Deepest nesting of arrays accepted (an array of arrays is depth 2; llama.cpp's own reader
#: accepts no nesting at all): deeper is a corrupt or hostile file, refused with a typed error
#: instead of a ``RecursionError``.
MAX_DEPTH = 8

#: Fewest bytes a key-value pair takes: an empty key (8), its type (4), a 1-byte value.
_MIN_PAIR = 13
#: Bytes of an empty string (its length) and of an empty array (element type and count).
_EMPTY_STRING, _EMPTY_ARRAY = 8, 12
_U64, _ARRAY_HEAD = struct.Struct("<Q"), struct.Struct("<IQ")


class _Cursor:
    """Bounds-checked little-endian reads from a buffer."""

    def __init__(
        self, data: bytes | mmap.mmap | memoryview, offset: int = 0, fd: int | None = None
    ) -> None:
        self.data = data
        self.size = len(data)
        self.pos = offset
        self.fd = fd  # the mapped file's descriptor, to find its holes

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

    def check_count(self, count: int, width: int, what: str) -> None:
        """Refuse ``count`` elements of at least ``width`` bytes each that the bytes left
        cannot hold, before anything is read or allocated."""
        if count * width > self.size - self.pos:
            raise MalformedGgufError(
                f"truncated file: {what} claims {count} elements of at least {width} bytes, "
                f"{self.size - self.pos} bytes are left"
            )

    def zero_run(self, limit: int) -> int:
        """How many zero bytes start at the cursor (at most ``limit``): a run of empty
        strings or empty arrays is skipped in one step, not element by element.  A sparse
        file's holes are found by ``lseek(SEEK_DATA/SEEK_HOLE)`` without reading them (a
        hole read through the map costs a page fault per page); data is scanned by C-level
        ``lstrip`` over doubling chunks."""
        end = self.pos + limit
        at = self.pos
        chunk = 64
        while at < end:
            data_at, hole_at = _extent(self.fd, at, self.size)
            if data_at > at:  # a hole: zeros without reading
                at = min(end, data_at)
                continue
            stop = min(end, hole_at, at + chunk)
            piece = self.data[at:stop]
            stripped = piece.lstrip(b"\0")
            at += len(piece) - len(stripped)
            if stripped or not piece:
                break
            chunk = min(2 * chunk, 1 << 20)
        return at - self.pos

    def raw_strings(self, count: int, what: str, stop_at_empty: bool = False) -> list[bytes]:
        """The bytes of ``count`` strings, read in one loop (the hot path for token and
        merge lists; a short slice at the end of the data shows as ``pos > size``).  With
        ``stop_at_empty`` the loop stops at the first empty string (the list is then
        shorter than ``count`` and the cursor at that string): a sparse file's hole is not
        read element by element."""
        self.check_count(count, _EMPTY_STRING, what)
        data, size, pos = self.data, self.size, self.pos
        unpack = _U64.unpack_from
        raw: list[bytes] = []
        append = raw.append
        try:
            for _ in range(count):
                (n,) = unpack(data, pos)
                if not n and stop_at_empty:
                    break
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
        self.pos = pos
        return raw

    def strings(self, count: int, what: str, nonempty: bool = False) -> list[str]:
        """``count`` strings (:meth:`raw_strings`, then :func:`_decode`); with ``nonempty``
        the first empty one is refused where it is met."""
        raw = self.raw_strings(count, what, stop_at_empty=nonempty)
        if len(raw) < count:
            raise MalformedGgufError(f"{what}[{len(raw)}] is empty")
        return _decode(raw, what)

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

    def value(self, kind: int, what: str, depth: int = 1) -> GgufValue:
        """The value of type ``kind`` at the cursor (an array at nesting ``depth``; arrays
        nested at most :data:`MAX_DEPTH` deep)."""
        if kind == STRING:
            return GgufValue(STRING, self.string(what))
        if kind in _FORMATS:
            return GgufValue(kind, self.fixed(kind, what))
        if kind != ARRAY:
            raise MalformedGgufError(f"{what}: unknown value type {kind}")
        element = self.fixed(UINT32, what)
        count = self.fixed(UINT64, what)
        if element == STRING:
            return GgufValue(ARRAY, self.strings(count, what), STRING)
        if element in _FORMATS:
            return GgufValue(ARRAY, self.numbers(element, count, what), element)
        if element == ARRAY:
            _check_depth(depth + 1, what)
            self.check_count(count, _EMPTY_ARRAY, what)
            items = [self.value(ARRAY, f"{what}[{i}]", depth + 1).value for i in range(count)]
            return GgufValue(ARRAY, items, ARRAY)
        raise MalformedGgufError(f"{what}: unknown array element type {element}")

    def skip(self, kind: int, what: str) -> None:
        """Step over a value of type ``kind`` without building it: bounds and types checked,
        nothing allocated per element (runs of empty strings or arrays in one step)."""
        if kind == STRING:
            self.need(self.fixed(UINT64, what), what)
        elif kind in _FORMATS:
            self.need(struct.calcsize(_FORMATS[kind]), what)
        elif kind == ARRAY:
            self.skip_elements(self.fixed(UINT32, what), self.fixed(UINT64, what), what, 1)
        else:
            raise MalformedGgufError(f"{what}: unknown value type {kind}")

    def skip_elements(self, element: int, count: int, what: str, depth: int) -> None:
        """Step over ``count`` array elements of type ``element`` (the array at ``depth``)."""
        if element in _FORMATS:
            self.need(struct.calcsize(_FORMATS[element]) * count, what)
            return
        if element not in (STRING, ARRAY):
            raise MalformedGgufError(f"{what}: unknown array element type {element}")
        if element == ARRAY:
            _check_depth(depth + 1, what)
        width = _EMPTY_STRING if element == STRING else _EMPTY_ARRAY
        self.check_count(count, width, what)
        data, size = self.data, self.size
        unpack = _U64.unpack_from if element == STRING else _ARRAY_HEAD.unpack_from
        done = 0
        while done < count:  # the hot loop of a skipped token list: lengths only
            head = unpack(data, self.pos)  # in bounds: check_count, and the checks below
            if not any(head):  # an empty string or array: a run of them in one step
                run = self.zero_run(width * (count - done)) // width
                self.pos += width * run
                done += run
                continue
            if element == STRING:
                self.pos += 8 + head[0]
                if self.pos > size:
                    raise MalformedGgufError(
                        f"truncated file: {what}[{done}] runs past the end of the file "
                        f"({size} bytes)"
                    )
            else:
                self.pos += _EMPTY_ARRAY
                self.skip_elements(*head, f"{what}[{done}]", depth + 1)
            done += 1
            if self.pos + width * (count - done) > size:
                self.check_count(count - done, width, what)


def _extent(fd: int | None, at: int, size: int) -> tuple[int, int]:
    """``(first data offset >= at, first hole offset >= at)`` of the file ``fd``, or
    ``(at, size)`` (all data) without one or where the system cannot tell."""
    seek_data = getattr(os, "SEEK_DATA", None)
    if fd is None or seek_data is None:
        return at, size
    try:
        data_at = os.lseek(fd, at, seek_data)
    except OSError:  # ENXIO: nothing but a hole up to the end
        return size, size
    if data_at > at:
        return min(data_at, size), size
    try:
        return at, min(size, os.lseek(fd, at, os.SEEK_HOLE))
    except OSError:  # pragma: no cover - SEEK_DATA without SEEK_HOLE
        return at, size


def _check_depth(depth: int, what: str) -> None:
    if depth > MAX_DEPTH:
        raise MalformedGgufError(
            f"{what}: arrays nested more than {MAX_DEPTH} deep are not supported"
        )


def _decode(raw: list[bytes], what: str) -> list[str]:
    """Every string of ``raw`` decoded as UTF-8 (one ``map`` of ``bytes.decode``)."""
    try:
        return list(map(bytes.decode, raw))
    except UnicodeDecodeError as exc:
        bad = next(i for i, b in enumerate(raw) if not _is_utf8(b))
        raise MalformedGgufError(f"{what}[{bad}] is not valid UTF-8: {exc}") from None


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


@dataclass(frozen=True)
class _Entry:
    """Where a key's value is: its type, for an array the element type and count, and the
    offset of the value (after the type field)."""

    type: int
    element: int | None
    count: int | None
    offset: int

    @property
    def type_name(self) -> str:
        name = TYPE_NAMES[self.type]
        return name if self.element is None else f"{name}/{_type_name(self.element)}"


def _type_name(kind: int) -> str:
    return TYPE_NAMES[kind] if 0 <= kind < len(TYPE_NAMES) else f"type {kind}"


class GgufMetadata:
    """The key-value section of a GGUF file held in ``data``, indexed in one pass that
    steps over every value without building it (bounded nesting, counts checked against
    the bytes left, runs of empty elements skipped at once: time linear in the section,
    nothing allocated per element).  Values are then read one key at a time, each checked
    against the type its key needs *before* it is read (:meth:`string`, :meth:`integer`,
    :meth:`boolean`, :meth:`strings`, :meth:`integers`, :meth:`numbers`), or as they are
    (:meth:`value`).  Every problem: :class:`~verified_bpe.errors.MalformedGgufError`."""

    def __init__(
        self,
        data: bytes | mmap.mmap | memoryview,
        fd: int | None = None,
        wanted: Iterable[str] = (),
    ) -> None:
        if isinstance(data, memoryview):
            data = data.tobytes()  # slices must be bytes (they are decoded)
        self._data = data
        cur = _Cursor(data, fd=fd)
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
        if n_keys * _MIN_PAIR > cur.size - cur.pos:
            raise MalformedGgufError(f"key count {n_keys} is not plausible")
        self._entries: dict[str, _Entry] = {}
        #: the bytes of the wanted string arrays, kept from the indexing pass (read once);
        #: shorter than the array if it has an empty string (there the pass stopped)
        self._raw: dict[str, list[bytes]] = {}
        wanted = frozenset(wanted)
        for index in range(n_keys):
            key = cur.string(f"key {index}")
            kind = cur.fixed(UINT32, f"the type of {key!r}")
            if key in self._entries:
                raise MalformedGgufError(f"key {key!r} appears twice")
            offset = cur.pos
            element = count = None
            if kind == ARRAY:
                element = cur.fixed(UINT32, repr(key))
                count = cur.fixed(UINT64, repr(key))
                done = 0
                if element == STRING and key in wanted:
                    self._raw[key] = cur.raw_strings(count, repr(key), stop_at_empty=True)
                    done = len(self._raw[key])
                cur.skip_elements(element, count - done, repr(key), 1)
            else:
                cur.skip(kind, repr(key))
            self._entries[key] = _Entry(kind, element, count, offset)

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def keys(self) -> list[str]:
        """The keys, in file order."""
        return list(self._entries)

    def type_name(self, key: str) -> str:
        """``"uint32"``, ``"string"``, ``"array/string"``..."""
        return self._entries[key].type_name

    def value(self, key: str) -> GgufValue:
        """The value of ``key`` as it is in the file (``KeyError`` if absent)."""
        entry = self._entries[key]
        return _Cursor(self._data, entry.offset).value(entry.type, repr(key))

    # ------------------------------------------------------------------ typed reads
    def _entry(self, key: str, required: bool) -> _Entry | None:
        entry = self._entries.get(key)
        if entry is None and required:
            raise MalformedGgufError(f"missing key {key!r}")
        return entry

    def _wrong(self, key: str, entry: _Entry, needed: str) -> MalformedGgufError:
        return MalformedGgufError(f"{key!r} must be {needed}, not {entry.type_name}")

    def string(self, key: str, required: bool = False) -> str | None:
        """A ``string`` value (``None`` if absent and not ``required``)."""
        entry = self._entry(key, required)
        if entry is None:
            return None
        if entry.type != STRING:
            raise self._wrong(key, entry, "a string")
        return _Cursor(self._data, entry.offset).string(repr(key))

    def integer(self, key: str) -> int | None:
        """An integer value of any width (``None`` if absent)."""
        entry = self._entry(key, False)
        if entry is None:
            return None
        if entry.type not in INTEGER_TYPES:
            raise self._wrong(key, entry, "an integer")
        return int(_Cursor(self._data, entry.offset).fixed(entry.type, repr(key)))

    def boolean(self, key: str) -> bool | None:
        """A ``bool`` value (``None`` if absent): a string ``"false"`` or a number is
        refused, as llama.cpp refuses it."""
        entry = self._entry(key, False)
        if entry is None:
            return None
        if entry.type != BOOL:
            raise self._wrong(key, entry, "a bool")
        return bool(_Cursor(self._data, entry.offset).fixed(BOOL, repr(key)))

    def _array(
        self, key: str, required: bool, elements: frozenset[int], needed: str, per_token: int | None
    ) -> tuple[_Entry, _Cursor] | None:
        """The entry of an array whose elements have one of the types ``elements`` and, with
        ``per_token``, exactly that many of them; a cursor at its first element."""
        entry = self._entry(key, required)
        if entry is None:
            return None
        if entry.type != ARRAY:
            raise self._wrong(key, entry, "an array")
        assert entry.count is not None
        if entry.count and entry.element not in elements:
            raise self._wrong(key, entry, f"an array of {needed}")
        if per_token is not None and entry.count != per_token:
            raise MalformedGgufError(f"{key!r} has {entry.count} entries for {per_token} tokens")
        return entry, _Cursor(self._data, entry.offset + _EMPTY_ARRAY)

    def strings(
        self,
        key: str,
        required: bool = False,
        nonempty: bool = False,
        per_token: int | None = None,
    ) -> list[str] | None:
        """An array of strings (``None`` if absent and not ``required``); with ``nonempty``
        an empty element is refused where it is met."""
        found = self._array(key, required, frozenset({STRING}), "strings", per_token)
        if found is None:
            return None
        entry, cur = found
        assert entry.count is not None
        raw = self._raw.pop(key, None)
        if raw is None or (len(raw) < entry.count and not nonempty):
            return cur.strings(entry.count, repr(key), nonempty) if entry.count else []
        if len(raw) < entry.count:
            raise MalformedGgufError(f"{key!r}[{len(raw)}] is empty")
        return _decode(raw, repr(key))

    def integers(self, key: str, per_token: int | None = None) -> list[int] | None:
        """An array of integers of any width (``None`` if absent)."""
        found = self._array(key, False, INTEGER_TYPES, "integers", per_token)
        return None if found is None else self._numbers(key, *found)

    def numbers(
        self, key: str, required: bool = False, per_token: int | None = None
    ) -> list[float] | None:
        """An array of integers or floats (not ``bool``; ``None`` if absent and not
        ``required``)."""
        found = self._array(key, required, NUMBER_TYPES, "numbers", per_token)
        return None if found is None else self._numbers(key, *found)

    def _numbers(self, key: str, entry: _Entry, cur: _Cursor) -> list[Any]:
        if not entry.count:
            return []
        assert entry.element is not None
        return cur.numbers(entry.element, entry.count, repr(key))


NUMBER_TYPES = INTEGER_TYPES | {FLOAT32, FLOAT64}


def parse_metadata(
    data: bytes | mmap.mmap | memoryview, keep: Iterable[str] | None = None
) -> dict[str, GgufValue]:
    """The metadata of the GGUF file held in ``data``: ``{key: value}``; with ``keep``, only
    those keys (the others are stepped over without being built)."""
    meta = GgufMetadata(data)
    wanted = meta.keys() if keep is None else [key for key in keep if key in meta]
    return {key: meta.value(key) for key in wanted}


@contextmanager
def open_metadata(
    path: str | os.PathLike[str], wanted: Iterable[str] = ()
) -> Iterator[GgufMetadata]:
    """The :class:`GgufMetadata` of the file at ``path``, memory-mapped for the block (the
    tensor data is never read); the string arrays of the ``wanted`` keys are read in the
    indexing pass (not walked twice).  ``OSError`` if it cannot be opened; an empty file is
    malformed."""
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size == 0:
            raise MalformedGgufError("not a GGUF file: it is empty")
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            yield GgufMetadata(mapped, f.fileno(), wanted)


def read_metadata(
    path: str | os.PathLike[str], keep: Iterable[str] | None = None
) -> dict[str, GgufValue]:
    """:func:`parse_metadata` of the file at ``path`` (:func:`open_metadata`)."""
    with open_metadata(path) as meta:
        wanted = meta.keys() if keep is None else [key for key in keep if key in meta]
        return {key: meta.value(key) for key in wanted}


__all__ = [
    "MAX_DEPTH",
    "GgufMetadata",
    "GgufValue",
    "open_metadata",
    "parse_metadata",
    "read_metadata",
]
