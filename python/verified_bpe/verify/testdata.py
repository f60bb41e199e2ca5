"""llama.cpp's own vocabulary files and test vectors, fetched once into a cache.

The llama-cpp-python sdist on PyPI (version :data:`SDIST_VERSION`, 76 MB) vendors llama.cpp,
whose ``models/`` folder holds vocabulary-only GGUF files (``ggml-vocab-<name>.gguf``) and,
for most of them, test vectors: ``.inp`` (texts separated by ``\\n__ggml_vocab_test__\\n``)
and ``.out`` (one line of space-separated token ids per text, what the reference tokenizer
gives with no special tokens added).

:func:`fetch_sdist` downloads the sdist into the cache (:func:`cache_dir`: ``.cache/testdata``
at the repository root in a source checkout, else ``~/.cache/verified_bpe/testdata``;
``VERIFIED_BPE_TESTDATA`` overrides it) and checks its SHA-256 against
:data:`SDIST_SHA256`; :func:`models_dir` extracts the vocabulary files (and llama.cpp's
``src/llama-vocab.cpp`` and ``src/unicode.cpp``, the sources of the pre-tokenizer regexes).
Nothing here is committed.  A failed download or a wrong hash raises
:class:`TestDataError` (never a silent skip).

Command line: ``python -m verified_bpe.verify.testdata [--dir DIR] [--print-dir]`` fetches,
extracts and lists the models with their vector counts, then prints the folder that holds
them (``--print-dir``: only that folder, for ``$(...)`` in a shell).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import sys
import tarfile
import tempfile
import urllib.request
from pathlib import Path

from ..errors import BpeError

SDIST_VERSION = "0.3.36"
SDIST_NAME = f"llama_cpp_python-{SDIST_VERSION}.tar.gz"
#: The file on PyPI (``https://pypi.org/simple/llama-cpp-python/`` links it with this hash).
SDIST_URL = (
    "https://files.pythonhosted.org/packages/ec/e9/"
    "e7de2b0463ea3ffbf0ede6cb21b58c1258a8f6521aae45ca773a59fe7cf3/" + SDIST_NAME
)
SDIST_SHA256 = "832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e"
SDIST_SIZE = 76_589_250

_PREFIX = f"llama_cpp_python-{SDIST_VERSION}/vendor/llama.cpp/"
_SOURCES = ("src/llama-vocab.cpp", "src/unicode.cpp")
VECTOR_SEPARATOR = "\n__ggml_vocab_test__\n"


class TestDataError(BpeError):
    """The test data cannot be fetched or does not have the published hash."""

    __test__ = False  # not a pytest class


def cache_dir() -> Path:
    """``$VERIFIED_BPE_TESTDATA``, else :func:`default_cache_dir` of this package."""
    env = os.environ.get("VERIFIED_BPE_TESTDATA")
    if env:
        return Path(env)
    return default_cache_dir(Path(__file__))


def default_cache_dir(module_file: Path) -> Path:
    """``.cache/testdata`` at the root of the source checkout holding ``module_file`` (this
    module's path, ``python/verified_bpe/verify/testdata.py``); for an installed package
    (no ``lakefile.lean`` there), ``$XDG_CACHE_HOME/verified_bpe/testdata`` (default
    ``~/.cache/verified_bpe/testdata``), never a folder inside the installation."""
    root = module_file.resolve().parents[3]
    if (root / "lakefile.lean").is_file() and (root / "python").is_dir():
        return root / ".cache" / "testdata"
    user_cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(user_cache) / "verified_bpe" / "testdata"


def sha256_file(path: Path) -> str:
    """The SHA-256 of a file, hex."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch_sdist(directory: Path | None = None, url: str = SDIST_URL) -> Path:
    """The sdist in the cache, downloaded first if needed; its SHA-256 is checked every time
    (a file with another hash is removed and :class:`TestDataError` raised)."""
    directory = directory or cache_dir()
    path = directory / SDIST_NAME
    if not path.exists():
        directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, suffix=".part")
        try:
            with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=120) as resp:
                shutil.copyfileobj(resp, out, 1 << 20)
            os.replace(tmp, path)
        except OSError as exc:
            Path(tmp).unlink(missing_ok=True)
            raise TestDataError(
                f"cannot download the test data {url}: {exc}; fetch it by hand into "
                f"{directory} (or set VERIFIED_BPE_TESTDATA to a folder holding {SDIST_NAME})"
            ) from None
    digest = sha256_file(path)
    if digest != SDIST_SHA256:
        path.unlink()
        raise TestDataError(f"{path} has SHA-256 {digest}, expected {SDIST_SHA256}; removed")
    return path


