"""The machines of r50k_base, llama.cpp's Llama 3 and Meta's Llama 3 patterns and their regexes.

Lean proves, for each, the code-point machine equal to ``findIter`` of the pattern's term under
``unicodeClasses`` (``Bpe.Regex.preTokenizeR50k_eq_findIter``,
``Bpe.Regex.preTokenizeLlama3_eq_findIter``, ``Bpe.Regex.preTokenizeLlama3Meta_eq_findIter``),
the bridges from bytes and strings, and the end-to-end statements
(``Bpe.Regex.encodeR50k_eq_tiktokenEncodeOrdinary``;
``Bpe.Regex.encodeRanksWith_llama3_eq_tiktokenEncodeOrdinary`` and
``Bpe.Regex.encodeRanksWith_llama3Meta_eq_tiktokenEncodeOrdinary``: rank BPE over the chunks is
tiktoken's ``encode_ordinary`` with the pattern, for every table).  These tests run the Python
mirrors against independent oracles: the ``regex`` module on the pattern string, and tiktoken's
own engine (fancy-regex) splitting with the pattern string.  No rank file is needed: tiktoken's
split is read through a table that holds every substring of the text (a piece that is a token
is looked up whole, so each piece comes back as one id).

``VERIFIED_BPE_R50K_SCAN``, ``VERIFIED_BPE_LLAMA3_SCAN`` and ``VERIFIED_BPE_LLAMA3_META_SCAN``
= ``boundary`` (every class-boundary code point) or ``all`` (every code point) widen the probe
test of that machine; CI runs a fixed sample of boundary code points (500, 250, 250).
"""

from __future__ import annotations

import ast
import importlib.util
import os
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import MIXED_TEXTS, UNICODE_SNIPPETS
from regex_machines import check_machine_is_regex, check_unit_chunks_bridge, random_text
from verified_bpe.engine.patterns import LLAMA3_META_PATTERN, LLAMA3_PATTERN, R50K_PATTERN
from verified_bpe.spec.regex.patterns import llama3_meta_pattern, llama3_pattern
from verified_bpe.spec.regex.print import to_regex
from verified_bpe.spec.regex.r50k_pattern import r50k_pattern
from verified_bpe.spec.regex.syntax import Re
from verified_bpe.spec.unicode import llama3, r50k
from verified_bpe.spec.unicode import tables as unicode_tables
from verified_bpe.spec.unicode.cl100k import pre_tokenize_cl100k
from verified_bpe.verify import unicode_classes, unicode_scan

LEAN_REGEX = Path(__file__).resolve().parents[1] / "lean" / "Bpe" / "Regex"

#: pieces that exercise every branch: contractions in both cases and the long s, letters
#: (after a lead), digits and punctuation of several scripts with and without a leading space,
#: whitespace runs (with newlines, U+00A0, U+3000) inside and at the end of the text.
R50K_WORDS = [
    "'s",
    "'S",
    "'ll",
    "'LL",
    "'ve",
    "'re",
    "'d",
    "'x",
    "’s",
    "Grüße",
    "naïve",
    "世界",
    "\u05d0\u05d1",
    "123456",
    "\u0663\u0664",
    "½",
    " \n ",
    "\r\n",
    "\t",
    "  ",
    "   ",
    "\u00a0",
    "\u3000",
    "!?",
    "/",
    "≈",
    "\u0301",
    "\U0001f600",
    "x",
    " ",
    " 7",
    " !",
    " a",
]
LLAMA3_WORDS = [
    *R50K_WORDS,
    "'lL",
    "'Ve",
    "'rE",
    "'M",
    "'T",
    "'\u017f",
    "'\u017ft",
    "\n\n",
    "!\n",
    "$a",
]


@dataclass(frozen=True)
class Machine:
    """One proven machine: its pattern (term and string), its mirrors and its test data."""

    name: str
    term: Callable[[], Re]
    pattern: str
    next_chunk_len: Callable[[Sequence[int], int], int]
    pre_tokenize: Callable[[bytes], list[bytes]]
    words: list[str]
    seeds: tuple[int, int, int, int]  # regex, bridge, texts, scan sample
    sample: int  # boundary code points of the CI probe sample
    #: a text where this machine and tiktoken agree and ``other`` does not
    can_fail: tuple[str, Callable[[bytes], list[bytes]]]

    @property
    def scan(self) -> str:
        return os.environ.get(f"VERIFIED_BPE_{self.name.upper()}_SCAN", "")


