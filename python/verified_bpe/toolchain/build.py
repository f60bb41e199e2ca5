"""The proof-checking build: every module under ``lean/``, in dependency order, cached.

``build()`` resolves the import graph, checks each module with ``lean -o`` (at most
``jobs`` at once), reuses outputs whose source and dependency hashes are unchanged,
fails on any Lean error, any ``declaration uses 'sorry'`` warning, any forbidden word found
by a source scan (``sorry``, ``native_decide``, ``axiom``, ``extern``, ``unsafe``… and the
kernel-skipping options and functions: ``set_option debug.skipKernelTC``,
``addDeclWithoutChecking``…) and any import outside ``Init``, ``Std`` and the project, then
audits the axioms of the headline theorems (:mod:`.audit`) and returns a :class:`Report`.
"""

from __future__ import annotations

import hashlib
import re
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

from .locks import file_lock
from .runner import CheckResult, LeanRunner

BUILD_VERSION = "1"
IMPORT_RE = re.compile(r"^\s*(?:public\s+)?(?:meta\s+)?import\s+(?:all\s+)?([\w.]+)", re.M)
FORBIDDEN_WORDS = ("sorry", "admit", "native_decide", "axiom", "implemented_by", "extern", "unsafe")
# Ways to get a declaration past the kernel, or to run meta code that could: the option that
# skips the kernel's type check (`set_option debug.skipKernelTC true`) and every other
# `debug.` option, the environment functions that add a declaration unchecked, direct use of
# the kernel's environment, and commands that run meta code in the file.
KERNEL_SKIPPING = (
    "skipKernelTC",
    "addDeclWithoutChecking",
    "addDeclCore",
    "Kernel.Environment",
    "Lean.Kernel",
    "run_cmd",
    "run_elab",
    "run_meta",
)
FORBIDDEN_RE = re.compile(
    r"\b("
    + "|".join(re.escape(w) for w in FORBIDDEN_WORDS + KERNEL_SKIPPING)
    + r"|set_option\s+debug\.[\w.]*)(?!\w)"
)
# A proof module imports only core's `Init`/`Std` and the project's own modules: without
# `Lean` (the elaborator's library) no code in the file can reach the environment.
TRUSTED_IMPORT_ROOTS = ("Init", "Std")


class BuildError(RuntimeError):
    """The build failed; the message names the file and line."""


@dataclass
class Module:
    name: str
    path: Path
    imports: list[str]
    source: str


@dataclass
class Report:
    checked: list[tuple[str, float, int]] = field(default_factory=list)  # name, seconds, KiB
    reused: list[str] = field(default_factory=list)
    audited: list[tuple[str, list[str]]] = field(default_factory=list)
    seconds: float = 0.0
    route: str = ""

    def render(self) -> str:
        lines = [f"route: {self.route}"]
        for name, secs, rss in self.checked:
            lines.append(f"  checked  {name:<28} {secs:7.1f} s  {rss / 1048576:5.2f} GiB peak")
        for name in self.reused:
            lines.append(f"  cached   {name}")
        lines.append(
            f"modules: {len(self.checked) + len(self.reused)} "
            f"({len(self.checked)} checked, {len(self.reused)} reused from cache)"
        )
        for thm, axioms in self.audited:
            lines.append(f"  axioms   {thm}: {', '.join(axioms) if axioms else '(none)'}")
        lines.append(f"theorems audited: {len(self.audited)}")
        lines.append(f"time: {self.seconds:.1f} s")
        return "\n".join(lines)


def module_name(lean_dir: Path, path: Path) -> str:
    return ".".join(path.relative_to(lean_dir).with_suffix("").parts)


def parse_imports(source: str) -> list[str]:
    """Module names imported by the header of ``source`` (comments stripped)."""
    return IMPORT_RE.findall(strip_comments(source))


def discover(lean_dir: Path) -> dict[str, Module]:
    modules: dict[str, Module] = {}
    for path in sorted(lean_dir.rglob("*.lean")):
        source = path.read_text()
        name = module_name(lean_dir, path)
        modules[name] = Module(name, path, parse_imports(source), source)
    return modules


def topo_order(modules: dict[str, Module], roots: list[str] | None = None) -> list[str]:
    """Project modules in dependency order (imports outside the project are ignored): all of
    them, or ``roots`` and the modules they import.

    Raises BuildError on an import cycle.
    """
    order: list[str] = []
    state: dict[str, int] = {}  # 1 = visiting, 2 = done

    def visit(name: str, stack: list[str]) -> None:
        if state.get(name) == 2:
            return
        if state.get(name) == 1:
            cycle = " -> ".join([*stack[stack.index(name) :], name])
            raise BuildError(f"import cycle: {cycle}")
        state[name] = 1
        for dep in modules[name].imports:
            if dep in modules:
                visit(dep, [*stack, name])
        state[name] = 2
        order.append(name)

    for name in sorted(modules) if roots is None else roots:
        visit(name, [])
    return order


def strip_comments(source: str) -> str:
    """Blank out Lean comments (``--`` and nested ``/- -/``, docstrings included)
    and string literals, keeping line structure so line numbers stay right."""
    out: list[str] = []
    i, depth, n = 0, 0, len(source)
    while i < n:
        two = source[i : i + 2]
        c = source[i]
        if depth:
            if two == "/-":
                depth += 1
                out.append("  ")
                i += 2
            elif two == "-/":
                depth -= 1
                out.append("  ")
                i += 2
            else:
                out.append("\n" if c == "\n" else " ")
                i += 1
        elif two == "/-":
            depth = 1
            out.append("  ")
            i += 2
        elif two == "--":
            j = source.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and source[j] != '"':
                j += 2 if source[j] == "\\" else 1
            out.append('"' + "".join("\n" if ch == "\n" else " " for ch in source[i + 1 : j]) + '"')
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def scan_forbidden(module: Module) -> list[str]:
    """``file:line: forbidden word`` for every forbidden word outside comments/strings."""
    hits = []
    for lineno, line in enumerate(strip_comments(module.source).splitlines(), 1):
        for m in FORBIDDEN_RE.finditer(line):
            hits.append(f"{module.path}:{lineno}: forbidden `{m.group(1)}`")
    return hits


