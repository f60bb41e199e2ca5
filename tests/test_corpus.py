"""The corpus command: every document once, ids equal to tiktoken's (the oracle), each
output format read back by a reader written here from the format's published layout
(Megatron-LM's indexed dataset ``.idx``/``.bin``; nanoGPT's flat ``.bin``; Parquet through
pyarrow), byte-identical shards for any worker count and engine, resume, bad input.

The Dask and Ray runs start a local cluster (20-45 s each on the shared 2-core guest): opt-in
with ``VERIFIED_BPE_ENGINE_TESTS=1``, which CI's ``make test-engines`` sets."""

from __future__ import annotations

import json
import os
import struct
import sys
from pathlib import Path

import pytest

pa = pytest.importorskip("pyarrow")
np = pytest.importorskip("numpy")
pytest.importorskip("tiktoken")
import pyarrow.parquet as pq  # noqa: E402

from verified_bpe.cli import main  # noqa: E402
from verified_bpe.data.corpus import FAIL_ONCE_ENV, run_corpus  # noqa: E402
from verified_bpe.engine.vocab import tiktoken_encoding  # noqa: E402

CLUSTERS = pytest.mark.skipif(
    not os.environ.get("VERIFIED_BPE_ENGINE_TESTS"),
    reason="starts a Dask or Ray cluster (20-45 s): set VERIFIED_BPE_ENGINE_TESTS=1",
)
EOT = 100257  # cl100k_base's <|endoftext|>


@pytest.fixture
def corpus(tmp_path):
    """Inputs of every kind; the expected documents as (source, index, text)."""
    root = tmp_path / "in"
    (root / "sub").mkdir(parents=True)
    docs = []
    for k, text in enumerate(["hello world\n", "caf\u00e9 \u65e5\u672c\u8a9e \U0001f600", ""]):
        path = root / f"t{k}.txt"
        path.write_text(text, encoding="utf-8")
        docs.append((str(path), 0, text))
    lines = ["x y", "<|endoftext|> is text here", "", "def f(x):\n    return x\n" * 30]
    path = root / "sub" / "d.jsonl"
    path.write_text("\n".join(json.dumps({"text": t, "n": 1}) for t in lines) + "\n")
    docs += [(str(path), i, t) for i, t in enumerate(lines)]
    rows = ["p1", "p2 \u00e9\u00e9", "  spaces  "]
    path = root / "sub" / "e.parquet"
    pq.write_table(pa.table({"text": rows}), path)
    docs += [(str(path), i, t) for i, t in enumerate(rows)]
    order = sorted({d[0] for d in docs})  # a folder's files are taken sorted
    return str(root), sorted(docs, key=lambda d: (order.index(d[0]), d[1]))


def oracle_ids(docs, eot=False):
    enc = tiktoken_encoding("cl100k_base")
    return [enc.encode_ordinary(text) + ([EOT] if eot else []) for _, _, text in docs]


def shard_files(out, suffix):
    return sorted(p for p in os.listdir(out) if p.endswith(suffix))


def read_parquet(out):
    rows = []
    for name in shard_files(out, ".parquet"):
        rows += pq.read_table(os.path.join(out, name)).to_pylist()
    return rows


