"""Custom patterns on the native engine: the split by fancy-regex inside the crate against the
split in Python (the ``regex`` module) followed by the native merge, beside tiktoken.

Usage (from the repository root, with the native engine built)::

    .venv/bin/python bench/bench_custom_pattern.py [--mb SCALE] [--repeat N]

The rank tables are r50k_base and p50k_base, rebuilt offline from llama.cpp's GPT-2
vocabulary (:func:`verified_bpe.verify.testdata.gpt2_tiktoken_files`); the patterns are
r50k/p50k's (tiktoken's ``pat_str``), the original GPT-2 release pattern and Llama 3's (over
p50k's ranks: the split is what is measured).  One process, the same texts for every
tokenizer, every result checked against tiktoken's ids; CPU seconds, best of ``--repeat``.
"""

from __future__ import annotations

import argparse
import base64
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "bench"))

import tiktoken  # noqa: E402

from bench_encode import timed, workloads  # noqa: E402
from verified_bpe.engine import native  # noqa: E402
from verified_bpe.engine.patterns import GPT2_PATTERN, LLAMA3_PATTERN, R50K_PATTERN  # noqa: E402
from verified_bpe.engine.tokenizer import Tokenizer  # noqa: E402
from verified_bpe.verify import testdata  # noqa: E402

PATTERNS = {"r50k/p50k": R50K_PATTERN, "gpt2 original": GPT2_PATTERN, "llama3": LLAMA3_PATTERN}


def ranks_of(contents: bytes) -> dict[bytes, int]:
    out: dict[bytes, int] = {}
    for line in contents.splitlines():
        token, rank = line.split()
        out[base64.b64decode(token)] = int(rank)
    return out


def python_split(ranks: dict[bytes, int], pattern: str) -> Tokenizer:
    """The native engine with the split left in Python (the route before fancy-regex)."""
    tok = Tokenizer.from_ranks(ranks, pattern, engine="native")
    assert tok._native is not None
    tok._native._bpe = native.module().NativeBpe(ranks, None)
    tok._native.splits = tok._native.regex_split = False
    return tok


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    ranks = ranks_of(testdata.gpt2_tiktoken_files()["p50k_base"])
    texts = [(name, text) for name, text, _ in workloads(args.mb)]
    print("pattern | workload | tiktoken MB/s | native, Python split | native, fancy-regex")
    for label, pattern in PATTERNS.items():
        reference = tiktoken.Encoding(
            name=label, pat_str=pattern, mergeable_ranks=ranks, special_tokens={}
        )
        fancy = Tokenizer.from_ranks(ranks, pattern, engine="native")
        assert fancy._native is not None and fancy._native.regex_split
        slow = python_split(ranks, pattern)
        for name, text in texts:
            size = len(text.encode("utf-8")) / 1e6
            row = []
            expected: list[int] | None = None
            for enc in (reference, slow, fancy):
                enc.encode_ordinary("warm up: Hello, world!")
                seconds, ids = timed(enc, text, args.repeat)
                if expected is None:
                    expected = ids
                elif ids != expected:
                    print(f"DIFFERENT IDS: {label} {name}")
                    return 1
                row.append(size / seconds)
            print(
                f"{label} | {name} | {row[0]:.2f} | {row[1]:.2f} ({row[1] / row[0]:.2f}x) | "
                f"**{row[2]:.2f} ({row[2] / row[0]:.2f}x)**",
                flush=True,
            )
    start = time.process_time()
    Tokenizer.from_ranks(ranks, LLAMA3_PATTERN + "|x", engine="native")
    print(f"build with a new pattern (compiles fancy-regex): {time.process_time() - start:.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
