"""``.model`` / ``.vocab`` files and token rendering (``verified_bpe.formats.model_io``, the
``save``/``load`` methods of ``verified_bpe.api.train``).

Oracles: the file layout is re-parsed here by hand (minbpe's format: header, pattern, special
count, special lines, one ``id0 id1`` line per merge numbered from 256); a save/load cycle
must give identical tables and encodings; malformed files are hand-written with the line the
error must name; rendering is checked on hand-derived examples and for injectivity.
"""

from __future__ import annotations

import tempfile
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import read_text, stdlib_python_files
from verified_bpe.api.train import BasicTokenizer, RegexTokenizer, load_tokenizer
from verified_bpe.engine.patterns import GPT2_PATTERN
from verified_bpe.errors import BpeError, MalformedModelError
from verified_bpe.formats.model_io import (
    ModelData,
    format_model,
    parse_model,
    read_model,
    render_token,
)

SAMPLE = (
    "The quick brown fox jumps over the lazy dog. It's 2024, isn't it?\n"
    "naïve café 日本語 🙂🙂 \t\ttabs   and spaces\n" * 20
)
TEXTS = [SAMPLE, "unseen: Ünïcödé, 中文, 👍🏽, <|endoftext|> as text", "", "a"]


def stdlib_text(n_chars: int) -> str:
    files = stdlib_python_files()
    if not files:
        pytest.skip("no CPython standard library sources found")
    return "".join(read_text(p) for p in files[:20])[:n_chars]


@pytest.fixture(scope="module")
def regex_tok() -> RegexTokenizer:
    tokenizer = RegexTokenizer()
    tokenizer.train(SAMPLE + stdlib_text(20_000), 420)
    tokenizer.register_special_tokens({"<|endoftext|>": 1000, "<|fim middle|>": 1001})
    return tokenizer


@pytest.fixture(scope="module")
def basic_tok() -> BasicTokenizer:
    tokenizer = BasicTokenizer()
    tokenizer.train(SAMPLE, 330)
    return tokenizer


# ---------------------------------------------------------------------------- save / load
def test_model_file_layout(regex_tok, tmp_path):
    model, _ = regex_tok.save(tmp_path / "tok")
    raw = model.read_bytes()
    assert raw.endswith(b"\n") and b"\r" not in raw
    lines = raw.decode("utf-8").split("\n")[:-1]
    assert lines[0] == "minbpe v1"
    assert lines[1] == regex_tok.pattern
    n = int(lines[2])
    specials = dict(line.rsplit(" ", 1) for line in lines[3 : 3 + n])
    assert {k: int(v) for k, v in specials.items()} == regex_tok.special_tokens
    merges = {}
    for k, line in enumerate(lines[3 + n :]):
        a, b = line.split(" ")
        merges[(int(a), int(b))] = 256 + k
    assert list(merges.items()) == list(regex_tok.merges.items())


@pytest.mark.parametrize("which", ["regex", "basic"])
def test_save_load_roundtrip(which, regex_tok, basic_tok, tmp_path):
    tokenizer = regex_tok if which == "regex" else basic_tok
    model, vocab = tokenizer.save(tmp_path / which)
    assert model.name == f"{which}.model" and vocab.name == f"{which}.vocab"
    fresh = type(tokenizer)()
    fresh.load(model)
    picked = load_tokenizer(model)
    assert type(picked) is type(tokenizer)
    for loaded in (fresh, picked):
        assert list(loaded.merges.items()) == list(tokenizer.merges.items())
        assert loaded.vocab == tokenizer.vocab
        assert loaded.special_tokens == tokenizer.special_tokens
        assert loaded.pattern == tokenizer.pattern
        for text in TEXTS:
            assert loaded.encode_ordinary(text) == tokenizer.encode_ordinary(text)
        assert loaded.check_well_formed().ok


def test_pattern_is_stored_literally(tmp_path):
    tokenizer = RegexTokenizer("gpt2")
    tokenizer.train(SAMPLE, 300)
    model, _ = tokenizer.save(tmp_path / "g")
    assert load_tokenizer(model).pattern == GPT2_PATTERN
    (tmp_path / "lit.model").write_text("minbpe v1\ngpt2\n0\n", encoding="utf-8")
    assert load_tokenizer(tmp_path / "lit.model").pattern == "gpt2"  # a regex, not a name


def test_minbpe_written_file_loads(tmp_path):
    path = tmp_path / "hand.model"
    path.write_text("minbpe v1\n\n0\n97 98\n256 99\n", encoding="utf-8")
    tokenizer = load_tokenizer(path)
    assert isinstance(tokenizer, BasicTokenizer) and not isinstance(tokenizer, RegexTokenizer)
    assert tokenizer.merges == {(97, 98): 256, (256, 99): 257}
    assert tokenizer.vocab[257] == b"abc"
    assert tokenizer.encode("abcab") == [257, 256]


