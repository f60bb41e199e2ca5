r"""Shared parts of the Unicode pre-tokenizers: UTF-8 units, code-point classes, the branches
common to cl100k_base and o200k_base, and the splitting loop.

Lean: ``Bpe.Unicode.PreTokenize``.  The input bytes are cut into UTF-8 *units* (the bytes of one
character, :func:`utf8_units`); the branch matchers work on the code points of the units
(:func:`unit_code_point`) and return a length in code points (0 = no match); a chunk is the
concatenation of that many units.  As in :mod:`.pretokenize`, Lean's ``rest`` is ``cps[i:]``.
The character classes come from :mod:`.unicode_tables` (pinned to tiktoken's regex engine);
``first_match`` is the seed's (Lean ``Bpe.Seed.PreTokenize.firstMatch``, re-exported).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..seed.pretokenize import first_match
from .tables import is_l, is_n, is_white_space


def utf8_len(b: int) -> int:
    """Length of the UTF-8 unit that starts with byte ``b`` (1 for a byte that cannot start a
    sequence).  Lean: ``Bpe.Unicode.PreTokenize.utf8Len``."""
    if b < 0xC0:
        return 1
    if b < 0xE0:
        return 2
    if b < 0xF0:
        return 3
    if b < 0xF8:
        return 4
    return 1


def unit_code_point(unit: bytes) -> int:
    """The code point of one UTF-8 unit (U+FFFD for a unit that is not a character).

    Lean: ``Bpe.Unicode.PreTokenize.unitCodePoint``.
    """
    n = len(unit)
    if n == 1:
        return unit[0] if unit[0] < 128 else 0xFFFD
    if n == 2:
        return (unit[0] % 32) * 64 + unit[1] % 64
    if n == 3:
        return (unit[0] % 16) * 4096 + (unit[1] % 64) * 64 + unit[2] % 64
    if n == 4:
        return (unit[0] % 8) * 262144 + (unit[1] % 64) * 4096 + (unit[2] % 64) * 64 + unit[3] % 64
    return 0xFFFD


def utf8_units(fuel: int, data: bytes) -> list[bytes]:
    """Cut ``data`` into UTF-8 units (each non-empty, concatenating back to ``data``).

    Lean: ``Bpe.Unicode.PreTokenize.utf8Units`` (fuel = input length).
    """
    units: list[bytes] = []
    i = 0
    while fuel > 0 and i < len(data):
        n = utf8_len(data[i])
        units.append(data[i : i + n])
        i += n
        fuel -= 1
    return units


def run_length(pred: Callable[[int], bool], cps: Sequence[int], i: int) -> int:
    """Length of the longest run of code points satisfying ``pred`` from ``i``.

    Lean: ``Bpe.Unicode.PreTokenize.runLength``.
    """
    j = i
    while j < len(cps) and pred(cps[j]):
        j += 1
    return j - i


def drop_code_points(n: int, cps: Sequence[int], i: int) -> int:
    """Where the code points after the first ``n`` from ``i`` start (the index form of
    ``List.drop``; never past the end).

    Lean: ``Bpe.Unicode.PreTokenize.dropCodePoints`` (written out there because the compiled
    code of core's ``List.drop`` needs a helper the offline Lean does not ship).
    """
    return min(i + n, len(cps))


def reaches_end(n: int, cps: Sequence[int], i: int) -> bool:
    """Whether the ``n`` code points from ``i`` are all there is.

    Lean: ``Bpe.Unicode.PreTokenize.reachesEnd`` (``(cs.drop n).isEmpty``, written out for
    the offline compiler).
    """
    return drop_code_points(n, cps, i) == len(cps)


def is_newline(c: int) -> bool:
    r"""``[\r\n]``.  Lean: ``Bpe.Unicode.PreTokenize.isNewline``."""
    return c == 10 or c == 13


def is_word_lead(c: int) -> bool:
    r"""``[^\r\n\p{L}\p{N}]``.  Lean: ``Bpe.Unicode.PreTokenize.isWordLead``."""
    return not is_newline(c) and not is_l(c) and not is_n(c)


def is_punct(c: int) -> bool:
    r"""``[^\s\p{L}\p{N}]``.  Lean: ``Bpe.Unicode.PreTokenize.isPunct``."""
    return not is_white_space(c) and not is_l(c) and not is_n(c)


def fold_case(c: int) -> int:
    """Case folding of the contraction letters as tiktoken's ``(?i:...)`` sees them: ``A-Z`` to
    ``a-z`` and U+017F (long s) to ``s``; other code points are unchanged.

    Lean: ``Bpe.Unicode.PreTokenize.foldCase``.
    """
    if 65 <= c <= 90:
        return c + 32
    if c == 0x17F:
        return 115
    return c


def match_contraction(cps: Sequence[int], i: int) -> int:
    """``'(?i:[sdmt]|ll|ve|re)``, the same set as o200k's ``(?i:'s|'t|'re|'ve|'m|'ll|'d)``.

    Lean: ``Bpe.Unicode.PreTokenize.matchContraction``.
    """
    if i + 1 < len(cps) and cps[i] == 39:
        c = fold_case(cps[i + 1])
        if c in (115, 100, 109, 116):  # s d m t
            return 2
        if i + 2 < len(cps):
            d = fold_case(cps[i + 2])
            if (c, d) in ((108, 108), (118, 101), (114, 101)):  # ll ve re
                return 3
    return 0


def match_digits(cps: Sequence[int], i: int) -> int:
    r"""``\p{N}{1,3}`` (possessive or not: the same).

    Lean: ``Bpe.Unicode.PreTokenize.matchDigits``.
    """
    return min(3, run_length(is_n, cps, i))


def last_newline_end(n: int, cps: Sequence[int], i: int) -> int:
    """One past the last newline among the ``n`` code points from ``i``, or 0 if none.

    Lean: ``Bpe.Unicode.PreTokenize.lastNewlineEnd``.
    """
    end = 0
    for k in range(min(n, len(cps) - i)):
        if is_newline(cps[i + k]):
            end = k + 1
    return end


def match_newline_ws(cps: Sequence[int], i: int) -> int:
    r"""``\s*[\r\n]`` (and o200k's ``\s*[\r\n]+``, same length): the longest whitespace prefix
    ending in a newline.  Lean: ``Bpe.Unicode.PreTokenize.matchNewlineWs``."""
    return last_newline_end(run_length(is_white_space, cps, i), cps, i)


def match_trailing_ws(cps: Sequence[int], i: int) -> int:
    r"""``\s+(?!\S)``: the whole run at the end of the text, otherwise the run minus its last
    code point (0 for a run of 1).  Lean: ``Bpe.Unicode.PreTokenize.matchTrailingWs``."""
    w = run_length(is_white_space, cps, i)
    if w == 0:
        return 0
    if reaches_end(w, cps, i):
        return w
    return w - 1


def match_ws(cps: Sequence[int], i: int) -> int:
    r"""``\s+``.  Lean: ``Bpe.Unicode.PreTokenize.matchWs``."""
    return run_length(is_white_space, cps, i)


def split_units(
    next_len: Callable[[Sequence[int], int], int], fuel: int, units: Sequence[bytes]
) -> list[bytes]:
    """The splitting loop: ``next_len`` code points (at least 1) make the next chunk.

    Lean: ``Bpe.Unicode.PreTokenize.splitUnits``.
    """
    cps = [unit_code_point(u) for u in units]
    chunks: list[bytes] = []
    i = 0
    while fuel > 0 and i < len(units):
        n = next_len(cps, i)
        chunks.append(b"".join(units[i : i + n]))
        i += n
        fuel -= 1
    return chunks


def pre_tokenize_with(next_len: Callable[[Sequence[int], int], int], data: bytes) -> list[bytes]:
    """Pre-tokenize ``data`` with the chunk-length function of a pattern.

    Lean: ``Bpe.Unicode.PreTokenize.preTokenizeWith``; its chunks concatenate back to ``data``
    (``flatten_preTokenizeWith``) and none is empty (``ne_nil_of_mem_preTokenizeWith``).
    """
    units = utf8_units(len(data), data)
    return split_units(next_len, len(units), units)


__all__ = [
    "first_match",
    "is_newline",
    "is_punct",
    "is_word_lead",
    "last_newline_end",
    "match_contraction",
    "match_digits",
    "match_newline_ws",
    "match_trailing_ws",
    "match_ws",
    "pre_tokenize_with",
    "run_length",
    "split_units",
    "unit_code_point",
    "utf8_len",
    "utf8_units",
]
