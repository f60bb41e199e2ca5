"""The native engine (``rust/``, ``verified_bpe._native``) against independent oracles:

* its character classes against the generated Python tables, on every code point;
* its pre-tokenizers against the spec mirror (``spec.unicode.cl100k`` / ``o200k``, the Python
  mirror of the Lean machines) on any bytes, invalid UTF-8 included, and on the probe strings
  of every class-boundary code point;
* its encoder against tiktoken on the probe strings of every class-boundary code point;
* its two merge algorithms against tiktoken's ``_encode_single_piece`` and against the
  brute-force definition of rank BPE on tables full of ties;
* the Rust sources mirror the Lean modules (every definition, in order, under its snake_case
  name);
* fallback: without the extension the package works on the pure-Python engine and says so once.

The token-for-token comparisons on hypothesis texts and corpora are in
``tests/test_tokenizer_differential.py`` (the ``native`` engine is one of its engines).
"""

from __future__ import annotations

import re
import warnings
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verified_bpe.engine import native

if not native.available():  # pragma: no cover - an install without cargo
    pytest.skip("the native engine is not built", allow_module_level=True)

from test_engine_heap import brute_force  # noqa: E402 - rank BPE by its definition
from verified_bpe.engine.patterns import R50K_PATTERN  # noqa: E402
from verified_bpe.engine.tokenizer import Tokenizer, bpe_ranks  # noqa: E402
from verified_bpe.engine.vocab import load_ranks, tiktoken_encoding  # noqa: E402
from verified_bpe.errors import MissingRankError  # noqa: E402
from verified_bpe.spec.unicode import tables as unicode_tables  # noqa: E402
from verified_bpe.spec.unicode.cl100k import next_chunk_len as cl100k_next_chunk_len  # noqa: E402
from verified_bpe.spec.unicode.cl100k import pre_tokenize_cl100k  # noqa: E402
from verified_bpe.spec.unicode.llama3 import next_chunk_len as llama3_next_chunk_len  # noqa: E402
from verified_bpe.spec.unicode.llama3 import next_chunk_len_meta as llama3_meta_next_chunk_len  # noqa: E402
from verified_bpe.spec.unicode.llama3 import pre_tokenize_llama3, pre_tokenize_llama3_meta  # noqa: E402
from verified_bpe.spec.unicode.o200k import next_chunk_len as o200k_next_chunk_len  # noqa: E402
from verified_bpe.spec.unicode.o200k import pre_tokenize_o200k  # noqa: E402
from verified_bpe.spec.unicode.r50k import next_chunk_len as r50k_next_chunk_len  # noqa: E402
from verified_bpe.spec.unicode.r50k import pre_tokenize_r50k  # noqa: E402
from verified_bpe.verify import unicode_classes, unicode_scan  # noqa: E402

_native = native.module()
NAMES = ("cl100k_base", "o200k_base")
#: the native pre-tokenizers (r50k_base's and Llama 3's rank files are not shipped offline:
#: split tests only)
SPLIT_NAMES = (*NAMES, "r50k_base", "llama3", "llama3_meta")
SPEC_SPLIT = {
    "cl100k_base": pre_tokenize_cl100k,
    "o200k_base": pre_tokenize_o200k,
    "r50k_base": pre_tokenize_r50k,
    "llama3": pre_tokenize_llama3,
    "llama3_meta": pre_tokenize_llama3_meta,
}
SPEC_NEXT = {
    "cl100k_base": cl100k_next_chunk_len,
    "o200k_base": o200k_next_chunk_len,
    "r50k_base": r50k_next_chunk_len,
    "llama3": llama3_next_chunk_len,
    "llama3_meta": llama3_meta_next_chunk_len,
}
REPO = Path(__file__).resolve().parent.parent
LEAN_UNICODE = REPO / "lean" / "Bpe" / "Unicode"
RUST_UNICODE = REPO / "rust" / "src" / "unicode"


@cache
def merger(name: str) -> native.NativeMerger:
    return native.NativeMerger(load_ranks(name), tiktoken_encoding(name)._pat_str)


