"""Adapters that run :func:`~verified_bpe.data.arrow.encode_arrow` inside a data engine.

* Ray Data: :class:`RayTokenizer`, a callable class for
  ``Dataset.map_batches(RayTokenizer, fn_constructor_kwargs={...}, batch_format="pyarrow")``
  (each actor builds its encoding once).
* Dask: :func:`dask_tokenize`, ``map_partitions`` over a dask DataFrame.

Both add a column of ``large_list<uint32>`` ids next to the text column.  An encoding travels
to the workers by name: a registered :class:`~verified_bpe.api.encoding.Encoding` pickles as
its name and rank-table SHA-256 (:func:`~verified_bpe.api.registry.ranks_sha256`), not as its
table.  No Lean counterpart.
"""

from __future__ import annotations

from typing import Any

from ..api.encoding import Encoding
from ..api.registry import get_encoding
from ..errors import require
from .arrow import encode_arrow, pyarrow

DASK_INSTALL = "'verified-bpe[dask]'"


def encoding_of(encoding: str | Encoding) -> Encoding:
    """``encoding`` itself, or the registered encoding of that name."""
    return get_encoding(encoding) if isinstance(encoding, str) else encoding


class RayTokenizer:
    """``map_batches`` function for Ray Data (``batch_format="pyarrow"``): each
    ``pyarrow.Table`` batch gets a column ``ids_field`` with the ids of ``text_field``
    (nulls stay null)."""

    def __init__(
        self,
        encoding: str | Encoding = "cl100k_base",
        text_field: str = "text",
        ids_field: str = "ids",
        num_threads: int = 1,
    ) -> None:
        self.encoding = encoding_of(encoding)
        self.text_field = text_field
        self.ids_field = ids_field
        self.num_threads = num_threads

    def __call__(self, batch: Any) -> Any:
        ids = encode_arrow(
            self.encoding, batch.column(self.text_field), num_threads=self.num_threads
        )
        return batch.append_column(self.ids_field, ids)


def _tokenize_partition(
    frame: Any, encoding: Encoding, text_field: str, ids_field: str, num_threads: int
) -> Any:
    """One pandas partition with the ids column added (an Arrow-backed column)."""
    import pandas as pd

    pa = pyarrow("dask_tokenize")
    texts = pa.array(frame[text_field], from_pandas=True)
    if pa.types.is_null(texts.type):  # an empty or all-null partition
        texts = texts.cast(pa.large_string())
    ids = encode_arrow(encoding, texts, num_threads=num_threads)
    out = frame.copy(deep=False)
    out[ids_field] = pd.Series(ids, index=frame.index, dtype=pd.ArrowDtype(ids.type))
    return out


def dask_tokenize(
    frame: Any,
    encoding: str | Encoding = "cl100k_base",
    *,
    text_field: str = "text",
    ids_field: str = "ids",
    num_threads: int = 1,
) -> Any:
    """``frame`` (a dask DataFrame) with a column ``ids_field``: the ids of ``text_field``,
    computed partition by partition on the workers (``map_partitions``)."""
    require("dask.dataframe", DASK_INSTALL, "dask_tokenize")
    pa = pyarrow("dask_tokenize")
    import pandas as pd

    meta = frame._meta.copy()
    meta[ids_field] = pd.Series([], dtype=pd.ArrowDtype(pa.large_list(pa.uint32())))
    return frame.map_partitions(
        _tokenize_partition,
        encoding_of(encoding),
        text_field,
        ids_field,
        num_threads,
        meta=meta,
    )


__all__ = ["RayTokenizer", "dask_tokenize", "encoding_of"]
