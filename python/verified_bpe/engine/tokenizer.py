"""The tokenizer users touch: tiktoken-compatible encode/decode on three engines.

* ``engine="native"`` (the default when the extension was built, see
  :mod:`verified_bpe.engine.native`): the Rust crate in ``rust/``, which runs the Lean
  pre-tokenizer machines of cl100k_base and o200k_base and tiktoken's rank BPE; other patterns
  are split by fancy-regex in the crate when the pattern allows it, else in Python (as the
  fast engine does), and merged natively.  Special tokens are handled here, as for the other
  engines.
* ``engine="spec"``: the literal mirror of the Lean spec.  Merges are recovered from the
  ranks (:func:`~verified_bpe.spec.seed.decompose.recover_merges`), bytes are shuffled into
  single-byte token ids (:func:`~verified_bpe.spec.seed.shuffle.byte_shuffle_from_ranks`), the
  table is checked with :func:`~verified_bpe.spec.seed.well_formed.check_well_formed`, and text is
  encoded with :func:`~verified_bpe.spec.seed.encode.encode_with` / ``encode_chunk``.  All text of
  cl100k_base and o200k_base goes through the mirror of the Lean Unicode state machine of the
  encoding (:mod:`~verified_bpe.spec.unicode.cl100k`,
  :mod:`~verified_bpe.spec.unicode.o200k`, character tables pinned to tiktoken's); only
  other patterns (custom rank tables) use the regex pre-tokenizer.  Meant for checking.
* ``engine="fast"``: pre-tokenization with the standard library's ``re`` and the pattern's
  classes spelled out for the Basic Multilingual Plane from the tables pinned to tiktoken's
  (:mod:`verified_bpe.engine.fast_split`;
  :class:`~verified_bpe.engine.patterns.PinnedSplitter` for text
  with characters above U+FFFF), a bounded per-tokenizer cache of piece -> ids
  (:class:`PieceCache`), and rank-based merging on the ranks (:func:`bpe_ranks`: a heap for
  short pieces, a bucket queue for long ones, both O(n log n)).  Long texts of the built-in
  patterns are cut into blocks after a newline before a letter or digit
  (:func:`text_blocks`), which keeps memory bounded.

Both give the same ids as tiktoken (tested on both encodings, see
``tests/test_tokenizer_differential.py``).
"""

from __future__ import annotations

import heapq
import re
from array import array
from collections.abc import (
    Callable,
    Collection,
    Iterable,
    Iterator,
    Mapping,
    MutableSequence,
    Sequence,
)
from dataclasses import dataclass
from functools import cache, cached_property, lru_cache, reduce
from operator import iadd
from typing import TYPE_CHECKING, Literal, TypeVar

import regex

from ..errors import DisallowedSpecialTokenError, MalformedVocabError
from ..spec.seed.decompose import recover_merges
from ..spec.seed.encode import decode_chunk, encode_with
from ..spec.seed.merge import decode_bytes
from ..spec.seed.shuffle import byte_shuffle_from_ranks, invert_shuffle
from ..spec.seed.well_formed import build_vocab, check_well_formed
from ..spec.unicode.cl100k import pre_tokenize_cl100k
from ..spec.unicode.o200k import pre_tokenize_o200k
from ..spec.unicode.r50k import pre_tokenize_r50k
from . import native, validate
from .fast_split import SplitFn, Splitter
from .patterns import (
    CL100K_PATTERN,
    CL100K_PATTERN_ORIGINAL,
    LLAMA3_META_PATTERN,
    LLAMA3_PATTERN,
    O200K_PATTERN,
    pre_tokenize_regex,
)

if TYPE_CHECKING:
    from typing_extensions import Buffer

Engine = Literal["native", "fast", "spec"]
ENGINES: tuple[Engine, ...] = ("native", "fast", "spec")

#: Mirrors of the Lean pre-tokenizers (Unicode state machines), used by the spec engine for
#: all text of these encodings.
SPEC_PRE_TOKENIZERS: dict[str, Callable[[bytes], list[bytes]]] = {
    "cl100k_base": pre_tokenize_cl100k,
    "o200k_base": pre_tokenize_o200k,
    "r50k_base": pre_tokenize_r50k,
    "p50k_base": pre_tokenize_r50k,
}

_CACHE_LIMIT = 200_000  # chunk-cache entries before the fast engine's cache is cleared