# ---------------------------------------------------------------------------- classes
@pytest.mark.parametrize("cls", unicode_classes.CLASSES, ids=lambda c: c.py_name)
def test_classes_on_every_code_point(cls):
    """The Rust ``is_*`` (ASCII mask + range search) holds exactly the ranges of the Python
    table, read over all of ``0..=0x10FFFF``."""
    expected = [tuple(r) for r in getattr(unicode_tables, f"{cls.py_name.upper()}_RANGES")]
    assert [tuple(r) for r in _native.class_ranges(cls.py_name)] == expected


# ---------------------------------------------------------------------------- pre-tokenizers
@pytest.mark.parametrize("name", SPLIT_NAMES)
@settings(max_examples=300)
@given(data=st.binary(max_size=200))
def test_pre_tokenize_any_bytes_vs_spec(name, data):
    """Any bytes, most of them not UTF-8: the chunks of the spec mirror."""
    assert _native.pre_tokenize(name, data) == SPEC_SPLIT[name](data)


@pytest.mark.parametrize("name", SPLIT_NAMES)
@settings(max_examples=300)
@given(text=st.text(max_size=200))
def test_pre_tokenize_text_vs_spec(name, text):
    data = text.encode("utf-8", "surrogatepass")
    assert _native.pre_tokenize(name, data) == SPEC_SPLIT[name](data)


@pytest.mark.parametrize("name", SPLIT_NAMES)
@given(cps=st.lists(st.integers(0, 0x10FFFF), max_size=20), i=st.integers(0, 22))
def test_next_chunk_len_vs_spec(name, cps, i):
    """``nextChunkLen`` on code points, positions past the end included."""
    assert _native.next_chunk_len(name, cps, i) == SPEC_NEXT[name](cps, i)


@cache
def boundary_code_points() -> list[int]:
    """Both sides of every range edge of every class (the CI subset of the exhaustive scan,
    ``python -m verified_bpe.verify.unicode_gen --scan --engine native``)."""
    edges: set[int] = set()
    for cls in unicode_classes.CLASSES:
        for lo, hi in getattr(unicode_tables, f"{cls.py_name.upper()}_RANGES"):
            edges |= {lo - 1, lo, hi, hi + 1}
    return sorted(
        cp for cp in edges if 0 <= cp <= 0x10FFFF and cp not in unicode_classes.SURROGATES
    )


@pytest.mark.parametrize("name", NAMES)
def test_class_boundaries_vs_tiktoken_and_spec(name, tally):
    """Every class-boundary code point in the four probe strings of the exhaustive scan:
    the native ids equal tiktoken's, and the native chunks the spec mirror's."""
    cps = boundary_code_points()
    assert len(cps) > 4000
    tok = Tokenizer.from_tiktoken(name, engine="native")
    oracle = tiktoken_encoding(name)
    assert unicode_scan.disagreeing(tok.encode_ordinary, oracle.encode_ordinary, cps) == []
    split, spec = (lambda s: _native.pre_tokenize(name, s.encode())), SPEC_SPLIT[name]
    probes = unicode_scan.probes
    wrong = [cp for cp in cps if any(split(p) != spec(p.encode()) for p in probes(chr(cp)))]
    assert wrong == []
    tally(f"native class-boundary code points {name}", len(cps))


@pytest.mark.parametrize("name", ["r50k_base", "llama3"])
def test_split_only_class_boundaries_vs_spec(name, tally):
    """r50k_base and Llama 3: 1,000 class-boundary code points (a fixed sample; the 4,816 all
    pass, 4 s each) in the four probe strings of the exhaustive scan, the native chunks are the
    spec mirror's (which ``tests/test_regex_r50k_llama3.py`` ties to tiktoken's own split).
    Meta's machine shares every branch but the contractions with Llama 3's (its native chunks
    are checked on random bytes and text above, and on its contraction cases by
    ``test_meta_pattern_takes_the_proven_machine``)."""
    import random

    cps = random.Random(50).sample(boundary_code_points(), 1000)
    split, spec = (lambda s: _native.pre_tokenize(name, s.encode())), SPEC_SPLIT[name]
    probes = unicode_scan.probes
    wrong = [cp for cp in cps if any(split(p) != spec(p.encode()) for p in probes(chr(cp)))]
    assert wrong == []
    tally(f"native class-boundary code points {name}", len(cps))


