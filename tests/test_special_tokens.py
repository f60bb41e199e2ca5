"""Special tokens against tiktoken (the oracle), both encodings and both engines: documents
joined by ``<|endoftext|>``, random mixes of special tokens, fragments of them, whitespace and
text under many ``allowed_special`` / ``disallowed_special`` combinations (same ids, or both
raise for the same token), and decoding of special ids.

``tests/test_tokenizer.py`` has the basic fixed cases; this file adds corpora, hypothesis and
the corner cases (non-special strings in the sets, partial and repeated tokens).
"""

from __future__ import annotations

import ast
import re
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

tiktoken = pytest.importorskip("tiktoken")

from verified_bpe.engine.tokenizer import Tokenizer  # noqa: E402
from verified_bpe.engine.vocab import special_tokens, tiktoken_encoding  # noqa: E402
from verified_bpe.errors import DisallowedSpecialTokenError  # noqa: E402

NAMES = ("cl100k_base", "o200k_base")
ENGINES = ("fast", "spec")
EOT = "<|endoftext|>"
ALL_SPECIALS = sorted({t for name in NAMES for t in special_tokens(name)})


@cache
def tokenizer(name: str, engine: str) -> Tokenizer:
    return Tokenizer.from_tiktoken(name, engine=engine)  # type: ignore[arg-type]


@pytest.fixture(params=[(n, e) for n in NAMES for e in ENGINES], ids=lambda p: f"{p[0]}-{p[1]}")
def pair(request):
    name, engine = request.param
    return tokenizer(name, engine), tiktoken_encoding(name)


_TIKTOKEN_TOKEN = re.compile(r"disallowed special token (.+?)\.\n", re.S)


def outcome(encode, text: str, kwargs: dict) -> tuple[str, object]:
    """``("ok", ids)`` or ``("raise", token)``; tiktoken names the token in its message."""
    try:
        return "ok", encode(text, **kwargs)
    except DisallowedSpecialTokenError as exc:
        return "raise", exc.token
    except ValueError as exc:
        found = _TIKTOKEN_TOKEN.search(str(exc))
        assert found, str(exc)
        return "raise", ast.literal_eval(found.group(1))


def assert_same(tok: Tokenizer, oracle, text: str, kwargs: dict) -> tuple[str, object]:
    ours = outcome(tok.encode, text, kwargs)
    theirs = outcome(oracle.encode, text, kwargs)
    assert ours == theirs, (text, kwargs)
    if ours[0] == "ok":
        assert tok.decode(ours[1]) == oracle.decode(ours[1])  # type: ignore[arg-type]
    return ours


# ---------------------------------------------------------------------------- documents
def documents(stdlib_corpus, non_english_corpus) -> list[str]:
    docs = [text[:1500] for _, text in stdlib_corpus[:25]]
    docs += [text[:800] for _, text in non_english_corpus]
    return docs + ["", " ", "\n", "trailing space ", "<|endoftext", "|>"]


@pytest.mark.parametrize("sep", [EOT, f"\n{EOT}\n", f" {EOT} ", f"{EOT}{EOT}"])
def test_documents_separated_by_endoftext(pair, sep, stdlib_corpus, non_english_corpus, tally):
    tok, oracle = pair
    docs = documents(stdlib_corpus, non_english_corpus)
    text = sep.join(docs)
    for allowed in ("all", {EOT}, frozenset({EOT}), {EOT, "not a special token"}):
        ids = tok.encode(text, allowed_special=allowed)
        assert ids == oracle.encode(text, allowed_special=allowed)
        assert ids.count(tok.special_tokens[EOT]) == text.count(EOT)
        assert tok.decode(ids) == text
    # per document with tiktoken, joined with the id: the same ids
    expected: list[int] = []
    for k, doc in enumerate(text.split(EOT)):
        if k:
            expected.append(oracle.eot_token)
        expected += oracle.encode_ordinary(doc)
    assert tok.encode(text, allowed_special={EOT}) == expected
    # not allowed: both refuse; disallowed_special=(): both encode it as text
    assert assert_same(tok, oracle, text, {}) == ("raise", EOT)
    ordinary = tok.encode(text, disallowed_special=())
    assert ordinary == oracle.encode(text, disallowed_special=()) == tok.encode_ordinary(text)
    assert tok.special_tokens[EOT] not in ordinary
    tally(f"special tokens documents {tok.name} {tok.engine}", len(docs))