def read_megatron(out):
    """Megatron-LM's ``.idx``: 9-byte header ``MMIDIDX\\0\\0``, u64 version 1, u8 dtype code
    (8 uint16, 4 int32), u64 sequence count, u64 document count, i32 lengths, i64 byte
    pointers, i64 document indices; the ``.bin`` holds the ids."""
    docs = []
    for name in shard_files(out, ".idx"):
        idx = Path(os.path.join(out, name)).read_bytes()
        assert idx[:9] == b"MMIDIDX\x00\x00"
        version, code, n_seq, n_doc = struct.unpack_from("<QBQQ", idx, 9)
        assert version == 1 and n_doc == n_seq + 1
        dtype = {8: "<u2", 4: "<i4"}[code]
        at = 9 + 8 + 1 + 8 + 8
        lengths = np.frombuffer(idx, "<i4", n_seq, at)
        pointers = np.frombuffer(idx, "<i8", n_seq, at + 4 * n_seq)
        doc_index = np.frombuffer(idx, "<i8", n_doc, at + 12 * n_seq)
        assert doc_index.tolist() == list(range(n_seq + 1))
        assert len(idx) == at + 12 * n_seq + 8 * n_doc
        data = Path(os.path.join(out, name[:-4] + ".bin")).read_bytes()
        size = np.dtype(dtype).itemsize
        for length, pointer in zip(lengths, pointers, strict=True):
            docs.append(np.frombuffer(data, dtype, int(length), int(pointer)).tolist())
        assert len(data) == size * int(lengths.sum())
    return docs


def read_nanogpt(out):
    """nanoGPT's ``.bin``: the ids, EOT after every document; uint16 when the vocabulary
    fits (GPT-2's), else uint32 (cl100k_base's 100,277 ids)."""
    dtype = "<u2" if tiktoken_encoding("cl100k_base").n_vocab <= 1 << 16 else "<u4"
    docs = []
    for name in shard_files(out, ".bin"):
        ids = np.fromfile(os.path.join(out, name), dtype=dtype).tolist()
        assert ids[-1:] == [EOT] or not ids
        current = []
        for i in ids:
            current.append(i)
            if i == EOT:
                docs.append(current)
                current = []
    return docs


def shard_bytes_of(out):
    return {n: Path(os.path.join(out, n)).read_bytes() for n in os.listdir(out)}


@pytest.mark.parametrize("fmt", ["parquet", "megatron", "nanogpt"])
def test_formats_read_back_as_tiktoken(corpus, tmp_path, fmt):
    root, docs = corpus
    out = str(tmp_path / fmt)
    manifest = run_corpus([root], out, fmt=fmt, workers=2, shard_bytes=300)
    assert manifest["complete"] and len(manifest["shards"]) > 1
    assert manifest["documents"] == len(docs)
    if fmt == "parquet":
        rows = read_parquet(out)
        assert [(r["source"], r["index"]) for r in rows] == [(s, i) for s, i, _ in docs]
        assert [r["ids"] for r in rows] == oracle_ids(docs)
    elif fmt == "megatron":
        assert read_megatron(out) == oracle_ids(docs)
    else:
        assert read_nanogpt(out) == oracle_ids(docs, eot=True)
    assert manifest["tokens"] == sum(len(d) for d in oracle_ids(docs, eot=fmt == "nanogpt"))
    on_disk = json.loads(Path(os.path.join(out, "manifest.json")).read_text())
    assert on_disk == manifest
    for shard in manifest["shards"]:
        import hashlib

        data = Path(os.path.join(out, shard["file"])).read_bytes()
        assert hashlib.sha256(data).hexdigest() == shard["sha256"]


def test_same_bytes_for_any_worker_count_and_eot(corpus, tmp_path):
    root, docs = corpus
    one = str(tmp_path / "one")
    two = str(tmp_path / "two")
    run_corpus([root], one, fmt="megatron", workers=1, eot=True, shard_bytes=300)
    run_corpus([root], two, fmt="megatron", workers=2, eot=True, shard_bytes=300)
    a, b = shard_bytes_of(one), shard_bytes_of(two)
    a.pop("manifest.json"), b.pop("manifest.json")
    assert a == b
    assert read_megatron(one) == oracle_ids(docs, eot=True)


