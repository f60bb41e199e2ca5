"""Run one Lean check, natively (`lean` on PATH) or offline (the wasm build under Node).

Both routes take the same arguments (a source file, an optional ``-o`` output and
the directories to search for imported ``.olean`` files) and return the same
:class:`CheckResult`: Lean's messages, parsed, with the wasm build's debug noise
removed.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from .install import install
from .locks import file_lock

MESSAGE_RE = re.compile(
    r"^(?P<file>[^\s:][^:\n]*):(?P<line>\d+):(?P<col>\d+): "
    r"(?P<severity>error|warning|info)(?:\([^)]*\))?: ?(?P<text>.*)$"
)
ECHO_MARKER = "Input file content (first 200 chars): "
ECHO_LENGTH = 200


@dataclass
class Message:
    file: str
    line: int
    col: int
    severity: str
    text: str

    def render(self) -> str:
        return f"{self.file}:{self.line}:{self.col}: {self.severity}: {self.text}"


@dataclass
class CheckResult:
    returncode: int
    messages: list[Message] = field(default_factory=list)
    output: str = ""
    seconds: float = 0.0
    peak_rss_kib: int = 0
    #: user + system CPU time of the Lean process (on a shared machine wall time overstates it)
    cpu_seconds: float = 0.0

    @property
    def errors(self) -> list[Message]:
        return [m for m in self.messages if m.severity == "error"]

    @property
    def sorry_warnings(self) -> list[Message]:
        return [
            m
            for m in self.messages
            if m.severity == "warning" and "declaration uses" in m.text and "sorry" in m.text
        ]

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.errors and not self.sorry_warnings


def filter_noise(raw: str, source: str = "") -> str:
    """Drop the wasm build's ``[DEBUG:…]`` lines, their indented continuations and
    the echo of the first 200 characters of the input file."""
    out: list[str] = []
    in_debug = False
    i = 0
    echo = source[:ECHO_LENGTH]
    while i < len(raw):
        j = raw.find("\n", i)
        j = len(raw) if j < 0 else j
        line = raw[i:j]
        if line.startswith("[DEBUG"):
            in_debug = True
            k = line.find(ECHO_MARKER)
            if k >= 0:
                start = i + k + len(ECHO_MARKER)
                if echo and raw.startswith(echo, start):
                    i = start + len(echo)
                    if i < len(raw) and raw[i] == "\n":
                        i += 1
                    continue
            i = j + 1
            continue
        if in_debug and line.startswith("  "):
            i = j + 1
            continue
        in_debug = False
        out.append(line)
        i = j + 1
    return "\n".join(out).strip("\n")


def parse_messages(text: str) -> list[Message]:
    """Parse Lean's ``file:line:col: severity: text`` messages (with continuation lines)."""
    messages: list[Message] = []
    for line in text.splitlines():
        m = MESSAGE_RE.match(line)
        if m:
            messages.append(
                Message(m["file"], int(m["line"]), int(m["col"]), m["severity"], m["text"])
            )
        elif messages and line.strip():
            messages[-1].text += "\n" + line
    return messages


#: Lean processes allowed at once on this machine, across every build, test and checkout
#: (each offline check takes a core and 3-5 GiB); ``LEAN_SLOTS`` overrides it.
DEFAULT_SLOTS = 2


@contextlib.contextmanager
def lean_slot() -> Iterator[int]:
    """Hold one of the machine's Lean slots (an exclusive ``flock`` on one of
    ``LEAN_SLOTS`` files in the temp directory) while a Lean process runs; wait if all
    are taken. Parallel builds, tests and other checkouts therefore never run more Lean
    processes than the slots allow.

    Waiters take turns: only the holder of the ``queue`` lock (a blocking ``flock``) looks
    for a free slot, and it lets the queue go once it has one. A build that frees a slot and
    asks again at once therefore queues behind the processes already waiting instead of
    taking the slot back before they poll (measured before: other checkouts waited 15-20 min)."""
    slots = max(1, int(os.environ.get("LEAN_SLOTS", DEFAULT_SLOTS)))
    lock_dir = Path(tempfile.gettempdir()) / "verified-bpe-lean-slots"
    lock_dir.mkdir(exist_ok=True)
    with file_lock(lock_dir / "queue"):
        index, held = _take_slot(lock_dir, slots)
    try:
        yield index
    finally:
        fcntl.flock(held, fcntl.LOCK_UN)
        held.close()


