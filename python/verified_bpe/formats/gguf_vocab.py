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

:func:`read_gguf_vocab` reads it (with :mod:`.gguf_file`, a reader of the metadata alone;
``gguf.GGUFReader`` took minutes per real vocabulary) into ``{token bytes: id}`` for the
normal tokens, the special tokens and the merges.  :func:`tokenizer_from_gguf` builds

* a rank-based :class:`~verified_bpe.engine.tokenizer.Tokenizer` (tiktoken-style: the id is
  the rank) when that is exact: merges listed in the order of the ids they produce, each
  token made by one merge, all 256 single bytes present, a one-regex pre-tokenizer (gpt-2;
  GGUF files converted from tiktoken vocabularies);
* otherwise :class:`LlamaCppTokenizer`: llama.cpp's rules (merge-list BPE, the regex sequence
  of each ``tokenizer.ggml.pre``, ``ignore_merges``, the fallback for missing bytes,
  user-defined tokens), tested against llama.cpp's own vocabulary files and test vectors.

Every problem with the file raises :class:`~verified_bpe.errors.MalformedGgufError`; a
tokenizer that is not byte-level BPE, :class:`~verified_bpe.errors.UnsupportedGgufModelError`.
"""

from __future__ import annotations

import os
import re
from bisect import bisect_right
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property
from itertools import accumulate
from typing import TYPE_CHECKING

from ..engine.merge_list import merge_parts
from ..engine.patterns import (
    CL100K_PATTERN,
    GPT2_PATTERN,
    LLAMA3_PATTERN,
    LLAMA_CPP_PRE,
    LLAMA_CPP_REGEXES,
    O200K_PATTERN,
    PATTERNS,
    split_sequence,
)
from ..engine.validate import check_regular_file
from ..errors import (
    BpeError,
    InvalidArgumentError,
    MalformedGgufError,
    UnencodableBytesError,
    UnknownTokenError,
    UnsupportedGgufModelError,
)
from . import gguf_file
from .special_split import by_length, choose_specials, partition_special

if TYPE_CHECKING:  # pragma: no cover
    from ..engine.tokenizer import Engine, Tokenizer
    from .gguf_spm import SentencePieceBpeTokenizer

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

    ``ranks`` maps the bytes of every normal token to its id (``text_ids``: its text);
    ``special_tokens`` maps the text of every control / user-defined / unknown token to its
    id; ``merge_lines`` are the ``"left right"`` merges in priority order (``merges``: as
    pairs of token bytes).
    """

    model: str
    pre: str
    tokens: tuple[str, ...] = field(repr=False)
    special_tokens: dict[str, int]
    merge_lines: tuple[str, ...] = field(repr=False)
    bos_token_id: int | None = None
    eos_token_id: int | None = None
    odd_tokens: dict[int, str] = field(default_factory=dict, repr=False)
    user_defined: frozenset[int] = frozenset()
    text_ids: dict[str, int] = field(default_factory=dict, repr=False)

    @cached_property
    def ranks(self) -> dict[bytes, int]:
        """``{token bytes: id}`` of the normal tokens (computed on first use)."""
        spelled = _bulk_text_bytes(list(self.text_ids))
        return dict(zip(spelled, self.text_ids.values(), strict=True))  # type: ignore[arg-type]

    @cached_property
    def merges(self) -> tuple[tuple[bytes, bytes], ...]:
        """The merges as pairs of token bytes, in priority order (computed on first use)."""
        spelled = _bulk_text_bytes(" ".join(self.merge_lines).split(" "))
        return tuple(zip(spelled[0::2], spelled[1::2], strict=True))  # type: ignore[arg-type]

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


@cache
def _spelling_table() -> dict[int, str]:
    """``str.translate`` table: a Latin-1 character (standing for its byte) -> the byte's
    character in the byte-to-unicode alphabet."""
    return {b: char for b, char in bytes_to_unicode().items()}


@cache
def _latin1_table() -> dict[int, str]:
    """``str.translate`` table: an alphabet character -> the Latin-1 character of its byte;
    a Latin-1 character outside the alphabet -> a character Latin-1 cannot encode."""
    table = {ord(char): chr(b) for b, char in bytes_to_unicode().items()}
    for code in range(256):
        table.setdefault(code, "\U0010ffff")
    return table


