"""Whole corpora to token shards: the ``corpus`` command (``python -m verified_bpe corpus``).

The plan is a pure function of the inputs: the input files (in the order given, a directory's
or glob's files sorted) are cut into shards of consecutive files of about
``shard_bytes`` bytes (a larger file is a shard of its own).  Each shard is built by
:func:`build_shard`, the same function on every engine (``local``: one shard at a time, the
flat batch on every core; ``dask``/``ray``: one task per shard), so the output is
byte-identical whatever the engine and the worker count.  A shard is written to a temporary
file and renamed into place once complete; ``manifest.json`` (also renamed into place) records
each finished shard with its SHA-256, so a rerun skips the shards that match.

Formats:

* ``parquet``: ``shard-NNNNN.parquet`` with columns ``source`` (the input path as given),
  ``index`` (int64: the 0-based line of a ``.jsonl``, row of a ``.parquet``, 0 for a ``.txt``)
  and ``ids`` (``list<uint32>``).
* ``megatron``: Megatron-LM's indexed dataset, ``shard-NNNNN.bin`` (the ids, ``uint16`` when
  the vocabulary has fewer than 65,500 ids, else ``int32``) and ``shard-NNNNN.idx`` (header
  ``MMIDIDX\\0\\0``, version 1, dtype code, sequence and document counts, sequence lengths,
  byte pointers, document indices), one sequence per document.
* ``nanogpt``: ``shard-NNNNN.bin``, the ids of every document followed by EOT, ``uint16`` when
  the vocabulary fits, else ``uint32`` (nanoGPT's ``prepare.py`` layout).

No Lean counterpart.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import struct
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..api.registry import get_encoding, ranks_sha256
from ..errors import BpeError, require
from .arrow import encode_arrow, pyarrow

FORMATS = ("parquet", "megatron", "nanogpt")
ENGINES = ("local", "dask", "ray")
SUFFIXES = (".txt", ".jsonl", ".parquet")
#: Input bytes per shard (consecutive files are grouped up to this size).
SHARD_BYTES = 64_000_000
#: A test hook: when set to a path, the first shard task to run fails once (creating the
#: file), so that the tests can see the engine retry it.
FAIL_ONCE_ENV = "VERIFIED_BPE_CORPUS_FAIL_ONCE"
_MEGATRON_HEADER = b"MMIDIDX\x00\x00"
_MEGATRON_DTYPES = {"uint16": 8, "int32": 4}


class CorpusInputError(BpeError):
    """An input of the corpus command cannot be read as documents: ``where`` is
    ``file:line``, ``file:row`` or ``file`` (``str(error)`` is ``where: why``)."""

    def __init__(self, where: str, why: str) -> None:
        super().__init__(f"{where}: {why}")
        self.where = where
        self.why = why

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled with both arguments (it crosses from a Dask or Ray worker)."""
        return type(self), (self.where, self.why)


@dataclass(frozen=True)
class ShardSpec:
    """What one shard holds and how it is written (picklable: sent to the workers)."""

    number: int
    inputs: tuple[str, ...]
    output: str
    format: str
    encoding: str
    text_field: str = "text"
    eot: bool = False
    errors: str = "strict"
    num_threads: int = 1

    @property
    def stem(self) -> str:
        return f"shard-{self.number:05d}"

    def files(self) -> list[str]:
        """The file names of this shard in the output directory."""
        if self.format == "parquet":
            return [f"{self.stem}.parquet"]
        if self.format == "megatron":
            return [f"{self.stem}.bin", f"{self.stem}.idx"]
        return [f"{self.stem}.bin"]


@dataclass
class Documents:
    """The documents of a shard: sources, indices and texts (an Arrow string array)."""

    sources: list[str] = field(default_factory=list)
    indices: list[int] = field(default_factory=list)
    texts: list[Any] = field(default_factory=list)  # Arrow arrays, concatenated later


