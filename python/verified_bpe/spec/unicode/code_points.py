"""The splitting loop over code points, and the chunks of UTF-8 units.

Lean: ``Bpe.Unicode.CodePoints``. The regex theorems for cl100k_base are stated over
``pre_tokenize_code_points``; ``Bpe.Unicode.CodePoints.map_unitChunks`` ties it to the byte loop.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .pretokenize import unit_code_point, utf8_units


def split_code_points(
    next_len: Callable[[Sequence[int]], int], fuel: int, cps: Sequence[int]
) -> list[list[int]]:
    """Lean: ``splitCodePoints``: the next chunk is the first ``next_len(rest)`` code points."""
    chunks: list[list[int]] = []
    rest = list(cps)
    while fuel > 0 and rest:
        n = next_len(rest)
        chunks.append(rest[:n])
        rest = rest[n:]
        fuel -= 1
    return chunks


def pre_tokenize_code_points(
    next_len: Callable[[Sequence[int]], int], cps: Sequence[int]
) -> list[list[int]]:
    """Lean: ``preTokenizeCodePoints``."""
    return split_code_points(next_len, len(cps), cps)


def split_unit_groups(
    next_len: Callable[[Sequence[int]], int], fuel: int, units: Sequence[bytes]
) -> list[list[bytes]]:
    """Lean: ``splitUnitGroups``: ``splitUnits`` with each chunk kept as its units."""
    chunks: list[list[bytes]] = []
    rest = list(units)
    while fuel > 0 and rest:
        n = next_len([unit_code_point(u) for u in rest])
        chunks.append(rest[:n])
        rest = rest[n:]
        fuel -= 1
    return chunks


def code_points(data: bytes) -> list[int]:
    """Lean: ``codePoints``: one code point per UTF-8 unit."""
    return [unit_code_point(u) for u in utf8_units(len(data), data)]


def unit_chunks(next_len: Callable[[Sequence[int]], int], data: bytes) -> list[list[bytes]]:
    """Lean: ``unitChunks``."""
    units = utf8_units(len(data), data)
    return split_unit_groups(next_len, len(units), units)