def _text_bytes(text: str) -> bytes | None:
    """:func:`token_text_to_bytes`, fast; ``None`` for a character outside the alphabet."""
    try:
        return text.translate(_latin1_table()).encode("latin-1")
    except UnicodeEncodeError:
        return None


_OUTSIDE_LATIN1 = re.compile("[^\x00-\xff]")
#: A character outside GPT-2's byte-to-unicode alphabet.
_NOT_ALPHABET = re.compile("[^" + re.escape("".join(bytes_to_unicode().values())) + "]")


def _bulk_text_bytes(texts: Sequence[str]) -> list[bytes | None]:
    """:func:`_text_bytes` of every text, in a few passes over their concatenation (one
    ``translate``, one ``encode``; each character stays one character, so the lengths cut
    the result): 5-10 times faster than text by text on a 250,000-token vocabulary."""
    joined = "".join(texts)
    translated = joined.translate(_latin1_table())
    data = translated.encode("latin-1", "replace")
    ends = list(accumulate(map(len, texts)))
    out: list[bytes | None] = [data[a:b] for a, b in zip([0, *ends], ends, strict=False)]
    for m in _OUTSIDE_LATIN1.finditer(translated):  # outside the alphabet
        out[bisect_right(ends, m.start())] = None
    return out


def _decode_tokens(
    texts: Sequence[str], types: Sequence[int] | None
) -> tuple[dict[str, int], dict[int, str], dict[str, int]]:
    """Split the token list into the special tokens
    (``{text: id}``: control, user-defined, unknown) and the normal tokens whose text is not
    in the byte alphabet (``{id: text}``: no byte string of text spells them, so llama.cpp
    never produces them; command-r has such tokens), and the other normal tokens
    (``{text: id}``; :attr:`GgufVocab.ranks` spells them as bytes when first asked)."""
    if types is not None and len(types) != len(texts):
        raise MalformedGgufError(
            f"{KEY_TOKEN_TYPE!r} has {len(types)} entries for {len(texts)} tokens"
        )
    if types is None:
        types = [TOKEN_NORMAL] * len(texts)
    normal = [i for i, kind in enumerate(types) if kind == TOKEN_NORMAL]
    normal_texts = [texts[i] for i in normal]
    joined = "".join(normal_texts)
    odd: dict[int, str] = {}
    if _NOT_ALPHABET.search(joined):  # rare: find the tokens (command-r has 1,403)
        ends = list(accumulate(map(len, normal_texts)))
        for m in _NOT_ALPHABET.finditer(joined):
            token_id = normal[bisect_right(ends, m.start())]
            odd[token_id] = texts[token_id]
    kept = [i for i in normal if i not in odd] if odd else normal
    # the alphabet spells each byte by one character: distinct texts are distinct bytes
    text_ids = {texts[i]: i for i in kept}
    if len(text_ids) != len(kept) or "" in text_ids:
        _token_problem(kept, texts)
    specials: dict[str, int] = {}
    for token_id, kind in enumerate(types):
        if kind in (TOKEN_NORMAL, TOKEN_UNUSED):
            continue
        if kind not in (TOKEN_CONTROL, TOKEN_USER_DEFINED, TOKEN_UNKNOWN):
            raise MalformedGgufError(
                f"token {token_id} has type {kind}, unsupported by byte-level BPE"
            )
        text = texts[token_id]
        if text in specials:
            raise MalformedGgufError(
                f"special token {text!r} has ids {specials[text]} and {token_id}"
            )
        specials[text] = token_id
    return specials, odd, text_ids


def _token_problem(kept: Sequence[int], texts: Sequence[str]) -> None:
    """Raise the error of the first empty or repeated normal token."""
    seen: dict[str, int] = {}
    for token_id in kept:
        text = texts[token_id]
        if not text:
            raise MalformedGgufError(f"token {token_id} is empty")
        if text in seen:
            raise MalformedGgufError(
                f"tokens {seen[text]} and {token_id} are both the bytes "
                f"{token_text_to_bytes(text)!r}"
            )
        seen[text] = token_id
    raise AssertionError("no problem found")  # pragma: no cover


