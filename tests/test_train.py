"""Training (``verified_bpe.api.train``) against independent oracles.

* ``naive_train`` below: minbpe's textbook loop, written here from scratch (recount every pair
  of every chunk at every step, ``max`` over a dict filled in text order, replace left to
  right).  The incremental trainer must produce the same merges, on hypothesis texts and real
  text, for ``BasicTokenizer`` and ``RegexTokenizer``; and encoding the training text must
  give the naive loop's final token sequence.
* tiktoken: an ``Encoding`` built from the trained vocabulary (ranks = ids) must encode every
  text as the trained tokenizer does, for each named split pattern.
* the project's fast engine (``Tokenizer.from_ranks``, heap-based rank merging): same ids.
* roundtrip ``decode(encode(x)) == x`` and ``check_well_formed`` on every trained table.
"""

from __future__ import annotations

import contextlib
import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import read_text, stdlib_python_files, unicode_corpus
from verified_bpe.api.train import BasicTokenizer, RegexTokenizer, train_merges
from verified_bpe.engine.patterns import CL100K_PATTERN, PATTERNS, pre_tokenize_regex
from verified_bpe.errors import DisallowedSpecialTokenError, MalformedVocabError

tiktoken = pytest.importorskip("tiktoken")

Pair = tuple[int, int]


# ---------------------------------------------------------------------------- the oracle
def naive_replace(ids: list[int], pair: Pair, idx: int) -> list[int]:
    out: list[int] = []
    i = 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
            out.append(idx)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def naive_train(chunks: list[bytes], num_merges: int) -> tuple[dict[Pair, int], list[list[int]]]:
    """minbpe's training loop: full recount each step; stops when no pair is left."""
    ids = [list(chunk) for chunk in chunks]
    merges: dict[Pair, int] = {}
    for k in range(num_merges):
        stats: dict[Pair, int] = {}
        for chunk_ids in ids:
            for pair in zip(chunk_ids, chunk_ids[1:], strict=False):
                stats[pair] = stats.get(pair, 0) + 1
        if not stats:
            break
        best = max(stats, key=stats.get)  # the first-inserted pair among equal counts
        merges[best] = 256 + k
        ids = [naive_replace(chunk_ids, best, 256 + k) for chunk_ids in ids]
    return merges, ids


def chunks_of(tokenizer: BasicTokenizer, text: str) -> list[bytes]:
    if isinstance(tokenizer, RegexTokenizer):
        return pre_tokenize_regex(text, tokenizer.pattern)
    return [text.encode("utf-8")] if text else []


def tiktoken_oracle(tokenizer: RegexTokenizer, specials: dict[str, int] | None = None):
    ranks = {token: idx for idx, token in tokenizer.vocab.items()}
    return tiktoken.Encoding(
        name="trained-test",
        pat_str=tokenizer.pattern,
        mergeable_ranks=ranks,
        special_tokens=specials or {},
    )


def trained(cls, text: str, vocab_size: int, **kwargs) -> BasicTokenizer:
    tokenizer = cls(**kwargs)
    tokenizer.train(text, vocab_size)
    return tokenizer


# ---------------------------------------------------------------------------- corpora
def stdlib_sample(n_chars: int, skip: int = 0) -> str:
    files = stdlib_python_files()
    if not files:
        pytest.skip("no CPython standard library sources found")
    text = "".join(read_text(p) for p in files[skip : skip + 40])
    return text[:n_chars]


