"""Typed errors of the Python reference.

Where the Lean spec returns ``none`` (an unknown token id, bytes that are not UTF-8, ...),
the Python mirror raises one of these.  All of them derive from :class:`BpeError`, which is a
:class:`ValueError`, so code written against tiktoken (which raises ``ValueError`` for a
disallowed special token) keeps working.
"""

from __future__ import annotations


class BpeError(ValueError):
    """Base class of every error raised by ``verified_bpe``."""


class UnknownTokenError(BpeError, KeyError):
    """A token id has no entry in the vocabulary (Lean: ``decodeBytes`` returns ``none``)."""

    def __init__(self, token_id: int) -> None:
        super().__init__(f"unknown token id {token_id!r}")
        self.token_id = token_id

    def __str__(self) -> str:  # KeyError would otherwise repr() the message
        return str(self.args[0])


class NonAsciiError(BpeError):
    """An ASCII-only function (the proven path) received text with a non-ASCII character."""

    def __init__(self, position: int, char: str) -> None:
        super().__init__(
            f"non-ASCII character {char!r} (U+{ord(char):04X}) at index {position}; "
            "the ASCII-only spec path accepts code points 0-127 only"
        )
        self.position = position
        self.char = char


class InvalidUtf8Error(BpeError):
    """Decoded bytes are not valid UTF-8 (Lean: ``String.fromUTF8?`` returns ``none``), or
    an input named by ``what`` (a file, stdin) is not."""

    def __init__(self, data: bytes, reason: str, what: str | None = None) -> None:
        if what is None:
            super().__init__(f"decoded bytes are not valid UTF-8: {reason}")
        else:
            super().__init__(f"{what} is not valid UTF-8: {reason}")
        self.data = data
        self.reason = reason


