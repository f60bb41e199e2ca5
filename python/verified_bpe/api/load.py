"""tiktoken's ``tiktoken.load`` (0.14): ``load_tiktoken_bpe``, ``dump_tiktoken_bpe``,
``read_file``, ``read_file_cached`` -- what Meta's Llama 3 tokenizer code and other clients
import (``from tiktoken.load import load_tiktoken_bpe``).

Differences, on purpose: the published OpenAI files (``https://openaipublic.../<name>.tiktoken``)
come from :func:`verified_bpe.engine.vocab.load_ranks` (tiktoken's cache, the bundled copy,
each checked against its published SHA-256), so they work offline; any other URL is
downloaded with the standard library; a malformed file is a
:class:`~verified_bpe.errors.MalformedVocabError` naming its line (tiktoken raises whatever
``base64``/``int`` raise, or silently keeps the last of two equal tokens); a wrong
``expected_hash`` is a ``ValueError`` as in tiktoken.  ``data_gym_to_mergeable_bpe_ranks``
(GPT-2's files) is not provided.  No Lean counterpart.
"""

from __future__ import annotations

import base64
import hashlib
import os
import urllib.request
from collections.abc import Mapping

from ..engine.vocab import TIKTOKEN_URLS, load_ranks, parse_tiktoken_bpe
from ..errors import InvalidArgumentError

#: Published URL -> encoding name (the files served offline).
PUBLISHED: dict[str, str] = {url: name for name, url in TIKTOKEN_URLS.items()}
DOWNLOAD_TIMEOUT = 60.0


def _dump(ranks: Mapping[bytes, int]) -> bytes:
    lines = [base64.b64encode(token) + b" " + str(rank).encode() for token, rank in ranks.items()]
    return b"".join(line + b"\n" for line in lines)


def read_file(blobpath: str) -> bytes:
    """The bytes of a local file or of a URL (``http://``, ``https://``; a published OpenAI
    file is served from the offline sources, re-serialized in rank order)."""
    if not isinstance(blobpath, str | os.PathLike):
        raise InvalidArgumentError("blobpath", f"must be a str, not {type(blobpath).__name__}")
    blobpath = os.fspath(blobpath)
    if blobpath in PUBLISHED:
        ranks = load_ranks(PUBLISHED[blobpath])
        return _dump(dict(sorted(ranks.items(), key=lambda item: item[1])))
    if blobpath.startswith(("http://", "https://")):
        with urllib.request.urlopen(blobpath, timeout=DOWNLOAD_TIMEOUT) as response:  # noqa: S310
            return response.read()
    with open(blobpath, "rb") as handle:
        return handle.read()


def check_hash(data: bytes, expected_hash: str) -> bool:
    """Whether ``data`` has the SHA-256 ``expected_hash`` (hex), as tiktoken checks."""
    return hashlib.sha256(data).hexdigest() == expected_hash


def read_file_cached(blobpath: str, expected_hash: str | None = None) -> bytes:
    """:func:`read_file`, checked against ``expected_hash`` (``ValueError`` on a mismatch,
    as tiktoken; ``None`` or ``""`` checks nothing, as tiktoken).  The published files are
    already cached by their offline sources."""
    data = read_file(blobpath)
    published = os.fspath(blobpath) in PUBLISHED
    if expected_hash and not published and not check_hash(data, expected_hash):
        raise ValueError(
            f"Hash mismatch for data downloaded from {blobpath} (expected {expected_hash}). "
            "This may indicate a corrupted download. Please try again."
        )
    return data


def load_tiktoken_bpe(tiktoken_bpe_file: str, expected_hash: str | None = None) -> dict[bytes, int]:
    """The rank table of a ``.tiktoken`` file (``<base64 token> <rank>`` per line): tiktoken's
    ``load_tiktoken_bpe``.  A published OpenAI URL gives that vocabulary offline."""
    if isinstance(tiktoken_bpe_file, str) and tiktoken_bpe_file in PUBLISHED:
        return dict(load_ranks(PUBLISHED[tiktoken_bpe_file]))
    return parse_tiktoken_bpe(read_file_cached(tiktoken_bpe_file, expected_hash))


def dump_tiktoken_bpe(bpe_ranks: dict[bytes, int], tiktoken_bpe_file: str) -> None:
    """Write ``bpe_ranks`` as a ``.tiktoken`` file, in rank order (tiktoken's format)."""
    ordered = dict(sorted(bpe_ranks.items(), key=lambda item: item[1]))
    with open(tiktoken_bpe_file, "wb") as handle:
        handle.write(_dump(ordered))


__all__ = [
    "check_hash",
    "dump_tiktoken_bpe",
    "load_tiktoken_bpe",
    "read_file",
    "read_file_cached",
]
