"""Axiom-audit parsing and classification (no Lean run)."""

from pathlib import Path

from verified_bpe.toolchain.audit import (
    Leaf,
    classify,
    headline_theorems,
    native_audit_source,
    parse_native_audit,
    parse_wasm_audit,
    wasm_audit_source,
)

REPO = Path(__file__).resolve().parents[1]
PROJECT = {"Bpe.Merge", "Bpe.Roundtrip"}


def test_headline_list_names_the_main_theorems():
    names = headline_theorems(REPO)
    assert "Bpe.ascii_bpe_roundtrip" in names and "Bpe.bpe_roundtrip" in names
    assert all(not n.startswith("#") for n in names)


def test_end_to_end_theorem_is_listed_first():
    """Issue 22, step 5: the statement that the encoder is tiktoken's comes first."""
    assert headline_theorems(REPO)[0] == "Bpe.Regex.encodeCl100k_eq_tiktokenEncodeOrdinary"


def test_parse_wasm_output():
    out = (
        '"AUDIT Bpe.t propext|axiom|Init.Core;Nat.lt_irrefl|axiom|Init.Prelude;"\n"AUDIT Bpe.u "\n'
    )
    found = parse_wasm_audit(out)
    assert found["Bpe.t"] == [
        Leaf("propext", "axiom", "Init.Core"),
        Leaf("Nat.lt_irrefl", "axiom", "Init.Prelude"),
    ]
    assert found["Bpe.u"] == []


def test_parse_native_output():
    out = (
        "'Bpe.t' depends on axioms: [propext, Classical.choice,\n Quot.sound]\n"
        "'Bpe.u' does not depend on any axioms\n"
    )
    found = parse_native_audit(out)
    assert [leaf.name for leaf in found["Bpe.t"]] == ["propext", "Classical.choice", "Quot.sound"]
    assert found["Bpe.u"] == []


def test_classify_allows_the_three_and_opaque_core_lemmas():
    leaves = [
        Leaf("propext", "axiom", "Init.Core"),
        Leaf("Quot.sound", "axiom", "Init.Core"),
        Leaf("List.take_append_drop", "axiom", "Init.Data.List.TakeDrop"),
    ]
    shown, problems = classify("t", leaves, PROJECT)
    assert problems == []
    assert shown[:2] == ["Quot.sound", "propext"] and "1 core lemmas" in shown[2]


def test_classify_rejects_sorry_native_decide_and_project_axioms():
    for leaf in [
        Leaf("sorryAx", "axiom", "Init.Prelude"),
        Leaf("Lean.ofReduceBool", "axiom", "Init.Core"),
        Leaf("Bpe.cheat", "axiom", "Bpe.Merge"),
        Leaf("cheat", "axiom", "<current>"),
        Leaf("Mathlib.foo", "axiom", "Mathlib.Foo"),
    ]:
        _, problems = classify("t", [leaf], PROJECT)
        assert len(problems) == 1 and leaf.name in problems[0]


def test_generated_sources():
    wasm = wasm_audit_source(["Bpe", "Bpe.Merge"], ["Bpe.bytesToString?_stringBytes"])
    assert wasm.startswith("module") and "import all Bpe.Merge" in wasm
    assert "``Bpe.«bytesToString?_stringBytes»" in wasm
    native = native_audit_source(["Bpe"], ["Bpe.bpe_roundtrip"])
    assert "module" not in native and "#print axioms Bpe.bpe_roundtrip" in native