class MalformedVocabError(BpeError):
    """A vocabulary file or table is malformed (bad line, wrong hash, missing part...)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        prefix = f"line {line}: " if line is not None else ""
        super().__init__(prefix + message)
        self.line = line


class DisallowedSpecialTokenError(BpeError):
    """The text contains a special token that the caller did not allow (tiktoken semantics)."""

    def __init__(self, token: str) -> None:
        super().__init__(
            f"Encountered text corresponding to disallowed special token {token!r}. "
            "Pass it in allowed_special (or allowed_special='all') to encode it as a special "
            "token, or disallowed_special=() to encode it as ordinary text."
        )
        self.token = token


__all__ = [
    "BpeError",
    "DisallowedSpecialTokenError",
    "InvalidUtf8Error",
    "MalformedVocabError",
    "NonAsciiError",
    "UnknownTokenError",
]


class MalformedModelError(MalformedVocabError):
    """A minbpe-style ``.model`` file is malformed: bad header, a line that does not parse, an
    id that refers to no token defined before it, a truncated file...  ``line`` is the
    1-based line number of the offending line (``None`` if the problem is the whole file),
    ``path`` the file (``None`` for text parsed from a string); ``str(error)`` reads
    ``path: line N: message``."""

    def __init__(self, message: str, line: int | None = None, path: str | None = None) -> None:
        super().__init__(message, line)
        self.message = message
        self.path = path
        if path is not None:
            self.args = (f"{path}: {self.args[0]}",)


__all__ += ["MalformedModelError"]


class MissingRankError(MalformedVocabError, KeyError):
    """A part left by the merges has no rank: the table lacks some single byte (tiktoken's
    core panics there).  Also a ``KeyError``, which the pure-Python engine raises there."""

    def __str__(self) -> str:  # KeyError would show the message quoted
        return str(self.args[0])


__all__ += ["MissingRankError"]


class MalformedGgufError(BpeError):
    """A GGUF file cannot be read as a byte-level BPE vocabulary: bad magic or version, a
    truncated file, a missing ``tokenizer.ggml.*`` key or one of the wrong type, token text
    outside the GPT-2 byte-to-unicode alphabet, a merge that names an unknown token...
    ``path`` is the file (``None`` if unknown); ``str(error)`` reads ``path: message``."""

    def __init__(self, message: str, path: str | None = None) -> None:
        super().__init__(f"{path}: {message}" if path is not None else message)
        self.message = message
        self.path = path


__all__ += ["MalformedGgufError"]


class UnsupportedGgufModelError(MalformedGgufError):
    """A GGUF file whose tokenizer is not byte-level BPE (``tokenizer.ggml.model`` other than
    ``"gpt2"``: SentencePiece ``llama``, WordPiece ``bert``, Unigram ``t5``, ``gemma4``...);
    ``model`` is that name."""

    def __init__(self, model: str, path: str | None = None) -> None:
        kinds = {
            "llama": "SentencePiece BPE",
            "bert": "WordPiece",
            "t5": "Unigram",
            "gemma4": "SentencePiece-style BPE without the GPT-2 byte alphabet",
            "rwkv": "RWKV",
            "plamo2": "PLaMo-2",
        }
        kind = kinds.get(model, "not byte-level BPE")
        what = (
            "is not byte-level BPE ('gpt2'): tokenizer_from_gguf reads it as SentencePiece BPE"
            if model == "llama"
            else "is not supported: only byte-level BPE ('gpt2') and SentencePiece BPE "
            "('llama') are"
        )
        super().__init__(f"tokenizer model {model!r} ({kind}) {what}", path=path)
        self.model = model


__all__ += ["UnsupportedGgufModelError"]


class UnencodableBytesError(BpeError):
    """A vocabulary without some single-byte tokens cannot spell a piece of the text:
    ``piece`` (bytes) has byte ``byte`` that no token covers.  llama.cpp drops such bytes
    silently; :class:`~verified_bpe.formats.gguf_vocab.LlamaCppTokenizer` raises this unless
    asked to drop them too (``drop_missing_bytes=True``)."""

    def __init__(self, piece: bytes, byte: int, name: str | None = None) -> None:
        where = f"{name}: " if name else ""
        super().__init__(
            f"{where}byte 0x{byte:02X} of the piece {piece[:40]!r} has no token in this "
            "vocabulary (llama.cpp would drop it; pass drop_missing_bytes=True to do the same)"
        )
        self.piece = piece
        self.byte = byte


__all__ += ["UnencodableBytesError"]


class VocabularyNotFoundError(BpeError, FileNotFoundError):
    """No source of a published vocabulary is available (no bundled package, nothing valid
    in tiktoken's cache, no download); the message names the fix in one line."""


__all__ += ["VocabularyNotFoundError"]


def _shorten(text: str, limit: int = 60) -> str:
    """``repr(text)``, cut to about ``limit`` characters (errors must stay one short line)."""
    shown = repr(text)
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


class PatternError(BpeError):
    """A split pattern does not compile (``regex`` syntax error, nesting too deep...).
    ``pattern`` is the pattern; ``str(error)`` names it (shortened) and the reason."""

    def __init__(self, pattern: str, reason: str) -> None:
        super().__init__(f"bad split pattern {_shorten(pattern)}: {reason}")
        self.pattern = pattern
        self.reason = reason


class PatternTimeoutError(PatternError):
    """Splitting a text with a pattern that is not one of the package's own took longer than
    its budget (:func:`verified_bpe.engine.patterns.pattern_timeout`): catastrophic backtracking,
    e.g. ``\\w*\\w*\\w*X|.``.  ``pattern``, ``timeout`` (seconds) and ``n_chars`` (length of
    the text) say what was tried."""

    def __init__(self, pattern: str, timeout: float, n_chars: int) -> None:
        super().__init__(pattern, f"splitting {n_chars} characters took more than {timeout:.2f} s")
        self.timeout = timeout
        self.n_chars = n_chars


class InvalidArgumentError(BpeError):
    """An argument has the wrong type or value: a token id that is not a non-negative
    ``int`` (``bool`` excluded), a number that is not ASCII digits, a path that is not a
    regular file...  ``argument`` names it; ``str(error)`` reads ``argument: message``."""

    def __init__(self, argument: str, message: str) -> None:
        super().__init__(f"{argument}: {message}")
        self.argument = argument
        self.message = message


class NotRegularFileError(InvalidArgumentError):
    """A vocabulary file (``.model``, GGUF) is a FIFO, a device, a directory...: refused
    before it is opened for reading (a FIFO would block, a device never end)."""

    def __init__(self, path: str, kind: str) -> None:
        super().__init__(path, f"not a regular file ({kind})")
        self.path = path
        self.kind = kind


__all__ += ["InvalidArgumentError", "NotRegularFileError", "PatternError", "PatternTimeoutError"]


class InvalidTypeError(InvalidArgumentError, TypeError):
    """An argument has the wrong type (a text that is not a ``str``, a token id that is not
    an ``int``...): both an :class:`InvalidArgumentError` and, by Python's convention, a
    ``TypeError``."""


__all__ += ["InvalidTypeError"]


class PatternUnicodeError(PatternError):
    """A custom split pattern uses a construct that tiktoken's engine evaluates with its own
    (older) Unicode tables and that this package cannot pin to them (``\\w``, ``\\d``,
    ``\\b``, a script property...), and the text has a character on which the tables differ
    (one assigned after tiktoken's Unicode version): refused rather than split differently.
    ``construct`` and ``char`` say which."""

    def __init__(self, pattern: str, construct: str, char: str) -> None:
        super().__init__(
            pattern,
            f"{construct} would read U+{ord(char):04X} with newer Unicode tables than "
            "tiktoken's; the split could differ from tiktoken's",
        )
        self.construct = construct
        self.char = char


__all__ += ["PatternUnicodeError"]


class MissingExtraError(ImportError):
    """A call needs an optional package that is not installed (numpy for the flat batches,
    pyarrow for :mod:`verified_bpe.data`, dask or ray for their engines); the message names
    the ``pip install`` that brings it."""

    def __init__(self, module: str, install: str, what: str) -> None:
        super().__init__(f"{what} needs {module}: pip install {install}", name=module)
        self.install = install


def require(module: str, install: str, what: str) -> object:
    """``import module``, or :class:`MissingExtraError` naming ``pip install install``."""
    import importlib
    import sys

    loaded = sys.modules.get(module)
    if loaded is not None:  # imported before (the common case: no import machinery)
        return loaded
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtraError(module, install, what) from None


__all__ += ["MissingExtraError", "require"]


class MalformedTokenizerJsonError(BpeError):
    """A Hugging Face ``tokenizer.json`` cannot be read: not JSON, a missing or mistyped
    field, a merge naming an unknown token...  ``path`` is the file (``None`` for a string);
    ``str(error)`` reads ``path: message``."""

    def __init__(self, message: str, path: str | None = None) -> None:
        super().__init__(f"{path}: {message}" if path is not None else message)
        self.message = message
        self.path = path


class UnsupportedTokenizerJsonError(MalformedTokenizerJsonError):
    """A ``tokenizer.json`` uses a component or option :mod:`verified_bpe.hf` does not
    implement (a WordPiece or Unigram model, a ``Metaspace`` pre-tokenizer, BPE dropout...):
    refused when the file is loaded, never encoded differently.  ``component`` names it
    (``"model.type=WordPiece"``, ``"normalizer.type=Precompiled"``...)."""

    def __init__(self, component: str, path: str | None = None) -> None:
        super().__init__(f"unsupported tokenizer.json component {component}", path=path)
        self.component = component


__all__ += ["MalformedTokenizerJsonError", "UnsupportedTokenizerJsonError"]
