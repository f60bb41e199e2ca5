"""The native engine crate's own tests: ``cargo test --release --no-default-features`` in
``rust/`` (its unit tests, e.g. the shared batch memo against the heap, the ASCII fast path
against its mirror, the tiny-piece table against the rank table; and ``rust/tests/
fuzz_check.rs``, the cargo-fuzz target's checks on fixed inputs).  The fuzz checks on real
tables read cl100k_base and o200k_base as hex lines (docs/fuzzing.md), written here from the
package's offline vocabularies, the same files as tiktoken's.  They run with overflow checks
and debug assertions on, as the fuzz target's build does: a shift past 63 in the cl100k bulk
pre-tokenizer passed the release tests and panicked in the fuzzer's first minute (2026-11-29,
docs/fuzzing.md)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from verified_bpe.engine.vocab import load_ranks

RUST = Path(__file__).resolve().parents[1] / "rust"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("cargo") is None, reason="needs cargo"),
]


def write_hex_tables(folder: Path) -> None:
    """``<name>.hex``: one ``<hex bytes> <rank>`` line per token (the fuzz target's input)."""
    for name in ("cl100k_base", "o200k_base"):
        lines = (f"{token.hex()} {rank}\n" for token, rank in load_ranks(name).items())
        (folder / f"{name}.hex").write_text("".join(lines), encoding="ascii")


def test_crate_tests_pass(tmp_path):
    write_hex_tables(tmp_path)
    env = dict(
        os.environ,
        VBPE_FUZZ_VOCAB=str(tmp_path),
        CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS="true",
        CARGO_PROFILE_RELEASE_DEBUG_ASSERTIONS="true",
    )
    proc = subprocess.run(
        ["cargo", "test", "--release", "--no-default-features", "--quiet"],
        cwd=RUST,
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    passed = sum(
        int(line.split()[3]) for line in proc.stdout.splitlines() if line.startswith("test result")
    )
    assert passed >= 10, proc.stdout  # 8 unit tests (a 9th, every code point, ignored), 2 fuzz
