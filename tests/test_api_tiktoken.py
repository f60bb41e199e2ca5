"""``import verified_bpe as tiktoken``: the whole tiktoken 0.14 API, checked against tiktoken
itself (an ``Encoding`` built offline from the same ranks) as the oracle.  The intent of
tiktoken's own suite (tests/test_encoding.py, test_offsets.py, test_pickle.py,
test_misc.py, test_unstable.py): known ids, roundtrips, the single-token roundtrip over the
whole vocabulary, special tokens, batches, offsets, pickling, the model table."""

from __future__ import annotations

import pickle
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

import verified_bpe
from verified_bpe.api import registry

tiktoken = pytest.importorskip("tiktoken")
import tiktoken.model  # noqa: E402, F811

from verified_bpe.engine.vocab import (  # noqa: E402
    bundled_vocab_path,
    load_ranks,
    special_tokens,
    tiktoken_encoding,
)

NAMES = ("cl100k_base", "o200k_base")
EOT = "<|endoftext|>"


@pytest.fixture(scope="module", params=NAMES)
def pair(request):
    return verified_bpe.get_encoding(request.param), tiktoken_encoding(request.param)


def _outcome(f):
    """``("ok", value)`` or ``("raises", exception type)``: what a call does."""
    try:
        return ("ok", f())
    except Exception as exc:  # noqa: BLE001
        return ("raises", type(exc))


def _same(ours, oracle, call):
    """``call(ours)`` and ``call(oracle)`` return equal values, or raise; when tiktoken
    raises, ours raises an instance of tiktoken's exception type."""
    got, expected = _outcome(lambda: call(ours)), _outcome(lambda: call(oracle))
    if expected[0] == "raises":
        assert got[0] == "raises", f"tiktoken raises {expected[1]}, we return {got[1]!r}"
        assert issubclass(got[1], expected[1]), (got[1], expected[1])
    else:
        assert got == expected


# ---------------------------------------------------------------------------- module level
def test_public_names_match_tiktoken():
    """tiktoken/__init__.py's public API (functions and classes) exists here too."""
    import inspect

    public = [
        name
        for name, value in vars(tiktoken).items()
        if not name.startswith("_") and not inspect.ismodule(value)
    ]
    assert set(public) == {
        "Encoding",
        "encoding_for_model",
        "encoding_name_for_model",
        "get_encoding",
        "list_encoding_names",
    }
    for name in public:
        assert callable(getattr(verified_bpe, name)), name


def test_list_and_get_encoding():
    assert verified_bpe.list_encoding_names() == tiktoken.list_encoding_names()
    enc = verified_bpe.get_encoding("cl100k_base")
    assert enc is verified_bpe.get_encoding("cl100k_base")
    assert isinstance(enc, verified_bpe.Encoding)
    assert enc.name == "cl100k_base"
    assert repr(enc) == "<Encoding 'cl100k_base'>"


@pytest.mark.parametrize("bad", [None, 1, b"cl100k_base"])
def test_get_encoding_non_string_is_value_error(bad):
    with pytest.raises(ValueError, match="Expected a string"):
        verified_bpe.get_encoding(bad)
    with pytest.raises(ValueError):
        tiktoken.get_encoding(bad)


@pytest.mark.parametrize("name", ["nope", "r50k", "GPT2"])
def test_get_encoding_unknown(name):
    with pytest.raises(ValueError, match="Unknown encoding") as info:
        verified_bpe.get_encoding(name)
    assert "cl100k_base" in str(info.value)


def test_model_tables_are_tiktokens():
    assert registry.MODEL_TO_ENCODING == tiktoken.model.MODEL_TO_ENCODING
    assert list(registry.MODEL_PREFIX_TO_ENCODING.items()) == list(
        tiktoken.model.MODEL_PREFIX_TO_ENCODING.items()
    )


MODELS = [
    *tiktoken.model.MODEL_TO_ENCODING,
    *(prefix + "2024-05-13" for prefix in tiktoken.model.MODEL_PREFIX_TO_ENCODING),
    "gpt-4o",
    "gpt-4o-mini",
    "gpt-4-0314",
    "gpt-3.5-turbo-FAKE",
    "gpt-oss-120b",
    "ft:gpt-4o:org:custom:id",
    "gpt-5-nano",
    "o1-preview",
    "not-a-model",
    "",
    "GPT-4",
]


@pytest.mark.parametrize("model", MODELS)
def test_encoding_name_for_model(model):
    _same(verified_bpe, tiktoken, lambda m: m.encoding_name_for_model(model))