# ---------------------------------------------------------------------------- inputs
def expand_inputs(patterns: Sequence[str]) -> list[str]:
    """Every input file: each argument as a file, a directory (its ``.txt``/``.jsonl``/
    ``.parquet`` files, recursively, sorted) or a glob (sorted); in the order given, each
    file once.  :class:`CorpusInputError` for an argument that names nothing."""
    out: list[str] = []
    for pattern in patterns:
        if os.path.isdir(pattern):
            found = sorted(
                str(p) for p in Path(pattern).rglob("*") if p.suffix in SUFFIXES and p.is_file()
            )
        elif os.path.exists(pattern):
            found = [pattern]
        else:
            found = sorted(p for p in glob.glob(pattern, recursive=True) if os.path.isfile(p))
        if not found:
            raise CorpusInputError(pattern, "no such file, directory or matching glob")
        for path in found:
            if Path(path).suffix not in SUFFIXES:
                raise CorpusInputError(path, f"not one of {', '.join(SUFFIXES)}")
            if path not in out:
                out.append(path)
    return out


def plan_shards(files: Sequence[str], shard_bytes: int = SHARD_BYTES) -> list[tuple[str, ...]]:
    """Consecutive files grouped into shards of at most ``shard_bytes`` input bytes (a larger
    file alone): deterministic for the same files and sizes."""
    shards: list[tuple[str, ...]] = []
    group: list[str] = []
    size = 0
    for path in files:
        try:
            n = os.stat(path).st_size
        except OSError as exc:
            raise CorpusInputError(path, exc.strerror or str(exc)) from None
        if group and size + n > shard_bytes:
            shards.append(tuple(group))
            group, size = [], 0
        group.append(path)
        size += n
    if group:
        shards.append(tuple(group))
    return shards


def _read_bytes(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as exc:
        raise CorpusInputError(path, exc.strerror or str(exc)) from None


def _read_txt(path: str, errors: str, docs: Documents, pa: Any) -> None:
    data = _read_bytes(path)
    try:
        text = data.decode("utf-8", errors=errors)
    except UnicodeDecodeError as exc:
        raise CorpusInputError(
            path, f"invalid UTF-8 at byte {exc.start} (--errors replace to replace it)"
        ) from None
    docs.sources.append(path)
    docs.indices.append(0)
    docs.texts.append(pa.array([text], pa.large_string()))


def _read_jsonl(path: str, field_name: str, errors: str, docs: Documents, pa: Any) -> None:
    data = _read_bytes(path)
    texts: list[str] = []
    for number, line in enumerate(data.split(b"\n")):
        if not line.strip():
            continue
        where = f"{path}:{number + 1}"
        try:
            record = json.loads(line.decode("utf-8", errors=errors))
        except UnicodeDecodeError as exc:
            raise CorpusInputError(
                where, f"invalid UTF-8 at byte {exc.start} of the line"
            ) from None
        except ValueError as exc:
            raise CorpusInputError(where, f"malformed JSON ({exc})") from None
        if not isinstance(record, dict):
            raise CorpusInputError(where, f"not a JSON object but {type(record).__name__}")
        if field_name not in record:
            raise CorpusInputError(where, f"no field {field_name!r}")
        value = record[field_name]
        if not isinstance(value, str):
            raise CorpusInputError(
                where, f"field {field_name!r} is {type(value).__name__}, not a string"
            )
        texts.append(value)
        docs.sources.append(path)
        docs.indices.append(number)
    docs.texts.append(pa.array(texts, pa.large_string()))


def _read_parquet(path: str, field_name: str, docs: Documents, pa: Any) -> None:
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path, columns=[field_name])
    except (OSError, pa.ArrowException) as exc:
        raise CorpusInputError(path, str(exc).splitlines()[0]) from None
    column = table.column(field_name)
    if not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
        raise CorpusInputError(path, f"column {field_name!r} is {column.type}, not a string")
    if column.null_count:
        row = column.is_null().to_pylist().index(True)
        raise CorpusInputError(f"{path}:{row}", f"column {field_name!r} is null")
    docs.sources += [path] * len(column)
    docs.indices += range(len(column))
    docs.texts += [chunk.cast(pa.large_string()) for chunk in column.chunks]


