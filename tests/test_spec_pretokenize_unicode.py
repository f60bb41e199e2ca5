"""The Unicode pre-tokenizers (mirror of ``Bpe.Unicode.Cl100k`` / ``Bpe.Unicode.O200k``)
against two independent oracles:

* the patterns tiktoken ships, run by the ``regex`` module with every ``\\p{..}``/``\\s``
  replaced by the explicit code-point ranges of the pinned tables (so the oracle sees the
  characters as tiktoken does, and the backtracking semantics are the regex engine's, not
  ours): chunk for chunk;
* tiktoken itself (token ids through the spec engine, which uses the mirror for all text).

The exhaustive scan over every code point is a command, not a test:
``python -m verified_bpe.verify.unicode_gen --scan --engine spec`` (README); here a sample.
"""

from __future__ import annotations

import random
import re
from functools import cache
from pathlib import Path

import pytest
import regex
from hypothesis import given
from hypothesis import strategies as st

from conftest import UNICODE_SNIPPETS
from verified_bpe.engine.patterns import CL100K_PATTERN, O200K_PATTERN
from verified_bpe.spec.unicode import pretokenize as pu
from verified_bpe.spec.unicode import tables as tables
from verified_bpe.spec.unicode.cl100k import pre_tokenize_cl100k
from verified_bpe.spec.unicode.o200k import pre_tokenize_o200k

SPLITTERS = {"cl100k_base": pre_tokenize_cl100k, "o200k_base": pre_tokenize_o200k}
PATTERNS = {"cl100k_base": CL100K_PATTERN, "o200k_base": O200K_PATTERN}
CLASSES = {
    "L": tables.L_RANGES,
    "N": tables.N_RANGES,
    "Lu": tables.LU_RANGES,
    "Ll": tables.LL_RANGES,
    "Lt": tables.LT_RANGES,
    "Lm": tables.LM_RANGES,
    "Lo": tables.LO_RANGES,
    "M": tables.M_RANGES,
}


def _body(ranges) -> str:
    return "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in ranges)


@cache
def pinned(name: str) -> regex.Pattern[str]:
    """tiktoken's pattern with the classes spelled out as the tables' ranges."""
    pattern = PATTERNS[name]
    ws = _body(tables.WHITE_SPACE_RANGES)
    out: list[str] = []
    i, inside = 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and pattern[i + 1] == "p":
            j = pattern.index("}", i)
            body = _body(CLASSES[pattern[i + 3 : j]])
            out.append(body if inside else f"[{body}]")
            i = j + 1
            continue
        if c == "\\" and pattern[i + 1] in "sS":
            assert not (inside and pattern[i + 1] == "S")
            neg = "^" if pattern[i + 1] == "S" else ""
            out.append(ws if inside else f"[{neg}{ws}]")
            i += 2
            continue
        if c == "\\":
            out.append(pattern[i : i + 2])
            i += 2
            continue
        inside = {"[": True, "]": False}.get(c, inside)
        out.append(c)
        i += 1
    return regex.compile("".join(out))


def oracle(name: str, text: str) -> list[bytes]:
    return [piece.encode("utf-8") for piece in pinned(name).findall(text)]


ENCODINGS = list(SPLITTERS)


@pytest.mark.parametrize("name", ENCODINGS)
@pytest.mark.parametrize("snippet", UNICODE_SNIPPETS)
def test_snippets_equal_pinned_regex(name, snippet):
    for text in (snippet, f"a{snippet}b", f" {snippet}'s", f"A{snippet}\n ", f"{snippet}{snippet}"):
        assert SPLITTERS[name](text.encode()) == oracle(name, text), text


@pytest.mark.parametrize("name", ENCODINGS)
@given(st.lists(st.sampled_from(UNICODE_SNIPPETS), max_size=8).map("".join))
def test_snippet_mixes_equal_pinned_regex(name, text):
    assert SPLITTERS[name](text.encode()) == oracle(name, text)


@pytest.mark.parametrize("name", ENCODINGS)
@given(st.text(max_size=30))
def test_random_text_equals_pinned_regex(name, text):
    text = text.encode("utf-8", "replace").decode("utf-8", "replace")
    assert SPLITTERS[name](text.encode()) == oracle(name, text)


@pytest.mark.parametrize("name", ENCODINGS)
def test_code_point_sample_equals_pinned_regex(name, tally):
    """Every 97th code point (and the class boundaries) in neighbour probes."""
    rng = random.Random(15)
    cps = set(range(0, 0x110000, 97))
    for ranges in (*CLASSES.values(), tables.WHITE_SPACE_RANGES):
        for a, b in ranges:
            cps.update((a - 1, a, b, b + 1))
    cps = sorted(cp for cp in cps if 0 <= cp < 0x110000 and not 0xD800 <= cp <= 0xDFFF)
    for cp in cps:
        c = chr(cp)
        other = chr(rng.choice(cps))
        for text in (c, f"a{c}", f"{c}a", f"6{c}-l", f"'{c}{other}", f" {c}{c}\n"):
            assert SPLITTERS[name](text.encode()) == oracle(name, text), hex(cp)
    tally(f"pretokenize unicode sample {name}: code points", len(cps))


