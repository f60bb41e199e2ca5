"""The flat batches (``encode_ordinary_batch_to_numpy``, ``encode_batch_to_numpy``): one
``uint32`` buffer of ids and ``int64`` offsets, checked text by text against tiktoken's ids
(the oracle), on the native engine and on the Python fallback."""

from __future__ import annotations

import sys

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("tiktoken")

import verified_bpe  # noqa: E402
from verified_bpe.engine import native  # noqa: E402
from verified_bpe.engine.tokenizer import Tokenizer  # noqa: E402
from verified_bpe.engine.vocab import tiktoken_encoding  # noqa: E402
from verified_bpe.errors import (  # noqa: E402
    InvalidArgumentError,
    MissingExtraError,
    MissingRankError,
)

NAMES = ["cl100k_base", "o200k_base"]
TEXTS = [
    "hello world",
    "",
    "caf\u00e9 \u65e5\u672c\u8a9e \U0001f600",
    "a\udc80b",  # a lone surrogate: replaced as tiktoken does
    "x" * 20_000,
    "<|endoftext|> and <|fim_prefix|>",
    "",
    "def f(x):\n    return x  # 12345\n" * 300,
]


def split(ids, offsets):
    assert ids.dtype == np.uint32 and offsets.dtype == np.int64
    assert offsets[0] == 0 and offsets[-1] == len(ids)
    return [ids[offsets[k] : offsets[k + 1]].tolist() for k in range(len(offsets) - 1)]


@pytest.fixture(params=["native", "fast"])
def encoding(request):
    """A registered encoding, on the native engine or on the Python one (the fallback)."""
    enc = verified_bpe.get_encoding("cl100k_base")
    if request.param == "native":
        if not native.available():
            pytest.skip("native engine not built")
        assert enc._tokenizer.engine == "native"
        return enc
    fallback = verified_bpe.api.encoding.Encoding(
        "cl100k_base",
        pat_str=enc._pat_str,
        mergeable_ranks=enc._mergeable_ranks,
        special_tokens=enc._special_tokens,
    )
    fallback._tokenizer = Tokenizer.from_tiktoken("cl100k_base", engine="fast")
    return fallback


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("num_threads", [1, 2, 64])
def test_ordinary_flat_equals_tiktoken(name, num_threads):
    enc = verified_bpe.get_encoding(name)
    ids, offsets = enc.encode_ordinary_batch_to_numpy(TEXTS, num_threads=num_threads)
    assert split(ids, offsets) == tiktoken_encoding(name).encode_ordinary_batch(TEXTS)


@pytest.mark.parametrize("name", NAMES)
def test_one_text_buffer_outlives_its_owner(name):
    """``Tokenizer.encode_ordinary_flat`` of a long text on the native engine: a read-only
    buffer over the engine's own ids (``IdBuffer``), equal to tiktoken's ids; an array made
    from it keeps it alive after the last other reference is gone, and nothing can write it."""
    if not native.available():
        pytest.skip("native engine not built")
    tok = Tokenizer.from_tiktoken(name, "native")
    text = TEXTS[7] + TEXTS[2] * 50
    buffer = tok.encode_ordinary_flat(text)
    view = memoryview(buffer)
    assert view.readonly and view.format == "B" and len(buffer) == view.nbytes
    array = np.frombuffer(buffer, dtype=np.uint32)
    del buffer, view
    expected = tiktoken_encoding(name).encode_ordinary(text)
    assert array.tolist() == expected
    with pytest.raises(TypeError):
        memoryview(array.base)[0] = 1
    with pytest.raises(ValueError):
        array[0] = 1


def test_fallback_equals_tiktoken(encoding):
    oracle = tiktoken_encoding("cl100k_base")
    assert split(*encoding.encode_ordinary_batch_to_numpy(TEXTS)) == [
        oracle.encode_ordinary(t) for t in TEXTS
    ]
    got = encoding.encode_batch_to_numpy(TEXTS, allowed_special="all", num_threads=3)
    assert split(*got) == oracle.encode_batch(TEXTS, allowed_special="all")


@pytest.mark.parametrize(
    "allowed, disallowed",
    [
        ("all", "all"),
        ({"<|endoftext|>"}, ()),
        (frozenset({"<|fim_prefix|>"}), ()),
        (set(), ()),
    ],
)
def test_special_tokens_as_tiktoken(allowed, disallowed):
    enc, oracle = verified_bpe.get_encoding("cl100k_base"), tiktoken_encoding("cl100k_base")
    texts = TEXTS + ["<|endoftext|><|endoftext|>", "a<|fim_prefix|>"]
    got = enc.encode_batch_to_numpy(
        texts, allowed_special=allowed, disallowed_special=disallowed, num_threads=2
    )
    expected = oracle.encode_batch(texts, allowed_special=allowed, disallowed_special=disallowed)
    assert split(*got) == expected


