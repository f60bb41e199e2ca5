"""Byte-level BPE vocabularies from GGUF files (llama.cpp's model format).

A GGUF file stores a BPE tokenizer (``tokenizer.ggml.model == "gpt2"``) as metadata:

* ``tokenizer.ggml.tokens``: token id -> token text, in GPT-2's byte-to-unicode spelling
  (every byte is one printable character: ``" "`` is ``"Ġ"``, ``"\\n"`` is ``"Ċ"``);
* ``tokenizer.ggml.merges``: ``"left right"`` strings (same spelling), highest priority
  first;
* ``tokenizer.ggml.pre``: the name of the pre-tokenizer (``"llama-bpe"``, ``"gpt-4o"``...);
* ``tokenizer.ggml.token_type`` (optional): 1 normal, 2 unknown, 3 control, 4 user
  defined, 5 unused, 6 byte; control and user-defined tokens are spelled as plain text;
* ``tokenizer.ggml.bos_token_id`` / ``eos_token_id`` (optional).

:func:`read_gguf_vocab` turns this into a rank table ``{token bytes: id}`` for
:meth:`~verified_bpe.engine.tokenizer.Tokenizer.from_ranks` (tiktoken-style: the id is the rank),
and :func:`tokenizer_from_gguf` builds the tokenizer.  Rank-based merging equals merge-list
BPE when the merges are listed in the order of the ids of the tokens they produce (as in
GGUF files converted from tiktoken vocabularies, e.g. Llama 3); :func:`tokenizer_from_gguf`
checks that order.  Every problem with the file raises
:class:`~verified_bpe.errors.MalformedGgufError`.

The file is parsed by the ``gguf`` package (``GGUFReader``), with reads past the end of the
file turned into errors (the stock reader returns short arrays there).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

from ..engine.patterns import CL100K_PATTERN, GPT2_PATTERN, LLAMA3_PATTERN, O200K_PATTERN, PATTERNS
from ..engine.validate import check_regular_file
from ..errors import BpeError, MalformedGgufError

if TYPE_CHECKING:  # pragma: no cover
    from ..engine.tokenizer import Engine, Tokenizer

KEY_MODEL = "tokenizer.ggml.model"
KEY_PRE = "tokenizer.ggml.pre"
KEY_TOKENS = "tokenizer.ggml.tokens"
KEY_MERGES = "tokenizer.ggml.merges"
KEY_TOKEN_TYPE = "tokenizer.ggml.token_type"
KEY_BOS = "tokenizer.ggml.bos_token_id"
KEY_EOS = "tokenizer.ggml.eos_token_id"

# token types (GGUF / llama.cpp ``llama_token_type``)
TOKEN_NORMAL = 1
TOKEN_UNKNOWN = 2
TOKEN_CONTROL = 3
TOKEN_USER_DEFINED = 4
TOKEN_UNUSED = 5
TOKEN_BYTE = 6

#: llama.cpp ``tokenizer.ggml.pre`` names (and this project's pattern names) -> pattern.
PRE_PATTERNS: dict[str, str] = {
    "default": GPT2_PATTERN,
    "gpt2": GPT2_PATTERN,
    "gpt-2": GPT2_PATTERN,
    "llama-bpe": LLAMA3_PATTERN,
    "llama3": LLAMA3_PATTERN,
    "gpt-4o": O200K_PATTERN,
    "o200k_base": O200K_PATTERN,
    "cl100k_base": CL100K_PATTERN,
    **PATTERNS,
}


# ---------------------------------------------------------------------- byte <-> unicode
@cache
def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's byte -> character table.

    The bytes that are printable Latin-1 characters other than space and soft hyphen
    (``!``..``~``, ``¡``..``¬``, ``®``..``ÿ``) stand for themselves; the other 68 bytes
    (0-32, 127-160, 173), in increasing order, are given the code points 256, 257, ...
    (so byte 32, space, is U+0120 ``Ġ`` and byte 10 is U+010A ``Ċ``).
    """
    printable = [
        *range(ord("!"), ord("~") + 1),
        *range(ord("¡"), ord("¬") + 1),
        *range(ord("®"), ord("ÿ") + 1),
    ]
    table = {b: chr(b) for b in printable}
    extra = 0
    for b in range(256):
        if b not in table:
            table[b] = chr(256 + extra)
            extra += 1
    return dict(sorted(table.items()))


@cache
def unicode_to_bytes() -> dict[str, int]:
    """The inverse of :func:`bytes_to_unicode`."""
    return {char: b for b, char in bytes_to_unicode().items()}


