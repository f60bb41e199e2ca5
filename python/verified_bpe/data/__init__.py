"""Tokenizing data sets: Arrow arrays (:mod:`verified_bpe.data.arrow`), the Ray Data and Dask
adapters (:mod:`verified_bpe.data.engines`) and whole corpora to shards
(:mod:`verified_bpe.data.corpus`, the ``corpus`` command).

A layer beside :mod:`verified_bpe.api` (nothing below imports it).  pyarrow, dask and ray are
optional extras: ``import verified_bpe.data`` works without them, and a call that needs one
raises :class:`~verified_bpe.errors.MissingExtraError` naming the ``pip install``.
"""

from __future__ import annotations

from .arrow import count_arrow, encode_arrow

__all__ = ["count_arrow", "encode_arrow"]