def test_resume_skips_complete_shards_and_rebuilds_bad_ones(corpus, tmp_path):
    root, _ = corpus
    out = str(tmp_path / "out")
    run_corpus([root], out, shard_bytes=300)
    before = shard_bytes_of(out)
    stamps = {n: os.stat(os.path.join(out, n)).st_mtime_ns for n in before}
    run_corpus([root], out, shard_bytes=300)
    assert shard_bytes_of(out) == before
    for name in before:
        if name != "manifest.json":
            assert os.stat(os.path.join(out, name)).st_mtime_ns == stamps[name], name
    victim = shard_files(out, ".parquet")[0]
    with open(os.path.join(out, victim), "r+b") as f:
        f.write(b"XX")  # damaged: its SHA-256 no longer matches
    run_corpus([root], out, shard_bytes=300)
    assert shard_bytes_of(out) == before


def test_interrupted_run_leaves_no_false_shard(corpus, tmp_path, capsys):
    """A bad input in a later shard: the earlier shards are complete, the manifest says
    ``complete: false``, no shard of the bad input, no temporary file."""
    root, _ = corpus
    bad = os.path.join(root, "zz.jsonl")
    with open(bad, "w") as f:
        f.write('{"text": "fine"}\n{"text": 3}\n')
    out = str(tmp_path / "out")
    assert main(["corpus", root, "--output", out, "--shard-mb", "0.0003"]) == 1
    assert capsys.readouterr().err.strip().endswith(f"{bad}:2: field 'text' is int, not a string")
    manifest = json.loads(Path(os.path.join(out, "manifest.json")).read_text())
    assert manifest["complete"] is False
    assert not [n for n in os.listdir(out) if n.endswith(".tmp")]
    assert manifest["shards"] and manifest["documents"] < 11
    os.remove(bad)
    assert main(["corpus", root, "--output", out, "--shard-mb", "0.0003"]) == 0
    assert json.loads(Path(os.path.join(out, "manifest.json")).read_text())["complete"]