def bytes_to_token_text(data: bytes) -> str:
    """Spell ``data`` in the byte-to-unicode alphabet (how GGUF stores a normal token)."""
    table = bytes_to_unicode()
    return "".join(table[b] for b in data)


def token_text_to_bytes(text: str) -> bytes:
    """The bytes a byte-to-unicode token text stands for.

    Raises :class:`~verified_bpe.errors.MalformedGgufError` for a character outside the
    alphabet (for example a plain space, or any character above U+0143 except the 188
    printable Latin-1 ones).
    """
    table = unicode_to_bytes()
    out = bytearray()
    for position, char in enumerate(text):
        b = table.get(char)
        if b is None:
            raise MalformedGgufError(
                f"character {char!r} (U+{ord(char):04X}) at index {position} of token text "
                f"{text[:40]!r} is not in the GPT-2 byte-to-unicode alphabet"
            )
        out.append(b)
    return bytes(out)


# ---------------------------------------------------------------------- patterns
def pattern_for_pre(pre: str) -> str:
    """The split pattern of a ``tokenizer.ggml.pre`` name (see :data:`PRE_PATTERNS`).

    Raises :class:`~verified_bpe.errors.MalformedGgufError` for a name it does not know.
    """
    try:
        return PRE_PATTERNS[pre]
    except KeyError:
        known = ", ".join(sorted(PRE_PATTERNS))
        raise MalformedGgufError(
            f"unknown pre-tokenizer {pre!r} (known: {known}); pass pattern= explicitly"
        ) from None


# ---------------------------------------------------------------------- the vocabulary
@dataclass(frozen=True)
class GgufVocab:
    """The byte-level BPE tokenizer stored in a GGUF file.

    ``ranks`` maps the bytes of every normal token to its id; ``special_tokens`` maps the
    text of every control / user-defined / unknown token to its id; ``merges`` lists the
    merges (pairs of token bytes) in priority order.
    """

    model: str
    pre: str
    tokens: tuple[str, ...] = field(repr=False)
    ranks: dict[bytes, int] = field(repr=False)
    special_tokens: dict[str, int]
    merges: tuple[tuple[bytes, bytes], ...] = field(repr=False)
    bos_token_id: int | None = None
    eos_token_id: int | None = None

    @property
    def pattern(self) -> str:
        """The split pattern of :attr:`pre`."""
        return pattern_for_pre(self.pre)

    def merge_order_problem(self) -> str | None:
        """``None`` if the merges are in increasing order of the ids they produce and every
        normal token of two or more bytes is produced by exactly one merge (then rank-based
        BPE on the ids equals merge-list BPE); otherwise a description of the first problem."""
        produced: dict[bytes, int] = {}
        previous = -1
        for index, (left, right) in enumerate(self.merges):
            result = left + right
            token_id = self.ranks[result]
            if result in produced:
                return f"merges {produced[result]} and {index} both produce {result!r}"
            if token_id <= previous:
                return (
                    f"merge {index} produces id {token_id}, not above the id {previous} "
                    "produced by the merge before it"
                )
            produced[result] = index
            previous = token_id
        for token in self.ranks:
            if len(token) >= 2 and token not in produced:
                return f"token {token!r} (id {self.ranks[token]}) is produced by no merge"
        return None


def _strict_reader_class() -> type:
    """``gguf.GGUFReader`` whose reads past the end of the file raise ``ValueError``."""
    import gguf

    class StrictReader(gguf.GGUFReader):  # type: ignore[misc]
        def _get(self, offset: int, dtype: Any, count: int = 1, override_order: Any = None) -> Any:
            import numpy as np

            count = int(count)
            end = offset + int(np.empty([], dtype=dtype).itemsize) * count
            if offset < 0 or end > len(self.data):
                size = len(self.data)
                raise ValueError(f"truncated file: needs bytes {offset}..{end}, has {size}")
            return super()._get(offset, dtype, count, override_order)

    return StrictReader


_STRICT_READER: list[type] = []


def _open_reader(path: str) -> Any:
    if not _STRICT_READER:
        _STRICT_READER.append(_strict_reader_class())
    return _STRICT_READER[0](path)


def _scalar_types() -> set[Any]:
    import gguf

    t = gguf.GGUFValueType
    return {t.UINT8, t.INT8, t.UINT16, t.INT16, t.UINT32, t.INT32, t.UINT64, t.INT64}


