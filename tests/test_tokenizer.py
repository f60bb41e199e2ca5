"""verified_bpe.engine.tokenizer: the user-facing API (tiktoken semantics), both engines, against
the tiktoken oracle built offline from the same ranks."""

from __future__ import annotations

import pytest

from verified_bpe.engine.tokenizer import Tokenizer, bpe_ranks
from verified_bpe.errors import BpeError, DisallowedSpecialTokenError, UnknownTokenError

tiktoken = pytest.importorskip("tiktoken")

from verified_bpe.engine.vocab import load_ranks, tiktoken_encoding  # noqa: E402

ENGINES = ("fast", "spec")
NAMES = ("cl100k_base", "o200k_base")


@pytest.fixture(
    scope="module", params=[(n, e) for n in NAMES for e in ENGINES], ids=lambda p: f"{p[0]}-{p[1]}"
)
def pair(request):
    name, engine = request.param
    return Tokenizer.from_tiktoken(name, engine=engine), tiktoken_encoding(name)


def test_basic_roundtrip(pair):
    tok, oracle = pair
    text = "Hello, world! Ünïcödé 日本語 😀\n\tdon't 12345"
    ids = tok.encode(text)
    assert ids == oracle.encode(text)
    assert tok.decode(ids) == text
    assert tok.decode_bytes(ids) == text.encode("utf-8")


def test_n_vocab_and_specials(pair):
    tok, oracle = pair
    assert tok.n_vocab == oracle.n_vocab
    assert tok.special_tokens == oracle._special_tokens


@pytest.mark.parametrize(
    "text",
    ["<|endoftext|>", "a<|endoftext|>b", "x <|endofprompt|> y", "<|endoftext|><|endoftext|>"],
)
def test_disallowed_special_raises_by_default(pair, text):
    tok, oracle = pair
    with pytest.raises(ValueError):
        oracle.encode(text)
    with pytest.raises(DisallowedSpecialTokenError) as info:
        tok.encode(text)
    assert isinstance(info.value, BpeError)
    assert info.value.token in tok.special_tokens


@pytest.mark.parametrize(
    "text",
    ["<|endoftext|>", "a<|endoftext|>b", "x <|endofprompt|> y<|endoftext|>", "<|endoftext", ""],
)
@pytest.mark.parametrize(
    "kwargs",
    [
        {"allowed_special": "all"},
        {"allowed_special": {"<|endoftext|>"}, "disallowed_special": ()},
        {"disallowed_special": ()},
        {"allowed_special": "all", "disallowed_special": ()},
    ],
    ids=["all", "eot-only", "none-disallowed", "all-none"],
)
def test_special_token_semantics_match_tiktoken(pair, text, kwargs):
    tok, oracle = pair
    assert tok.encode(text, **kwargs) == oracle.encode(text, **kwargs)


def test_disallowed_subset(pair):
    tok, oracle = pair
    text = "a<|endoftext|>b<|endofprompt|>"
    kwargs = {"allowed_special": {"<|endoftext|>"}, "disallowed_special": {"<|endofprompt|>"}}
    with pytest.raises(ValueError):
        oracle.encode(text, **kwargs)
    with pytest.raises(DisallowedSpecialTokenError, match="endofprompt"):
        tok.encode(text, **kwargs)
    text = "a<|endoftext|>b"
    assert tok.encode(text, **kwargs) == oracle.encode(text, **kwargs)


def test_encode_ordinary_ignores_specials(pair):
    tok, oracle = pair
    text = "a<|endoftext|>b"
    assert tok.encode_ordinary(text) == oracle.encode_ordinary(text)


def test_decode_replace_and_exact_bytes(pair):
    tok, oracle = pair
    ids = oracle.encode("日本")  # multi-byte characters split across tokens
    partial = ids[:1] if len(oracle.decode_single_token_bytes(ids[0])) < 3 else None
    bad = [oracle.encode_single_token(b"\xff")]
    assert tok.decode(bad) == oracle.decode(bad) == "\ufffd"
    assert tok.decode_bytes(bad) == b"\xff"
    with pytest.raises(UnicodeDecodeError):
        tok.decode(bad, errors="strict")
    if partial:
        assert tok.decode(partial) == oracle.decode(partial)
    special = tok.special_tokens["<|endoftext|>"]
    assert tok.decode([special, *bad]) == oracle.decode([special, *bad])


