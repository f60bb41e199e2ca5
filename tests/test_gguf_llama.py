"""llama.cpp's own vocabulary files and test vectors (from the llama-cpp-python sdist, fetched
once by :mod:`verified_bpe.verify.testdata`, hash-checked; a failed download fails the tests).

The oracle is the ``.out`` files: the ids the reference tokenizers give (llama.cpp's
``tests/test-tokenizer-0`` checks the same vectors).  Decoding gives the text back."""

from __future__ import annotations

import http.server
import threading
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import UNICODE_SNIPPETS
from verified_bpe.engine.merge_list import merge_list_bpe, pair_ranks
from verified_bpe.engine.patterns import R50K_PATTERN, split_sequence
from verified_bpe.engine.tokenizer import Tokenizer
from verified_bpe.errors import (
    InvalidArgumentError,
    UnencodableBytesError,
    UnsupportedGgufModelError,
)
from verified_bpe.formats.gguf_spm import SentencePieceBpeTokenizer
from verified_bpe.formats.gguf_vocab import (
    LlamaCppTokenizer,
    llama_tokenizer_from_gguf,
    read_gguf_vocab,
    tokenizer_from_gguf,
)
from verified_bpe.spec.ranks.basic import encode_piece_ranks
from verified_bpe.spec.ranks.check import check_two_parts
from verified_bpe.spec.ranks.whole_pieces import check_ranks_decode
from verified_bpe.spec.seed.encode import encode_chunk
from verified_bpe.verify import testdata

#: every byte-level BPE file of the sdist (``tokenizer.ggml.model == "gpt2"``), with the
#: number of its test vectors
BYTE_LEVEL = {
    "gpt-2": 46,
    "llama-bpe": 46,
    "qwen2": 46,
    "qwen35": 50,
    "deepseek-coder": 46,
    "deepseek-llm": 46,
    "falcon": 46,
    "mpt": 46,
    "starcoder": 46,
    "refact": 46,
    "command-r": 46,
    "gpt-neox": 0,
    "aquila": 0,
}
#: SentencePiece BPE files (``tokenizer.ggml.model == "llama"``), with their vector counts
SENTENCEPIECE = {"llama-spm": 46, "phi-3": 46, "baichuan": 0}
OTHER = {
    "bert-bge": "bert",
    "nomic-bert-moe": "t5",
    "gemma-4": "gemma4",
}

EXTRA_TEXTS = [
    "Hello, world! It's 2024; the quick brown fox jumps over 13 lazy dogs.\n\n",
    "def f(x):\n    return x ** 2  # square\n\t\r\n",
    "中文字符和日本語のテキスト、한국어 문장도 있습니다。",
    "naïve café Ωμέγα Привет עברית مرحبا हिन्दी 😀👍🏽 e\u0301",
    "   leading and trailing spaces   \n\n\n   ",
    "I'm you'll WE'VE they'd SHE'S 1234567890 $x+y<=z^2~|`",
]


@cache
def tokenizer(name: str) -> LlamaCppTokenizer:
    return llama_tokenizer_from_gguf(testdata.vocab_path(name))


def test_sdist_is_the_published_one():
    path = testdata.fetch_sdist()
    assert path.stat().st_size == testdata.SDIST_SIZE
    assert testdata.sha256_file(path) == testdata.SDIST_SHA256


def test_every_file_is_classified():
    assert sorted(testdata.model_names()) == sorted([*BYTE_LEVEL, *SENTENCEPIECE, *OTHER])


@pytest.mark.parametrize("name", sorted(BYTE_LEVEL))
def test_vectors(name):
    """Every vector equals its ``.out``, and decoding gives the text back."""
    vectors = testdata.read_vectors(name)
    assert len(vectors) == BYTE_LEVEL[name]
    tok = tokenizer(name)
    for text, ids in vectors:
        assert tok.encode(text) == ids, text
        assert tok.decode_bytes(ids) == text.encode("utf-8")
    for text in EXTRA_TEXTS:  # no vectors for gpt-neox and aquila: the roundtrip at least
        assert tok.decode(tok.encode(text)) == text
    assert tok.dropped_bytes == 0


