"""Bpe.PreTokenize: the ASCII state machines against the ``regex`` module with the official
patterns, exhaustively on short strings and with hypothesis on long ones; the erratum; the
general regex pre-tokenizer and the ASCII translation used by the fast engine."""

from __future__ import annotations

import itertools
import re

import pytest
import regex
from hypothesis import given
from hypothesis import strategies as st

from conftest import UNICODE_SNIPPETS
from verified_bpe.engine import patterns
from verified_bpe.spec.seed import classify, pretokenize
from verified_bpe.spec.seed.pretokenize import lemma_pre_tokenize_partition, pre_tokenize_ascii
from verified_bpe.spec.unicode.o200k import pre_tokenize_o200k

ALL_ASCII = "".join(chr(b) for b in range(128))
# Alphabets: every branch, every contraction letter in both cases, the control bytes that the
# seed got wrong (\x01, \x1c, \x7f), \v, and o200k's '/' tail.
CL100K_ALPHABETS = {
    "all-ascii<=2": (ALL_ASCII, 2),
    "20 chars<=4": ("'sDlLvetR" + "Z0!." + " \t\n\r\x0b" + "\x01\x1c", 4),
    "8 chars<=6": ("a's0!" + " \n\r", 6),
}
O200K_ALPHABETS = {
    "all-ascii<=2": (ALL_ASCII, 2),
    "20 chars<=4": ("'sTlLveR" + "a0!/" + " \t\n\r\x0b" + "\x01\x7f" + "D", 4),
    "8 chars<=6": ("aB's/" + " \n\r", 6),
}


def strings(alphabet: str, max_len: int):
    for n in range(1, max_len + 1):
        for chars in itertools.product(alphabet, repeat=n):
            yield "".join(chars)


def regex_chunks(compiled, text: str) -> list[bytes]:
    return [m.encode("ascii") for m in compiled.findall(text)]


def join_trailing_whitespace(chunks: list[bytes]) -> list[bytes]:
    """What tiktoken's ``\\s++$`` branch changes: if the last two chunks are both pure
    whitespace they form one chunk."""
    ws = set(b" \t\n\r\x0b\x0c")
    if len(chunks) >= 2 and all(set(c) <= ws for c in chunks[-2:]):
        return chunks[:-2] + [chunks[-2] + chunks[-1]]
    return chunks


@pytest.mark.parametrize("label", list(CL100K_ALPHABETS))
def test_cl100k_state_machine_equals_regex_exhaustively(label, tally):
    alphabet, max_len = CL100K_ALPHABETS[label]
    original = regex.compile(patterns.CL100K_PATTERN_ORIGINAL)
    current = regex.compile(patterns.CL100K_PATTERN)
    n = mismatches_original = joined = 0
    first_bad = None
    for text in strings(alphabet, max_len):
        n += 1
        ours = pre_tokenize_ascii(text.encode("ascii"))
        if ours != regex_chunks(original, text):
            mismatches_original += 1
            first_bad = first_bad or (text, ours, regex_chunks(original, text))
        # tiktoken's current pattern differs exactly by gluing trailing whitespace chunks
        new = regex_chunks(current, text)
        if new != ours:
            joined += 1
            assert new == join_trailing_whitespace(ours), (text, ours, new)
    tally(f"pretokenize exhaustive cl100k ({label})", n)
    assert mismatches_original == 0, first_bad
    assert n == sum(len(alphabet) ** k for k in range(1, max_len + 1))
    if "\n" in alphabet and max_len >= 2:
        assert joined > 0  # the \s++$ difference is real (e.g. "\n ")


@pytest.mark.parametrize("label", list(O200K_ALPHABETS))
def test_o200k_state_machine_equals_regex_exhaustively(label, tally):
    alphabet, max_len = O200K_ALPHABETS[label]
    compiled = regex.compile(patterns.O200K_PATTERN)
    n = 0
    bad = []
    for text in strings(alphabet, max_len):
        n += 1
        ours = pre_tokenize_o200k(text.encode("ascii"))
        if ours != regex_chunks(compiled, text):
            bad.append((text, ours, regex_chunks(compiled, text)))
    tally(f"pretokenize exhaustive o200k ({label})", n)
    assert not bad, bad[:5]


def test_current_cl100k_pattern_splits_trailing_newline_space_differently():
    # documented fact: the two published forms of the cl100k pattern differ here
    assert regex.findall(patterns.CL100K_PATTERN_ORIGINAL, "a\n ") == ["a", "\n", " "]
    assert regex.findall(patterns.CL100K_PATTERN, "a\n ") == ["a", "\n "]
    assert pre_tokenize_ascii(b"a\n ") == [b"a", b"\n", b" "]


