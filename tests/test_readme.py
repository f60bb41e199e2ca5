"""README.md stays true: its ```python blocks and its ```sh lines run as written (and
docs/python.md's "tiktoken offline" recipes), in a scratch folder, with ``python`` on ``PATH``
being this interpreter.  Lines that need the network, a checkout's Lean or minutes are in
:data:`SKIP`, each with its reason; every entry there must still be a README line.  A Python
block passes when it exits 0 (the blocks hold their own ``assert``s); a shell line when it
exits 0 with nothing on stderr."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

#: README shell lines not run here (matched from the start of the line), and why.
SKIP = {
    "make verify": "checks every Lean proof (minutes; CI runs it apart)",
    "make test": "the whole test suite",
    "python -m verified_bpe verify": "the same as make verify",
    "python -m verified_bpe bench": "minutes; tests/test_first_use.py runs a small bench",
}
#: Lines that read llama.cpp's files: run only when they are already fetched (no download).
NEEDS_TESTDATA = (
    "DIR=$(python -m verified_bpe.verify.testdata",
    'python -m verified_bpe encode --gguf "$DIR',
)

_FENCE = re.compile(r"^```(\w*)\s*$")


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """``(language, code)`` of every fenced block of a Markdown text."""
    blocks: list[tuple[str, str]] = []
    language: str | None = None
    lines: list[str] = []
    for line in text.splitlines():
        match = _FENCE.match(line)
        if language is None and match:
            language, lines = match.group(1), []
        elif language is not None and line.strip() == "```":
            blocks.append((language, "\n".join(lines) + "\n"))
            language = None
        elif language is not None:
            lines.append(line)
    return blocks


def section(text: str, heading: str) -> str:
    """The lines under ``heading`` up to the next heading of the same or a higher level."""
    lines = text.splitlines()
    start = lines.index(heading)
    level = len(heading) - len(heading.lstrip("#"))
    end = next(
        (i for i in range(start + 1, len(lines)) if re.match(rf"#{{1,{level}}} ", lines[i])),
        len(lines),
    )
    return "\n".join(lines[start:end])


def readme_blocks(language: str) -> list[str]:
    return [
        code for lang, code in fenced_blocks(README.read_text(encoding="utf-8")) if lang == language
    ]


def offline_blocks() -> list[str]:
    text = section(
        (ROOT / "docs" / "python.md").read_text(encoding="utf-8"), "### tiktoken offline"
    )
    return [code for lang, code in fenced_blocks(text) if lang == "python"]


def shell_lines() -> list[str]:
    return [
        line
        for code in readme_blocks("sh")
        for line in code.splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]


def _testdata_ready() -> bool:
    from verified_bpe.verify import testdata

    return (testdata.cache_dir() / f"llama.cpp-{testdata.SDIST_VERSION}" / ".extracted").exists()


@pytest.fixture
def scratch(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A working folder holding README.md, docs/, a corpus.txt, a data/ folder and a
    tokenizer.json, and an environment whose ``python`` is this interpreter; HOME and tiktoken's
    cache point inside the folder."""
    work = tmp_path / "work"
    work.mkdir()
    shutil.copy(README, work / "README.md")
    shutil.copytree(ROOT / "docs", work / "docs")
    words = README.read_text(encoding="utf-8").split()[:1500]
    (work / "corpus.txt").write_text(" ".join(words) + "\n", encoding="utf-8")
    (work / "data").mkdir()  # a folder for the corpus line: one .txt, one .jsonl
    (work / "data" / "a.txt").write_text(" ".join(words[:200]), encoding="utf-8")
    (work / "data" / "b.jsonl").write_text('{"text": "hello"}\n{"text": "world"}\n')
    from test_hf import small_json  # a small byte-level BPE file for the tokenizer.json example

    (work / "tokenizer.json").write_text(small_json(), encoding="utf-8")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "python"  # a script, not a symlink: a venv's python finds its venv
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n', encoding="utf-8")
    wrapper.chmod(0o755)
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(bin_dir), env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "python"), env.get("PYTHONPATH")]))
    env["HOME"] = str(tmp_path / "home")
    env["TIKTOKEN_CACHE_DIR"] = str(tmp_path / "tiktoken-cache")
    env.setdefault("VERIFIED_BPE_TIKTOKEN_TIMEOUT", "5")
    return work, env


def run_python(code: str, work: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``python -c code`` in the scratch folder, its output captured."""
    return subprocess.run(
        [sys.executable, "-c", code], cwd=work, env=env, capture_output=True, text=True, timeout=300
    )


def test_the_lists_are_current():
    """Every skipped line is still in README (else the entry is stale), and there is
    something to run."""
    lines = shell_lines()
    for prefix in (*SKIP, *NEEDS_TESTDATA):
        assert any(line.startswith(prefix) for line in lines), prefix
    assert len(readme_blocks("python")) >= 2 and len(offline_blocks()) == 2


@pytest.mark.parametrize("index", range(len(readme_blocks("python"))))
def test_readme_python_block(index, scratch):
    work, env = scratch
    code = readme_blocks("python")[index]
    proc = run_python(code, work, env)
    assert proc.returncode == 0, proc.stderr


def test_readme_shell_lines(scratch):
    """The shell lines, in order, in one shell (a variable set by one line is seen by the
    next), each checked on its own."""
    work, env = scratch
    ran = []
    skip_testdata = not _testdata_ready()
    script = ["set -e -o pipefail"]
    for line in shell_lines():
        if line.startswith(tuple(SKIP)) or (skip_testdata and line.startswith(NEEDS_TESTDATA)):
            continue
        ran.append(line)
        script += [
            f"echo {_quote('>>> ' + line)} >&2",
            line,
        ]
    proc = subprocess.run(
        ["bash", "-c", "\n".join(script)],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    errors = [x for x in proc.stderr.splitlines() if not x.startswith(">>> ")]
    assert not errors, proc.stderr
    assert len(ran) >= 6 + (0 if skip_testdata else len(NEEDS_TESTDATA))
    assert (work / "out" / "tok.model").is_file()  # the train line wrote its model
    assert "héllo" in proc.stdout  # encode | decode gave the text back


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def test_tiktoken_offline_recipes(scratch):
    """docs/python.md's two recipes: verified_bpe in tiktoken's place; then tiktoken itself,
    with every socket refused, reads the files the second recipe wrote and encodes."""
    pytest.importorskip("tiktoken")
    work, env = scratch
    for code in offline_blocks():
        proc = run_python(code, work, env)
        assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == env["TIKTOKEN_CACHE_DIR"]
    offline = (
        "import socket\n"
        "def refuse(*a, **k):\n"
        "    raise OSError('network disabled')\n"
        "socket.socket.connect = refuse\n"
        "socket.create_connection = refuse\n"
        "import tiktoken\n"
        "for name in ('cl100k_base', 'o200k_base'):\n"
        "    enc = tiktoken.get_encoding(name)\n"
        "    assert enc.decode(enc.encode('offline ok')) == 'offline ok'\n"
        "print(tiktoken.__file__)\n"
    )
    proc = run_python(offline, work, env)
    assert proc.returncode == 0, proc.stderr
    assert "verified_bpe" not in proc.stdout  # the real tiktoken