def test_encoding_for_model():
    assert verified_bpe.encoding_for_model("gpt-4o").name == "o200k_base"
    assert verified_bpe.encoding_for_model("gpt-4") is verified_bpe.get_encoding("cl100k_base")
    assert verified_bpe.encoding_for_model("gpt-oss-20b").name == "o200k_harmony"
    with pytest.raises(KeyError, match="Could not automatically map"):
        verified_bpe.encoding_for_model("not-a-model")
    # text-davinci-003 (p50k_base): tests/test_api_gpt2.py


# ---------------------------------------------------------------------------- known values
def test_simple_known_ids():
    enc = verified_bpe.get_encoding("cl100k_base")
    assert enc.encode("hello world") == [15339, 1917]
    assert enc.decode([15339, 1917]) == "hello world"
    assert enc.encode("hello <|endoftext|>", allowed_special="all") == [15339, 220, 100257]
    assert enc.encode("rer") == [38149]
    assert enc.encode("'rer") == [2351, 81]
    assert enc.encode("today\n \n") == [31213, 27907]
    assert enc.encode(" \x850") == [220, 126, 227, 15]
    assert enc.encode("👍") == [9468, 239, 235]
    assert enc.encode("\ud83d\udc4d") == enc.encode("👍")  # a surrogate pair is joined
    assert enc.encode("\ud83d") == enc.encode("�")  # a lone surrogate is replaced
    assert enc.encode("") == []
    assert enc._encode_bytes(b" \xec\x8b\xa4\xed") == [62085]


@pytest.mark.parametrize(
    "text",
    ["hello", "hello ", " hello  ", "请考试我的软件！12345", "today\n  \n", "0" * 17, "x" * 5000],
)
def test_encode_equals_tiktoken(pair, text):
    ours, oracle = pair
    assert ours.encode(text) == oracle.encode(text)
    assert ours.encode_ordinary(text) == oracle.encode_ordinary(text)
    assert ours.decode(ours.encode(text)) == text


@pytest.mark.parametrize("c", ["^", "0", "a", "'s", " ", "\n"])
def test_catastrophically_repetitive(pair, c):
    ours, oracle = pair
    for text in (c * 10_000, " " + c * 10_000, " " + c * 10_000 + "\n"):
        ids = ours.encode(text)
        assert ids == oracle.encode(text)
        assert ours.decode(ids) == text


@given(text=st.text())
def test_hyp_encode_roundtrip(text):
    for name in NAMES:
        ours, oracle = verified_bpe.get_encoding(name), tiktoken_encoding(name)
        ids = ours.encode(text, disallowed_special=())
        assert ids == oracle.encode(text, disallowed_special=())
        assert ours.encode_ordinary(text) == ids
        assert ours.decode(ids) == oracle.decode(ids)


@given(data=st.binary(max_size=40))
def test_hyp_encode_bytes(data):
    for name in NAMES:
        ours, oracle = verified_bpe.get_encoding(name), tiktoken_encoding(name)
        ids = ours._encode_bytes(data)
        assert ids == oracle._encode_bytes(data)
        assert ours.decode_bytes(ids) == data


def test_private_helpers(pair):
    ours, oracle = pair
    for piece in ("helloqqqq", b"\xe6\x97\xa5x", "  !"):
        assert ours._encode_single_piece(piece) == oracle._encode_single_piece(piece)
    text = "Hello, world! 日本語 don't  \n"
    assert ours._encode_only_native_bpe(text) == oracle._encode_only_native_bpe(text)


@pytest.mark.parametrize("name", NAMES)
def test_tables_are_tiktokens_published_ones(name, tmp_path, monkeypatch):
    """``_mergeable_ranks``, ``_pat_str`` and ``_special_tokens`` equal what tiktoken's own
    constructor (``tiktoken_ext.openai_public``) builds: its parser (``load_tiktoken_bpe``)
    reads the vocabulary file, checked against the SHA-256 tiktoken publishes; only the
    download is replaced by the bundled file, decompressed here."""
    import gzip

    import tiktoken.load

    openai_public = pytest.importorskip("tiktoken_ext.openai_public")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")  # tiktoken: no cache, read the file
    path = tmp_path / f"{name}.tiktoken"
    path.write_bytes(gzip.decompress(bundled_vocab_path(name).read_bytes()))
    hashes: list[str | None] = []

    def load_local(url: str, expected_hash: str | None = None) -> dict[bytes, int]:
        hashes.append(expected_hash)
        return tiktoken.load.load_tiktoken_bpe(str(path), expected_hash=expected_hash)

    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", load_local)
    published = openai_public.ENCODING_CONSTRUCTORS[name]()
    assert hashes and all(hashes)  # tiktoken checked the file against its published hash
    ours = verified_bpe.get_encoding(name)
    assert ours._mergeable_ranks == published["mergeable_ranks"]
    assert ours._pat_str == published["pat_str"]
    assert ours._special_tokens == published["special_tokens"]


