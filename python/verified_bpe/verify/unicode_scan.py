r"""Exhaustive comparison with tiktoken over every code point (``unicode_gen --scan``).

1. **Classes.**  Each class of :data:`~verified_bpe.verify.unicode_classes.CLASSES`, and each class
   expression the two patterns use (``\S``, ``[^\r\n\p{L}\p{N}]``, ``[^\s\p{L}\p{N}]``, o200k's
   two letter unions, ``\p{L}`` as the union of its five categories), is read off tiktoken
   (:func:`~verified_bpe.verify.unicode_classes.tiktoken_class`) and compared, on every code point
   ``0..0x10FFFF`` except the surrogates, with the Python tables (``is_*``), with the trees of
   ``lean/Bpe/Unicode/Tables.lean`` (parsed back, checked to be search trees) and, for
   information, with the ``regex`` module's own tables.
2. **Engines.**  For cl100k_base and o200k_base, every code point ``c`` is put in the
   :func:`probes` strings (neighbours of each kind: letters, digits, case changes,
   contractions, punctuation, spaces, newlines), each encoded by the engine and by tiktoken
   on the real vocabularies; a code point disagrees if one of its probes gets other ids.
   For the ``native`` engine, its chunks are also compared with those of the spec mirror of
   the Lean pre-tokenizer (:mod:`verified_bpe.spec.unicode.cl100k`, ``o200k``) on every probe.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from .unicode_classes import BLOCK, CLASSES, LEAN_FILE, MAX_CODE_POINT, SURROGATES, tiktoken_class

Ranges = tuple[tuple[int, int], ...]


def probes(c: str) -> list[str]:
    """Four strings around the character ``c``, as a hostile user would write them: a run of
    two; the issue's ``"6\u0cdc-l"`` shape (digit, ``c``, punctuation, letter); contractions
    with ``c`` in each letter position (``'s``, ``'ll``, ``'re``), and ``'c`` between letters
    (where a case-insensitive contraction and a letter run part: ``'ſ`` folds to ``'s``);
    case changes, a digit, spaces and newlines on both sides."""
    return [
        c + c,
        f"6{c}-l",
        f"x'{c} 'l{c} '{c}e 'r{c}. y'{c}z",
        f"a{c}A \n{c} 9{c}\t {c}",
    ]


# ---------------------------------------------------------------- Lean trees


def parse_lean_tables(text: str) -> dict[str, Ranges]:
    """``{lean_name: ranges}`` of each ``def isX : Nat → Bool := RangeTree.contains <| tree``
    of the generated Lean file, read by an in-order walk of the tree; raises ``ValueError``
    unless every tree is a search tree over sorted, disjoint ranges."""
    out: dict[str, Ranges] = {}
    parts = re.split(r"^def is(\w+) : Nat → Bool := RangeTree\.contains <\|$", text, flags=re.M)
    for name, body in zip(parts[1::2], parts[2::2], strict=True):
        body = body.split("\n\n", 1)[0]
        tokens = iter(re.findall(r"\.node|\.leaf|0x[0-9A-F]+", body))
        ranges: list[tuple[int, int]] = []

        def walk(tokens: Iterator[str] = tokens, ranges: list[tuple[int, int]] = ranges) -> None:
            tok = next(tokens)
            if tok == ".leaf":
                return
            lo, hi = int(next(tokens), 16), int(next(tokens), 16)
            walk()
            ranges.append((lo, hi))
            walk()

        walk()
        if next(tokens, None) is not None:
            raise ValueError(f"is{name}: text after the tree")
        for (a, b), (c, d) in zip(ranges, ranges[1:], strict=False):
            if not (a <= b < c <= d):
                raise ValueError(f"is{name}: not a search tree at {(a, b)}, {(c, d)}")
        out[name] = tuple(ranges)
    return out


# ---------------------------------------------------------------- class comparison


def _expand(ranges: Ranges) -> set[int]:
    return {cp for lo, hi in ranges for cp in range(lo, hi + 1)}


def all_code_points() -> set[int]:
    return set(range(MAX_CODE_POINT + 1)) - set(SURROGATES)


def regex_class(pattern: str) -> set[int]:
    """The code points the ``regex`` module's class ``pattern`` matches."""
    import regex

    text = "".join(map(chr, range(0xD800))) + "".join(map(chr, range(0xE000, 0x110000)))
    return {ord(ch) for ch in regex.findall(pattern, text)}


def derived_classes(t: dict[str, set[int]]) -> dict[str, set[int]]:
    r"""The class expressions of the patterns, from the tables ``t`` (keys: ``py_name``)."""
    every = all_code_points()
    ln = t["l"] | t["n"]
    return {
        r"\S": every - t["white_space"],
        r"[^\r\n\p{L}\p{N}]": every - ln - {10, 13},
        r"[^\s\p{L}\p{N}]": every - ln - t["white_space"],
        r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]": t["lu"] | t["lt"] | t["lm"] | t["lo"] | t["m"],
        r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]": t["ll"] | t["lm"] | t["lo"] | t["m"],
        r"[\p{Lu}\p{Ll}\p{Lt}\p{Lm}\p{Lo}]": t["l"],
    }