#: Patterns for which cutting the text with :func:`text_blocks` does not change the pieces.
BLOCK_SAFE_PATTERNS = frozenset(
    {CL100K_PATTERN, CL100K_PATTERN_ORIGINAL, O200K_PATTERN, LLAMA3_PATTERN, LLAMA3_META_PATTERN}
)


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


LONG_PIECE = 256  # bytes; from this length on bpe_ranks uses the bucket queue
#: bpe_ranks_buckets keeps its linked list and its buckets in arrays from this many bytes on
#: when the piece starts with at least COMPACT_RANKS distinct pair ranks (see there)
COMPACT_PIECE = 1 << 14
COMPACT_RANKS = 64


def _part_ranks(ranks: Mapping[bytes, int], piece: bytes, nxt: Sequence[int]) -> list[int]:
    """The ranks of the parts of ``piece`` left by a merge loop, ``nxt[s]`` being the end of
    the part that starts at ``s``."""
    out: list[int] = []
    s = 0
    while s < len(piece):
        e = nxt[s]
        out.append(ranks[piece[s:e]])
        s = e
    return out


def bpe_ranks(ranks: Mapping[bytes, int], piece: bytes) -> list[int]:
    """Rank-based BPE of one chunk (the fast engine's core): each step merges the adjacent
    pair whose concatenation has the lowest rank, leftmost first on ties.
    :func:`bpe_ranks_heap` below :data:`LONG_PIECE` bytes, :func:`bpe_ranks_buckets` from
    there on (both tested against tiktoken and the spec's ``encode_chunk``)."""
    if len(piece) < LONG_PIECE:
        return bpe_ranks_heap(ranks, piece)
    return bpe_ranks_buckets(ranks, piece)


def bpe_ranks_heap(ranks: Mapping[bytes, int], piece: bytes) -> list[int]:
    """Rank-based BPE of one chunk with a heap and a linked list.

    Symbols are identified by their start offset; ``nxt[s]`` is the start of the following
    symbol (``-1`` once ``s`` has been absorbed into its left neighbour) and ``prv[s]`` the
    start of the preceding one.  A heap entry stands for "the two adjacent symbols covering
    ``piece[start:end]``" and is the integer ``rank << 2w | start << w | end`` (``w`` bits
    per offset), so heap order is ``(rank, start)``: "lowest rank, leftmost"; integers
    compare faster than tuples.  An entry is stale unless ``start`` is alive and the symbol
    after it ends at ``end``; since the rank depends only on the covered bytes, a live entry
    is always exact.  O(n log n) for a chunk of n bytes.
    """
    n = len(piece)
    get = ranks.get
    token = get(piece)
    if token is not None:
        return [token]
    width = (n + 1).bit_length()
    mask = (1 << width) - 1
    shift = 2 * width
    # nxt[n] = n + 1 is a sentinel: the test nxt[nxt[start]] == end below fails for an
    # absorbed start (nxt[start] = -1 reads the sentinel) and for the last symbol.
    nxt = list(range(1, n + 2))
    prv = list(range(-1, n - 1))
    heap: list[int] = []
    for s in range(n - 1):
        rank = get(piece[s : s + 2])
        if rank is not None:
            heap.append((rank << shift) | (s << width) | (s + 2))
    heapq.heapify(heap)
    pop = heapq.heappop
    push = heapq.heappush
    while heap:
        key = pop(heap)
        end = key & mask
        start = (key >> width) & mask
        mid = nxt[start]
        if nxt[mid] != end:
            continue  # stale
        nxt[start] = end
        nxt[mid] = -1
        if end < n:
            prv[end] = start
            after = nxt[end]
            rank = get(piece[start:after])
            if rank is not None:
                push(heap, (rank << shift) | (start << width) | after)
        before = prv[start]
        if before >= 0:
            rank = get(piece[before:end])
            if rank is not None:
                push(heap, (rank << shift) | (before << width) | end)
    return _part_ranks(ranks, piece, nxt)