# ---------------------------------------------------------------------------- vocabulary
def test_single_token_roundtrip_whole_vocabulary(pair, tally):
    """Every id up to n_vocab: decode_single_token_bytes then encode_single_token gives it
    back, and the ids without a token (KeyError) are tiktoken's."""
    ours, oracle = pair
    assert ours.n_vocab == oracle.n_vocab
    missing = []
    for token in range(ours.n_vocab):
        try:
            data = ours.decode_single_token_bytes(token)
        except KeyError:
            missing.append(token)
            continue
        assert data == oracle.decode_single_token_bytes(token)
        assert ours.encode_single_token(data) == token
    for token in missing:
        with pytest.raises(KeyError):
            oracle.decode_single_token_bytes(token)
    tally(f"api: single-token roundtrip {ours.name}", ours.n_vocab - len(missing))


def test_attributes(pair):
    ours, oracle = pair
    assert ours.n_vocab == oracle.n_vocab
    assert ours.max_token_value == oracle.max_token_value
    assert ours.eot_token == oracle.eot_token
    assert ours.special_tokens_set == oracle.special_tokens_set
    assert ours.token_byte_values() == oracle.token_byte_values()
    for token in [0, 1, 255, 100256, ours.eot_token, *special_tokens(ours.name).values()]:
        assert ours.is_special_token(token) == oracle.is_special_token(token)
    with pytest.raises(AssertionError):
        ours.is_special_token("<|endoftext|>")
    with pytest.raises(TypeError):
        ours.is_special_token(1.0)


@pytest.mark.parametrize(
    "arg",
    [
        "hello",
        b"hello",
        "<|endoftext|>",
        "<|endofprompt|>",
        "hello world",
        b"\xff",
        5,
        bytearray(b"hello"),
        None,
    ],
)
def test_encode_single_token(pair, arg):
    ours, oracle = pair
    _same(ours, oracle, lambda e: e.encode_single_token(arg))


# ---------------------------------------------------------------------------- wrong types
BAD_CALLS = {
    "decode float": lambda e: e.decode([1.0]),
    "decode None": lambda e: e.decode([None]),
    "decode -1": lambda e: e.decode([-1]),
    "decode 2**32": lambda e: e.decode([2**32]),
    "decode unknown": lambda e: e.decode([10**6]),
    "decode str": lambda e: e.decode("abc"),
    "decode generator": lambda e: e.decode(t for t in [1, 2]),
    "decode set": lambda e: e.decode({1, 2}),
    "decode int": lambda e: e.decode(5),
    "decode bytes": lambda e: e.decode(b"abc"),
    "decode tuple": lambda e: e.decode((1, 2)),
    "decode bool": lambda e: e.decode([True]),
    "decode_bytes float": lambda e: e.decode_bytes([1.5]),
    "decode_single_token_bytes float": lambda e: e.decode_single_token_bytes(1.0),
    "decode_single_token_bytes None": lambda e: e.decode_single_token_bytes(None),
    "decode_single_token_bytes -1": lambda e: e.decode_single_token_bytes(-1),
    "decode_single_token_bytes unknown": lambda e: e.decode_single_token_bytes(10**6),
    "decode_tokens_bytes None": lambda e: e.decode_tokens_bytes([1, None]),
    "encode None": lambda e: e.encode(None),
    "encode None ()": lambda e: e.encode(None, disallowed_special=()),
    "encode bytes": lambda e: e.encode(b"x"),
    "encode bytes ()": lambda e: e.encode(b"x", disallowed_special=()),
    "encode_ordinary None": lambda e: e.encode_ordinary(None),
    "encode_ordinary bytes": lambda e: e.encode_ordinary(b"x"),
    "allowed bare string": lambda e: e.encode("x", allowed_special=EOT),
    "allowed bare string ()": lambda e: e.encode("x", allowed_special=EOT, disallowed_special=()),
    "allowed list": lambda e: e.encode("x", allowed_special=[EOT]),
    "allowed None": lambda e: e.encode("x", allowed_special=None),
    "allowed frozenset": lambda e: e.encode("x" + EOT, allowed_special=frozenset([EOT])),
    "allowed non-special": lambda e: e.encode("x<|foo|>", allowed_special={"<|foo|>"}),
    "disallowed non-special": lambda e: e.encode("hello", disallowed_special={"ell"}),
    "disallowed None": lambda e: e.encode("hello", disallowed_special=None),
    "encode_to_numpy None": lambda e: e.encode_to_numpy(None, disallowed_special=()),
    "encode_batch str": lambda e: e.encode_batch("ab"),
    "encode_batch 0 threads": lambda e: e.encode_batch(["a"], num_threads=0),
    # issue 35: ids (or bytes, None) in allowed_special are a TypeError in tiktoken's core,
    # in every variant; text with a special token is refused first (its Python check)
    "allowed ids": lambda e: e.encode("hello", allowed_special={100257}),
    "allowed ids, special in text": lambda e: e.encode("a" + EOT, allowed_special={100257}),
    "allowed ids ()": lambda e: e.encode(
        "a" + EOT, allowed_special={100257}, disallowed_special=()
    ),
    "allowed ids frozenset": lambda e: e.encode("a", allowed_special=frozenset({100257})),
    "allowed mixed": lambda e: e.encode("a", allowed_special={EOT, 1}),
    "allowed bytes": lambda e: e.encode("a", allowed_special={EOT.encode()}),
    "allowed None item": lambda e: e.encode("a", allowed_special={None}),
    "encode_batch allowed ids": lambda e: e.encode_batch(["a", EOT], allowed_special={100257}),
    "encode_batch allowed ids, no text": lambda e: e.encode_batch([], allowed_special={100257}),
    "encode_to_numpy allowed ids": lambda e: e.encode_to_numpy("a", allowed_special={100257}),
    "encode_with_unstable allowed ids": lambda e: e.encode_with_unstable(
        "a", allowed_special={100257}
    ),
}