MACHINES = [
    # cl100k_base: case-insensitive contractions, no space before digits, 1-3 digit runs
    Machine(
        "r50k",
        r50k_pattern,
        R50K_PATTERN,
        r50k.next_chunk_len,
        r50k.pre_tokenize_r50k,
        R50K_WORDS,
        (50, 7, 50, 33),
        500,
        ("He'S got 12345 cats", pre_tokenize_cl100k),
    ),
    # cl100k_base reads 'ſ as a contraction ((?i:…) folds U+017F to s); '[sS] does not
    Machine(
        "llama3",
        llama3_pattern,
        LLAMA3_PATTERN,
        llama3.next_chunk_len,
        llama3.pre_tokenize_llama3,
        LLAMA3_WORDS,
        (3, 8, 3, 34),
        250,
        ("He'\u017f got 12345 cats\n\n  ", pre_tokenize_cl100k),
    ),
    # Meta's (?i:'s|…) takes 'ſ before a letter, llama.cpp's leaves it to the word branch
    Machine(
        "llama3_meta",
        llama3_meta_pattern,
        LLAMA3_META_PATTERN,
        llama3.next_chunk_len_meta,
        llama3.pre_tokenize_llama3_meta,
        LLAMA3_WORDS,
        (5, 9, 5, 35),
        250,
        ("He'\u017fx got 12345 cats\n\n  ", llama3.pre_tokenize_llama3),
    ),
]
BY_NAME = {m.name: m for m in MACHINES}
machines = pytest.mark.parametrize("m", MACHINES, ids=[m.name for m in MACHINES])


@machines
def test_find_iter_unicode_is_machine_and_regex(m: Machine) -> None:
    """``find_iter`` under the Unicode classes, the code-point machine and ``regex.findall``
    agree on 300 random texts."""
    check_machine_is_regex(
        m.term(), m.pattern, lambda rest: m.next_chunk_len(rest, 0), m.words, seed=m.seeds[0]
    )


@machines
def test_unit_chunks_bridge(m: Machine) -> None:
    """The byte machine's chunks are its chunks of UTF-8 units, read back as code points."""
    check_unit_chunks_bridge(
        m.pre_tokenize, lambda rest: m.next_chunk_len(rest, 0), m.words, seed=m.seeds[1]
    )


def _texts(m: Machine) -> list[str]:
    rng = random.Random(m.seeds[2])
    short = [s for s in (*MIXED_TEXTS, *UNICODE_SNIPPETS) if len(s) <= 80]
    return [*short, *(random_text(rng, m.words) for _ in range(200))]


@machines
def test_machine_is_tiktoken_split(m: Machine) -> None:
    """The machine's chunks are tiktoken's pieces (fancy-regex on the pattern string)."""
    pytest.importorskip("tiktoken")
    texts = _texts(m)
    split = unicode_scan.tiktoken_pieces(m.pattern, texts)
    bad = [t for t in texts if m.pre_tokenize(t.encode()) != split(t)]
    assert not bad, bad[:5]


@machines
def test_tiktoken_split_can_fail(m: Machine) -> None:
    """The oracle tells the patterns apart: on a text where tiktoken's split is this
    machine's, another machine (cl100k_base's, or llama.cpp's for Meta's) differs."""
    pytest.importorskip("tiktoken")
    text, other = m.can_fail
    split = unicode_scan.tiktoken_pieces(m.pattern, [text])
    assert m.pre_tokenize(text.encode()) == split(text)
    assert other(text.encode()) != split(text)


def _scan_code_points(m: Machine) -> list[int]:
    """Both sides of every range edge of every class (all of them, or a fixed sample), or
    every code point (scan ``all``); surrogates left out."""
    if m.scan == "all":
        return [c for c in range(0x110000) if c not in unicode_classes.SURROGATES]
    edges: set[int] = set()
    for cls in unicode_classes.CLASSES:
        for lo, hi in getattr(unicode_tables, f"{cls.py_name.upper()}_RANGES"):
            edges |= {lo - 1, lo, hi, hi + 1}
    cps = sorted(c for c in edges if 0 <= c <= 0x10FFFF and c not in unicode_classes.SURROGATES)
    return cps if m.scan == "boundary" else random.Random(m.seeds[3]).sample(cps, m.sample)


@machines
def test_probes_vs_tiktoken_split(m: Machine, tally) -> None:  # noqa: ANN001 - fixture
    """The exhaustive scan's four probe strings around each code point (class boundaries; all
    code points with the scan ``all``): the machine's chunks are tiktoken's."""
    pytest.importorskip("tiktoken")
    cps = _scan_code_points(m)
    wrong: list[int] = []
    for k in range(0, len(cps), 256):
        block = cps[k : k + 256]
        split = unicode_scan.tiktoken_pieces(
            m.pattern, [p for c in block for p in unicode_scan.probes(chr(c))]
        )
        wrong += [
            c
            for c in block
            if any(m.pre_tokenize(p.encode()) != split(p) for p in unicode_scan.probes(chr(c)))
        ]
    assert wrong == [], [f"U+{c:04X}" for c in wrong[:5]]
    tally(
        f"{m.name} machine vs tiktoken split, probes of {m.scan or 'sampled boundary'} code points",
        len(cps),
    )


