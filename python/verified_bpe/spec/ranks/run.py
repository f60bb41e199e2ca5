"""The long-run step as a function: what the native engine's ``bpe_run`` (rust/src/ranks.rs)
computes on a piece ``u + c^n + v``, through a window ``u + c^m + v``.

Lean: ``Bpe.Ranks.Run``.  ``Bpe.Ranks.Run.bytePairMerge_eq_of_pumpRun_eq_some`` proves that
whatever :func:`pump_run` returns is :func:`~verified_bpe.spec.ranks.basic.byte_pair_merge` of
the whole piece, for every rank table and every window length.
"""

from __future__ import annotations

from collections.abc import Sequence

from .basic import RankTable, byte_pair_merge


def twin_parts(
    lo: int, hi: int, d: int, pos: int, parts: Sequence[bytes]
) -> tuple[list[bytes], int, list[bytes]] | None:
    """The first two adjacent parts (the first part starting at byte ``pos``) that lie in the
    bytes ``[lo, hi)`` and have one length ``w`` with ``d % w == 0`` (``d % 0`` is ``d``, as in
    Lean): the parts before them, ``w``, and the parts after them.
    Lean: ``Bpe.Ranks.Run.twinParts``.
    """
    for k in range(len(parts) - 1):
        x, y = parts[k], parts[k + 1]
        w = len(x)
        if lo <= pos and pos + w + len(y) <= hi and w == len(y) and (d % w if w else d) == 0:
            return list(parts[:k]), w, list(parts[k + 2 :])
        pos += w
    return None


def pump_run(ranks: RankTable, u: bytes, c: int, n: int, m: int, v: bytes) -> list[bytes] | None:
    """The long-run step on ``u + c^n + v`` with the window ``u + c^m + v``: merge the window,
    find two adjacent parts inside its run of one length ``w`` dividing ``n - m``
    (:func:`twin_parts`), and repeat them ``2 + (n - m) // w`` times; ``None`` when ``n < m`` or
    there is no such pair.  Lean: ``Bpe.Ranks.Run.pumpRun``.
    """
    if m > n:
        return None
    window = byte_pair_merge(ranks, u + bytes([c]) * m + v)
    found = twin_parts(len(u), len(u) + m, n - m, 0, window)
    if found is None:
        return None
    before, w, after = found
    copies = 2 + ((n - m) // w if w else 0)  # Lean's `/ 0` is 0
    return before + [bytes([c]) * w] * copies + after
