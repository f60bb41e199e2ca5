"""Custom patterns split by fancy-regex inside the native engine
(:func:`verified_bpe.engine.native.fancy_pattern`), against independent oracles:

* the ids against tiktoken (the same ``pat_str`` and ranks: r50k/p50k's rank tables rebuilt
  offline from llama.cpp's GPT-2 vocabulary), on fixed texts and hypothesis texts that mix
  ASCII, old non-ASCII characters and characters that the ``regex`` module classifies
  otherwise than tiktoken (assigned after tiktoken's Unicode version, or recategorized);
* the pieces against the Python split (:class:`~verified_bpe.engine.fast_split.Splitter`);
* the patterns the Rust route does not take (constructs the two syntaxes read differently)
  still go through the Python split, with its results and its typed errors;
* fancy-regex's backtrack limit falls back to the Python split (no text lost, no panic).
"""

from __future__ import annotations

import base64
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import MIXED_TEXTS
from verified_bpe.engine import native

if not native.available():  # pragma: no cover - an install without cargo
    pytest.skip("the native engine is not built", allow_module_level=True)

tiktoken = pytest.importorskip("tiktoken")

from verified_bpe.engine.fast_split import Splitter  # noqa: E402
from verified_bpe.engine.patterns import (  # noqa: E402
    CL100K_PATTERN,
    GPT2_PATTERN,
    LLAMA3_PATTERN,
    R50K_PATTERN,
)
from verified_bpe.engine.tokenizer import Tokenizer  # noqa: E402
from verified_bpe.errors import PatternError  # noqa: E402
from verified_bpe.verify import testdata  # noqa: E402

PATTERNS = {"r50k": R50K_PATTERN, "gpt2": GPT2_PATTERN, "llama3": LLAMA3_PATTERN}
#: the labels whose pattern the native engine runs on a proven machine, by machine name
NATIVE = {"r50k": "r50k_base", "llama3": "llama3"}
#: Characters that ``regex`` classifies otherwise than tiktoken (found by
#: ``patterns.differing_characters`` over every code point): a recategorized letter, letters
#: and marks assigned after tiktoken's Unicode version.
DIFFERING = "\u0295\u0558\u088f\u0b53\u0c5c\u1ad0\u1ae0"
ALPHABET = (
    "ab Zz09'sdtmlvre \n\r\t\x0b\x0c \u00a0\u2028\u3000.,!?-_()"
    "éüßΩПж日本한\u0301\u0663\u00b2ſ\u212a\U0001f600\U0001d400\U00020000" + DIFFERING
)
TEXTS = [
    *MIXED_TEXTS,
    "x" * 300 + " " * 300 + "\n",
    DIFFERING + " a" + DIFFERING,
]


@cache
def p50k_ranks() -> dict[bytes, int]:
    out: dict[bytes, int] = {}
    for line in testdata.gpt2_tiktoken_files()["p50k_base"].splitlines():
        token, rank = line.split()
        out[base64.b64decode(token)] = int(rank)
    return out


@cache
def pair(label: str) -> tuple[Tokenizer, object]:
    """The native tokenizer of the pattern over p50k's ranks, and tiktoken's."""
    pattern = PATTERNS[label]
    ranks = p50k_ranks()
    tok = Tokenizer.from_ranks(ranks, pattern, engine="native")
    oracle = tiktoken.Encoding(
        name=label, pat_str=pattern, mergeable_ranks=ranks, special_tokens={}
    )
    return tok, oracle


@pytest.mark.parametrize("label", PATTERNS)
def test_published_patterns_take_the_rust_route(label):
    """In Rust: tiktoken's GPT-2 pattern by the proven r50k_base machine, Llama 3's by the
    proven Llama 3 machine, GPT-2's original by fancy-regex."""
    tok, _ = pair(label)
    assert tok._native is not None
    if label in NATIVE:
        assert tok._native.pre_tokenizer == NATIVE[label] and not tok._native.regex_split
    else:
        assert tok._native.regex_split


@pytest.mark.parametrize("label", PATTERNS)
def test_ids_equal_tiktoken_on_fixed_texts(label):
    tok, oracle = pair(label)
    for text in TEXTS:
        assert tok.encode_ordinary(text) == oracle.encode_ordinary(text), text
    assert tok.encode_ordinary_batch(TEXTS, num_threads=2) == [
        oracle.encode_ordinary(t) for t in TEXTS
    ]


