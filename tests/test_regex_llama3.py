"""Llama 3's machine (llama.cpp's ``llama-bpe`` pattern) and its regex.

Lean proves ``Bpe.Regex.preTokenizeLlama3_eq_findIter`` (the code-point machine is ``findIter``
of ``llama3Pattern`` under ``unicodeClasses``), its bridges from bytes and strings, and
``Bpe.Regex.encodeRanksWith_llama3_eq_tiktokenEncodeOrdinary`` (rank BPE over its chunks is
tiktoken's ``encode_ordinary`` with the pattern, for every table).  These tests run the Python
mirrors against independent oracles: the ``regex`` module on the pattern string, and tiktoken's
engine (fancy-regex) splitting with ``LLAMA3_PATTERN`` through a table that holds every
substring of the text (each piece of its split then comes back as one token).
"""

from __future__ import annotations

import os
import random
import re
from collections.abc import Sequence
from pathlib import Path

import pytest

from conftest import MIXED_TEXTS, UNICODE_SNIPPETS
from regex_machines import check_machine_is_regex, check_unit_chunks_bridge, random_text
from verified_bpe.engine.patterns import LLAMA3_PATTERN
from verified_bpe.spec.regex.patterns import llama3_pattern
from verified_bpe.spec.unicode import tables as unicode_tables
from verified_bpe.spec.unicode.cl100k import pre_tokenize_cl100k
from verified_bpe.spec.unicode.llama3 import next_chunk_len, pre_tokenize_llama3
from verified_bpe.verify import unicode_classes, unicode_scan

#: ``VERIFIED_BPE_LLAMA3_SCAN=boundary`` (every class-boundary code point) or ``all`` (every
#: code point) widens the probe test below; CI runs a sample of 250 boundary code points.
SCAN = os.environ.get("VERIFIED_BPE_LLAMA3_SCAN", "")

#: pieces that exercise every branch: contractions in both cases and the long s (not one
#: here), letters after a lead, digit runs, punctuation with newlines, whitespace runs.
WORDS = [
    "'s",
    "'S",
    "'ll",
    "'lL",
    "'LL",
    "'Ve",
    "'rE",
    "'d",
    "'M",
    "'T",
    "'x",
    "'\u017f",
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
    "\n\n",
    "\t",
    "  ",
    "   ",
    "\u00a0",
    "\u3000",
    "!?",
    "!\n",
    "/",
    "≈",
    "\u0301",
    "\U0001f600",
    "x",
    " ",
    " 7",
    " !",
    " a",
    "$a",
]


def _next(rest: Sequence[int]) -> int:
    return next_chunk_len(rest, 0)


def test_find_iter_unicode_is_machine_and_regex() -> None:
    """``find_iter`` under the Unicode classes, the code-point machine and ``regex.findall``
    agree on 300 random texts."""
    check_machine_is_regex(llama3_pattern(), LLAMA3_PATTERN, _next, WORDS, seed=3)


def test_unit_chunks_bridge() -> None:
    """The byte machine's chunks are its chunks of UTF-8 units, read back as code points."""
    check_unit_chunks_bridge(pre_tokenize_llama3, _next, WORDS, seed=8)


def _tiktoken_splitter(tiktoken, texts: Sequence[str]):  # noqa: ANN001, ANN202 - module
    """tiktoken's pieces under ``LLAMA3_PATTERN`` for each of ``texts``: with every substring of
    the texts a token, each piece is looked up whole and comes back as one id."""
    ranks = {bytes([b]): b for b in range(256)}
    for text in texts:
        for i in range(len(text)):
            for j in range(i + 1, len(text) + 1):
                ranks.setdefault(text[i:j].encode(), len(ranks))
    enc = tiktoken.Encoding(
        "llama3_probe", pat_str=LLAMA3_PATTERN, mergeable_ranks=ranks, special_tokens={}
    )
    return lambda text: [enc.decode_single_token_bytes(t) for t in enc.encode_ordinary(text)]


def _texts() -> list[str]:
    rng = random.Random(3)
    short = [s for s in (*MIXED_TEXTS, *UNICODE_SNIPPETS) if len(s) <= 80]
    return [*short, *(random_text(rng, WORDS) for _ in range(200))]


