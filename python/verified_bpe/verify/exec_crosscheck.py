"""Compiled cross-check (route 3): Lean's compiler and interpreter run the executable encoder.

``Bpe.Exec.Code`` is an encoder written so that Lean's compiler turns it into IR that the
offline (WebAssembly) Lean's interpreter runs; ``Bpe.Exec.encodeChunks_eq_encodeWith`` proves it
returns exactly ``Bpe.encodeWith`` on the same merge table.  This module writes the tables of a full
vocabulary (the 256-entry byte shuffle and the merges, sorted by pair) and the raw texts into
one file of decimal numbers, generates a Lean module (the text of ``Bpe.Exec.PreTokenizeCode``
and of every module it imports: the spec's Unicode tables and pre-tokenizers, ``ExecCode``;
then an ``#eval`` of ``Bpe.Exec.runTexts`` on the file), checks that module with the offline
Lean (Lean's compiler produces IR, its interpreter runs it: the spec's pre-tokenizer of the
encoding, ``Bpe.preTokenizeCl100k``/``Bpe.preTokenizeO200k`` by ``Bpe.Exec.preTokenizeX_eq``,
then the encoder), reads the ids Lean wrote and compares them with **tiktoken** and with the
Python reference (:mod:`verified_bpe.spec`).  So the whole of ``Bpe.encodeCl100k`` /
``Bpe.encodeO200k`` runs in Lean on every text.  With ``--python-split`` Python writes the
chunks of tiktoken's split pattern instead and Lean runs ``Bpe.Exec.runFiles`` (the input of
``lake exe bpe-encode``).

Texts (deterministic): lines of the standard library's sources, messages of the installed
non-English gettext catalogs, and seeded random Unicode strings; the expected ids are
tiktoken's ids for the text.

With ``--from-ranks`` Lean itself reads the published ``.tiktoken`` file (``Bpe.Exec.Ranks``:
base64 decoding, a sorted key array with binary search, the merge recovery and byte shuffle
of ``Bpe.recoverMerges``/``Bpe.rankShuffle``, the run-time check of condition C) and
pre-tokenizes the raw texts itself (``Bpe.Exec.RanksTexts.runRanksTexts``), so the whole chain
"rank file → ids" runs in Lean; Python only writes the files, and compares Lean's tables
(written back) with its own and Lean's ids with tiktoken's.  With ``--from-ranks
--python-split`` Python writes tiktoken's chunks instead (``Bpe.Exec.runRanks``).

With ``--regex`` Lean splits the raw texts twice, with the compiled regex matcher and
``findIter`` (``Bpe.Exec.FindIterCode``: ``Bpe.Regex.findIter unicodeClasses`` with the
encoding's pattern term, by ``Bpe.Exec.findIterX_eq``) and with the machine
(``Bpe.Exec.preTokenizeX``), and writes both chunk lists; Python compares both with the chunks
of the ``regex`` module (no encoding; ``--encoding both`` runs the two encodings in one module).

Run ``python -m verified_bpe.verify.exec_crosscheck --help``; the tests are
``tests/test_crosscheck_exec.py``, ``tests/test_crosscheck_exec_ranks.py`` and
``tests/test_crosscheck_exec_regex.py``.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from ..engine.patterns import PATTERNS, pre_tokenize_regex
from ..errors import BpeError
from ..spec.seed.decompose import recover_merges
from ..spec.seed.encode import encode_with
from ..spec.seed.shuffle import byte_shuffle_from_ranks
from . import corpus
from .corpus import UNICODE_RANGES, random_unicode  # noqa: F401 (re-exported)
from .crosscheck import MODULE_NAMES, slice_ranks

ENCODINGS = ("cl100k_base", "o200k_base")
T = TypeVar("T")
SUMMARY = re.compile(
    r"entries texts tokens load_ms encode_ms: (\d+) (?P<texts>\d+) (\d+) (\d+) (\d+)"
)


class ExecCrossCheckError(BpeError):
    """The Lean run failed or its output cannot be read."""


# ------------------------------------------------------------------------------- texts
def stdlib_lines(count: int) -> list[str]:
    """Distinct non-blank lines of the standard library's sources (with their newline), in
    file order, at most 300 characters each."""
    seen: set[str] = set()
    out: list[str] = []
    for path in corpus.stdlib_python_files():
        for line in corpus.read_text(path).splitlines(keepends=True):
            if line.strip() and len(line) <= 300 and line not in seen:
                seen.add(line)
                out.append(line)
                if len(out) >= count:
                    return out
    return out


def catalog_lines(count: int) -> list[str]:
    """Distinct non-ASCII messages of the gettext catalogs, a few per language in turn."""
    per_lang = [
        [m for m in text.splitlines() if m.strip() and not m.isascii() and len(m) <= 300]
        for _, text in corpus.locale_texts(max_chars_per_lang=20_000)
    ]
    seen: set[str] = set()
    out: list[str] = []
    k = 0
    while len(out) < count and any(k < len(msgs) for msgs in per_lang):
        for msgs in per_lang:
            if k < len(msgs) and msgs[k] not in seen:
                seen.add(msgs[k])
                out.append(msgs[k])
                if len(out) >= count:
                    break
        k += 1
    return out


def default_texts(n_stdlib: int, n_catalog: int, n_random: int, seed: int = 0) -> list[str]:
    return stdlib_lines(n_stdlib) + catalog_lines(n_catalog) + random_unicode(n_random, seed)


# ------------------------------------------------------------------------------- input file
@dataclass
class Tables:
    """What the Lean driver reads: the byte shuffle and the merges (pair ↦ rank)."""

    name: str
    ranks: dict[bytes, int]
    merges: dict[tuple[int, int], int]
    shuffle: list[int]


def load_tables(name: str, n_ranks: int | None = None) -> Tables:
    from ..engine.vocab import load_ranks

    ranks = load_ranks(name)
    if n_ranks is not None:
        ranks = slice_ranks(ranks, n_ranks)
    return Tables(name, ranks, recover_merges(ranks), byte_shuffle_from_ranks(ranks))


def chunks_of(name: str, text: str) -> list[bytes]:
    """The encoding's pre-tokenization of ``text`` (tiktoken's split pattern), as bytes."""
    return pre_tokenize_regex(text, PATTERNS[name])


def render_texts(name: str, texts: Sequence[str]) -> list[str]:
    """The number of texts and, per text, its number of chunks and every chunk as its length
    followed by its bytes (decimal), one line per text."""
    out = [str(len(texts))]
    for text in texts:
        chunks = chunks_of(name, text)
        out.append(
            f"{len(chunks)} " + " ".join(f"{len(c)} " + " ".join(map(str, c)) for c in chunks)
        )
    return out


def render_raw_texts(texts: Sequence[str]) -> list[str]:
    """The number of texts and, per text, its length in UTF-8 bytes followed by its bytes
    (decimal), one line per text: Lean pre-tokenizes them itself."""
    out = [str(len(texts))]
    for text in texts:
        data = text.encode("utf-8")
        out.append(f"{len(data)} " + " ".join(map(str, data)))
    return out


def render_input(tables: Tables, texts: Sequence[str], lean_split: bool = False) -> str:
    """The driver's input: 256 shuffle values; the number of merges and the merges
    ``left right rank`` sorted by pair; then the texts, pre-tokenized by Python
    (:func:`render_texts`) or raw for Lean to pre-tokenize (:func:`render_raw_texts`); all
    decimal, whitespace-separated."""
    out = [" ".join(map(str, tables.shuffle)), str(len(tables.merges))]
    out += [f"{a} {b} {r}" for (a, b), r in sorted(tables.merges.items())]
    out += render_raw_texts(texts) if lean_split else render_texts(tables.name, texts)
    return "\n".join(out) + "\n"


def rank_file_bytes(name: str, n_ranks: int | None = None) -> bytes:
    """The published ``.tiktoken`` file of ``name`` (``base64(token) SPACE rank`` per line) as
    :mod:`verified_bpe.engine.vocab` found and hash-checked it, decompressed; with ``n_ranks``, only
    its lines of rank below ``n_ranks``.  (Rebuilt from the ranks only if the vocabulary came
    from tiktoken's loader rather than a file.)"""
    import base64
    import gzip

    from ..engine.vocab import load_ranks_with_source

    ranks, source = load_ranks_with_source(name)
    path = Path(source)
    if path.is_file():
        data = path.read_bytes()
        lines = (gzip.decompress(data) if path.suffix == ".gz" else data).splitlines()
    else:
        lines = [
            base64.b64encode(t) + b" " + str(r).encode()
            for t, r in sorted(ranks.items(), key=lambda e: e[1])
        ]
    if n_ranks is not None:
        lines = [line for line in lines if line and int(line.split()[1]) < n_ranks]
    return b"".join(line + b"\n" for line in lines if line)


#: the executable code (compiled by the build as module ``Bpe.Exec.Code``)
EXEC_CODE = Path(__file__).resolve().parents[3] / "lean" / "Bpe" / "Exec" / "Code.lean"


def render_module(in_path: Path, out_path: Path) -> str:
    """The generated module: the text of ``lean/Bpe/Exec/Code.lean``, verbatim, and one
    ``#eval`` of its driver. (Measured: an ``#eval`` in a module that *imports*
    ``Bpe.Exec.Code`` crashes the offline Lean's worker with an uncaught C++ exception even on a
    3-text input; the same code compiled in the module that evaluates it runs.)"""
    return (
        EXEC_CODE.read_text(encoding="utf-8")
        + f'\n#eval Bpe.Exec.runFiles "{in_path}" "{out_path}"\n'
    )


#: the pre-tokenizing driver (module ``Bpe.Exec.PreTokenizeCode``) and, per encoding, the
#: spec's chunk-length function it runs
EXEC_SPLIT = "Bpe.Exec.PreTokenizeCode"
NEXT_CHUNK = {"cl100k_base": "Bpe.Cl100k.nextChunkLen", "o200k_base": "Bpe.O200k.nextChunkLen"}


def split_sources(top: str = EXEC_SPLIT) -> list[Path]:
    """The files of module ``top`` and of every module it imports, dependencies first (the
    build's own import graph and order)."""
    from ..toolchain.build import discover, topo_order

    modules = discover(EXEC_CODE.parents[2])
    return [modules[name].path for name in topo_order(modules, [top])]


OPEN_SECTION = re.compile(
    r"^(?:@\[[^\]]*\]\s*)?(?:public\s+)?(?:noncomputable\s+)?section\s*$", re.M
)
END_ANONYMOUS = re.compile(r"^end\s*$", re.M)


def closing_ends(body: str) -> str:
    """``end`` for every anonymous section that ``body`` leaves open (a module's
    ``@[expose] public section`` and ``noncomputable section`` run to the end of its file).
    Closed after each module, they cannot reach the next module or the ``#eval``: inside a
    ``noncomputable section`` the offline Lean's ``#eval`` prints nothing (measured)."""
    return "end\n" * (len(OPEN_SECTION.findall(body)) - len(END_ANONYMOUS.findall(body)))


def concat_sources(top: str) -> str:
    """The text of module ``top`` and of every module it imports, dependencies first, each
    without its header and otherwise verbatim, followed by the ``end`` of the sections it leaves
    open: one self-contained module (``module`` line included)."""
    parts = []
    for path in split_sources(top):
        body = module_body(path)
        parts.append(body.rstrip("\n") + "\n\n" + closing_ends(body))
    return "module\n\n" + "\n".join(parts)


def render_split_module(name: str, in_path: Path, out_path: Path) -> str:
    """The generated module of the Lean-split route: the text of every module that
    ``Bpe.Exec.PreTokenizeCode`` needs (the spec's Unicode tables and pre-tokenizers with their
    proofs, ``ExecCode``, the driver), each without its header and otherwise verbatim, followed
    by the ``end`` of the sections it leaves open; then one ``#eval`` of
    ``Bpe.Exec.runTexts`` with the encoding's chunk-length function."""
    return render_split_calls([(name, in_path, out_path)])


def render_split_calls(calls: Sequence[tuple[str, Path, Path]]) -> str:
    """:func:`render_split_module` with one ``#eval`` of ``Bpe.Exec.runTexts`` per
    ``(encoding, input, output)``: several encodings share one compilation of the code."""
    return concat_sources(EXEC_SPLIT) + "".join(
        f'\n#eval Bpe.Exec.runTexts {NEXT_CHUNK[name]} "{in_path}" "{out_path}"\n'
        for name, in_path, out_path in calls
    )


#: route 3's regex runner (module ``Bpe.Exec.FindIterCode``) and, per encoding, the compiled
#: pattern term it runs (``Bpe.Exec.cl100kX_eq``/``o200kX_eq``: the spec's terms)
EXEC_FIND_ITER = "Bpe.Exec.FindIterCode"
FIND_ITER_PATTERN = {"cl100k_base": "Bpe.Exec.cl100kX", "o200k_base": "Bpe.Exec.o200kX"}


def render_regex_module(calls: Sequence[tuple[str, Path, Path]]) -> str:
    """The generated module of the ``--regex`` route: the text of ``Bpe.Exec.FindIterCode`` and
    of every module it imports (the regex syntax and pattern terms, the Unicode tables, the
    spec's machines, ``Exec/PreTokenizeCode.lean``), as :func:`concat_sources` writes them, then
    per ``(encoding, input, output)`` one ``#eval`` of ``Bpe.Exec.runFindIterTexts`` with the
    encoding's pattern term and chunk-length function: Lean splits every raw text with the
    compiled ``findIter`` and with the machine. Several encodings share one compilation."""
    return concat_sources(EXEC_FIND_ITER) + "".join(
        f"\n#eval Bpe.Exec.runFindIterTexts {FIND_ITER_PATTERN[name]} {NEXT_CHUNK[name]} "
        f'"{in_path}" "{out_path}"\n'
        for name, in_path, out_path in calls
    )


#: the route from the rank file and the raw texts to the ids (module ``Bpe.Exec.RanksTexts``)
EXEC_RANKS_TEXTS = "Bpe.Exec.RanksTexts"


def render_ranks_split_module(
    name: str, ranks_path: Path, texts_path: Path, out_path: Path, tables_path: Path | None
) -> str:
    """The generated module of the route "rank file and raw texts → ids": the text of
    ``Bpe.Exec.RanksTexts`` and of every module it imports (the spec's Unicode pre-tokenizers,
    ``Exec/Code.lean``, ``Exec/Ranks.lean``, ``Exec/PreTokenizeCode.lean``), as
    :func:`concat_sources` writes them, then one ``#eval`` of ``Bpe.Exec.runRanksTexts`` with
    the encoding's chunk-length function: Lean parses the rank file, builds and checks the
    tables, pre-tokenizes and encodes."""
    return render_ranks_split_calls([(name, ranks_path, texts_path, out_path, tables_path)])


def render_ranks_split_calls(calls: Sequence[tuple[str, Path, Path, Path, Path | None]]) -> str:
    """:func:`render_ranks_split_module` with one ``#eval`` of ``Bpe.Exec.runRanksTexts`` per
    ``(encoding, rank file, texts, ids, tables)``: several encodings share one compilation of
    the code (as :func:`render_regex_module` does)."""
    evals = []
    for name, ranks_path, texts_path, out_path, tables_path in calls:
        tables = "" if tables_path is None else str(tables_path)
        evals.append(
            f'\n#eval Bpe.Exec.runRanksTexts {NEXT_CHUNK[name]} "{ranks_path}" "{texts_path}" '
            f'"{out_path}" "{tables}"\n'
        )
    return concat_sources(EXEC_RANKS_TEXTS) + "".join(evals)


#: the rank-file reader (compiled by the build as module ``Bpe.Exec.Ranks``)
EXEC_RANKS = EXEC_CODE.with_name("Ranks.lean")


def module_body(path: Path) -> str:
    """The text of a module without its header (the ``module`` line and its imports), to be
    appended to another module's text."""
    lines = path.read_text(encoding="utf-8").split("\n")
    k = 0
    while k < len(lines) and (
        lines[k].strip() in ("", "module") or lines[k].startswith("public import ")
    ):
        k += 1
    return "\n".join(lines[k:])


def render_ranks_module(
    ranks_path: Path, texts_path: Path, out_path: Path, tables_path: Path | None
) -> str:
    """The generated module of the rank-file route: the text of ``lean/Bpe/Exec/Code.lean``,
    then ``lean/Bpe/Exec/Ranks.lean`` without its header, verbatim, and one ``#eval`` of
    ``Bpe.Exec.runRanks``."""
    tables = "" if tables_path is None else str(tables_path)
    return (
        EXEC_CODE.read_text(encoding="utf-8")
        + "\n"
        + module_body(EXEC_RANKS)
        + f'\n#eval Bpe.Exec.runRanks "{ranks_path}" "{texts_path}" "{out_path}" "{tables}"\n'
    )


def render_refusals_module(calls: Sequence[tuple[Path, Path, Path]]) -> str:
    """The module of :func:`render_ranks_module` with one ``#eval`` of ``Bpe.Exec.runRanks``
    per ``(rank file, texts, ids)`` triple (no tables written): several rank files that must be
    refused share one compilation of the code."""
    evals = "".join(f'\n#eval Bpe.Exec.runRanks "{r}" "{t}" "{o}" ""\n' for r, t, o in calls)
    return EXEC_CODE.read_text(encoding="utf-8") + "\n" + module_body(EXEC_RANKS) + evals


# ------------------------------------------------------------------------------- run
@dataclass
class Run:
    """One Lean run: the ids per text and the measurements."""

    ids: list[list[int]]
    entries: int
    tokens: int
    load_ms: int
    encode_ms: int
    lean_seconds: float
    peak_rss_kib: int
    output: str


def _toolchain(runner=None, builder=None):
    """The Lean runner and the builder of this repository (the project's modules built once,
    so the generated module can import them)."""
    from ..toolchain.build import Builder
    from ..toolchain.runner import LeanRunner

    repo = Path(__file__).resolve().parents[3]
    if runner is None:
        runner = LeanRunner(repo, repo / ".cache", log=lambda *_: None)
    if builder is None:
        builder = Builder(repo, runner, jobs=2, log=lambda *_: None)
        builder.build(scan=True)
    return runner, builder


def _check_module(
    runner, builder, source: Path, summary: re.Pattern[str], out_path: Path, n_expected: int
):
    """Check ``source`` with Lean (its ``#eval`` writes one line of ids per text to
    ``out_path`` and prints ``summary``); the check result, the summary's numbers and the ids,
    or :class:`ExecCrossCheckError` if the run failed or did not encode ``n_expected`` texts."""
    result = runner.check(source, [builder.out_dir])
    m = summary.search(result.output)
    if not result.ok or m is None or not out_path.exists():
        raise ExecCrossCheckError(f"Lean run failed:\n{result.output[-3000:]}")
    ids = _read_ids(out_path, int(m.group("texts")), n_expected)
    return result, [int(g) for g in m.groups()], ids


def _read_ids(out_path: Path, n_texts: int, n_expected: int) -> list[list[int]]:
    """The ids Lean wrote (a line per text), or :class:`ExecCrossCheckError` if Lean did not
    encode ``n_expected`` texts (``n_texts``: the count of its summary line)."""
    lines = out_path.read_text(encoding="ascii").split("\n")[:-1]
    ids = [[int(x) for x in line.split()] for line in lines]
    if n_texts != n_expected or len(ids) != n_expected:
        raise ExecCrossCheckError(
            f"Lean encoded {n_texts} texts ({len(ids)} lines), not {n_expected}"
        )
    return ids


def run_lean(
    tables: Tables,
    texts: Sequence[str],
    work: Path,
    runner=None,
    builder=None,
    lean_split: bool = True,
) -> Run:
    """Write the input and the module under ``work``, check the module with Lean, read back
    the ids. With ``lean_split`` (the default) Lean pre-tokenizes the raw texts with the spec's
    Unicode pre-tokenizer of the encoding (``runTexts``); otherwise Python writes tiktoken's
    chunks (``runFiles``, what ``bpe-encode`` reads)."""
    if lean_split:
        return run_lean_split([tables], texts, work, runner, builder)[tables.name]
    runner, builder = _toolchain(runner, builder)
    work = work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    mod = MODULE_NAMES[tables.name] + "Chunks"
    in_path, out_path = work / f"{mod}.in", work / f"{mod}.out"
    in_path.write_text(render_input(tables, texts, lean_split), encoding="ascii")
    out_path.unlink(missing_ok=True)
    source = work / f"ExecRun{mod}.lean"
    source.write_text(render_module(in_path, out_path), encoding="utf-8")
    result, counts, ids = _check_module(runner, builder, source, SUMMARY, out_path, len(texts))
    return _run(result, counts, ids)


def _check_calls(runner, builder, source: Path, text: str, summary: re.Pattern[str], n_calls: int):  # noqa: ANN001, ANN202
    """Write the module ``text`` to ``source``, check it with Lean against the built modules
    and return the result with the ``summary`` lines it printed, one per call (raises
    :class:`ExecCrossCheckError` unless the check passed and printed ``n_calls`` of them)."""
    source.write_text(text, encoding="utf-8")
    result = runner.check(source, [builder.out_dir])
    summaries = list(summary.finditer(result.output))
    if not result.ok or len(summaries) != n_calls:
        raise ExecCrossCheckError(f"Lean run failed:\n{result.output[-3000:]}")
    return result, summaries


def run_lean_split(
    tables: Sequence[Tables], texts: Sequence[str], work: Path, runner=None, builder=None
) -> dict[str, Run]:
    """The Lean-split route (``runTexts``) for each encoding of ``tables`` on the same raw
    ``texts``, in one module (:func:`render_split_calls`: one compilation of the code, one
    ``#eval`` per encoding); per encoding the ids Lean wrote and its measurements (the check's
    seconds and peak RSS are the module's)."""
    runner, builder = _toolchain(runner, builder)
    work = work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    calls = []
    for t in tables:
        mod = MODULE_NAMES[t.name]
        in_path, out_path = work / f"{mod}.in", work / f"{mod}.out"
        in_path.write_text(render_input(t, texts, lean_split=True), encoding="ascii")
        out_path.unlink(missing_ok=True)
        calls.append((t.name, in_path, out_path))
    source = work / f"ExecRun{''.join(MODULE_NAMES[t.name] for t in tables)}.lean"
    result, summaries = _check_calls(
        runner, builder, source, render_split_calls(calls), SUMMARY, len(calls)
    )
    runs = {}
    for (name, _, out_path), m in zip(calls, summaries, strict=True):
        if not out_path.exists():
            raise ExecCrossCheckError(f"Lean wrote no ids for {name}:\n{result.output[-3000:]}")
        ids = _read_ids(out_path, int(m.group("texts")), len(texts))
        runs[name] = _run(result, [int(g) for g in m.groups()], ids)
    return runs


def _run(result, counts: list[int], ids: list[list[int]]) -> Run:
    """A :class:`Run` from the check, the numbers of its summary line and the ids."""
    entries, _, tokens, load_ms, encode_ms = counts
    return Run(
        ids, entries, tokens, load_ms, encode_ms, result.seconds, result.peak_rss_kib, result.output
    )


RANKS_SUMMARY = re.compile(
    r"ranks merges texts tokens parse_ms sort_ms recover_ms check_ms encode_ms: "
    r"(\d+) (\d+) (?P<texts>\d+) (\d+) (\d+) (\d+) (\d+) (\d+) (\d+)"
)


@dataclass
class RanksRun:
    """One Lean run of the rank-file route: the ids per text, the tables Lean built (if asked
    for) and the measurements."""

    ids: list[list[int]]
    shuffle: list[int] | None
    merges: dict[tuple[int, int], int] | None
    n_ranks: int
    n_merges: int
    tokens: int
    parse_ms: int
    sort_ms: int
    recover_ms: int
    check_ms: int
    encode_ms: int
    lean_seconds: float
    peak_rss_kib: int
    output: str


def parse_tables(text: str) -> tuple[list[int], dict[tuple[int, int], int]]:
    """The tables Lean wrote: a line of 256 shuffle values, then ``left right rank`` lines."""
    lines = text.split("\n")
    shuffle = [int(x) for x in lines[0].split()]
    merges = {}
    for line in lines[1:]:
        if line:
            a, b, r = map(int, line.split())
            merges[(a, b)] = r
    return shuffle, merges


def run_lean_ranks(
    name: str,
    rank_file: bytes,
    texts: Sequence[str],
    work: Path,
    write_tables: bool = True,
    runner=None,
    builder=None,
    lean_split: bool = False,
) -> RanksRun:
    """Write the rank file, the texts and the module under ``work``, check the module with Lean
    (which parses the rank file, builds the tables and encodes), read back the ids (and the
    tables). With ``lean_split`` the texts are written raw and Lean pre-tokenizes them
    (``runRanksTexts``: the whole chain from the file to the ids in Lean); otherwise Python
    writes tiktoken's chunks (``runRanks``)."""
    if lean_split:
        return run_lean_ranks_split({name: rank_file}, texts, work, write_tables, runner, builder)[
            name
        ]
    runner, builder = _toolchain(runner, builder)
    work = work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    mod = MODULE_NAMES[name]
    ranks_path, texts_path = work / f"{mod}.tiktoken", work / f"{mod}.texts"
    out_path, tables_path = work / f"{mod}.ranks.out", work / f"{mod}.tables"
    ranks_path.write_bytes(rank_file)
    texts_path.write_text("\n".join(render_texts(name, texts)) + "\n", encoding="ascii")
    for p in (out_path, tables_path):
        p.unlink(missing_ok=True)
    source = work / f"ExecRanksRun{mod}.lean"
    tables_arg = tables_path if write_tables else None
    source.write_text(
        render_ranks_module(ranks_path, texts_path, out_path, tables_arg), encoding="utf-8"
    )
    result, counts, ids = _check_module(
        runner, builder, source, RANKS_SUMMARY, out_path, len(texts)
    )
    return _ranks_run(result, counts, ids, tables_arg)


def run_lean_ranks_split(
    rank_files: dict[str, bytes],
    texts: Sequence[str],
    work: Path,
    write_tables: bool = True,
    runner=None,
    builder=None,
) -> dict[str, RanksRun]:
    """The route "rank file and raw texts → ids" (``runRanksTexts``) for each encoding of
    ``rank_files`` (name ↦ its rank file) on the same raw ``texts``, in one module
    (:func:`render_ranks_split_calls`: one compilation of the code, one ``#eval`` per encoding);
    per encoding the ids (and the tables) Lean wrote."""
    runner, builder = _toolchain(runner, builder)
    work = work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    texts_path = work / "Raw.texts"
    texts_path.write_text("\n".join(render_raw_texts(texts)) + "\n", encoding="ascii")
    calls = []
    for name, rank_file in rank_files.items():
        mod = MODULE_NAMES[name] + "Raw"
        ranks_path = work / f"{mod}.tiktoken"
        ranks_path.write_bytes(rank_file)
        out_path, tables_path = work / f"{mod}.ranks.out", work / f"{mod}.tables"
        for p in (out_path, tables_path):
            p.unlink(missing_ok=True)
        calls.append(
            (name, ranks_path, texts_path, out_path, tables_path if write_tables else None)
        )
    source = work / f"ExecRanksRun{''.join(MODULE_NAMES[n] for n in rank_files)}Raw.lean"
    result, summaries = _check_calls(
        runner, builder, source, render_ranks_split_calls(calls), RANKS_SUMMARY, len(calls)
    )
    runs = {}
    for (name, _, _, out_path, tables_path), m in zip(calls, summaries, strict=True):
        if not out_path.exists():
            raise ExecCrossCheckError(f"Lean wrote no ids for {name}:\n{result.output[-3000:]}")
        ids = _read_ids(out_path, int(m.group("texts")), len(texts))
        runs[name] = _ranks_run(result, [int(g) for g in m.groups()], ids, tables_path)
    return runs


def _ranks_run(result, counts: list[int], ids: list[list[int]], tables_path: Path | None):
    """A :class:`RanksRun` from the check, the numbers of its summary line, the ids and the
    tables file (if Lean wrote one)."""
    n_ranks, n_merges, _, tokens, parse_ms, sort_ms, recover_ms, check_ms, encode_ms = counts
    shuffle = merges = None
    if tables_path is not None:
        shuffle, merges = parse_tables(tables_path.read_text(encoding="ascii"))
    return RanksRun(
        ids,
        shuffle,
        merges,
        n_ranks,
        n_merges,
        tokens,
        parse_ms,
        sort_ms,
        recover_ms,
        check_ms,
        encode_ms,
        result.seconds,
        result.peak_rss_kib,
        result.output,
    )


def run_lean_refusals(
    rank_files: Sequence[bytes],
    work: Path,
    runner=None,
    builder=None,
    texts_files: Sequence[str] = (),
) -> str:
    """Check one module that runs ``Bpe.Exec.runRanks`` on each rank file (one text, ``a``),
    then on the first rank file with each of ``texts_files`` (pre-tokenized texts, as
    :func:`render_texts` writes them), and return Lean's output, where every refused file leaves
    its error message."""
    runner, builder = _toolchain(runner, builder)
    work = work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    texts_path = work / "refusals.texts"
    texts_path.write_text("1\n1 1 97\n", encoding="ascii")
    calls = []
    for k, data in enumerate(rank_files):
        ranks_path = work / f"refusal{k}.tiktoken"
        ranks_path.write_bytes(data)
        calls.append((ranks_path, texts_path, work / f"refusal{k}.out"))
    for k, text in enumerate(texts_files):
        path = work / f"refusal_texts{k}.texts"
        path.write_text(text, encoding="ascii")
        calls.append((calls[0][0], path, work / f"refusal_texts{k}.out"))
    for _, _, out in calls:
        out.unlink(missing_ok=True)
    source = work / "ExecRanksRefusals.lean"
    source.write_text(render_refusals_module(calls), encoding="utf-8")
    return runner.check(source, [builder.out_dir]).output


CHECK_SUMMARY = re.compile(r"ranks long parse_ms sort_ms check_ms: (\d+) (\d+) (\d+) (\d+) (\d+)")


def run_lean_time_check(rank_file: bytes, work: Path, runner=None) -> tuple[list[int], float]:
    """Time condition C alone in the compiled route (``Bpe.Exec.timeCheckRanks``: parse, sort
    the keys, the passes of ``checkRanksX``; no recovery, no encoding): the summary numbers
    ``[ranks, long tokens, parse_ms, sort_ms, check_ms]`` and the Lean check's seconds."""
    if runner is None:  # the module imports nothing of the project: no build needed
        from ..toolchain.runner import LeanRunner

        repo = Path(__file__).resolve().parents[3]
        runner = LeanRunner(repo, repo / ".cache", log=lambda *_: None)
    work = work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    ranks_path = work / "timecheck.tiktoken"
    ranks_path.write_bytes(rank_file)
    source = work / "ExecRanksTimeCheck.lean"
    source.write_text(
        EXEC_CODE.read_text(encoding="utf-8")
        + "\n"
        + module_body(EXEC_RANKS)
        + f'\n#eval Bpe.Exec.timeCheckRanks "{ranks_path}"\n',
        encoding="utf-8",
    )
    result = runner.check(source, [])
    m = CHECK_SUMMARY.search(result.output)
    if not result.ok or m is None:
        raise ExecCrossCheckError(f"Lean run failed:\n{result.output[-3000:]}")
    return [int(g) for g in m.groups()], result.seconds


REGEX_SUMMARY = re.compile(r"texts chunks differ ms: (?P<texts>\d+) (\d+) (\d+) (\d+)")


@dataclass
class RegexRun:
    """One Lean run of the ``--regex`` route: per text, the chunks of the compiled
    ``findIter`` and of the machine (code points), and the measurements."""

    find_iter: list[list[list[int]]]
    machine: list[list[list[int]]]
    chunks: int
    differ: int
    run_ms: int
    lean_seconds: float
    peak_rss_kib: int
    output: str


def parse_chunk_line(line: str) -> list[list[int]]:
    """A line of chunks as Lean writes them: their number, then each chunk as its length and
    its code points."""
    nums = iter(int(x) for x in line.split())
    chunks = [[next(nums) for _ in range(next(nums))] for _ in range(next(nums))]
    if next(nums, None) is not None:
        raise ExecCrossCheckError(f"trailing numbers in the line {line[:80]!r}")
    return chunks


def code_point_chunks(name: str, text: str) -> list[list[int]]:
    """The oracle: the chunks of the ``regex`` module with the encoding's pattern
    (:func:`chunks_of`), as code points."""
    return [[ord(c) for c in chunk.decode("utf-8")] for chunk in chunks_of(name, text)]


def run_lean_regex(
    names: Sequence[str], texts: Sequence[str], work: Path, runner=None, builder=None
) -> dict[str, RegexRun]:
    """Write the raw texts and one module under ``work``, check the module with Lean (which
    splits every text with the compiled ``findIter`` and with the machine, for each encoding of
    ``names``), read back both chunk lists per text and encoding."""
    runner, builder = _toolchain(runner, builder)
    work = work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    in_path = work / "regex.in"
    in_path.write_text("\n".join(render_raw_texts(texts)) + "\n", encoding="ascii")
    calls = [(name, in_path, work / f"{MODULE_NAMES[name]}Regex.out") for name in names]
    for _, _, out_path in calls:
        out_path.unlink(missing_ok=True)
    source = work / f"ExecRunRegex{''.join(MODULE_NAMES[n] for n in names)}.lean"
    result, summaries = _check_calls(
        runner, builder, source, render_regex_module(calls), REGEX_SUMMARY, len(calls)
    )
    runs = {}
    for (name, _, out_path), m in zip(calls, summaries, strict=True):
        n_texts, chunks, differ, run_ms = (int(g) for g in m.groups())
        lines = out_path.read_text(encoding="ascii").split("\n")[:-1]
        if n_texts != len(texts) or len(lines) != 2 * len(texts):
            raise ExecCrossCheckError(
                f"Lean split {n_texts} texts ({len(lines)} lines), not {len(texts)}"
            )
        parsed = [parse_chunk_line(line) for line in lines]
        runs[name] = RegexRun(
            parsed[0::2],
            parsed[1::2],
            chunks,
            differ,
            run_ms,
            result.seconds,
            result.peak_rss_kib,
            result.output,
        )
    return runs


def oracle(tables: Tables):  # -> tiktoken.Encoding
    """tiktoken on the same ranks with the encoding's split pattern."""
    import tiktoken

    return tiktoken.Encoding(
        name=f"{tables.name}_{len(tables.ranks)}",
        pat_str=PATTERNS[tables.name],
        mergeable_ranks=tables.ranks,
        special_tokens={},
    )


def reference_ids(tables: Tables, texts: Sequence[str]) -> list[list[int]]:
    """The Python reference (spec ``encode_with`` with the encoding's split pattern)."""
    return [
        encode_with(
            lambda data: chunks_of(tables.name, data.decode("utf-8")),
            tables.merges,
            tables.shuffle,
            text,
        )
        for text in texts
    ]


def mismatches(
    texts: Sequence[str], got: Sequence[Sequence[T]], expected: Sequence[Sequence[T]]
) -> list[tuple[str, list[T], list[T]]]:
    """The texts whose result (ids, or chunks) differs from the expected one, with both."""
    return [
        (t, list(g), list(e))
        for t, g, e in zip(texts, got, expected, strict=True)
        if list(g) != list(e)
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m verified_bpe.verify.exec_crosscheck",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument(
        "--encoding",
        choices=(*ENCODINGS, "both"),
        default="cl100k_base",
        help="with --regex, 'both' runs the two encodings in one module",
    )
    ap.add_argument("--ranks", type=int, default=None, help="first N ranks only (default: all)")
    ap.add_argument("--stdlib", type=int, default=5000, help="standard library lines")
    ap.add_argument("--catalog", type=int, default=3000, help="non-English catalog messages")
    ap.add_argument("--random", type=int, default=2000, help="random Unicode strings")
    ap.add_argument("--no-reference", action="store_true", help="skip the Python reference")
    ap.add_argument("--out", type=Path, default=Path(".cache/exec"))
    ap.add_argument(
        "--from-ranks",
        action="store_true",
        help="Lean reads the .tiktoken rank file and builds the tables itself",
    )
    ap.add_argument(
        "--python-split",
        action="store_true",
        help="Python writes tiktoken's chunks (the input of bpe-encode) instead of "
        "Lean pre-tokenizing the raw texts",
    )
    ap.add_argument(
        "--regex",
        action="store_true",
        help="split the raw texts with the compiled findIter and with the machine "
        "in Lean; compare both with the regex module (no encoding)",
    )
    ap.add_argument(
        "--time-check",
        action="store_true",
        help="time condition C alone on the rank file (parse, sort, check; no "
        "recovery, no encoding)",
    )
    args = ap.parse_args(argv)
    if args.time_check:
        return main_time_check(args)
    if args.regex:
        return main_regex(args)
    if args.encoding == "both":
        ap.error("--encoding both needs --regex")
    tables = load_tables(args.encoding, args.ranks)
    texts = default_texts(args.stdlib, args.catalog, args.random)
    if args.from_ranks:
        return main_from_ranks(args, tables, texts)
    start = time.monotonic()
    run = run_lean(tables, texts, args.out, lean_split=not args.python_split)
    wall = time.monotonic() - start
    enc = oracle(tables)
    expected = [enc.encode_ordinary(t) for t in texts]
    bad = mismatches(texts, run.ids, expected)
    ref_bad = [] if args.no_reference else mismatches(texts, reference_ids(tables, texts), expected)
    split = "tiktoken's chunks" if args.python_split else "pre-tokenized by Lean"
    print(
        f"{args.encoding}: {len(tables.merges)} merges, {len(texts)} texts ({split}), "
        f"{run.tokens} tokens"
    )
    print(
        f"Lean: check {run.lean_seconds:.1f} s (wall {wall:.1f} s incl. writing the input), "
        f"peak RSS {run.peak_rss_kib // 1024} MiB; in the interpreter: reading the tables "
        f"{run.load_ms / 1000:.1f} s, encoding {run.encode_ms / 1000:.1f} s "
        f"({run.tokens / max(run.encode_ms, 1) * 1000:,.0f} tokens/s)"
    )
    print(
        f"mismatches: Lean vs tiktoken {len(bad)}; Python reference vs tiktoken "
        f"{'skipped' if args.no_reference else len(ref_bad)}"
    )
    for t, g, e in bad[:5]:
        print(f"  {t!r}: Lean {g} tiktoken {e}")
    return 1 if bad or ref_bad else 0


def main_regex(args: argparse.Namespace) -> int:
    """``--regex``: Lean splits the texts with the compiled ``findIter`` (the spec's
    ``Bpe.Regex.findIter unicodeClasses`` with the encoding's pattern term, by
    ``Bpe.Exec.findIterX_eq``) and with the machine; both are compared with the ``regex``
    module's chunks."""
    texts = default_texts(args.stdlib, args.catalog, args.random)
    start = time.monotonic()
    names = ENCODINGS if args.encoding == "both" else (args.encoding,)
    runs = run_lean_regex(names, texts, args.out)
    wall = time.monotonic() - start
    failed = False
    for name, run in runs.items():
        expected = [code_point_chunks(name, t) for t in texts]
        bad_find = mismatches(texts, run.find_iter, expected)
        bad_machine = mismatches(texts, run.machine, expected)
        print(
            f"{name}: {len(texts)} texts, {run.chunks} chunks of findIter; in the "
            f"interpreter: reading, both splits and writing {run.run_ms / 1000:.1f} s"
        )
        print(
            f"  texts where findIter and the machine differ (Lean's count): {run.differ}; "
            f"findIter vs regex {len(bad_find)}; machine vs regex {len(bad_machine)}"
        )
        for t, g, e in (bad_find + bad_machine)[:5]:
            print(f"  {t!r}: Lean {g} regex {e}")
        failed = failed or bool(run.differ or bad_find or bad_machine)
    run = next(iter(runs.values()))
    print(
        f"Lean: check {run.lean_seconds:.1f} s (wall {wall:.1f} s incl. writing the input), "
        f"peak RSS {run.peak_rss_kib // 1024} MiB"
    )
    return 1 if failed else 0


def main_time_check(args: argparse.Namespace) -> int:
    """``--time-check``: the cost of the run-time check of condition C in the compiled route."""
    (n_ranks, n_long, parse_ms, sort_ms, check_ms), seconds = run_lean_time_check(
        rank_file_bytes(args.encoding, args.ranks), args.out
    )
    print(
        f"{args.encoding}: Lean read {n_ranks} ranks ({n_long} of two bytes or more); "
        f"check {seconds:.1f} s; in the interpreter: parsing {parse_ms / 1000:.1f} s, sorting "
        f"the keys {sort_ms / 1000:.1f} s, checking condition C {check_ms / 1000:.2f} s"
    )
    return 0


def main_from_ranks(args: argparse.Namespace, tables: Tables, texts: Sequence[str]) -> int:
    """``--from-ranks``: Lean parses the ``.tiktoken`` file, recovers the tables and encodes;
    its tables are compared with Python's and its ids with tiktoken's."""
    start = time.monotonic()
    run = run_lean_ranks(
        tables.name,
        rank_file_bytes(tables.name, args.ranks),
        texts,
        args.out,
        lean_split=not args.python_split,
    )
    wall = time.monotonic() - start
    enc = oracle(tables)
    expected = [enc.encode_ordinary(t) for t in texts]
    bad = mismatches(texts, run.ids, expected)
    same = run.shuffle == tables.shuffle and run.merges == tables.merges
    split = "tiktoken's chunks" if args.python_split else "pre-tokenized by Lean"
    print(
        f"{args.encoding}: Lean read {run.n_ranks} ranks, recovered {run.n_merges} merges; "
        f"{len(texts)} texts ({split}), {run.tokens} tokens"
    )
    print(
        f"Lean: check {run.lean_seconds:.1f} s (wall {wall:.1f} s), peak RSS "
        f"{run.peak_rss_kib // 1024} MiB; in the interpreter: parsing "
        f"{run.parse_ms / 1000:.1f} s, "
        f"sorting the keys {run.sort_ms / 1000:.1f} s, recovering the merges "
        f"{run.recover_ms / 1000:.1f} s, checking condition C {run.check_ms / 1000:.1f} s, "
        f"encoding {run.encode_ms / 1000:.1f} s "
        f"({run.tokens / max(run.encode_ms, 1) * 1000:,.0f} tokens/s)"
    )
    print(f"tables equal to Python's: {same}; mismatches: Lean vs tiktoken {len(bad)}")
    for t, g, e in bad[:5]:
        print(f"  {t!r}: Lean {g} tiktoken {e}")
    return 1 if bad or not same else 0


if __name__ == "__main__":
    sys.exit(main())
