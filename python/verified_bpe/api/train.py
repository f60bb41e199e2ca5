"""Training byte-level BPE tokenizers: minbpe's ``BasicTokenizer`` and ``RegexTokenizer``.

Semantics (those of minbpe's training loop, which recounts every pair at every step):

* the text is UTF-8 encoded; ``RegexTokenizer`` first splits it into chunks with its split
  pattern (default: GPT-4's, :data:`~verified_bpe.engine.patterns.CL100K_PATTERN`) and never counts
  or merges a pair across two chunks; ``BasicTokenizer`` treats the whole text as one chunk;
* step ``k`` (``k = 0 .. vocab_size - 257``) counts every adjacent pair of the current token
  sequence (overlapping occurrences count: ``aaa`` has two ``(a, a)``), picks the most
  frequent pair and merges it into the new id ``256 + k`` everywhere, left to right
  (:func:`verified_bpe.spec.seed.merge.merge`: ``aaa`` becomes ``[aa, a]``);
* **tie-breaking**: among pairs with the highest count, the pair whose first occurrence in
  the current token sequence (chunks in text order) comes first.  This is what minbpe's
  ``max(stats, key=stats.get)`` picks, since ``stats`` is a dict filled in text order and
  ``max`` keeps the first maximum;
* training stops early, with fewer merges, when no pair is left (minbpe raises there).

Only the counting is new code: pair counts are kept per *unique* chunk weighted by its number
of occurrences, and after a merge only the pairs next to the merged positions are updated
(:class:`_PairCounts`).  Encoding and decoding are the spec mirror's functions
(:func:`~verified_bpe.spec.seed.encode.encode_with`, ``encode_chunk``,
:func:`~verified_bpe.spec.seed.merge.decode_bytes`), the vocabulary is
:func:`~verified_bpe.spec.seed.well_formed.build_vocab`, and every trained table is checked with
:func:`~verified_bpe.spec.seed.well_formed.check_well_formed` (identity byte shuffle).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import regex

from ..engine import validate
from ..engine.patterns import CL100K_PATTERN, PATTERNS, compile_pattern, pre_tokenize_regex
from ..errors import (
    DisallowedSpecialTokenError,
    InvalidArgumentError,
    InvalidTypeError,
    MalformedModelError,
    MalformedVocabError,
    PatternError,
)
from ..formats.model_io import (
    FIRST_MERGE_ID,
    IDENTITY_SHUFFLE,
    MODEL_HEADER,
    ModelData,
    format_merge,
    format_vocab,
    read_model,
    render_token,
    write_model,
)
from ..spec.seed.encode import encode_with
from ..spec.seed.merge import decode_bytes
from ..spec.seed.well_formed import WellFormedResult, build_vocab, check_well_formed

if TYPE_CHECKING:
    from ..engine.tokenizer import Tokenizer

Pair = tuple[int, int]
#: ``on_merge(k, pair, idx, count)``: called after merge number ``k`` (0-based).
MergeCallback = Callable[[int, Pair, int, int], None]
AllowedSpecial = Literal["all", "none", "none_raise"] | Collection[str]

__all__ = [
    "BasicTokenizer",
    "RegexTokenizer",
    "load_tokenizer",
    "render_token",
    "train_merges",
    "unique_chunks",
]


# ---------------------------------------------------------------------------- counting
def unique_chunks(chunks: Iterable[bytes]) -> tuple[list[bytes], list[int]]:
    """The distinct chunks of length >= 2 in order of first appearance, and how often each
    occurs (shorter chunks have no pair and never matter)."""
    counts: dict[bytes, int] = {}
    for chunk in chunks:
        if len(chunk) >= 2:
            counts[chunk] = counts.get(chunk, 0) + 1
    return list(counts), list(counts.values())


class _PairCounts:
    """Mutable training state: the distinct chunks laid end to end as doubly linked token
    lists, weighted pair counts, and for each pair a min-heap of the positions where it
    (possibly no longer) occurs.

    Positions are numbered in the order chunk by chunk (chunks in order of first appearance),
    token by token, which is text order of first occurrences: the smallest live position of a
    pair is its first occurrence in the text, the tie-breaker.  A position stops holding a
    pair only when one of its two tokens changes, always to a fresh id, so once stale it never
    becomes valid again for that pair: heaps are cleaned lazily.
    """

    def __init__(self, chunks: Sequence[bytes], weights: Sequence[int]) -> None:
        self.tok: list[int] = []  # token at a position; -1 once merged into its left neighbour
        self.nxt: list[int] = []  # next position in the chunk, -1 at its end
        self.prv: list[int] = []  # previous position in the chunk, -1 at its start
        self.wt: list[int] = []  # weight (occurrences of the chunk) of a position
        for chunk, weight in zip(chunks, weights, strict=True):
            start = len(self.tok)
            n = len(chunk)
            self.tok.extend(chunk)
            self.nxt.extend(range(start + 1, start + n))
            self.nxt.append(-1)
            self.prv.append(-1)
            self.prv.extend(range(start, start + n - 1))
            self.wt.extend([weight] * n)
        self.count: dict[Pair, int] = {}
        self.where: dict[Pair, list[int]] = {}  # appended in increasing order: already heaps
        for i, j in enumerate(self.nxt):
            if j != -1:
                self._add(i, (self.tok[i], self.tok[j]))
        self.best: list[tuple[int, int, Pair]] = [
            (-c, self.where[p][0], p) for p, c in self.count.items()
        ]
        heapq.heapify(self.best)

    # -- bookkeeping
    def _holds(self, i: int, pair: Pair) -> bool:
        """Does position ``i`` currently start an occurrence of ``pair``?"""
        j = self.nxt[i]
        return j != -1 and self.tok[i] == pair[0] and self.tok[j] == pair[1]

    def _add(self, i: int, pair: Pair) -> None:
        self.count[pair] = self.count.get(pair, 0) + self.wt[i]
        positions = self.where.get(pair)
        if positions is None:
            self.where[pair] = [i]
        else:
            heapq.heappush(positions, i)

    def _remove(self, i: int, pair: Pair) -> None:
        self.count[pair] -= self.wt[i]  # the stale heap entry is dropped lazily

    def first_position(self, pair: Pair) -> int:
        """The smallest position that still holds ``pair`` (its count must be positive)."""
        positions = self.where[pair]
        while not self._holds(positions[0], pair):
            heapq.heappop(positions)
        return positions[0]

    # -- the two steps of the training loop
    def pop_best(self) -> tuple[Pair, int] | None:
        """The most frequent pair (first occurrence first on ties) and its count; ``None`` if
        no pair is left.  Every change of a pair's count or first position pushed a fresh
        heap entry, so the first entry that matches the current state is the answer."""
        while self.best:
            neg, first, pair = self.best[0]
            current = self.count.get(pair, 0)
            if current > 0 and current == -neg and self.first_position(pair) == first:
                return pair, current
            heapq.heappop(self.best)
        return None

    def merge(self, pair: Pair, idx: int) -> None:
        """Merge every occurrence of ``pair`` into ``idx``, left to right, updating only the
        pairs that touch a merged position."""
        touched: set[Pair] = set()
        for i in sorted(self.where.pop(pair)):
            if not self._holds(i, pair):  # stale, or consumed by the previous overlapping merge
                continue
            j = self.nxt[i]
            h, k = self.prv[i], self.nxt[j]
            if h != -1:
                left = self.tok[h]
                self._remove(h, (left, pair[0]))
                touched.add((left, pair[0]))
            if k != -1:
                right = self.tok[k]
                self._remove(j, (pair[1], right))
                touched.add((pair[1], right))
            self.count[pair] -= self.wt[i]
            self.tok[i], self.tok[j] = idx, -1
            self.nxt[i] = k
            if k != -1:
                self.prv[k] = i
                self._add(i, (idx, self.tok[k]))
                touched.add((idx, self.tok[k]))
            if h != -1:
                self._add(h, (self.tok[h], idx))
                touched.add((self.tok[h], idx))
        del self.count[pair]
        touched.discard(pair)
        for p in touched:
            c = self.count[p]
            if c > 0:
                heapq.heappush(self.best, (-c, self.first_position(p), p))
            else:
                del self.count[p]
                self.where.pop(p, None)


def train_merges(
    chunks: Iterable[bytes], num_merges: int, on_merge: MergeCallback | None = None
) -> dict[Pair, int]:
    """Learn up to ``num_merges`` merges (ids ``256, 257, ...``) from ``chunks`` (the training
    text, pre-tokenized, in text order), with the semantics and tie-breaking described in the
    module docstring.  Pairs never span two chunks."""
    if num_merges < 0:
        raise ValueError(f"num_merges must be >= 0, not {num_merges}")
    state = _PairCounts(*unique_chunks(chunks))
    merges: dict[Pair, int] = {}
    for k in range(num_merges):
        found = state.pop_best()
        if found is None:
            break
        pair, count = found
        idx = FIRST_MERGE_ID + k
        state.merge(pair, idx)
        merges[pair] = idx
        if on_merge is not None:
            on_merge(k, pair, idx, count)
    return merges


# ---------------------------------------------------------------------------- tokenizers
def _whole(data: bytes) -> list[bytes]:
    """The pre-tokenizer of :class:`BasicTokenizer`: the whole text is one chunk."""
    return [data] if data else []


class BasicTokenizer:
    """minbpe's ``BasicTokenizer``: byte-level BPE on the whole text (no split pattern).

    Attributes: ``merges`` (``dict[(int, int), int]``, in merge order), ``vocab``
    (``dict[int, bytes]``: the 256 bytes and one entry per merge, built by
    :func:`~verified_bpe.spec.seed.well_formed.build_vocab`; unlike minbpe, special tokens are kept
    apart in ``special_tokens`` so that ``vocab`` is exactly the table of the roundtrip
    theorem), ``special_tokens`` (``dict[str, int]``) and ``pattern`` (``""`` here).
    """

    #: First line of this class's ``.model`` files (GPT4Tokenizer's differs).
    _model_header = MODEL_HEADER

    def __init__(self) -> None:
        self.pattern = ""
        self.merges: dict[Pair, int] = {}
        self.special_tokens: dict[str, int] = {}
        self.vocab: dict[int, bytes] = build_vocab(self.merges)
        self._decoder: dict[int, bytes] = dict(self.vocab)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(merges={len(self.merges)})"

    # ------------------------------------------------------------------ tables
    def _pre_tokenize(self, data: bytes) -> list[bytes]:
        """UTF-8 bytes of a text -> chunks that concatenate back to them."""
        return _whole(data)

    def _set_tables(self, merges: Mapping[Pair, int], special_tokens: Mapping[str, int]) -> None:
        """Install merges and special tokens, rebuilding ``vocab`` and the decoder table.
        Atomic: everything is built and checked first, then swapped in (on an error the
        tokenizer is unchanged)."""
        new_merges = dict(merges)
        vocab = build_vocab(new_merges)
        specials, decoder = _with_specials({}, dict(vocab), special_tokens)
        self.merges, self.vocab = new_merges, vocab
        self.special_tokens, self._decoder = specials, decoder

    def register_special_tokens(self, special_tokens: Mapping[str, int]) -> None:
        """Add special tokens (text -> id).  A token is a non-empty ``str``; an id is a
        non-negative ``int`` (:class:`~verified_bpe.errors.InvalidArgumentError` otherwise)
        that is not a byte, merge or other special id
        (:class:`~verified_bpe.errors.MalformedVocabError`).  Atomic: on an error no token
        of the call is added."""
        self.special_tokens, self._decoder = _with_specials(
            self.special_tokens, self._decoder, special_tokens
        )

    def check_well_formed(self) -> WellFormedResult:
        """:func:`~verified_bpe.spec.seed.well_formed.check_well_formed` on ``merges``, ``vocab``
        and the identity byte shuffle: the hypothesis of the roundtrip theorem."""
        return check_well_formed(self.merges, self.vocab, IDENTITY_SHUFFLE)

    # ------------------------------------------------------------------ training
    def train(self, text: str, vocab_size: int, verbose: bool = False) -> None:
        """Learn ``vocab_size - 256`` merges from ``text`` (fewer if the text runs out of
        pairs), replacing any previous merges; special tokens are kept
        (:class:`~verified_bpe.errors.MalformedVocabError` if one's id is now a merge id).
        With ``verbose``, print one line per merge and a summary line (nothing is printed
        otherwise).  ``text`` must be encodable as UTF-8 (no lone surrogates)."""
        validate.text(text, "text")
        if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
            raise InvalidTypeError("vocab_size", f"must be an int, not {type(vocab_size).__name__}")
        if vocab_size < FIRST_MERGE_ID:
            raise _SizeAssertion("vocab_size", f"must be at least 256, not {vocab_size}")
        num_merges = vocab_size - FIRST_MERGE_ID
        chunks = self._pre_tokenize(text.encode("utf-8"))
        report = _printer(num_merges) if verbose else None
        merges = train_merges(chunks, num_merges, report)
        result = check_well_formed(merges, build_vocab(merges), IDENTITY_SHUFFLE)
        if not result.ok:  # cannot happen for trained tables (tested); refuse if it does
            raise MalformedVocabError(f"trained table not well formed: {result.reason}")
        self._set_tables(merges, self.special_tokens)  # atomic: unchanged on an error
        if verbose:
            print(f"trained {len(self.merges)} merges, vocabulary of {len(self.vocab)} tokens")

    # ------------------------------------------------------------------ encode / decode
    def encode_ordinary(self, text: str) -> list[int]:
        """Encode ``text`` ignoring special tokens: the spec's
        :func:`~verified_bpe.spec.seed.encode.encode_with` with this tokenizer's pre-tokenizer, the
        trained merges and the identity byte shuffle."""
        validate.text(text, "text")
        return encode_with(self._pre_tokenize, self.merges, IDENTITY_SHUFFLE, text)

    def encode(self, text: str) -> list[int]:
        """Encode ``text`` (for a ``BasicTokenizer``, special tokens are not recognised)."""
        return self.encode_ordinary(text)

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """The bytes of ``ids`` (:func:`~verified_bpe.spec.seed.merge.decode_bytes`; special
        tokens decode to their UTF-8 text); unknown id:
        :class:`~verified_bpe.errors.UnknownTokenError`; an id that is not an ``int``
        (``True``, ``1.0``): :class:`~verified_bpe.errors.InvalidArgumentError`."""
        return decode_bytes(self._decoder, validate.token_ids(ids, "ids"))

    def decode_single_token_bytes(self, token_id: int) -> bytes:
        """The bytes of one token (what :class:`~verified_bpe.formats.streaming.StreamingDecoder`
        needs; ``decode --stream --model``)."""
        return self.decode_bytes([token_id])

    def decode(self, ids: Iterable[int], errors: str = "replace") -> str:
        """Decode to text; invalid UTF-8 is handled per ``errors`` (minbpe's ``"replace"``;
        ``"strict"`` raises)."""
        return self.decode_bytes(ids).decode("utf-8", errors=errors)

    # ------------------------------------------------------------------ files
    def save(self, file_prefix: str | Path) -> tuple[Path, Path]:
        """Write ``<file_prefix>.model`` (read back by :meth:`load`) and the human-readable
        ``<file_prefix>.vocab``; returns both paths."""
        prefix = str(file_prefix)
        model = write_model(
            prefix + ".model",
            ModelData(self.pattern, self.special_tokens, self.merges),
            self._model_header,
        )
        vocab = Path(prefix + ".vocab")
        vocab.write_text(
            format_vocab(self.merges, self.vocab, self.special_tokens),
            encoding="utf-8",
            newline="\n",
        )
        return model, vocab

    def load(self, model_file: str | Path) -> None:
        """Replace merges, special tokens (and pattern) by those of a ``.model`` file.

        Malformed file, or one with a pattern for a ``BasicTokenizer`` (or none for a
        ``RegexTokenizer``; :func:`load_tokenizer` picks the class):
        :class:`~verified_bpe.errors.MalformedModelError`.
        """
        data = read_model(model_file, self._model_header)
        pattern = self._accept_pattern(data.pattern, str(model_file))
        self._set_tables(data.merges, data.special_tokens)
        self.pattern = pattern

    def _accept_pattern(self, pattern: str, path: str) -> str:
        """The pattern a ``.model`` file gives this class (checked, not yet installed)."""
        if pattern:
            raise MalformedModelError(
                "the file has a split pattern: load it into a RegexTokenizer", 2, path
            )
        return pattern

    # ------------------------------------------------------------------ display
    def visualise(self, limit: int | None = None) -> str:
        """The merges, one line each in merge order, as ``[a][b] -> [ab] id`` with tokens
        shown by :func:`~verified_bpe.formats.model_io.render_token` (first ``limit`` merges)."""
        items = list(self.merges.items())[:limit]
        return "".join(format_merge(pair, idx, self.vocab) + "\n" for pair, idx in items)


class RegexTokenizer(BasicTokenizer):
    """minbpe's ``RegexTokenizer``: the text is split with a regex pattern first, and no
    merge crosses two chunks.

    ``pattern``: a regex (``regex`` module syntax) or one of the names of
    :data:`~verified_bpe.engine.patterns.PATTERNS` (``"gpt2"``, ``"cl100k_base"``, ``"o200k_base"``,
    ``"llama3"``); default GPT-4's (``cl100k_base``).
    """

    def __init__(self, pattern: str | None = None) -> None:
        super().__init__()
        if pattern is None:
            pattern = CL100K_PATTERN
        self.pattern = PATTERNS.get(pattern, pattern)
        if not self.pattern:
            raise ValueError("RegexTokenizer needs a non-empty pattern")
        compile_pattern(self.pattern)  # a bad regex fails here, not at the first encode

    def __repr__(self) -> str:
        return f"RegexTokenizer(pattern={self.pattern[:30]!r}..., merges={len(self.merges)})"

    def _pre_tokenize(self, data: bytes) -> list[bytes]:
        """Split with the pattern (:func:`~verified_bpe.engine.patterns.pre_tokenize_regex`)."""
        return pre_tokenize_regex(data.decode("utf-8"), self.pattern)

    def _accept_pattern(self, pattern: str, path: str) -> str:
        if not pattern:
            raise MalformedModelError(
                "the file has no split pattern: load it into a BasicTokenizer", 2, path
            )
        try:
            compile_pattern(pattern)
        except PatternError as exc:
            raise MalformedModelError(exc.args[0], 2, path) from None
        return pattern

    def encode(self, text: str, allowed_special: AllowedSpecial = "none_raise") -> list[int]:
        """Encode with minbpe's special-token rule: ``allowed_special`` is ``"all"``,
        ``"none"`` (special tokens are ordinary text), ``"none_raise"`` (the default: text
        containing a special token raises
        :class:`~verified_bpe.errors.DisallowedSpecialTokenError`) or a set of tokens."""
        validate.text(text, "text")
        allowed = _allowed_specials(self.special_tokens, allowed_special, text)
        if not allowed:
            return self.encode_ordinary(text)
        ids: list[int] = []
        pieces = _special_splitter(allowed).split(text)
        for k, piece in enumerate(pieces):
            if k % 2:
                ids.append(self.special_tokens[piece])
            elif piece:
                ids.extend(self.encode_ordinary(piece))
        return ids

    def to_tokenizer(self, name: str = "trained") -> Tokenizer:
        """The same tables as a :class:`verified_bpe.engine.tokenizer.Tokenizer` (fast engine by
        default: the ranks are the token ids), e.g. for fast encoding of large texts."""
        from ..engine.tokenizer import Tokenizer

        ranks = {token: idx for idx, token in self.vocab.items()}
        return Tokenizer.from_ranks(ranks, self.pattern, self.special_tokens, name=name)


# ---------------------------------------------------------------------------- helpers
def _printer(num_merges: int) -> MergeCallback:
    """The ``verbose`` progress line of each merge (minbpe's format, tokens rendered)."""

    pieces: dict[int, bytes] = {i: bytes([i]) for i in range(FIRST_MERGE_ID)}

    def report(k: int, pair: Pair, idx: int, count: int) -> None:
        pieces[idx] = pieces[pair[0]] + pieces[pair[1]]
        print(
            f"merge {k + 1}/{num_merges}: {pair} -> {idx} "
            f"([{render_token(pieces[idx])}]) had {count} occurrences"
        )

    return report


def _allowed_specials(
    special_tokens: Mapping[str, int], allowed_special: AllowedSpecial, text: str
) -> set[str]:
    """The special tokens to recognise in ``text`` under minbpe's ``allowed_special``."""
    if allowed_special == "all":
        return set(special_tokens)
    if allowed_special == "none":
        return set()
    if allowed_special == "none_raise":
        for token in special_tokens:
            if token in text:
                raise DisallowedSpecialTokenError(token)
        return set()
    if isinstance(allowed_special, str):
        raise ValueError(f"allowed_special={allowed_special!r} not understood")
    return set(allowed_special) & set(special_tokens)  # others are ignored, as in minbpe


class _SizeAssertion(InvalidArgumentError, AssertionError):
    """minbpe asserts ``vocab_size >= 256`` (``AssertionError``); here it is also the
    package's typed error (a ``ValueError``), and ``python -O`` does not silence it."""


def _with_specials(
    specials: Mapping[str, int], decoder: Mapping[int, bytes], added: Mapping[str, int]
) -> tuple[dict[str, int], dict[int, bytes]]:
    """New special-token and decoder tables: ``specials`` / ``decoder`` plus ``added``, each
    checked (inputs unchanged, so callers can swap the results in atomically)."""
    new_specials, new_decoder = dict(specials), dict(decoder)
    for text, idx in added.items():
        if not isinstance(text, str):  # minbpe ends in a TypeError (re.escape)
            raise InvalidTypeError(
                "special token", f"must be a non-empty str, not {type(text).__name__} {text!r}"
            )
        if not text:
            raise InvalidArgumentError("special token", "must be a non-empty str, not ''")
        validate.token_id(idx, f"special token {text!r}")
        old = new_specials.get(text)
        if old is not None and old != idx:
            del new_decoder[old]  # re-registered under a new id: the old one is free again
        if idx in new_decoder and old != idx:
            raise MalformedVocabError(f"special token {text!r}: id {idx} is already used")
        new_specials[text] = idx
        new_decoder[idx] = text.encode("utf-8")
    return new_specials, new_decoder


def _special_splitter(tokens: Collection[str]) -> regex.Pattern[str]:
    """A pattern whose ``split`` alternates text and special tokens (longest token first)."""
    ordered = sorted(tokens, key=lambda t: (-len(t), t))
    return regex.compile("(" + "|".join(regex.escape(t) for t in ordered) + ")")


def load_tokenizer(model_file: str | Path) -> BasicTokenizer:
    """Load a ``.model`` file as a :class:`RegexTokenizer` if it has a pattern, else as a
    :class:`BasicTokenizer`."""
    data = read_model(model_file)
    tokenizer = RegexTokenizer() if data.pattern else BasicTokenizer()
    # taken literally, not as a name
    tokenizer.pattern = tokenizer._accept_pattern(data.pattern, str(model_file))
    tokenizer._set_tables(data.merges, data.special_tokens)
    return tokenizer