def read_documents(spec: ShardSpec) -> Documents:
    """The documents of ``spec``'s inputs, in order."""
    pa = pyarrow("the corpus command")
    docs = Documents()
    for path in spec.inputs:
        suffix = Path(path).suffix
        if suffix == ".txt":
            _read_txt(path, spec.errors, docs, pa)
        elif suffix == ".jsonl":
            _read_jsonl(path, spec.text_field, spec.errors, docs, pa)
        else:
            _read_parquet(path, spec.text_field, docs, pa)
    return docs


# ---------------------------------------------------------------------------- shards
def _ids_dtype(n_vocab: int, fmt: str) -> str:
    if fmt == "megatron":
        return "uint16" if n_vocab < 65500 else "int32"
    return "uint16" if n_vocab <= 1 << 16 else "uint32"


def _write_atomic(path: Path, data: bytes | Callable[[str], None]) -> None:
    """Write ``path`` through a temporary file in the same directory, renamed into place."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        if callable(data):
            data(str(tmp))
        else:
            with open(tmp, "wb") as f:
                f.write(data)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _maybe_fail_once() -> None:
    marker = os.environ.get(FAIL_ONCE_ENV)
    if marker:
        try:
            fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return
        os.close(fd)
        raise RuntimeError(f"{FAIL_ONCE_ENV}: this task fails once")


def build_shard(spec: ShardSpec) -> dict[str, Any]:
    """Read, tokenize and write one shard (each file through a temporary file and a
    rename); its manifest entry."""
    _maybe_fail_once()
    import numpy as np

    pa = pyarrow("the corpus command")
    encoding = get_encoding(spec.encoding)
    docs = read_documents(spec)
    texts = pa.concat_arrays(docs.texts) if docs.texts else pa.array([], pa.large_string())
    ids = encode_arrow(encoding, texts, num_threads=spec.num_threads)
    values = np.frombuffer(ids.values.buffers()[1], dtype=np.uint32)[: len(ids.values)]
    offsets = np.frombuffer(ids.buffers()[1], dtype=np.int64)[: len(ids) + 1]
    eot = spec.eot or spec.format == "nanogpt"
    if eot:  # the EOT id after each document
        lengths = np.diff(offsets) + 1
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        values_eot = np.full(int(offsets[-1]), encoding.eot_token, dtype=np.uint32)
        mask = np.ones(len(values_eot), dtype=bool)
        mask[offsets[1:] - 1] = False
        values_eot[mask] = values
        values = values_eot
    out = Path(spec.output)
    if spec.format == "parquet":
        import pyarrow.parquet as pq

        ids_list = pa.ListArray.from_arrays(
            pa.array(offsets.astype(np.int32)), pa.array(values, pa.uint32())
        )
        table = pa.table(
            {
                "source": pa.array(docs.sources, pa.string()),
                "index": pa.array(docs.indices, pa.int64()),
                "ids": ids_list,
            }
        )
        _write_atomic(out / spec.files()[0], lambda tmp: pq.write_table(table, tmp))
    else:
        dtype = _ids_dtype(encoding.n_vocab, spec.format)
        payload = values.astype(dtype).tobytes()
        if spec.format == "megatron":
            lengths = np.diff(offsets).astype(np.int32)
            pointers = (offsets[:-1] * np.dtype(dtype).itemsize).astype(np.int64)
            count = len(lengths)
            index = b"".join(
                [
                    _MEGATRON_HEADER,
                    struct.pack("<Q", 1),
                    struct.pack("<B", _MEGATRON_DTYPES[dtype]),
                    struct.pack("<Q", count),
                    struct.pack("<Q", count + 1),
                    lengths.astype("<i4").tobytes(),
                    pointers.astype("<i8").tobytes(),
                    np.arange(count + 1, dtype="<i8").tobytes(),
                ]
            )
            _write_atomic(out / spec.files()[0], payload)
            _write_atomic(out / spec.files()[1], index)
        else:
            _write_atomic(out / spec.files()[0], payload)
    hashes = {name: _sha256(out / name) for name in spec.files()}
    return {
        "number": spec.number,
        "file": spec.files()[0],
        "sha256": hashes[spec.files()[0]],
        "files": hashes,
        "inputs": [_input_id(p) for p in spec.inputs],
        "documents": len(docs.sources),
        "tokens": int(offsets[-1]),
        "dtype": "uint32"
        if spec.format == "parquet"
        else _ids_dtype(encoding.n_vocab, spec.format),
        "bytes": sum(os.stat(p).st_size for p in spec.inputs),
    }


def _input_id(path: str) -> dict[str, Any]:
    st = os.stat(path)
    return {"path": path, "size": st.st_size, "mtime_ns": st.st_mtime_ns}


# ---------------------------------------------------------------------------- the run
def _options(spec: ShardSpec) -> dict[str, Any]:
    """What makes a shard's bytes (a manifest entry is reused only if they match)."""
    keys = ("format", "encoding", "text_field", "eot", "errors")
    return {k: v for k, v in asdict(spec).items() if k in keys}


