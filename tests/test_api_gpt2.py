"""gpt2, r50k_base, p50k_base and p50k_edit: ``get_encoding`` from tiktoken's cache or a
download from tiktoken's URL (tested against a loopback HTTP server), hash-checked.

The vocabulary files are rebuilt from the GPT-2 vocabulary in llama.cpp's gpt-2 GGUF file
(:func:`verified_bpe.verify.testdata.gpt2_tiktoken_files`); their SHA-256 must be tiktoken's
published hashes.  The oracle is tiktoken itself, reading the same cache directory."""

from __future__ import annotations

import hashlib
import http.server
import threading

import pytest

tiktoken = pytest.importorskip("tiktoken")
import tiktoken_ext.openai_public as openai_public  # noqa: E402
from tiktoken.load import read_file_cached  # noqa: E402

import verified_bpe  # noqa: E402
from conftest import MIXED_TEXTS  # noqa: E402
from verified_bpe.api import registry  # noqa: E402
from verified_bpe.engine import vocab  # noqa: E402
from verified_bpe.errors import VocabularyNotFoundError  # noqa: E402
from verified_bpe.verify import testdata  # noqa: E402

FOUR = ("gpt2", "r50k_base", "p50k_base", "p50k_edit")

TEXTS = list(MIXED_TEXTS)


@pytest.fixture(scope="module")
def files() -> dict[str, bytes]:
    return testdata.gpt2_tiktoken_files()


@pytest.fixture
def cache_dir(tmp_path, monkeypatch, files):
    """A tiktoken cache holding the two rebuilt files; no other source reachable."""
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    for name, contents in files.items():
        path, _ = vocab.tiktoken_cache_path(name)
        path.write_bytes(contents)
    _fresh(monkeypatch)
    yield tmp_path
    _fresh(monkeypatch)


def _fresh(monkeypatch) -> None:
    monkeypatch.setattr(vocab, "_ranks_via_tiktoken", lambda name, timeout: None)
    vocab.load_ranks_with_source.cache_clear()
    for name in FOUR:
        registry.ENCODINGS.pop(name, None)


def test_rebuilt_files_have_the_published_hashes(files):
    for name in ("r50k_base", "p50k_base"):
        assert hashlib.sha256(files[name]).hexdigest() == vocab.encoding_spec(name).sha256
    assert vocab.encoding_spec("r50k_base").sha256 == "306cd27f" + (
        "03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930"
    )


def test_facts_are_tiktoken_exts(monkeypatch):
    """Hashes, pattern and special tokens as in tiktoken_ext/openai_public.py."""
    seen: dict[str, str] = {}

    def record(url: str, expected_hash: str) -> dict[bytes, int]:
        seen[url] = expected_hash
        return {}

    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", record)
    monkeypatch.setattr(openai_public, "data_gym_to_mergeable_bpe_ranks", lambda **kw: {})
    for name in FOUR:
        facts = getattr(openai_public, name)()
        mine = registry.ENCODING_CONSTRUCTORS[name]
        ranks_name = "p50k_base" if name.startswith("p50k") else "r50k_base"
        monkeypatch.setattr(registry, "load_ranks", lambda n: {})
        built = mine()
        assert built["pat_str"] == facts["pat_str"]
        assert built["special_tokens"] == facts["special_tokens"]
        assert built.get("explicit_n_vocab") == facts.get("explicit_n_vocab")
        if name != "gpt2":
            url = vocab.TIKTOKEN_URLS[ranks_name]
            assert seen[url] == vocab.encoding_spec(ranks_name).sha256


def test_four_encodings_equal_tiktoken(cache_dir, stdlib_corpus):
    """From the cache; tiktoken reads the same cache (no network: the hashes match); on 40
    standard-library files, CPython's CJK samples and mixed-script texts."""
    from conftest import cjk_texts

    docs = [text for _, text in stdlib_corpus[:40] + cjk_texts()] + TEXTS
    for name in FOUR:
        enc = verified_bpe.get_encoding(name)
        if name == "gpt2":  # tiktoken builds gpt2 from vocab.bpe + encoder.json: same ranks
            ref = tiktoken.Encoding(**{**openai_public.r50k_base(), "name": "gpt2-oracle"})
        else:
            ref = tiktoken.get_encoding(name)
        assert enc.n_vocab == ref.n_vocab and enc.max_token_value == ref.max_token_value
        for doc in docs:
            ids = enc.encode(doc, allowed_special="all")
            assert ids == ref.encode(doc, allowed_special="all"), (name, doc[:60])
            assert enc.decode(ids) == doc
        assert enc.encode("<|fim_prefix|>x", allowed_special="all") == ref.encode(
            "<|fim_prefix|>x", allowed_special="all"
        )


def test_langchain_style_default(cache_dir):
    """langchain-text-splitters' TokenTextSplitter() defaults to gpt2."""
    enc = verified_bpe.get_encoding("gpt2")
    assert enc.encode("Hello world") == [15496, 995]
    assert verified_bpe.encoding_for_model("text-davinci-003").name == "p50k_base"


class _Server:
    """A loopback HTTP server answering every GET with ``body``."""

    def __init__(self, body: bytes) -> None:
        self.hits = 0
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - http.server's name
                outer.hits += 1
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/p50k_base.tiktoken"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_download_from_loopback(tmp_path, monkeypatch, files):
    """No cache file: downloaded from (our stand-in for) tiktoken's URL, hash-checked, then
    stored under tiktoken's cache name (tiktoken reads it back)."""
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    _fresh(monkeypatch)
    server = _Server(files["p50k_base"])
    try:
        monkeypatch.setitem(vocab.TIKTOKEN_URLS, "p50k_base", server.url)
        ranks, source = vocab.load_ranks_with_source("p50k_base")
        assert source == server.url and server.hits == 1 and len(ranks) == 50280
        path, _ = vocab.tiktoken_cache_path("p50k_base")
        assert path.read_bytes() == files["p50k_base"]
        assert read_file_cached(server.url, vocab.encoding_spec("p50k_base").sha256)
        assert server.hits == 1  # tiktoken found it in the cache
    finally:
        server.close()
        _fresh(monkeypatch)


def test_download_with_wrong_hash_is_refused(tmp_path, monkeypatch, files):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    _fresh(monkeypatch)
    server = _Server(files["p50k_base"] + b"IA== 50281\n")  # one token more: another hash
    try:
        monkeypatch.setitem(vocab.TIKTOKEN_URLS, "p50k_base", server.url)
        with pytest.raises(VocabularyNotFoundError):
            vocab.load_ranks_with_source("p50k_base")
        assert server.hits == 1
        assert list(tmp_path.iterdir()) == []  # nothing cached
    finally:
        server.close()
        _fresh(monkeypatch)


def test_offline_error_says_how_to_get_the_file(tmp_path, monkeypatch):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    _fresh(monkeypatch)
    monkeypatch.setitem(vocab.TIKTOKEN_URLS, "r50k_base", "http://127.0.0.1:9/r50k_base.tiktoken")
    try:
        with pytest.raises(VocabularyNotFoundError) as info:
            verified_bpe.get_encoding("gpt2")
        message = str(info.value)
        assert "curl -o" in message and "TIKTOKEN_CACHE_DIR" in message
        assert "http://127.0.0.1:9/r50k_base.tiktoken" in message and "\n" not in message
    finally:
        _fresh(monkeypatch)
