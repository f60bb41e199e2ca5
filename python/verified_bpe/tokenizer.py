"""The tokenizer users touch: tiktoken-compatible encode/decode on two engines.

* ``engine="spec"``: the literal mirror of the Lean spec.  Merges are recovered from the
  ranks (:func:`~verified_bpe.spec.decompose.recover_merges`), bytes are shuffled into
  single-byte token ids (:func:`~verified_bpe.spec.shuffle.byte_shuffle_from_ranks`), the
  table is checked with :func:`~verified_bpe.spec.well_formed.check_well_formed`, and text is
  encoded with :func:`~verified_bpe.spec.encode.encode_with` / ``encode_chunk``.  All text of
  cl100k_base and o200k_base goes through the mirror of the Lean Unicode state machine of the
  encoding (:mod:`~verified_bpe.spec.pretokenize_cl100k`,
  :mod:`~verified_bpe.spec.pretokenize_o200k`, character tables pinned to tiktoken's); only
  other patterns (custom rank tables) use the regex pre-tokenizer.  Meant for checking.
* ``engine="fast"``: regex pre-tokenization (for ASCII text the standard library's ``re``
  with the pattern's ASCII translation, :func:`~verified_bpe.patterns.ascii_pattern`; the
  ``regex`` module otherwise, with the character classes pinned to tiktoken's tables by
  :class:`~verified_bpe.patterns.PinnedSplitter`), a per-tokenizer chunk cache, and a heap
  plus linked-list merge loop working directly on the ranks (seed 003): each step merges the
  adjacent pair whose concatenation has the lowest rank, leftmost first on ties.

Both give the same ids as tiktoken (tested on both encodings, see
``tests/test_tokenizer_differential.py``).
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Literal

import regex

from .errors import DisallowedSpecialTokenError, MalformedVocabError
from .patterns import PinnedSplitter, ascii_pattern
from .spec.decompose import recover_merges
from .spec.encode import decode_chunk, encode_with
from .spec.merge import decode_bytes
from .spec.pretokenize_cl100k import pre_tokenize_cl100k
from .spec.pretokenize_o200k import pre_tokenize_o200k
from .spec.shuffle import byte_shuffle_from_ranks, invert_shuffle
from .spec.well_formed import build_vocab, check_well_formed

Engine = Literal["fast", "spec"]

#: Mirrors of the Lean pre-tokenizers (Unicode state machines), used by the spec engine for
#: all text of these encodings.
SPEC_PRE_TOKENIZERS: dict[str, Callable[[bytes], list[bytes]]] = {
    "cl100k_base": pre_tokenize_cl100k,
    "o200k_base": pre_tokenize_o200k,
}

_CACHE_LIMIT = 200_000  # chunk-cache entries before the fast engine's cache is cleared


@dataclass(frozen=True)
class SpecTables:
    """Everything the spec engine needs, derived from a rank table."""

    merges: dict[tuple[int, int], int]
    vocab: dict[int, bytes]
    byte_shuffle: list[int]
    inverse_shuffle: list[int]


def spec_tables(ranks: Mapping[bytes, int]) -> SpecTables:
    """Recover merges, build the (shuffled) vocab and check that the table is well formed.

    Raises :class:`~verified_bpe.errors.MalformedVocabError` if it is not.
    """
    merges = recover_merges(ranks)
    byte_shuffle = byte_shuffle_from_ranks(ranks)
    vocab = build_vocab(merges)
    result = check_well_formed(merges, vocab, byte_shuffle)
    if not result.ok:
        raise MalformedVocabError(f"rank table is not well formed: {result.field}: {result.reason}")
    return SpecTables(merges, vocab, byte_shuffle, invert_shuffle(byte_shuffle))


@cache
def _named_spec_tables(name: str) -> SpecTables:
    from .vocab import load_ranks

    return spec_tables(load_ranks(name))


def bpe_ranks(ranks: Mapping[bytes, int], piece: bytes) -> list[int]:
    """Rank-based BPE of one chunk with a heap and a linked list (the fast engine's core).

    Symbols are identified by their start offset; ``nxt[s]`` is the start of the following
    symbol (``-1`` once ``s`` has been absorbed into its left neighbour) and ``prv[s]`` the
    start of the preceding one.  A heap entry ``(rank, start, end)`` stands for "the two
    adjacent symbols covering ``piece[start:end]``"; it is stale unless ``start`` is alive and
    the symbol after it ends at ``end``.  Since the rank depends only on the covered bytes, a
    live entry is always exact, and heap order ``(rank, start)`` is "lowest rank, leftmost".
    """
    n = len(piece)
    token = ranks.get(piece)
    if token is not None:
        return [token]
    nxt = list(range(1, n + 1))
    prv = list(range(-1, n - 1))
    heap: list[tuple[int, int, int]] = []
    for s in range(n - 1):
        rank = ranks.get(piece[s : s + 2])
        if rank is not None:
            heap.append((rank, s, s + 2))
    heapq.heapify(heap)
    while heap:
        _, start, end = heapq.heappop(heap)
        mid = nxt[start]
        if mid < 0 or mid >= n or nxt[mid] != end:
            continue  # stale
        nxt[start] = end
        nxt[mid] = -1
        if end < n:
            prv[end] = start
            after = nxt[end]
            rank = ranks.get(piece[start:after])
            if rank is not None:
                heapq.heappush(heap, (rank, start, after))
        before = prv[start]
        if before >= 0:
            rank = ranks.get(piece[before:end])
            if rank is not None:
                heapq.heappush(heap, (rank, before, end))
    out: list[int] = []
    s = 0
    while s < n:
        e = nxt[s]
        out.append(ranks[piece[s:e]])
        s = e
    return out


def _fix_surrogates(text: str) -> str:
    """Lone surrogates cannot be UTF-8 encoded; like tiktoken, replace them by U+FFFD
    (after joining valid surrogate pairs)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


class Tokenizer:
    """A byte-level BPE tokenizer with tiktoken's interface.

    Build it with :meth:`from_tiktoken` (``"cl100k_base"``, ``"o200k_base"``) or
    :meth:`from_ranks`.
    """

    def __init__(
        self,
        name: str,
        ranks: Mapping[bytes, int],
        pattern: str,
        special_tokens: Mapping[str, int],
        engine: Engine = "fast",
        spec_pre_tokenizer: Callable[[bytes], list[bytes]] | None = None,
        spec: SpecTables | None = None,
    ) -> None:
        if engine not in ("fast", "spec"):
            raise ValueError(f"engine must be 'fast' or 'spec', not {engine!r}")
        self.name = name
        self.engine: Engine = engine
        self.pattern = pattern
        self._ranks = ranks
        self._special_tokens = dict(special_tokens)
        self._spec_pre_tokenizer = spec_pre_tokenizer
        self._decoder: dict[int, bytes] = {rank: token for token, rank in ranks.items()}
        if len(self._decoder) != len(ranks):
            raise MalformedVocabError("two tokens share a rank")
        special_ids: set[int] = set()  # two special tokens may share an id (o200k_harmony)
        for text, token_id in self._special_tokens.items():
            if token_id in self._decoder and token_id not in special_ids:
                raise MalformedVocabError(f"special token {text!r} reuses id {token_id}")
            self._decoder.setdefault(token_id, text.encode("utf-8"))  # the first one decodes
            special_ids.add(token_id)
        self._regex = PinnedSplitter(pattern)
        try:
            self._ascii_regex: re.Pattern[str] | None = re.compile(ascii_pattern(pattern), re.ASCII)
        except (ValueError, re.error):
            self._ascii_regex = None
        self._cache: dict[str, list[int]] = {}
        self._spec = spec if spec is not None or engine == "fast" else spec_tables(ranks)

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_tiktoken(cls, name: str, engine: Engine = "fast") -> Tokenizer:
        """The published encoding ``name`` (vocabulary loaded by :mod:`verified_bpe.vocab`)."""
        from .vocab import encoding_spec, load_ranks

        info = encoding_spec(name)
        return cls(
            name=name,
            ranks=load_ranks(name),
            pattern=info.pattern,
            special_tokens=info.special_tokens,
            engine=engine,
            spec_pre_tokenizer=SPEC_PRE_TOKENIZERS.get(name),
            spec=_named_spec_tables(name) if engine == "spec" else None,
        )

    @classmethod
    def from_ranks(
        cls,
        ranks: Mapping[bytes, int],
        pattern: str,
        special_tokens: Mapping[str, int] | None = None,
        engine: Engine = "fast",
        name: str = "custom",
    ) -> Tokenizer:
        """Any rank table (it must contain all 256 single bytes for the spec engine)."""
        return cls(name, ranks, pattern, special_tokens or {}, engine)

    # ------------------------------------------------------------------ properties
    @property
    def special_tokens(self) -> dict[str, int]:
        return dict(self._special_tokens)

    @property
    def n_vocab(self) -> int:
        return max(self._decoder) + 1

    def __repr__(self) -> str:
        return f"Tokenizer({self.name!r}, engine={self.engine!r})"

    # ------------------------------------------------------------------ encoding
    def encode_ordinary(self, text: str) -> list[int]:
        """Encode ignoring special tokens (their text is encoded as ordinary text)."""
        text = _fix_surrogates(text)
        if self.engine == "spec":
            return self._encode_ordinary_spec(text)
        return self._encode_ordinary_fast(text)

    def encode(
        self,
        text: str,
        *,
        allowed_special: Literal["all"] | Collection[str] = frozenset(),
        disallowed_special: Literal["all"] | Collection[str] = "all",
    ) -> list[int]:
        """Encode with tiktoken's special-token semantics.

        Special tokens in ``allowed_special`` are encoded as their id; text matching a
        special token in ``disallowed_special`` (by default: every special token not
        allowed) raises :class:`~verified_bpe.errors.DisallowedSpecialTokenError`; pass
        ``disallowed_special=()`` to encode such text as ordinary text.
        """
        text = _fix_surrogates(text)
        allowed = set(self._special_tokens) if allowed_special == "all" else set(allowed_special)
        if disallowed_special == "all":
            disallowed = set(self._special_tokens) - allowed
        else:
            disallowed = set(disallowed_special)
        if disallowed:
            found = _alternation(disallowed).search(text)
            if found:
                raise DisallowedSpecialTokenError(found.group())
        allowed &= set(self._special_tokens)
        if not allowed:
            return self.encode_ordinary(text)
        out: list[int] = []
        start = 0
        for found in _alternation(allowed).finditer(text):
            out.extend(self.encode_ordinary(text[start : found.start()]))
            out.append(self._special_tokens[found.group()])
            start = found.end()
        out.extend(self.encode_ordinary(text[start:]))
        return out

    def _encode_ordinary_fast(self, text: str) -> list[int]:
        cache = self._cache
        ranks = self._ranks
        splitter = self._ascii_regex if self._ascii_regex and text.isascii() else self._regex
        out: list[int] = []
        for piece in splitter.findall(text):
            ids = cache.get(piece)
            if ids is None:
                ids = bpe_ranks(ranks, piece.encode("utf-8"))
                if len(cache) >= _CACHE_LIMIT:
                    cache.clear()
                cache[piece] = ids
            out += ids
        return out

    def _pre_tokenize(self, data: bytes) -> list[bytes]:
        if self._spec_pre_tokenizer is not None:
            return self._spec_pre_tokenizer(data)
        return [piece.encode("utf-8") for piece in self._regex.findall(data.decode("utf-8"))]

    def _encode_ordinary_spec(self, text: str) -> list[int]:
        assert self._spec is not None
        return encode_with(self._pre_tokenize, self._spec.merges, self._spec.byte_shuffle, text)

    # ------------------------------------------------------------------ decoding
    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """The exact bytes of ``ids``; :class:`~verified_bpe.errors.UnknownTokenError` for an
        id that is neither a rank nor a special token."""
        ids = list(ids)
        if self.engine == "spec":
            return self._decode_bytes_spec(ids)
        return decode_bytes(self._decoder, ids)

    def _decode_bytes_spec(self, ids: Sequence[int]) -> bytes:
        assert self._spec is not None
        specials = {
            token_id: text.encode("utf-8") for text, token_id in self._special_tokens.items()
        }
        parts: list[bytes] = []
        run: list[int] = []
        for token_id in ids:
            if token_id in specials:
                parts.append(decode_chunk(self._spec.vocab, self._spec.inverse_shuffle, run))
                parts.append(specials[token_id])
                run = []
            else:
                run.append(token_id)
        parts.append(decode_chunk(self._spec.vocab, self._spec.inverse_shuffle, run))
        return b"".join(parts)

    def decode(self, ids: Iterable[int], errors: str = "replace") -> str:
        """Decode to text; invalid UTF-8 is handled per ``errors`` (tiktoken's default
        ``"replace"``; use :meth:`decode_bytes` or ``errors="strict"`` to see it)."""
        return self.decode_bytes(ids).decode("utf-8", errors=errors)

    def decode_single_token_bytes(self, token_id: int) -> bytes:
        return self.decode_bytes([token_id])


@lru_cache(maxsize=64)
def _alternation_cached(tokens: frozenset[str]) -> regex.Pattern[str]:
    ordered = sorted(tokens, key=lambda t: (-len(t), t))
    return regex.compile("|".join(regex.escape(t) for t in ordered))


def _alternation(tokens: Collection[str]) -> regex.Pattern[str]:
    return _alternation_cached(frozenset(tokens))


__all__ = ["Engine", "SpecTables", "Tokenizer", "bpe_ranks", "spec_tables"]