def _check_merges(lines: Sequence[str], text_ids: Mapping[str, int]) -> None:
    """Check ``"left right"`` merges: both sides and their concatenation must be normal
    tokens (compared as texts, so no bytes are built: the errors name the bytes)."""
    sides = " ".join(lines).split(" ")
    if len(sides) != 2 * len(lines) or not all(sides):
        for index, line in enumerate(lines):  # find the culprit
            parts = line.split(" ")
            if len(parts) != 2 or not parts[0] or not parts[1]:
                raise MalformedGgufError(f"merge {index} {line[:60]!r} is not 'left right'")
    known = text_ids.__contains__
    if not all(map(known, sides)):
        index = next(i for i, side in enumerate(sides) if not known(side)) // 2
        left, right = lines[index].split(" ")
        _merge_problem(index, lines[index], _text_bytes(left), _text_bytes(right), text_ids)
    lefts, rights = sides[0::2], sides[1::2]
    products = list(map(str.__add__, lefts, rights))
    if not all(map(known, products)):
        index = next(i for i, p in enumerate(products) if not known(p))
        raise MalformedGgufError(
            f"merge {index} {lines[index]!r} produces {token_text_to_bytes(products[index])!r}, "
            "which is not a token"
        )


def _merge_problem(
    index: int, line: str, left: bytes | None, right: bytes | None, text_ids: Mapping[str, int]
) -> None:
    """Raise the error of a merge with a side outside the alphabet or not a token."""
    if left is None or right is None:
        try:
            for part in line.split(" "):
                token_text_to_bytes(part)
        except MalformedGgufError as exc:
            raise MalformedGgufError(f"merge {index}: {exc.message}") from None
    side = left if line.split(" ")[0] not in text_ids else right
    raise MalformedGgufError(f"merge {index} {line!r} names unknown token {side!r}")


def _check_special_id(key: str, token_id: int | None, n_tokens: int) -> None:
    if token_id is not None and not 0 <= token_id < n_tokens:
        raise MalformedGgufError(f"{key!r} = {token_id} is not a token id (0..{n_tokens - 1})")


def read_gguf_vocab(path: str | os.PathLike[str]) -> GgufVocab:
    """Read the tokenizer metadata of a GGUF file (:func:`~.gguf_file.read_metadata`).

    Raises :class:`~verified_bpe.errors.UnsupportedGgufModelError` (naming the model type) for
    a tokenizer other than byte-level BPE, :class:`~verified_bpe.errors.MalformedGgufError`
    for anything wrong with the file (``OSError`` naming the file for one that cannot be
    opened at all, e.g. a missing one; :class:`~verified_bpe.errors.NotRegularFileError` for
    a FIFO, device or directory).
    """
    where = os.fspath(path)
    check_regular_file(where)  # a FIFO would block, a device never end
    try:
        try:
            with gguf_file.open_metadata(where, (KEY_TOKENS, KEY_MERGES)) as meta:
                model = meta.string(KEY_MODEL, required=True)
                assert model is not None
                if model != "gpt2":
                    raise UnsupportedGgufModelError(model, path=where)
                pre = meta.string(KEY_PRE) or "default"
                texts = meta.strings(KEY_TOKENS, required=True, nonempty=True)
                assert texts is not None
                types = meta.integers(KEY_TOKEN_TYPE, per_token=len(texts))
                merge_lines = meta.strings(KEY_MERGES, required=True, nonempty=True)
                bos = meta.integer(KEY_BOS)
                eos = meta.integer(KEY_EOS)
        except OSError as exc:
            if exc.filename is not None:
                raise
            raise OSError(exc.errno, exc.strerror or str(exc), where) from None
        assert merge_lines is not None
        if not texts:
            raise MalformedGgufError(f"{KEY_TOKENS!r} is empty")
        specials, odd, text_ids = _decode_tokens(texts, types)
        _check_merges(merge_lines, text_ids)
        _check_special_id(KEY_BOS, bos, len(texts))
        _check_special_id(KEY_EOS, eos, len(texts))
    except UnsupportedGgufModelError:
        raise
    except MalformedGgufError as exc:
        if exc.path is not None:
            raise
        raise MalformedGgufError(exc.message, path=where) from None
    user_defined = frozenset(
        i for i in specials.values() if types is not None and types[i] == TOKEN_USER_DEFINED
    )
    return GgufVocab(
        model=model,
        pre=pre,
        tokens=tuple(texts),
        special_tokens=specials,
        merge_lines=tuple(merge_lines),
        bos_token_id=bos,
        eos_token_id=eos,
        odd_tokens=odd,
        user_defined=user_defined,
        text_ids=text_ids,
    )


