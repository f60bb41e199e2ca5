"""Export-section rewriting, on tiny wasm modules built by hand (Lean: none; toolchain)."""

import pytest

from verified_bpe.toolchain.wasm import (
    KIND_FUNC,
    KIND_GLOBAL,
    Export,
    WasmFormatError,
    encode_exports,
    join_sections,
    parse_exports,
    read_uleb,
    rewrite_exports,
    select_exports,
    split_sections,
    write_uleb,
)

HEADER = b"\x00asm\x01\x00\x00\x00"
# A type section (one `() -> ()` function type) that must come through untouched.
TYPE_SECTION = (1, b"\x01\x60\x00\x00")
CUSTOM_SECTION = (0, b"\x04name\xff\xfe")


def tiny_module(exports: list[Export]) -> bytes:
    return join_sections(HEADER, [TYPE_SECTION, (7, encode_exports(exports)), CUSTOM_SECTION])


@pytest.mark.parametrize("value", [0, 1, 127, 128, 300, 16383, 16384, 2**32 - 1])
def test_uleb_roundtrip(value):
    data = write_uleb(value)
    assert read_uleb(data, 0) == (value, len(data))


def test_uleb_known_encoding():
    # The example from the WebAssembly spec / DWARF: 624485 = E5 8E 26.
    assert write_uleb(624485) == bytes([0xE5, 0x8E, 0x26])


def test_rewrite_keeps_other_sections_and_required_exports():
    exports = [
        Export("initialize_Init", KIND_FUNC, 1),
        Export("l_Init_fn", KIND_FUNC, 2),
        Export("initialize_Std_Data", KIND_FUNC, 3),
        Export("l_glob", KIND_GLOBAL, 0),
        Export("l___private_Lean_x", KIND_FUNC, 10),
        Export("l_Lean_plain", KIND_FUNC, 11),
        Export("l_Lean_plain___boxed", KIND_FUNC, 12),
        Export("l_Lean_f_lam__0", KIND_FUNC, 13),
        Export("l_Lean_g_spec__1", KIND_FUNC, 14),
        Export("malloc", KIND_FUNC, 15),
    ]
    data = tiny_module(exports)
    new, before, after = rewrite_exports(data, limit=7)
    assert (before, after) == (10, 7)
    sections = split_sections(new)
    assert sections[0] == TYPE_SECTION and sections[2] == CUSTOM_SECTION
    kept = {e.name for e in parse_exports(sections[1][1])}
    # required: non-l_ names, l_ globals, l_ functions up to the last initialize_Std*
    assert {"initialize_Init", "l_Init_fn", "initialize_Std_Data", "l_glob", "malloc"} <= kept
    # then plain public names with their ___boxed variant, before private/_lam/_spec
    assert {"l_Lean_plain", "l_Lean_plain___boxed"} <= kept
    assert not kept & {"l___private_Lean_x", "l_Lean_f_lam__0", "l_Lean_g_spec__1"}


def test_select_keeps_original_order():
    exports = [Export(f"l_Lean_{i}", KIND_FUNC, 100 + i) for i in range(5)]
    exports.insert(2, Export("memory", 2, 0))
    kept = select_exports(exports, limit=3)
    assert [e.name for e in kept] == ["l_Lean_0", "l_Lean_1", "memory"]


def test_too_many_required_exports_is_an_error():
    exports = [Export(f"x{i}", KIND_FUNC, i) for i in range(5)]
    with pytest.raises(WasmFormatError):
        select_exports(exports, limit=4)


@pytest.mark.parametrize(
    "data",
    [b"", b"\x7fELF\x01\x00\x00\x00", HEADER + b"\x07\x10\x00"],  # bad magic, truncated
)
def test_malformed_input_raises(data):
    with pytest.raises(WasmFormatError):
        rewrite_exports(data)


def test_missing_export_section_raises():
    with pytest.raises(WasmFormatError):
        rewrite_exports(join_sections(HEADER, [TYPE_SECTION]))