HAND_CASES = [
    # (text, cl100k chunks, o200k chunks) worked out by hand from the patterns
    ("I'm", ["I", "'m"], ["I'm"]),
    ("don't", ["don", "'t"], ["don't"]),
    ("HELLO'LL", ["HELLO", "'LL"], ["HELLO'LL"]),
    ("12345", ["123", "45"], ["123", "45"]),
    ("a  b", ["a", " ", " b"], ["a", " ", " b"]),
    ("x\n\n  y", ["x", "\n\n", " ", " y"], ["x", "\n\n", " ", " y"]),
    ("!!\n\nok", ["!!\n\n", "ok"], ["!!\n\n", "ok"]),
    ("a/b//\nc", ["a", "/b", "//\n", "c"], ["a", "/b", "//\n", "c"]),
    ("HTTPServer", ["HTTPServer"], ["HTTPServer"]),
    ("\x01\x01", ["\x01\x01"], ["\x01\x01"]),
    ("a \x01", ["a", " \x01"], ["a", " \x01"]),
    ("\x1a,a", ["\x1a,", "a"], ["\x1a,", "a"]),
]


@pytest.mark.parametrize("text,cl100k,o200k", HAND_CASES)
def test_hand_worked_examples(text, cl100k, o200k):
    data = text.encode("ascii")
    assert pre_tokenize_ascii(data) == [s.encode() for s in cl100k]
    assert pre_tokenize_o200k(data) == [s.encode() for s in o200k]
    assert regex.findall(patterns.CL100K_PATTERN_ORIGINAL, text) == cl100k
    assert regex.findall(patterns.O200K_PATTERN, text) == o200k


def test_o200k_hand_examples_that_differ_from_cl100k():
    # camel case splits and '/' tails are o200k-only behaviour
    assert pre_tokenize_o200k(b"getHTTPResponse") == [b"get", b"HTTPResponse"]
    assert pre_tokenize_ascii(b"getHTTPResponse") == [b"getHTTPResponse"]
    assert pre_tokenize_o200k(b"!\n/x") == [b"!\n/", b"x"]
    assert pre_tokenize_ascii(b"!\n/x") == [b"!\n", b"/x"]


ascii_snippets = st.sampled_from(
    [
        "'s",
        "'T",
        "'ll",
        "'Ve",
        "'re",
        "'d",
        "'m",
        "'",
        "a",
        "Zq",
        "word",
        "HTTP",
        "0",
        "1234",
        " ",
        "  ",
        "\t",
        "\n",
        "\r\n",
        "\r",
        "\x0b",
        "\x0c",
        "!",
        "?!",
        "...",
        "/",
        "//",
        "\x01",
        "\x1c",
        "\x7f",
        " x",
        "\n\n",
        " \n ",
        "_",
    ]
)
ascii_text = st.one_of(
    st.text(alphabet=st.characters(max_codepoint=127), max_size=300),
    st.lists(ascii_snippets, max_size=120).map("".join),
)


@given(ascii_text)
def test_cl100k_state_machine_equals_regex_long(text):
    assert pre_tokenize_ascii(text.encode("ascii")) == regex_chunks(
        regex.compile(patterns.CL100K_PATTERN_ORIGINAL), text
    )


@given(ascii_text)
def test_o200k_state_machine_equals_regex_long(text):
    assert pre_tokenize_o200k(text.encode("ascii")) == regex_chunks(
        regex.compile(patterns.O200K_PATTERN), text
    )


@given(st.binary(max_size=300))
def test_lemma_partition_any_bytes(data):
    """Lemma 4 (and more: also for non-ASCII bytes, thanks to the 1-byte fallback)."""
    for split in (pre_tokenize_ascii, pre_tokenize_o200k):
        chunks = split(data)
        assert b"".join(chunks) == data
        assert all(len(chunk) > 0 for chunk in chunks)
    assert lemma_pre_tokenize_partition(data)


def test_lemma_partition_check_can_fail(monkeypatch):
    monkeypatch.setattr(pretokenize, "pre_tokenize_ascii", lambda data: [data[:1]])
    assert not lemma_pre_tokenize_partition(b"abc")  # drops bytes
    monkeypatch.setattr(pretokenize, "pre_tokenize_ascii", lambda data: [b"", data])
    assert not lemma_pre_tokenize_partition(b"abc")  # empty chunk


def test_fallback_unreachable_on_ascii():
    for b in range(128):
        data = bytes([b])
        branches = [
            f(data, 0)
            for f in (
                pretokenize.match_contraction,
                pretokenize.match_word,
                pretokenize.match_digits,
                pretokenize.match_punct,
                pretokenize.match_newline_ws,
                pretokenize.match_trailing_ws,
                pretokenize.match_other_ws,
            )
        ]
        assert max(branches) == 1, b
    assert pretokenize.next_chunk_len(b"\x80", 0) == 1  # only non-ASCII uses the fallback