def _reusable(entry: dict[str, Any] | None, spec: ShardSpec) -> bool:
    if entry is None or entry.get("inputs") != [_input_id(p) for p in spec.inputs]:
        return False
    out = Path(spec.output)
    files = entry.get("files", {})
    if sorted(files) != sorted(spec.files()):
        return False
    return all((out / name).is_file() and _sha256(out / name) == h for name, h in files.items())


class Progress:
    """Documents, MB, tokens and MB/s on one line of a terminal (nothing otherwise)."""

    def __init__(self, total: int, stream: Any = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.live = bool(getattr(self.stream, "isatty", lambda: False)())
        self.start = time.perf_counter()
        self.total, self.shards, self.documents, self.bytes, self.tokens = total, 0, 0, 0, 0

    def add(self, entry: dict[str, Any]) -> None:
        self.shards += 1
        self.documents += entry["documents"]
        self.bytes += entry["bytes"]
        self.tokens += entry["tokens"]
        if self.live:
            mb = self.bytes / 1e6
            rate = mb / max(time.perf_counter() - self.start, 1e-9)
            self.stream.write(
                f"\rshards {self.shards}/{self.total}  documents {self.documents:,}  "
                f"{mb:,.1f} MB  tokens {self.tokens:,}  {rate:,.1f} MB/s"
            )
            self.stream.flush()

    def close(self) -> None:
        if self.live:
            self.stream.write("\n")


def _run_local(specs: list[ShardSpec]) -> Iterator[dict[str, Any]]:
    for spec in specs:
        yield build_shard(spec)


def _run_dask(
    specs: list[ShardSpec], workers: int, address: str | None
) -> Iterator[dict[str, Any]]:
    distributed = require("distributed", "'verified-bpe[dask]'", "--engine dask")
    if address:
        client = distributed.Client(address)
        cluster = None
    else:
        cluster = distributed.LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
        )
        client = distributed.Client(cluster)
    try:
        futures = client.map(build_shard, specs, retries=2, pure=False)
        for _, result in distributed.as_completed(futures, with_results=True):
            yield result
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _run_ray(specs: list[ShardSpec], workers: int, address: str | None) -> Iterator[dict[str, Any]]:
    ray = require("ray", "'verified-bpe[ray]'", "--engine ray")
    import logging

    # stderr stays ours (one line on an error): no Ray start-up logs, no workers' output, no
    # report of a failed attempt that Ray retries
    os.environ.setdefault("RAY_IGNORE_UNHANDLED_ERRORS", "1")
    quiet = {"log_to_driver": False, "logging_level": logging.ERROR}
    if address:
        ray.init(address=address, **quiet)
    else:
        ray.init(num_cpus=workers, include_dashboard=False, **quiet)
    try:
        task = ray.remote(max_retries=2, retry_exceptions=True)(build_shard)
        pending = [task.remote(spec) for spec in specs]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            try:
                yield ray.get(done[0])
            except ray.exceptions.RayTaskError as exc:
                cause = getattr(exc, "cause", None)
                if isinstance(cause, CorpusInputError):
                    raise CorpusInputError(cause.where, cause.why) from None
                raise
    finally:
        ray.shutdown()