def test_wrong_class_is_rejected(regex_tok, basic_tok, tmp_path):
    regex_model, _ = regex_tok.save(tmp_path / "r")
    basic_model, _ = basic_tok.save(tmp_path / "b")
    with pytest.raises(MalformedModelError):
        BasicTokenizer().load(regex_model)
    with pytest.raises(MalformedModelError):
        RegexTokenizer().load(basic_model)


def test_vocab_file(regex_tok, tmp_path):
    _, vocab = regex_tok.save(tmp_path / "v")
    lines = vocab.read_text(encoding="utf-8").split("\n")[:-1]
    assert len(lines) == 256 + len(regex_tok.merges) + len(regex_tok.special_tokens)
    assert lines[ord("a")] == "[a] 97"
    assert lines[10] == "[\\x0a] 10"
    assert lines[256 : 256 + len(regex_tok.merges)] == regex_tok.visualise().split("\n")[:-1]
    assert lines[-1] == "[<|fim middle|>] 1001"


def test_visualise(regex_tok):
    text = regex_tok.visualise()
    lines = text.split("\n")[:-1]
    assert len(lines) == len(regex_tok.merges)
    for k, ((p0, p1), idx) in enumerate(regex_tok.merges.items()):
        a, b = regex_tok.vocab[p0], regex_tok.vocab[p1]
        shown = f"[{render_token(a)}][{render_token(b)}] -> [{render_token(a + b)}] {256 + k}"
        assert lines[k] == shown
        assert idx == 256 + k
    assert regex_tok.visualise(limit=3) == "".join(line + "\n" for line in lines[:3])
    assert all(unicodedata.category(ch)[0] != "C" for ch in text.replace("\n", ""))


# ---------------------------------------------------------------------------- malformed
GOOD_HEAD = "minbpe v1\n\n0\n"
MALFORMED = [
    # (file text, line the error must name)
    ("", None),
    ("minbpe v2\n\n0\n", 1),
    ("hello\n", 1),
    ("minbpe v1\n", 2),  # truncated: no pattern line
    ("minbpe v1\n\n", 3),  # truncated: no special count
    ("minbpe v1\n\nzero\n", 3),
    ("minbpe v1\n\n-1\n", 3),
    ("minbpe v1\n\n2\n<|a|> 300\n", 5),  # truncated: one special line of two
    ("minbpe v1\n\n1\n<|a|>\n", 4),  # special line without id
    ("minbpe v1\n\n1\n<|a|> x1\n", 4),
    ("minbpe v1\n\n2\n<|a|> 300\n<|a|> 301\n", 5),  # the same special twice
    ("minbpe v1\n\n2\n<|a|> 300\n<|b|> 300\n", 5),  # the same id twice
    ("minbpe v1\n\n1\n<|a|> 256\n97 98\n", 4),  # special id = merge id
    ("minbpe v1\n\n1\n<|a|> 65\n", 4),  # special id = byte id
    (GOOD_HEAD + "97 98\n256 x\n", 5),
    (GOOD_HEAD + "97 98\n1.5 2\n", 5),
    (GOOD_HEAD + "97 -98\n", 4),
    (GOOD_HEAD + "97 \u0663\n", 4),  # a non-ASCII digit
    (GOOD_HEAD + "97\n", 4),
    (GOOD_HEAD + "97 98 99\n", 4),
    (GOOD_HEAD + "97  98\n", 4),
    (GOOD_HEAD + "\n", 4),  # blank merge line
    (GOOD_HEAD + "97 256\n", 4),  # 256 is defined by this very line
    (GOOD_HEAD + "97 98\n257 99\n", 5),  # 257 is not defined yet
    (GOOD_HEAD + "97 98\n99999 1\n", 5),
    (GOOD_HEAD + "97 98\n97 98\n", 5),  # duplicate merge
    (GOOD_HEAD + "97 98\n256 9", 5),  # truncated inside the last line
    # two merges with the same bytes "abc" (257 and 259): not well formed
    (GOOD_HEAD + "97 98\n256 99\n98 99\n97 258\n", 7),
]


@pytest.mark.parametrize(("text", "line"), MALFORMED)
def test_malformed_text_raises_typed_error(text, line):
    with pytest.raises(MalformedModelError) as info:
        parse_model(text)
    assert info.value.line == line
    assert isinstance(info.value, BpeError) and isinstance(info.value, ValueError)
    if line is not None:
        assert f"line {line}" in str(info.value)


@pytest.mark.parametrize(("text", "line"), MALFORMED[:6])
def test_malformed_file_names_path_and_line(text, line, tmp_path):
    path = tmp_path / "bad.model"
    path.write_text(text, encoding="utf-8")
    for load in (read_model, load_tokenizer, lambda p: RegexTokenizer().load(p)):
        with pytest.raises(MalformedModelError) as info:
            load(path)
        assert info.value.line == line and info.value.path == str(path)
        assert str(path) in str(info.value)