@pytest.mark.parametrize("label", PATTERNS)
@settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(text=st.text(alphabet=ALPHABET, max_size=60))
def test_ids_and_pieces_equal_tiktoken_and_python_split(label, text):
    tok, oracle = pair(label)
    assert tok._native is not None
    if label in NATIVE:  # the proven machines (rust/src/unicode/r50k.rs, llama3.rs)
        chunks = native.module().pre_tokenize(NATIVE[label], text.encode())
        pieces = [chunk.decode() for chunk in chunks]
    else:
        pieces = tok._native.split(text)
    assert pieces == Splitter(PATTERNS[label])(text)
    assert tok.encode_ordinary(text) == oracle.encode_ordinary(text)


@pytest.mark.parametrize(
    "pattern",
    [
        CL100K_PATTERN,  # the native pre-tokenizer instead
        r"\w+|\s+",  # Unicode-version-dependent class, not pinned
        r"[a-z]+$|\s+|.",  # `$` and `.`: the two syntaxes read them differently
        r"[a[bc]]+|\s",  # nested class in Rust, literal `[` in regex V0
        r"[ab&&b]+|\s",  # class intersection in Rust, literal `&&` in regex V0
        r"(?i)\p{Lu}+|\s",  # case folding of a pinned class
        r"(?x) a+ | \s",  # verbose flag
        r"(?P<w>a+)|\s",  # named group
        r"a{,3}|\s",  # `{,n}`
    ],
)
def test_other_patterns_stay_in_python(pattern):
    assert native.fancy_pattern(pattern) is None
    ranks = {bytes([i]): i for i in range(256)}
    tok = Tokenizer.from_ranks(ranks, pattern, engine="native")
    assert tok._native is not None and not tok._native.regex_split


def test_fancy_pattern_pins_classes_to_tiktoken_tables():
    out = native.fancy_pattern(r" ?\p{L}+|[^\s\p{N}]|\S")
    assert out is not None
    assert r"\p" not in out and r"\s" not in out and r"\S" not in out
    assert out.startswith(r" ?[\x{41}-\x{5A}\x{61}-\x{7A}")
    assert "[^[" in out  # a negated class holding pinned (nested) classes


def test_refused_pattern_still_refused_with_the_same_error():
    """A pat_str that the Python path refuses (``(?U)``: tiktoken swaps greedy and lazy) is
    refused at construction, before any engine is chosen."""
    import verified_bpe

    with pytest.raises(PatternError):
        verified_bpe.Encoding(
            name="lazy", pat_str=r"(?U)a+", mergeable_ranks={b"a": 0}, special_tokens={}
        )


@pytest.mark.parametrize("pattern", ["(unclosed", "[a-"])
def test_pattern_both_engines_refuse_is_refused_at_construction(pattern):
    """A pattern that fancy-regex (tiktoken's ValueError) and the Python split both refuse is
    refused when the encoding is made, not at its first encode (the Python split is compiled
    on first use only for patterns a proven machine splits)."""
    import verified_bpe

    with pytest.raises(ValueError, match="Parsing error"):
        tiktoken.Encoding(name="x", pat_str=pattern, mergeable_ranks={b"a": 0}, special_tokens={})
    with pytest.raises(PatternError):
        verified_bpe.Encoding(
            name="x", pat_str=pattern, mergeable_ranks={b"a": 0}, special_tokens={}
        )


def test_backtrack_limit_falls_back_to_the_python_split():
    """fancy-regex gives up (its backtrack limit, where tiktoken panics); the Python split
    takes over, so the ids are the fast engine's."""
    pattern = r"(?:a|aa)+(?!x)c|[ab]"
    assert native.fancy_pattern(pattern) is not None
    ranks = {bytes([i]): i for i in range(256)}
    tok = Tokenizer.from_ranks(ranks, pattern, engine="native")
    text = "a" * 28 + "b"
    assert tok._native is not None and tok._native.encode_ordinary(text) is None
    expected = Tokenizer.from_ranks(ranks, pattern, engine="fast").encode_ordinary(text)
    assert tok.encode_ordinary(text) == expected == list(text.encode())
    assert tok.encode_ordinary_batch([text, "ab"]) == [expected, [97, 98]]
