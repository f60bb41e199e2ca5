"""r50k_base's machine (GPT-2's pattern as tiktoken 0.14 ships it) and its regex.

Lean proves ``Bpe.Regex.preTokenizeR50k_eq_findIter`` (the code-point machine is ``findIter`` of
``r50kPattern`` under ``unicodeClasses``), its bridges from bytes and strings, and the
end-to-end ``Bpe.Regex.encodeR50k_eq_tiktokenEncodeOrdinary``.  These tests run the Python
mirrors against independent oracles: the ``regex`` module on the pattern string, and tiktoken's
own engine (fancy-regex) splitting with ``r50k_pat_str``.  The r50k_base rank file is not
shipped offline, so tiktoken's split is read through a table that holds every substring of the
text: tiktoken then returns each piece of its split as one token (a piece that is a token is
looked up whole).
"""

from __future__ import annotations

import os
import random
from collections.abc import Sequence

import pytest
from verified_bpe.patterns import R50K_PATTERN

from conftest import MIXED_TEXTS, UNICODE_SNIPPETS
from regex_machines import check_machine_is_regex, check_unit_chunks_bridge, random_text
from verified_bpe.spec.regex.r50k_pattern import r50k_pattern
from verified_bpe.spec.unicode import tables as unicode_tables
from verified_bpe.spec.unicode.cl100k import pre_tokenize_cl100k
from verified_bpe.spec.unicode.r50k import next_chunk_len, pre_tokenize_r50k
from verified_bpe.verify import unicode_classes, unicode_scan

#: ``VERIFIED_BPE_R50K_SCAN=boundary`` (every class-boundary code point) or ``all`` (every code
#: point) widens the probe test below; CI runs a sample of 500 boundary code points.
SCAN = os.environ.get("VERIFIED_BPE_R50K_SCAN", "")

#: pieces that exercise every branch: contractions in both cases (only lower case is one),
#: letters, digits and punctuation of several scripts with and without a leading space, and
#: whitespace runs (with newlines, U+00A0, U+3000) inside and at the end of the text.
WORDS = [
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


def _next(rest: Sequence[int]) -> int:
    return next_chunk_len(rest, 0)


def test_find_iter_unicode_is_machine_and_regex() -> None:
    """``find_iter`` under the Unicode classes, the code-point machine and ``regex.findall``
    agree on 300 random texts."""
    check_machine_is_regex(r50k_pattern(), R50K_PATTERN, _next, WORDS, seed=50)


def test_unit_chunks_bridge() -> None:
    """The byte machine's chunks are its chunks of UTF-8 units, read back as code points."""
    check_unit_chunks_bridge(pre_tokenize_r50k, _next, WORDS, seed=7)


def _tiktoken_splitter(tiktoken, texts: Sequence[str]):  # noqa: ANN001, ANN202 - module
    """tiktoken's pieces under ``R50K_PATTERN`` for each of ``texts``: with every substring of
    the texts a token, each piece is looked up whole and comes back as one id."""
    ranks = {bytes([b]): b for b in range(256)}
    for text in texts:
        for i in range(len(text)):
            for j in range(i + 1, len(text) + 1):
                ranks.setdefault(text[i:j].encode(), len(ranks))
    enc = tiktoken.Encoding(
        "r50k_probe", pat_str=R50K_PATTERN, mergeable_ranks=ranks, special_tokens={}
    )
    return lambda text: [enc.decode_single_token_bytes(t) for t in enc.encode_ordinary(text)]


def _texts() -> list[str]:
    rng = random.Random(50)
    short = [s for s in (*MIXED_TEXTS, *UNICODE_SNIPPETS) if len(s) <= 80]
    return [*short, *(random_text(rng, WORDS) for _ in range(200))]


def test_machine_is_tiktoken_split() -> None:
    """The machine's chunks are tiktoken's pieces (fancy-regex on ``r50k_pat_str``), and the
    pattern string is tiktoken 0.14's."""
    tiktoken = pytest.importorskip("tiktoken")
    openai_public = pytest.importorskip("tiktoken_ext.openai_public")
    assert openai_public.r50k_pat_str == R50K_PATTERN
    texts = _texts()
    split = _tiktoken_splitter(tiktoken, texts)
    bad = [t for t in texts if pre_tokenize_r50k(t.encode()) != split(t)]
    assert not bad, bad[:5]


def test_tiktoken_split_can_fail() -> None:
    """The oracle tells the patterns apart: cl100k_base's machine differs from tiktoken's r50k
    split (case-insensitive contractions, no space before digits, 1-3 digit runs)."""
    tiktoken = pytest.importorskip("tiktoken")
    text = "He'S got 12345 cats"
    split = _tiktoken_splitter(tiktoken, [text])
    assert pre_tokenize_r50k(text.encode()) == split(text)
    assert pre_tokenize_cl100k(text.encode()) != split(text)


def _scan_code_points() -> list[int]:
    """Both sides of every range edge of every class (all of them, or a fixed sample of 500),
    or every code point (``SCAN == "all"``); surrogates left out."""
    if SCAN == "all":
        return [c for c in range(0x110000) if c not in unicode_classes.SURROGATES]
    edges: set[int] = set()
    for cls in unicode_classes.CLASSES:
        for lo, hi in getattr(unicode_tables, f"{cls.py_name.upper()}_RANGES"):
            edges |= {lo - 1, lo, hi, hi + 1}
    cps = sorted(c for c in edges if 0 <= c <= 0x10FFFF and c not in unicode_classes.SURROGATES)
    return cps if SCAN == "boundary" else random.Random(33).sample(cps, 500)


def test_probes_vs_tiktoken_split(tally) -> None:  # noqa: ANN001 - fixture
    """The exhaustive scan's four probe strings around each code point (class boundaries; all
    code points with ``VERIFIED_BPE_R50K_SCAN=all``): the machine's chunks are tiktoken's."""
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
            if any(pre_tokenize_r50k(p.encode()) != split(p) for p in unicode_scan.probes(chr(c)))
        ]
    assert wrong == [], [f"U+{c:04X}" for c in wrong[:5]]
    tally(
        f"r50k machine vs tiktoken split, probes of {SCAN or 'sampled boundary'} code points",
        len(cps),
    )