def _rank_problem(vocab: GgufVocab) -> str | None:
    """Why rank BPE (the id is the rank) would not give merge-list BPE's answer, or ``None``."""
    missing = [b for b in range(256) if bytes([b]) not in vocab.ranks]
    if missing:
        return (
            f"{len(missing)} single bytes have no token (first: 0x{missing[0]:02X}); "
            "byte-level BPE needs all 256"
        )
    if vocab.odd_tokens:
        token_id, text = next(iter(vocab.odd_tokens.items()))
        return f"token {token_id} {text[:40]!r} is not in the GPT-2 byte-to-unicode alphabet"
    return vocab.merge_order_problem()


def tokenizer_from_vocab(
    vocab: GgufVocab, pattern: str | None = None, engine: Engine | None = None, name: str = "gguf"
) -> Tokenizer:
    """A rank-based :class:`~verified_bpe.engine.tokenizer.Tokenizer` for ``vocab``.

    Requires ``model == "gpt2"`` (llama.cpp's byte-level BPE), all 256 single bytes and merges
    in id order (see :meth:`GgufVocab.merge_order_problem`): then rank BPE equals merge-list
    BPE.  ``pattern`` overrides the one named by ``pre``.  Any byte-level file:
    :func:`llama_tokenizer_from_vocab`.
    """
    if vocab.model != "gpt2":
        raise UnsupportedGgufModelError(vocab.model)
    problem = _rank_problem(vocab)
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
    path: str | os.PathLike[str], pattern: str | None = None, engine: Engine | None = None
) -> Tokenizer | LlamaCppTokenizer | SentencePieceBpeTokenizer:
    """Read a GGUF file and build its tokenizer; errors name the file.

    A SentencePiece file (``tokenizer.ggml.model == "llama"``) gives
    :class:`~.gguf_spm.SentencePieceBpeTokenizer`.  For a byte-level file (``"gpt2"``):

    The rank-based :class:`~verified_bpe.engine.tokenizer.Tokenizer` (tiktoken's rules, every
    engine) when that is exact: ``pre`` is one of :data:`PRE_PATTERNS` other than
    ``"default"`` (llama.cpp's default is a sequence of four regexes), or ``pattern`` is
    given; all 256 bytes are tokens and the merges are in id order (gpt-2, ...).  Otherwise,
    and for every other byte-level file, :class:`LlamaCppTokenizer` (llama.cpp's rules).
    """
    where = os.fspath(path)
    try:
        vocab = read_gguf_vocab(path)
    except UnsupportedGgufModelError as exc:
        if exc.model != "llama" or pattern is not None:
            raise
        from .gguf_spm import spm_tokenizer_from_gguf

        return spm_tokenizer_from_gguf(path)
    try:
        single = pattern is not None or (vocab.pre in PRE_PATTERNS and vocab.pre != "default")
        if single and _rank_problem(vocab) is None:
            return tokenizer_from_vocab(vocab, pattern=pattern, engine=engine, name=where)
        if pattern is not None:
            raise MalformedGgufError(f"pattern= needs rank BPE, and {_rank_problem(vocab)}")
        return LlamaCppTokenizer(vocab, name=where)
    except MalformedGgufError as exc:
        if isinstance(exc, UnsupportedGgufModelError):
            raise UnsupportedGgufModelError(exc.model, path=where) from None
        raise MalformedGgufError(exc.message, path=where) from None