def test_disallowed_special_raises_as_tiktoken():
    enc = verified_bpe.get_encoding("cl100k_base")
    with pytest.raises(ValueError, match="endoftext"):
        enc.encode_batch_to_numpy(["fine", "x <|endoftext|>"])
    with pytest.raises(ValueError, match="fim_prefix"):
        enc.encode_batch_to_numpy(["<|fim_prefix|>"], allowed_special={"<|endoftext|>"})
    with pytest.raises(TypeError):
        enc.encode_batch_to_numpy(["x"], allowed_special=["<|endoftext|>"])


def test_empty_batch_and_empty_texts():
    enc = verified_bpe.get_encoding("o200k_base")
    for method in (enc.encode_ordinary_batch_to_numpy, enc.encode_batch_to_numpy):
        ids, offsets = method([])
        assert ids.tolist() == [] and offsets.tolist() == [0]
        ids, offsets = method(["", ""], num_threads=8)
        assert ids.tolist() == [] and offsets.tolist() == [0, 0, 0]


@pytest.mark.parametrize("num_threads", [0, -1])
def test_thread_count_below_one_is_refused(num_threads):
    enc = verified_bpe.get_encoding("cl100k_base")
    with pytest.raises(InvalidArgumentError, match="num_threads"):
        enc.encode_ordinary_batch_to_numpy(["a"], num_threads=num_threads)
    with pytest.raises(TypeError, match="num_threads"):
        enc.encode_batch_to_numpy(["a"], num_threads=2.0)


def test_bad_texts_are_named():
    enc = verified_bpe.get_encoding("cl100k_base")
    with pytest.raises(TypeError, match=r"text\[1\]"):
        enc.encode_ordinary_batch_to_numpy(["a", b"b"])
    with pytest.raises(TypeError, match="text"):
        enc.encode_ordinary_batch_to_numpy("one str")


def test_custom_pattern_and_missing_rank():
    """fancy-regex splits, the flat batch merges; a missing rank is the typed error."""
    from verified_bpe.engine.patterns import GPT2_PATTERN
    from verified_bpe.engine.vocab import load_ranks

    ranks = load_ranks("cl100k_base")
    tok = Tokenizer.from_ranks(ranks, GPT2_PATTERN)
    import tiktoken

    oracle = tiktoken.Encoding(
        name="gpt2ish", pat_str=GPT2_PATTERN, mergeable_ranks=ranks, special_tokens={}
    )
    ids, offsets = tok.encode_ordinary_batch_flat(TEXTS, 2)
    got = split(np.frombuffer(ids, np.uint32), np.frombuffer(offsets, np.int64))
    assert got == [oracle.encode_ordinary(t) for t in TEXTS]
    small = Tokenizer.from_ranks({b"a": 0, b"b": 1, b"ab": 2}, r"\S+|\s+")
    with pytest.raises(MissingRankError, match="abc"):
        small.encode_ordinary_batch_flat(["abab"] * 20 + ["abc"] + ["ab"] * 20, 2)


def test_without_numpy_names_the_install(monkeypatch):
    enc = verified_bpe.get_encoding("cl100k_base")
    monkeypatch.setitem(sys.modules, "numpy", None)
    with pytest.raises(MissingExtraError, match="pip install numpy"):
        enc.encode_ordinary_batch_to_numpy(["a"])
    assert enc.encode_ordinary_batch(["a"]) == [[64]]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"allowed_special": {"<|foo|>"}},
        {"allowed_special": {"<|foo|>"}, "disallowed_special": ()},
        {"disallowed_special": {"ell"}},
        {"allowed_special": "all", "disallowed_special": {"<|endoftext|>"}},
        {"allowed_special": "all", "disallowed_special": ()},
    ],
)
def test_same_outcome_as_encode_batch(kwargs):
    """Every special-token argument gives encode_batch's ids or its exception."""
    enc = verified_bpe.get_encoding("cl100k_base")
    texts = ["x<|foo|>", "hello <|endoftext|>", "<|fim_suffix|>"]
    try:
        expected = enc.encode_batch(texts, **kwargs)
    except Exception as exc:  # noqa: BLE001 - compared below
        with pytest.raises(type(exc), match="special token"):
            enc.encode_batch_to_numpy(texts, **kwargs)
    else:
        assert split(*enc.encode_batch_to_numpy(texts, **kwargs)) == expected