def test_erratum_seed_is_punct_disagrees_with_regex(monkeypatch):
    """With the seed's ``is_punct`` (``b >= 32``) the state machine splits control bytes
    differently from the regex engine; with the fixed one it agrees (tests above)."""
    compiled = regex.compile(patterns.CL100K_PATTERN_ORIGINAL)
    assert regex_chunks(compiled, "\x01\x01") == [b"\x01\x01"]
    assert regex_chunks(compiled, "a \x01") == [b"a", b" \x01"]
    monkeypatch.setattr(pretokenize, "is_punct", classify.is_punct_seed)
    assert pre_tokenize_ascii(b"\x01\x01") == [b"\x01", b"\x01"]
    assert pre_tokenize_ascii(b"a \x01") == [b"a", b" ", b"\x01"]
    # ... but the seed is right on text without control bytes
    for text in strings("a'0! \n\r", 4):
        assert pre_tokenize_ascii(text.encode()) == regex_chunks(compiled, text)


# ------------------------------------------------------------- general regex pre-tokenizer
ALL_PATTERNS = {
    "gpt2": patterns.GPT2_PATTERN,
    "cl100k": patterns.CL100K_PATTERN,
    "cl100k_original": patterns.CL100K_PATTERN_ORIGINAL,
    "o200k": patterns.O200K_PATTERN,
    "llama3": patterns.LLAMA3_PATTERN,
}

unicode_snippets = st.sampled_from(UNICODE_SNIPPETS)
unicode_text = st.one_of(
    st.text(max_size=200),
    st.lists(unicode_snippets, max_size=60).map("".join),
)


@pytest.mark.parametrize("name", list(ALL_PATTERNS))
@given(text=unicode_text)
def test_regex_pre_tokenizer_partitions_unicode(name, text):
    chunks = patterns.pre_tokenize_regex(text, ALL_PATTERNS[name])
    assert b"".join(chunks) == text.encode("utf-8")
    assert all(chunks)


def test_ascii_pattern_translation_literal():
    assert patterns.ascii_pattern(patterns.CL100K_PATTERN_ORIGINAL) == (
        r"""'(?i:[sdmt]|ll|ve|re)|[^\r\nA-Za-z0-9]?+[A-Za-z]+|[0-9]{1,3}"""
        r"""| ?[^\sA-Za-z0-9]++[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+"""
    )
    with pytest.raises(ValueError):
        patterns.ascii_pattern(r"\p{Greek}")
    with pytest.raises(ValueError):
        patterns.ascii_pattern(r"\P{L}")


@pytest.mark.parametrize("name", list(ALL_PATTERNS))
def test_ascii_pattern_equals_regex_on_ascii(name, tally):
    """The fast engine splits ASCII text with ``re`` + the translated pattern."""
    original = regex.compile(ALL_PATTERNS[name])
    translated = re.compile(patterns.ascii_pattern(ALL_PATTERNS[name]), re.ASCII)
    n = 0
    for alphabet, max_len in list(CL100K_ALPHABETS.values()) + list(O200K_ALPHABETS.values()):
        if max_len > 4:
            max_len = 5
        for text in strings(alphabet, max_len):
            n += 1
            assert translated.findall(text) == original.findall(text), text
    tally(f"ascii_pattern exhaustive ({name})", n)


@given(ascii_text)
def test_ascii_pattern_equals_regex_long(text):
    for pattern in ALL_PATTERNS.values():
        translated = re.compile(patterns.ascii_pattern(pattern), re.ASCII)
        assert translated.findall(text) == regex.findall(pattern, text)


def test_helpers():
    assert pretokenize.run_length(classify.is_letter, b"abc1", 0) == 3
    assert pretokenize.run_length(classify.is_letter, b"abc1", 3) == 0
    assert pretokenize.run_length(classify.is_letter, b"abc", 3) == 0
    assert pretokenize.first_match([0, 0, 4, 2]) == 4
    assert pretokenize.first_match([0, 0]) == 1
    assert pretokenize.first_match([]) == 1
    assert pretokenize.last_newline_end(5, b" \n \r x", 0) == 4
    assert pretokenize.last_newline_end(1, b" \n", 0) == 0  # only the first n bytes count
    assert pretokenize.punct_tail(b"!?\n\ra", 0) == 4
    assert pretokenize.punct_tail(b"a!", 0) == 0
    assert pretokenize.split_loop(2, b"a b c", 0) == [b"a", b" b"]  # fuel bounds chunks
    assert pretokenize.split_loop(9, b"a b c", 2) == [b"b", b" c"]


LEAN_EXAMPLES = [
    # the kernel-checked examples of lean/BpeTest/Examples.lean (expected chunks from regex)
    ("Hello world's 1234!!\n", ["Hello", " world", "'s", " ", "123", "4", "!!\n"]),
    ("I'll   go\t\n\n  x  ", ["I", "'ll", "  ", " go", "\t\n\n", " ", " x", "  "]),
    ("a \x01\x01,b", ["a", " \x01\x01,", "b"]),
    ("We've 12345 ok?!\r\n  ", ["We", "'ve", " ", "123", "45", " ok", "?!\r\n", "  "]),
]


@pytest.mark.parametrize("text,expected", LEAN_EXAMPLES)
def test_same_examples_as_lean(text, expected):
    assert pre_tokenize_ascii(text.encode()) == [e.encode() for e in expected]
    assert regex.findall(patterns.CL100K_PATTERN_ORIGINAL, text) == expected