@pytest.mark.parametrize(
    "name, content, message",
    [
        ("a.jsonl", b'{"text": "ok"}\n{"text": oops}\n', "a.jsonl:2: malformed JSON"),
        ("b.jsonl", b'{"text": "ok"}\n\n{"body": "x"}\n', "b.jsonl:3: no field 'text'"),
        ("c.jsonl", b'{"text": null}\n', "c.jsonl:1: field 'text' is NoneType, not a string"),
        ("d.jsonl", b"[1]\n", "d.jsonl:1: not a JSON object"),
        ("e.txt", b"ok\n\xff", "e.txt: invalid UTF-8 at byte 3"),
    ],
)
def test_bad_input_is_one_line_naming_the_place(tmp_path, capsys, name, content, message):
    path = tmp_path / name
    path.write_bytes(content)
    out = tmp_path / "out"
    assert main(["corpus", str(path), "--output", str(out), "--format", "nanogpt"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
    assert not list(out.glob("shard-*"))


def test_bad_parquet_and_missing_inputs(tmp_path, capsys):
    table = pa.table({"text": ["a", None], "n": [1, 2]})
    pq.write_table(table, tmp_path / "n.parquet")
    out = str(tmp_path / "out")
    assert main(["corpus", str(tmp_path / "n.parquet"), "--output", out]) == 1
    assert "n.parquet:1: column 'text' is null" in capsys.readouterr().err
    assert main(["corpus", str(tmp_path / "n.parquet"), "--output", out, "--text-field", "n"]) == 1
    assert "column 'n' is int64, not a string" in capsys.readouterr().err
    assert main(["corpus", str(tmp_path / "nothing*.txt"), "--output", out]) == 1
    assert "no such file, directory or matching glob" in capsys.readouterr().err


def test_errors_replace(tmp_path):
    (tmp_path / "e.txt").write_bytes(b"ok\n\xff")
    out = str(tmp_path / "out")
    assert main(["corpus", str(tmp_path / "e.txt"), "-o", out, "--errors", "replace"]) == 0
    assert read_parquet(out)[0]["ids"] == tiktoken_encoding("cl100k_base").encode_ordinary(
        "ok\n\ufffd"
    )


@CLUSTERS
@pytest.mark.parametrize("engine", ["dask", "ray"])
def test_engines_give_the_local_bytes_and_retry(corpus, tmp_path, monkeypatch, engine):
    root, docs = corpus
    local = str(tmp_path / "local")
    run_corpus([root], local, fmt="megatron", shard_bytes=300)
    monkeypatch.setenv(FAIL_ONCE_ENV, str(tmp_path / "failed-once"))
    out = str(tmp_path / engine)
    manifest = run_corpus([root], out, fmt="megatron", engine=engine, workers=2, shard_bytes=300)
    assert (tmp_path / "failed-once").exists()  # a task failed and was retried
    assert manifest["complete"]
    a, b = shard_bytes_of(local), shard_bytes_of(out)
    a.pop("manifest.json"), b.pop("manifest.json")
    assert a == b
    assert read_megatron(out) == oracle_ids(docs)


def test_input_error_crosses_processes():
    """A worker's input error reaches the driver whole (Dask and Ray pickle it)."""
    import pickle

    from verified_bpe.data.corpus import CorpusInputError

    error = pickle.loads(pickle.dumps(CorpusInputError("a.jsonl:3", "no field 'text'")))
    assert (str(error), error.where) == ("a.jsonl:3: no field 'text'", "a.jsonl:3")


@CLUSTERS
@pytest.mark.parametrize("engine", ["dask", "ray"])
def test_engine_bad_input_is_one_line(tmp_path, capsys, engine):
    (tmp_path / "a.jsonl").write_text('{"text": "x"}\n{"txt": "y"}\n')
    out = str(tmp_path / "out")
    args = ["corpus", str(tmp_path), "-o", out, "--engine", engine, "--workers", "1"]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a.jsonl:2: no field 'text'" in err, err


@pytest.mark.parametrize("engine, module", [("dask", "distributed"), ("ray", "ray")])
def test_missing_engine_names_the_install(tmp_path, capsys, monkeypatch, engine, module):
    (tmp_path / "a.txt").write_text("x")
    monkeypatch.setitem(sys.modules, module, None)
    args = ["corpus", str(tmp_path / "a.txt"), "-o", str(tmp_path / "out"), "--engine", engine]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"pip install 'verified-bpe[{engine}]'" in err, err


def test_progress_only_on_a_terminal(corpus, tmp_path, capsys):
    import io

    root, docs = corpus
    assert main(["corpus", root, "-o", str(tmp_path / "quiet")]) == 0
    assert capsys.readouterr().err == ""

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Terminal()
    run_corpus([root], str(tmp_path / "shown"), shard_bytes=300, progress=screen)
    last = screen.getvalue().rstrip("\n").split("\r")[-1]
    assert f"documents {len(docs)}" in last and "MB/s" in last and "tokens" in last


def test_dask_engine_on_an_in_process_cluster(corpus, tmp_path, monkeypatch):
    """``--engine dask --address`` on a Dask ``LocalCluster`` of 2 in-process workers (about
    2 s to start, cheap enough for CI when dask is installed): the local engine's bytes,
    with a task made to fail once and retried."""
    distributed = pytest.importorskip("distributed")
    root, docs = corpus
    local = str(tmp_path / "local")
    run_corpus([root], local, fmt="megatron", shard_bytes=300)
    monkeypatch.setenv(FAIL_ONCE_ENV, str(tmp_path / "failed-once"))
    out = str(tmp_path / "dask")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        manifest = run_corpus(
            [root],
            out,
            fmt="megatron",
            engine="dask",
            address=cluster.scheduler_address,
            shard_bytes=300,
        )
    assert (tmp_path / "failed-once").exists()
    assert manifest["complete"]
    a, b = shard_bytes_of(local), shard_bytes_of(out)
    a.pop("manifest.json"), b.pop("manifest.json")
    assert a == b
    assert read_megatron(out) == oracle_ids(docs)