def _take_slot(lock_dir: Path, slots: int) -> tuple[int, IO[str]]:
    """Poll the slot files until one is free; return its index and its locked handle."""
    while True:
        for i in range(slots):
            fh = open(lock_dir / f"slot{i}", "a")  # noqa: SIM115 - closed by lean_slot
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                fh.close()
                continue
            return i, fh
        time.sleep(0.2)


def _run_timed(
    cmd: list[str], cwd: Path, env: dict[str, str]
) -> tuple[int, str, float, int, float]:
    """Run ``cmd`` in a Lean slot; return (exit code, combined output, seconds running, peak
    RSS of the process in KiB, CPU seconds of the process)."""
    with lean_slot():
        start = time.monotonic()
        proc = subprocess.Popen(
            cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
        )
        assert proc.stdout is not None
        out = proc.stdout.read()
        proc.stdout.close()
        _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.monotonic() - start
    cpu = usage.ru_utime + usage.ru_stime
    return proc.returncode, out.decode("utf-8", errors="replace"), seconds, usage.ru_maxrss, cpu


class LeanRunner:
    """Checks Lean files on one route. ``route`` is ``"native"`` or ``"wasm"``."""

    def __init__(self, repo: Path, cache: Path, route: str | None = None, log=print) -> None:
        self.repo = repo.resolve()
        self.cache = cache.resolve()
        native = shutil.which("lean")
        self.route = route or ("native" if native else "wasm")
        self.log = log
        self._wasm_root: Path | None = None
        if self.route == "native" and native is None:
            raise FileNotFoundError("route 'native' requested but no `lean` on PATH")

    @property
    def toolchain_id(self) -> str:
        """A string that changes when the Lean binary changes (part of the cache key)."""
        if self.route == "native":
            out = subprocess.run(["lean", "--version"], capture_output=True, text=True)
            return "native:" + out.stdout.strip()
        root = self.wasm_root()
        return "wasm:" + (root / "VERSION").read_text().strip()

    def wasm_root(self) -> Path:
        if self._wasm_root is None:
            self._wasm_root = install(self.cache, log=self.log)
        return self._wasm_root

    def command(self, source: Path, olean: Path | None) -> tuple[list[str], dict[str, str]]:
        env = dict(os.environ)
        args = [str(source)]
        if olean is not None:
            args += ["-o", str(olean)]
        if self.route == "native":
            return ["lean", *args], env
        root = self.wasm_root()
        # the toolchain directory may be a link into another checkout's cache: mount its target
        mounts = {str(self.repo), str(self.cache), str(root.resolve())}
        env["LEAN_WASM_MOUNTS"] = ":".join(sorted(mounts))
        node = shutil.which("node") or "node"
        return [node, "--stack-size=4000", str(root / "lean.js"), *args], env

    def check(self, source: Path, lean_path: list[Path], olean: Path | None = None) -> CheckResult:
        """Elaborate and kernel-check ``source`` (writing ``olean`` if given)."""
        cmd, env = self.command(source.resolve(), olean.resolve() if olean else None)
        paths = [str(p.resolve()) for p in lean_path]
        if self.route == "wasm":
            paths.insert(0, str(self.wasm_root() / "lib"))
        env["LEAN_PATH"] = os.pathsep.join(paths)
        # cwd must contain the source (Lean's rule); the wasm build drops a git-ignored
        # default.profraw there
        code, raw, seconds, rss, cpu = _run_timed(cmd, self.repo, env)
        text = filter_noise(raw, source.read_text()) if self.route == "wasm" else raw
        return CheckResult(code, parse_messages(text), text, seconds, rss, cpu)
