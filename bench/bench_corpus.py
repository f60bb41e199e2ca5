"""Tokenizing a corpus end to end: ``python -m verified_bpe corpus`` (each engine) next to
nanoGPT's way (``datasets`` ``load_dataset("json")``, ``map(num_proc=N)`` with tiktoken's
``encode_ordinary`` plus EOT, then the ids written to one flat ``.bin``).

The corpus is generated from the package's own texts (:mod:`verified_bpe.verify.corpus`: the
standard library's Python files and the gettext catalogs' prose) as JSONL files of documents
of 2-20 KB, at least ``--mb`` MB.  Wall seconds, best of ``--repeat``, each a fresh process
and output folder (so start-up is counted, as a user sees it); MB/s = input bytes / wall.

    .venv/bin/pip install 'datasets==5.2.0'   # nanoGPT's way (the `bench` extra has it)
    .venv/bin/python bench/bench_corpus.py --mb 25 --workers 2 --engines local

``--arrow``: instead, ``verified_bpe.data.encode_arrow`` on the same documents as one
``pa.StringArray`` in memory, its buffers read in place against copied once first (the
engine's ``in_place=False``), on 1 and ``--workers`` threads (runs alternate; wall seconds,
best of ``--repeat``; MB/s = the array's UTF-8 bytes / wall).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from verified_bpe.verify.corpus import locale_texts, stdlib_text  # noqa: E402

NANOGPT = r"""
import os, sys, time
import numpy as np
from datasets import load_dataset
from verified_bpe.engine.vocab import tiktoken_encoding

files, out, procs = sys.argv[1].split(","), sys.argv[2], int(sys.argv[3])
enc = tiktoken_encoding("cl100k_base")

def process(example):
    ids = enc.encode_ordinary(example["text"])
    ids.append(enc.eot_token)
    return {"ids": ids, "len": len(ids)}

if __name__ == "__main__":
    ds = load_dataset("json", data_files=files, split="train", cache_dir=out + "/cache")
    tokenized = ds.map(process, remove_columns=["text"], num_proc=procs)
    total = int(np.sum(tokenized["len"], dtype=np.uint64))
    arr = np.memmap(out + "/train.bin", dtype=np.uint32, mode="w+", shape=(total,))
    idx = 0
    batches = 16
    for k in range(batches):
        batch = tokenized.shard(num_shards=batches, index=k, contiguous=True).with_format("numpy")
        chunk = np.concatenate(batch["ids"]) if len(batch) else np.zeros(0, np.uint32)
        arr[idx : idx + len(chunk)] = chunk
        idx += len(chunk)
    arr.flush()
