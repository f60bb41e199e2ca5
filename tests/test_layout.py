"""The package reads top-down: each subpackage imports only those below it, and no module
imports itself back through a chain (lazy imports inside functions count too).  The layers,
bottom to top: ``errors`` and ``_moved``; ``spec`` (the Lean mirror); ``engine``; ``formats``;
``api`` (the tiktoken and minbpe faces) with ``hf`` and ``data`` beside it, and ``toolchain``;
``verify``; ``cli``."""

from __future__ import annotations

import ast
from pathlib import Path

import verified_bpe

PKG = Path(verified_bpe.__file__).resolve().parent
RANK = {
    "errors": 0,
    "_moved": 0,
    "spec": 1,
    "engine": 2,
    "formats": 3,
    "api": 4,
    "hf": 4,
    "toolchain": 4,
    "verify": 5,
    "data": 4,
    "cli": 6,
    "__main__": 6,
    "__init__": 6,
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path) -> set[str]:
    """The ``verified_bpe`` modules that ``path`` imports, anywhere in the file."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("verified_bpe")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("verified_bpe"):
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.add(sub if module_path(sub) else target)
    return {m for m in found if m != name}


def module_path(name: str) -> Path | None:
    rel = Path(*name.split(".")[1:])
    for candidate in (PKG / rel.with_suffix(".py"), PKG / rel / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def graph() -> dict[str, set[str]]:
    return {module_name(p): imports(p) for p in sorted(PKG.rglob("*.py"))}


def rank(name: str) -> int:
    parts = name.split(".")
    return RANK[parts[1] if len(parts) > 1 else "__init__"]


def test_imports_only_go_down():
    up = [
        f"{mod} -> {dep}"
        for mod, deps in graph().items()
        for dep in deps
        if rank(dep) > rank(mod) and dep != "verified_bpe"
    ]
    assert not up, up


def test_no_import_cycles():
    g = graph()
    # a package imports its submodules' parent implicitly: ignore edges to a parent package
    g = {m: {d for d in deps if not m.startswith(d + ".")} for m, deps in g.items()}
    state: dict[str, int] = {}
    cycles: list[str] = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for dep in sorted(g.get(node, ())):
            if state.get(dep) == 1:
                cycles.append(" -> ".join([*stack[stack.index(dep) :], dep]))
            elif dep not in state:
                visit(dep, [*stack, dep])
        state[node] = 2

    for node in sorted(g):
        if node not in state:
            visit(node, [node])
    assert not cycles, cycles


def test_old_import_paths_are_the_new_modules():
    import importlib

    for old, new in verified_bpe._moved.MOVED.items():
        a = importlib.import_module(f"verified_bpe.{old}")
        b = importlib.import_module(f"verified_bpe.{new}")
        assert a is b, old
        assert b.__spec__.name == f"verified_bpe.{new}"