def test_many_texts_sharing_pieces():
    """A batch's thread keeps one piece memo across its texts: 2,000 short texts drawn from
    the same multi-token words (merged once, then copied from the memo), and the memo's
    bound crossed (over 2^15 distinct pieces), still tiktoken's ids text by text."""
    import random

    rng = random.Random(32)
    words = [
        "".join(rng.choice("qxzjkvwy") for _ in range(rng.randrange(5, 12))) for _ in range(300)
    ]
    texts = [" ".join(rng.choice(words) for _ in range(rng.randrange(0, 20))) for _ in range(2_000)]
    texts += [" ".join(f"{w}{i:x}zq" for i, w in enumerate(words * 120))]  # 36,000 distinct
    name = "cl100k_base"
    want = tiktoken_encoding(name).encode_ordinary_batch(texts)
    enc = verified_bpe.get_encoding(name)
    for num_threads in (1, 2):
        assert split(*enc.encode_ordinary_batch_to_numpy(texts, num_threads=num_threads)) == want
        assert enc.encode_ordinary_batch(texts, num_threads=num_threads) == want


@pytest.mark.parametrize("name", NAMES)
def test_shared_memos_filled(name):
    """On two or more threads a batch's threads share one piece memo (``shared_memo.rs``):
    short pieces (up to 16 bytes) and longer ones (17 to 64 bytes, not one token), enough
    distinct ones to fill a table past half (the threads' own memos take over), texts
    sharing many of them, and empty texts.  tiktoken's ids text by text on the flat, list
    and Arrow batches, and the shared memo was used (its entries are reported)."""
    import random

    if not native.available():
        pytest.skip("native engine not built")
    rng = random.Random(7)

    def word(lo, hi):
        return "".join(rng.choice("qxzjkvwyab") for _ in range(rng.randrange(lo, hi)))

    short = [word(3, 14) for _ in range(400)]
    long = [word(18, 60) for _ in range(200)]
    texts = [
        " ".join(
            rng.choice(short if rng.random() < 0.8 else long) for _ in range(rng.randrange(30))
        )
        for _ in range(1_500)
    ]
    texts += ["", " ".join(word(3, 14) for _ in range(6_000)), ""]  # fills the short table
    texts += [" ".join(word(18, 60) for _ in range(3_000))]  # fills the long table
    want = tiktoken_encoding(name).encode_ordinary_batch(texts)
    enc = verified_bpe.get_encoding(name)
    bpe = enc._tokenizer._native._bpe
    for num_threads in (2, 3):
        assert split(*enc.encode_ordinary_batch_to_numpy(texts, num_threads=num_threads)) == want
        short_entries, long_entries = bpe.last_shared_memo()
        assert short_entries > 400 and long_entries > 200
        assert enc.encode_ordinary_batch(texts, num_threads=num_threads) == want
        assert min(bpe.last_shared_memo()) > 200
    enc.encode_ordinary_batch_to_numpy(texts, num_threads=1)
    assert bpe.last_shared_memo() == (0, 0)
    try:
        import pyarrow as pa
    except ImportError:
        return
    from verified_bpe.data import count_arrow, encode_arrow

    array = pa.array(texts + [None])
    assert encode_arrow(enc, array, num_threads=2).to_pylist() == want + [None]
    assert min(bpe.last_shared_memo()) > 200
    assert count_arrow(enc, array, num_threads=2).to_pylist() == [len(w) for w in want] + [None]
    empty = pa.array([""] * 5)
    assert encode_arrow(enc, empty, num_threads=2).to_pylist() == [[]] * 5
    assert count_arrow(enc, empty, num_threads=2).to_pylist() == [0] * 5
    assert count_arrow(enc, pa.array([], pa.string()), num_threads=2).to_pylist() == []


def test_unicode_check_kept_for_unpinned_patterns():
    """The per-text Unicode-version check is skipped only for patterns it cannot fail on
    (cl100k_base's, o200k_base's: no unpinned construct); a pattern with ``\\w`` still
    refuses, in a batch, a character whose class differs between ``regex`` and tiktoken."""
    from verified_bpe.api.encoding import Encoding
    from verified_bpe.engine.patterns import unpinned_constructs
    from verified_bpe.errors import PatternUnicodeError

    base = verified_bpe.get_encoding("cl100k_base")
    assert unpinned_constructs(base._pat_str) == ()
    enc = Encoding(
        "w", pat_str=r"\w+|\s+|[^\w\s]+", mergeable_ranks=base._mergeable_ranks, special_tokens={}
    )
    with pytest.raises(PatternUnicodeError, match="U\\+0558"):
        enc.encode_ordinary_batch_to_numpy(["fine", "a\u0558"])
    ids, offsets = enc.encode_ordinary_batch_to_numpy(["fine", "caf\u00e9"])
    assert split(ids, offsets) == [enc.encode_ordinary("fine"), enc.encode_ordinary("caf\u00e9")]
