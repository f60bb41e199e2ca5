"""Time ``check_ranks`` (the Python mirror of ``Bpe.Ranks.Check.checkRanks``) on the full
published rank tables, every token, no sampling.

Usage (from the repository root)::

    PYTHONPATH=python python bench/bench_check_ranks.py [--encoding cl100k_base o200k_base]

Loading the table is not timed; one run each, no warm-up.  Prints the number of tokens, the
verdict and the wall time.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

from verified_bpe.engine.vocab import load_ranks  # noqa: E402
from verified_bpe.spec.ranks.check import check_ranks  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--encoding", nargs="+", default=["cl100k_base", "o200k_base"])
    args = ap.parse_args()
    ok = True
    for name in args.encoding:
        ranks = load_ranks(name)
        start = time.perf_counter()
        passed = check_ranks(ranks)
        elapsed = time.perf_counter() - start
        ok = ok and passed
        print(f"{name}: {len(ranks):,} tokens, check_ranks = {passed}, {elapsed:.1f} s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
