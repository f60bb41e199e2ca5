"""The Python spec mirrors the Lean spec: ``verified_bpe/spec/<layer>/<module>.py`` mirrors
``lean/Bpe/<Layer>/<Module>.lean`` (snake_case of the file name).  For every mirrored pair,
the Lean definitions exist in the Python module in the same order; every Lean module of the
mirrored layers is either mirrored or listed in :data:`NOT_MIRRORED` with the reason; every
``Bpe.Layer.Module.name`` that a Python docstring cites exists in that Lean file; and every
highlighted Lean theorem (a ``**...**`` doc comment: the numbered lemmas and the roundtrip
theorems) is cited by some Python docstring.  Skipped when the Lean sources are not next to the
Python package."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

import verified_bpe.spec

LEAN_DIR = Path(__file__).resolve().parent.parent / "lean" / "Bpe"
SPEC_DIR = Path(verified_bpe.spec.__file__).resolve().parent
if not LEAN_DIR.is_dir():  # pragma: no cover
    pytest.skip("Lean sources not found", allow_module_level=True)

#: the layers that have a Python mirror (``Bpe.Exec`` is compiled code, proven equal to these)
LAYERS = ("Seed", "Ranks", "Unicode", "Regex")
#: Lean modules of those layers with no Python counterpart, and why
NOT_MIRRORED = {
    "Seed/ListLemmas": "lemmas only",
    "Seed/AssocList": "lemmas only (association lists without a key twice)",
    "Ranks/MergePair": "proofs of the seed side of the equivalence (defs are proof devices)",
    "Ranks/DecomposeRun": "proofs of the tiktoken side of the equivalence (Prop definitions)",
    "Ranks/Equiv": "the equivalence proof (Prop definitions)",
    "Ranks/Slice": "checked tables: a theorem about given tables",
    "Ranks/Fast": "the fast checker: its Python side is spec.ranks.check with a tree lookup",
    "Ranks/EncodeBy": "the encoder through a lookup (route 1's kernel evaluation device)",
    "Ranks/Valid": "theorems only (which token lists are the merge of their bytes)",
    "Ranks/Pump": "theorems only (repeating a token in a long run, the Rust bpe_run)",
    "Unicode/Utf8CodePoints": "lemmas only (decoding a string's UTF-8 gives its code points)",
    "Regex/Fuel": "lemmas only (the loops' counters suffice)",
    "Regex/PatternStrings": "kernel facts (the patterns print to tiktoken's strings)",
    "Regex/Lemmas": "lemmas only (runLen, greedy, notAheadK are proof devices)",
    "Regex/SeedClasses": "lemmas only (the seed's byte predicates as the ASCII classes)",
    "Regex/SeedBranches": "lemmas only (each branch of the seed's pattern)",
    "Regex/SeedAscii": "the proof that preTokenizeAscii is findIter (chain is a proof device)",
    "Regex/Cl100kClasses": "lemmas only (cl100k_base's classes as the machine's predicates)",
    "Regex/Cl100kBranches": "lemmas only (each branch of cl100k_base's pattern)",
    "Regex/Cl100k": "the proof that the cl100k_base machine is findIter",
    "Regex/O200kClasses": "lemmas only (o200k_base's classes as the machine's predicates)",
    "Regex/O200kBranches": "lemmas only (each branch of o200k_base's pattern)",
    "Regex/O200k": "the proof that the o200k_base machine is findIter",
    "Regex/R50kBranches": "lemmas only (each branch of r50k_base's pattern)",
    "Regex/MachineLoop": "lemmas only (a machine whose step is matchAt is findIter)",
    "Regex/R50k": "the proof that the r50k_base machine is findIter",
    "Regex/TiktokenR50k": "the r50k_base instance of the end-to-end theorem (cited by r50k.py)",
    "Regex/Llama3Branches": "lemmas only (each branch of Llama 3's pattern)",
    "Regex/Llama3": "the proof that the Llama 3 machine is findIter (cited by llama3.py)",
    "Regex/Llama3Meta": "the proof that Meta's Llama 3 machine is findIter (cited by llama3.py)",
    "Regex/TiktokenWholePieces": "roundtrip, counterexample instances (cited by whole_pieces.py)",
    "Unicode/LetterCover": "a table fact the kernel checks (allIn, coveredBy: proof devices)",
}
ALIASES = {
    "WellFormed": "check_well_formed",
    "Bijective": "is_bijective",
    "RanksOk": "ranks_ok",
}
FILE_ALIASES = {"PreTokenize": "pretokenize"}
DECL = re.compile(
    r"^(?:@\[[^\]]*\]\s*)?(?:private |protected |partial |noncomputable )*"
    r"(def|abbrev|structure|theorem|lemma)\s+([^\s(:{\[]+)",
    re.M,
)


def snake_case(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def snake(name: str) -> str:
    """The Python name of a Lean definition."""
    if name in ALIASES:
        return ALIASES[name]
    name = name.rstrip("?")
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def lean_modules() -> list[str]:
    """``Layer/Module`` for every Lean file of the mirrored layers."""
    return sorted(
        str(p.relative_to(LEAN_DIR).with_suffix(""))
        for layer in LAYERS
        for p in (LEAN_DIR / layer).rglob("*.lean")
    )


def python_module(lean_module: str) -> str:
    """``verified_bpe.spec.layer.module`` for ``Layer/Module``."""
    parts = lean_module.split("/")
    return "verified_bpe.spec." + ".".join(FILE_ALIASES.get(p) or snake_case(p) for p in parts)


def mirrored() -> list[str]:
    return [m for m in lean_modules() if m not in NOT_MIRRORED]


def lean_decls(module: str) -> list[tuple[str, str]]:
    text = (LEAN_DIR / f"{module}.lean").read_text(encoding="utf-8")
    return DECL.findall(text)


def python_functions(module: str) -> list[str]:
    mod = importlib.import_module(python_module(module))
    funcs = [
        (obj.__code__.co_firstlineno, name)
        for name, obj in vars(mod).items()
        if inspect.isfunction(obj) and obj.__module__ == mod.__name__
    ]
    return [name for _, name in sorted(funcs)]


def python_docstrings() -> str:
    docs = []
    for module in mirrored():
        mod = importlib.import_module(python_module(module))
        docs.append(mod.__doc__ or "")
        for obj in vars(mod).values():
            if (inspect.isfunction(obj) or inspect.isclass(obj)) and getattr(
                obj, "__module__", ""
            ) == mod.__name__:
                docs.append(obj.__doc__ or "")
    return "\n".join(docs)


def test_every_lean_module_is_mirrored_or_listed():
    stale = sorted(set(NOT_MIRRORED) - set(lean_modules()))
    assert not stale, f"NOT_MIRRORED lists modules that do not exist: {stale}"
    missing = [m for m in mirrored() if importlib.util.find_spec(python_module(m)) is None]
    assert not missing, f"no Python mirror for {missing}"


def test_every_python_module_mirrors_a_lean_module():
    names = {python_module(m) for m in mirrored()}
    extra = []
    for path in sorted(SPEC_DIR.rglob("*.py")):
        if path.name == "__init__.py":
            continue
        rel = path.relative_to(SPEC_DIR).with_suffix("")
        name = "verified_bpe.spec." + ".".join(rel.parts)
        if name not in names:
            extra.append(name)
    assert not extra, f"Python spec modules with no Lean file: {extra}"


@pytest.mark.parametrize("lean_module", mirrored())
def test_definitions_mirrored_in_order(lean_module):
    expected = [
        snake(name) for kind, name in lean_decls(lean_module) if kind in ("def", "structure")
    ]
    available = python_functions(lean_module)
    missing = [name for name in expected if name not in available]
    assert not missing, f"Bpe.{lean_module}: no Python counterpart for {missing}"
    order = [name for name in available if name in expected]
    assert order == list(dict.fromkeys(expected)), f"Bpe.{lean_module}: order differs"


CITATION = re.compile(r"Bpe\.((?:[A-Z]\w*\.)+)([a-z_][\w.?']*\w\??|[A-Z]\w*)")


def resolve_citation(prefix: str, name: str) -> tuple[str, str] | None:
    """The Lean file (``Layer/Module``) and declaration of a citation ``Bpe.<prefix><name>``:
    the longest prefix of capitalised components that names a file."""
    parts = prefix.rstrip(".").split(".")
    for k in range(len(parts), 0, -1):
        path = "/".join(parts[:k])
        if (LEAN_DIR / f"{path}.lean").is_file():
            return path, ".".join([*parts[k:], name])
    return None


def test_cited_lean_names_exist():
    cited = set(CITATION.findall(python_docstrings()))
    assert cited, "no citations found"
    missing = []
    for prefix, name in sorted(cited):
        if (LEAN_DIR / (prefix.replace(".", "/") + name + ".lean")).is_file():
            continue  # a module, not a definition
        found = resolve_citation(prefix, name)
        if found is None:
            missing.append(f"Bpe.{prefix}{name} (no file)")
            continue
        module, decl = found
        if decl not in {n for _, n in lean_decls(module)}:
            missing.append(f"Bpe.{prefix}{name}")
    assert not missing, missing


def test_highlighted_theorems_are_cited():
    docs = python_docstrings()
    highlighted = []
    for module in mirrored():
        text = (LEAN_DIR / f"{module}.lean").read_text(encoding="utf-8")
        for match in re.finditer(r"/--\s*\*\*.*?-/\s*theorem\s+([^\s(:]+)", text, re.S):
            highlighted.append((module, match.group(1)))
    assert highlighted
    uncited = [f"Bpe.{m}.{n}" for m, n in highlighted if n not in docs]
    assert not uncited, uncited