def test_r50k_native_ids_vs_tiktoken():
    """GPT-2's pattern (tiktoken 0.14's ``r50k_pat_str``) runs on the native machine, over a
    text longer than a block with a white-space run before the place the other patterns cut
    (``"  \\n"`` then a letter: one chunk if the block ended there): tiktoken's ids."""
    tiktoken = pytest.importorskip("tiktoken")
    ranks = {bytes([b]): b for b in range(256)}
    for token in (b"  ", b"  \n", b"xx", b" a", b"bc"):
        ranks[token] = len(ranks)
    tok = Tokenizer.from_ranks(ranks, R50K_PATTERN, engine="native")
    assert tok._native is not None and tok._native.pre_tokenizer == "r50k_base"
    oracle = tiktoken.Encoding(
        "r50k", pat_str=R50K_PATTERN, mergeable_ranks=ranks, special_tokens={}
    )
    for text in ("x" * 8195 + "  \nabc", ("Grüße 世界 can't\n  x" * 600) + "  \nab  \n"):
        assert tok.encode_ordinary(text) == oracle.encode_ordinary(text)


# ---------------------------------------------------------------------------- merges
TIE_RANKS = {bytes([b]): b for b in range(256)}
for _token in (b"ab", b"ba", b"aa", b"bb", b"aab", b"abab", b"bab", b"aaaa", b"abba", b"baab"):
    TIE_RANKS[_token] = len(TIE_RANKS)


@pytest.mark.parametrize("algorithm", ["scan", "heap", "buckets"])
@settings(max_examples=300)
@given(piece=st.lists(st.sampled_from(b"ab"), min_size=1, max_size=300).map(bytes))
def test_merge_algorithms_vs_brute_force(algorithm, piece):
    m = native.NativeMerger(TIE_RANKS, "")
    assert m.bpe(piece, algorithm) == brute_force(TIE_RANKS, piece)


#: tokens that differ only by trailing NUL bytes, and runs across the 16-byte limit of the
#: rank index's inline keys (`RankIndex`, `SHORT_KEY` in rust/src/ranks.rs; "auto" uses it)
NUL_RANKS = {bytes([b]): b for b in range(256)}
for _k in range(2, 19):
    for _token in (b"\0" * _k, b"a" * _k, b"a" + b"\0" * (_k - 1), b"\0" * (_k - 1) + b"a"):
        NUL_RANKS.setdefault(_token, len(NUL_RANKS))


@pytest.mark.parametrize("algorithm", ["scan", "heap", "buckets", "auto"])
@settings(max_examples=200)
@given(piece=st.lists(st.sampled_from(b"a\0"), min_size=1, max_size=40).map(bytes))
def test_inline_keys_vs_brute_force(algorithm, piece):
    m = native.NativeMerger(NUL_RANKS, "")
    assert m.bpe(piece, algorithm) == brute_force(NUL_RANKS, piece)
    for k in range(1, 19):  # every token is found whole, on each side of the inline limit
        for token in (b"\0" * k, b"a" + b"\0" * (k - 1)):
            assert m.bpe(token, algorithm) == [NUL_RANKS[token]]