def scan_classes(lean_text: str | None = None) -> int:
    """Part 1; prints one line per class and returns the number of disagreements."""
    from ..spec.unicode import tables as unicode_tables

    if lean_text is None:
        lean_text = Path(LEAN_FILE).read_text("utf-8")
    lean = parse_lean_tables(lean_text)
    every = sorted(all_code_points())
    bad = 0
    tik: dict[str, set[int]] = {}
    print(f"{'class':36} {'tiktoken':>9} {'python':>7} {'lean':>5} {'regex module':>12}")
    for c in CLASSES:
        t0 = time.time()
        tik[c.py_name] = truth = tiktoken_class(c.regex)
        is_x: Callable[[int], bool] = getattr(unicode_tables, f"is_{c.py_name}")
        py = sum(is_x(cp) != (cp in truth) for cp in every)
        ln = len(_expand(lean.get(c.lean_name, ())) ^ truth)
        rx = len(regex_class(c.regex) ^ truth)
        bad += py + ln
        print(f"{c.regex:36} {len(truth):9,} {py:7,} {ln:5,} {rx:12,}  ({time.time() - t0:.1f} s)")
    for expr, expected in derived_classes(tik).items():
        diff = len(tiktoken_class(expr) ^ expected)
        bad += diff
        print(f"{expr:36} {len(expected):9,} {diff:7,} (tiktoken vs the tables' set algebra)")
    return bad


# ---------------------------------------------------------------- engine comparison


def scan_engine(name: str, engine: str) -> tuple[int, list[int]]:
    """Part 2 for one encoding: (number of code points with a disagreeing probe, examples)."""
    from ..engine.tokenizer import Tokenizer
    from ..engine.vocab import tiktoken_encoding

    tok = Tokenizer.from_tiktoken(name, engine="fast" if engine == "regex" else engine)  # type: ignore[arg-type]
    if engine == "regex":  # the fast engine as it was: the regex module's own tables
        import regex

        tok._regex = regex.compile(tok.pattern)  # type: ignore[assignment]
    oracle = tiktoken_encoding(name)
    bad: list[int] = []
    for start in range(0, MAX_CODE_POINT + 1, BLOCK):
        stop = min(start + BLOCK, MAX_CODE_POINT + 1)
        cps = [cp for cp in range(start, stop) if cp not in SURROGATES]
        bad += disagreeing(tok.encode_ordinary, oracle.encode_ordinary, cps)
        if engine == "native":
            bad += disagreeing(*_native_and_spec_chunks(name), cps)
    bad = sorted(set(bad))
    return len(bad), bad[:5]


def _native_and_spec_chunks(
    name: str, spec_split: Callable[[bytes], list[bytes]] | None = None
) -> tuple[Callable[[str], list[bytes]], Callable[[str], list[bytes]]]:
    """The native pre-tokenizer ``name`` and the spec mirror's (``spec_split``, by default the
    one the engine registers for ``name``), on text."""
    from ..engine import native
    from ..engine.tokenizer import SPEC_PRE_TOKENIZERS

    native_split = native.module().pre_tokenize
    spec = spec_split or SPEC_PRE_TOKENIZERS[name]
    return (lambda s: native_split(name, s.encode())), (lambda s: spec(s.encode()))


def disagreeing(
    ours: Callable[[str], object], theirs: Callable[[str], object], cps: Iterable[int]
) -> list[int]:
    """The code points among ``cps`` with a :func:`probes` string that ``ours`` and ``theirs``
    encode differently."""
    return [cp for cp in cps if any(ours(p) != theirs(p) for p in probes(chr(cp)))]


