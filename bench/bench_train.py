"""Training throughput: the incremental trainer vs minbpe's textbook loop.

Usage (from the repository root)::

    PYTHONPATH=python python bench/bench_train.py [--mb 1.0] [--vocab-sizes 512 1024]
        [--pattern cl100k_base] [--naive-kb 50] [--basic]

Trains ``RegexTokenizer`` (split pattern ``--pattern``) on the first ``--mb`` megabytes
(10^6 bytes, UTF-8) of CPython's standard library sources, once per vocabulary size, and
prints the wall time (pre-tokenization included; it is also timed alone) and merges per
second.  For comparison the
naive loop (recount every pair at every step, as minbpe does) is timed on ``--naive-kb``
kilobytes of the same text, and both must learn the same merges there.  ``--basic`` also times
``BasicTokenizer`` (no split pattern) on the full corpus at the smallest vocabulary size.
One run each; no warm-up.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

from verified_bpe.api.train import BasicTokenizer, RegexTokenizer  # noqa: E402
from verified_bpe.engine.patterns import PATTERNS, pre_tokenize_regex  # noqa: E402
from verified_bpe.spec.seed.merge import get_stats, merge  # noqa: E402
from verified_bpe.verify import corpus  # noqa: E402

Pair = tuple[int, int]


def stdlib_text(megabytes: float) -> str:
    """The first ``megabytes`` MB of the standard library's top-level ``*.py`` files."""
    limit = int(megabytes * 1_000_000)
    return corpus.stdlib_text(limit).encode("utf-8")[:limit].decode("utf-8", errors="ignore")


def naive_train(chunks: list[bytes], num_merges: int) -> dict[Pair, int]:
    """minbpe's loop: recount all pairs of all chunks at every step (with the spec's
    ``get_stats`` and ``merge``)."""
    ids = [list(chunk) for chunk in chunks]
    merges: dict[Pair, int] = {}
    for k in range(num_merges):
        stats: dict[Pair, int] = {}
        for chunk_ids in ids:
            for pair, count in get_stats(chunk_ids).items():
                stats[pair] = stats.get(pair, 0) + count
        if not stats:
            break
        best = max(stats, key=stats.get)
        merges[best] = 256 + k
        ids = [merge(chunk_ids, best, 256 + k) for chunk_ids in ids]
    return merges


def report(label: str, mb: float, n_merges: int, seconds: float) -> None:
    rate = n_merges / seconds if seconds else float("inf")
    print(f"{label:<34} {mb:7.3f} MB {n_merges:6d} merges {seconds:8.2f} s {rate:9.0f} merges/s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=1.0, help="corpus size in MB (10^6 bytes)")
    parser.add_argument("--vocab-sizes", type=int, nargs="+", default=[512, 1024])
    parser.add_argument("--pattern", default="cl100k_base", choices=sorted(PATTERNS))
    parser.add_argument("--naive-kb", type=float, default=50.0, help="naive loop corpus, KB")
    parser.add_argument("--basic", action="store_true", help="also time BasicTokenizer")
    args = parser.parse_args()

    text = stdlib_text(args.mb)
    mb = len(text.encode("utf-8")) / 1e6
    print(f"corpus: CPython stdlib sources, {mb:.3f} MB, pattern {args.pattern}")
    start = time.perf_counter()
    chunks = pre_tokenize_regex(text, PATTERNS[args.pattern])
    elapsed = time.perf_counter() - start
    print(
        f"pre-tokenization alone: {elapsed:.2f} s, "
        f"{len(chunks)} chunks, {len(set(chunks))} distinct"
    )
    for vocab_size in args.vocab_sizes:
        tokenizer = RegexTokenizer(args.pattern)
        start = time.perf_counter()
        tokenizer.train(text, vocab_size)
        elapsed = time.perf_counter() - start
        report(f"RegexTokenizer incremental v={vocab_size}", mb, len(tokenizer.merges), elapsed)
    if args.basic:
        tokenizer = BasicTokenizer()
        start = time.perf_counter()
        tokenizer.train(text, min(args.vocab_sizes))
        elapsed = time.perf_counter() - start
        report(
            f"BasicTokenizer incremental v={min(args.vocab_sizes)}",
            mb,
            len(tokenizer.merges),
            elapsed,
        )

    small = text.encode("utf-8")[: int(args.naive_kb * 1000)].decode("utf-8", errors="ignore")
    small_mb = len(small.encode("utf-8")) / 1e6
    vocab_size = min(args.vocab_sizes)
    tokenizer = RegexTokenizer(args.pattern)
    start = time.perf_counter()
    tokenizer.train(small, vocab_size)
    fast_s = time.perf_counter() - start
    report(f"RegexTokenizer incremental v={vocab_size}", small_mb, len(tokenizer.merges), fast_s)
    start = time.perf_counter()
    merges = naive_train(pre_tokenize_regex(small, tokenizer.pattern), vocab_size - 256)
    naive_s = time.perf_counter() - start
    report(f"naive (minbpe loop) v={vocab_size}", small_mb, len(merges), naive_s)
    same = list(merges.items()) == list(tokenizer.merges.items())
    print(f"same merges: {same}; speed-up on this input: {naive_s / fast_s:.0f}x")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
