"""The end-to-end statement (issue 22, step 5): the mirror of ``Bpe.Regex.Tiktoken``
(``tiktoken_encode_ordinary``: ``find_iter`` of the pattern term under the Unicode classes, each
match's UTF-8 bytes encoded with ``encode_piece_ranks_by_size``) against tiktoken's own
``encode_ordinary`` on the real ``cl100k_base`` and ``o200k_base`` ranks (offline fixtures), on
mixed texts with non-ASCII letters, digits, white space, emoji and pieces of 100+ bytes (the
heap merge), and on slices of the non-English corpora.  The o200k_base case is the mirror of
the instance that step 4 (``preTokenizeO200k_stringBytes``) will give.

Lean proves that under ``RanksOk`` the Lean encoder returns ``tiktokenEncodeOrdinary``'s ids
(``Bpe.Regex.Tiktoken.encodeCl100k_eq_tiktokenEncodeOrdinary``); this test ties
``tiktokenEncodeOrdinary`` to tiktoken itself.
"""

from __future__ import annotations

import random
import sys

import pytest

tiktoken = pytest.importorskip("tiktoken")

from conftest import MIXED_TEXTS, UNICODE_SNIPPETS, unicode_corpus  # noqa: E402
from verified_bpe.engine.vocab import load_ranks, tiktoken_encoding  # noqa: E402
from verified_bpe.spec.regex.ascii import ascii_classes  # noqa: E402
from verified_bpe.spec.regex.patterns import cl100k_pattern, o200k_pattern  # noqa: E402
from verified_bpe.spec.regex.tiktoken import match_bytes, tiktoken_encode_ordinary  # noqa: E402
from verified_bpe.spec.regex.unicode import unicode_classes  # noqa: E402

sys.setrecursionlimit(100000)

#: texts whose pieces reach 100 bytes or more (tiktoken's heap merge) and cross 100 bytes
LONG_TEXTS = (
    "a" * 150,
    "x" * 99 + " " + "y" * 100,
    "!" * 120 + "\n" * 3,
    " " * 130 + "end",
    "тиктокен" * 15,
    "分词器" * 40,
    "1234567890" * 12,
    "\U0001f600" * 30,
)


def _mixed(rng: random.Random) -> str:
    """Snippets of the shared Unicode list glued with spaces, digits, punctuation, newlines."""
    glue = ["", " ", "  ", "\n", "\r\n", "1", "42", ",", "'s", "\t", "\u00a0"]
    return "".join(
        rng.choice(UNICODE_SNIPPETS) + rng.choice(glue) for _ in range(rng.randint(0, 12))
    )


def _texts() -> list[str]:
    rng = random.Random(5)
    return [*MIXED_TEXTS, *UNICODE_SNIPPETS, *LONG_TEXTS, *(_mixed(rng) for _ in range(200))]


def test_match_bytes_is_utf8() -> None:
    """``matchBytes`` of a string's code points is its UTF-8 (``matchBytes_map_toNat``)."""
    for text in _texts():
        assert match_bytes([ord(c) for c in text]) == text.encode("utf-8"), text


TERMS = {"cl100k_base": cl100k_pattern, "o200k_base": o200k_pattern}


def _mismatches(name: str, texts: list[str]) -> list[str]:
    ranks = load_ranks(name)
    oracle = tiktoken_encoding(name)
    classes = unicode_classes()
    term = TERMS[name]()
    return [
        t
        for t in texts
        if tiktoken_encode_ordinary(classes, term, ranks, t) != oracle.encode_ordinary(t)
    ]


@pytest.mark.parametrize("name", sorted(TERMS))
def test_encode_ordinary_is_tiktoken(name: str, tally) -> None:  # noqa: ANN001 - fixture
    """``tiktoken_encode_ordinary`` with the encoding's term under the Unicode classes is
    tiktoken's ``encode_ordinary``: 0 mismatches."""
    texts = _texts()
    mismatches = _mismatches(name, texts)
    assert not mismatches, mismatches[:5]
    tally(f"e2e tiktokenEncodeOrdinary vs tiktoken ({name}): mixed texts", len(texts))


@pytest.mark.parametrize("name", sorted(TERMS))
def test_encode_ordinary_is_tiktoken_corpus(name: str, tally) -> None:  # noqa: ANN001
    """The same on slices of 1,500 characters of the CJK and locale corpora."""
    texts = [
        text[k : k + 1500]
        for _, text in unicode_corpus()
        for k in range(0, min(len(text), 6000), 1500)
    ]
    mismatches = _mismatches(name, texts)
    assert not mismatches, mismatches[:2]
    tally(f"e2e tiktokenEncodeOrdinary vs tiktoken ({name}): corpus slices", len(texts))


def test_wrong_classes_are_caught() -> None:
    """The comparison can fail: cl100k_base's term under the ASCII classes differs from
    tiktoken on the non-ASCII texts."""
    ranks = load_ranks("cl100k_base")
    oracle = tiktoken_encoding("cl100k_base")
    wrong = [
        t
        for t in _texts()
        if tiktoken_encode_ordinary(ascii_classes(), cl100k_pattern(), ranks, t)
        != oracle.encode_ordinary(t)
    ]
    assert len(wrong) > 10


def test_missing_rank_is_none() -> None:
    """A piece with a part that has no rank gives ``None`` (tiktoken would fail)."""
    ranks = {bytes([b]): b for b in range(256) if b != ord("z")}
    assert tiktoken_encode_ordinary(unicode_classes(), cl100k_pattern(), ranks, "ab z") is None
    assert tiktoken_encode_ordinary(unicode_classes(), cl100k_pattern(), ranks, "ab") == [97, 98]