def test_unknown_id_is_typed(pair):
    tok, _ = pair
    with pytest.raises(UnknownTokenError) as info:
        tok.decode_bytes([1, 10**9])
    assert info.value.token_id == 10**9
    with pytest.raises(UnknownTokenError):
        tok.decode([-1])


@pytest.mark.parametrize("text", ["\ud800", "a\udfffb", "\ud83d\ude00", "x\ud83dy"])
def test_lone_surrogates_like_tiktoken(pair, text):
    tok, oracle = pair
    assert tok.encode(text) == oracle.encode(text)
    assert tok.encode_ordinary(text) == oracle.encode_ordinary(text)


def test_bad_engine():
    with pytest.raises(ValueError, match="engine"):
        Tokenizer.from_tiktoken("cl100k_base", engine="turbo")  # type: ignore[arg-type]


def test_from_ranks_custom_table():
    ranks = {bytes([b]): b for b in range(256)}
    ranks[b"ab"] = 256
    ranks[b"abc"] = 257
    for engine in ENGINES:
        tok = Tokenizer.from_ranks(ranks, r"\S+|\s+", {"<eos>": 300}, engine=engine)
        assert tok.encode("abc ab", allowed_special="all") == [257, 32, 256]
        assert tok.encode("abc<eos>", allowed_special="all") == [257, 300]
        assert tok.decode([257, 300]) == "abc<eos>"


def test_bpe_ranks_examples():
    ranks = {bytes([b]): b for b in range(256)}
    ranks.update({b"aa": 256, b"aaa": 257, b"aaaa": 258, b"ab": 259})
    # aaaaa: 256 at 0 (leftmost tie) -> (aa)(a)(a)(a); 256 at 1 beats 257 -> (aa)(aa)(a);
    # then 257 (aa+a) beats 258 (aa+aa) -> (aa)(aaa)
    assert bpe_ranks(ranks, b"aaaaa") == [256, 257]
    oracle = tiktoken.Encoding("toy", pat_str=r"[\s\S]+", mergeable_ranks=ranks, special_tokens={})
    assert oracle.encode("aaaaa") == [256, 257]
    assert bpe_ranks(ranks, b"aab") == [256, 98]  # aa (256) beats ab (259)
    assert bpe_ranks(ranks, b"b") == [98]
    assert bpe_ranks(ranks, b"") == []


def test_fast_cache_is_bounded(monkeypatch):
    from verified_bpe.engine import tokenizer as module

    monkeypatch.setattr(module, "_CACHE_LIMIT", 3)
    tok = Tokenizer.from_tiktoken("cl100k_base", engine="fast")
    text = "one two three four five six seven"
    assert tok.encode(text) == tiktoken_encoding("cl100k_base").encode(text)
    assert len(tok._cache) <= 3


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_spec_engine_uses_the_state_machine_for_all_text(monkeypatch, name):
    from verified_bpe.engine import tokenizer as module

    calls = []
    original = module.SPEC_PRE_TOKENIZERS[name]

    def spy(data):
        calls.append(data)
        return original(data)

    monkeypatch.setitem(module.SPEC_PRE_TOKENIZERS, name, spy)
    tok = Tokenizer.from_tiktoken(name, engine="spec")

    def no_regex(text, pattern):
        raise AssertionError("the spec engine fell back to the regex pre-tokenizer")

    monkeypatch.setattr(module, "pre_tokenize_regex", no_regex)
    tok.encode("plain ascii")
    tok.encode("non-ascii é 日本語")
    assert calls == [b"plain ascii", "non-ascii é 日本語".encode()]


def test_ranks_are_shared_not_copied():
    assert Tokenizer.from_tiktoken("cl100k_base")._ranks is load_ranks("cl100k_base")


def test_allowed_special_names_are_texts():
    """A special token named by its id (``{100257}``) is a TypeError, as in tiktoken's core,
    not silently ignored (issue 35); the same for the engine's own ``Tokenizer``."""
    from verified_bpe.errors import InvalidTypeError

    tok = Tokenizer.from_tiktoken("cl100k_base")
    for bad in ({100257}, {b"<|endoftext|>"}, {"<|endoftext|>", None}):
        with pytest.raises(InvalidTypeError):
            tok.encode("hello", allowed_special=bad)
    assert tok.encode("<|endoftext|>", allowed_special={"<|endoftext|>"}) == [100257]