def test_missing_single_bytes():
    """falcon has no token for byte 0x03: llama.cpp drops it; here that is an error naming the
    byte unless asked to drop it.  Printable ASCII bytes fall back to their own tokens."""
    path = testdata.vocab_path("falcon")
    tok = tokenizer("falcon")
    with pytest.raises(UnencodableBytesError, match="byte 0x03") as info:
        tok.encode("a\x03b")
    assert info.value.byte == 3 and str(path) in str(info.value)
    lossy = llama_tokenizer_from_gguf(path, drop_missing_bytes=True)
    ids = lossy.encode("a\x03b")
    assert lossy.decode_bytes(ids) == b"ab" and lossy.dropped_bytes == 1
    lossy.encode("a\x03b")  # not cached: counted again
    assert lossy.dropped_bytes == 2


#: Original (Hugging Face) pre-tokenizer regexes, as tiktoken runs them: independent of the
#: llama.cpp regex sequences in engine/patterns.py.
TIKTOKEN_EQUIVALENT = {
    "gpt-2": R50K_PATTERN,
    "llama-bpe": r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"""
    r"""| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
}


@cache
def tiktoken_oracle(name: str):
    """tiktoken on the file's normal tokens with rank = id: gpt-2 is r50k_base, and Llama 3's
    vocabulary is a tiktoken rank file (its GGUF merge list is redundant, its ids are the
    ranks), so tiktoken is an oracle for merge-list BPE + ``ignore_merges`` there."""
    tiktoken = pytest.importorskip("tiktoken")
    vocab = read_gguf_vocab(testdata.vocab_path(name))
    return tiktoken.Encoding(
        name=f"{name}-gguf-oracle",
        pat_str=TIKTOKEN_EQUIVALENT[name],
        mergeable_ranks=vocab.ranks,
        special_tokens={},
    )


@pytest.mark.parametrize("name", sorted(TIKTOKEN_EQUIVALENT))
def test_equals_tiktoken_on_corpora(name, stdlib_corpus, tally):
    from conftest import cjk_texts, locale_texts

    docs = [t for _, t in stdlib_corpus[:15] + cjk_texts() + locale_texts(5_000)]
    tok, ref = tokenizer(name), tiktoken_oracle(name)
    for doc in docs:
        assert tok.encode(doc) == ref.encode_ordinary(doc)
    tally(f"gguf {name} vs tiktoken: texts", len(docs))


@pytest.mark.parametrize("name", sorted(TIKTOKEN_EQUIVALENT))
@settings(max_examples=150, deadline=None)
@given(
    text=st.lists(
        st.one_of(st.sampled_from(UNICODE_SNIPPETS), st.text(max_size=4)), max_size=12
    ).map("".join)
)
def test_equals_tiktoken_hypothesis(name, text):
    text = text.encode("utf-8", "replace").decode("utf-8")  # no lone surrogates
    assert tokenizer(name).encode(text) == tiktoken_oracle(name).encode_ordinary(text)


def test_special_tokens_as_llama_cpp():
    """qwen2: ``<|im_start|>`` is a control token (cut only with ``parse_special``),
    ``[PAD151646]`` a user-defined one (always cut first, as llama.cpp and Hugging Face do);
    the text around them is encoded as if alone."""
    tok = tokenizer("qwen2")
    assert tok.vocab.tokens[151644] == "<|im_start|>" and 151644 not in tok.vocab.user_defined
    assert tok.vocab.tokens[151646] == "[PAD151646]" and 151646 in tok.vocab.user_defined
    text = "a<|im_start|>b [PAD151646]c"
    plain = tok.encode(text)
    assert 151644 not in plain and tok.decode(plain) == text
    assert plain == [*tok.encode("a<|im_start|>b "), 151646, *tok.encode("c")]
    assert tok.encode(text, parse_special=True) == [
        *tok.encode("a"),
        151644,
        *tok.encode("b "),
        151646,
        *tok.encode("c"),
    ]
    assert tok.encode(text, parse_special={"<|im_start|>"}) == tok.encode(text, parse_special=True)
    assert 151644 not in tok.encode("<|im_start|>", parse_special={"<|endoftext|>"})
    with pytest.raises(InvalidArgumentError, match="'<nope>' is not a special token"):
        tok.encode(text, parse_special={"<nope>"})
    assert tok.user_defined_tokens["[PAD151646]"] == 151646