# issue 35: num_threads as tiktoken reads it (its ThreadPoolExecutor's max_workers), on every
# batch method and on an empty batch too
THREAD_COUNTS = [-1, 0, 1, 2, 2.0, 1.5, True, None, 2**31, 2**64, "2"]
BATCH_CALLS = {
    "encode_ordinary_batch": lambda e, n: e.encode_ordinary_batch(
        ["hello", "world"], num_threads=n
    ),
    "encode_ordinary_batch []": lambda e, n: e.encode_ordinary_batch([], num_threads=n),
    "encode_batch": lambda e, n: e.encode_batch(
        ["hello", EOT], num_threads=n, allowed_special="all"
    ),
    "decode_batch": lambda e, n: e.decode_batch([[1, 2], [3]], num_threads=n),
    "decode_bytes_batch": lambda e, n: e.decode_bytes_batch([[1, 2]], num_threads=n),
    "encode_batch None item": lambda e: e.encode_batch(["a", None]),
    "decode_batch bad item": lambda e: e.decode_batch([[1], [None]]),
    "decode_with_offsets unknown": lambda e: e.decode_with_offsets([10**6]),
    "decode_with_offsets invalid utf-8": lambda e: e.decode_with_offsets(e._encode_bytes(b"\x80")),
    "decode strict invalid": lambda e: e.decode(e._encode_bytes(b"\xe6"), errors="strict"),
}


@pytest.mark.parametrize("label", list(BAD_CALLS))
def test_errors_as_tiktoken(pair, label):
    ours, oracle = pair
    _same(ours, oracle, BAD_CALLS[label])


@pytest.mark.parametrize("label", list(BATCH_CALLS))
def test_num_threads_as_tiktoken(pair, label):
    """Where tiktoken raises (0, -1: ``ValueError``; ``"2"``: ``TypeError``) ours raises a
    subclass; where it returns (``2.0``, ``1.5``, ``True``, ``None``, ``2**64``) ours returns
    the same ids."""
    ours, oracle = pair
    for n in THREAD_COUNTS:
        _same(ours, oracle, lambda e, n=n: BATCH_CALLS[label](e, n))


# ---------------------------------------------------------------------------- special tokens
SPECIAL_TEXT = "<|endoftext|> hello <|fim_prefix|> there <|endofprompt|> <|fim_middle|>"
SPECIAL_ARGS = [
    {},
    {"disallowed_special": ()},
    {"disallowed_special": "all"},
    {"disallowed_special": {"<|endoftext|>"}},
    {"disallowed_special": {"<|fim_prefix|>"}},
    {"allowed_special": "all"},
    {"allowed_special": "all", "disallowed_special": ()},
    {"allowed_special": "all", "disallowed_special": "all"},
    {"allowed_special": {"<|fim_prefix|>"}, "disallowed_special": ()},
    {"allowed_special": {"<|endoftext|>"}, "disallowed_special": ()},
    {"allowed_special": {"<|endoftext|>"}},
    {"allowed_special": {"<|endoftext|>", "<|endofprompt|>"}, "disallowed_special": ()},
    {"allowed_special": frozenset({"<|endofprompt|>"}), "disallowed_special": ["<|fim_middle|>"]},
]