def test_not_utf8(tmp_path):
    path = tmp_path / "bin.model"
    path.write_bytes(b"minbpe v1\n\xff\xfe\n0\n")
    with pytest.raises(MalformedModelError) as info:
        load_tokenizer(path)
    assert info.value.line == 2


def test_unsaveable_tables_are_refused():
    with pytest.raises(ValueError):
        format_model(ModelData("a\nb"))
    with pytest.raises(ValueError):
        format_model(ModelData("", merges={(97, 98): 300}))
    with pytest.raises(ValueError):
        format_model(ModelData("", special_tokens={"two\nlines": 300}))


@settings(max_examples=100)
@given(data=st.data())
def test_any_truncation_fails_cleanly_or_gives_a_prefix(regex_tok, data):
    """Cut a valid file anywhere: either a typed error, or (cut right after a merge line) the
    same model with a prefix of the merges."""
    full = format_model(ModelData(regex_tok.pattern, regex_tok.special_tokens, regex_tok.merges))
    cut = data.draw(st.integers(0, len(full)))
    try:
        got = parse_model(full[:cut])
    except MalformedModelError:
        return
    assert full[:cut].endswith("\n")
    assert got.pattern == regex_tok.pattern and got.special_tokens == regex_tok.special_tokens
    merges = list(regex_tok.merges.items())
    assert list(got.merges.items()) == merges[: len(got.merges)]


@settings(max_examples=100)
@given(
    text=st.text(max_size=60),
    n=st.integers(0, 30),
    specials=st.dictionaries(
        st.text(min_size=1, max_size=8).filter(lambda s: "\n" not in s and "\r" not in s),
        st.integers(1000, 2000),
        max_size=3,
    ),
)
def test_format_parse_roundtrip(text, n, specials):
    """Any trained table with any special tokens survives ``format_model``/``parse_model``
    (checked in memory: hypothesis and ``tmp_path`` do not mix)."""
    if len(set(specials.values())) != len(specials):
        return
    tokenizer = RegexTokenizer()
    tokenizer.train(text, 256 + n)
    data = ModelData(tokenizer.pattern, specials, tokenizer.merges)
    got = parse_model(format_model(data))
    assert got.pattern == data.pattern and got.special_tokens == specials
    assert list(got.merges.items()) == list(data.merges.items())
    with tempfile.TemporaryDirectory() as folder:
        tokenizer.register_special_tokens(specials)
        model, _ = tokenizer.save(Path(folder) / "t")
        assert read_model(model) == ModelData(tokenizer.pattern, specials, tokenizer.merges)


# ---------------------------------------------------------------------------- rendering
@pytest.mark.parametrize(
    ("token", "shown"),
    [
        (b"hello", "hello"),
        (b" the", " the"),
        (b"\n", "\\x0a"),
        (b"\t\r", "\\x09\\x0d"),
        (b"\x00\x7f", "\\x00\\x7f"),
        (b"\\n", "\\\\n"),  # a real backslash is doubled
        ("é".encode(), "é"),
        ("🙂".encode(), "🙂"),
        ("🙂".encode()[:2], "\\xf0\\x9f"),  # half an emoji: invalid UTF-8
        (b"\xe6", "\\xe6"),
        ("\x85".encode(), "\\u0085"),  # C1 control (valid UTF-8) vs the lone byte 0x85
        (b"\x85", "\\x85"),
        ("\u200d".encode(), "\\u200d"),  # format character
        ("\u00a0".encode(), "\\u00a0"),  # no-break space
        ("\U000e0001".encode(), "\\U000e0001"),
    ],
)
def test_render_token_examples(token, shown):
    assert render_token(token) == shown


def unrender(shown: str) -> bytes:
    """Inverse of the rendering, written from its documented rules."""
    out = bytearray()
    i = 0
    while i < len(shown):
        if shown[i] != "\\":
            out += shown[i].encode("utf-8")
            i += 1
            continue
        kind = shown[i + 1]
        if kind == "\\":
            out += b"\\"
            i += 2
            continue
        width = {"x": 2, "u": 4, "U": 8}[kind]
        code = int(shown[i + 2 : i + 2 + width], 16)
        out += bytes([code]) if kind == "x" else chr(code).encode("utf-8")
        i += 2 + width
    return bytes(out)


@settings(max_examples=300)
@given(token=st.one_of(st.binary(max_size=12), st.text(max_size=8).map(str.encode)))
def test_render_token_is_reversible_and_printable(token):
    shown = render_token(token)
    assert unrender(shown) == token  # hence injective
    assert all(ch == " " or unicodedata.category(ch)[0] not in "CZ" for ch in shown)