@pytest.mark.parametrize("name", sorted(SENTENCEPIECE))
def test_sentencepiece_vectors(name):
    """SentencePiece BPE with byte fallback (llama.cpp's ``llm_tokenizer_spm_session``):
    every vector equals its ``.out``; decoding gives the text back."""
    path = testdata.vocab_path(name)
    tok = tokenizer_from_gguf(path)
    assert isinstance(tok, SentencePieceBpeTokenizer)
    vectors = testdata.read_vectors(name)
    assert len(vectors) == SENTENCEPIECE[name]
    for text, ids in vectors:
        assert tok.encode(text) == ids, text
        assert tok.decode_bytes(ids) == text.encode("utf-8")
    for text in EXTRA_TEXTS:
        assert tok.decode(tok.encode(text)) == text
    with pytest.raises(UnsupportedGgufModelError, match="reads it as SentencePiece") as info:
        read_gguf_vocab(path)  # not byte-level: the byte-level reader names the model
    assert info.value.model == "llama"


def test_sentencepiece_space_symbol_is_a_space():
    """Stated limit (docs/gguf.md), as in llama.cpp: U+2581 in the text decodes as a space."""
    tok = tokenizer_from_gguf(testdata.vocab_path("phi-3"))
    assert tok.encode("a\u2581b") == tok.encode("a b")
    assert tok.decode(tok.encode(" lead")) == " lead"


def test_sentencepiece_byte_fallback():
    """A character with no token is spelled by its byte tokens <0xXX>."""
    tok = tokenizer_from_gguf(testdata.vocab_path("llama-spm"))
    ids = tok.encode("\U0001f999")  # not in the 32,000-token vocabulary
    assert [tok.tokens[i] for i in ids[1:]] == ["<0xF0>", "<0x9F>", "<0xA6>", "<0x99>"]
    assert tok.decode(ids) == "\U0001f999"


@pytest.mark.parametrize(("name", "model"), sorted(OTHER.items()))
def test_other_models_are_refused_by_type(name, model):
    path = testdata.vocab_path(name)
    with pytest.raises(UnsupportedGgufModelError, match=f"'{model}'") as info:
        tokenizer_from_gguf(path)
    assert info.value.model == model and info.value.path == str(path)


def test_rank_route_where_exact():
    """gpt-2's merges are in id order: ``tokenizer_from_gguf`` gives the rank-based engine,
    and it passes the same vectors; llama-bpe's merge list is redundant: merge-list BPE."""
    tok = tokenizer_from_gguf(testdata.vocab_path("gpt-2"))
    assert isinstance(tok, Tokenizer)
    for text, ids in testdata.read_vectors("gpt-2"):
        assert tok.encode_ordinary(text) == ids
    assert isinstance(tokenizer_from_gguf(testdata.vocab_path("llama-bpe")), LlamaCppTokenizer)


@pytest.mark.parametrize("name", ["gpt-2", "qwen2", "starcoder"])
def test_merge_list_is_the_seed_encode_chunk_relabelled(name):
    """Item 6, as tested: number merge ``i`` as id ``256 + i`` (a byte is its own id); the
    seed's ``encode_chunk`` (every occurrence of the lowest-index pair) then gives the same
    parts as merge-list BPE, on every word of every vector, once the ids are mapped back to
    bytes.  Holds for these merge lists: each merge's sides are bytes or earlier merges."""
    vocab = read_gguf_vocab(testdata.vocab_path(name))
    made: dict[bytes, int] = {bytes([b]): b for b in range(256)}
    seed_merges: dict[tuple[int, int], int] = {}
    for index, (left, right) in enumerate(vocab.merges):
        assert left in made and right in made  # the condition
        seed_merges.setdefault((made[left], made[right]), 256 + index)
        made.setdefault(left + right, 256 + index)
    back = {i: b for b, i in made.items()}
    ranks = pair_ranks(vocab.merges)
    tok = tokenizer(name)
    words = 0
    for text, _ in testdata.read_vectors(name):
        for word in split_sequence(text, tok.regexes):
            data = word.encode("utf-8")
            seed = [back[i] for i in encode_chunk(seed_merges, list(range(256)), data)]
            assert seed == merge_list_bpe(data, ranks), word
            words += 1
    assert words > 200


# ------------------------------------------------------------------------ the fetch script
def test_wrong_hash_is_refused_and_removed(tmp_path):
    fake = tmp_path / testdata.SDIST_NAME
    fake.write_bytes(b"not the sdist")
    with pytest.raises(testdata.TestDataError, match="expected " + testdata.SDIST_SHA256):
        testdata.fetch_sdist(tmp_path)
    assert not fake.exists()