def _kwargs_id(kwargs: dict) -> str:
    """The test id of a ``SPECIAL_ARGS`` entry, with sets sorted: the id must not depend on
    string hashing (pytest-xdist's workers must collect the same ids)."""

    def show(value: object) -> str:
        if isinstance(value, set | frozenset):
            return "{" + ", ".join(map(repr, sorted(value))) + "}"
        return repr(value)

    return "{" + ", ".join(f"{k!r}: {show(v)}" for k, v in kwargs.items()) + "}"


@pytest.mark.parametrize("kwargs", SPECIAL_ARGS, ids=_kwargs_id)
@pytest.mark.parametrize("text", [SPECIAL_TEXT, "no specials here", "<|endoftext|>", ""])
def test_special_token_rules(pair, kwargs, text):
    ours, oracle = pair
    _same(ours, oracle, lambda e: e.encode(text, **kwargs))
    _same(ours, oracle, lambda e: e.encode_batch([text, "x"], **kwargs))
    _same(ours, oracle, lambda e: e.encode_to_numpy(text, **kwargs).tolist())


@pytest.mark.parametrize("allowed", [[], (), [EOT]], ids=["list", "tuple", "list-eot"])
@pytest.mark.parametrize("text", ["a" + EOT, "a"])
def test_allowed_special_of_wrong_type(pair, allowed, text):
    """An empty ``allowed_special`` that is not a set: tiktoken's ``TypeError`` (its set
    difference), before the disallowed-token check could raise ``ValueError``."""
    ours, oracle = pair
    _same(ours, oracle, lambda e: e.encode(text, allowed_special=allowed))
    _same(ours, oracle, lambda e: e.encode_to_numpy(text, allowed_special=allowed).tolist())


def test_disallowed_special_is_value_error():
    enc = verified_bpe.get_encoding("cl100k_base")
    with pytest.raises(verified_bpe.DisallowedSpecialTokenError):
        enc.encode("a <|endoftext|>")
    with pytest.raises(ValueError, match="disallowed special token"):
        enc.encode("a <|endoftext|>")


@given(parts=st.lists(st.sampled_from(["a", " ", "<|endoftext|>", "<|endofprompt|>", "é", "<|"])))
def test_hyp_special_ordinary(parts):
    text = "".join(parts)
    enc = verified_bpe.get_encoding("cl100k_base")
    assert enc.encode_ordinary(text) == enc.encode(text, disallowed_special=())
    assert enc.encode(text, allowed_special="all") == tiktoken_encoding("cl100k_base").encode(
        text, allowed_special="all"
    )


# ---------------------------------------------------------------------------- batches
@pytest.mark.parametrize("num_threads", [1, 4])
def test_batches(pair, num_threads):
    ours, oracle = pair
    texts = ["hello world", "goodbye world", "", "日本語 <|endoftext|>", "x" * 3000] * 5
    got = ours.encode_batch(texts, num_threads=num_threads, allowed_special="all")
    assert got == oracle.encode_batch(texts, allowed_special="all")
    assert got == [ours.encode(t, allowed_special="all") for t in texts]
    ordinary = ours.encode_ordinary_batch(texts, num_threads=num_threads)
    assert ordinary == oracle.encode_ordinary_batch(texts)
    assert ours.decode_batch(got, num_threads=num_threads) == texts
    assert ours.decode_bytes_batch(got, num_threads=num_threads) == [t.encode() for t in texts]
    broken = [ours._encode_bytes(b"ab\xe6")]
    assert ours.decode_batch(broken, errors="ignore") == oracle.decode_batch(
        broken, errors="ignore"
    )


@given(batch=st.lists(st.text(), max_size=8))
def test_hyp_batch_roundtrip(batch):
    enc = verified_bpe.get_encoding("o200k_base")
    encoded = enc.encode_batch(batch, allowed_special="all")
    assert encoded == [enc.encode(t, allowed_special="all") for t in batch]
    assert enc.decode_batch(encoded) == [t.encode("utf-8", "replace").decode() for t in batch] or (
        enc.decode_batch(encoded) == tiktoken_encoding("o200k_base").decode_batch(encoded)
    )