def bpe_ranks_buckets(ranks: Mapping[bytes, int], piece: bytes) -> list[int]:
    """The same merges as :func:`bpe_ranks_heap`, with the pending pairs in one bucket per
    rank instead of one heap entry each: a small heap holds the ranks that have a bucket,
    and a bucket (the ``start << w | end`` of its pairs) is sorted when it is opened, so its
    pairs are merged leftmost first.  If a merge creates a pair of a lower rank, or of the
    rank being processed (only in a table that gives two tokens one rank: the new pair covers
    more bytes, so it is another token), the rest of the bucket is put back and the lowest
    rank is opened again.  Hence pairs are merged in exactly the heap's (rank, start) order, with a
    heap operation per distinct rank instead of per pair: 2-3x faster on long runs such as
    10^6 spaces, where a few ranks account for all the pairs.

    Every bucket is a sweep over the whole piece.  With many ranks (random letters: over 600
    pair ranks at the start) the sweeps jump across the piece, and from about 16k bytes on the
    linked list and the buckets no longer fit in the processor's cache as lists of int
    objects (a pointer and an object per entry): they are then arrays of machine
    integers (8 bytes per entry; a bucket is sorted into a list when it is opened).  Reading
    an array allocates an int, so on shorter pieces and on runs (a few ranks, sequential
    sweeps) lists stay faster.
    """
    n = len(piece)
    get = ranks.get
    token = get(piece)
    if token is not None:
        return [token]
    width = (n + 1).bit_length()
    mask = (1 << width) - 1
    buckets: dict[int, MutableSequence[int]] = {}
    bucket_of = buckets.get
    for s in range(n - 1):
        rank = get(piece[s : s + 2])
        if rank is not None:
            bucket = bucket_of(rank)
            if bucket is None:
                buckets[rank] = [(s << width) | (s + 2)]
            else:
                bucket.append((s << width) | (s + 2))
    # nxt[n] = n + 1: the sentinel of bpe_ranks_heap
    nxt: MutableSequence[int]
    prv: MutableSequence[int]
    new_bucket: Callable[[tuple[int]], MutableSequence[int]] = list
    if n >= COMPACT_PIECE and len(buckets) >= COMPACT_RANKS:
        nxt = array("q", range(1, n + 2))
        prv = array("q", range(-1, n - 1))
        new_bucket = _int_array
        for rank, bucket in buckets.items():
            buckets[rank] = _int_array(bucket)  # type: ignore[assignment]
    else:
        nxt = list(range(1, n + 2))
        prv = list(range(-1, n - 1))
    queue = list(buckets)
    heapq.heapify(queue)
    pop = heapq.heappop
    push = heapq.heappush
    while queue:
        rank = pop(queue)
        entries = sorted(buckets.pop(rank))
        lower = False
        done = 0
        for key in entries:
            done += 1
            end = key & mask
            start = key >> width
            mid = nxt[start]
            if nxt[mid] != end:
                continue  # stale
            nxt[start] = end
            nxt[mid] = -1
            # the two new pairs, unrolled (a loop over them is 5-15% slower): the merged
            # symbol with its right neighbour, then its left neighbour with it
            if end < n:
                prv[end] = start
                right = nxt[end]
                new_rank = get(piece[start:right])
                if new_rank is not None:
                    bucket = bucket_of(new_rank)
                    if bucket is None:
                        buckets[new_rank] = new_bucket(((start << width) | right,))
                        push(queue, new_rank)
                        lower = lower or new_rank <= rank
                    else:
                        bucket.append((start << width) | right)
            left = prv[start]
            if left >= 0:
                new_rank = get(piece[left:end])
                if new_rank is not None:
                    bucket = bucket_of(new_rank)
                    if bucket is None:
                        buckets[new_rank] = new_bucket(((left << width) | end,))
                        push(queue, new_rank)
                        lower = lower or new_rank <= rank
                    else:
                        bucket.append((left << width) | end)
            if lower:
                if done < len(entries):
                    bucket = bucket_of(rank)  # a new pair of this rank has opened it again
                    if bucket is None:
                        buckets[rank] = entries[done:]
                        push(queue, rank)
                    else:
                        bucket.extend(entries[done:])
                break
    return _part_ranks(ranks, piece, nxt)


def _int_array(keys: Iterable[int]) -> MutableSequence[int]:
    return array("q", keys)


class PieceCache(dict[str, list[int]]):
    """The fast engine's memo of piece -> ids: a dict whose missing keys are computed with
    :func:`bpe_ranks` (so a hit costs one C-level lookup).  Bounded: it is cleared when it
    holds ``limit`` pieces, and pieces longer than ``max_piece`` characters are not kept."""

    def __init__(self, ranks: Mapping[bytes, int], limit: int, max_piece: int = 256) -> None:
        super().__init__()
        self._ranks = ranks
        self._limit = limit
        self._max_piece = max_piece

    def __missing__(self, piece: str) -> list[int]:
        data = piece.encode("utf-8")
        token = self._ranks.get(data)  # a piece that is one token (most of them): no merges
        ids = [token] if token is not None else bpe_ranks(self._ranks, data)
        if len(piece) <= self._max_piece:
            if len(self) >= self._limit:
                self.clear()
            self[piece] = ids
        return ids


