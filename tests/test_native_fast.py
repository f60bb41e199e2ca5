"""The native engine's fast paths against independent oracles: the pre-tokenizers' byte-level
fast path (``rust/src/unicode/ascii.rs``) against the spec mirror of the Lean machines
(``spec.unicode.cl100k`` / ``o200k``), and the memo of short pieces (``ShortMemo`` in
``rust/src/engine.rs``) against brute-force rank BPE.

``_native.pre_tokenize`` runs the fast path, which reads the UTF-8 unit at its position as the
mirror does (invalid and overlong units too) and all of its code point's classes from one
table byte.  These tests aim at the branches' edges: every string of up to three characters
over one character of each ASCII class plus non-ASCII characters that continue an ASCII run (a
letter, a mark, a digit, white space, the long s that folds to ``s`` after an apostrophe, a
CJK letter), alone and beside units that are not UTF-8 (a lone byte, a unit cut short,
overlong ``"\\n"``, ``'`` and ``/``, which the mirror decodes to those code points); random
ASCII-heavy texts of several lines; and slices of the corpora.  The class boundary probes of
every class-boundary code point (``tests/test_native.py``) and the differential tests against
tiktoken run through the fast path too.
"""

from __future__ import annotations

import itertools
import os
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verified_bpe.engine import native

if not native.available():  # pragma: no cover - an install without cargo
    pytest.skip("the native engine is not built", allow_module_level=True)

from test_engine_heap import brute_force  # noqa: E402 - rank BPE by its definition
from verified_bpe.spec.unicode.cl100k import pre_tokenize_cl100k  # noqa: E402
from verified_bpe.spec.unicode.o200k import pre_tokenize_o200k  # noqa: E402
from verified_bpe.verify.corpus import locale_texts, stdlib_text  # noqa: E402

_native = native.module()
SPEC = {"cl100k_base": pre_tokenize_cl100k, "o200k_base": pre_tokenize_o200k}

#: one character of each ASCII class the branches tell apart (contraction letters in both
#: cases, a letter of neither, a digit, the apostrophe, o200k's ``/``, other punctuation,
#: space, tab, both newlines, a white-space control) and non-ASCII characters that a run of
#: each class could go on with: a lower and an upper/title letter, a mark, a digit, white
#: space (U+00A0, U+0085, U+2028), the long s (``'ſ`` is a contraction), a CJK letter
ALPHABET = [
    *"sSlLeEvrRdmtTx0'/.- \t\n\r\x0b",
    "é",
    "ǅ",
    "\u0301",
    "٣",
    "\u00a0",
    "\u0085",
    "\u2028",
    "ſ",
    "世",
]


def chunks(name: str, data: bytes) -> list[bytes]:
    return _native.pre_tokenize(name, data)


#: ``VERIFIED_BPE_ASCII_FULL=1``: all strings of three characters, not a sample (111,177
#: cases per encoding, 13 s on the 2-core machine: all equal, 2026-11-27)
FULL = os.environ.get("VERIFIED_BPE_ASCII_FULL") == "1"


def short_strings() -> list[str]:
    """Every string of one or two characters over :data:`ALPHABET`, and 3,000 (seeded) of the
    35,937 of three (all of them with ``VERIFIED_BPE_ASCII_FULL=1``)."""
    out = ["".join(c) for n in (1, 2) for c in itertools.product(ALPHABET, repeat=n)]
    three = ["".join(c) for c in itertools.product(ALPHABET, repeat=3)]
    return out + (three if FULL else random.Random(32).sample(three, 3000))


@pytest.mark.parametrize("name", SPEC)
def test_every_short_string_vs_spec(name, tally):
    """The strings of :func:`short_strings`, alone, followed by a byte that is not UTF-8,
    after the lead byte of a three-byte unit (which takes the next two bytes, a newline too,
    into one unit that is not a character), and beside overlong units of ``"\\n"``, ``'`` and
    ``/`` and a two-byte unit cut short by the end."""
    spec = SPEC[name]
    wrong = []
    count = 0
    for text in short_strings():
        data = text.encode()
        for d in (
            data,
            data + b"\xff",
            b"\xe0" + data,
            data + b"\xc0\x8a",
            b"\xc0\xa7" + data,
            data + b"\xc0\xaf\xe4\xb8",
        ):
            count += 1
            if chunks(name, d) != spec(d):
                wrong.append(d)
    assert wrong == []
    tally(f"ASCII fast path, short strings {name}", count)


ascii_heavy = st.lists(
    st.text(alphabet=st.sampled_from(ALPHABET), max_size=30)
    | st.text(alphabet=st.characters(max_codepoint=127), max_size=30),
    max_size=12,
).map("".join)


@pytest.mark.parametrize("name", SPEC)
@settings(max_examples=150, deadline=None)
@given(text=ascii_heavy)
def test_ascii_heavy_text_vs_spec(name, text):
    """Random texts, mostly ASCII: the spec mirror's chunks."""
    data = text.encode("utf-8")
    assert chunks(name, data) == SPEC[name](data)


@pytest.mark.parametrize("name", SPEC)
@settings(max_examples=50, deadline=None)
@given(lines=st.lists(st.sampled_from(["x = 1", "  déf f(a):", "Ab'll 12345", "\t\u00a0 ", ""])))
def test_lines_vs_spec(name, lines):
    """Lines with and without non-ASCII characters."""
    data = "\n".join(lines).encode()
    assert chunks(name, data) == SPEC[name](data)


@pytest.mark.parametrize("name", SPEC)
def test_corpora_vs_spec(name):
    """12 kB of the standard library's code (with its non-ASCII comments and strings) and
    12 kB of the translated messages."""
    code = stdlib_text(12_000).encode()
    prose = "\n".join(text for _, text in locale_texts(max_bytes=12_000)).encode()[:12_000]
    for data in (code, prose):
        assert chunks(name, data) == SPEC[name](data)


#: tokens that differ only by trailing NUL bytes, around the memo's 16-byte inline keys
NUL_RANKS = {bytes([b]): b for b in range(256)}
for _k in range(2, 20):
    for _token in (b"\0" * _k, b" " + b"\0" * (_k - 1), b"a" * _k, b" " + b"a" * (_k - 1)):
        NUL_RANKS.setdefault(_token, len(NUL_RANKS))


@pytest.mark.parametrize("name", SPEC)
@settings(max_examples=100, deadline=None)
@given(text=st.text(alphabet=st.sampled_from("a\0 "), max_size=120))
def test_short_memo_vs_brute_force(name, text):
    """Repeated pieces of 1-20 bytes that differ only by trailing NUL bytes (the memo keeps
    pieces of up to 16 bytes zero-padded in two words, with their length): the ids are
    brute-force rank BPE of each spec chunk."""
    bpe = _native.NativeBpe(NUL_RANKS, name)
    data = text.encode()
    expected = [i for chunk in SPEC[name](data) for i in brute_force(NUL_RANKS, chunk)]
    assert bpe.encode_ordinary(text) == expected


@pytest.mark.parametrize("text", ["", "b", "ab b"])
def test_empty_matches_of_a_custom_pattern(text):
    """A custom pattern that matches the empty string gives empty pieces (found by the fuzzer
    in CI: the short-piece memo had no key for them and panicked); the ids decode to the whole
    matches, as ``test_fuzz.py`` states for any pattern."""
    from verified_bpe.engine.tokenizer import Tokenizer

    tok = Tokenizer.from_ranks(NUL_RANKS, "a*")
    assert tok.decode(tok.encode_ordinary(text)) == "".join(re.findall("a*", text))