# ---------------------------------------------------------------------------- offsets
def _offsets_by_definition(enc, tokens):
    """For each token: the length of the common prefix of the text and the (lossy) decoding
    of the tokens before it."""
    text = enc.decode(tokens, errors="strict")
    out = []
    for i in range(len(tokens)):
        prefix = enc.decode(tokens[:i], errors="ignore")
        n = 0
        while n < len(prefix) and n < len(text) and prefix[n] == text[n]:
            n += 1
        out.append(n)
    return out


@pytest.mark.parametrize(
    "text",
    [
        "",
        "hello world",
        "hello world<|endoftext|> green cow",
        "我非常渴望与人工智能一起工作",
        "நடிகர் சூர்யா",
        " Ġ除",
        "👨‍👩‍👧 ok",
    ],
)
def test_decode_with_offsets(pair, text):
    ours, oracle = pair
    tokens = ours.encode(text, allowed_special="all")
    got = ours.decode_with_offsets(tokens)
    assert got == oracle.decode_with_offsets(tokens)
    assert got == (text, _offsets_by_definition(ours, tokens))


def test_decode_with_offsets_known():
    enc = verified_bpe.get_encoding("cl100k_base")
    assert enc.decode_with_offsets(enc.encode("hello world")) == ("hello world", [0, 5])
    text = "hello world<|endoftext|> green cow"
    assert enc.decode_with_offsets(enc.encode(text, allowed_special="all"))[1] == [0, 5, 11, 24, 30]


@given(data=st.data())
def test_hyp_offsets(data):
    enc = verified_bpe.get_encoding("cl100k_base")
    ids = data.draw(st.lists(st.integers(0, 100255), min_size=1, max_size=20))
    tokens = enc.encode(enc.decode(ids, errors="ignore"), allowed_special="all")
    assert enc.decode_with_offsets(tokens)[1] == _offsets_by_definition(enc, tokens)


# ---------------------------------------------------------------------------- unstable
@pytest.mark.parametrize(
    "text",
    [
        "hello fanta",
        "hello",
        "hello ",
        "a\n",
        "  ",
        "hello<|endoftext|>",
        "",
        "日本",
        "x\xe9",
        "py\ud83d",
        "don'",
        "12",
    ],
)
def test_encode_with_unstable(pair, text):
    ours, oracle = pair
    stable, completions = ours.encode_with_unstable(text, allowed_special="all")
    if "\ud83d" not in text:  # tiktoken 0.14 does not replace lone surrogates here
        exp_stable, exp_completions = oracle.encode_with_unstable(text, allowed_special="all")
        assert stable == exp_stable
        assert {tuple(c) for c in completions} == {tuple(c) for c in exp_completions}
    full = ours.encode(text, allowed_special="all")
    assert full[: len(stable)] == stable
    data = ours.decode_bytes(full)
    assert data.startswith(ours.decode_bytes(stable))
    for seq in completions:
        assert ours.decode_bytes(stable + seq).startswith(data)


def test_encode_with_unstable_disallowed():
    enc = verified_bpe.get_encoding("cl100k_base")
    with pytest.raises(ValueError):
        enc.encode_with_unstable("x<|endoftext|>")


# ---------------------------------------------------------------------------- numpy, pickle
def test_encode_to_numpy(pair):
    np = pytest.importorskip("numpy")
    ours, oracle = pair
    text = "hello world 日本 <|endoftext|>"
    got = ours.encode_to_numpy(text, allowed_special="all")
    assert got.dtype == np.uint32
    assert got.tolist() == oracle.encode_to_numpy(text, allowed_special="all").tolist()


NUMPY_TEXTS = [
    "<|endoftext|><|endoftext|>",
    "x<|endoftext|>",
    "<|endoftext|>x",
    "a <|endoftext|>b<|fim_prefix|><|endoftext|> c\n\n",
    "<|endoftext",
    "",
    "héllo wörld 日本語 " * 500 + "<|fim_suffix|>" + "def f(x):\n    return x\n" * 500,
]


@pytest.mark.parametrize("kwargs", [{}, {"allowed_special": "all"}, {"disallowed_special": ()}])
@pytest.mark.parametrize("text", NUMPY_TEXTS, ids=range(len(NUMPY_TEXTS)))
def test_encode_to_numpy_matches_tiktoken(pair, text, kwargs):
    """The flat path (the ordinary parts encoded into one buffer, the special ids placed
    between them) against tiktoken's ``encode_to_numpy``; the same exception if it refuses."""
    np = pytest.importorskip("numpy")
    ours, oracle = pair
    _same(ours, oracle, lambda e: _numpy_seen(e.encode_to_numpy(text, **kwargs)))
    if all(t not in text for t in ours.special_tokens_set) or kwargs:
        assert ours.encode_to_numpy(text, **kwargs).dtype == np.uint32


