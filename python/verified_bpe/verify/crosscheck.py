"""Kernel-evaluation cross-check (route 1): Lean ⇄ Python reference ⇄ tiktoken.

Writes a Lean module holding a real vocabulary slice (the first ``n`` ranks of
``cl100k_base`` or ``o200k_base``; a truncated BPE rank table is itself a rank table) and
facts ``encodeCl100k merges shuffle "<text>" = [ids] := by decide +kernel`` (``encodeO200k``
for o200k_base): the spec's encoder with the encoding's own Unicode pre-tokenizer
(``Bpe.preTokenizeCl100k`` / ``Bpe.preTokenizeO200k``, ``lean/Bpe/Unicode/``, proven to
partition every byte string) over the text's UTF-8 bytes. The texts are ASCII strings that hit
every branch of the seed's pattern, lines of real text, and short texts in several scripts
(Latin with diacritics, Greek, Cyrillic, Hebrew, Arabic, Devanagari, Thai, CJK, Hangul, emoji,
combining marks, Unicode spaces and numbers). The expected ids come from **tiktoken** run on
the same truncated ranks with the encoding's own split pattern (tiktoken 0.14's ``pat_str``);
the Python reference (:mod:`verified_bpe.spec.unicode.encoders`) must give the same ids before
the file is written, else :class:`CrossCheckError`.

With ``ranks_ok`` the module proves condition C for the slice (``checkRanksFast``, lookups in a
search tree) and, from it, the issue-14 corollaries and the roundtrip for every string
(``decodeRanks ranks (encodeCl100k merges shuffle s) = some s``, from
``Bpe.decodeRanks_encodeRanksWith``). With ``well_formed`` it also proves
``checkWellFormed merges vocab shuffle = true`` by kernel evaluation (the seed's checker;
``vocab`` as ``build_vocab`` computes it) and the seed's ASCII roundtrip for the slice; off by
default, it costs more kernel time than everything else together (docs/crosscheck.md).

Run ``python -m verified_bpe.verify.crosscheck --help``; the test is
``tests/test_crosscheck_lean.py``.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..engine.patterns import PATTERNS
from ..errors import BpeError
from ..spec.ranks.check import check_ranks
from ..spec.ranks.tree import RankTree, rank_tree
from ..spec.seed import pretokenize as pt
from ..spec.seed.decompose import recover_merges
from ..spec.seed.shuffle import byte_shuffle_from_ranks
from ..spec.seed.well_formed import build_vocab
from ..spec.unicode.encoders import encode_cl100k, encode_o200k
from . import corpus

ENCODINGS = ("cl100k_base", "o200k_base")
#: Lean module name per encoding (file ``<out>/BpeCross/<name>.lean``).
MODULE_NAMES = {"cl100k_base": "Cl100k", "o200k_base": "O200k"}
#: The spec's encoder of each encoding (Lean name, Python mirror) and its pre-tokenizer.
ENCODERS = {
    "cl100k_base": ("encodeCl100k", encode_cl100k, "preTokenizeCl100k"),
    "o200k_base": ("encodeO200k", encode_o200k, "preTokenizeO200k"),
}
#: The pre-tokenizer's branches in priority order, then the 1-byte fallback.
BRANCHES = (*(m.__name__.removeprefix("match_") for m in pt.BRANCH_MATCHERS), "fallback")


class CrossCheckError(BpeError):
    """The Python reference and tiktoken disagree on a text (nothing is written)."""


@dataclass(frozen=True)
class Fact:
    """One text with tiktoken's ids."""

    text: str
    ids: tuple[int, ...]


@dataclass
class Slice:
    """The first ``n`` ranks of an encoding and the spec tables derived from them."""

    name: str
    n: int
    ranks: dict[bytes, int]
    merges: dict[tuple[int, int], int] = field(init=False)
    shuffle: list[int] = field(init=False)

    def __post_init__(self) -> None:
        self.merges = recover_merges(self.ranks)
        self.shuffle = byte_shuffle_from_ranks(self.ranks)


def slice_ranks(ranks: Mapping[bytes, int], n: int) -> dict[bytes, int]:
    """The ranks below ``n`` (must include all 256 single bytes)."""
    sliced = {b: r for b, r in ranks.items() if r < n}
    if len(sliced) != n or any(bytes([b]) not in sliced for b in range(256)):
        raise CrossCheckError(f"the first {n} ranks are not a rank table with all 256 bytes")
    return sliced