def _get_string(reader: Any, key: str, required: bool) -> str | None:
    import gguf

    f = reader.fields.get(key)
    if f is None:
        if required:
            raise MalformedGgufError(f"missing key {key!r}")
        return None
    if list(f.types) != [gguf.GGUFValueType.STRING]:
        raise MalformedGgufError(f"{key!r} must be a string, not {_type_name(f.types)}")
    return str(f.contents())


def _get_int(reader: Any, key: str) -> int | None:
    f = reader.fields.get(key)
    if f is None:
        return None
    if len(f.types) != 1 or f.types[0] not in _scalar_types():
        raise MalformedGgufError(f"{key!r} must be an integer, not {_type_name(f.types)}")
    return int(f.contents())


def _get_array(reader: Any, key: str, element: str, required: bool) -> list[Any] | None:
    import gguf

    f = reader.fields.get(key)
    if f is None:
        if required:
            raise MalformedGgufError(f"missing key {key!r}")
        return None
    types = list(f.types)
    if not types or types[0] != gguf.GGUFValueType.ARRAY:
        raise MalformedGgufError(f"{key!r} must be an array, not {_type_name(types)}")
    if len(types) == 1:  # empty array: no element type recorded
        return []
    ok = (
        types[1:] == [gguf.GGUFValueType.STRING]
        if element == "string"
        else len(types) == 2 and types[1] in _scalar_types()
    )
    if not ok:
        raise MalformedGgufError(
            f"{key!r} must be an array of {element}s, not {_type_name(types)}"
        )
    return list(f.contents())


def _type_name(types: Sequence[Any]) -> str:
    return "/".join(getattr(t, "name", str(t)).lower() for t in types) or "nothing"


def _decode_tokens(
    texts: Sequence[str], types: Sequence[int] | None
) -> tuple[dict[bytes, int], dict[str, int]]:
    """Split the token list into the rank table (normal tokens) and the special tokens."""
    if types is not None and len(types) != len(texts):
        raise MalformedGgufError(
            f"{KEY_TOKEN_TYPE!r} has {len(types)} entries for {len(texts)} tokens"
        )
    ranks: dict[bytes, int] = {}
    specials: dict[str, int] = {}
    for token_id, text in enumerate(texts):
        kind = TOKEN_NORMAL if types is None else types[token_id]
        if kind in (TOKEN_CONTROL, TOKEN_USER_DEFINED, TOKEN_UNKNOWN):
            if text in specials:
                raise MalformedGgufError(
                    f"special token {text!r} has ids {specials[text]} and {token_id}"
                )
            specials[text] = token_id
        elif kind == TOKEN_UNUSED:
            continue
        elif kind == TOKEN_NORMAL:
            if not text:
                raise MalformedGgufError(f"token {token_id} is empty")
            try:
                data = token_text_to_bytes(text)
            except MalformedGgufError as exc:
                raise MalformedGgufError(f"token {token_id}: {exc.message}") from None
            if data in ranks:
                raise MalformedGgufError(
                    f"tokens {ranks[data]} and {token_id} are both the bytes {data!r}"
                )
            ranks[data] = token_id
        else:
            raise MalformedGgufError(
                f"token {token_id} has type {kind}, unsupported by byte-level BPE"
            )
    missing = [b for b in range(256) if bytes([b]) not in ranks]
    if missing:
        raise MalformedGgufError(
            f"{len(missing)} single bytes have no token (first: 0x{missing[0]:02X}); "
            "byte-level BPE needs all 256"
        )
    return ranks, specials


def _decode_merges(lines: Sequence[str], ranks: Mapping[bytes, int]) -> list[tuple[bytes, bytes]]:
    """Parse ``"left right"`` merges; both sides and their concatenation must be tokens."""
    merges: list[tuple[bytes, bytes]] = []
    for index, line in enumerate(lines):
        parts = line.split(" ")
        if len(parts) != 2 or not parts[0] or not parts[1]:
            raise MalformedGgufError(f"merge {index} {line[:60]!r} is not 'left right'")
        try:
            left, right = (token_text_to_bytes(p) for p in parts)
        except MalformedGgufError as exc:
            raise MalformedGgufError(f"merge {index}: {exc.message}") from None
        for side in (left, right):
            if side not in ranks:
                raise MalformedGgufError(f"merge {index} {line!r} names unknown token {side!r}")
        if left + right not in ranks:
            raise MalformedGgufError(
                f"merge {index} {line!r} produces {left + right!r}, which is not a token"
            )
        merges.append((left, right))
    return merges


def _check_special_id(key: str, token_id: int | None, n_tokens: int) -> None:
    if token_id is not None and not 0 <= token_id < n_tokens:
        raise MalformedGgufError(f"{key!r} = {token_id} is not a token id (0..{n_tokens - 1})")


