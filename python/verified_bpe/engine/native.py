"""The native engine: the Rust crate in ``rust/`` (module ``verified_bpe._native``), built by
setuptools-rust when the install found a Rust toolchain.

It runs the proven pre-tokenizers of cl100k_base and o200k_base (``rust/src/unicode/``: Lean
``Bpe.Unicode.Cl100k.nextChunkLen`` / ``Bpe.Unicode.O200k.nextChunkLen`` and the shared
``Bpe.Unicode.PreTokenize`` branches, function by function under the same names, with the
character classes generated into ``rust/src/unicode/tables.rs`` by
:mod:`verified_bpe.verify.unicode_gen`) and tiktoken's rank BPE (``rust/src/ranks.rs``: the
list scan for short pieces, a bucket queue with a linked list for long ones, the algorithms
of :func:`~verified_bpe.engine.tokenizer.bpe_ranks`).  Other patterns (GPT-2, Llama 3, users')
are split in Python and merged natively.  Special tokens are handled by
:class:`~verified_bpe.engine.tokenizer.Tokenizer` around it, as for the other engines.

Without the extension, :func:`default_engine` is ``"fast"`` (the pure-Python engine) and says
so once with a :class:`NativeEngineMissingWarning`.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import MalformedVocabError, MissingRankError
from .patterns import CL100K_PATTERN, O200K_PATTERN

try:
    from .. import _native  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - exercised on installs without cargo
    _native = None

#: The patterns whose pre-tokenizer the native engine runs itself, by encoding name.
NATIVE_PRE_TOKENIZERS: dict[str, str] = {
    CL100K_PATTERN: "cl100k_base",
    O200K_PATTERN: "o200k_base",
}


class NativeEngineMissingWarning(RuntimeWarning):
    """The native engine was not built (no Rust toolchain when the package was installed)."""


_warned = False


def available() -> bool:
    """Whether the native extension is importable."""
    return _native is not None


def default_engine() -> str:
    """``"native"`` when the extension is there, else ``"fast"`` (with one warning per
    process)."""
    global _warned
    if _native is not None:
        return "native"
    if not _warned:
        _warned = True
        warnings.warn(
            "verified_bpe: the native engine is not built (no Rust toolchain when the package "
            "was installed); using the pure-Python engine (engine='fast'). Install Rust "
            "(cargo) and reinstall the package for the native engine.",
            NativeEngineMissingWarning,
            stacklevel=3,
        )
    return "fast"


def module() -> Any:
    """The extension module; :class:`ImportError` if it was not built."""
    if _native is None:
        raise ImportError(
            "verified_bpe._native is not built (install Rust and reinstall verified-bpe)"
        )
    return _native


class NativeMerger:
    """A rank table in the native engine, with the native pre-tokenizer of ``pattern`` when
    it is one of :data:`NATIVE_PRE_TOKENIZERS`.

    Raises :class:`~verified_bpe.errors.MalformedVocabError` for a table the native engine
    cannot hold (a key that is not ``bytes``, a rank outside ``0..2**32``)."""

    def __init__(self, ranks: Mapping[bytes, int], pattern: str) -> None:
        native = module()
        self.pre_tokenizer = NATIVE_PRE_TOKENIZERS.get(pattern)
        table = ranks if type(ranks) is dict else dict(ranks)
        try:
            self._bpe = native.NativeBpe(table, self.pre_tokenizer)
        except (TypeError, OverflowError) as exc:
            raise MalformedVocabError(
                f"rank table cannot be loaded by the native engine: {exc}"
            ) from None

    def encode_ordinary(self, text: str) -> list[int]:
        """The ids of ``text`` (valid UTF-8: surrogates already replaced) with the native
        pre-tokenizer."""
        try:
            return self._bpe.encode_ordinary(text)  # type: ignore[no-any-return]
        except KeyError as exc:
            raise _missing(exc) from None

    def encode_ordinary_batch(self, texts: Sequence[str], num_threads: int) -> list[list[int]]:
        """:meth:`encode_ordinary` on each text, on ``num_threads`` threads without the GIL."""
        try:
            return self._bpe.encode_ordinary_batch(list(texts), num_threads)  # type: ignore[no-any-return]
        except KeyError as exc:
            raise _missing(exc) from None

    def encode_pieces(self, pieces: list[str]) -> list[int]:
        """The ids of pieces split in Python (custom patterns)."""
        try:
            return self._bpe.encode_pieces(pieces)  # type: ignore[no-any-return]
        except KeyError as exc:
            raise _missing(exc) from None

    def bpe(self, piece: bytes, algorithm: str = "auto") -> list[int]:
        """Rank BPE of one piece (``"scan"``, ``"heap"``, ``"buckets"`` or ``"auto"``)."""
        try:
            return self._bpe.bpe(piece, algorithm)  # type: ignore[no-any-return]
        except KeyError as exc:
            raise _missing(exc) from None


def _missing(exc: KeyError) -> MissingRankError:
    part, piece = exc.args
    shown = piece if len(piece) <= 40 else piece[:40] + b"..."
    return MissingRankError(f"rank table has no token {part!r} (in the piece {shown!r})")


__all__ = [
    "NATIVE_PRE_TOKENIZERS",
    "NativeEngineMissingWarning",
    "NativeMerger",
    "available",
    "default_engine",
    "module",
]