def load_slice(name: str, n: int) -> Slice:
    from ..engine.vocab import load_ranks

    return Slice(name, n, slice_ranks(load_ranks(name), n))


def oracle(sl: Slice):  # -> tiktoken.Encoding
    """tiktoken on the truncated ranks, with the encoding's own split pattern."""
    import tiktoken

    return tiktoken.Encoding(
        name=f"{sl.name}_first{sl.n}",
        pat_str=PATTERNS[sl.name],
        mergeable_ranks=sl.ranks,
        special_tokens={},
    )


# ------------------------------------------------------------------------------- texts
def branch_at(data: bytes, i: int) -> int:
    """Index in :data:`BRANCHES` of the pre-tokenizer branch that produces the chunk at ``i``."""
    return next((k for k, m in enumerate(pt.BRANCH_MATCHERS) if m(data, i)), 7)


def branches_hit(text: str) -> set[int]:
    data = text.encode("ascii")
    hit, i = set(), 0
    for chunk in pt.pre_tokenize_ascii(data):
        hit.add(branch_at(data, i))
        i += len(chunk)
    return hit


_PUNCT = "!?.,;:()[]{}<>-+*/=_\"'#$%&@^`|~\\"
_WORDS = ["the", "Token", "ization", "BPE", "of", "a", "I", "we", "HELLO", "x", "don", "it"]
_PIECES = [
    lambda r: r.choice(_WORDS),
    lambda r: r.choice(["'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'LL", "'x"]),
    lambda r: "".join(r.choice("0123456789") for _ in range(r.randint(1, 7))),
    lambda r: (
        "".join(r.choice(_PUNCT) for _ in range(r.randint(1, 3)))
        + r.choice(["", "", "\n", "\r\n", "\n\n"])
    ),
    lambda r: r.choice([" ", "  ", "   ", "\t", " \t "]),
    lambda r: r.choice(["\n", "\r\n", " \n", "\n\n", "  \n ", "\t\n"]),
    lambda r: r.choice(["\x01", "\x1f", "\x7f", "\x0b", "\x0c"]),
]


def covering_ascii_strings(count: int, seed: int = 0, max_len: int = 32) -> list[str]:
    """``count`` seeded random ASCII strings from a grammar of the branches' pieces; raises
    unless each of the seven pattern branches occurs in some string (the 1-byte fallback
    is reached only by non-ASCII bytes)."""
    rng = random.Random(seed)
    texts: list[str] = []
    hit: set[int] = set()
    while len(texts) < count:
        text = ""
        while len(text) < rng.randint(4, max_len):
            text += rng.choice(_PIECES)(rng)
        text = text[:max_len]
        if text and text not in texts:
            texts.append(text)
            hit |= branches_hit(text)
    missing = [BRANCHES[k] for k in range(7) if k not in hit]
    if missing:
        raise CrossCheckError(f"generated strings miss branches {missing}; raise count")
    return texts


