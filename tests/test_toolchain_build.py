"""Module discovery, dependency order, source scan and output parsing of the proof build."""

import pytest

from verified_bpe.toolchain.build import (
    Builder,
    BuildError,
    Module,
    parse_imports,
    scan_forbidden,
    scan_imports,
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


# Each line gets a declaration past the kernel, or runs meta code that could (issue 33, item 4).
KERNEL_SKIPPING_LINES = [
    "set_option debug.skipKernelTC true in",
    "set_option  debug.byAsSorry true",
    "#eval Lean.addDeclWithoutChecking d",
    "#eval env.addDeclCore 0 d none",
    "def k (e : Lean.Kernel.Environment) := e",
    "def k (e : Kernel.Environment) := e",
    "run_cmd Lean.modifyEnv id",
    "run_elab pure ()",
    "run_meta pure ()",
    '@[extern "lean_f"] opaque f : Nat → Nat',
    "@[implemented_by g] def f (n : Nat) := n",
    "unsafe def f : Nat := 0",
]


@pytest.mark.parametrize("line", KERNEL_SKIPPING_LINES)
def test_scan_refuses_kernel_skipping(tmp_path, line):
    src = f"module\n/-! `set_option debug.skipKernelTC` named in a docstring -/\n{line}\n"
    hits = scan_forbidden(Module("T", tmp_path / "T.lean", [], src))
    assert len(hits) == 1 and ":3:" in hits[0]


def test_scan_imports_allows_core_and_project_only():
    m = Module("Bpe.X", "X.lean", ["Init.Data.List", "Std", "Bpe.Y", "Lean.Environment"], "")
    hits = scan_imports(m, {"Bpe.X", "Bpe.Y"})
    assert len(hits) == 1 and "Lean.Environment" in hits[0]


class _NoLean:
    """A runner that fails the test if the build gets as far as running Lean."""

    route = "wasm"
    toolchain_id = "none"
    cache = None

    def check(self, *args, **kwargs):  # pragma: no cover - reaching it is the failure
        raise AssertionError("the build ran Lean on a refused file")


@pytest.mark.parametrize(
    "body",
    [
        "set_option debug.skipKernelTC true in\ntheorem t : 1 = 2 := rfl\n",
        "public import Lean.AddDecl\ntheorem t : True := trivial\n",
    ],
)
def test_build_refuses_a_kernel_skipping_file(tmp_path, body):
    (tmp_path / "lean" / "Bpe").mkdir(parents=True)
    (tmp_path / "lean" / "Bpe" / "Ok.lean").write_text("module\ntheorem ok : True := trivial\n")
    (tmp_path / "lean" / "Bpe" / "Bad.lean").write_text("module\npublic import Bpe.Ok\n" + body)
    builder = Builder(tmp_path, _NoLean(), jobs=1, log=lambda *_: None, out_dir=tmp_path / "out")
    with pytest.raises(BuildError, match="Bad.lean"):
        builder.build()


def test_scan_ignores_lookalikes(tmp_path):
    src = (
        "theorem sorryFree : True := trivial\n-- collectAxioms axioms\ndef unsafeish := 1\n"
        "example : 2 = 2 := by decide +kernel\nset_option maxRecDepth 4000 in\n"
        "def debugKernelish := 1\n"
    )
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
