"""The native engine: the Rust crate in ``rust/`` (module ``verified_bpe._native``), built by
setuptools-rust when the install found a Rust toolchain.

It runs the proven pre-tokenizers of cl100k_base and o200k_base (``rust/src/unicode/``: Lean
``Bpe.Unicode.Cl100k.nextChunkLen`` / ``Bpe.Unicode.O200k.nextChunkLen`` and the shared
``Bpe.Unicode.PreTokenize`` branches, function by function under the same names, with the
character classes generated into ``rust/src/unicode/tables.rs`` by
:mod:`verified_bpe.verify.unicode_gen`) and tiktoken's rank BPE (``rust/src/ranks.rs``: the
list scan for short pieces, a bucket queue with a linked list for long ones, the algorithms
of :func:`~verified_bpe.engine.tokenizer.bpe_ranks`).  Other patterns (GPT-2, Llama 3, users')
are split by ``fancy-regex`` (tiktoken's own regex engine, in the crate) when
:func:`fancy_pattern` accepts them (classes pinned to tiktoken's tables, constructs that
``regex`` and Rust read alike), else in Python; either way they are merged natively.
Special tokens are handled by :class:`~verified_bpe.engine.tokenizer.Tokenizer` around it,
as for the other engines.

Without the extension, :func:`default_engine` is ``"fast"`` (the pure-Python engine) and says
so once with a :class:`NativeEngineMissingWarning`.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import MalformedVocabError, MissingRankError
from .patterns import (
    CL100K_PATTERN,
    LLAMA3_META_PATTERN,
    LLAMA3_PATTERN,
    O200K_PATTERN,
    PINNED_PROPERTIES,
    R50K_PATTERN,
    stand_ins_allowed,
)

if TYPE_CHECKING:
    from typing_extensions import Buffer

try:
    from .. import _native  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - exercised on installs without cargo
    _native = None

#: The patterns whose pre-tokenizer the native engine runs itself, by encoding name.
NATIVE_PRE_TOKENIZERS: dict[str, str] = {
    CL100K_PATTERN: "cl100k_base",
    O200K_PATTERN: "o200k_base",
    R50K_PATTERN: "r50k_base",
    LLAMA3_PATTERN: "llama3",
    LLAMA3_META_PATTERN: "llama3_meta",
}


#: The group openers :func:`fancy_pattern` accepts (``(?i:`` only around ASCII literals).
_GROUP_OPENERS = ("(?:", "(?=", "(?!", "(?<=", "(?<!", "(?i:")
_PROPERTY = re.compile(r"\\([pP])\{(\w+)\}")


def _rust_class_body(table: str) -> str:
    r"""The ranges of ``verified_bpe.spec.unicode.tables.<table>`` inside a Rust class
    (``\x{HEX}`` escapes)."""
    from ..spec.unicode import tables as unicode_tables

    ranges = getattr(unicode_tables, table)
    return "".join(
        f"\\x{{{lo:X}}}" if lo == hi else f"\\x{{{lo:X}}}-\\x{{{hi:X}}}" for lo, hi in ranges
    )


def _case_free(pattern: str, start: int) -> bool:
    """Whether the ``(?i:`` group at ``start`` holds no class escape (``\\p``, ``\\s``...)
    and no ``[``: only literals, whose case folding is the same in every Unicode version."""
    depth = 0
    i = start
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            if pattern[i + 1 : i + 2] in ("p", "P", "s", "S"):
                return False
            i += 2
            continue
        if ch == "[":
            return False
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0:
            return True
        i += 1
    return False


@cache
def fancy_pattern(pattern: str) -> str | None:
    r"""``pattern`` (the ``regex``-module syntax that the other engines split with, i.e.
    after :func:`~verified_bpe.engine.rust_syntax.rust_pattern`) for ``fancy-regex``, with
    ``\p{L}``-style classes and ``\s`` pinned to tiktoken's tables as explicit ranges (the
    Rust side of :func:`~verified_bpe.engine.patterns.pin_classes`), or ``None`` when the
    split stays in Python.

    Accepted only where the two syntaxes read every construct alike: the conditions of
    :func:`~verified_bpe.engine.patterns.stand_ins_allowed` (ASCII; non-ASCII characters read
    only through the pinned classes; no ``.``, ``\w``, ``\d``, ``\b``, back-references), no
    ``$`` (Rust's means end of text only) but in ``\s++$`` (r50k's: the possessive run has
    taken any final ``"\n"``, so both readings match the same), no ``{,n}``, no flags but
    ``(?i:`` around literals, no named groups, no ``[``, ``&&``, ``--`` or ``~~`` inside a
    class (Rust nests and combines classes, ``regex`` V0 reads literals).  GPT-2's, r50k's,
    p50k's and Llama 3's patterns are accepted.  No Lean counterpart.
    """
    if pattern in NATIVE_PRE_TOKENIZERS or not stand_ins_allowed(pattern):
        return None
    if "$" in pattern.replace("\\s++$", "") or "{," in pattern:
        return None
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            prop = _PROPERTY.match(pattern, i)
            esc = pattern[i + 1]
            table = None
            if prop is not None:
                table = PINNED_PROPERTIES.get(prop.group(2))
                if table is None:
                    return None
                negated, width = prop.group(1) == "P", prop.end() - i
            elif esc in ("s", "S"):
                table, negated, width = "WHITE_SPACE_RANGES", esc == "S", 2
            if table is None:
                out.append(pattern[i : i + 2])
                i += 2
                continue
            out.append(("[^" if negated else "[") + _rust_class_body(table) + "]")
            i += width
            continue
        if in_class:
            if ch == "[" or pattern.startswith(("&&", "--", "~~"), i):
                return None
            if ch == "]":
                in_class = False
            out.append(ch)
            i += 1
            continue
        if ch == "[":
            in_class = True
            opener = "[^" if pattern.startswith("[^", i) else "["
            i += len(opener)
            if pattern.startswith("]", i):  # a leading ']' is a literal
                opener += "\\]"
                i += 1
            out.append(opener)
            continue
        if pattern.startswith("(?", i):
            opener = next((o for o in _GROUP_OPENERS if pattern.startswith(o, i)), None)
            if opener is None or (opener == "(?i:" and not _case_free(pattern, i)):
                return None
        out.append(ch)
        i += 1
    return None if in_class else "".join(out)


class NativeEngineMissingWarning(RuntimeWarning):
    """The native engine was not built (no Rust toolchain when the package was installed)."""


_warned = False
#: The package whose extension was looked for (named in the warning).
_PACKAGE_DIR = Path(__file__).resolve().parent.parent


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
            f"verified_bpe: the native engine is not built in {_PACKAGE_DIR} (an install "
            "without a Rust toolchain, or a source tree used without installing it); using "
            "the pure-Python engine (engine='fast'). Install Rust (cargo) and reinstall the "
            "package for the native engine.",
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
    it is one of :data:`NATIVE_PRE_TOKENIZERS`, else with ``pattern`` split by
    ``fancy-regex`` when :func:`fancy_pattern` accepts it (``regex_split``), else none (the
    caller splits and calls :meth:`encode_pieces`).

    Raises :class:`~verified_bpe.errors.MalformedVocabError` for a table the native engine
    cannot hold (a key that is not ``bytes``, a rank outside ``0..2**32``)."""

    def __init__(self, ranks: Mapping[bytes, int], pattern: str) -> None:
        native = module()
        self.pre_tokenizer = NATIVE_PRE_TOKENIZERS.get(pattern)
        fancy = None if self.pre_tokenizer is not None else fancy_pattern(pattern)
        table = ranks if type(ranks) is dict else dict(ranks)
        try:
            try:
                self._bpe = native.NativeBpe(table, self.pre_tokenizer, fancy)
            except ValueError:  # fancy-regex refused the pattern: split in Python
                fancy = None
                self._bpe = native.NativeBpe(table, self.pre_tokenizer)
        except (TypeError, OverflowError) as exc:
            raise MalformedVocabError(
                f"rank table cannot be loaded by the native engine: {exc}"
            ) from None
        #: Whether the crate splits ``pattern`` itself (a native pre-tokenizer or fancy-regex).
        self.splits = self.pre_tokenizer is not None or fancy is not None
        self.regex_split = fancy is not None

    def encode_ordinary(self, text: str) -> list[int] | None:
        """The ids of ``text`` (valid UTF-8: surrogates already replaced) with the native
        pre-tokenizer or pattern (:attr:`splits`); ``None`` if fancy-regex gave up (its
        backtrack limit): the caller splits in Python, under its own time budget."""
        try:
            return self._bpe.encode_ordinary(text)  # type: ignore[no-any-return]
        except KeyError as exc:
            raise _missing(exc) from None
        except RuntimeError:
            return None

    def encode_ordinary_batch(
        self, texts: Sequence[str], num_threads: int
    ) -> list[list[int]] | None:
        """:meth:`encode_ordinary` on each text, on ``num_threads`` threads without the GIL
        (``None`` if fancy-regex gave up on one of them)."""
        try:
            return self._bpe.encode_ordinary_batch(list(texts), num_threads)  # type: ignore[no-any-return]
        except KeyError as exc:
            raise _missing(exc) from None
        except RuntimeError:
            return None

    def encode_ordinary_ids(self, text: str) -> Buffer | None:
        """:meth:`encode_ordinary` as a read-only buffer of native-order ``u32`` ids that owns
        the engine's own vector (no copy, no Python object per id; ``None`` if fancy-regex gave
        up)."""
        try:
            return self._bpe.encode_ordinary_ids(text)  # type: ignore[no-any-return]
        except KeyError as exc:
            raise _missing(exc) from None
        except RuntimeError:
            return None

    def encode_ordinary_batch_flat(
        self, texts: list[str], num_threads: int
    ) -> tuple[bytearray, bytearray] | None:
        """:meth:`encode_ordinary_batch` flat: ``(ids, offsets)``, native-order ``u32`` ids
        and ``len(texts) + 1`` ``i64`` offsets, no Python object per id (``None`` if
        fancy-regex gave up on one of the texts)."""
        try:
            return self._bpe.encode_ordinary_batch_flat(texts, num_threads)  # type: ignore[no-any-return]
        except KeyError as exc:
            raise _missing(exc) from None
        except RuntimeError:
            return None

    def encode_utf8_flat(
        self,
        data: Any,
        offsets: Any,
        wide: bool,
        start: int,
        length: int,
        validity: Any,
        num_threads: int,
        counts_only: bool = False,
        in_place: bool = True,
    ) -> tuple[bytearray, bytearray] | None:
        """The flat batch of ``length`` UTF-8 strings in Arrow's layout (``data`` and
        ``offsets`` buffers, ``i64`` offsets if ``wide``, rows from ``start``, a null where
        the ``validity`` bitmap says so), the buffers read in place (copied once if not
        ``in_place``) and not to be written during the call; ``ValueError((row, kind,
        message))`` for a row whose offsets leave ``data`` (``kind`` ``"offsets"``) or that is
        not UTF-8 (``"utf8"``); ``None`` if fancy-regex gave up."""
        try:
            return self._bpe.encode_utf8_flat(  # type: ignore[no-any-return]
                data, offsets, wide, start, length, validity, num_threads, counts_only, in_place
            )
        except KeyError as exc:
            raise _missing(exc) from None
        except RuntimeError:
            return None

    def split(self, text: str) -> list[str]:
        """The whole matches of the fancy-regex pattern in ``text`` (for the tests)."""
        return self._bpe.split_text(text)  # type: ignore[no-any-return]

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
    "fancy_pattern",
    "default_engine",
    "module",
]