"""


def make_corpus(folder: Path, mb: float, files: int = 8) -> int:
    """JSONL files of documents (code and prose, 2-20 KB each) totalling at least ``mb``
    MB; returns the bytes written."""
    code = stdlib_text(6_000_000)
    prose = "\n".join(text for _, text in locale_texts(max_bytes=3_000_000))
    rng = random.Random(31)
    target = int(mb * 1_000_000)
    written = 0
    parts: list[list[str]] = [[] for _ in range(files)]
    n = 0
    while written < target:
        source = code if n % 2 == 0 else prose
        size = rng.randrange(2_000, 20_000)
        start = rng.randrange(0, len(source) - size)
        line = json.dumps({"text": source[start : start + size]}, ensure_ascii=False) + "\n"
        parts[n % files].append(line)
        written += len(line.encode("utf-8"))
        n += 1
    for k, lines in enumerate(parts):
        (folder / f"part-{k:02d}.jsonl").write_text("".join(lines), encoding="utf-8")
    return sum(p.stat().st_size for p in folder.iterdir())


def timed(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def arrow_in_place(folder: Path, workers: int, repeat: int) -> None:
    """``encode_arrow``'s chunk path with the buffers read in place and copied once first."""
    import pyarrow as pa

    from verified_bpe import get_encoding
    from verified_bpe.data.arrow import _flat_chunk

    texts = [
        json.loads(line)["text"]
        for path in sorted(folder.iterdir())
        for line in path.read_text(encoding="utf-8").splitlines()
    ]
    array = pa.array(texts, type=pa.string())
    mb = array.buffers()[2].size / 1e6
    copy = float("inf")
    for _ in range(max(repeat, 5)):
        start = time.perf_counter()
        for buffer in array.buffers():
            if buffer is not None:
                bytes(memoryview(buffer))
        copy = min(copy, time.perf_counter() - start)
    print(f"encode_arrow, {len(array)} rows, {mb:.1f} MB of UTF-8, wall s best of {repeat}")
    print(f"(one copy of the array's buffers alone, as bytes(): {1e3 * copy:.2f} ms):")
    print("| encoding | threads | copied once: s | MB/s | in place: s | MB/s | gain |")
    print("|---|---|---|---|---|---|---|")
    for name in ("cl100k_base", "o200k_base"):
        enc = get_encoding(name)
        expected = _flat_chunk(enc, array, workers, False)
        for threads in sorted({1, workers}):
            best = {True: float("inf"), False: float("inf")}
            for _ in range(repeat):
                for in_place in (False, True):
                    start = time.perf_counter()
                    got = _flat_chunk(enc, array, threads, False, 0, in_place)
                    best[in_place] = min(best[in_place], time.perf_counter() - start)
                    assert got == expected
            copy, inplace = best[False], best[True]
            print(
                f"| {name} | {threads} | {copy:.3f} | {mb / copy:.1f} | {inplace:.3f} "
                f"| {mb / inplace:.1f} | {copy / inplace - 1:+.1%} |"
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=25.0, help="corpus size (default 25)")
    parser.add_argument("--workers", type=int, default=2, help="processes / threads (2)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per row (best of)")
    parser.add_argument(
        "--engines", default="local", help="comma-separated subset of local,dask,ray"
    )
    parser.add_argument("--skip-nanogpt", action="store_true", help="no datasets run")
    parser.add_argument(
        "--arrow", action="store_true", help="encode_arrow in place against copied buffers"
    )
    args = parser.parse_args()
    python = sys.executable
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        data = root / "corpus"
        data.mkdir()
        size = make_corpus(data, args.mb)
        if args.arrow:
            arrow_in_place(data, args.workers, args.repeat)
            return 0
        files = sorted(str(p) for p in data.iterdir())
        print(f"corpus: {len(files)} JSONL files, {size / 1e6:.1f} MB; {args.workers} workers")
        print("| way | wall s | MB/s | vs nanoGPT's way |")
        print("|---|---|---|---|")
        rows: list[tuple[str, float]] = []
        if not args.skip_nanogpt:
            best = float("inf")
            for _ in range(args.repeat):
                out = root / "nanogpt"
                shutil.rmtree(out, ignore_errors=True)
                out.mkdir()
                cmd = [python, "-c", NANOGPT, ",".join(files), str(out), str(args.workers)]
                best = min(best, timed(cmd, env))
            rows.append((f"nanoGPT's way (datasets.map(num_proc={args.workers}), tiktoken)", best))
        for engine in args.engines.split(","):
            best = float("inf")
            for _ in range(args.repeat):
                out = root / f"out-{engine}"
                shutil.rmtree(out, ignore_errors=True)
                cmd = [python, "-m", "verified_bpe", "corpus", str(data), "-o", str(out)]
                cmd += ["--format", "nanogpt", "--engine", engine, "--workers", str(args.workers)]
                cmd += ["--shard-mb", str(max(1.0, args.mb / 8))]
                best = min(best, timed(cmd, env))
            rows.append((f"verified_bpe corpus --engine {engine} --format nanogpt", best))
        base = rows[0][1] if not args.skip_nanogpt else None
        for label, wall in rows:
            ratio = f"{base / wall:.2f}×" if base else "-"
            print(f"| {label} | {wall:.2f} | {size / 1e6 / wall:.2f} | {ratio} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