#: A cut after "\n" and before an ASCII letter or digit: no piece of the patterns in
#: BLOCK_SAFE_PATTERNS crosses it, and the piece that ends there is the same whether the
#: text goes on or ends there (tested in tests/test_fast_engine.py).
_BLOCK_CUT = re.compile(r"\n(?=[A-Za-z0-9])")
BLOCK_CHARS = 1 << 16  # a block is cut at the first such point after this many characters


def text_blocks(text: str, size: int = BLOCK_CHARS) -> Iterator[str]:
    """``text`` in consecutive blocks of about ``size`` characters, each cut just after a
    ``"\n"`` that is followed by an ASCII letter or digit (one block if there is none)."""
    start = 0
    n = len(text)
    search = _BLOCK_CUT.search
    while n - start > size:
        found = search(text, start + size)
        if found is None:
            break
        yield text[start : found.end()]
        start = found.end()
    yield text[start:]


_T = TypeVar("_T")


def _fix_surrogates(text: str) -> str:
    """Lone surrogates cannot be UTF-8 encoded; like tiktoken, replace them by U+FFFD
    (after joining valid surrogate pairs)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def _with_surrogates_fixed(run: Callable[[list[str]], _T], texts: Sequence[str]) -> _T:
    """``run`` on the texts (each checked to be a ``str``); if the native engine refuses a lone
    surrogate, ``run`` again with them replaced as tiktoken does (:func:`_fix_surrogates`)."""
    checked = validate.all_str(list(texts), "text")
    try:
        return run(checked)
    except UnicodeEncodeError:
        return run([_fix_surrogates(t) for t in checked])


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
        engine: Engine | None = None,
        spec_pre_tokenizer: Callable[[bytes], list[bytes]] | None = None,
        spec: SpecTables | None = None,
    ) -> None:
        if engine is None:
            engine = native.default_engine()  # type: ignore[assignment]
        if engine not in ENGINES:
            raise ValueError(f"engine must be 'native', 'fast' or 'spec', not {engine!r}")
        self.name = name
        self.engine: Engine = engine
        self.pattern = pattern
        self._ranks = ranks
        self._special_tokens = dict(special_tokens)
        self._special_names = frozenset(self._special_tokens)
        self._spec_pre_tokenizer = spec_pre_tokenizer
        self._decoder: dict[int, bytes] = {rank: token for token, rank in ranks.items()}
        if len(self._decoder) != len(ranks):
            raise MalformedVocabError("two tokens share a rank")
        special_ids: set[int] = set()  # two special tokens may share an id (o200k_harmony)
        for text, token_id in self._special_tokens.items():
            validate.token_id(token_id, f"special token {text!r}")
            if token_id in self._decoder and token_id not in special_ids:
                raise MalformedVocabError(f"special token {text!r} reuses id {token_id}")
            self._decoder.setdefault(token_id, text.encode("utf-8"))  # the first one decodes
            special_ids.add(token_id)
        self._blocks = pattern in BLOCK_SAFE_PATTERNS
        self._cache = PieceCache(ranks, _CACHE_LIMIT)
        self._native = native.NativeMerger(ranks, pattern) if engine == "native" else None
        if self._native is None or self._native.pre_tokenizer is None:
            # compiled now unless a proven machine splits: a bad pattern is refused here
            self._split  # noqa: B018
        self._spec = spec if spec is not None or engine != "spec" else spec_tables(ranks)

    @cached_property
    def _split(self) -> SplitFn:
        """The one text-splitting step of the fast engine (whole matches), compiled on first
        use: the native engine splits its own patterns and never needs it, so loading an
        encoding does not pay for compiling the pattern."""
        return Splitter(self.pattern)

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_tiktoken(cls, name: str, engine: Engine | None = None) -> Tokenizer:
        """The published encoding ``name`` (vocabulary loaded by
        :mod:`verified_bpe.engine.vocab`); ``engine=None``: native if built, else fast."""
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
        engine: Engine | None = None,
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

    def __getstate__(self) -> dict[str, object]:
        """Pickle without the native table (a Rust object): it is rebuilt from the ranks."""
        state = self.__dict__.copy()
        state["_native"] = None
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        self.__dict__.setdefault("_special_names", frozenset(self._special_tokens))
        if self.engine == "native":
            if native.available():
                self._native = native.NativeMerger(self._ranks, self.pattern)
            else:  # unpickled where the extension was not built: the fast engine, one warning
                self.engine = native.default_engine()  # type: ignore[assignment]

    # ------------------------------------------------------------------ encoding
    def encode_ordinary(self, text: str) -> list[int]:
        """Encode ignoring special tokens (their text is encoded as ordinary text); a ``text``
        that is not a ``str``: :class:`~verified_bpe.errors.InvalidTypeError`."""
        text = validate.text(text, "text")
        if self._native is not None:
            # The extension reads the text's UTF-8 in place and refuses a lone surrogate, so
            # the Python-side check (a second UTF-8 copy) is paid only when there is one.
            try:
                return self._encode_ordinary_native(text)
            except UnicodeEncodeError:
                return self._encode_ordinary_native(_fix_surrogates(text))
        text = _fix_surrogates(text)
        if self.engine == "spec":
            return self._encode_ordinary_spec(text)
        return self._encode_ordinary_fast(text)

    def encode_ordinary_batch(self, texts: Sequence[str], num_threads: int = 8) -> list[list[int]]:
        """:meth:`encode_ordinary` on each text; the native engine runs them on
        ``num_threads`` threads without the GIL (when it splits the pattern itself);
        ``num_threads`` is read as tiktoken reads it (:func:`~.validate.thread_count`)."""
        num_threads = validate.thread_count(num_threads, len(texts))
        if self._native is not None and self._native.splits:
            run = self._native.encode_ordinary_batch
            batch = _with_surrogates_fixed(lambda checked: run(checked, num_threads), texts)
            if batch is not None:
                return batch
        return [self.encode_ordinary(t) for t in texts]

    def encode_ordinary_batch_flat(
        self, texts: Sequence[str], num_threads: int = 8
    ) -> tuple[bytearray | array[int], bytearray | array[int]]:
        """:meth:`encode_ordinary_batch` flat: ``(ids, offsets)``, buffers of native-order
        ``u32`` ids and ``len(texts) + 1`` ``i64`` offsets (text ``k``'s ids are
        ``ids[offsets[k]:offsets[k + 1]]``).  The native engine encodes the whole batch on
        ``num_threads`` threads without the GIL and makes no Python object per id; the other
        engines encode text by text into the same buffers."""
        if self._native is not None and self._native.splits:
            run = self._native.encode_ordinary_batch_flat
            flat = _with_surrogates_fixed(lambda checked: run(checked, num_threads), texts)
            if flat is not None:
                return flat
        ids, offsets = array("I"), array("q", [0])
        for text in texts:
            ids.extend(self.encode_ordinary(text))
            offsets.append(len(ids))
        return ids, offsets

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
        parts = self._special_parts(text, allowed_special, disallowed_special)
        if len(parts) == 1:  # no allowed special token in the text: one ordinary part
            return self.encode_ordinary(str(parts[0]))
        out: list[int] = []
        for part in parts:
            if isinstance(part, int):
                out.append(part)
            else:
                out.extend(self.encode_ordinary(part))
        return out

    def encode_ordinary_flat(self, text: str) -> bytearray | array[int] | Buffer:
        """:meth:`encode_ordinary` as a buffer of native-order ``u32`` ids (for
        ``numpy.frombuffer``): with the native engine, a read-only buffer over the engine's
        own ids (no Python object per id, no copy, no GIL held); else the flat batch of the one
        text; a text of fewer than :data:`FLAT_MIN` characters through the list, which takes
        fewer steps there."""
        if not isinstance(text, str) or len(text) < FLAT_MIN:
            return array("I", self.encode_ordinary(text))
        if self._native is not None and self._native.splits:
            run = self._native.encode_ordinary_ids
            ids = _with_surrogates_fixed(lambda checked: run(checked[0]), [text])
            if ids is not None:
                return ids
        return self.encode_ordinary_batch_flat([text], 1)[0]

    def encode_flat(
        self,
        text: str,
        *,
        allowed_special: Literal["all"] | Collection[str] = frozenset(),
        disallowed_special: Literal["all"] | Collection[str] = "all",
    ) -> bytearray | array[int] | Buffer:
        """:meth:`encode` as a buffer of native-order ``u32`` ids (for ``numpy.frombuffer``):
        the ordinary parts go through :meth:`encode_ordinary_batch_flat` on one thread, so the
        native engine makes no Python object per id and runs without the GIL."""
        parts = self._special_parts(text, allowed_special, disallowed_special)
        if len(parts) == 1:  # no allowed special token in the text: one ordinary part
            return self.encode_ordinary_flat(str(parts[0]))
        return _joined_flat([parts], self.encode_ordinary_batch_flat, 1)[0]

    def encode_batch_flat(
        self,
        texts: Sequence[str],
        num_threads: int = 8,
        *,
        allowed_special: Literal["all"] | Collection[str] = frozenset(),
        disallowed_special: Literal["all"] | Collection[str] = "all",
    ) -> tuple[bytearray | array[int], bytearray | array[int]]:
        """:meth:`encode` on each text, flat as :meth:`encode_ordinary_batch_flat`: each text
        cut at its allowed special tokens (:meth:`_special_parts`), the ordinary parts of all
        the texts in one flat batch on ``num_threads`` threads, the special ids placed
        between them."""
        allowed, disallowed = self._special_sets(allowed_special, disallowed_special)
        layouts = [self._cut_special(validate.text(t, "text"), allowed, disallowed) for t in texts]
        return _joined_flat(layouts, self.encode_ordinary_batch_flat, num_threads)

    def _special_parts(
        self,
        text: str,
        allowed_special: Literal["all"] | Collection[str],
        disallowed_special: Literal["all"] | Collection[str],
    ) -> list[str | int]:
        """``text`` (surrogates replaced) cut at the allowed special tokens: the ordinary text
        between them (a ``str``, possibly empty) and each special token's id (an ``int``), in
        order; :class:`~verified_bpe.errors.DisallowedSpecialTokenError` for text matching a
        disallowed one (:meth:`encode`'s rules)."""
        text = validate.text(text, "text")
        allowed, disallowed = self._special_sets(allowed_special, disallowed_special)
        return self._cut_special(text, allowed, disallowed)

    def _special_sets(
        self,
        allowed_special: Literal["all"] | Collection[str],
        disallowed_special: Literal["all"] | Collection[str],
    ) -> tuple[frozenset[str], frozenset[str]]:
        """The special tokens :meth:`_special_parts` cuts at and those it refuses, from the
        arguments of :meth:`encode` (checked once: a batch checks them once, not per text)."""
        names = self._special_names
        allowed = set(names) if allowed_special == "all" else set(allowed_special)
        validate.special_names(allowed, "allowed_special")
        all_others = disallowed_special == "all"
        disallowed = names - allowed if all_others else frozenset(disallowed_special)
        return frozenset(allowed & names), frozenset(disallowed)

    def _cut_special(
        self, text: str, allowed: frozenset[str], disallowed: frozenset[str]
    ) -> list[str | int]:
        """The cut of :meth:`_special_parts` (``text`` a ``str``) with the sets of
        :meth:`_special_sets`."""
        if not (allowed or disallowed):
            return [text]  # encode_ordinary replaces lone surrogates itself
        text = _fix_surrogates(text)
        found = first_special(disallowed, text) if disallowed else None
        if found is not None:
            raise DisallowedSpecialTokenError(found)
        if not allowed:
            return [text]
        parts: list[str | int] = []
        start = 0
        for found in special_alternation(allowed).finditer(text):
            parts += [text[start : found.start()], self._special_tokens[found.group()]]
            start = found.end()
        parts.append(text[start:])
        return parts

    def _encode_ordinary_fast(self, text: str) -> list[int]:
        """Split (block by block for the patterns that allow it, which bounds the memory of
        the piece lists), look every piece up in the cache (misses go through
        :func:`bpe_ranks`), concatenate: no Python-level loop per piece.  ``reduce(iadd,
        ..., out)`` extends ``out`` by each piece's ids in place (``out`` is new, the cached
        lists are only read); it is faster than ``chain.from_iterable``."""
        split = self._split
        lookup = self._cache.__getitem__
        out: list[int] = []
        if not self._blocks or len(text) <= BLOCK_CHARS:
            return reduce(iadd, map(lookup, split(text)), out)
        for block in text_blocks(text, BLOCK_CHARS):
            reduce(iadd, map(lookup, split(block)), out)
        return out

    def _encode_ordinary_native(self, text: str) -> list[int]:
        """The native engine: its own pre-tokenizer for cl100k/o200k, fancy-regex for the
        patterns :func:`~verified_bpe.engine.native.fancy_pattern` accepts; otherwise (or when
        fancy-regex gives up) the fast engine's split (block by block when the pattern
        allows) and the native merge."""
        assert self._native is not None
        if self._native.splits:
            ids = self._native.encode_ordinary(text)
            if ids is not None:
                return ids
        if not self._blocks or len(text) <= BLOCK_CHARS:
            return self._native.encode_pieces(self._split(text))
        out: list[int] = []
        for block in text_blocks(text, BLOCK_CHARS):
            out += self._native.encode_pieces(self._split(block))
        return out

    def _pre_tokenize(self, data: bytes) -> list[bytes]:
        if self._spec_pre_tokenizer is not None:
            return self._spec_pre_tokenizer(data)
        return pre_tokenize_regex(data.decode("utf-8"), self.pattern)

    def _encode_ordinary_spec(self, text: str) -> list[int]:
        assert self._spec is not None
        return encode_with(self._pre_tokenize, self._spec.merges, self._spec.byte_shuffle, text)

    # ------------------------------------------------------------------ decoding
    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """The exact bytes of ``ids``; :class:`~verified_bpe.errors.UnknownTokenError` for an
        id that is neither a rank nor a special token; ``InvalidArgumentError`` for an id that
        is not an ``int`` (``True``, ``1.0``)."""
        ids = validate.token_ids(ids, "ids")
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


def special_alternation(tokens: Collection[str]) -> regex.Pattern[str]:
    """Leftmost match of any of ``tokens``, longest first (as the tokenizer splits)."""
    return _alternation_cached(frozenset(tokens))


#: From this many characters on, :meth:`Tokenizer.encode_ordinary_flat` takes the flat batch.
FLAT_MIN = 1024


@lru_cache(maxsize=64)
def _first_chars(tokens: frozenset[str]) -> frozenset[str]:
    """The first character of each of ``tokens`` (``""`` for an empty one)."""
    return frozenset(t[:1] for t in tokens)


def _joined_flat(
    layouts: Sequence[Sequence[str | int]],
    batch_flat: Callable[
        [Sequence[str], int], tuple[bytearray | array[int], bytearray | array[int]]
    ],
    num_threads: int,
) -> tuple[bytearray | array[int], bytearray | array[int]]:
    """The flat ``(ids, offsets)`` of texts given as :meth:`Tokenizer._special_parts` layouts:
    every ordinary part of every text through one call of ``batch_flat``, each special id
    (an ``int``) placed between its text's parts."""
    parts = [part for layout in layouts for part in layout if isinstance(part, str)]
    ids, offsets = batch_flat(parts, num_threads)
    if len(parts) == len(layouts):  # no special token anywhere: the parts are the texts
        return ids, offsets
    ends = memoryview(offsets).cast("B").cast("q")
    view = memoryview(ids).cast("B").cast("I")
    out, out_offsets, k = array("I"), array("q", [0]), 0
    for layout in layouts:
        for part in layout:
            if isinstance(part, int):
                out.append(part)
            else:
                out.extend(view[ends[k] : ends[k + 1]])
                k += 1
        out_offsets.append(len(out))
    return out, out_offsets


def first_special(tokens: Collection[str], text: str) -> str | None:
    """The match of :func:`special_alternation` in ``text`` (the leftmost of ``tokens``,
    the longest there), ``None`` if none occurs.  ``str``'s search for each distinct first
    character of the tokens (``memchr``; one for cl100k_base's and o200k_base's, which all
    start with ``<``) tells first whether one can occur at all: the regex scan, several times
    slower, runs only if one of them does."""
    if not any(c in text for c in _first_chars(frozenset(tokens))):
        return None
    found = special_alternation(tokens).search(text)
    return None if found is None else found.group()


__all__ = [
    "BLOCK_SAFE_PATTERNS",
    "Engine",
    "PieceCache",
    "SpecTables",
    "Tokenizer",
    "bpe_ranks",
    "bpe_ranks_buckets",
    "bpe_ranks_heap",
    "first_special",
    "special_alternation",
    "spec_tables",
    "text_blocks",
]
