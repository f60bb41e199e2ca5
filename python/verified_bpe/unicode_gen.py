r"""Generate the Unicode character classes of the split patterns, as tiktoken sees them.

``python -m verified_bpe.unicode_gen`` writes ``lean/Bpe/UnicodeTables.lean`` and
``python/verified_bpe/spec/unicode_tables.py``; ``--check`` regenerates both in memory and
compares them with the files on disk (exit 1 if they differ); ``--scan`` is the exhaustive
comparison with tiktoken (classes, the committed tables, and the ``fast`` engine on probe
strings around every code point; see :mod:`verified_bpe.unicode_scan`).

How a class is read off tiktoken (needs tiktoken installed, no network): tiktoken encodes
only the text its pattern matches, so an ``Encoding`` whose pattern is the class alone (e.g.
``\p{Lu}``) and whose vocabulary is the 256 single bytes, applied to a string holding every
code point, returns exactly the UTF-8 bytes of the characters in the class.  The string is
every code point ``0..0x10FFFF`` except the surrogates, in blocks of 65,536; decoding the
returned bytes gives the set.  This is tiktoken's own regex engine (Rust ``fancy-regex`` over
``regex``'s Unicode tables), not Python's ``regex`` module, whose tables are newer.

The tables are the classes the cl100k_base and o200k_base patterns of tiktoken 0.14 use:
``\p{L}``, ``\p{N}``, the five letter categories ``\p{Lu}`` ... ``\p{Lo}`` (o200k's case
rules), ``\p{M}`` and ``\s`` (Unicode White_Space in tiktoken's engine).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

SURROGATES = range(0xD800, 0xE000)
MAX_CODE_POINT = 0x10FFFF
BLOCK = 0x10000

REPO = Path(__file__).resolve().parents[2]
LEAN_FILE = REPO / "lean" / "Bpe" / "UnicodeTables.lean"
PY_FILE = Path(__file__).resolve().parent / "spec" / "unicode_tables.py"


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


# ---------------------------------------------------------------- rendering


def _size(ranges: tuple[tuple[int, int], ...]) -> int:
    return sum(hi - lo + 1 for lo, hi in ranges)


def _lean_tree(ranges: tuple[tuple[int, int], ...], indent: int, top: bool) -> list[str]:
    """The balanced tree (root = middle range, index ``len // 2``) as Lean source lines;
    parenthesized unless ``top``."""
    pad = " " * indent
    if not ranges:
        return [pad + ".leaf"]
    mid = len(ranges) // 2
    lo, hi = ranges[mid]
    head = f".node 0x{lo:X} 0x{hi:X}"
    left, right = ranges[:mid], ranges[mid + 1 :]
    if not left and not right:
        text = head + " .leaf .leaf"
        return [pad + (text if top else f"({text})")]
    lines = [pad + ("" if top else "(") + head]
    lines += _lean_tree(left, indent + 2, False)
    lines += _lean_tree(right, indent + 2, False)
    if not top:
        lines[-1] += ")"
    return lines


def render_lean(tables: dict[str, tuple[tuple[int, int], ...]], version: str) -> str:
    """``lean/Bpe/UnicodeTables.lean``."""
    out = [
        "module",
        "",
        "public import Bpe.RangeTree",
        "",
        "/-!",
        "# Unicode character classes of the split patterns, as tiktoken sees them (generated)",
        "",
        "Generated by `python -m verified_bpe.unicode_gen` from tiktoken "
        f"{version}; do not edit.",
        "`python -m verified_bpe.unicode_gen --check` shows this file is current, and",
        "`python -m verified_bpe.unicode_gen --scan` compares it with tiktoken on every code",
        "point.",
        "",
        "Each class is the set of code points (`0..0x10FFFF`, surrogates excluded) that tiktoken's",
        "own regex engine matches with the class alone, read off tiktoken (see the generator's",
        "docstring). These are the classes the cl100k_base and o200k_base patterns use; the",
        "complements they also use (`\\S`, `[^\\r\\n\\p{L}\\p{N}]`, `[^\\s\\p{L}\\p{N}]`) are",
        "Boolean combinations of them, and `\\p{L}` is exactly the union of `\\p{Lu}`, `\\p{Ll}`,",
        "`\\p{Lt}`, `\\p{Lm}`, `\\p{Lo}` (checked by `--scan`). A lookup is a search in a",
        "balanced `Bpe.RangeTree`, evaluable by the kernel.",
        "-/",
        "",
        "@[expose] public section",
        "noncomputable section",
        "",
        "namespace Bpe.Unicode",
    ]
    for c in CLASSES:
        ranges = tables[c.py_name]
        out += [
            "",
            f"/-- `{c.regex}`, {c.what}: {len(ranges):,} ranges, "
            f"{_size(ranges):,} code points. -/",
            f"def is{c.lean_name} : Nat → Bool := RangeTree.contains <|",
        ]
        out += _lean_tree(ranges, 2, True)
    out += ["", "end Bpe.Unicode", ""]
    return "\n".join(out)


def _py_ranges(ranges: tuple[tuple[int, int], ...]) -> list[str]:
    items = [f"(0x{lo:04X}, 0x{hi:04X})," for lo, hi in ranges]
    lines: list[str] = []
    line = "   "
    for item in items:
        if len(line) + 1 + len(item) > 99:
            lines.append(line)
            line = "   "
        line += " " + item
    if line.strip():
        lines.append(line)
    return lines


def render_python(tables: dict[str, tuple[tuple[int, int], ...]], version: str) -> str:
    """``python/verified_bpe/spec/unicode_tables.py``."""
    out = [
        '"""Unicode character classes of the split patterns, as tiktoken sees them (generated).',
        "",
        "Lean: ``Bpe.UnicodeTables``.  Generated by ``python -m verified_bpe.unicode_gen``",
        f"from tiktoken {version}; do not edit (``--check`` shows the file is current, ``--scan``",
        "compares it with tiktoken on every code point).  Each ``*_RANGES`` tuple holds the",
        "sorted, disjoint, inclusive ranges of one class; ``is_*`` looks a code point up with",
        ":func:`~verified_bpe.spec.range_tree.contains` (Lean: ``Bpe.RangeTree.contains``).",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "from .range_tree import Ranges, contains",
    ]
    for c in CLASSES:
        ranges = tables[c.py_name]
        out += [
            "",
            f"#: ``{c.regex}``: {len(ranges):,} ranges, {_size(ranges):,} code points.",
            f"{c.py_name.upper()}_RANGES: Ranges = (",
            *_py_ranges(ranges),
            ")",
        ]
    for c in CLASSES:
        what = c.what.replace("`", "``")
        out += [
            "",
            "",
            f"def is_{c.py_name}(cp: int) -> bool:",
            f'    r"""``{c.regex}``, {what}.',
            "",
            f'    Lean: ``Bpe.UnicodeTables.is{c.lean_name}``."""',
            f"    return contains({c.py_name.upper()}_RANGES, cp)",
        ]
    out.append("")
    return "\n".join(out)


def render_all() -> dict[Path, str]:
    """Both generated files, freshly read off tiktoken."""
    tables = read_tables()
    version = tiktoken_version()
    return {LEAN_FILE: render_lean(tables, version), PY_FILE: render_python(tables, version)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m verified_bpe.unicode_gen", description=__doc__)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="compare with the committed files")
    mode.add_argument("--scan", action="store_true", help="exhaustive comparison with tiktoken")
    parser.add_argument(
        "--engine",
        default="fast",
        choices=["fast", "spec", "regex"],
        help="engine probed by --scan (regex: the fast engine with the regex module's tables)",
    )
    args = parser.parse_args(argv)
    if args.scan:
        from .unicode_scan import scan

        return scan(engine=args.engine)
    files = render_all()
    if args.check:
        stale = [p for p, text in files.items() if not p.exists() or p.read_text("utf-8") != text]
        for p in stale:
            print(f"stale: {p} (run python -m verified_bpe.unicode_gen)")
        if not stale:
            print("up to date: " + ", ".join(str(p.relative_to(REPO)) for p in files))
        return 1 if stale else 0
    for p, text in files.items():
        p.write_text(text, "utf-8")
        print(f"wrote {p.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
