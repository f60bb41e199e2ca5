"""The Ray Data and Dask adapters and cheap pickling of encodings.

The adapters' functions are checked in process against tiktoken (cheap, in CI).  Runs on a
real local cluster (Dask ``LocalCluster(n_workers=2)``, ``ray.init(num_cpus=2)``) start one
(measured on the shared 2-core guest: 19 s for the Dask cluster, 21-24 s for ``ray.init``),
so they need ``VERIFIED_BPE_ENGINE_TESTS=1`` with dask/distributed/ray installed
(``make test-engines``)."""

from __future__ import annotations

import os
import pickle

import pytest

pa = pytest.importorskip("pyarrow")
pytest.importorskip("tiktoken")

import verified_bpe  # noqa: E402
from verified_bpe.api import registry  # noqa: E402
from verified_bpe.data.engines import RayTokenizer, dask_tokenize  # noqa: E402
from verified_bpe.engine.vocab import tiktoken_encoding  # noqa: E402
from verified_bpe.errors import MalformedVocabError  # noqa: E402

TEXTS = ["hello world", "caf\u00e9 \u65e5\u672c", "", "def f(x):\n    return x\n" * 40]
CLUSTERS = pytest.mark.skipif(
    not os.environ.get("VERIFIED_BPE_ENGINE_TESTS"),
    reason="starts a Dask or Ray cluster (20-40 s): set VERIFIED_BPE_ENGINE_TESTS=1",
)


def expected(rows):
    oracle = tiktoken_encoding("cl100k_base")
    return [None if r is None else oracle.encode_ordinary(r) for r in rows]


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base", "o200k_harmony"])
def test_registered_encoding_pickles_by_name_and_hash(name):
    enc = verified_bpe.get_encoding(name)
    blob = pickle.dumps(enc)
    assert len(blob) < 200  # not the 100k-200k entry table
    assert pickle.loads(blob) is enc
    assert registry.ranks_sha256(name).encode() in blob


def test_pickle_refuses_another_rank_table(monkeypatch):
    blob = pickle.dumps(verified_bpe.get_encoding("cl100k_base"))
    monkeypatch.setattr(registry, "ranks_sha256", lambda name: "0" * 64)
    with pytest.raises(MalformedVocabError, match="pickled with rank table"):
        pickle.loads(blob)


def test_ray_tokenizer_on_a_table():
    tokenize = pickle.loads(pickle.dumps(RayTokenizer("cl100k_base", ids_field="tokens")))
    rows = [*TEXTS, None]
    out = tokenize(pa.table({"text": rows, "n": list(range(len(rows)))}))
    assert out.column_names == ["text", "n", "tokens"]
    assert out.column("tokens").to_pylist() == expected(rows)


def test_dask_partition_function():
    pd = pytest.importorskip("pandas")
    from verified_bpe.data.engines import _tokenize_partition

    frame = pd.DataFrame({"text": [*TEXTS, None]}, index=[5, 6, 7, 8, 9])
    enc = verified_bpe.get_encoding("cl100k_base")
    out = _tokenize_partition(frame, enc, "text", "ids", 1)
    assert [None if v is pd.NA else list(v) for v in out["ids"].tolist()] == expected(
        [*TEXTS, None]
    )
    assert list(out.index) == [5, 6, 7, 8, 9]


@CLUSTERS
def test_dask_local_cluster():
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    distributed = pytest.importorskip("distributed")
    texts = TEXTS * 10
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster),
    ):
        frame = dd.from_pandas(pd.DataFrame({"text": texts}), npartitions=4)
        out = dask_tokenize(frame, "cl100k_base").compute()
    assert [list(v) for v in out["ids"].tolist()] == expected(texts)


@CLUSTERS
def test_ray_data_map_batches():
    pytest.importorskip("ray")
    import ray
    import ray.data

    texts = TEXTS * 10
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        ds = ray.data.from_items([{"k": k, "text": t} for k, t in enumerate(texts)])
        rows = ds.map_batches(
            RayTokenizer,
            fn_constructor_kwargs={"encoding": "cl100k_base"},
            batch_format="pyarrow",
            compute=ray.data.ActorPoolStrategy(size=2),
        ).take_all()
    finally:
        ray.shutdown()
    got = {row["k"]: list(row["ids"]) for row in rows}
    assert [got[k] for k in range(len(texts))] == expected(texts)
