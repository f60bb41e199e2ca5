"""Route 2 of the cross-check: the native executable `bpe-encode` (built by `lake` from
`lean/BpeExe/Main.lean`, a thin wrapper over `Bpe.Exec.runFiles`: the same compiled code route 3
runs under the offline interpreter) against tiktoken and the Python reference on the full
`cl100k_base` and `o200k_base` vocabularies.

Needs a native Lean toolchain (`lake` on PATH, e.g. from elan). Without one the module is
skipped: on machines without internet the offline routes are route 3
(`tests/test_crosscheck_exec.py`, compiled code run by the interpreter) and route 1
(`tests/test_crosscheck_lean.py`, kernel evaluation).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from verified_bpe.verify import exec_crosscheck as ec

REPO = Path(__file__).resolve().parents[1]
LAKE = shutil.which("lake")
if LAKE is None:  # pragma: no cover - depends on the machine
    pytest.skip(
        "no native `lake` on PATH: route 2 needs a native Lean toolchain (elan); the offline "
        "cross-checks are route 3 (tests/test_crosscheck_exec.py) and route 1 "
        "(tests/test_crosscheck_lean.py)",
        allow_module_level=True,
    )


@pytest.fixture(scope="module")
def exe() -> Path:
    from verified_bpe.toolchain.locks import file_lock

    with file_lock(REPO / ".cache" / "lake.lock"):  # one `lake build` at a time (test workers)
        subprocess.run([LAKE, "build", "bpe-encode"], cwd=REPO, check=True)
    path = REPO / ".lake" / "build" / "bin" / "bpe-encode"
    assert path.exists()
    return path


@pytest.mark.slow
@pytest.mark.parametrize("name", ec.ENCODINGS)
def test_compiled_lean_agrees_with_python_and_tiktoken(name, exe, tmp_path):
    tables = ec.load_tables(name)
    texts = ec.default_texts(5000, 3000, 2000)
    in_path, out_path = tmp_path / "in.txt", tmp_path / "out.txt"
    in_path.write_text(ec.render_input(tables, texts), encoding="ascii")
    subprocess.run([str(exe), str(in_path), str(out_path)], check=True, capture_output=True)
    got = [[int(x) for x in line.split()] for line in out_path.read_text().split("\n")[:-1]]
    enc = ec.oracle(tables)
    expected = [enc.encode_ordinary(t) for t in texts]
    assert not ec.mismatches(texts, got, expected)
    assert not ec.mismatches(texts, ec.reference_ids(tables, texts), expected)