def llama_tokenizer_from_gguf(
    path: str | os.PathLike[str], drop_missing_bytes: bool = False
) -> LlamaCppTokenizer:
    """Read a GGUF file and build :class:`LlamaCppTokenizer` (llama.cpp's rules for every
    byte-level BPE file); errors name the file."""
    where = os.fspath(path)
    vocab = read_gguf_vocab(path)
    try:
        return LlamaCppTokenizer(vocab, name=where, drop_missing_bytes=drop_missing_bytes)
    except MalformedGgufError as exc:
        raise MalformedGgufError(exc.message, path=where) from None


# ---------------------------------------------------------------------- llama.cpp's rules
def llama_cpp_pre(pre: str) -> tuple[tuple[str, ...], bool]:
    """The regex sequence and the ``ignore_merges`` flag of a ``tokenizer.ggml.pre`` name
    (:data:`~verified_bpe.engine.patterns.LLAMA_CPP_PRE`); unknown name:
    :class:`~verified_bpe.errors.MalformedGgufError` naming it."""
    try:
        key, ignore_merges = LLAMA_CPP_PRE[pre]
    except KeyError:
        known = ", ".join(sorted(LLAMA_CPP_PRE))
        raise MalformedGgufError(f"unknown pre-tokenizer {pre!r} (known: {known})") from None
    return LLAMA_CPP_REGEXES[key], ignore_merges


