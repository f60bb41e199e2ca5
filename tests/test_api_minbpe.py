"""``verified_bpe.api.minbpe``: minbpe's classes, the intent of minbpe's tests/test_tokenizer.py
(encode/decode identity, the Wikipedia example, GPT4Tokenizer equals tiktoken, save/load with
special tokens), with tiktoken as the oracle for cl100k_base."""

from __future__ import annotations

import pytest

from verified_bpe.api.minbpe import (
    GPT4_SPECIAL_TOKENS,
    BasicTokenizer,
    GPT4Tokenizer,
    RegexTokenizer,
    get_stats,
    merge,
)
from verified_bpe.errors import DisallowedSpecialTokenError

tiktoken = pytest.importorskip("tiktoken")

from verified_bpe.engine.vocab import load_ranks, tiktoken_encoding  # noqa: E402

SPECIALS = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}
SPECIAL_TEXT = """
<|endoftext|>Hello world this is one document
<|endoftext|>And this is another document
<|endoftext|><|fim_prefix|>And this one has<|fim_suffix|> tokens.<|fim_middle|> FIM
<|endoftext|>Last document!!! 👋<|endofprompt|>
""".strip()
TEXTS = ["", "?", "hello world!!!? (안녕하세요!) lol123 😉", "  \n\t x\r\n  ", SPECIAL_TEXT]


@pytest.fixture(scope="module")
def gpt4():
    return GPT4Tokenizer()


@pytest.mark.parametrize("cls", [BasicTokenizer, RegexTokenizer])
def test_wikipedia_example(cls):
    """aaabdaaabac, 3 merges: Z=aa, Y=ab, X=ZY gives XdXac."""
    tok = cls()
    tok.train("aaabdaaabac", 256 + 3)
    assert tok.encode("aaabdaaabac") == [258, 100, 258, 97, 99]
    assert tok.decode([258, 100, 258, 97, 99]) == "aaabdaaabac"


def test_helpers():
    assert get_stats([1, 2, 3, 1, 2]) == {(1, 2): 2, (2, 3): 1, (3, 1): 1}
    assert merge([1, 2, 3, 1, 2], (1, 2), 4) == [4, 3, 4]


@pytest.mark.parametrize("text", TEXTS)
def test_gpt4_equals_tiktoken(gpt4, text):
    oracle = tiktoken_encoding("cl100k_base")
    ids = gpt4.encode(text, allowed_special="all")
    assert ids == oracle.encode(text, allowed_special="all")
    assert gpt4.decode(ids) == text
    assert gpt4.encode_ordinary(text) == oracle.encode_ordinary(text)


def test_gpt4_minbpe_form(gpt4):
    """Merges in id space, vocab in the shuffled byte space, the byte shuffle = ranks of the
    single bytes; unshuffled, each vocab entry is tiktoken's token of that id."""
    ranks = load_ranks("cl100k_base")
    oracle = tiktoken_encoding("cl100k_base")
    assert gpt4.byte_shuffle == {b: ranks[bytes([b])] for b in range(256)}
    assert {v: k for k, v in gpt4.byte_shuffle.items()} == gpt4.inverse_byte_shuffle
    assert all(gpt4.vocab[i] == bytes([i]) for i in range(256))
    assert len(gpt4.merges) == len(ranks) - 256
    assert list(gpt4.merges.values()) == list(range(256, len(ranks)))
    table = bytes(gpt4.inverse_byte_shuffle[b] for b in range(256))
    for (p0, p1), idx in gpt4.merges.items():
        assert gpt4.vocab[idx] == gpt4.vocab[p0] + gpt4.vocab[p1]
        assert gpt4.vocab[idx].translate(table) == oracle.decode_single_token_bytes(idx)
    assert gpt4.special_tokens == SPECIALS == GPT4_SPECIAL_TOKENS
    assert 100257 not in gpt4.vocab  # minbpe: specials join vocab only on load
    assert gpt4.check_well_formed().ok


def test_gpt4_special_rules(gpt4):
    with pytest.raises(DisallowedSpecialTokenError):
        gpt4.encode(SPECIAL_TEXT)
    assert gpt4.encode(SPECIAL_TEXT, allowed_special="none") == tiktoken_encoding(
        "cl100k_base"
    ).encode_ordinary(SPECIAL_TEXT)
    assert gpt4.decode([100257]) == "<|endoftext|>"
    with pytest.raises(ValueError):
        gpt4.decode([100256])
    with pytest.raises(NotImplementedError):
        gpt4.train("x", 300)