def models_dir(directory: Path | None = None) -> Path:
    """The folder of llama.cpp's vocabulary files (and ``src/``), extracted from the sdist
    on first use (into ``<cache>/llama.cpp-<version>``, through a temporary folder renamed
    into place, so that concurrent test processes never see a partial folder)."""
    directory = directory or cache_dir()
    root = directory / f"llama.cpp-{SDIST_VERSION}"
    done = root / ".extracted"
    if not done.exists():
        sdist = fetch_sdist(directory)
        tmp = Path(tempfile.mkdtemp(dir=directory, prefix=".extract-"))
        try:
            with tarfile.open(sdist) as tar:
                for member in tar.getmembers():
                    rel = member.name.removeprefix(_PREFIX)
                    if rel == member.name or not member.isfile():
                        continue
                    if rel.startswith("models/ggml-vocab-") or rel in _SOURCES:
                        target = tmp / rel
                        target.parent.mkdir(parents=True, exist_ok=True)
                        source = tar.extractfile(member)
                        assert source is not None
                        with source, open(target, "wb") as out:
                            shutil.copyfileobj(source, out)
            (tmp / ".extracted").write_text(SDIST_SHA256 + "\n")
            if not done.exists():  # another process (pytest-xdist worker) may have won
                shutil.rmtree(root, ignore_errors=True)  # a partial folder, never a done one
                try:
                    os.replace(tmp, root)
                except OSError:
                    if not done.exists():
                        raise
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return root / "models"


def vocab_path(name: str, directory: Path | None = None) -> Path:
    """``ggml-vocab-<name>.gguf`` (``name`` as in ``gpt-2``, ``llama-bpe``, ``qwen2``)."""
    return models_dir(directory) / f"ggml-vocab-{name}.gguf"


def model_names(directory: Path | None = None) -> list[str]:
    """Every ``ggml-vocab-<name>.gguf`` of the sdist, by name."""
    return sorted(
        p.name.removeprefix("ggml-vocab-").removesuffix(".gguf")
        for p in models_dir(directory).glob("ggml-vocab-*.gguf")
    )


def read_vectors(name: str, directory: Path | None = None) -> list[tuple[str, list[int]]]:
    """The test vectors of a model: ``(text, ids)`` pairs, read as llama.cpp's
    ``tests/test-tokenizer-0`` reads them (``.inp`` split on the separator, which also ends
    the file; one ``.out`` line per text); ``[]`` if the model has none."""
    base = vocab_path(name, directory)
    inp, out = Path(f"{base}.inp"), Path(f"{base}.out")
    if not inp.exists():
        return []
    texts = inp.read_bytes().decode("utf-8").split(VECTOR_SEPARATOR)
    if texts[-1] == "":  # the file ends with a separator: no text after it
        texts.pop()
    lines = out.read_text(encoding="utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) != len(texts):
        raise TestDataError(f"{inp}: {len(texts)} texts but {len(lines)} lines of ids")
    return [(text, [int(t) for t in line.split()]) for text, line in zip(texts, lines, strict=True)]


def tiktoken_file(ranks: list[tuple[bytes, int]]) -> bytes:
    """tiktoken's file format: ``<base64 of the token> <rank>`` per line, in list order."""
    import base64

    return b"".join(base64.b64encode(t) + b" " + str(r).encode() + b"\n" for t, r in ranks)


def gpt2_tiktoken_files(directory: Path | None = None) -> dict[str, bytes]:
    """``r50k_base.tiktoken`` and ``p50k_base.tiktoken`` rebuilt from llama.cpp's gpt-2 file:
    the normal tokens' bytes with rank = id (r50k_base), then the runs of 2..25 spaces at
    ranks 50257..50280 (p50k_base).  Their SHA-256 are tiktoken's published hashes (tested)."""
    from ..formats.gguf_vocab import read_gguf_vocab

    vocab = read_gguf_vocab(vocab_path("gpt-2", directory))
    r50k = sorted(vocab.ranks.items(), key=lambda item: item[1])
    spaces = [(b" " * k, 50257 + k - 2) for k in range(2, 26)]
    return {"r50k_base": tiktoken_file(r50k), "p50k_base": tiktoken_file(r50k + spaces)}


def main(argv: list[str] | None = None) -> int:
    """Fetch, extract and list the models with their vector counts, then their folder."""
    parser = argparse.ArgumentParser(
        prog="python -m verified_bpe.verify.testdata",
        description=f"Fetch llama.cpp's vocabulary files and test vectors once (the "
        f"llama-cpp-python {SDIST_VERSION} sdist from PyPI, {SDIST_SIZE // 1_000_000} MB, "
        "SHA-256 checked), extract them, list them with their vector counts and print "
        "the folder that holds them.",
    )
    parser.add_argument(
        "--dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="download folder (default: $VERIFIED_BPE_TESTDATA, else "
        f"{default_cache_dir(Path(__file__))})",
    )
    parser.add_argument(
        "--print-dir",
        action="store_true",
        help="print only the folder of the .gguf files (fetched first if needed)",
    )
    args = parser.parse_args(argv)
    try:
        folder = models_dir(args.dir)
        if not args.print_dir:
            for name in model_names(args.dir):
                print(f"{name}: {len(read_vectors(name, args.dir))} vectors")
            print(f"the vocabulary files (ggml-vocab-<name>.gguf) are in {folder}")
        else:
            print(folder)
    except (TestDataError, OSError) as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
