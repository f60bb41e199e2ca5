"""``tokenizers.Tokenizer`` for byte-level BPE ``tokenizer.json`` files.

The pipeline is ``tokenizers``': added tokens cut the text (those with ``normalized: false``
on the raw text, the others after normalization), the normalizer, the pre-tokenizer, the BPE
model on each piece's UTF-8 bytes (spelled in GPT-2's byte-to-unicode alphabet), the
post-processor; decoding through the decoder.

Two engines run the BPE model, chosen when the file is loaded (:func:`rank_plan`):

* **ranks**: the native engine (:class:`~verified_bpe.engine.native.NativeMerger`: the Lean
  pre-tokenizer machines for the cl100k/o200k patterns, fancy-regex for others, rank BPE),
  when merge-list BPE on the file's merges is rank BPE on its ids: a file whose merges are
  every split of every token in id order with ``ignore_merges`` (transformers' conversion
  of tiktoken ranks, Llama 3), or whose vocabulary and merges are those recovered from
  ``cl100k_base``/``o200k_base`` (the GPT-4o conversion);
* **merges**: merge-list BPE (lowest merge index first, leftmost on ties), for every other
  file: natively (:class:`NativeMergeList`, ``rust/src/merges.rs``; the file's split by
  ``fancy-regex`` and batches without the GIL when the pre-tokenizer is one ``Split``),
  else :func:`~verified_bpe.engine.merge_list.merge_parts` in Python.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ..engine import native
from ..engine.merge_list import merge_parts
from ..engine.patterns import CL100K_PATTERN, O200K_PATTERN
from ..engine.validate import check_regular_file
from ..errors import (
    BpeError,
    InvalidArgumentError,
    InvalidTypeError,
    MalformedTokenizerJsonError,
    UnencodableBytesError,
    UnknownTokenError,
    UnsupportedTokenizerJsonError,
)
from ..formats.gguf_vocab import _spelling_table, unicode_to_bytes
from .components import (
    AddedToken,
    AddedTokenMatcher,
    Piece,
    SplitStep,
    read_added_tokens,
    read_decoder,
    read_normalizer,
    read_post_processor,
    read_pre_tokenizer,
    trim_offsets,
)

Span = tuple[int, int]
Segment = tuple[int, int, AddedToken | None]
#: the native engine's ids of a text's ordinary segments, and the text's segments
_Done = tuple[Sequence[list[int]], list[Segment]]
#: one sequence's ids, tokens, offsets and words, before the post-processor
_Body = tuple[list[int], list[str], list[Span], list[int | None]]

#: SHA-256 of the merges recovered from a tiktoken rank table (``recover_merges``, one
#: ``"left right"`` line per token of two or more bytes in rank order, spelled in the
#: byte-to-unicode alphabet, joined by ``"\n"``), by encoding: a file with these merges,
#: that table as its vocabulary and the encoding's pattern is the proven encoder.
RECOVERED_MERGES_SHA256: dict[str, str] = {
    "cl100k_base": "e1f229c309fdbf445c057a66f5e92f32ad9d9c53536bdb49de867906448141ff",
    "o200k_base": "cd769c46432c5d145feeac823035a1431fd10dda47f5cad7be4890cc4773b9c5",
}

#: SHA-256 of a tiktoken rank table's tokens spelled in the byte-to-unicode alphabet, in
#: rank order (ranks 0..n-1), joined by ``"\n"``: the vocabulary of such a file.
TIKTOKEN_VOCAB_SHA256: dict[str, str] = {
    "cl100k_base": "382b386459ef54c9a389f04eb5dc1dd1143ea9183f0cc640df91a34e1857ca18",
    "o200k_base": "0fc8da96e9c1e979d83a0ad79129255c04f3d2806273de8cba33bbc584ed23fe",
}

_MODEL_DEFAULTS: dict[str, tuple[Any, ...]] = {
    "dropout": (None,),
    "unk_token": (None,),
    "continuing_subword_prefix": (None, ""),
    "end_of_word_suffix": (None, ""),
    "fuse_unk": (False, True),
    "byte_fallback": (False,),
    "ignore_merges": (False, True),
}


class Encoding:
    """The result of :meth:`Tokenizer.encode` (``tokenizers.Encoding``'s attributes):
    ``ids``, ``tokens``, ``offsets`` (character spans of each sequence's text),
    ``attention_mask``, ``type_ids``, ``special_tokens_mask``, ``word_ids``,
    ``sequence_ids`` (``None`` for the post-processor's tokens), ``n_sequences``,
    ``overflowing``, and the word-level calls (``token_to_word``, ``char_to_token``...)."""

    __slots__ = (
        "ids",
        "_tokenizer",
        "_tokens",
        "_offsets",
        "_special",
        "_plan",
        "_type_ids",
        "_words",
        "_ranges",
        "_attention",
        "_overflowing",
    )

    def __init__(
        self,
        tokenizer: Tokenizer,
        ids: list[int],
        special: list[int],
        plan: list[tuple[str, int, int]] | None = None,
        tokens: list[str] | None = None,
        offsets: list[Span] | None = None,
        type_ids: list[int] | None = None,
        words: list[int | None] | None = None,
        ranges: dict[int, Span] | None = None,
    ) -> None:
        self.ids = ids
        self._tokenizer = tokenizer
        self._special = special
        self._plan = plan
        self._tokens = tokens
        self._offsets = offsets
        self._type_ids = type_ids
        self._words = words
        #: ``tokenizers``' ``sequence_ranges``: sequence index -> its tokens' span (empty
        #: without a post-processor for one sequence, and after truncation)
        self._ranges: dict[int, Span] = {} if ranges is None else ranges
        self._attention: list[int] | None = None  # None: all ones
        self._overflowing: list[Encoding] = []

    @property
    def tokens(self) -> list[str]:
        """The token strings (byte-level spelling)."""
        if self._tokens is None:
            names = self._tokenizer._id_to_token
            self._tokens = [names[i] for i in self.ids]  # type: ignore[misc]
        return self._tokens

    @property
    def offsets(self) -> list[Span]:
        """For each token, the span of input characters it came from (in its own sequence;
        for pre-tokenized input, in its own word)."""
        if self._offsets is None:
            assert self._plan is not None
            self._offsets = self._tokenizer._plan_offsets(self._plan, self.ids, self.tokens)
        return self._offsets

    @property
    def word_ids(self) -> list[int | None]:
        """``tokenizers``' ``Encoding.word_ids``: each token's word in its sequence (the
        pieces the added tokens and the pre-tokenizer cut, counted from 0 in each
        sequence; pre-tokenized input: the index of the given word), ``None`` for the
        post-processor's tokens and padding."""
        if self._words is None:
            assert self._plan is not None
            self._words = self._tokenizer._plan_words(self._plan, self.ids)
        return self._words

    @property
    def words(self) -> list[int | None]:
        """:attr:`word_ids` (deprecated in ``tokenizers``, which warns as this does)."""
        warnings.warn(
            "Encoding.words is deprecated, please use Encoding.word_ids instead.",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.word_ids

    @property
    def attention_mask(self) -> list[int]:
        """1 for each token, 0 for padding."""
        return [1] * len(self.ids) if self._attention is None else self._attention

    @property
    def type_ids(self) -> list[int]:
        """Each token's type id (the template's; without one: 0, and 1 for a pair's second
        sequence)."""
        return [0] * len(self.ids) if self._type_ids is None else self._type_ids

    @property
    def special_tokens_mask(self) -> list[int]:
        """1 for the tokens the post-processor added (and padding)."""
        return self._special

    @property
    def n_sequences(self) -> int:
        """The number of sequences (``tokenizers``: of its sequence ranges, at least 1)."""
        return len(self._ranges) or 1

    def _sequence_range(self, sequence_index: int) -> Span:
        """The tokens of a sequence (all tokens when it has no range): ``tokenizers``'
        ``Encoding::sequence_range``."""
        return self._ranges.get(sequence_index, (0, len(self.ids)))

    @property
    def sequence_ids(self) -> list[int | None]:
        """The sequence each token came from (0, or 1 for a pair's second), ``None`` for the
        post-processor's tokens and padding."""
        out: list[int | None] = [None] * len(self.ids)
        for sequence in range(self.n_sequences):
            start, end = self._sequence_range(sequence)
            out[start:end] = [sequence] * (end - start)
        return out

    @property
    def overflowing(self) -> list[Encoding]:
        """The parts truncation cut off (``tokenizers``' ``Encoding.overflowing``)."""
        return list(self._overflowing)

    # ------------------------------------------------------------------ word-level calls
    def token_to_sequence(self, token_index: int) -> int | None:
        """``tokenizers``' ``Encoding.token_to_sequence``: the sequence of a token (0 for
        every index up to the length itself when there are no sequence ranges, as there)."""
        token = _index(token_index, "token_index")
        if token > len(self.ids):
            return None
        if not self._ranges:
            return 0
        return next((k for k, (s, e) in self._ranges.items() if s <= token < e), None)

    def token_to_chars(self, token_index: int) -> Span | None:
        """``tokenizers``' ``Encoding.token_to_chars``: the token's offsets (``None`` out of
        range or outside every sequence)."""
        if self.token_to_sequence(token_index) is None or token_index >= len(self.ids):
            return None
        return self.offsets[token_index]

    def token_to_word(self, token_index: int) -> int | None:
        """``tokenizers``' ``Encoding.token_to_word``: the token's word in its sequence."""
        if self.token_to_sequence(token_index) is None or token_index >= len(self.ids):
            return None
        return self.word_ids[token_index]

    def word_to_tokens(self, word_index: int, sequence_index: int = 0) -> Span | None:
        """``tokenizers``' ``Encoding.word_to_tokens``: ``(first token, last token + 1)`` of
        a word of a sequence (scanning the sequence's tokens while their word is at most
        ``word_index``, as there)."""
        word = _index(word_index, "word_index", 2**32)
        start, end = self._sequence_range(_index(sequence_index, "sequence_index"))
        first = last = None
        for i, w in enumerate(self.word_ids[start:end]):
            if w is not None and w > word:
                break
            if w == word:
                first = i if first is None else first
                last = i + 1
        return None if first is None or last is None else (start + first, start + last)

    def word_to_chars(self, word_index: int, sequence_index: int = 0) -> Span | None:
        """``tokenizers``' ``Encoding.word_to_chars``: from the start of the word's first
        token to the end of its last."""
        found = self.word_to_tokens(word_index, sequence_index)
        if found is None:
            return None
        offsets = self.offsets
        return (offsets[found[0]][0], offsets[found[1] - 1][1])

    def char_to_token(self, char_pos: int, sequence_index: int = 0) -> int | None:
        """``tokenizers``' ``Encoding.char_to_token``: the first token of the sequence whose
        offsets hold the character."""
        pos = _index(char_pos, "char_pos")
        start, end = self._sequence_range(_index(sequence_index, "sequence_index"))
        for i, (s, e) in enumerate(self.offsets[start:end]):
            if s <= pos < e:
                return start + i
        return None

    def char_to_word(self, char_pos: int, sequence_index: int = 0) -> int | None:
        """``tokenizers``' ``Encoding.char_to_word``: the word of :meth:`char_to_token`."""
        token = self.char_to_token(char_pos, sequence_index)
        return None if token is None else self.token_to_word(token)

    def __len__(self) -> int:
        return len(self.ids)

    def __repr__(self) -> str:
        return (
            f"Encoding(num_tokens={len(self.ids)}, attributes=[ids, type_ids, tokens, "
            "offsets, attention_mask, special_tokens_mask, overflowing])"
        )


def _index(value: Any, argument: str, limit: int = 2**64) -> int:
    """An index argument: an ``int`` (``bool`` included, as ``tokenizers`` takes it) in
    ``0 <= value < limit`` (``tokenizers``: ``usize``, ``u32`` for a word)."""
    if not isinstance(value, int):
        raise InvalidTypeError(argument, f"must be an int, not {type(value).__name__}")
    if not 0 <= value < limit:
        raise InvalidArgumentError(argument, f"must be in 0..{limit}, not {value}")
    return int(value)


@dataclass(frozen=True)
class RankPlan:
    """How the native engine runs a file: its rank table (``{bytes: id}``) and pattern,
    and which theorem-backed case it is (``proven``: the cl100k/o200k encoder)."""

    ranks: dict[bytes, int]
    pattern: str
    reason: str
    proven: str | None = None


def _merge_sides(merges: Any, where: str) -> tuple[list[str], list[str]]:
    """The merges' left and right sides: ``"left right"`` strings (split in one pass over
    their concatenation) or two-element lists."""
    if not isinstance(merges, list):
        raise MalformedTokenizerJsonError(f"{where} must be a list")
    if merges and set(map(type, merges)) == {list} and set(map(len, merges)) == {2}:
        lefts, rights = [p[0] for p in merges], [p[1] for p in merges]
        strings = set(map(type, lefts)) == set(map(type, rights)) == {str}
        if strings and "" not in lefts and "" not in rights:
            return lefts, rights
    if merges and set(map(type, merges)) == {str}:
        sides = " ".join(merges).split(" ")
        if len(sides) == 2 * len(merges) and "" not in sides:
            return sides[0::2], sides[1::2]
        pairs: list[Any] = [m.split(" ") for m in merges]
    else:
        pairs = merges
    for i, pair in enumerate(pairs):
        if (
            not isinstance(pair, list | tuple)
            or len(pair) != 2
            or not all(isinstance(p, str) and p for p in pair)
        ):
            raise MalformedTokenizerJsonError(f"{where}[{i}] {merges[i]!r:.60} is not a pair")
    return [p[0] for p in pairs], [p[1] for p in pairs]


def merges_sha256(lefts: Sequence[str], rights: Sequence[str]) -> str:
    """SHA-256 of ``"left right"`` lines joined by newlines (see
    :data:`RECOVERED_MERGES_SHA256`)."""
    text = "\n".join(map(" ".join, zip(lefts, rights, strict=True)))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _joinable(merges: Any) -> bool:
    """Whether the merges are all ``"left right"`` strings or all two-element lists (read
    joined, :func:`_merge_text`; a side that is not a string or is empty is found there)."""
    if not isinstance(merges, list) or not merges:
        return False
    kinds = set(map(type, merges))
    return kinds == {str} or (kinds == {list} and set(map(len, merges)) == {2})


def _merge_text(tok: Tokenizer) -> bytes | None:
    """The merges as ``"left right"`` lines joined by ``"\n"``, UTF-8: the text
    :data:`RECOVERED_MERGES_SHA256` hashes, and the native engines' input.  It is the
    merges exactly when it has one line per merge and every line is a pair (one space
    between non-empty sides): then no side holds a newline or a space (the native readers
    check both; a line count that differs or a line that is not a pair is refused there).
    ``None``: a side that is not a string, or a lone surrogate."""
    merges = tok._merges if tok._joinable else None
    try:
        if merges is not None and isinstance(merges[0], str):
            text = "\n".join(merges)
        elif merges is not None:
            text = "\n".join(map(" ".join, merges))
        else:
            text = "\n".join(map(" ".join, zip(tok._lefts, tok._rights, strict=True)))
        return text.encode("utf-8")
    except (TypeError, UnicodeEncodeError):
        return None


def _merge_count(tok: Tokenizer) -> int:
    """The number of merges."""
    return len(tok._merges) if tok._joinable else len(tok._lefts)


def _vocab_text(vocab: Mapping[str, int]) -> bytes | None:
    """The vocabulary's texts in its order joined by ``"\n"``, UTF-8 (``None``: a lone
    surrogate); a text holding a newline makes more lines than texts, which the native
    readers refuse."""
    try:
        return "\n".join(vocab).encode("utf-8")
    except UnicodeEncodeError:
        return None


def _check_merges(vocab: Mapping[str, int], lefts: Sequence[str], rights: Sequence[str]) -> None:
    """Both sides of every merge and the token it makes must be tokens (``tokenizers``
    refuses the file too: an error for a side, a panic for the result)."""
    known = vocab.__contains__
    if all(map(known, lefts)) and all(map(known, rights)):
        if all(map(known, map(str.__add__, lefts, rights))):
            return
        pairs = enumerate(zip(lefts, rights, strict=True))
        index = next(i for i, (a, b) in pairs if a + b not in vocab)
        raise MalformedTokenizerJsonError(
            f"merge {index} ({lefts[index]!r}, {rights[index]!r}) makes a token not in the "
            "vocabulary"
        )
    pairs = enumerate(zip(lefts, rights, strict=True))
    index = next(i for i, (a, b) in pairs if a not in vocab or b not in vocab)
    raise MalformedTokenizerJsonError(
        f"merge {index} ({lefts[index]!r}, {rights[index]!r}) names an unknown token"
    )


def _text_sha256(vocab: Mapping[str, int]) -> str:
    """SHA-256 of the token texts in the vocabulary's order, joined by newlines."""
    return hashlib.sha256("\n".join(vocab).encode("utf-8")).hexdigest()


def _byte_level_ranks(
    vocab: Mapping[str, int], merges: bytes | None, n_merges: int, texts: bytes | None = None
) -> tuple[dict[bytes, int] | None, str | None]:
    """The vocabulary as a rank table ``{bytes: id}`` (its texts spelled in GPT-2's byte
    alphabet) and, given the merge lines joined (:func:`_merge_text`), ``None`` if the
    merges are every split of every token into two tokens, listed in non-decreasing order
    of the id of the token they make; else ``(None, the first problem)`` (a text outside
    the alphabet, a line that is not a pair, a merge out of place).  The native engine
    checks, without the GIL, on the texts joined (no string read one by one).  Then
    merge-list BPE and rank BPE see the same mergeable pairs in the same order (they could
    differ only on two overlapping splits of one token: tested, not proven).  ``texts``:
    the vocabulary's texts joined, if already encoded."""
    try:
        blob = "\n".join(vocab).encode("utf-8") if texts is None else texts
        return native.module().byte_level_ranks(blob, list(vocab.values()), merges, n_merges)  # type: ignore[no-any-return]
    except (OverflowError, TypeError) as exc:  # an id beyond 32 bits
        return None, str(exc)
    except UnicodeEncodeError:
        return None, "a lone surrogate"


def _all_splits_in_order(
    vocab: Mapping[str, int], lefts: Sequence[str], rights: Sequence[str] | None
) -> str | None:
    """``None`` if the merges (``rights`` ``None``: ``lefts`` are ``"left right"`` lines)
    are every split of every token of a byte-level vocabulary in id order, else the first
    problem (:func:`_byte_level_ranks`)."""
    lines = lefts if rights is None else list(map(" ".join, zip(lefts, rights, strict=True)))
    try:
        blob = "\n".join(lines).encode("utf-8")
    except UnicodeEncodeError:
        return "a lone surrogate"
    return _byte_level_ranks(vocab, blob, len(lines))[1]


class Tokenizer:
    """A ``tokenizer.json`` (``model.type == "BPE"`` with byte-level encoding), with the
    calls of ``tokenizers.Tokenizer`` listed in ``docs/hf.md``."""

    def __init__(self, spec: Mapping[str, Any], path: str | None = None) -> None:
        try:
            self._load(spec)
        except MalformedTokenizerJsonError as exc:
            if isinstance(exc, UnsupportedTokenizerJsonError):
                raise UnsupportedTokenizerJsonError(exc.component, path) from None
            raise MalformedTokenizerJsonError(exc.message, path) from None
        except BpeError as exc:
            raise MalformedTokenizerJsonError(str(exc), path) from None
        self.path = path

    # ------------------------------------------------------------------ loading
    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> Tokenizer:
        """Read a ``tokenizer.json`` file."""
        where = os.fspath(path)
        check_regular_file(where)
        with open(where, "rb") as f:
            data = f.read()
        return cls(_parse(data, where), where)

    @classmethod
    def from_str(cls, json_text: str) -> Tokenizer:
        """Read a ``tokenizer.json`` given as a string."""
        if not isinstance(json_text, str):
            raise InvalidArgumentError("json", f"must be a str, not {type(json_text).__name__}")
        return cls(_parse(json_text, None))

    @classmethod
    def from_buffer(cls, buffer: bytes) -> Tokenizer:
        """Read a ``tokenizer.json`` given as bytes."""
        return cls(_parse(bytes(buffer), None))

    def _load(self, spec: Mapping[str, Any]) -> None:
        if not isinstance(spec, dict):
            raise MalformedTokenizerJsonError("the top level must be an object")
        self._truncation = read_truncation(spec.get("truncation"))
        self._padding = read_padding(spec.get("padding"))
        model = spec.get("model")
        if not isinstance(model, dict):
            raise MalformedTokenizerJsonError("model must be an object")
        kind = model.get("type", "BPE" if "merges" in model else None)
        if kind != "BPE":
            raise UnsupportedTokenizerJsonError(f"model.type={kind}")
        for key, value in model.items():
            if key in ("type", "vocab", "merges"):
                continue
            allowed = _MODEL_DEFAULTS.get(key)
            if allowed is None:
                raise UnsupportedTokenizerJsonError(f"model.{key}")
            if value not in allowed:
                raise UnsupportedTokenizerJsonError(f"model.{key}={value!r}")
        self.ignore_merges = bool(model.get("ignore_merges", False))
        vocab = model.get("vocab")
        if not isinstance(vocab, dict) or (
            vocab and (set(map(type, vocab.values())) != {int} or min(vocab.values()) < 0)
        ):
            raise MalformedTokenizerJsonError("model.vocab must map strings to ids >= 0")
        self._vocab: dict[str, int] = vocab
        merges = model.get("merges", [])
        #: the merges as the file has them, ``"left right"`` lines or ``[left, right]`` lists,
        #: split only when needed (the native engines read them joined, :func:`_merge_text`);
        #: anything else split and checked now
        self._merges: list[Any] = merges
        self._joinable = _joinable(merges)
        if not self._joinable:
            self._sides = _merge_sides(merges, "model.merges")
        self._normalizer = read_normalizer(spec.get("normalizer"))
        self._pre = read_pre_tokenizer(spec.get("pre_tokenizer"))
        if not self._pre.byte_level:
            raise UnsupportedTokenizerJsonError("pre_tokenizer without ByteLevel")
        self._post = read_post_processor(spec.get("post_processor"))
        #: a post-processor gives even one sequence its sequence range (``tokenizers``)
        self._has_post = spec.get("post_processor") is not None
        self._decoder = read_decoder(spec.get("decoder"))
        added = read_added_tokens(spec.get("added_tokens"))
        self._added = added
        self._added_by_id: dict[int, AddedToken] = {t.id: t for t in added}
        self._special_ids = frozenset(t.id for t in added if t.special)
        self._raw_matcher = AddedTokenMatcher([t for t in added if not t.normalized])
        normalize = self._normalizer
        self._norm_matcher = AddedTokenMatcher(  # matched in their normalized form
            [t for t in added if t.normalized],
            None if normalize is None else (lambda content: normalize(Piece(content)).text),
        )
        self._plan = rank_plan(self)
        self._merger: native.NativeMerger | NativeMergeList | None
        if self._plan is not None:
            self._merger = native.NativeMerger(self._plan.ranks, self._plan.pattern)
        else:
            self._merger = native_merge_list(self)  # checks the merges as _check_merges
            if self._merger is None:
                _check_merges(vocab, self._lefts, self._rights)
        self._cache: dict[str, tuple[int, ...]] = {}

    @cached_property
    def _sides(self) -> tuple[list[str], list[str]]:
        """The merges' left and right sides (``MalformedTokenizerJsonError`` for a line or
        list that is not a pair: read while loading unless a native engine took the file
        from the joined lines, whose reading refuses such lines)."""
        return _merge_sides(self._merges, "model.merges")

    @property
    def _lefts(self) -> list[str]:
        return self._sides[0]

    @property
    def _rights(self) -> list[str]:
        return self._sides[1]

    @cached_property
    def _id_to_token(self) -> list[str | None]:
        """id -> token string (added tokens: their content), built on first use."""
        vocab = self._vocab
        size = max([*vocab.values(), *self._added_by_id, -1]) + 1
        names: list[str | None] = [None] * size
        for text, token_id in vocab.items():
            names[token_id] = text
        normalize = self._normalizer
        for token in self._added:  # tokenizers: normalized tokens by their normalized form
            use = token.normalized and normalize is not None
            names[token.id] = normalize(Piece(token.content)).text if use else token.content  # type: ignore[misc]
        return names

    @cached_property
    def _merge_ranks(self) -> dict[tuple[str, str], int]:
        """(left, right) -> merge index; a merge listed twice has its last index (as in
        ``tokenizers``, whose map keeps the last entry)."""
        return {pair: i for i, pair in enumerate(zip(self._lefts, self._rights, strict=True))}

    @cached_property
    def _byte_lengths(self) -> list[int]:
        """The number of bytes of each token (added tokens: their UTF-8)."""
        lengths = [0] * len(self._id_to_token)
        for token_id, name in enumerate(self._id_to_token):
            if name is not None:
                lengths[token_id] = len(name)
        for token in self._added:
            lengths[token.id] = len(token.content.encode("utf-8"))
        return lengths

    # ------------------------------------------------------------------ the model
    def _bpe(self, piece: str) -> tuple[int, ...]:
        """Merge-list BPE of one pre-tokenized piece (``ignore_merges``: a piece that is a
        token is that token)."""
        cached = self._cache.get(piece)
        if cached is not None:
            return cached
        spelled = piece.encode("utf-8").decode("latin-1").translate(_spelling_table())
        vocab = self._vocab
        whole = vocab.get(spelled) if self.ignore_merges else None
        merger = self._merger
        if whole is not None:
            out: tuple[int, ...] = (whole,)
        elif isinstance(merger, NativeMergeList) and (native_ids := merger.bpe(piece)) is not None:
            out = tuple(native_ids)
        else:
            ranks = self._merge_ranks
            parts = merge_parts(list(spelled), lambda a, b: ranks.get((a, b)))
            ids = []
            for part in parts:
                token_id = vocab.get(part)
                if token_id is None:  # tokenizers drops the part: refused here
                    missing = next((c for c in part if c not in vocab), part[0])
                    raise UnencodableBytesError(
                        piece.encode("utf-8"),
                        unicode_to_bytes().get(missing, 0),
                        self.path or "tokenizer.json",
                    )
                ids.append(token_id)
            out = tuple(ids)
        if len(self._cache) >= 100_000:
            self._cache.clear()
        self._cache[piece] = out
        return out

    # ------------------------------------------------------------------ encoding
    def _segments(self, text: str) -> list[Segment]:
        """The text cut by the added tokens matched on the raw text."""
        return self._raw_matcher.split(text)

    def _encode_piece_list(self, piece: Piece, word: int) -> tuple[_Body, int]:
        """Normalize, cut at normalized added tokens, pre-tokenize and encode one segment
        with its offsets and words (the Python path): the pieces are words ``word``,
        ``word + 1``..., as ``tokenizers`` numbers its splits; and the next word."""
        if self._normalizer is not None:
            piece = self._normalizer(piece)
        ids: list[int] = []
        tokens: list[str] = []
        offsets: list[Span] = []
        words: list[int | None] = []
        names = self._id_to_token
        for s, e, added in self._norm_matcher.split(piece.text):
            if added is not None:
                ids.append(added.id)
                tokens.append(piece.text[s:e])  # tokenizers: the matched text
                offsets.append(piece.span(s, e))
                words.append(word)
                word += 1
                continue
            for part in self._pre.run([piece.sub(s, e)]):
                if not part.text:  # tokenizers drops empty splits
                    continue
                part_ids = self._bpe(part.text)
                ids.extend(part_ids)
                tokens.extend(names[i] for i in part_ids)  # type: ignore[misc]
                offsets.extend(_token_spans(part, [len(names[i]) for i in part_ids]))  # type: ignore[arg-type]
                words.extend([word] * len(part_ids))
                word += 1
        return (ids, tokens, offsets, words), word

    def _native_ok(self) -> bool:
        """Whether the native engine encodes whole segments (offsets from the tokens' bytes:
        the split must not change the text; a merge list split in Python, which may add a
        prefix space, runs piece by piece in :meth:`_bpe` instead)."""
        merger = self._merger
        return (
            merger is not None
            and (merger.splits or isinstance(merger, native.NativeMerger))
            and self._normalizer is None
            and not self._norm_matcher.tokens
        )

    def encode(
        self,
        sequence: str | Sequence[str],
        pair: str | Sequence[str] | None = None,
        is_pretokenized: bool = False,
        add_special_tokens: bool = True,
    ) -> Encoding:
        """The encoding of ``sequence``, or of the pair ``sequence``, ``pair``: each encoded
        alone, then joined by the post-processor's pair template (without one: one after
        the other, the second with type id 1).  ``is_pretokenized``: each is a list of
        words, every word encoded alone (added tokens, normalizer, pre-tokenizer, model, as
        ``tokenizers`` does), its offsets within the word."""
        try:
            return self._encode_input(sequence, pair, is_pretokenized, add_special_tokens, None)
        except _MissingByte:  # the Python path names the piece and the byte
            return self._encode_input(
                sequence, pair, is_pretokenized, add_special_tokens, None, False
            )

    def _encode_input(
        self,
        sequence: Any,
        pair: Any,
        is_pretokenized: bool,
        add_special_tokens: bool,
        done: Iterator[_Done] | None,
        use_native: bool = True,
    ) -> Encoding:
        """:meth:`encode`; ``done``: the native engine's results for the texts encoded
        alone, in order (the sequence's words, then the pair's), from :meth:`encode_batch`."""
        plain = self._truncation is None and self._padding is None
        if pair is None and not is_pretokenized and plain:
            text = _text(sequence, "sequence")
            return self._encode(text, add_special_tokens, _next(done), use_native)
        bodies = [self._body(sequence, "sequence", is_pretokenized, done, use_native)]
        if pair is not None:
            bodies.append(self._body(pair, "pair", is_pretokenized, done, use_native))
        return self._post_process(bodies, add_special_tokens)

    def _post_process(self, bodies: list[_Body], add_special_tokens: bool) -> Encoding:
        """``tokenizers``' ``post_process`` (a pair, pre-tokenized input, or truncation or
        padding; :meth:`_encode` fills the single template of a plain text itself): the
        sequences truncated (``max_length`` less the special tokens the template adds), each
        given its range and type id, their offsets trimmed (``ByteLevel``), the template applied and
        the parts merged (overflowing combined as ``Encoding::merge_with`` does), then
        padded to ``length`` (or to itself), rounded up to ``pad_to_multiple_of``."""
        encs = [_raw(self, b, [i] * len(b[0]), [0] * len(b[0])) for i, b in enumerate(bodies)]
        post = self._post
        template = post.single if len(bodies) == 1 else post.pair
        if template is None:
            raise UnsupportedTokenizerJsonError(post.pair_problem, self.path)
        trunc = self._truncation
        if trunc is not None:
            added = sum(len(p.ids) for p in template if p.sequence is None)
            added = added if add_special_tokens and self._has_post else 0
            if trunc["max_length"] < added:  # tokenizers does something else: not implemented
                raise UnsupportedTokenizerJsonError(
                    f"truncation.max_length={trunc['max_length']} below the {added} special "
                    "tokens added",
                    self.path,
                )
            second = encs[1] if len(encs) > 1 else None
            first, second = _truncate_pair(encs[0], second, trunc, trunc["max_length"] - added)
            encs = [first] if second is None else [first, second]
        if not self._has_post:
            result = encs[0]
            if len(encs) > 1:
                result = _raw(self, ([], [], [], []), [], [])
                for i, enc in enumerate(encs):
                    enc._ranges[i] = (0, len(enc.ids))
                    _merge_with(result, enc)
        else:
            for i, enc in enumerate(encs):
                for part in (enc, *enc._overflowing):
                    part._ranges = {i: (0, len(part.ids))}
                    if post.trim_offsets:
                        part._offsets = trim_offsets(
                            part.tokens, part.offsets, post.add_prefix_space
                        )
            result = _raw(self, ([], [], [], []), [], [])
            for piece in template:
                if piece.sequence is None:
                    if add_special_tokens:
                        n = len(piece.ids)
                        body: _Body = (
                            list(piece.ids),
                            list(piece.tokens),
                            [(0, 0)] * n,
                            [None] * n,
                        )
                        _merge_with(result, _raw(self, body, [piece.type_id] * n, [1] * n))
                    continue
                if piece.sequence >= len(encs):  # the single template names only $A
                    continue
                enc = encs[piece.sequence]
                enc._type_ids = [piece.type_id] * len(enc.ids)
                enc._ranges[piece.sequence] = (0, len(enc.ids))
                _merge_with(result, _copy(enc))
        pad = self._padding
        if pad is not None:
            length = len(result.ids) if pad["length"] is None else pad["length"]
            _pad(result, _pad_length(length, pad), pad)
        return result

    def _body(
        self,
        value: Any,
        argument: str,
        is_pretokenized: bool,
        done: Iterator[_Done] | None,
        use_native: bool,
    ) -> _Body:
        """One sequence without the post-processor's tokens, its offsets not trimmed
        (:meth:`_post_process` trims them, after truncation); pre-tokenized, word ``i``'s
        tokens are word ``i``."""
        if not is_pretokenized:
            enc = self._encode(_text(value, argument), False, _next(done), use_native, False)
            return enc.ids, enc.tokens, enc.offsets, enc.word_ids
        ids: list[int] = []
        tokens: list[str] = []
        offsets: list[Span] = []
        words: list[int | None] = []
        for i, word in enumerate(_words(value, argument)):
            enc = self._encode(word, False, _next(done), use_native, trim=False)
            ids += enc.ids
            tokens += enc.tokens
            offsets += enc.offsets
            words += [i] * len(enc.ids)
        return ids, tokens, offsets, words

    def _single_type_ids(self, n_body: int, add_special_tokens: bool) -> list[int] | None:
        """The single template's type ids (``None``: all 0)."""
        template = self._post.single
        if all(p.type_id == 0 for p in template):
            return None
        out: list[int] = []
        for p in template:
            if p.sequence is not None:
                out += [p.type_id] * n_body
            elif add_special_tokens:
                out += [p.type_id] * len(p.ids)
        return out

    def _encode(
        self,
        sequence: str,
        add_special_tokens: bool,
        native_ids: _Done | None,
        use_native: bool = True,
        trim: bool = True,
    ) -> Encoding:
        """One text with the single template (``trim``: offsets trimmed by the
        post-processor's ``ByteLevel``)."""
        sequence = _fix_surrogates(sequence)
        segments = self._segments(sequence) if native_ids is None else native_ids[1]
        ids: list[int] = []
        special: list[int] = []
        post = self._post
        n_pre = len(post.prefix) if add_special_tokens else 0
        n_suf = len(post.suffix) if add_special_tokens else 0
        if add_special_tokens:
            ids.extend(i for i, _ in post.prefix)
        if use_native and self._native_ok() and self._merger is not None:
            plan: list[tuple[str, int, int]] = []  # (kind/text, original start, token count)
            k = 0
            for s, e, added in segments:
                if added is not None:
                    ids.append(added.id)
                    plan.append(("", s, e))
                    continue
                if native_ids is not None:
                    part = native_ids[0][k]
                    k += 1
                else:
                    part = self._encode_native(sequence[s:e])
                ids.extend(part)
                plan.append((sequence[s:e], s, len(part)))
            if add_special_tokens:
                ids.extend(i for i, _ in post.suffix)
            n_body = len(ids) - n_pre - n_suf
            special = [1] * n_pre + [0] * n_body + [1] * n_suf
            return Encoding(
                self,
                ids,
                special,
                plan=[("pre", n_pre, int(trim)), *plan],
                type_ids=self._single_type_ids(n_body, add_special_tokens),
                ranges=self._single_ranges(n_pre, n_body),
            )
        tokens: list[str] = []
        offsets: list[Span] = []
        words: list[int | None] = [None] * n_pre
        if add_special_tokens:
            tokens.extend(t for _, t in post.prefix)
            offsets.extend((0, 0) for _ in post.prefix)
        word = 0
        for s, e, added in segments:
            if added is not None:
                ids.append(added.id)
                tokens.append(sequence[s:e])
                offsets.append((s, e))
                words.append(word)
                word += 1
                continue
            (a, b, c, d), word = self._encode_piece_list(Piece(sequence[s:e], s), word)
            ids.extend(a)
            tokens.extend(b)
            offsets.extend(c)
            words.extend(d)
        n_body = len(ids) - n_pre
        if post.trim_offsets and trim:
            offsets[n_pre:] = trim_offsets(tokens[n_pre:], offsets[n_pre:], post.add_prefix_space)
        if add_special_tokens:
            ids.extend(i for i, _ in post.suffix)
            tokens.extend(t for _, t in post.suffix)
            offsets.extend((0, 0) for _ in post.suffix)
        words += [None] * n_suf
        special = [1] * n_pre + [0] * n_body + [1] * n_suf
        type_ids = self._single_type_ids(n_body, add_special_tokens)
        ranges = self._single_ranges(n_pre, n_body)
        return Encoding(self, ids, special, None, tokens, offsets, type_ids, words, ranges)

    def _single_ranges(self, n_pre: int, n_body: int) -> dict[int, Span]:
        """One sequence's range: its tokens, when there is a post-processor (``tokenizers``
        gives it none without)."""
        return {0: (n_pre, n_pre + n_body)} if self._has_post else {}

    def _plan_words(self, plan: list[tuple[str, int, int]], ids: list[int]) -> list[int | None]:
        """Words of a natively encoded text: each added token is a word, and each piece of
        the pre-tokenizer (run in Python on the segment) is one, whose tokens are those
        its bytes hold (the tokens' bytes walk the pieces')."""
        (_, n_pre, _), *rest = plan
        words: list[int | None] = [None] * n_pre
        lengths = self._byte_lengths
        k, word = n_pre, 0
        for text, start, count in rest:
            if not text:  # an added token
                words.append(word)
                word, k = word + 1, k + 1
                continue
            pieces = [len(p.text.encode("utf-8")) for p in self._pre.run([Piece(text, start)])]
            pieces = [n for n in pieces if n]
            words += _token_words(pieces, [lengths[i] for i in ids[k : k + count]], word)
            word, k = word + len(pieces), k + count
        return words + [None] * (len(ids) - k)

    def _encode_native(self, text: str) -> list[int]:
        merger = self._merger
        assert merger is not None
        if merger.splits:
            ids = merger.encode_ordinary(text)
            if ids is not None:
                return ids
        pieces = [p.text for p in self._pre.run([Piece(text)])]
        return merger.encode_pieces(pieces)

    def _plan_offsets(
        self, plan: list[tuple[str, int, int]], ids: list[int], tokens: list[str]
    ) -> list[Span]:
        """Offsets of a natively encoded text: the tokens' bytes walk each segment."""
        (_, n_pre, trim), *rest = plan
        offsets: list[Span] = [(0, 0)] * n_pre
        lengths = self._byte_lengths
        k = n_pre
        for text, start, count in rest:
            if not text:
                offsets.append((start, count))  # an added token: (start, end)
                k += 1
                continue
            offsets.extend(
                _token_spans(Piece(text, start), [lengths[i] for i in ids[k : k + count]])
            )
            k += count
        offsets.extend([(0, 0)] * (len(ids) - k))
        post = self._post
        if post.trim_offsets and trim:
            offsets[n_pre:k] = trim_offsets(
                tokens[n_pre:k], offsets[n_pre:k], post.add_prefix_space
            )
        return offsets

    def encode_batch(
        self,
        inputs: Sequence[Any],
        is_pretokenized: bool = False,
        add_special_tokens: bool = True,
    ) -> list[Encoding]:
        """:meth:`encode` of every input: a text or a ``(text, text)`` pair (pre-tokenized:
        a list of words or a pair of them).  The native engine encodes the texts on up to
        ``os.cpu_count()`` threads without the GIL."""
        if isinstance(inputs, str) or not isinstance(inputs, Sequence):
            raise InvalidArgumentError("inputs", "must be a list")
        items = [_batch_item(x, is_pretokenized) for x in inputs]
        texts: list[str] = []  # every text encoded alone, in the order _encode_input reads
        if self._native_ok() and self._merger is not None and self._merger.splits:
            for first, second in items:
                for value in (first, second):
                    if value is not None:
                        texts += _words(value, "inputs") if is_pretokenized else [value]
            done = self._native_batch(texts)
            if done is not None:
                it = iter(done)
                return self._pad_batch(
                    [
                        self._encode_input(a, b, is_pretokenized, add_special_tokens, it)
                        for a, b in items
                    ]
                )
        return self._pad_batch(
            [self.encode(a, b, is_pretokenized, add_special_tokens) for a, b in items]
        )

    def _pad_batch(self, encodings: list[Encoding]) -> list[Encoding]:
        """``tokenizers``' ``pad_encodings``: every encoding padded to ``length`` or to the
        longest of the batch, rounded up to ``pad_to_multiple_of``."""
        pad = self._padding
        if pad is not None and encodings:
            length = pad["length"]
            if length is None:
                length = max(len(e.ids) for e in encodings)
            for enc in encodings:
                _pad(enc, _pad_length(length, pad), pad)
        return encodings

    # ------------------------------------------------------------------ padding, truncation
    def enable_padding(
        self,
        direction: str = "right",
        pad_id: int = 0,
        pad_type_id: int = 0,
        pad_token: str = "[PAD]",
        length: int | None = None,
        pad_to_multiple_of: int | None = None,
    ) -> None:
        """``tokenizers``' ``Tokenizer.enable_padding``: pad every encoding to ``length``
        (``None``: a batch to its longest) rounded up to ``pad_to_multiple_of``, on the
        ``direction`` side, with ``pad_id``/``pad_token``/``pad_type_id``."""
        self._padding = padding_params(
            direction, pad_id, pad_type_id, pad_token, length, pad_to_multiple_of
        )

    def no_padding(self) -> None:
        """``tokenizers``' ``Tokenizer.no_padding``."""
        self._padding = None

    @property
    def padding(self) -> dict[str, Any] | None:
        """``tokenizers``' ``Tokenizer.padding``: the padding parameters (a copy), or
        ``None``."""
        return None if self._padding is None else dict(self._padding)

    def enable_truncation(
        self,
        max_length: int,
        stride: int = 0,
        strategy: str = "longest_first",
        direction: str = "right",
    ) -> None:
        """``tokenizers``' ``Tokenizer.enable_truncation``: cut to ``max_length`` tokens
        (special tokens included), the rest in ``Encoding.overflowing`` (windows overlapping
        by ``stride``), ``strategy`` ``longest_first``/``only_first``/``only_second``,
        ``direction`` the side cut off."""
        params = truncation_params(max_length, stride, strategy, direction)
        added = sum(len(p.ids) for p in self._post.single if p.sequence is None)
        added = added if self._has_post else 0
        if params["max_length"] - added < params["stride"]:
            raise InvalidArgumentError(
                "stride",
                f"{params['stride']} must be less than the max length less the {added} special "
                f"tokens ({params['max_length'] - added})",
            )
        self._truncation = params

    def no_truncation(self) -> None:
        """``tokenizers``' ``Tokenizer.no_truncation``."""
        self._truncation = None

    @property
    def truncation(self) -> dict[str, Any] | None:
        """``tokenizers``' ``Tokenizer.truncation``: the truncation parameters (a copy), or
        ``None``."""
        return None if self._truncation is None else dict(self._truncation)

    def _native_batch(self, texts: list[str]) -> list[_Done] | None:
        """Each text cut at added tokens, the ordinary segments encoded in one native batch
        (``None``: a byte without a token or fancy-regex gave up)."""
        assert self._merger is not None
        ordinary: list[str] = []
        counts: list[int] = []
        cuts: list[list[Segment]] = []  # each text's segments, cut once
        for text in map(_fix_surrogates, texts):
            segments = self._segments(text)
            cuts.append(segments)
            parts = [text[s:e] for s, e, added in segments if added is None]
            ordinary.extend(parts)
            counts.append(len(parts))
        batch = self._merger.encode_ordinary_batch(ordinary, os.cpu_count() or 1)
        if batch is None:
            return None
        out: list[_Done] = []
        k = 0
        for count, segments in zip(counts, cuts, strict=True):
            out.append((batch[k : k + count], segments))
            k += count
        return out

    # ------------------------------------------------------------------ decoding
    def decode(self, ids: Sequence[int], skip_special_tokens: bool = True) -> str:
        """The text of ``ids`` through the decoder; special added tokens left out with
        ``skip_special_tokens``.  An id with no token:
        :class:`~verified_bpe.errors.UnknownTokenError`."""
        names = self._id_to_token
        tokens = []
        for token_id in ids:
            if (
                type(token_id) is not int
                or not 0 <= token_id < len(names)
                or names[token_id] is None
            ):
                raise UnknownTokenError(token_id)
            if skip_special_tokens and token_id in self._special_ids:
                continue
            tokens.append(names[token_id])
        return self._decoder(tokens)  # type: ignore[arg-type]

    def decode_bytes(self, ids: Sequence[int]) -> bytes:
        """The bytes of ``ids`` (special tokens kept): what :meth:`decode` turns into text
        (for the command line's ``decode``)."""
        return self.decode(ids, skip_special_tokens=False).encode("utf-8")

    def decode_batch(
        self, sequences: Sequence[Sequence[int]], skip_special_tokens: bool = True
    ) -> list[str]:
        """:meth:`decode` of each id list."""
        return [self.decode(ids, skip_special_tokens) for ids in sequences]

    # ------------------------------------------------------------------ vocabulary
    def token_to_id(self, token: str) -> int | None:
        """The id of a token string (added tokens included), or ``None``."""
        added = next((t.id for t in self._added if t.content == token), None)
        return added if added is not None else self._vocab.get(token)

    def id_to_token(self, id: int) -> str | None:  # noqa: A002 - tokenizers' name
        """The token string of an id, or ``None``."""
        names = self._id_to_token
        return names[id] if type(id) is int and 0 <= id < len(names) else None

    def get_vocab(self, with_added_tokens: bool = True) -> dict[str, int]:
        """``{token: id}`` (a copy)."""
        vocab = dict(self._vocab)
        if with_added_tokens:
            vocab.update((t.content, t.id) for t in self._added)
        return vocab

    def get_vocab_size(self, with_added_tokens: bool = True) -> int:
        """The number of tokens."""
        return len(self.get_vocab(with_added_tokens))

    @property
    def engine(self) -> str:
        """``"ranks"`` (the native rank engine) or ``"merges"`` (merge-list BPE: native when
        the engine is built, see :attr:`native`)."""
        return "ranks" if isinstance(self._merger, native.NativeMerger) else "merges"

    @property
    def native(self) -> bool:
        """Whether the native engine runs the BPE model (both engines; the merge-list one
        splits natively too when its pattern is accepted by ``fancy-regex``)."""
        return self._merger is not None

    @property
    def proven(self) -> str | None:
        """``"cl100k_base"``/``"o200k_base"`` when this file is that encoding's proven encoder
        (see ``docs/hf.md``), else ``None``."""
        return self._plan.proven if self._plan is not None else None

    def __repr__(self) -> str:
        return f"<verified_bpe.hf.Tokenizer {self.path or '(from str)'} engine={self.engine}>"


def _parse(data: str | bytes, path: str | None) -> Any:
    """The parsed file, refused (naming the string) if a string in it holds a lone surrogate,
    as ``tokenizers`` refuses it (serde_json: "lone leading surrogate in hex escape"); Python's
    ``json`` would read it.  The walk runs only when the text can hold one."""
    try:
        spec = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise MalformedTokenizerJsonError(f"not JSON: {exc}", path) from None
    marks = _SURROGATE_TEXT if isinstance(data, str) else _SURROGATE_BYTES
    if marks.search(data) is not None:  # type: ignore[arg-type]
        try:
            where = _lone_surrogate(spec, "")
        except RecursionError:
            raise MalformedTokenizerJsonError("nested too deeply", path) from None
        if where is not None:
            raise MalformedTokenizerJsonError(f"{where} holds a lone surrogate", path)
    return spec


# a surrogate escape (`\ud800`...), or in a str a surrogate code point itself
_SURROGATE_BYTES = re.compile(rb"\\u[dD][89a-fA-F]")
_SURROGATE_TEXT = re.compile(r"\\u[dD][89a-fA-F]|[\ud800-\udfff]")


def _lone_surrogate(value: Any, where: str) -> str | None:
    """Where the first string of ``value`` (a key or a value, depth first) with a lone
    surrogate is: a path such as ``model.vocab key '\\ud800x'``; ``None`` if there is none."""
    if isinstance(value, str):
        return None if _is_utf8(value) else f"{where or 'the top level'} {value!r:.60}"
    if isinstance(value, dict):
        for key, item in value.items():
            inner = f"{where}.{key}" if where else str(key)
            if not _is_utf8(key):
                return f"{where or 'the top level'} key {key!r:.60}"
            found = _lone_surrogate(item, inner)
            if found is not None:
                return found
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found = _lone_surrogate(item, f"{where}[{i}]")
            if found is not None:
                return found
    return None


def _is_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _next(done: Iterator[_Done] | None) -> _Done | None:
    return None if done is None else next(done)


def _text(value: Any, argument: str) -> str:
    if not isinstance(value, str):
        raise InvalidArgumentError(argument, f"must be a str, not {type(value).__name__}")
    return value


def _words(value: Any, argument: str) -> list[str]:
    """A pre-tokenized sequence: a list (or tuple) of str."""
    if isinstance(value, list | tuple) and all(isinstance(w, str) for w in value):
        return list(value)
    raise InvalidArgumentError(argument, "must be a list of str (is_pretokenized)")


def _batch_item(value: Any, is_pretokenized: bool) -> tuple[Any, Any]:
    """An input of ``encode_batch`` as ``(sequence, pair)`` (``pair`` ``None``): a text or a
    pair of texts; pre-tokenized, a list of words or a pair of lists."""
    if is_pretokenized:
        if isinstance(value, list | tuple):
            if all(isinstance(w, str) for w in value):
                return value, None
            if len(value) == 2 and all(isinstance(w, list | tuple) for w in value):
                return value[0], value[1]
        raise InvalidArgumentError(
            "inputs", f"must hold lists of str or pairs of them, not {value!r:.60}"
        )
    if isinstance(value, str):
        return value, None
    pair = isinstance(value, list | tuple) and len(value) == 2
    if pair and all(isinstance(v, str) for v in value):
        return value[0], value[1]
    raise InvalidArgumentError("inputs", f"must hold str or (str, str) pairs, not {value!r:.60}")


def _fix_surrogates(text: str) -> str:
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def _token_spans(piece: Piece, byte_lengths: Sequence[int]) -> list[Span]:
    """The original span of each token of ``piece`` given the tokens' byte lengths: a token
    holding part of a character spans the whole character."""
    text = piece.text
    if text.isascii():
        char_of = None
    else:
        char_of = [i for i, c in enumerate(text) for _ in range(len(c.encode("utf-8")))]
    out = []
    pos = 0
    total = len(text) if char_of is None else len(char_of)
    for n in byte_lengths:
        end = min(pos + n, total)
        if end <= pos:  # a token past the text (cannot happen for byte-level pieces)
            out.append((0, 0))
            continue
        if char_of is None:
            out.append(piece.span(pos, end))
        else:
            out.append(piece.span(char_of[pos], char_of[end - 1] + 1))
        pos = end
    return out


def _token_words(pieces: Sequence[int], tokens: Sequence[int], first: int) -> list[int | None]:
    """The word of each token, given the pieces' and the tokens' byte lengths (the tokens
    of a piece are consecutive and fill it), the pieces being words ``first``,
    ``first + 1``..."""
    out: list[int | None] = []
    word, left = first, pieces[0] if pieces else 0
    index = 0
    for n in tokens:
        while left <= 0 and index + 1 < len(pieces):
            index += 1
            word += 1
            left = pieces[index]
        out.append(word)
        left -= n
    return out


def _without_ids(vocab: Mapping[str, int], added: Sequence[AddedToken]) -> dict[str, int]:
    """``vocab`` without the entries whose id is an added token's (a copy, then the added
    tokens' own entries deleted; an entry of another text with such an id: filtered)."""
    ids = {t.id for t in added}
    out = dict(vocab)
    for token in added:
        if out.get(token.content) == token.id:
            del out[token.content]
    if ids.isdisjoint(out.values()):
        return out
    return {t: i for t, i in out.items() if i not in ids}


class _MissingByte(Exception):
    """A piece holds a byte with no token: the Python path raises the error."""


class NativeMergeList:
    """Merge-list BPE in the native engine (``rust/src/merges.rs``), with the interface of
    :class:`~verified_bpe.engine.native.NativeMerger`: the file's pattern split by
    ``fancy-regex`` when :func:`~verified_bpe.engine.native.fancy_pattern` accepts it
    (:attr:`splits`), else pieces split in Python."""

    def __init__(self, tok: Tokenizer, pattern: str | None, gaps: bool) -> None:
        fancy = None if pattern is None else native.fancy_pattern(pattern)
        try:
            self._bpe = _merge_list_bpe(tok, fancy, gaps)
        except ValueError as exc:
            if fancy is None or not str(exc).startswith("fancy-regex"):
                raise MalformedTokenizerJsonError(str(exc)) from None
            fancy = None
            self._bpe = _merge_list_bpe(tok, None, gaps)
        self.splits = fancy is not None

    def encode_ordinary(self, text: str) -> list[int] | None:
        """The ids of ``text`` split by the pattern; ``None`` if fancy-regex gave up."""
        try:
            return self._bpe.encode_ordinary(text)  # type: ignore[no-any-return]
        except KeyError:
            raise _MissingByte from None
        except RuntimeError:
            return None

    def encode_ordinary_batch(
        self, texts: Sequence[str], num_threads: int
    ) -> list[list[int]] | None:
        """:meth:`encode_ordinary` of each text on ``num_threads`` threads without the GIL
        (``None``: a byte without a token or fancy-regex gave up; the caller encodes each
        text alone)."""
        try:
            return self._bpe.encode_ordinary_batch(list(texts), num_threads)  # type: ignore[no-any-return]
        except (KeyError, RuntimeError):
            return None

    def encode_pieces(self, pieces: list[str]) -> list[int]:
        """The ids of pieces split in Python."""
        try:
            return self._bpe.encode_pieces(pieces)  # type: ignore[no-any-return]
        except KeyError:
            raise _MissingByte from None

    def bpe(self, piece: str) -> list[int] | None:
        """The ids of one piece (``None``: a byte without a token)."""
        try:
            return self._bpe.bpe(piece.encode("utf-8"))  # type: ignore[no-any-return]
        except KeyError:
            return None


def _merge_list_bpe(tok: Tokenizer, pattern: str | None, gaps: bool) -> Any:
    """The native ``MergeListBpe``: from the vocabulary and merge lines joined (no string
    read one by one), else, when the joined texts cannot carry them (a text or side holding
    a newline or a space, a line that is not a pair, a side that is not a string), from the
    dict and the merges split in Python (which names a malformed merge).  ``ValueError``
    naming a merge whose side or result is not a token, or a pattern fancy-regex refuses."""
    module = native.module()
    texts, merges = _vocab_text(tok._vocab), _merge_text(tok)
    if texts is not None and merges is not None:
        ids = list(tok._vocab.values())
        n_merges = _merge_count(tok)
        try:
            return module.MergeListBpe.joined(
                texts, ids, merges, n_merges, tok.ignore_merges, pattern, gaps
            )
        except ValueError as exc:
            if str(exc).startswith("fancy-regex"):
                raise
    return module.MergeListBpe(
        tok._vocab, tok._lefts, tok._rights, tok.ignore_merges, pattern, gaps
    )


def native_merge_list(tok: Tokenizer) -> NativeMergeList | None:
    """The native merge-list engine for a file that :func:`rank_plan` leaves to merge-list
    BPE (``None`` when the native engine is not built).  The split runs natively when the
    pre-tokenizer is one ``Split`` whose pieces are the matches and the text between them
    (``Isolated``) or the matches alone (``Removed`` with ``invert``), then ``ByteLevel``
    without its prefix space."""
    if not native.available():
        return None
    steps = tok._pre.steps
    pattern, gaps = None, True
    if len(steps) == 1 and isinstance(steps[0], SplitStep) and steps[0].find_iter:
        pattern, gaps = steps[0].pattern, steps[0].behaviour == "Isolated"
    try:
        return NativeMergeList(tok, pattern, gaps)
    except (OverflowError, TypeError):  # an id beyond 32 bits: merge-list BPE in Python
        return None


def rank_plan(tok: Tokenizer) -> RankPlan | None:
    """The native engine's plan for a loaded file, or ``None`` (merge-list BPE in Python).

    Required: one split step that gives ``find_iter``'s pieces, then ``ByteLevel`` without
    its regex or prefix space; no normalizer; every byte a token; the vocabulary spelled in
    the byte alphabet; and merges that make merge-list BPE rank BPE (see the module
    docstring)."""
    steps = tok._pre.steps
    if tok._normalizer is not None or len(steps) != 1 or not isinstance(steps[0], SplitStep):
        return None
    step = steps[0]
    known = {CL100K_PATTERN: "cl100k_base", O200K_PATTERN: "o200k_base"}.get(step.pattern)
    if not step.find_iter or (known is None and not tok.ignore_merges):
        return None
    vocab = tok._vocab
    if any(t.content in vocab for t in tok._added):
        # added tokens are matched before the model: they are not ranks
        vocab = _without_ids(vocab, tok._added)
    if not native.available():
        return None
    merges, texts = _merge_text(tok), _vocab_text(vocab)
    if merges is None or texts is None:
        return None
    n_merges = _merge_count(tok)
    proven = (
        known
        if known is not None
        and list(vocab.values()) == list(range(len(vocab)))
        and merges.count(b"\n") + 1 == n_merges  # one line per merge (see _merge_text)
        and hashlib.sha256(texts).hexdigest() == TIKTOKEN_VOCAB_SHA256[known]
        and hashlib.sha256(merges).hexdigest() == RECOVERED_MERGES_SHA256[known]
        else None
    )
    if proven is None and not tok.ignore_merges:
        return None
    # the proven case needs no check: its merges are the pinned ones
    ranks, _ = _byte_level_ranks(vocab, None if proven else merges, n_merges, texts)
    if ranks is None or any(bytes([b]) not in ranks for b in range(256)):
        return None
    if proven is not None:
        return RankPlan(ranks, step.pattern, f"the merges recovered from {proven}", proven)
    return RankPlan(ranks, step.pattern, "every split of every token, in id order")


# ---------------------------------------------------------------------- padding, truncation
_DIRECTIONS = ("right", "left")
_STRATEGIES = ("longest_first", "only_first", "only_second")
_JSON_STRATEGIES = {"LongestFirst": "longest_first", "OnlyFirst": "only_first",
                    "OnlySecond": "only_second"}  # fmt: skip


def _choice(value: Any, argument: str, choices: Sequence[str]) -> str:
    """A str argument among ``choices`` (``tokenizers``: ``ValueError`` naming them)."""
    if value not in choices or not isinstance(value, str):
        raise InvalidArgumentError(argument, f"must be one of {', '.join(choices)}, not {value!r}")
    return value


def _count(value: Any, argument: str, optional: bool = False) -> int | None:
    """A non-negative ``int`` argument (``None`` allowed when ``optional``)."""
    if value is None and optional:
        return None
    return _index(value, argument)


def padding_params(
    direction: Any = "right",
    pad_id: Any = 0,
    pad_type_id: Any = 0,
    pad_token: Any = "[PAD]",
    length: Any = None,
    pad_to_multiple_of: Any = None,
) -> dict[str, Any]:
    """``tokenizers``' ``Tokenizer.padding`` dict for ``enable_padding``'s arguments
    (``length`` ``None``: the longest of the batch)."""
    if not isinstance(pad_token, str):
        raise InvalidTypeError("pad_token", f"must be a str, not {type(pad_token).__name__}")
    return {
        "length": _count(length, "length", True),
        "pad_to_multiple_of": _count(pad_to_multiple_of, "pad_to_multiple_of", True),
        "pad_id": _index(pad_id, "pad_id", 2**32),
        "pad_token": pad_token,
        "pad_type_id": _index(pad_type_id, "pad_type_id", 2**32),
        "direction": _choice(direction, "direction", _DIRECTIONS),
    }


def truncation_params(
    max_length: Any, stride: Any = 0, strategy: Any = "longest_first", direction: Any = "right"
) -> dict[str, Any]:
    """``tokenizers``' ``Tokenizer.truncation`` dict for ``enable_truncation``'s arguments."""
    return {
        "max_length": _index(max_length, "max_length"),
        "stride": _index(stride, "stride"),
        "strategy": _choice(strategy, "strategy", _STRATEGIES),
        "direction": _choice(direction, "direction", _DIRECTIONS),
    }


def read_padding(spec: Any) -> dict[str, Any] | None:
    """A ``tokenizer.json``'s ``padding`` (``null``: none) as :func:`padding_params`."""
    if spec is None:
        return None
    if not isinstance(spec, dict):
        raise MalformedTokenizerJsonError("padding must be an object")
    strategy = spec.get("strategy", "BatchLongest")
    if isinstance(strategy, dict) and set(strategy) == {"Fixed"}:
        length = strategy["Fixed"]
    elif strategy == "BatchLongest":
        length = None
    else:
        raise MalformedTokenizerJsonError(f"padding.strategy {strategy!r:.60}")
    try:
        return padding_params(
            str(spec.get("direction", "Right")).lower(),
            spec.get("pad_id", 0),
            spec.get("pad_type_id", 0),
            spec.get("pad_token", "[PAD]"),
            length,
            spec.get("pad_to_multiple_of"),
        )
    except InvalidArgumentError as exc:
        raise MalformedTokenizerJsonError(f"padding.{exc.argument}: {exc.message}") from None


def read_truncation(spec: Any) -> dict[str, Any] | None:
    """A ``tokenizer.json``'s ``truncation`` (``null``: none) as :func:`truncation_params`."""
    if spec is None:
        return None
    if not isinstance(spec, dict):
        raise MalformedTokenizerJsonError("truncation must be an object")
    try:
        return truncation_params(
            spec.get("max_length"),
            spec.get("stride", 0),
            _JSON_STRATEGIES.get(spec.get("strategy", "LongestFirst"), spec.get("strategy")),
            str(spec.get("direction", "Right")).lower(),
        )
    except InvalidArgumentError as exc:
        raise MalformedTokenizerJsonError(f"truncation.{exc.argument}: {exc.message}") from None


def _raw(
    tok: Tokenizer,
    body: _Body,
    type_ids: list[int],
    special: list[int],
    ranges: dict[int, Span] | None = None,
) -> Encoding:
    """A materialized :class:`Encoding` (every field a list) of one body."""
    ids, tokens, offsets, words = body
    enc = Encoding(tok, ids, special, None, tokens, offsets, type_ids, words, ranges)
    enc._attention = [1] * len(ids)
    return enc


def _slice(enc: Encoding, start: int, stop: int) -> Encoding:
    """Tokens ``start:stop`` of a materialized encoding, without ranges or overflowing."""
    out = _raw(
        enc._tokenizer,
        (enc.ids[start:stop], enc.tokens[start:stop], enc.offsets[start:stop],
         enc.word_ids[start:stop]),
        enc.type_ids[start:stop],
        enc._special[start:stop],
    )  # fmt: skip
    out._attention = enc.attention_mask[start:stop]
    return out


def _copy(enc: Encoding) -> Encoding:
    """A copy of a materialized encoding (overflowing copied too)."""
    out = _slice(enc, 0, len(enc.ids))
    out._ranges = dict(enc._ranges)
    out._overflowing = [_copy(o) for o in enc._overflowing]
    return out


def _truncate(enc: Encoding, max_len: int, stride: int, direction: str) -> Encoding:
    """``tokenizers``' ``Encoding::truncate``: the first window of ``max_len`` tokens (from
    the right end with ``direction="left"``), the next windows (each ``stride`` tokens
    into the previous) as its overflowing; ranges dropped."""
    n = len(enc.ids)
    if max_len >= n:
        return enc
    if max_len == 0:
        out = _raw(enc._tokenizer, ([], [], [], []), [], [])
        out._overflowing = [enc]
        return out
    if stride >= max_len:
        raise InvalidArgumentError(
            "stride", f"must be less than the length left for the sequence ({max_len})"
        )
    step = max_len - stride
    parts: list[Span] = []
    if direction == "right":
        for start in range(0, n, step):
            stop = min(start + max_len, n)
            parts.append((start, stop))
            if stop == n:
                break
    else:
        for stop in range(n, 0, -step):
            start = max(stop - max_len, 0)
            parts.append((start, stop))
            if start == 0:
                break
    out = _slice(enc, *parts[0])
    out._overflowing = [_slice(enc, s, e) for s, e in parts[1:]]
    return out


def _truncate_pair(
    first: Encoding, second: Encoding | None, params: Mapping[str, Any], max_length: int
) -> tuple[Encoding, Encoding | None]:
    """``tokenizers``' ``truncate_encodings``: longest first (a pair cut so the shorter keeps
    what it can, else both to half), or only the first or the second sequence."""
    stride, direction = params["stride"], params["direction"]
    if max_length == 0:
        first = _truncate(first, 0, stride, direction)
        second = None if second is None else _truncate(second, 0, stride, direction)
        return first, second
    total = len(first.ids) + (0 if second is None else len(second.ids))
    if total <= max_length:
        return first, second
    to_remove = total - max_length
    strategy = params["strategy"]
    if strategy == "longest_first":
        if second is None:
            return _truncate(first, max_length, stride, direction), None
        n1, n2 = len(first.ids), len(second.ids)
        swap = n1 > n2
        if swap:
            n1, n2 = n2, n1
        n2 = n1 if n1 > max_length else max(n1, max_length - n1)
        if n1 + n2 > max_length:
            n1 = max_length // 2
            n2 = n1 + max_length % 2
        if swap:
            n1, n2 = n2, n1
        return _truncate(first, n1, stride, direction), _truncate(second, n2, stride, direction)
    if strategy == "only_second" and second is None:
        raise InvalidArgumentError("strategy", "only_second needs a pair (second sequence)")
    target = first if strategy == "only_first" else second
    assert target is not None
    if len(target.ids) <= to_remove:
        raise InvalidArgumentError(
            "max_length", f"{strategy}: the sequence to truncate is too short to fit"
        )
    cut = _truncate(target, len(target.ids) - to_remove, stride, direction)
    return (cut, second) if strategy == "only_first" else (first, cut)


def _merge_with(enc: Encoding, other: Encoding) -> None:
    """``tokenizers``' ``Encoding::merge_with`` (offsets not shifted): ``other`` appended,
    its ranges shifted; the overflowing become every combination of each side's
    overflowing with the other side (and with its overflowing)."""
    overflowing = []
    for mine in enc._overflowing:
        joined = _copy(mine)
        _merge_with(joined, _copy(other))
        overflowing.append(joined)
        for theirs in other._overflowing:
            joined = _copy(mine)
            _merge_with(joined, _copy(theirs))
            overflowing.append(joined)
    for theirs in other._overflowing:
        joined = _copy(enc)
        _merge_with(joined, _copy(theirs))
        overflowing.append(joined)
    n = len(enc.ids)
    enc._ranges.update((k, (s + n, e + n)) for k, (s, e) in other._ranges.items())
    enc.ids = enc.ids + other.ids
    enc._type_ids = enc.type_ids + other.type_ids
    enc._tokens = enc.tokens + other.tokens
    enc._words = enc.word_ids + other.word_ids
    enc._offsets = enc.offsets + other.offsets
    enc._special = enc._special + other._special
    enc._attention = enc.attention_mask + other.attention_mask
    enc._overflowing = overflowing


def _pad(enc: Encoding, length: int, params: Mapping[str, Any]) -> None:
    """``tokenizers``' ``Encoding::pad``: the overflowing padded, then this encoding to
    ``length`` with the pad token (attention 0, special 1, word ``None``; on the left, the
    ranges shift)."""
    for part in enc._overflowing:
        _pad(part, length, params)
    n = length - len(enc.ids)
    if n <= 0:
        return
    pad_id, pad_type, pad_token = params["pad_id"], params["pad_type_id"], params["pad_token"]
    fields = (
        [pad_id] * n, [pad_type] * n, [pad_token] * n, [None] * n, [(0, 0)] * n, [1] * n,
        [0] * n,
    )  # fmt: skip
    mine = (
        enc.ids, enc.type_ids, enc.tokens, enc.word_ids, enc.offsets, enc._special,
        enc.attention_mask,
    )  # fmt: skip
    if params["direction"] == "left":
        joined = [p + m for p, m in zip(fields, mine, strict=True)]  # type: ignore[operator]
        enc._ranges = {k: (s + n, e + n) for k, (s, e) in enc._ranges.items()}
    else:
        joined = [m + p for p, m in zip(fields, mine, strict=True)]  # type: ignore[operator]
    (enc.ids, enc._type_ids, enc._tokens, enc._words, enc._offsets, enc._special,
     enc._attention) = joined  # fmt: skip


def _pad_length(length: int, params: Mapping[str, Any]) -> int:
    """``length`` rounded up to ``pad_to_multiple_of`` (when set and not 0)."""
    multiple = params["pad_to_multiple_of"]
    if multiple and length % multiple:
        length += multiple - length % multiple
    return length


__all__ = [
    "Encoding",
    "NativeMergeList",
    "RankPlan",
    "Tokenizer",
    "merges_sha256",
    "native_merge_list",
    "rank_plan",
]
