"""The proof build fails as it should: planted `sorry`, planted false proof (runs Lean)."""

from pathlib import Path

import pytest

from verified_bpe.toolchain.build import Builder, BuildError
from verified_bpe.toolchain.runner import LeanRunner

REPO = Path(__file__).resolve().parents[1]

GOOD = """module
@[expose] public section
theorem good (xs ys : List Nat) : (xs ++ ys).length = xs.length + ys.length := by simp
"""
# A false statement with a proof attempt: Lean must reject it.
FALSE_PROOF = """module
@[expose] public section
theorem bad (xs : List Nat) : (xs ++ xs).length = xs.length := by
  simp
"""
SORRY_WORD = "sor" + "ry"  # keep the literal word out of this file's own scan
PLANTED_SORRY = f"""module
@[expose] public section
theorem planted : 2 + 2 = 5 := by
  {SORRY_WORD}
"""


def make_project(root: Path, files: dict[str, str]) -> Path:
    (root / "lean").mkdir(parents=True)
    (root / "lakefile.lean").write_text("-- test project\n")
    for name, text in files.items():
        (root / "lean" / name).write_text(text)
    return root


def builder_for(project: Path) -> Builder:
    runner = LeanRunner(project, REPO / ".cache")
    return Builder(project, runner, jobs=2, log=lambda *_: None, out_dir=project / "out")


def test_source_scan_rejects_planted_sorry_before_running_lean(tmp_path):
    project = make_project(tmp_path / "p", {"Good.lean": GOOD, "Planted.lean": PLANTED_SORRY})
    with pytest.raises(BuildError, match=r"Planted\.lean:4: forbidden `sorry`"):
        builder_for(project).build()


@pytest.mark.lean
def test_lean_rejects_false_proof_and_sorry_warning(tmp_path):
    project = make_project(
        tmp_path / "p",
        {"Good.lean": GOOD, "Bad.lean": FALSE_PROOF, "Planted.lean": PLANTED_SORRY},
    )
    builder = builder_for(project)
    with pytest.raises(BuildError) as info:
        builder.build(scan=False)  # Lean's own verdict, without the scan's help
    text = str(info.value)
    assert "FAILED Bad" in text and "Bad.lean:3:" in text and "unsolved goals" in text
    assert "FAILED Planted" in text and "declaration uses" in text
    assert "FAILED Good" not in text
    assert builder.olean("Good").exists()
    assert not builder.olean("Bad").with_suffix(".hash").exists()