def test_machine_is_tiktoken_split() -> None:
    """The machine's chunks are tiktoken's pieces (fancy-regex on ``LLAMA3_PATTERN``)."""
    tiktoken = pytest.importorskip("tiktoken")
    texts = _texts()
    split = _tiktoken_splitter(tiktoken, texts)
    bad = [t for t in texts if pre_tokenize_llama3(t.encode()) != split(t)]
    assert not bad, bad[:5]


def test_tiktoken_split_can_fail() -> None:
    """The oracle tells the patterns apart: cl100k_base's machine reads ``'ſ`` as a contraction
    (``(?i:…)`` folds U+017F to ``s``), Llama 3's ``'[sS]`` does not."""
    tiktoken = pytest.importorskip("tiktoken")
    text = "He'\u017f got 12345 cats\n\n  "
    split = _tiktoken_splitter(tiktoken, [text])
    assert pre_tokenize_llama3(text.encode()) == split(text)
    assert pre_tokenize_cl100k(text.encode()) != split(text)


def _scan_code_points() -> list[int]:
    """Both sides of every range edge of every class (all of them, or a fixed sample of 250),
    or every code point (``SCAN == "all"``); surrogates left out."""
    if SCAN == "all":
        return [c for c in range(0x110000) if c not in unicode_classes.SURROGATES]
    edges: set[int] = set()
    for cls in unicode_classes.CLASSES:
        for lo, hi in getattr(unicode_tables, f"{cls.py_name.upper()}_RANGES"):
            edges |= {lo - 1, lo, hi, hi + 1}
    cps = sorted(c for c in edges if 0 <= c <= 0x10FFFF and c not in unicode_classes.SURROGATES)
    return cps if SCAN == "boundary" else random.Random(34).sample(cps, 250)


def test_probes_vs_tiktoken_split(tally) -> None:  # noqa: ANN001 - fixture
    """The exhaustive scan's four probe strings around each code point (class boundaries; all
    code points with ``VERIFIED_BPE_LLAMA3_SCAN=all``): the machine's chunks are tiktoken's."""
    tiktoken = pytest.importorskip("tiktoken")
    cps = _scan_code_points()
    wrong: list[int] = []
    for k in range(0, len(cps), 256):
        block = cps[k : k + 256]
        split = _tiktoken_splitter(
            tiktoken, [p for c in block for p in unicode_scan.probes(chr(c))]
        )
        wrong += [
            c
            for c in block
            if any(pre_tokenize_llama3(p.encode()) != split(p) for p in unicode_scan.probes(chr(c)))
        ]
    assert wrong == [], [f"U+{c:04X}" for c in wrong[:5]]
    tally(
        f"llama3 machine vs tiktoken split, probes of {SCAN or 'sampled boundary'} code points",
        len(cps),
    )


def test_lean_pattern_string_is_llama_cpps():
    """The literal that ``toRegex_llama3Pattern`` (``lean/Bpe/Regex/Llama3.lean``) proves the
    term prints to is llama.cpp's ``LLAMA_VOCAB_PRE_TYPE_LLAMA3`` regex, read from llama.cpp's
    own ``src/llama-vocab.cpp`` (fetched by :mod:`verified_bpe.verify.testdata`)."""
    from test_regex_pattern_strings import lean_string
    from verified_bpe.verify import testdata

    lean_file = Path(__file__).resolve().parents[1] / "lean" / "Bpe" / "Regex" / "Llama3.lean"
    literal = lean_string(lean_file.read_text(encoding="utf-8"), "llama3PatternString")
    source = (testdata.models_dir().parent / "src" / "llama-vocab.cpp").read_text(encoding="utf-8")
    case = source[source.index("case LLAMA_VOCAB_PRE_TYPE_LLAMA3:") :]
    # the first string that is not commented out (the line above it is the original regex)
    cpp = re.search(r'^\s*"((?:[^"\\]|\\.)*)"', case, re.M).group(1).replace("\\\\", "\\")
    assert literal == cpp == LLAMA3_PATTERN