def non_english_sample(n_chars: int) -> str:
    texts = unicode_corpus()
    if not texts:
        pytest.skip("no non-English text found on this machine")
    return "\n".join(text[: n_chars // len(texts) + 1] for _, text in texts)[:n_chars]


SMALL_ALPHABET = st.sampled_from(["a", "b", "c", " ", "\n", "ab", "é", "1", "'s", "🙂", ".."])
tie_prone_text = st.lists(SMALL_ALPHABET, max_size=60).map("".join)
any_text = st.one_of(st.text(max_size=80), tie_prone_text)
UNSEEN = [
    "",
    "Hello, world! 123456 don't",
    "naïve café, Ünïcödé — “quotes” ½",
    "日本語のテキスト、中文文本，한국어 텍스트",
    "emoji 🙂👍🏽👨‍👩‍👧 flags 🇫🇷 and \u200d joiners",
    "tabs\tand\r\nCRLF\n\n   trailing   ",
    "\x00\x01\x7f control bytes",
]


# ---------------------------------------------------------------------------- vs the oracle
@settings(max_examples=300)
@given(text=any_text, extra=st.integers(0, 40), regex_split=st.booleans())
def test_merges_equal_naive_on_generated_text(text, extra, regex_split):
    cls = RegexTokenizer if regex_split else BasicTokenizer
    tokenizer = trained(cls, text, 256 + extra)
    expected, final_ids = naive_train(chunks_of(tokenizer, text), extra)
    assert list(tokenizer.merges.items()) == list(expected.items())
    assert tokenizer.encode_ordinary(text) == [i for chunk in final_ids for i in chunk]
    assert tokenizer.check_well_formed().ok


@settings(max_examples=300)
@given(
    chunks=st.lists(st.binary(max_size=10).map(lambda b: bytes(x % 3 for x in b)), max_size=12),
    n=st.integers(0, 30),
)
def test_train_merges_equals_naive_on_byte_chunks(chunks, n):
    """Tiny alphabets and repeated chunks: many ties, overlapping pairs (``aaa``), chunk
    weights above one."""
    assert list(train_merges(chunks, n).items()) == list(naive_train(chunks, n)[0].items())


@pytest.mark.parametrize(
    ("cls", "source", "n_chars", "n_merges"),
    [
        (RegexTokenizer, "stdlib", 60_000, 200),
        (RegexTokenizer, "non-english", 12_000, 120),
        (BasicTokenizer, "stdlib", 6_000, 80),
        (BasicTokenizer, "non-english", 4_000, 80),
    ],
)
def test_merges_equal_naive_on_real_text(cls, source, n_chars, n_merges, tally):
    text = stdlib_sample(n_chars) if source == "stdlib" else non_english_sample(n_chars)
    tokenizer = trained(cls, text, 256 + n_merges)
    expected, final_ids = naive_train(chunks_of(tokenizer, text), n_merges)
    assert len(expected) == n_merges
    assert list(tokenizer.merges.items()) == list(expected.items())
    assert tokenizer.encode(text) == [i for chunk in final_ids for i in chunk]
    assert tokenizer.check_well_formed().ok
    tally(f"train vs naive: merges on real text ({cls.__name__})", n_merges)


# ---------------------------------------------------------------------------- hand examples
@pytest.mark.parametrize(
    ("text", "vocab_size", "expected"),
    [
        # all pairs once: the first one in the text wins
        ("xyab", 257, {(120, 121): 256}),
        ("abxyxy", 257, {(120, 121): 256}),  # (x,y) twice beats (a,b) once
        # "aaa" has two overlapping (a,a); merging gives [aa, a], then (aa, a)
        ("aaa", 258, {(97, 97): 256, (256, 97): 257}),
        # runs out of pairs: stops early
        ("ab", 300, {(97, 98): 256}),
        ("", 300, {}),
    ],
)
def test_hand_computed_basic(text, vocab_size, expected):
    assert trained(BasicTokenizer, text, vocab_size).merges == expected


def test_regex_respects_chunk_boundaries():
    # cl100k splits "a b" into "a", " b": the pair (a, space) never counts
    assert trained(RegexTokenizer, "a b", 300).merges == {(32, 98): 256}
    # Basic has no boundaries: (a, space) comes first
    assert trained(BasicTokenizer, "a b", 257).merges == {(97, 32): 256}


def test_vocab_size_below_256_is_rejected():
    with pytest.raises(ValueError):
        BasicTokenizer().train("abc", 255)


def test_training_again_replaces_merges():
    tokenizer = trained(BasicTokenizer, "aaaa", 300)
    tokenizer.train("bcbc", 257)
    assert tokenizer.merges == {(98, 99): 256}
    assert tokenizer.vocab[256] == b"bc"


def test_named_patterns():
    for name, pattern in PATTERNS.items():
        assert RegexTokenizer(name).pattern == pattern
    assert RegexTokenizer().pattern == CL100K_PATTERN
    assert RegexTokenizer(r"\w+|\W").pattern == r"\w+|\W"


# ---------------------------------------------------------------------------- roundtrip
@pytest.fixture(scope="module")
def stdlib_regex() -> RegexTokenizer:
    return trained(RegexTokenizer, stdlib_sample(60_000), 600)


@pytest.fixture(scope="module")
def stdlib_basic() -> BasicTokenizer:
    return trained(BasicTokenizer, stdlib_sample(8_000), 400)


@pytest.mark.parametrize("text", UNSEEN)
def test_roundtrip_unseen(stdlib_regex, stdlib_basic, text):
    for tokenizer in (stdlib_regex, stdlib_basic):
        ids = tokenizer.encode(text)
        assert tokenizer.decode(ids) == text
        assert tokenizer.decode_bytes(ids) == text.encode("utf-8")


@given(text=any_text)
def test_roundtrip_generated(stdlib_regex, stdlib_basic, text):
    for tokenizer in (stdlib_regex, stdlib_basic):
        assert tokenizer.decode(tokenizer.encode(text), errors="strict") == text


def test_roundtrip_training_and_unseen_real_text(stdlib_regex):
    for text in (stdlib_sample(60_000), stdlib_sample(30_000, skip=60), non_english_sample(20_000)):
        assert stdlib_regex.decode(stdlib_regex.encode(text)) == text


def test_trained_tables_are_well_formed(stdlib_regex, stdlib_basic):
    for tokenizer in (stdlib_regex, stdlib_basic):
        result = tokenizer.check_well_formed()
        assert result.ok, result.reason
        assert len(tokenizer.vocab) == 256 + len(tokenizer.merges)


# ---------------------------------------------------------------------------- vs tiktoken
@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_encode_equals_tiktoken(name, tally):
    train_text = stdlib_sample(25_000) + non_english_sample(5_000)
    tokenizer = trained(RegexTokenizer, train_text, 450, pattern=name)
    oracle = tiktoken_oracle(tokenizer)
    texts = [train_text, stdlib_sample(15_000, skip=80), non_english_sample(8_000), *UNSEEN]
    n = 0
    for text in texts:
        ids = tokenizer.encode(text)
        assert ids == oracle.encode_ordinary(text)
        n += len(ids)
    tally(f"train vs tiktoken: tokens ({name})", n)


@settings(max_examples=150)
@given(text=any_text)
def test_encode_equals_tiktoken_generated(stdlib_regex, text):
    assert stdlib_regex.encode(text) == tiktoken_oracle(stdlib_regex).encode_ordinary(text)


def test_encode_equals_fast_engine(stdlib_regex):
    fast = stdlib_regex.to_tokenizer()
    for text in (stdlib_sample(30_000, skip=100), non_english_sample(10_000), *UNSEEN):
        assert stdlib_regex.encode(text) == fast.encode_ordinary(text)


# ---------------------------------------------------------------------------- special tokens
def test_special_tokens_match_tiktoken():
    tokenizer = trained(RegexTokenizer, stdlib_sample(20_000), 400)
    specials = {"<|endoftext|>": 1000, "<|fim|>": 1001}
    tokenizer.register_special_tokens(specials)
    oracle = tiktoken_oracle(tokenizer, specials)
    text = "def f():<|endoftext|>  return 1<|fim|><|fim|>x"
    ids = tokenizer.encode(text, allowed_special="all")
    assert ids == oracle.encode(text, allowed_special="all")
    assert tokenizer.decode(ids) == text
    assert tokenizer.encode(text, allowed_special="none") == oracle.encode_ordinary(text)
    assert tokenizer.encode(text, allowed_special={"<|fim|>"}) == oracle.encode(
        text, allowed_special={"<|fim|>"}, disallowed_special=()
    )
    with pytest.raises(DisallowedSpecialTokenError):
        tokenizer.encode(text)
    with pytest.raises(MalformedVocabError):
        tokenizer.register_special_tokens({"<|clash|>": 300})


# ---------------------------------------------------------------------------- verbose
def run_quietly(cls, text: str, vocab_size: int, verbose: bool) -> tuple[BasicTokenizer, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        tokenizer = cls()
        tokenizer.train(text, vocab_size, verbose=verbose)
    return tokenizer, out.getvalue()


@settings(max_examples=50)
@given(text=any_text, extra=st.integers(0, 20), regex_split=st.booleans())
def test_not_verbose_prints_nothing(text, extra, regex_split):
    cls = RegexTokenizer if regex_split else BasicTokenizer
    _, printed = run_quietly(cls, text, 256 + extra, verbose=False)
    assert printed == ""


def test_verbose_prints_one_line_per_merge():
    tokenizer, printed = run_quietly(RegexTokenizer, stdlib_sample(5_000), 300, verbose=True)
    lines = printed.splitlines()
    assert len(lines) == len(tokenizer.merges) + 1
    assert lines[0].startswith("merge 1/44: ")