def scan_imports(module: Module, project: set[str]) -> list[str]:
    """``file: forbidden import X`` for every import outside ``Init``/``Std`` and ``project``."""
    return [
        f"{module.path}: forbidden import `{name}` (only Init, Std and the project's modules)"
        for name in module.imports
        if name not in project and name.split(".")[0] not in TRUSTED_IMPORT_ROOTS
    ]


def _digest(*parts: str) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode())
        h.update(b"\0")
    return h.hexdigest()


class Builder:
    def __init__(
        self, repo: Path, runner: LeanRunner, jobs: int = 2, log=print, out_dir: Path | None = None
    ) -> None:
        self.repo = repo.resolve()
        self.lean_dir = self.repo / "lean"
        self.runner = runner
        self.jobs = max(1, jobs)
        self.log = log
        self.out_dir = (out_dir or runner.cache / "build" / runner.route).resolve()

    def olean(self, name: str) -> Path:
        return self.out_dir.joinpath(*name.split(".")).with_suffix(".olean")

    def _stamp(self, name: str) -> Path:
        return self.olean(name).with_suffix(".hash")

    def build(self, scan: bool = True) -> Report:
        """Check every module. ``scan=False`` skips the source scan (tests use it to show
        that Lean's own `sorry` warning and errors fail the build too). One build per output
        directory at a time (a file lock): parallel test workers wait, then reuse the outputs."""
        with file_lock(self.out_dir.with_name(self.out_dir.name + ".lock")):
            return self._build(scan)

    def _build(self, scan: bool) -> Report:
        start = time.monotonic()
        modules = discover(self.lean_dir)
        if not modules:
            raise BuildError(f"no Lean modules under {self.lean_dir}")
        project = set(modules)
        hits = (
            [h for m in modules.values() for h in scan_forbidden(m) + scan_imports(m, project)]
            if scan
            else []
        )
        if hits:
            raise BuildError("source scan failed:\n" + "\n".join(hits))
        order = topo_order(modules)
        report = Report(route=self.runner.route)
        toolchain = self.runner.toolchain_id
        keys: dict[str, str] = {}
        for name in order:
            m = modules[name]
            deps = sorted(keys[d] for d in m.imports if d in modules)
            keys[name] = _digest(BUILD_VERSION, toolchain, name, m.source, *deps)
        self._check_all(modules, order, keys, report)
        report.seconds = time.monotonic() - start
        return report

    def _check_all(
        self, modules: dict[str, Module], order: list[str], keys: dict[str, str], report: Report
    ) -> None:
        done: set[str] = set()
        pending = list(order)
        running: dict[Future[CheckResult], str] = {}
        failures: list[str] = []
        with ThreadPoolExecutor(self.jobs) as pool:
            while pending or running:
                while len(running) < self.jobs:
                    name = next(
                        (
                            n
                            for n in pending
                            if all(d in done for d in modules[n].imports if d in modules)
                        ),
                        None,
                    )
                    if name is None:
                        break
                    pending.remove(name)
                    stamp = self._stamp(name)
                    fresh = stamp.exists() and stamp.read_text() == keys[name]
                    if fresh and self.olean(name).exists():
                        report.reused.append(name)
                        done.add(name)
                        continue
                    self.log(f"[build] checking {name} ...")
                    self.olean(name).parent.mkdir(parents=True, exist_ok=True)
                    stamp.unlink(missing_ok=True)
                    fut = pool.submit(
                        self.runner.check, modules[name].path, [self.out_dir], self.olean(name)
                    )
                    running[fut] = name
                if not running:
                    if pending and not failures:
                        raise BuildError(f"cannot schedule {pending}: missing dependencies")
                    break
                finished, _ = wait(running, return_when=FIRST_COMPLETED)
                for fut in finished:
                    name = running.pop(fut)
                    result = fut.result()
                    for msg in result.messages:
                        if msg.severity != "info":
                            self.log(msg.render())
                    if result.ok:
                        self._stamp(name).write_text(keys[name])
                        report.checked.append((name, result.seconds, result.peak_rss_kib))
                        self.log(f"[build] ok {name} ({result.seconds:.0f} s)")
                        done.add(name)
                    else:
                        failures.append(_failure_text(modules[name], result))
                        pending = [n for n in pending if not _depends_on(modules, n, name)]
        if failures:
            raise BuildError("\n\n".join(failures))


def _depends_on(modules: dict[str, Module], name: str, dep: str) -> bool:
    seen, stack = set(), [name]
    while stack:
        cur = stack.pop()
        if cur == dep:
            return True
        if cur in seen or cur not in modules:
            continue
        seen.add(cur)
        stack.extend(modules[cur].imports)
    return False


def _failure_text(module: Module, result: CheckResult) -> str:
    shown = result.errors + result.sorry_warnings
    if shown:
        body = "\n".join(m.render() for m in shown)
    else:
        tail = "\n".join(result.output.splitlines()[-20:])
        body = f"{module.path}: lean exited with code {result.returncode}\n{tail}"
    return f"FAILED {module.name}\n{body}"