# ---------------------------------------------------------------------------- random mixes
pieces = st.sampled_from(
    [
        *ALL_SPECIALS,
        "<|endoftext",
        "endoftext|>",
        "<|endoftext|",
        "<|",
        "|>",
        "<",
        ">",
        "|",
        "<||>",
        " ",
        "  ",
        "\n",
        "\n\n",
        "\t",
        "\r\n",
        " \n ",
        "hello",
        " world",
        "'s",
        "123",
        "中文",
        "😀",
        "e\u0301",
        "not a special token",
    ]
)
special_sets = st.sampled_from(
    [
        frozenset(),
        frozenset({EOT}),
        frozenset({"<|endofprompt|>"}),
        frozenset({EOT, "<|fim_prefix|>", "<|fim_suffix|>"}),
        frozenset(ALL_SPECIALS),
        frozenset({EOT, "not a special token"}),
        frozenset({"hello"}),
    ]
)
allowed_args = st.one_of(st.just("all"), special_sets)
disallowed_args = st.one_of(st.just("all"), st.just(()), special_sets)


@settings(max_examples=150)
@given(
    parts=st.lists(pieces, max_size=12),
    allowed=allowed_args,
    disallowed=disallowed_args,
    data=st.data(),
)
def test_random_mixes(parts, allowed, disallowed, data):
    name = data.draw(st.sampled_from(NAMES))
    engine = data.draw(st.sampled_from(ENGINES))
    kwargs = {"allowed_special": allowed, "disallowed_special": disallowed}
    assert_same(tokenizer(name, engine), tiktoken_encoding(name), "".join(parts), kwargs)


@pytest.mark.parametrize(
    "text",
    [
        f" {EOT}",
        f"{EOT} ",
        f"  {EOT}  ",
        f"\n{EOT}\n",
        f"a{EOT}b",
        f"hello {EOT} world",
        f"x\n\n{EOT}\n\ny",
        f"{EOT}{EOT}{EOT}",
        f"<{EOT}>",
        f"<|{EOT}|>",
        f"<|endoftext{EOT}",
        f"{EOT}|>",
        f"'s{EOT}'s",
        f"123{EOT}456",
        f"中{EOT}文",
        f"\t {EOT} \t",
        f"text   {EOT}",  # whitespace run right before the token (cl100k's \\s++$ branch)
        f"{EOT}\n",
    ],
)
@pytest.mark.parametrize(
    "kwargs",
    [
        {"allowed_special": "all"},
        {"allowed_special": {EOT}},
        {"allowed_special": {EOT}, "disallowed_special": ()},
        {"disallowed_special": ()},
        {},
        {"allowed_special": {"<|endofprompt|>"}, "disallowed_special": ()},
    ],
    ids=["all", "eot", "eot-nodis", "nodis", "default", "other-nodis"],
)
def test_adjacent_text_and_whitespace(pair, text, kwargs):
    tok, oracle = pair
    assert_same(tok, oracle, text, kwargs)


def test_non_special_strings_in_the_sets(pair):
    """tiktoken searches ``disallowed_special`` as given, even for ordinary strings, and
    ignores allowed strings that are not special tokens."""
    tok, oracle = pair
    assert assert_same(tok, oracle, "say hello", {"disallowed_special": {"hello"}}) == (
        "raise",
        "hello",
    )
    assert assert_same(tok, oracle, "say hi", {"disallowed_special": {"hello"}})[0] == "ok"
    text = f"hello{EOT}"
    assert assert_same(tok, oracle, text, {"allowed_special": {"hello", EOT}})[0] == "ok"
    assert assert_same(tok, oracle, text, {"allowed_special": {"hello"}}) == ("raise", EOT)


def test_first_disallowed_token_is_reported(pair):
    tok, oracle = pair
    specials = sorted(tok.special_tokens)
    for first in specials:
        for second in specials:
            text = f"a {first} b {second}"
            assert_same(tok, oracle, text, {})
            assert assert_same(tok, oracle, text, {"allowed_special": {first}})[0] == (
                "ok" if first == second else "raise"
            )


# ---------------------------------------------------------------------------- decoding
def test_decode_special_ids(pair):
    tok, oracle = pair
    assert set(tok.special_tokens) == oracle.special_tokens_set
    partial = [oracle.encode_single_token(b"\xe4"), oracle.encode_single_token(b"\xb8")]
    for text, token_id in tok.special_tokens.items():
        assert tok.decode([token_id]) == oracle.decode([token_id]) == text
        assert tok.decode_single_token_bytes(token_id) == oracle.decode_single_token_bytes(token_id)
        ids = [*partial, token_id, *partial, oracle.encode_single_token(b"\xad"), token_id]
        assert tok.decode(ids) == oracle.decode(ids)
        assert tok.decode_bytes(ids) == oracle.decode_bytes(ids)
    all_ids = list(tok.special_tokens.values())
    assert tok.decode(all_ids) == oracle.decode(all_ids) == "".join(tok.special_tokens)