def test_r50k_pattern_is_tiktokens() -> None:
    """The r50k pattern string is tiktoken 0.14's ``r50k_pat_str``."""
    openai_public = pytest.importorskip("tiktoken_ext.openai_public")
    assert openai_public.r50k_pat_str == R50K_PATTERN


def test_lean_pattern_string_is_llama_cpps() -> None:
    """The literal that ``toRegex_llama3Pattern`` (``lean/Bpe/Regex/Llama3.lean``) proves the
    term prints to is llama.cpp's ``LLAMA_VOCAB_PRE_TYPE_LLAMA3`` regex, read from llama.cpp's
    own ``src/llama-vocab.cpp`` (fetched by :mod:`verified_bpe.verify.testdata`)."""
    from test_regex_pattern_strings import lean_string
    from verified_bpe.verify import testdata

    source = (LEAN_REGEX / "Llama3.lean").read_text(encoding="utf-8")
    literal = lean_string(source, "llama3PatternString")
    source = (testdata.models_dir().parent / "src" / "llama-vocab.cpp").read_text(encoding="utf-8")
    case = source[source.index("case LLAMA_VOCAB_PRE_TYPE_LLAMA3:") :]
    # the first string that is not commented out (the line above it is the original regex)
    cpp = re.search(r'^\s*"((?:[^"\\]|\\.)*)"', case, re.M).group(1).replace("\\\\", "\\")
    assert literal == cpp == LLAMA3_PATTERN


def test_lean_pattern_string_is_metas() -> None:
    """The literal that ``toRegex_llama3MetaPattern`` (``lean/Bpe/Regex/Llama3Meta.lean``)
    proves the term prints to is ``LLAMA3_META_PATTERN``, which the Python printer writes for
    the mirror's term too, and differs from llama.cpp's only in the contractions."""
    from test_regex_pattern_strings import lean_string

    source = (LEAN_REGEX / "Llama3Meta.lean").read_text(encoding="utf-8")
    literal = lean_string(source, "llama3MetaPatternString")
    assert literal == LLAMA3_META_PATTERN == to_regex(llama3_meta_pattern())
    head, tail = LLAMA3_META_PATTERN.split("|[^", 1)
    assert head == "(?i:'s|'t|'re|'ve|'m|'ll|'d)"
    assert LLAMA3_PATTERN.endswith(")|[^" + tail)


def test_meta_pattern_is_llama_models() -> None:
    """``LLAMA3_META_PATTERN`` is the ``pat_str`` of Meta's ``llama_models/llama3/tokenizer.py``
    (the ``llama-models`` package, when installed; read as source, not imported)."""
    spec = importlib.util.find_spec("llama_models")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("llama-models is not installed")
    path = Path(next(iter(spec.submodule_search_locations))) / "llama3" / "tokenizer.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    values = [
        ast.literal_eval(n.value)
        for n in ast.walk(tree)
        if isinstance(n, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "pat_str" for t in n.targets)
    ]
    assert values == [LLAMA3_META_PATTERN]


def test_meta_pattern_takes_the_proven_machine(tmp_path: Path) -> None:
    """As Meta's ``tokenizer.py`` builds it, ``Encoding(pat_str=LLAMA3_META_PATTERN,
    mergeable_ranks=load_tiktoken_bpe(<a .tiktoken file>), …)`` (tiktoken's faces) pre-tokenizes
    on the native ``llama3_meta`` machine, not on a regex, and returns tiktoken's ids."""
    tiktoken = pytest.importorskip("tiktoken")
    from verified_bpe.api.encoding import Encoding
    from verified_bpe.api.load import dump_tiktoken_bpe, load_tiktoken_bpe

    texts = [BY_NAME["llama3_meta"].can_fail[0], "I'M sure they'Re here'ſt\r\n\n 42!! x"]
    ranks = {bytes([b]): b for b in range(256)}
    for token in (b"'\xc5\xbf", b"He", b" got", b"'M", b" sure", b"'R", b"12", b"\n\n"):
        ranks[token] = len(ranks)
    model = tmp_path / "tokenizer.model"
    dump_tiktoken_bpe(ranks, str(model))
    enc = Encoding(
        "meta",
        pat_str=LLAMA3_META_PATTERN,
        mergeable_ranks=load_tiktoken_bpe(str(model)),
        special_tokens={},
    )
    native = enc._tokenizer._native
    assert native is not None and native.pre_tokenizer == "llama3_meta" and not native.regex_split
    oracle = tiktoken.Encoding(
        "meta", pat_str=LLAMA3_META_PATTERN, mergeable_ranks=ranks, special_tokens={}
    )
    for text in texts:
        assert enc.encode_ordinary(text) == oracle.encode_ordinary(text), text