def test_gpt4_save_load(gpt4, tmp_path):
    gpt4.save(tmp_path / "gpt4")
    vocab_text = (tmp_path / "gpt4.vocab").read_text(encoding="utf-8")
    assert "[ th][e] -> [ the] 279\n" in vocab_text  # real bytes, not shuffled ones
    loaded = GPT4Tokenizer()
    loaded.register_special_tokens({"<|extra|>": 100300})
    loaded.load(tmp_path / "gpt4.model")
    assert loaded.merges == gpt4.merges
    assert loaded.special_tokens == SPECIALS
    assert loaded.vocab[100257] == b"<|endoftext|>"  # minbpe's vocab after load
    for text in TEXTS:
        ids = loaded.encode(text, allowed_special="all")
        assert ids == gpt4.encode(text, allowed_special="all")
        assert loaded.decode(ids) == text
    loaded.save(tmp_path / "again")
    assert (tmp_path / "again.model").read_bytes() == (tmp_path / "gpt4.model").read_bytes()


def test_gpt4_register_special_tokens(gpt4, tmp_path):
    tok = GPT4Tokenizer()
    tok.register_special_tokens({"<|im_start|>": 100264})
    assert tok.encode("<|im_start|>hi", allowed_special="all") == [100264, 6151]
    assert tok.decode([100264, 6151]) == "<|im_start|>hi"


@pytest.mark.parametrize("cls", [BasicTokenizer, RegexTokenizer])
def test_save_load_with_specials(cls, tmp_path):
    text = SPECIAL_TEXT.replace("<|", "< |") * 3  # training text without specials
    tok = cls()
    tok.train(text, 256 + 64)
    assert len(tok.vocab) == 256 + 64
    specials = {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258}
    tok.register_special_tokens(specials)
    assert 100257 not in tok.vocab
    sample = "hello world" if cls is BasicTokenizer else "hello <|endoftext|> world"
    kwargs = {} if cls is BasicTokenizer else {"allowed_special": "all"}
    ids = tok.encode(sample, **kwargs)
    tok.save(tmp_path / "tok")
    loaded = cls()
    loaded.load(tmp_path / "tok.model")
    assert loaded.merges == tok.merges
    assert loaded.special_tokens == specials
    assert loaded.vocab == {**tok.vocab, 100257: b"<|endoftext|>", 100258: b"<|fim_prefix|>"}
    assert loaded.encode(sample, **kwargs) == ids
    assert loaded.decode(ids) == sample
    assert loaded.check_well_formed().ok
    loaded.save(tmp_path / "again")
    assert (tmp_path / "again.model").read_bytes() == (tmp_path / "tok.model").read_bytes()
    assert (tmp_path / "again.vocab").read_bytes() == (tmp_path / "tok.vocab").read_bytes()
    if cls is RegexTokenizer:
        fast = loaded.to_tokenizer()
        assert fast.encode(sample, allowed_special="all") == ids


@pytest.mark.parametrize("cls", [BasicTokenizer, RegexTokenizer])
@pytest.mark.parametrize("text", TEXTS[:4])
def test_encode_decode_identity_untrained(cls, text):
    tok = cls()
    ids = tok.encode(text)
    assert ids == list(text.encode("utf-8"))
    assert tok.decode(ids) == text


# ---------------------------------------------------------------------------- issue 35
def minbpe_render_token(t: bytes) -> str:
    """minbpe's ``render_token`` from its documented definition (minbpe/base.py): decode
    with U+FFFD for bad bytes, then every character whose Unicode category starts with
    ``C`` becomes ``\\u`` and its code point in four (or more) lowercase hex digits."""
    import unicodedata

    text = t.decode("utf-8", errors="replace")
    return "".join(
        ch if unicodedata.category(ch)[0] != "C" else "\\u" + format(ord(ch), "04x") for ch in text
    )


@pytest.mark.parametrize(
    "token",
    [b"\x00", b"a\nb", b"\t", b"\x7f", b"\xe2\x80\x8b", b"\xef\xbb\xbf", b"\xff", b"\xe6",
     b"caf\xc3\xa9", b"\\", b"\xf3\xa0\x80\x81", b"\xee\x80\x80", " \u0085".encode()],
)  # fmt: skip
def test_render_token_is_minbpes(token):
    from verified_bpe.minbpe import render_token

    assert render_token(token) == minbpe_render_token(token)
    assert render_token(b"\x00") == "\\u0000"


def test_minbpe_error_classes():
    """minbpe asserts ``vocab_size >= 256`` (``AssertionError``); special-token names that
    are not ``str`` end in a ``TypeError`` there (``re.escape``)."""
    from verified_bpe.minbpe import BasicTokenizer, RegexTokenizer

    from verified_bpe.errors import InvalidArgumentError, InvalidTypeError

    for cls in (BasicTokenizer, RegexTokenizer):
        tok = cls()
        with pytest.raises(AssertionError):
            tok.train("some text to train on", 255)
        with pytest.raises(InvalidArgumentError):  # still the package's ValueError
            tok.train("some text to train on", 100)
        for name in (5, b"<|x|>", None):
            with pytest.raises(InvalidTypeError):
                tok.register_special_tokens({name: 300})
            with pytest.raises(TypeError):
                tok.register_special_tokens({name: 300})
        with pytest.raises(InvalidArgumentError):
            tok.register_special_tokens({"": 300})
