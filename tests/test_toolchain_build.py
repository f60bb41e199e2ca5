"""Module discovery, dependency order, source scan and output parsing of the proof build."""

import pytest

from verified_bpe.toolchain.build import (
    BuildError,
    Module,
    parse_imports,
    scan_forbidden,
    strip_comments,
    topo_order,
)
from verified_bpe.toolchain.runner import filter_noise, parse_messages


def mod(name, imports):
    return Module(name, None, imports, "")


def test_topo_order_respects_imports():
    modules = {
        "A.Top": mod("A.Top", ["A.Mid", "Init"]),
        "A.Mid": mod("A.Mid", ["A.Base", "Std.Data"]),
        "A.Base": mod("A.Base", []),
        "A.Side": mod("A.Side", ["A.Base"]),
    }
    order = topo_order(modules)
    assert sorted(order) == sorted(modules)
    for name, m in modules.items():
        for dep in m.imports:
            if dep in modules:
                assert order.index(dep) < order.index(name)


def test_topo_order_from_roots_is_their_import_closure():
    modules = {
        "A.Top": mod("A.Top", ["A.Mid", "Init"]),
        "A.Mid": mod("A.Mid", ["A.Base", "Std.Data"]),
        "A.Base": mod("A.Base", []),
        "A.Side": mod("A.Side", ["A.Base"]),
    }
    assert topo_order(modules, ["A.Top"]) == ["A.Base", "A.Mid", "A.Top"]
    assert topo_order(modules, ["A.Side"]) == ["A.Base", "A.Side"]


def test_topo_order_detects_cycles():
    modules = {"A": mod("A", ["B"]), "B": mod("B", ["C"]), "C": mod("C", ["A"])}
    with pytest.raises(BuildError, match="cycle"):
        topo_order(modules)


def test_parse_imports_variants_and_comments():
    src = (
        "module\n-- import Commented.Out\n/- import Block.Comment -/\n"
        "public import Bpe.Merge\nimport all Bpe.Shuffle\npublic meta import Lean.CoreM\n"
        "import Std\n"
    )
    assert parse_imports(src) == ["Bpe.Merge", "Bpe.Shuffle", "Lean.CoreM", "Std"]


def test_strip_comments_keeps_lines_and_code():
    src = (
        'def a := 1 -- sorry\n/- nested /- sorry -/ admit -/\ndef b := "sorry"\n'
        "theorem t : True := by sorry\n"
    )
    out = strip_comments(src)
    assert out.count("\n") == src.count("\n")
    assert "sorry" not in out.splitlines()[0]
    assert "admit" not in out
    assert out.splitlines()[-1].endswith("by sorry")


@pytest.mark.parametrize(
    "word", ["sorry", "admit", "native_decide", "axiom", "implemented_by", "extern", "unsafe"]
)
def test_scan_finds_each_forbidden_word(tmp_path, word):
    src = f"module\n/-! mentions {word} in a docstring -/\ntheorem t : True := by\n  {word}\n"
    hits = scan_forbidden(Module("T", tmp_path / "T.lean", [], src))
    assert len(hits) == 1 and ":4:" in hits[0] and word in hits[0]


def test_scan_ignores_lookalikes(tmp_path):
    src = "theorem sorryFree : True := trivial\n-- collectAxioms axioms\ndef unsafeish := 1\n"
    assert scan_forbidden(Module("T", tmp_path / "T.lean", [], src)) == []


RAW = """[DEBUG:A] lean_main entered, argc=2
[DEBUG:F] Input file content (first 200 chars): module
theorem t : 1 = 2 := by decide
[DEBUG:IMPORT] Emscripten detected
[DEBUG:FIND] Init: found 1 parts
  - /x/lib/Init.olean
  mainModule? = true
T.lean:2:24: error: decide proved that the proposition
  1 = 2
is false
T.lean:3:8: warning: declaration uses `sorry`
"""


def test_filter_noise_and_parse():
    source = "module\ntheorem t : 1 = 2 := by decide\n"
    text = filter_noise(RAW, source)
    assert "DEBUG" not in text and "mainModule" not in text and "Init.olean" not in text
    msgs = parse_messages(text)
    assert [(m.line, m.severity) for m in msgs] == [(2, "error"), (3, "warning")]
    assert "1 = 2" in msgs[0].text and "is false" in msgs[0].text


def test_lean_slots_bound_concurrent_checks(monkeypatch, tmp_path):
    """With LEAN_SLOTS=1 a second holder waits until the first lets go."""
    import threading

    from verified_bpe.toolchain import runner

    monkeypatch.setenv("LEAN_SLOTS", "1")
    monkeypatch.setattr(runner.tempfile, "gettempdir", lambda: str(tmp_path))
    events: list[str] = []
    first_in = threading.Event()

    def second() -> None:
        first_in.wait()
        with runner.lean_slot():
            events.append("second in")

    t = threading.Thread(target=second)
    t.start()
    with runner.lean_slot() as slot:
        assert slot == 0
        first_in.set()
        t.join(timeout=1.5)
        assert t.is_alive(), "the second holder got a slot while the only one was taken"
        events.append("first out")
    t.join(timeout=10)
    assert events == ["first out", "second in"]


def test_lean_slot_waiters_take_turns(monkeypatch, tmp_path):
    """A holder that lets go and asks again at once queues behind a process already waiting
    (before the queue lock, it took the slot back before the waiter's next poll)."""
    import threading
    import time

    from verified_bpe.toolchain import runner

    monkeypatch.setenv("LEAN_SLOTS", "1")
    monkeypatch.setattr(runner.tempfile, "gettempdir", lambda: str(tmp_path))
    events: list[str] = []

    def waiter() -> None:
        with runner.lean_slot():
            events.append("waiter in")
            time.sleep(0.3)

    t = threading.Thread(target=waiter)
    with runner.lean_slot():
        t.start()
        time.sleep(0.5)  # the waiter is polling by now
    with runner.lean_slot():
        events.append("holder again")
    t.join(timeout=10)
    assert events == ["waiter in", "holder again"]