@given(st.binary(max_size=40))
def test_partition_on_any_bytes(data):
    """``flatten_preTokenizeCl100k`` / ``ne_nil_of_mem_...`` also on invalid UTF-8."""
    for split in SPLITTERS.values():
        chunks = split(data)
        assert b"".join(chunks) == data and all(chunks)


@given(st.binary(max_size=40))
def test_utf8_units_partition(data):
    units = pu.utf8_units(len(data), data)
    assert b"".join(units) == data and all(units)


@given(st.text(max_size=20))
def test_unit_code_points_of_valid_utf8(text):
    data = text.encode("utf-8", "replace")
    units = pu.utf8_units(len(data), data)
    assert [pu.unit_code_point(u) for u in units] == [ord(c) for c in data.decode()]


def test_o200k_case_rules():
    split = pre_tokenize_o200k
    assert split(b"getHTTPResponse") == [b"get", b"HTTPResponse"]
    assert split("ΑθήναΠόλη".encode()) == ["Αθήνα".encode(), "Πόλη".encode()]
    assert split("ǅemal".encode()) == ["ǅemal".encode()]  # Lt starts a word
    assert split("ÉCOLE's".encode()) == ["ÉCOLE's".encode()]
    assert split("l'ſ".encode()) == ["l'ſ".encode()]  # long s folds to s
    assert split("a\u0301\u0301".encode()) == ["a\u0301\u0301".encode()]
    for text in ("getHTTPResponse", "ΑθήναΠόλη", "ǅemal", "ÉCOLE's", "l'ſ", "a\u0301\u0301"):
        assert split(text.encode()) == oracle("o200k_base", text)


def test_cl100k_end_ws_branch():
    assert pre_tokenize_cl100k(b"a\n ") == [b"a", b"\n "]  # tiktoken 0.14's \s++$
    assert pre_tokenize_cl100k(b"a\n b") == [b"a", b"\n", b" b"]
    assert pre_tokenize_cl100k("日本語\u3000".encode()) == ["日本語".encode(), "\u3000".encode()]
    for text in ("a\n ", "a\n b", "日本語\u3000"):
        assert pre_tokenize_cl100k(text.encode()) == oracle("cl100k_base", text)


@pytest.mark.parametrize("name", ENCODINGS)
def test_encoders_equal_tiktoken_and_roundtrip(name):
    """``Bpe.Encoders``: the encoders give tiktoken's ids and decode back (real tables)."""
    pytest.importorskip("tiktoken")
    from verified_bpe.engine.tokenizer import _named_spec_tables
    from verified_bpe.engine.vocab import tiktoken_encoding
    from verified_bpe.spec.seed.encode import decode
    from verified_bpe.spec.unicode import encoders

    t = _named_spec_tables(name)
    encode = encoders.encode_cl100k if name == "cl100k_base" else encoders.encode_o200k
    texts = [*UNICODE_SNIPPETS, "".join(UNICODE_SNIPPETS), "Grüße, 世界! 👨‍👩‍👧 l'été\n  "]
    for text in texts:
        ids = encode(t.merges, t.byte_shuffle, text)
        assert ids == tiktoken_encoding(name).encode_ordinary(text), text
        assert decode(t.vocab, t.inverse_shuffle, ids) == text


LEAN_EXAMPLES = Path(__file__).resolve().parent.parent / "lean" / "BpeTest" / "UnicodeExamples.lean"
_LEAN_STRING = r'"(?:[^"\\]|\\.)*"'
_LEAN_FACT = re.compile(
    rf"example : preTokenize(Cl100k|O200k) \(stringBytes ({_LEAN_STRING})\) =\s*"
    rf"\[((?:{_LEAN_STRING}(?:, )?)*)\]\.map stringBytes"
)


def _lean_unescape(literal: str) -> str:
    escapes = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"'}
    body, out, i = literal[1:-1], [], 0
    while i < len(body):
        if body[i] == "\\":
            if body[i + 1] == "u":
                out.append(chr(int(body[i + 2 : i + 6], 16)))
                i += 6
                continue
            out.append(escapes[body[i + 1]])
            i += 2
            continue
        out.append(body[i])
        i += 1
    return "".join(out)


def test_lean_kernel_facts_are_the_oracles_chunks():
    """Every expectation of ``lean/BpeTest/UnicodeExamples.lean`` is the pinned regex's."""
    if not LEAN_EXAMPLES.is_file():  # pragma: no cover
        pytest.skip("Lean sources not found")
    facts = _LEAN_FACT.findall(LEAN_EXAMPLES.read_text(encoding="utf-8"))
    assert len(facts) >= 15
    for which, text, chunks in facts:
        name = "cl100k_base" if which == "Cl100k" else "o200k_base"
        text = _lean_unescape(text)
        expected = [_lean_unescape(c).encode() for c in re.findall(_LEAN_STRING, chunks)]
        assert expected == oracle(name, text), text
        assert SPLITTERS[name](text.encode()) == expected, text
