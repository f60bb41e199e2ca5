"""Time loading llama.cpp's byte-level BPE vocabulary files: reading the GGUF metadata
(:func:`~verified_bpe.formats.gguf_file.read_metadata`) and building the tokenizer
(:func:`~verified_bpe.formats.gguf_vocab.llama_tokenizer_from_gguf`), every file of the
llama-cpp-python sdist whose ``tokenizer.ggml.model`` is ``gpt2``.  Target: <= 1 s per file.

Usage (from the repository root; the first run fetches the sdist, 76 MB)::

    PYTHONPATH=python python bench/bench_gguf_load.py [--repeat 3] [--names gpt-2 qwen2]

Best of ``--repeat`` runs, each in the same process after one untimed read of the file (so
the file is in the page cache); prints wall and CPU seconds (CPU time is the figure that
survives a shared machine), the token and merge counts.  Exit status 1 if a file's best
wall time is over the target.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

from verified_bpe.formats.gguf_file import read_metadata  # noqa: E402
from verified_bpe.formats.gguf_vocab import llama_tokenizer_from_gguf  # noqa: E402
from verified_bpe.verify import testdata  # noqa: E402

TARGET = 1.0
BYTE_LEVEL = (
    "gpt-2", "llama-bpe", "qwen2", "qwen35", "deepseek-coder", "deepseek-llm", "falcon",
    "mpt", "starcoder", "refact", "command-r", "gpt-neox", "aquila",
)  # fmt: skip


def best(fn, repeat: int) -> tuple[float, float]:
    """Best wall and best CPU time of ``repeat`` calls."""
    walls, cpus = [], []
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return min(walls), min(cpus)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--names", nargs="+", default=list(BYTE_LEVEL))
    args = ap.parse_args()
    slow = []
    print(
        f"{'file':16} {'tokens':>7} {'merges':>7} {'meta wall':>9} {'meta cpu':>8} "
        f"{'load wall':>9} {'load cpu':>8}"
    )
    for name in args.names:
        path = testdata.vocab_path(name)
        path.read_bytes()  # page cache
        tok = llama_tokenizer_from_gguf(path)
        meta = best(lambda p=path: read_metadata(p), args.repeat)
        load = best(lambda p=path: llama_tokenizer_from_gguf(p), args.repeat)
        print(
            f"{name:16} {len(tok.vocab.tokens):7} {len(tok.vocab.merges):7} "
            f"{meta[0]:9.3f} {meta[1]:8.3f} {load[0]:9.3f} {load[1]:8.3f}"
        )
        if load[0] > TARGET:
            slow.append(name)
    if slow:
        print(f"over {TARGET} s (wall): {', '.join(slow)}")
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())