@pytest.mark.parametrize("algorithm", ["scan", "heap", "buckets", "auto"])
@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=100)
@given(
    piece=st.one_of(
        st.binary(min_size=1, max_size=300),
        st.text(min_size=1, max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass")),
    )
)
def test_merge_algorithms_vs_tiktoken(name, algorithm, piece):
    expected = tiktoken_encoding(name)._encode_single_piece(piece)
    assert merger(name).bpe(piece, algorithm) == expected


@pytest.mark.parametrize("name", NAMES)
def test_rank_index_finds_every_token(name):
    """The engine's merge ("auto": the rank index, with tokens of up to 16 bytes inline behind
    a Bloom filter) gives every token of the table its own rank, and on 4,000 tokens (seeded
    sample, every length) with a byte more or less at either end (mostly not tokens) the heap
    merge's ids (the heap looks ranks up in the table itself)."""
    import random

    ranks = load_ranks(name)
    m = merger(name)
    for token, rank in ranks.items():
        assert m.bpe(token) == [rank], token
    for token in random.Random(32).sample(list(ranks), 4_000):
        for piece in (token[1:], token[:-1], b"\0" + token, token + b"\0"):
            if piece:
                assert m.bpe(piece) == m.bpe(piece, "heap"), piece


@pytest.mark.parametrize("name", NAMES)
def test_long_pieces_vs_python_engine(name):
    """Long single pieces (runs, repeated words, random letters): the bucket queue and the
    heap against the pure Python engine's merge (itself tested against tiktoken), 20k-100k
    bytes each."""
    import random

    rng = random.Random(25)
    letters = bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyz") for _ in range(20_000))
    ranks = load_ranks(name)
    for piece in (b"x" * 100_000, b" " * 100_000, b"ab" * 20_000, letters):
        expected = bpe_ranks(ranks, piece)
        assert merger(name).bpe(piece) == expected
        assert merger(name).bpe(piece, "heap") == expected


@pytest.mark.parametrize("name", NAMES)
def test_huge_text_vs_python_engine(name):
    """Over 1 MB of mixed text (several blocks; a million-character run at the end): the
    native ids are the fast engine's."""
    text = (REPO / "python" / "verified_bpe" / "engine" / "tokenizer.py").read_text() * 20
    text += "Grüße 世界 can't\n" * 2000 + "x" * 300_000
    ours = Tokenizer.from_tiktoken(name, engine="native").encode_ordinary(text)
    assert ours == Tokenizer.from_tiktoken(name, engine="fast").encode_ordinary(text)


def test_missing_rank_is_a_typed_error():
    ranks = {b"a": 0, b"b": 1, b"ab": 2}
    tok = Tokenizer.from_ranks(ranks, r"\S+|\s+", engine="native")
    assert tok.encode_ordinary("abab") == [2, 2]
    with pytest.raises(MissingRankError, match="abc") as info:
        tok.encode_ordinary("abc")
    assert isinstance(info.value, KeyError)
    # the batch raises the same error, whichever thread meets the text
    with pytest.raises(MissingRankError, match="abc"):
        tok.encode_ordinary_batch(["abab"] * 20 + ["abc"] + ["ab"] * 20, num_threads=2)


@pytest.mark.parametrize("name", NAMES)
def test_batch_reads_texts_in_place(name):
    """The batch reads each str's UTF-8 in place: every kind of CPython string (ASCII,
    Latin-1, 2- and 4-byte code points, a str subclass, a lone surrogate among valid texts)
    gives tiktoken's ids, and a non-str names the argument."""

    class Sub(str):
        pass

    tok = Tokenizer.from_tiktoken(name, engine="native")
    texts = [
        "plain ascii",
        "caf\u00e9 cr\u00e8me",
        "\u65e5\u672c\u8a9e",
        "\U0001f600 ok",
        Sub("sub class"),
        "a\udc80b",
        "",
        "x" * 70_000,
    ]
    assert tok.encode_ordinary_batch(texts, num_threads=3) == [
        tiktoken_encoding(name).encode_ordinary(t) for t in texts
    ]
    with pytest.raises(TypeError, match="text"):
        tok.encode_ordinary_batch(["a", b"b"], num_threads=2)  # type: ignore[list-item]


def test_rank_outside_u32_is_a_typed_error():
    from verified_bpe.errors import MalformedVocabError

    with pytest.raises(MalformedVocabError, match="native"):
        native.NativeMerger({b"a": 1 << 40}, "")


def test_custom_pattern_splits_by_fancy_regex_merges_natively():
    """GPT-2's pattern on cl100k's ranks: split by fancy-regex in the crate, the native
    merge; ids equal to tiktoken with the same pattern and ranks (more in
    ``tests/test_native_fancy.py``)."""
    import tiktoken

    from verified_bpe.engine.patterns import GPT2_PATTERN

    ranks = load_ranks("cl100k_base")
    tok = Tokenizer.from_ranks(ranks, GPT2_PATTERN, engine="native")
    assert tok._native is not None and tok._native.pre_tokenizer is None
    assert tok._native.regex_split
    oracle = tiktoken.Encoding(
        name="gpt2ish", pat_str=GPT2_PATTERN, mergeable_ranks=ranks, special_tokens={}
    )
    text = "Hello  world's 12345\n\n  Grüße, 世界!\t x" * 50
    assert tok.encode_ordinary(text) == oracle.encode_ordinary(text)


@pytest.mark.parametrize("name", NAMES)
def test_batch_equals_one_by_one(name):
    tok = Tokenizer.from_tiktoken(name, engine="native")
    texts = [f"text {i}: Grüße \ud800 {'x' * i}" for i in range(50)]
    assert tok.encode_ordinary_batch(texts, num_threads=4) == [
        tiktoken_encoding(name).encode_ordinary(t) for t in texts
    ]


def test_special_tokens_follow_tiktoken():
    tok = Tokenizer.from_tiktoken("cl100k_base", engine="native")
    oracle = tiktoken_encoding("cl100k_base")
    text = "a<|endoftext|>b <|fim_prefix|>"
    assert tok.encode(text, allowed_special="all") == oracle.encode(text, allowed_special="all")


def test_native_tokenizer_pickles():
    import pickle

    tok = Tokenizer.from_tiktoken("o200k_base", engine="native")
    back = pickle.loads(pickle.dumps(tok))
    text = "Grüße, 世界! can't 12345"
    assert back.engine == "native" and back._native is not None
    assert back.encode_ordinary(text) == tiktoken_encoding("o200k_base").encode_ordinary(text)


# ---------------------------------------------------------------------------- default, fallback
def test_native_is_the_default():
    assert Tokenizer.from_tiktoken("cl100k_base").engine == "native"


def test_without_the_extension_falls_back_with_one_warning(monkeypatch):
    monkeypatch.setattr(native, "_native", None)
    monkeypatch.setattr(native, "_warned", False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = Tokenizer.from_ranks(TIE_RANKS, r"\S+|\s+")
        second = Tokenizer.from_ranks(TIE_RANKS, r"\S+|\s+")
    assert first.engine == second.engine == "fast"
    assert [w.category for w in caught] == [native.NativeEngineMissingWarning]
    assert first.encode_ordinary("abab") == brute_force(TIE_RANKS, b"abab")


# ---------------------------------------------------------------------------- mirror
RUST_FILES = {"PreTokenize": "pretokenize"}  # the Python mirror's file name
RUST_FN = re.compile(r"^pub fn (\w+)", re.M)
LEAN_DEF = re.compile(r"^(?:@\[[^\]]*\]\s*)?(?:private |noncomputable )*def\s+([^\s(:{\[]+)", re.M)


def snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


@pytest.mark.parametrize("module", ["RangeTree", "Tables", "PreTokenize", "Cl100k", "O200k"])
def test_rust_mirrors_lean_in_order(module):
    """Every definition of the Lean module has a Rust function of the same snake_case name in
    ``rust/src/unicode/<module>.rs``, in the same order; each Rust function cites its Lean
    definition."""
    if not LEAN_UNICODE.is_dir():  # pragma: no cover
        pytest.skip("Lean sources not found")
    lean = [snake(n) for n in LEAN_DEF.findall((LEAN_UNICODE / f"{module}.lean").read_text())]
    source = (RUST_UNICODE / f"{RUST_FILES.get(module, snake(module))}.rs").read_text()
    rust = RUST_FN.findall(source)
    missing = [n for n in lean if n not in rust]
    assert not missing, f"Bpe.Unicode.{module}: no Rust function for {missing}"
    assert [n for n in rust if n in lean] == lean
    for name in lean:
        lean_name = re.sub(r"_([a-z0-9])", lambda m: m.group(1).upper(), name)
        assert f"Bpe.Unicode.{module}.{lean_name}`" in source, name


@pytest.mark.parametrize("name", NAMES)
def test_piece_memo_overflow_vs_tiktoken(name):
    """More distinct multi-token pieces than the per-call memo holds (it is cleared at 2^15
    entries and refilled): the ids stay tiktoken's."""
    import random

    rng = random.Random(2515)
    words = ["".join(rng.choice("bcdfghjkqvwxz") for _ in range(7)) for _ in range(60_000)]
    text = " ".join(words + words[:5000])
    ours = Tokenizer.from_tiktoken(name, engine="native").encode_ordinary(text)
    assert ours == tiktoken_encoding(name).encode_ordinary(text)


@pytest.mark.parametrize("name", NAMES)
def test_id_lists_are_fresh_lists_of_shared_ints(name):
    """`encode_ordinary`'s list (built by `PyList::new` over the instance's shared int objects):
    tiktoken's ids, exact `int`s, a new list on every call, and no reference count gained or
    lost on the shared ints after the lists are gone."""
    import sys

    text = "def f(x):\n    return x + 1  # é 世界 😀\n" * 50
    expected = tiktoken_encoding(name).encode_ordinary(text)
    bpe = merger(name)
    first = bpe.encode_ordinary(text)
    probe = first[1]  # an id >= 256: one of the instance's ints, not CPython's small ints
    assert probe >= 256
    before = sys.getrefcount(probe)
    lists = [bpe.encode_ordinary(text) for _ in range(20)]
    assert sys.getrefcount(probe) > before
    for ids in lists:
        assert type(ids) is list
        assert ids == expected
        assert all(type(i) is int for i in ids)
    lists[0].append(-1)
    assert lists[1] == expected
    del lists, ids
    assert sys.getrefcount(probe) == before
    assert first == expected


@pytest.mark.parametrize("name", NAMES)
def test_presized_memo_vs_tiktoken(name):
    """Texts of many sizes around the short memo's starting sizes (one slot per 16 bytes of
    text, 256 to 32,768 slots), full of distinct short pieces (so a presized table still grows,
    and the largest is emptied at its limit), some sharing their first 8 bytes: tiktoken's
    ids."""
    import random

    rng = random.Random(3216)
    bpe = merger(name)
    enc = tiktoken_encoding(name)

    def word() -> str:
        tail = "".join(rng.choice("bcdfghjkqvwxz") for _ in range(rng.randint(1, 7)))
        return rng.choice(["", " ", " ", " xyzzyqwv", "Plugh"]) + tail

    for size in (1, 15, 16, 17, 4095, 4096, 4097, 65_537, 600_000):
        text = "".join(word() for _ in range(size // 5 + 1))[:size]
        assert bpe.encode_ordinary(text) == enc.encode_ordinary(text), size


@pytest.mark.parametrize("num_threads", [1, 2, 3, 8])
def test_list_batch_reads_while_encoding(num_threads):
    """The native list batch reads the texts' UTF-8 (under the GIL) while its other threads
    encode the texts already read: fresh strings (no cached UTF-8) of every width give
    tiktoken's ids, and a lone surrogate anywhere (first, middle, last text; the native
    batch, not the wrapper that replaces them) raises UnicodeEncodeError naming its
    character, whichever texts the other threads had encoded, with both the list and the
    flat batch."""
    import random

    name = "o200k_base"
    bpe = Tokenizer.from_tiktoken(name, engine="native")._native._bpe
    oracle = tiktoken_encoding(name)
    rng = random.Random(11)
    pool = ["x = 1\n", "caf\u00e9 ", "\u65e5\u672c\u8a9e", "\U0001f600 ", "  \n", "hello world"]

    def fresh(count: int) -> list[str]:  # built here: CPython has not cached their UTF-8
        return [
            "".join(rng.choice(pool) for _ in range(rng.randrange(0, 300))) for _ in range(count)
        ]

    texts = fresh(120)
    assert bpe.encode_ordinary_batch(texts, num_threads) == [
        oracle.encode_ordinary(t) for t in texts
    ]
    for at in (0, 37, 119):
        texts = fresh(120)
        texts[at] = texts[at] + "\ud800" + texts[at]
        with pytest.raises(UnicodeEncodeError, match="ud800"):
            bpe.encode_ordinary_batch(texts, num_threads)
        with pytest.raises(UnicodeEncodeError, match="ud800"):
            bpe.encode_ordinary_batch_flat(texts, num_threads)
    assert bpe.encode_ordinary_batch([], num_threads) == []