def tiktoken_pieces(pattern: str, texts: Iterable[str]) -> Callable[[str], list[bytes]]:
    """tiktoken's pieces under ``pattern`` (its own engine, ``fancy-regex``) for each of
    ``texts``: with every substring of the texts a token, each piece is looked up whole and
    comes back as one id."""
    import tiktoken

    ranks = {bytes([b]): b for b in range(256)}
    for text in texts:
        for i in range(len(text)):
            for j in range(i + 1, len(text) + 1):
                ranks.setdefault(text[i:j].encode(), len(ranks))
    enc = tiktoken.Encoding("scan-probe", pat_str=pattern, mergeable_ranks=ranks, special_tokens={})
    return lambda text: [enc.decode_single_token_bytes(t) for t in enc.encode_ordinary(text)]


def _chunk_scan_subjects() -> dict[str, tuple[str, Callable[[bytes], list[bytes]]]]:
    """The native pre-tokenizers scanned by chunks: name → (pattern, spec mirror)."""
    from ..engine.patterns import LLAMA3_META_PATTERN, LLAMA3_PATTERN, R50K_PATTERN
    from ..spec.unicode.llama3 import pre_tokenize_llama3, pre_tokenize_llama3_meta
    from ..spec.unicode.r50k import pre_tokenize_r50k

    return {
        "r50k_base": (R50K_PATTERN, pre_tokenize_r50k),
        "llama3": (LLAMA3_PATTERN, pre_tokenize_llama3),
        "llama3_meta": (LLAMA3_META_PATTERN, pre_tokenize_llama3_meta),
    }


def scan_chunks(name: str) -> tuple[int, list[int]]:
    """Part 2 for a native pre-tokenizer by its chunks alone (no vocabulary needed): on every
    probe of every code point, the native machine's chunks, the spec mirror's and tiktoken's
    pieces (:func:`tiktoken_pieces`) are the same. Returns (number of disagreeing code points,
    examples)."""
    pattern, spec_split = _chunk_scan_subjects()[name]
    native_chunks, spec_chunks = _native_and_spec_chunks(name, spec_split)
    bad: list[int] = []
    for start in range(0, MAX_CODE_POINT + 1, 256):
        stop = min(start + 256, MAX_CODE_POINT + 1)
        cps = [cp for cp in range(start, stop) if cp not in SURROGATES]
        split = tiktoken_pieces(pattern, [p for cp in cps for p in probes(chr(cp))])
        bad += disagreeing(native_chunks, split, cps) + disagreeing(spec_chunks, split, cps)
    bad = sorted(set(bad))
    return len(bad), bad[:5]


def _report(name: str, n: int, examples: list[int], t1: float) -> None:
    ex = ", ".join(f"U+{cp:04X}" for cp in examples)
    print(
        f"   {name}: {n:,} disagreeing code points{' (e.g. ' + ex + ')' if n else ''}"
        f"  [{time.time() - t1:.0f} s]"
    )


def scan_pre_tokenizers(names: Iterable[str]) -> int:
    """Part 2 by chunks for the native machines ``names`` (``r50k_base``, ``llama3``); prints
    a line per machine and returns the number of disagreeing code points."""
    total = 0
    print(f"2. native machines vs spec mirror vs tiktoken, chunks of {len(probes('a'))} probes")
    for name in names:
        t1 = time.time()
        n, examples = scan_chunks(name)
        total += n
        _report(name, n, examples, t1)
    return total


def scan(engine: str = "fast", machines: Iterable[str] = ()) -> int:
    """Both parts (and the chunk scan of ``machines``); exit status 0 if everything agrees.
    With ``machines``, part 1 and the id scan are skipped."""
    if machines:
        t0 = time.time()
        total = scan_pre_tokenizers(machines)
        print(f"total disagreements: {total:,}  [{time.time() - t0:.0f} s]")
        return 1 if total else 0
    t0 = time.time()
    print("1. classes: code points (of 1,112,064) where each view differs from tiktoken")
    total = scan_classes()
    print(
        f"   class disagreements (python + lean + set algebra): {total:,}"
        f"  [{time.time() - t0:.0f} s]"
    )
    print(f"2. engine {engine!r} vs tiktoken, {len(probes('a'))} probes per code point")
    for name in ("cl100k_base", "o200k_base"):
        t1 = time.time()
        n, examples = scan_engine(name, engine)
        total += n
        _report(name, n, examples, t1)
    print(f"total disagreements: {total:,}  [{time.time() - t0:.0f} s]")
    return 1 if total else 0