class LlamaCppTokenizer:
    """Byte-level BPE as llama.cpp runs it (``llama_vocab::tokenize``, ``LLAMA_VOCAB_TYPE_BPE``):

    1. special tokens: user-defined tokens always, control and unknown tokens too with
       ``parse_special=True``, cut the text first (longest text first, leftmost occurrences);
    2. every other fragment is pre-tokenized by the regex sequence of ``tokenizer.ggml.pre``
       (:func:`~verified_bpe.engine.patterns.split_sequence`);
    3. a word that is itself a token is that token when the pre-tokenizer sets
       ``ignore_merges`` (Llama 3); otherwise merge-list BPE
       (:func:`~verified_bpe.engine.merge_list.merge_list_bpe`: priority = merge index);
    4. each part is looked up in the vocabulary (id = the vocabulary's); a part that is not a
       token (a vocabulary without some single bytes) is replaced, byte by byte, by the
       single-character tokens of its printable ASCII bytes; llama.cpp DROPS its other bytes.
       Here that loss of text raises :class:`~verified_bpe.errors.UnencodableBytesError`
       naming the byte, unless ``drop_missing_bytes=True`` (llama.cpp's behaviour;
       :attr:`dropped_bytes` counts them).

    ``decode_bytes`` concatenates the tokens' bytes (special tokens: their UTF-8 text).
    """

    def __init__(
        self, vocab: GgufVocab, name: str = "gguf", drop_missing_bytes: bool = False
    ) -> None:
        if vocab.model != "gpt2":
            raise UnsupportedGgufModelError(vocab.model)
        self.vocab = vocab
        self.name = name
        self.regexes, self.ignore_merges = llama_cpp_pre(vocab.pre)
        self._ids = vocab.text_ids  # llama.cpp looks tokens up by their text
        lines = vocab.merge_lines  # a pair's rank is the first index of "left right"
        self._merge_ranks = dict(zip(reversed(lines), range(len(lines) - 1, -1, -1), strict=True))
        self._specials = by_length(vocab.special_tokens.items())
        self._user_defined_ids = vocab.user_defined
        self._cache: dict[bytes, tuple[int, ...]] = {}
        self.drop_missing_bytes = drop_missing_bytes
        self.dropped_bytes = 0

    @property
    def n_vocab(self) -> int:
        """The number of token ids (``tokenizer.ggml.tokens``)."""
        return len(self.vocab.tokens)

    @cached_property
    def _decode_table(self) -> dict[int, bytes]:
        """id -> bytes: normal tokens, then special tokens as their UTF-8 text (built on the
        first decode: loading stays cheap)."""
        table = {i: b for b, i in self.vocab.ranks.items()}
        for text, token_id in self.vocab.special_tokens.items():
            table[token_id] = text.encode("utf-8")
        return table

    def _rank(self, left: str, right: str) -> int | None:
        return self._merge_ranks.get(f"{left} {right}")

    def _encode_word(self, word: bytes) -> tuple[int, ...]:
        """The ids of one pre-tokenized word: worked on its byte-to-unicode spelling, as
        llama.cpp does (one part per byte to start with)."""
        cached = self._cache.get(word)
        if cached is not None:
            return cached
        ids = self._ids
        spelled = word.decode("latin-1").translate(_spelling_table())
        dropped = 0
        whole = ids.get(spelled) if self.ignore_merges else None
        if whole is not None:
            out: list[int] = [whole]
        else:
            out = []
            for part in merge_parts(list(spelled), self._rank):
                token_id = ids.get(part)
                if token_id is not None:
                    out.append(token_id)
                    continue
                for char in part:  # llama.cpp: single-character tokens, the rest dropped
                    b = unicode_to_bytes()[char]
                    single = ids.get(char) if 0x21 <= b <= 0x7E else None
                    if single is None:
                        if not self.drop_missing_bytes:
                            raise UnencodableBytesError(token_text_to_bytes(part), b, self.name)
                        dropped += 1
                    else:
                        out.append(single)
        result = tuple(out)
        self.dropped_bytes += dropped
        if not dropped and len(self._cache) < 100_000:
            self._cache[word] = result
        return result

    @property
    def user_defined_tokens(self) -> dict[str, int]:
        """The user-defined tokens (text -> id): they always cut the text first."""
        return {t: i for t, i in self._specials if i in self._user_defined_ids}

    def encode(self, text: str, parse_special: bool | Collection[str] = False) -> list[int]:
        """The ids of ``text`` (no BOS/EOS added), as llama.cpp's ``llama_tokenize`` with
        ``add_special=false``; ``parse_special`` as there (or the texts of the control tokens to
        cut the text).  Lone surrogates are replaced by
        U+FFFD first (they have no UTF-8)."""
        if not isinstance(text, str):
            raise InvalidArgumentError("text", f"must be a str, not {type(text).__name__}")
        text = text.encode("utf-8", "replace").decode("utf-8") if not text.isascii() else text
        out: list[int] = []
        specials = choose_specials(self._specials, self._user_defined_ids, parse_special)
        for fragment in partition_special(text, specials):
            if isinstance(fragment, int):
                out.append(fragment)
                continue
            for word in split_sequence(fragment, self.regexes):
                out.extend(self._encode_word(word.encode("utf-8")))
        return out

    def encode_ordinary(self, text: str) -> list[int]:
        """:meth:`encode` with ``parse_special=False``."""
        return self.encode(text)

    def decode_bytes(self, ids: Sequence[int]) -> bytes:
        """The bytes of ``ids``; an id that is not a token (or a token outside the byte
        alphabet): :class:`~verified_bpe.errors.UnknownTokenError`."""
        out = bytearray()
        table = self._decode_table
        for token_id in ids:
            data = table.get(token_id) if isinstance(token_id, int) else None
            if data is None:
                raise UnknownTokenError(token_id)
            out += data
        return bytes(out)

    def decode_single_token_bytes(self, token_id: int) -> bytes:
        """The bytes of one token (:meth:`decode_bytes` of ``[token_id]``)."""
        return self.decode_bytes([token_id])

    def decode(self, ids: Sequence[int], errors: str = "replace") -> str:
        """:meth:`decode_bytes` as text (``errors`` as in ``bytes.decode``)."""
        return self.decode_bytes(ids).decode("utf-8", errors)

    def __repr__(self) -> str:
        return f"<LlamaCppTokenizer {self.name!r} pre={self.vocab.pre!r}>"


__all__ = [
    "PRE_PATTERNS",
    "GgufVocab",
    "LlamaCppTokenizer",
    "bytes_to_token_text",
    "bytes_to_unicode",
    "llama_cpp_pre",
    "llama_tokenizer_from_gguf",
    "pattern_for_pre",
    "read_gguf_vocab",
    "token_text_to_bytes",
    "tokenizer_from_gguf",
    "tokenizer_from_vocab",
    "unicode_to_bytes",
]
