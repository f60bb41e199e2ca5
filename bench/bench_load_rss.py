"""Load time and resident memory after loading each encoding: tiktoken against verified_bpe's
native engine, each in a fresh process (issue 32, item 3).

Usage (from the repository root)::

    PYTHONPATH=python python bench/bench_load_rss.py [--repeat N]

A child process imports both packages, then loads one encoding (the rank file read and
hash-checked, the tokenizer built, one short encode) and prints the CPU seconds of that and
the growth of its resident set (VmRSS, MB = 2^20 bytes).  Best of ``--repeat`` children.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import re, sys, time
sys.path.insert(0, sys.argv[1])
import tiktoken
from verified_bpe.engine.tokenizer import Tokenizer
from verified_bpe.engine.vocab import tiktoken_encoding
lib, name = sys.argv[2], sys.argv[3]
def rss():
    return int(re.search(r"VmRSS:\s+(\d+)", open("/proc/self/status").read()).group(1)) / 1024
before, start = rss(), time.process_time()
enc = tiktoken_encoding(name) if lib == "tiktoken" else Tokenizer.from_tiktoken(name, "native")
enc.encode_ordinary("warm up")
print(time.process_time() - start, rss() - before)
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print("| encoding | tokenizer | load, CPU s (best) | RSS growth, MB (least) |")
    print("|---|---|---|---|")
    for name in ("cl100k_base", "o200k_base"):
        for lib in ("tiktoken", "verified_bpe native"):
            runs = []
            for _ in range(args.repeat):
                argv = [
                    sys.executable,
                    "-c",
                    CHILD,
                    str(ROOT / "python"),
                    lib.split()[-1] if lib != "tiktoken" else lib,
                    name,
                ]
                out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
                seconds, mb = (float(x) for x in out.split())
                runs.append((seconds, mb))
            print(
                f"| {name} | {lib} | {min(r[0] for r in runs):.2f} "
                f"| {min(r[1] for r in runs):.0f} |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