def read_gguf_vocab(path: str | os.PathLike[str]) -> GgufVocab:
    """Read the tokenizer metadata of a GGUF file.

    Raises :class:`~verified_bpe.errors.MalformedGgufError` for anything wrong with the file
    (``OSError`` naming the file for one that cannot be opened at all, e.g. a missing one;
    :class:`~verified_bpe.errors.NotRegularFileError` for a FIFO, device or directory).
    """
    where = os.fspath(path)
    check_regular_file(where)  # a FIFO would block, a device never end
    try:
        try:
            reader = _open_reader(where)
        except OSError as exc:
            if exc.filename is not None:
                raise
            raise OSError(exc.errno, exc.strerror or str(exc), where) from None
        except (ValueError, KeyError, IndexError, OverflowError, TypeError) as exc:
            raise MalformedGgufError(f"not a readable GGUF file: {exc}") from None
        try:
            model = _get_string(reader, KEY_MODEL, required=True)
            pre = _get_string(reader, KEY_PRE, required=False) or "default"
            texts = _get_array(reader, KEY_TOKENS, "string", required=True)
            types = _get_array(reader, KEY_TOKEN_TYPE, "integer", required=False)
            merge_lines = _get_array(reader, KEY_MERGES, "string", required=True)
            bos = _get_int(reader, KEY_BOS)
            eos = _get_int(reader, KEY_EOS)
        except UnicodeDecodeError as exc:
            raise MalformedGgufError(f"a string is not valid UTF-8: {exc}") from None
        finally:
            del reader
        assert model is not None and texts is not None and merge_lines is not None
        if not texts:
            raise MalformedGgufError(f"{KEY_TOKENS!r} is empty")
        ranks, specials = _decode_tokens(texts, types)
        merges = _decode_merges(merge_lines, ranks)
        _check_special_id(KEY_BOS, bos, len(texts))
        _check_special_id(KEY_EOS, eos, len(texts))
    except MalformedGgufError as exc:
        if exc.path is not None:
            raise
        raise MalformedGgufError(exc.message, path=where) from None
    return GgufVocab(
        model=model,
        pre=pre,
        tokens=tuple(texts),
        ranks=ranks,
        special_tokens=specials,
        merges=tuple(merges),
        bos_token_id=bos,
        eos_token_id=eos,
    )


def tokenizer_from_vocab(
    vocab: GgufVocab, pattern: str | None = None, engine: Engine = "fast", name: str = "gguf"
) -> Tokenizer:
    """A :class:`~verified_bpe.engine.tokenizer.Tokenizer` for ``vocab``.

    Requires ``model == "gpt2"`` (llama.cpp's byte-level BPE) and merges in id order (see
    :meth:`GgufVocab.merge_order_problem`); ``pattern`` overrides the one named by ``pre``.
    """
    if vocab.model != "gpt2":
        raise MalformedGgufError(
            f"tokenizer model {vocab.model!r} is not byte-level BPE ('gpt2')"
        )
    problem = vocab.merge_order_problem()
    if problem is not None:
        raise MalformedGgufError(f"merges cannot be expressed as ranks: {problem}")
    from ..engine.tokenizer import Tokenizer

    try:
        return Tokenizer.from_ranks(
            vocab.ranks,
            pattern if pattern is not None else vocab.pattern,
            special_tokens=vocab.special_tokens,
            engine=engine,
            name=name,
        )
    except MalformedGgufError:
        raise
    except BpeError as exc:
        raise MalformedGgufError(str(exc)) from None


def tokenizer_from_gguf(
    path: str | os.PathLike[str], pattern: str | None = None, engine: Engine = "fast"
) -> Tokenizer:
    """Read a GGUF file and build its tokenizer (:func:`read_gguf_vocab` then
    :func:`tokenizer_from_vocab`); errors name the file."""
    vocab = read_gguf_vocab(path)
    try:
        return tokenizer_from_vocab(vocab, pattern=pattern, engine=engine, name=os.fspath(path))
    except MalformedGgufError as exc:
        raise MalformedGgufError(exc.message, path=os.fspath(path)) from None


__all__ = [
    "PRE_PATTERNS",
    "GgufVocab",
    "bytes_to_token_text",
    "bytes_to_unicode",
    "pattern_for_pre",
    "read_gguf_vocab",
    "token_text_to_bytes",
    "tokenizer_from_gguf",
    "tokenizer_from_vocab",
    "unicode_to_bytes",
]
