r"""The Unicode character classes of the split patterns, read off tiktoken.

Shared by :mod:`verified_bpe.verify.unicode_gen` (which renders them as Lean and Python
tables) and :mod:`verified_bpe.verify.unicode_scan` (which compares the committed tables and
the engines with tiktoken on every code point).  How a class is read off tiktoken: see
:mod:`verified_bpe.verify.unicode_gen`.  No Lean counterpart (the output is
``Bpe.Unicode.Tables``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

SURROGATES = range(0xD800, 0xE000)
MAX_CODE_POINT = 0x10FFFF
BLOCK = 0x10000

REPO = Path(__file__).resolve().parents[3]
LEAN_FILE = REPO / "lean" / "Bpe" / "Unicode" / "Tables.lean"
PY_FILE = Path(__file__).resolve().parents[1] / "spec" / "unicode" / "tables.py"


@dataclass(frozen=True)
class CharClass:
    """One table: its regex (tiktoken syntax), Python and Lean names, and a description."""

    regex: str
    py_name: str  # is_<py_name>, <PY_NAME>_RANGES
    lean_name: str  # is<lean_name>
    what: str


CLASSES: tuple[CharClass, ...] = (
    CharClass(r"\p{L}", "l", "L", "letters (`L`: `Lu`, `Ll`, `Lt`, `Lm`, `Lo`)"),
    CharClass(r"\p{N}", "n", "N", "numbers (`N`: `Nd`, `Nl`, `No`)"),
    CharClass(r"\p{Lu}", "lu", "Lu", "uppercase letters"),
    CharClass(r"\p{Ll}", "ll", "Ll", "lowercase letters"),
    CharClass(r"\p{Lt}", "lt", "Lt", "titlecase letters"),
    CharClass(r"\p{Lm}", "lm", "Lm", "modifier letters"),
    CharClass(r"\p{Lo}", "lo", "Lo", "other letters"),
    CharClass(r"\p{M}", "m", "M", "marks (`Mn`, `Mc`, `Me`)"),
    CharClass(r"\s", "white_space", "WhiteSpace", "white space (Unicode `White_Space`)"),
)


# ---------------------------------------------------------------- reading tiktoken


def all_code_points() -> Iterator[int]:
    """Every code point ``0..0x10FFFF`` except the surrogates (UTF-8 cannot encode them)."""
    for cp in range(MAX_CODE_POINT + 1):
        if cp not in SURROGATES:
            yield cp


def tiktoken_version() -> str:
    import tiktoken

    return tiktoken.__version__


def tiktoken_matches(pattern: str, texts: Iterable[str]) -> str:
    """The characters of ``texts`` that tiktoken's engine puts in matches of ``pattern``
    (everything else is skipped by tiktoken's ``findall``-style splitting), in order."""
    import tiktoken

    enc = tiktoken.Encoding(
        name="verified-bpe-class-probe",
        pat_str=pattern,
        mergeable_ranks={bytes([i]): i for i in range(256)},
        special_tokens={},
    )
    return "".join(bytes(enc.encode_ordinary(text)).decode("utf-8") for text in texts)


def blocks() -> Iterator[str]:
    """All code points (no surrogates) as strings of at most :data:`BLOCK` characters."""
    for start in range(0, MAX_CODE_POINT + 1, BLOCK):
        stop = min(start + BLOCK, MAX_CODE_POINT + 1)
        yield "".join(chr(cp) for cp in range(start, stop) if cp not in SURROGATES)


def tiktoken_class(pattern: str) -> set[int]:
    """The code points that a one-character ``pattern`` (a class) matches in tiktoken."""
    return {ord(ch) for ch in tiktoken_matches(pattern, blocks())}


def to_ranges(cps: Iterable[int]) -> tuple[tuple[int, int], ...]:
    """Sorted, disjoint, non-adjacent inclusive ranges covering exactly ``cps``."""
    out: list[list[int]] = []
    for cp in sorted(set(cps)):
        if out and out[-1][1] + 1 == cp:
            out[-1][1] = cp
        else:
            out.append([cp, cp])
    return tuple((lo, hi) for lo, hi in out)


def read_tables() -> dict[str, tuple[tuple[int, int], ...]]:
    """``{py_name: ranges}`` for every class of :data:`CLASSES`, read off tiktoken."""
    return {c.py_name: to_ranges(tiktoken_class(c.regex)) for c in CLASSES}