def run_corpus(
    inputs: Sequence[str],
    output: str,
    *,
    encoding: str = "cl100k_base",
    fmt: str = "parquet",
    engine: str = "local",
    workers: int | None = None,
    address: str | None = None,
    text_field: str = "text",
    eot: bool = False,
    errors: str = "strict",
    command: str = "",
    shard_bytes: int = SHARD_BYTES,
    progress: Any = None,
) -> dict[str, Any]:
    """Tokenize ``inputs`` into shards in ``output`` (see the module docstring); the
    manifest, also written to ``output/manifest.json``."""
    from .. import __version__

    workers = workers or os.cpu_count() or 1
    get_encoding(encoding)
    pyarrow("the corpus command")
    files = expand_inputs(inputs)
    out = Path(output)
    out.mkdir(parents=True, exist_ok=True)
    threads = workers if engine == "local" else 1
    specs = [
        ShardSpec(n, group, str(out), fmt, encoding, text_field, eot, errors, threads)
        for n, group in enumerate(plan_shards(files, shard_bytes))
    ]
    manifest_path = out / "manifest.json"
    old: dict[str, Any] = {}
    if manifest_path.is_file():
        try:
            old = json.loads(manifest_path.read_text(encoding="utf-8"))
        except ValueError:
            old = {}
    options = _options(specs[0]) if specs else {}
    old_shards = {
        e.get("number"): e
        for e in old.get("shards", [])
        if old.get("options") == options and isinstance(e, dict)
    }
    done = {s.number: old_shards[s.number] for s in specs if _reusable(old_shards.get(s.number), s)}
    manifest: dict[str, Any] = {
        "encoding": encoding,
        "ranks_sha256": ranks_sha256(encoding),
        "version": __version__,
        "command": command,
        "options": options,
        "complete": False,
        "documents": 0,
        "tokens": 0,
        "shards": [],
    }

    def save() -> None:
        entries = [done[n] for n in sorted(done)]
        manifest["shards"] = entries
        manifest["documents"] = sum(e["documents"] for e in entries)
        manifest["tokens"] = sum(e["tokens"] for e in entries)
        manifest["complete"] = len(done) == len(specs)
        text = json.dumps(manifest, indent=1, sort_keys=True) + "\n"
        _write_atomic(manifest_path, text.encode("utf-8"))

    todo = [s for s in specs if s.number not in done]
    save()  # an interrupted run leaves a manifest that says `complete: false`
    bar = Progress(len(todo), progress)
    if engine == "local":
        results = _run_local(todo)
    elif engine == "dask":
        results = _run_dask(todo, workers, address)
    else:
        results = _run_ray(todo, workers, address)
    try:
        for entry in results:
            done[entry["number"]] = entry
            bar.add(entry)
            save()
    finally:
        bar.close()
    save()
    return manifest


__all__ = [
    "ENGINES",
    "FORMATS",
    "CorpusInputError",
    "ShardSpec",
    "build_shard",
    "expand_inputs",
    "plan_shards",
    "run_corpus",
]