def _numpy_seen(array):
    """What a caller sees of an ``encode_to_numpy`` array: its ids, its dtype and whether it
    may be written (tiktoken's are read-only views of its buffer)."""
    return array.tolist(), array.dtype.str, array.flags.writeable


def test_encode_to_numpy_long_lone_surrogates(pair):
    """A text long enough for the native engine's own buffer (``Tokenizer.encode_ordinary_ids``)
    with lone surrogates: replaced as ``encode`` replaces them (tiktoken's ``encode_to_numpy``
    raises ``UnicodeEncodeError`` instead, see test_fuzz_api), read-only as tiktoken's arrays."""
    pytest.importorskip("numpy")
    ours, oracle = pair
    text = "a\ud800b c\udfff " * 400
    got = ours.encode_to_numpy(text, disallowed_special=())
    assert got.tolist() == oracle.encode(text, disallowed_special=())
    assert not got.flags.writeable


@pytest.mark.parametrize("engine", ["native", "fast"])
@pytest.mark.parametrize("name", NAMES)
def test_encode_flat_each_engine(engine, name):
    """``Tokenizer.encode_flat`` on each engine (the native flat batch and the Python fallback
    into an ``array``) against tiktoken's ``encode`` with every special token allowed."""
    from verified_bpe.engine import native
    from verified_bpe.engine.tokenizer import Tokenizer

    if engine == "native" and not native.available():
        pytest.skip("native engine not built")
    tok, oracle = Tokenizer.from_tiktoken(name, engine), tiktoken_encoding(name)
    for text in NUMPY_TEXTS:
        got = memoryview(tok.encode_flat(text, allowed_special="all")).cast("B").cast("I")
        assert got.tolist() == oracle.encode(text, allowed_special="all")


@given(
    st.lists(st.sampled_from(["<|a|>", "<|ab|>", "b|>", "<|", "x", "|"]), max_size=12),
    st.sets(st.sampled_from(["<|a|>", "<|ab|>", "b|>", "a", "<|a", ""]), min_size=1),
    st.booleans(),
)
def test_first_special_by_definition(pieces, tokens, many):
    """``first_special`` (a search for the tokens' first characters, then the alternation)
    against its definition: the token starting leftmost in the text, the longest there; also
    with tokens of other first characters, and with an empty token."""
    from verified_bpe.engine.tokenizer import first_special

    text = "".join(pieces)
    if many:
        tokens = tokens | {f"<pad{k}>" for k in range(40)} | {"x|"}
    found = [(i, -len(t), t) for t in tokens for i in range(len(text) + 1) if text.startswith(t, i)]
    assert first_special(tokens, text) == (min(found)[2] if found else None)


def test_numpy_is_optional(monkeypatch):
    enc = verified_bpe.get_encoding("cl100k_base")
    monkeypatch.setitem(sys.modules, "numpy", None)
    assert enc.encode("hello") == [15339]
    with pytest.raises(ImportError):
        enc.encode_to_numpy("hello")


def test_pickle_registered_by_name():
    enc = verified_bpe.get_encoding("o200k_base")
    blob = pickle.dumps(enc)
    assert len(blob) < 200
    again = pickle.loads(blob)
    assert again.encode("hello world") == [24912, 2375]
    assert again.name == "o200k_base"


def test_pickle_custom_encoding():
    base = verified_bpe.get_encoding("cl100k_base")
    enc = verified_bpe.Encoding(
        "cl100k_im",
        pat_str=base._pat_str,
        mergeable_ranks=base._mergeable_ranks,
        special_tokens={**base._special_tokens, "<|im_start|>": 100264, "<|im_end|>": 100265},
    )
    again = pickle.loads(pickle.dumps(enc))
    text = "<|im_start|>user hi<|im_end|>"
    assert again.encode(text, allowed_special="all") == enc.encode(text, allowed_special="all")
    oracle = tiktoken.Encoding(
        "cl100k_im",
        pat_str=base._pat_str,
        mergeable_ranks=base._mergeable_ranks,
        special_tokens=dict(enc._special_tokens),
    )
    assert enc.encode(text, allowed_special="all") == oracle.encode(text, allowed_special="all")
    assert enc.n_vocab == oracle.n_vocab == 100277  # <|endofprompt|> is 100276


