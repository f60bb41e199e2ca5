"""Axiom audit of the headline theorems (listed in ``lean/headline_theorems.txt``).

Only ``propext``, ``Classical.choice`` and ``Quot.sound`` may appear.

* Native route: a non-module file with ``#print axioms`` for each theorem.
* Offline (wasm) route: ``#print axioms`` is refused there (every file is a module), so a
  generated module imports the project with ``import all`` (so that the proofs of our own
  modules are traversed) and evaluates ``Lean.collectAxioms`` for each theorem at the meta
  level, printing every constant it reports with its kind and defining module. Constants
  of ``Init``/``Std`` reach us at the exported level, without proof bodies, so the
  collector sees those *theorems* as opaque leaves: they are reported as trusted core
  facts, not audited further. Everything else — ``sorryAx``, the compiler-trust axioms of
  ``native_decide``, any constant declared by this project that is still opaque after
  ``import all`` — fails the audit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .build import Builder, discover
from .runner import LeanRunner

ALLOWED = frozenset({"propext", "Classical.choice", "Quot.sound"})
FORBIDDEN_CORE = frozenset(
    {"sorryAx", "Lean.ofReduceBool", "Lean.ofReduceNat", "Lean.trustCompiler"}
)
TRUSTED_PREFIXES = ("Init", "Std")
HEADLINE_FILE = Path("lean") / "headline_theorems.txt"


class AuditError(RuntimeError):
    """A headline theorem depends on a forbidden axiom, or the audit could not run."""


@dataclass(frozen=True)
class Leaf:
    name: str
    kind: str
    module: str


def headline_theorems(repo: Path) -> list[str]:
    lines = (repo / HEADLINE_FILE).read_text().splitlines()
    return [ln.strip() for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]


def _lean_name(name: str) -> str:
    """Quote a dotted name for Lean's ``` ``name ``` syntax (components with `?`, `!`...)."""
    parts = name.split(".")
    return ".".join(p if re.fullmatch(r"[A-Za-z_][\w']*", p) else f"«{p}»" for p in parts)


AUDIT_PRELUDE = """
public meta import Lean.Util.CollectAxioms
public meta import Lean.CoreM
open Lean

public meta def auditNameStr : Name → String
  | .anonymous => ""
  | .str .anonymous s => s
  | .str p s => auditNameStr p ++ "." ++ s
  | .num p n => auditNameStr p ++ "." ++ Nat.repr n

public meta def auditKind : ConstantInfo → String
  | .axiomInfo _ => "axiom"
  | .thmInfo _ => "theorem"
  | .defnInfo _ => "def"
  | .opaqueInfo _ => "opaque"
  | _ => "other"

public meta def auditDescribe (env : Environment) : List Name → String
  | [] => ""
  | n :: ns =>
    let kind := match env.find? n with
      | some ci => auditKind ci
      | none => "missing"
    let mod := match env.getModuleIdxFor? n with
      | some idx => auditNameStr (env.header.moduleNames.getD idx.toNat Name.anonymous)
      | none => "<current>"
    auditNameStr n ++ "|" ++ kind ++ "|" ++ mod ++ ";" ++ auditDescribe env ns

public meta def auditTheorem (n : Name) : CoreM String := do
  let axs ← collectAxioms n
  return "AUDIT " ++ auditNameStr n ++ " " ++ auditDescribe (← getEnv) axs.toList
"""


def wasm_audit_source(modules: list[str], theorems: list[str]) -> str:
    lines = ["module", ""]
    lines += [f"public import {m}" for m in modules]
    lines += [f"import all {m}" for m in modules]
    lines.append(AUDIT_PRELUDE)
    lines += [f"#eval auditTheorem ``{_lean_name(t)}" for t in theorems]
    return "\n".join(lines) + "\n"


def native_audit_source(modules: list[str], theorems: list[str]) -> str:
    lines = [f"import {m}" for m in modules]
    lines += [f"#print axioms {_lean_name(t)}" for t in theorems]
    return "\n".join(lines) + "\n"


def parse_wasm_audit(output: str) -> dict[str, list[Leaf]]:
    result: dict[str, list[Leaf]] = {}
    for m in re.finditer(r'"AUDIT (\S+) ([^"]*)"', output):
        leaves = []
        for item in m.group(2).split(";"):
            if item:
                name, kind, module = item.split("|")
                leaves.append(Leaf(name, kind, module))
        result[m.group(1)] = leaves
    return result


def parse_native_audit(output: str) -> dict[str, list[Leaf]]:
    result: dict[str, list[Leaf]] = {}
    for m in re.finditer(r"'([^']+)' depends on axioms: \[([^\]]*)\]", output):
        names = [n.strip() for n in m.group(2).replace("\n", " ").split(",") if n.strip()]
        result[m.group(1)] = [Leaf(n, "axiom", "") for n in names]
    for m in re.finditer(r"'([^']+)' does not depend on any axioms", output):
        result[m.group(1)] = []
    return result


def classify(
    theorem: str, leaves: list[Leaf], project_modules: set[str]
) -> tuple[list[str], list[str]]:
    """Return (axioms shown in the report, problems) for one theorem."""
    shown: list[str] = []
    problems: list[str] = []
    trusted = 0
    for leaf in leaves:
        if leaf.name in ALLOWED:
            shown.append(leaf.name)
        elif leaf.name in FORBIDDEN_CORE:
            problems.append(f"{theorem} depends on {leaf.name}")
        elif leaf.module in project_modules or leaf.module in ("<current>", ""):
            where = leaf.module or "axiom"
            problems.append(f"{theorem} depends on {leaf.name} ({leaf.kind}, {where})")
        elif leaf.module.split(".")[0] in TRUSTED_PREFIXES and leaf.kind == "axiom":
            trusted += 1
        else:
            problems.append(f"{theorem} depends on {leaf.name} ({leaf.kind}, {leaf.module})")
    shown = sorted(set(shown))
    if trusted:
        shown.append(f"+{trusted} core lemmas (opaque offline)")
    return shown, problems


def audit(repo: Path, runner: LeanRunner, builder: Builder) -> list[tuple[str, list[str]]]:
    theorems = headline_theorems(repo)
    if not theorems:
        raise AuditError(f"{HEADLINE_FILE} lists no theorems")
    modules = discover(repo / "lean")
    project = set(modules)
    roots = sorted(project)
    audit_dir = runner.cache / "audit" / runner.route
    audit_dir.mkdir(parents=True, exist_ok=True)
    src = audit_dir / "BpeAudit.lean"
    if runner.route == "wasm":
        src.write_text(wasm_audit_source(roots, theorems))
    else:
        src.write_text(native_audit_source(roots, theorems))
    result = runner.check(src, [builder.out_dir])
    if result.errors:
        raise AuditError("audit file failed:\n" + "\n".join(m.render() for m in result.errors))
    found = (parse_wasm_audit if runner.route == "wasm" else parse_native_audit)(result.output)
    report: list[tuple[str, list[str]]] = []
    problems: list[str] = []
    for thm in theorems:
        if thm not in found:
            problems.append(f"{thm}: no audit output (unknown theorem?)")
            continue
        shown, bad = classify(thm, found[thm], project)
        report.append((thm, shown))
        problems += bad
    if problems:
        raise AuditError("\n".join(problems))
    return report
