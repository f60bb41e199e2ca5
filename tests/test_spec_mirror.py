"""The Python spec mirrors the Lean spec: for every Lean module, its definitions exist in the
Python module of the same name (snake_case) in the same order, every ``Bpe.Module.name`` that a
Python docstring cites exists in that Lean file, and every highlighted Lean theorem (a
``**...**`` doc comment: the numbered lemmas and the roundtrip theorems) is cited by some
Python docstring.  Skipped when the Lean sources are not next to the Python package."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

LEAN_DIR = Path(__file__).resolve().parent.parent / "lean" / "Bpe"
if not LEAN_DIR.is_dir():  # pragma: no cover
    pytest.skip("Lean sources not found", allow_module_level=True)

MODULES = {
    "Classify": "classify",
    "PreTokenize": "pretokenize",
    "PreTokenizeUnicode": "pretokenize_unicode",
    "PreTokenizeCl100k": "pretokenize_cl100k",
    "PreTokenizeO200k": "pretokenize_o200k",
    "Merge": "merge",
    "Decompose": "decompose",
    "Shuffle": "shuffle",
    "WellFormed": "well_formed",
    "BuildVocab": "build_vocab",
    "Utf8": "utf8",
    "Encode": "encode",
    "Roundtrip": "roundtrip",
    "Check": "check",
    "RangeTree": "range_tree",
    "UnicodeTables": "unicode_tables",
    "Encoders": "encoders",
    "Ranks": "ranks",
    "RanksCheck": "ranks_check",
}
ALIASES = {
    "WellFormed": "check_well_formed",
    "Bijective": "is_bijective",
    "RanksOk": "ranks_ok",
}
DECL = re.compile(
    r"^(?:@\[[^\]]*\]\s*)?(?:private |protected |partial |noncomputable )*"
    r"(def|abbrev|structure|theorem|lemma)\s+([^\s(:{\[]+)",
    re.M,
)


def snake(name: str) -> str:
    if name in ALIASES:
        return ALIASES[name]
    name = name.rstrip("?")
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def lean_decls(module: str) -> list[tuple[str, str]]:
    text = (LEAN_DIR / f"{module}.lean").read_text(encoding="utf-8")
    return DECL.findall(text)


def python_functions(module: str) -> list[str]:
    mod = importlib.import_module(f"verified_bpe.spec.{module}")
    funcs = [
        (obj.__code__.co_firstlineno, name)
        for name, obj in vars(mod).items()
        if inspect.isfunction(obj) and obj.__module__ == mod.__name__
    ]
    return [name for _, name in sorted(funcs)]


def python_docstrings() -> str:
    docs = []
    for module in MODULES.values():
        mod = importlib.import_module(f"verified_bpe.spec.{module}")
        docs.append(mod.__doc__ or "")
        for obj in vars(mod).values():
            if (inspect.isfunction(obj) or inspect.isclass(obj)) and getattr(
                obj, "__module__", ""
            ) == mod.__name__:
                docs.append(obj.__doc__ or "")
    return "\n".join(docs)


@pytest.mark.parametrize("lean_module", list(MODULES))
def test_definitions_mirrored_in_order(lean_module):
    expected = [
        snake(name) for kind, name in lean_decls(lean_module) if kind in ("def", "structure")
    ]
    available = python_functions(MODULES[lean_module])
    missing = [name for name in expected if name not in available]
    assert not missing, f"Bpe.{lean_module}: no Python counterpart for {missing}"
    order = [name for name in available if name in expected]
    assert order == list(dict.fromkeys(expected)), f"Bpe.{lean_module}: order differs"


def test_cited_lean_names_exist():
    cited = set(re.findall(r"Bpe\.([A-Z]\w*)\.([\w.?']+\w\??)", python_docstrings()))
    assert cited, "no citations found"
    missing = []
    for module, name in sorted(cited):
        path = LEAN_DIR / f"{module}.lean"
        if not path.is_file():
            missing.append(f"Bpe.{module} (no file) for {name}")
            continue
        names = {n for _, n in lean_decls(module)}
        if name not in names:
            missing.append(f"Bpe.{module}.{name}")
    assert not missing, missing


def test_highlighted_theorems_are_cited():
    docs = python_docstrings()
    highlighted = []
    for module in MODULES:
        text = (LEAN_DIR / f"{module}.lean").read_text(encoding="utf-8")
        for match in re.finditer(r"/--\s*\*\*.*?-/\s*theorem\s+([^\s(:]+)", text, re.S):
            highlighted.append((module, match.group(1)))
    assert highlighted
    uncited = [f"Bpe.{m}.{n}" for m, n in highlighted if n not in docs]
    assert not uncited, uncited