def test_explicit_n_vocab():
    ranks = {bytes([i]): i for i in range(256)}
    kwargs = {"pat_str": r"(?s:.)", "mergeable_ranks": ranks, "special_tokens": {EOT: 256}}
    for module in (verified_bpe, tiktoken):
        assert module.Encoding("t", explicit_n_vocab=257, **kwargs).n_vocab == 257
        with pytest.raises(AssertionError):
            module.Encoding("t", explicit_n_vocab=300, **kwargs)


def test_encode_with_unstable_bytes_table():
    """tiktoken's test_unstable: a byte-level table, a surrogate pair and a lone one."""
    ranks = {bytes([i]): i for i in range(256)}
    enc = verified_bpe.Encoding("t", pat_str=r"(?s:.)", mergeable_ranks=ranks, special_tokens={})
    for text in ["py\ud83d\udc4d", "py\ud83d"]:
        stable, _ = enc.encode_with_unstable(text)
        assert stable == enc.encode(text)[: len(stable)]


# ---------------------------------------------------------------------------- harmony
def test_o200k_harmony(monkeypatch):
    openai_public = pytest.importorskip("tiktoken_ext.openai_public")
    monkeypatch.setattr(
        openai_public, "load_tiktoken_bpe", lambda url, expected_hash=None: load_ranks("o200k_base")
    )
    oracle = tiktoken.Encoding(**openai_public.o200k_harmony())
    ours = verified_bpe.get_encoding("o200k_harmony")
    assert ours._special_tokens == oracle._special_tokens
    assert ours.n_vocab == oracle.n_vocab == 201088
    text = "<|start|>user<|message|>What is 2+2?<|end|><|start|>assistant<|channel|>final"
    assert ours.encode(text, allowed_special="all") == oracle.encode(text, allowed_special="all")
    for token in (200006, 200008, 200012, 200018, 201087):
        assert ours.decode_single_token_bytes(token) == oracle.decode_single_token_bytes(token)


# ---------------------------------------------------------------------------- drop-in script
def _user_script(tk) -> list[object]:
    """What a tiktoken user typically writes; run with both modules."""
    out: list[object] = []
    enc = tk.get_encoding("cl100k_base")
    out.append(enc.encode("hello world"))
    out.append(len(tk.encoding_for_model("gpt-4o").encode("How many tokens is this?")))
    out.append(tk.encoding_name_for_model("gpt-3.5-turbo"))
    out.append(enc.decode(enc.encode("round trip ✓")))
    out.append(enc.encode("<|endoftext|>", allowed_special={"<|endoftext|>"}))
    out.append(enc.encode("<|endoftext|>", disallowed_special=()))
    out.append([enc.decode_single_token_bytes(t) for t in enc.encode("tokens!")])
    out.append(enc.decode_tokens_bytes(enc.encode("bytes")))
    out.append(enc.encode_ordinary_batch(["a b", "c d"]))
    out.append(enc.decode_with_offsets(enc.encode("offsets")))
    out.append((enc.n_vocab, enc.max_token_value, enc.eot_token, sorted(enc.special_tokens_set)))
    custom = tk.Encoding(
        name="cl100k_im",
        pat_str=enc._pat_str,
        mergeable_ranks=enc._mergeable_ranks,
        special_tokens={**enc._special_tokens, "<|im_start|>": 100264},
    )
    out.append(custom.encode("<|im_start|>hi", allowed_special="all"))
    out.append(pickle.loads(pickle.dumps(enc)).encode("pickled"))
    try:
        enc.encode("<|endoftext|>")
    except ValueError as exc:
        out.append(type(exc).__mro__[-4].__name__)
    return out


def test_user_script_runs_unchanged(monkeypatch, tmp_path):
    """The same script with ``tiktoken`` and with ``verified_bpe`` as ``tiktoken``; real
    tiktoken reads its vocabularies offline from a TIKTOKEN_CACHE_DIR filled here."""
    import gzip
    import shutil

    from verified_bpe.engine.vocab import bundled_vocab_path, tiktoken_cache_path

    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    for name in NAMES:
        path, _ = tiktoken_cache_path(name)
        with gzip.open(bundled_vocab_path(name)) as src, open(path, "wb") as dst:
            shutil.copyfileobj(src, dst)
    import tiktoken.registry

    monkeypatch.setattr(tiktoken.registry, "ENCODINGS", {})
    assert _user_script(verified_bpe) == _user_script(tiktoken)