def real_lines(count: int, max_len: int = 48) -> list[str]:
    """ASCII lines of real text: one line of each of the standard library's top-level
    modules, taken from the middle of the file (deterministic: sorted files, the first line
    from the middle on that fits; comment markers dropped, every third line ends in a
    newline)."""
    lines: list[str] = []
    for path in corpus.stdlib_python_files():
        source = corpus.read_text(path).splitlines()
        for raw in source[len(source) // 2 :]:
            line = raw.strip()
            if line.startswith("#"):
                line = line.lstrip("# ")
            if 12 <= len(line) <= max_len and line.isascii() and line not in lines:
                lines.append(line + "\n" if len(lines) % 3 == 0 else line)
                break
        if len(lines) >= count:
            break
    return lines


#: Short texts beyond ASCII, one concern each: scripts, emoji (with a skin-tone modifier and a
#: ZWJ sequence), combining marks, title-case and modifier letters (o200k's case classes),
#: numbers outside ASCII (also above U+FFFF), Unicode spaces and line separators, contractions
#: with non-ASCII neighbours and a whitespace run at the end (cl100k's ``\s++$``).
UNICODE_TEXTS = (
    "Größe naïve café",
    "Привет, мир!",
    "Γειά σου κόσμε",
    "שלום עולם",
    "مرحبا بالعالم",
    "नमस्ते दुनिया",
    "สวัสดีครับ",
    "日本語のテキスト。",
    "中文分词测试",
    "한국어 텍스트",
    "emoji 🙂👍🏽 ok!",
    "👨\u200d👩\u200d👧 family",
    "e\u0301 a\u0308 n\u0303",
    "ǅungla ǈubav",
    "ʰʲ modifier ᵃ",
    "Ⅻ ½ ٣٤٥ 𝟙𝟚",
    "a\u00a0b\u2003c\u3000d",
    "line\u2028sep\u0085next\r\n",
    "don’t DON'T ſ's Ünïcode's",
    "HELLOWorld ÀÉÎou camelCase",
    "x²+y² = z³ → ∞",
    "end with spaces \u3000 ",
)


def unicode_texts(max_bytes: int = 40) -> list[str]:
    """:data:`UNICODE_TEXTS` of at most ``max_bytes`` UTF-8 bytes (the kernel's cost grows with
    the chunks' lengths, docs/crosscheck.md)."""
    return [t for t in UNICODE_TEXTS if len(t.encode("utf-8")) <= max_bytes]


# ------------------------------------------------------------------------------- facts
def make_facts(sl: Slice, texts: Sequence[str]) -> list[Fact]:
    """tiktoken's ids for every text; raise if the Python reference disagrees."""
    enc = oracle(sl)
    mirror = ENCODERS[sl.name][1]
    facts = []
    for text in texts:
        ids = tuple(enc.encode_ordinary(text))
        mine = tuple(mirror(sl.merges, sl.shuffle, text))
        if mine != ids:
            raise CrossCheckError(
                f"{sl.name}: {text!r}: Python {list(mine)} != tiktoken {list(ids)}"
            )
        facts.append(Fact(text, ids))
    return facts


# ------------------------------------------------------------------------------- Lean
def _invisible(c: str) -> bool:
    """Control, format, separator (other than the space) and unassigned code points: written
    as escapes so that the Lean file shows them."""
    cat = unicodedata.category(c)
    return cat[0] == "C" or (cat[0] == "Z" and c != " ")


def lean_string(s: str) -> str:
    """A Lean string literal for ``s`` (Lean's escapes ``\\xHH`` and ``\\uHHHH`` are
    Python's)."""
    out = []
    for c in s:
        if c in '"\\':
            out.append("\\" + c)
        elif c == "\n":
            out.append("\\n")
        elif c == "\t":
            out.append("\\t")
        elif c == "\r":
            out.append("\\r")
        elif ord(c) < 256 and _invisible(c):
            out.append(f"\\x{ord(c):02x}")
        elif ord(c) < 0x10000 and _invisible(c):
            out.append(f"\\u{ord(c):04x}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def _ids(ids: Sequence[int]) -> str:
    return "[" + ", ".join(map(str, ids)) + "]"


def _wrap(items: list[str], indent: str = "  ", width: int = 96) -> str:
    lines, line = [], indent
    for k, item in enumerate(items):
        piece = item + ("," if k < len(items) - 1 else "")
        if len(line) + len(piece) + 1 > width and line.strip():
            lines.append(line.rstrip())
            line = indent
        line += piece + " "
    lines.append(line.rstrip())
    return "\n".join(lines)


def fact_lhs(name: str, fact: Fact) -> str:
    """``encodeCl100k merges shuffle "<text>"`` (``encodeO200k`` for o200k_base)."""
    return f"{ENCODERS[name][0]} merges shuffle {lean_string(fact.text)}"


def reduce_term(name: str, fact: Fact, ranks_ok: bool) -> str:
    """What ``#reduce`` prints for a sample fact: the encoder itself, or with condition C
    proven, tiktoken's algorithm through the search tree (``some [ids]``), which is the fast one
    to reduce."""
    if not ranks_ok:
        return fact_lhs(name, fact)
    return f"encodeRanksWithBy {ENCODERS[name][2]} (lookTree tree) {lean_string(fact.text)}"


#: marks the line of each fact, so that a failing line maps back to its text
FACT_MARK = "-- fact "


def _shuffle_tree(table: Sequence[int], lo: int, hi: int, indent: str) -> str:
    """A binary decision tree on ``n`` returning ``table[n]`` for ``lo <= n < hi``: eight
    comparisons per byte in the kernel instead of a 256-step list walk."""
    if hi - lo == 1:
        return f"{table[lo]}"
    mid = (lo + hi) // 2
    inner = indent + "  "
    return (
        f"if n < {mid} then\n{inner}{_shuffle_tree(table, lo, mid, inner)}\n"
        f"{indent}else\n{inner}{_shuffle_tree(table, mid, hi, inner)}"
    )


def _blocks(items: list[str], size: int) -> list[list[str]]:
    return [items[k : k + size] for k in range(0, len(items), size)] or [[]]


def _range_blocks(size: int) -> list[str]:
    return [f"List.range' {k} {size}" for k in range(0, 256, size)]


def rank_blocks(
    sl: Slice, block: int
) -> tuple[list[list[tuple[bytes, int]]], list[list[tuple[tuple[int, int], int]]]]:
    """The slice's rank table in rank order, cut into blocks of ``block`` entries, and beside
    each block the merges its tokens record (Lean: ``recoverMerges`` is a ``filterMap`` over the
    table, so the merge blocks concatenate to ``recoverMerges ranks``).

    Raises :class:`CrossCheckError` unless the table passes the Python ``check_ranks`` (the
    Lean check would fail) and the blocks cover the table and the merges, in order."""
    entries = sorted(sl.ranks.items(), key=lambda e: e[1])
    if not check_ranks(entries):
        raise CrossCheckError(f"{sl.name}: the first {sl.n} ranks fail check_ranks")
    blocks = [entries[k : k + block] for k in range(0, len(entries), block)] or [[]]
    merges = list(sl.merges.items())
    merge_blocks = [
        [m for m in merges if blk and blk[0][1] <= m[1] <= blk[-1][1]] for blk in blocks
    ]
    if [e for blk in blocks for e in blk] != entries or [
        m for blk in merge_blocks for m in blk
    ] != merges:
        raise CrossCheckError(f"{sl.name}: the blocks do not cover the table in order")
    return blocks, merge_blocks


def _bytes_literal(data: bytes) -> str:
    return "[" + ", ".join(map(str, data)) + "]"


def _appended(names: list[str], indent: str = "    ") -> str:
    """``a ++ b ++ …`` over several lines."""
    return _wrap(names, indent=indent, width=80).replace(",", " ++")


def _tree_literal(tree: RankTree, indent: str) -> str:
    """A `RankTree` as a Lean term, one node per line."""
    if tree is None:
        return ".leaf"
    key, rank, left, right = tree
    if left is None and right is None:
        return f"(.node {key} {rank} .leaf .leaf)"
    inner = indent + "  "
    return (
        f"(.node {key} {rank}\n{inner}{_tree_literal(left, inner)}"
        f"\n{inner}{_tree_literal(right, inner)})"
    )


def _ranks_section(name: str, n_blocks: int, ranges: list[str]) -> list[str]:
    """Condition C for the slice (`checkRanksFast`: lookups in the search tree `tree`, block
    by block) and its corollaries: the module's `merges` and `shuffle` are the tables recovered
    from `ranks`, so the main theorem of issue 14 applies to them, and the encoding's encoder
    round-trips on every string (`decodeRanks_encodeRanksWith`)."""
    encoder, _, pre = ENCODERS[name]
    blocks = range(n_blocks)
    ranks_eq = _appended([f"ranks{k}" for k in blocks])
    look = "(lookTree tree)"
    out = [
        "/-- `tree` is the search tree of `ranks`: looking a byte string up in it is",
        "`rankOf ranks` (`Bpe.lookTree_eq`). -/",
        "theorem treeOk : checkRankTree ranks tree = true := by decide +kernel",
        "theorem increasing : ranksIncreasing ranks = true := by decide +kernel",
        "theorem nonempty : ranks.all (fun e => !e.1.isEmpty) = true := by decide +kernel",
        "theorem bounded : ranks.all checkRankBound = true := by decide +kernel",
    ]
    for k in blocks:
        out += [
            f"theorem lookup{k} : ranks{k}.all (checkLookupBy {look}) = true := by",
            "  decide +kernel",
            f"theorem twoParts{k} : ranks{k}.all (checkTwoPartsBy {look}) = true := by",
            "  decide +kernel",
            f"theorem recover{k} : ranks{k}.filterMap (recoverMergeBy {look}) = merges{k} := by",
            "  decide +kernel",
        ]
    n_ranges = len(ranges)
    for k, r in enumerate(ranges):
        out += [
            f"theorem byteRank{k} : ({r}).all (checkByteRankBy {look}) = true := by",
            "  decide +kernel",
            f"theorem rankShuffle{k} : ({r}).all",
            f"    (checkByteMapEq (rankShuffleBy {look}) shuffle) = true := by",
            "  decide +kernel",
        ]

    def names(prefix: str, count: int) -> str:
        return _wrap([f"{prefix}{k}" for k in range(count)], indent="    ")

    out += [
        "",
        f"theorem lookups : ranks.all (checkLookupBy {look}) = true := by",
        "  show (",
        ranks_eq,
        f"    ).all (checkLookupBy {look}) = true",
        "  simp only [List.all_append, Bool.and_true,",
        names("lookup", n_blocks) + "]",
        "",
        f"theorem twoParts : ranks.all (checkTwoPartsBy {look}) = true := by",
        "  show (",
        ranks_eq,
        f"    ).all (checkTwoPartsBy {look}) = true",
        "  simp only [List.all_append, Bool.and_true,",
        names("twoParts", n_blocks) + "]",
        "",
        f"theorem byteRanks : (List.range 256).all (checkByteRankBy {look}) = true := by",
        "  simp only [range256, List.all_append, Bool.and_true,",
        names("byteRank", n_ranges) + "]",
        "",
        "/-- The slice passes the fast checker, proven sound by",
        "`Bpe.checkRanks_of_checkRanksFast`. -/",
        "theorem checkedFast : checkRanksFast ranks tree = true := by",
        "  simp only [checkRanksFast, checkRanksBy, treeOk, increasing, lookups, nonempty,",
        "    byteRanks, twoParts, bounded, Bool.and_self]",
        "",
        "/-- The slice passes the checker of condition C (`Bpe.checkRanks_sound`). -/",
        "theorem checked : checkRanks ranks = true := checkRanks_of_checkRanksFast checkedFast",
        "",
        "/-- Condition C (`RanksOk`, issue 14) for the slice. -/",
        "theorem ranksOk : RanksOk ranks := checkRanks_sound ranks checked",
        "",
        "/-- `merges` is the merge table recovered from `ranks`. -/",
        "theorem recoverMerges_eq : recoverMerges ranks = merges := by",
        "  rw [recoverMerges_eq_of_checkRankTree treeOk]",
        "  show (",
        ranks_eq,
        f"    ).filterMap (recoverMergeBy {look}) =",
        _appended([f"merges{k}" for k in blocks]),
        "  simp only [List.filterMap_append,",
        names("recover", n_blocks) + "]",
        "",
        "/-- `shuffle` is the byte shuffle recovered from `ranks`. -/",
        "theorem rankShuffle_eq : rankShuffle ranks = shuffle := by",
        "  rw [rankShuffle_eq_of_checkRankTree treeOk]",
        "  apply eq_of_all_checkByteMapEq",
        "  simp only [range256, List.all_append, Bool.and_true,",
        names("rankShuffle", n_ranges) + "]",
        "",
        "/-- The main theorem of issue 14 on this slice: the seed's chunk encoder on the module's",
        "tables is tiktoken's on its ranks. -/",
        "theorem encodeChunk_eq_ranks (chunk : Bytes) :",
        "    some (encodeChunk merges shuffle chunk) = encodePieceRanks ranks chunk :=",
        "  encodeChunk_eq_of_checkRanks checked recoverMerges_eq rankShuffle_eq chunk",
        "",
        "/-- The same for whole strings, for any pre-tokenizer. -/",
        "theorem encodeWith_eq_ranks (preTokenize : Bytes → List Bytes) (s : String) :",
        "    some (encodeWith preTokenize merges shuffle s) =",
        "      encodeRanksWith preTokenize ranks s :=",
        "  encodeWith_eq_of_checkRanks checked recoverMerges_eq rankShuffle_eq preTokenize s",
        "",
        "/-- The same for `encode` (the ASCII pre-tokenizer). -/",
        "theorem encode_eq_ranks (s : String) :",
        "    some (encode merges shuffle s) = encodeRanksWith preTokenizeAscii ranks s :=",
        "  encode_eq_of_checkRanks checked recoverMerges_eq rankShuffle_eq s",
        "",
        f"/-- The roundtrip on this slice, for every string: `{encoder}`'s ids, decoded through",
        "the rank table (tiktoken's decoder), give the string back. -/",
        "theorem roundtrip (s : String) :",
        f"    decodeRanks ranks ({encoder} merges shuffle s) = some s := by",
        f"  have h := decodeRanks_encodeRanksWith ranksOk {pre} flatten_{pre} s",
        "  -- `simp only` first: left to `exact`, the unifier evaluates the tables (17 s)",
        "  simp only [← encodeWith_eq_ranks, Option.bind] at h",
        "  exact h",
        "",
        f"/-- A fact about `{encoder}` from the kernel's evaluation of tiktoken's algorithm with",
        "lookups in `tree` (`encodeRanksWithBy_lookTree`, then the main theorem of issue 14). -/",
        "theorem fact_of (s : String) (ids : List Nat)",
        f"    (h : encodeRanksWithBy {pre} {look} s = some ids) :",
        f"    {encoder} merges shuffle s = ids := by",
        f"  have e := encodeWith_eq_ranks {pre} s",
        "  rw [← encodeRanksWithBy_lookTree treeOk, h] at e",
        "  exact Option.some.inj e",
        "",
    ]
    return out


def render_module(
    sl: Slice,
    facts: Sequence[Fact],
    reduce_sample: int = 0,
    well_formed: bool = False,
    ranks_ok: bool = False,
    block: int = 25,
) -> str:
    """The Lean source of the cross-check module for one slice.

    One kernel evaluation of the whole well-formedness check runs the offline Lean out of
    memory (measured), so the check is split into blocks, each its own theorem (`merges` is
    the concatenation of `merges0`, `merges1`, …; the 256 bytes are ranges of 16), recombined
    with `List.all_append`; `Elab.async false` keeps Lean from elaborating them all at once.
    The same holds for condition C on `ranks = ranks0 ++ ranks1 ++ …`; merge block `k` holds
    the merges that rank block `k` records (:func:`rank_blocks`). Condition C is checked by
    `checkRanksFast`, whose lookups go through the search tree `tree` (written as a literal,
    :func:`verified_bpe.spec.ranks.tree.rank_tree`, and checked once: `treeOk`).
    """
    mod = MODULE_NAMES[sl.name]
    if ranks_ok:
        blocks, m_blocks = rank_blocks(sl, block)
    else:
        blocks, m_blocks = [], _blocks(list(sl.merges.items()), block)
    merge_blocks = [[f"(({p0}, {p1}), {idx})" for (p0, p1), idx in blk] for blk in m_blocks]
    vocab = build_vocab(sl.merges) if well_formed else {}
    entries = [f"({i}, [{', '.join(map(str, vocab[i]))}])" for i in sorted(vocab)]
    out = [
        "module",
        "",
        "-- the two layers the module uses",
        "public import Bpe.Ranks",
        "public import Bpe.Unicode",
        "",
        "/-!",
        f"# Cross-check: the first {sl.n} ranks of `{sl.name}` (generated)",
        "",
        "Generated by `python -m verified_bpe.verify.crosscheck`; do not edit.",
        "Expected ids come from",
        "tiktoken on the same truncated ranks and were matched by the Python reference before",
        "this file was written. Every fact is checked by kernel evaluation of the spec (with",
        "condition C proven: of tiktoken's algorithm through the search tree, `fact_of`).",
        "-/",
        "",
        "set_option maxRecDepth 200000",
        "set_option maxHeartbeats 0",
        "-- one declaration at a time: elaborated in parallel, the kernel evaluations of the",
        "-- blocks below together exceed the offline Lean's memory (measured)",
        "set_option Elab.async false",
        "",
        "open Bpe",
        "",
        f"namespace BpeCross.{mod}",
        "",
        "noncomputable section",
        "",
    ]
    for k, blk in enumerate(blocks):
        items = [f"({_bytes_literal(t)}, {r})" for t, r in blk]
        out += [f"def ranks{k} : Ranks := [", _wrap(items), "]", ""]
    if blocks:
        out += [
            f"/-- The first {sl.n} ranks (byte string ↦ rank), in rank order. -/",
            "def ranks : Ranks :=",
            _appended([f"ranks{k}" for k in range(len(blocks))], indent="  "),
            "",
            "/-- The search tree of `ranks` (byte string coded by `keyOf` ↦ rank), as",
            "`rankTree ranks` computes it (`treeOk` below). -/",
            "def tree : RankTree :=",
            "  " + _tree_literal(rank_tree(sl.ranks.items()), "  "),
            "",
        ]
    for k, blk in enumerate(merge_blocks):
        out += (
            [f"def merges{k} : Merges := [", _wrap(blk), "]", ""]
            if blk
            else [f"def merges{k} : Merges := []", ""]
        )
    out += [
        f"/-- The merges of the first {sl.n} ranks (pair of ranks ↦ rank), in rank order. -/",
        "def merges : Merges :=",
        _appended([f"merges{k}" for k in range(len(merge_blocks))], indent="  "),
        "",
    ]
    if well_formed:
        out += [
            "/-- The vocabulary (rank ↦ bytes, in the shuffled byte space: byte `b` is the rank",
            "of the single-byte token `[b]`), as `buildVocab merges` computes it. -/",
            "def vocab : Vocab := [",
            _wrap(entries),
            "]",
            "",
        ]
    out += [
        "/-- Byte ↦ the rank of its single-byte token. -/",
        "def shuffleAt (n : Nat) : UInt8 :=",
        "  " + _shuffle_tree(sl.shuffle, 0, 256, "  "),
        "",
        "def shuffle (b : UInt8) : UInt8 := shuffleAt b.toNat",
        "",
        "end",
        "",
    ]
    ranges = _range_blocks(16)
    if well_formed or ranks_ok:
        out += [
            "theorem range256 : List.range 256 =",
            _wrap(ranges, indent="    ").replace(",", " ++") + " := by",
            "  decide +kernel",
            "",
        ]
    if well_formed:
        for k, r in enumerate(ranges):
            out += [
                f"theorem base{k} : ({r}).all",
                "    (fun i => vocab.lookup i == some [UInt8.ofNat i]) = true := by decide +kernel",
                f"theorem shuffle{k} : ({r}).all (shuffleInverseAt shuffle) = true := by",
                "  decide +kernel",
            ]
        for k in range(len(merge_blocks)):
            out.append(f"theorem merge{k} : merges{k}.all (checkMergeEntry vocab) = true := by")
            out.append("  decide +kernel")
        n_r, n_m = len(ranges), len(merge_blocks)
        out += [
            "",
            "theorem injective : checkInjective vocab = true := by decide +kernel",
            "",
            "/-- The slice passes the checker proven sound (`Bpe.checkWellFormed_sound`). -/",
            "theorem wellFormed : checkWellFormed merges vocab shuffle = true := by",
            "  simp only [checkWellFormed, checkBaseTokens, checkShuffle, range256, merges,",
            "    List.all_append, injective, Bool.and_true,",
            _wrap(
                [f"base{k}" for k in range(n_r)]
                + [f"shuffle{k}" for k in range(n_r)]
                + [f"merge{k}" for k in range(n_m)],
                indent="    ",
            )
            + "]",
            "",
            f"/-- The seed's roundtrip theorem for this real vocabulary slice of `{sl.name}`. -/",
            "theorem roundtripAscii (s : String) (hs : IsAsciiString s) :",
            "    decode vocab (invertShuffle shuffle) (encode merges shuffle s) = some s :=",
            "  ascii_bpe_roundtrip_of_check merges vocab shuffle wellFormed s hs",
            "",
        ]
    if ranks_ok:
        out += _ranks_section(sl.name, len(blocks), ranges)
    # with condition C proven, the kernel evaluates tiktoken's algorithm through the search tree
    # and `fact_of` carries each fact to the encoder (docs/crosscheck.md: 0.3-0.5 s of kernel
    # time per byte through the seed's 744-entry merge list)
    proof = "fact_of _ _ (by decide +kernel)" if ranks_ok else "by decide +kernel"
    for k, fact in enumerate(facts):
        out.append(f"{FACT_MARK}{k}")
        out.append(f"example : {fact_lhs(sl.name, fact)} =")
        out.append(f"    {_ids(fact.ids)} := {proof}")
    out.append("")
    for k, fact in enumerate(facts[:reduce_sample]):
        out.append(f"-- reduce {k}")
        out.append(f"#reduce {reduce_term(sl.name, fact, ranks_ok)}")
    out += ["", f"end BpeCross.{mod}", ""]
    return "\n".join(out)


FACT_LINE = re.compile(r"^" + re.escape(FACT_MARK) + r"(\d+)$")


def fact_lines(source: str) -> dict[int, int]:
    """1-based line number of each fact's ``example`` ↦ fact index (and its next line)."""
    lines = {}
    for no, line in enumerate(source.splitlines(), start=1):
        m = FACT_LINE.match(line)
        if m:
            lines[no + 1] = lines[no + 2] = int(m.group(1))
    return lines


def random_texts(count: int, seed: int = 0, max_bytes: int = 40) -> list[str]:
    """``count`` seeded random strings of code points from the ranges route 3 draws from
    (:data:`verified_bpe.verify.corpus.UNICODE_RANGES`), of at most ``max_bytes``
    UTF-8 bytes each, without invisible code points above U+FFFF."""

    out: list[str] = []
    k = 0
    while len(out) < count:
        text = corpus.random_unicode(1, seed=seed * 100_003 + k, max_len=12)[0]
        k += 1
        # Lean has no escape above U+FFFF: skip invisible code points there
        visible = not any(ord(c) > 0xFFFF and _invisible(c) for c in text)
        if len(text.encode("utf-8")) <= max_bytes and visible and text not in out:
            out.append(text)
    return out


def default_texts(
    n_generated: int, n_lines: int, n_unicode: int = 0, n_random: int = 0, seed: int = 0
) -> list[str]:
    """Generated ASCII strings, lines of real text, the first ``n_unicode`` of
    :func:`unicode_texts` and ``n_random`` random Unicode strings."""
    return (
        covering_ascii_strings(n_generated, seed)
        + real_lines(n_lines)
        + unicode_texts()[:n_unicode]
        + random_texts(n_random, seed)
    )


def write_module(out_dir: Path, sl: Slice, facts: Sequence[Fact], **kw) -> Path:
    path = out_dir / "BpeCross" / f"{MODULE_NAMES[sl.name]}.lean"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_module(sl, facts, **kw), encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m verified_bpe.verify.crosscheck",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--encoding", choices=ENCODINGS, default="cl100k_base")
    ap.add_argument("--ranks", type=int, default=1000, help="slice size (default 1000)")
    ap.add_argument("--generated", type=int, default=150, help="generated ASCII strings")
    ap.add_argument("--lines", type=int, default=50, help="lines of real text")
    ap.add_argument(
        "--unicode",
        type=int,
        default=len(UNICODE_TEXTS),
        help="short texts in several scripts (default: all)",
    )
    ap.add_argument("--random", type=int, default=20, help="random Unicode strings")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--reduce", type=int, default=3, help="facts also shown by #reduce")
    ap.add_argument("--out", type=Path, default=Path(".cache/crosscheck"))
    ap.add_argument(
        "--ranks-ok",
        action="store_true",
        help="also prove condition C (checkRanksFast, lookups in a search tree) and "
        "the issue-14 corollaries and the roundtrip for the slice (kernel cost: "
        "docs/crosscheck.md)",
    )
    ap.add_argument(
        "--well-formed",
        action="store_true",
        help="also prove the seed's checkWellFormed for the slice and its ASCII "
        "roundtrip (the most expensive part: docs/crosscheck.md)",
    )
    args = ap.parse_args(argv)
    sl = load_slice(args.encoding, args.ranks)
    texts = default_texts(args.generated, args.lines, args.unicode, args.random, args.seed)
    facts = make_facts(sl, texts)
    path = write_module(
        args.out,
        sl,
        facts,
        reduce_sample=args.reduce,
        ranks_ok=args.ranks_ok,
        well_formed=args.well_formed,
    )
    print(f"{path}: {len(facts)} facts, {sl.n} ranks ({len(sl.merges)} merges)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
