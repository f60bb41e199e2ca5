"""`python -m verified_bpe.toolchain verify|check FILE|install`."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from .audit import AuditError, audit
from .build import Builder, BuildError
from .install import ToolchainError
from .runner import LeanRunner


def is_checkout(d: Path) -> bool:
    """Whether ``d`` is the project's source checkout (``lakefile.lean`` and ``lean/``)."""
    return (d / "lakefile.lean").exists() and (d / "lean").is_dir()


def repo_containing(start: Path) -> Path | None:
    """The source checkout containing ``start``, if any."""
    return next((d for d in [start, *start.parents] if is_checkout(d)), None)


def find_repo(start: Path) -> Path:
    repo = repo_containing(start)
    if repo is None:
        raise SystemExit(
            "python -m verified_bpe.toolchain: error: not inside a source checkout (no "
            "lakefile.lean and lean/ here or above); cd into one or pass --repo DIR"
        )
    return repo


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m verified_bpe.toolchain")
    parser.add_argument(
        "--route",
        choices=["native", "wasm"],
        default=None,
        help="native = `lean` on PATH; wasm = offline npm build (default: auto)",
    )
    parser.add_argument("--jobs", type=int, default=2, help="Lean checks at once (default 2)")
    parser.add_argument("--repo", type=Path, default=None)
    sub = parser.add_subparsers(dest="cmd", required=True)
    sub.add_parser("install", help="install the offline toolchain into .cache/")
    sub.add_parser("verify", help="check every module under lean/ and audit axioms")
    chk = sub.add_parser("check", help="check one Lean file against the built modules")
    chk.add_argument("file", type=Path)
    args = parser.parse_args(argv)

    repo = (args.repo or find_repo(Path.cwd())).resolve()
    cache = repo / ".cache"
    try:
        runner = LeanRunner(repo, cache, route=args.route)
        if args.cmd == "install":
            if runner.route == "wasm":
                print(runner.wasm_root())
            return 0
        builder = Builder(repo, runner, jobs=args.jobs)
        if args.cmd == "check":
            result = runner.check(args.file, [builder.out_dir])
            print(result.output)
            return 0 if result.ok else 1
        start = time.monotonic()
        report = builder.build()
        report.audited = audit(repo, runner, builder)
        report.seconds = time.monotonic() - start
        print(report.render())
        return 0
    except (BuildError, AuditError, ToolchainError) as exc:
        print(f"\nverify FAILED:\n{exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