def test_download_failure_is_loud(tmp_path):
    with pytest.raises(testdata.TestDataError, match="cannot download"):
        testdata.fetch_sdist(tmp_path, url="http://127.0.0.1:9/nothing.tar.gz")
    assert list(tmp_path.iterdir()) == []


def test_download_from_loopback_checks_the_hash(tmp_path):
    """The download route itself, served by a loopback HTTP server: a file with another hash
    is downloaded, refused and removed."""
    served = tmp_path / "served"
    served.mkdir()
    (served / "x.tar.gz").write_bytes(b"x" * 1000)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(served), **kwargs)

        def log_message(self, *args):  # keep the test output clean
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/x.tar.gz"
        cache_dir = tmp_path / "cache"
        with pytest.raises(testdata.TestDataError, match="has SHA-256"):
            testdata.fetch_sdist(cache_dir, url=url)
        assert not (cache_dir / testdata.SDIST_NAME).exists()
    finally:
        server.shutdown()
        server.server_close()


def test_vectors_file_format(tmp_path):
    models = tmp_path / f"llama.cpp-{testdata.SDIST_VERSION}" / "models"
    models.mkdir(parents=True)
    (models.parent / ".extracted").write_text("x")
    (models / "ggml-vocab-x.gguf").write_bytes(b"")
    sep = testdata.VECTOR_SEPARATOR
    (models / "ggml-vocab-x.gguf.inp").write_text(f"a{sep}\n{sep}b c{sep}", encoding="utf-8")
    (models / "ggml-vocab-x.gguf.out").write_text(" 1 2\n 3\n 4 5 6\n", encoding="utf-8")
    assert testdata.read_vectors("x", tmp_path) == [("a", [1, 2]), ("\n", [3]), ("b c", [4, 5, 6])]
    assert testdata.model_names(tmp_path) == ["x"]
    (models / "ggml-vocab-x.gguf.out").write_text(" 1\n", encoding="utf-8")
    with pytest.raises(testdata.TestDataError, match="3 texts but 1 lines"):
        testdata.read_vectors("x", tmp_path)


def test_cache_dir_override(monkeypatch, tmp_path):
    monkeypatch.setenv("VERIFIED_BPE_TESTDATA", str(tmp_path))
    assert testdata.cache_dir() == tmp_path
    monkeypatch.delenv("VERIFIED_BPE_TESTDATA")
    assert testdata.cache_dir() == Path(__file__).resolve().parent.parent / ".cache" / "testdata"


def test_cli_encodes_with_a_gguf_file():
    """The documented command (docs/gguf.md)."""
    import subprocess
    import sys

    path = testdata.vocab_path("qwen2")
    text, ids = next(v for v in testdata.read_vectors("qwen2") if "🦙" in v[0])
    run = subprocess.run(
        [sys.executable, "-m", "verified_bpe", "encode", "--gguf", str(path), text],
        capture_output=True,
        check=True,
    )
    assert [int(t) for t in run.stdout.split()] == ids
    run = subprocess.run(
        [sys.executable, "-m", "verified_bpe", "decode", "--stream", "--gguf", str(path)]
        + [str(i) for i in ids],
        capture_output=True,
        check=True,
    )
    assert run.stdout.decode("utf-8") == text
    run = subprocess.run(  # control tokens: only when asked, as llama.cpp's parse_special
        [sys.executable, "-m", "verified_bpe", "encode", "--gguf", str(path), "a<|im_end|>"]
        + ["--allowed-special", "all"],
        capture_output=True,
        check=True,
    )
    assert [int(t) for t in run.stdout.split()] == [64, 151645]


def test_llama3_table_passes_the_roundtrip_checker():
    """Llama 3's table (ids = ranks, in file order) passes ``checkRanksDecode``
    (``verified_bpe.spec.ranks.whole_pieces``), so ``decodeRanks_encodeRanksWith_of_decodeOk``
    covers it; it fails condition C at ` việc`, which tiktoken's algorithm finds whole."""
    ranks = tokenizer("llama-bpe").vocab.ranks
    assert len(ranks) == 128000
    assert check_ranks_decode(list(ranks.items()))
    token = " việc".encode()
    assert not check_two_parts(ranks, (token, ranks[token]))
    assert encode_piece_ranks(ranks, token) == [ranks[token]]
