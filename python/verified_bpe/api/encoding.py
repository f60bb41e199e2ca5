"""A drop-in for ``tiktoken.Encoding`` (tiktoken 0.14): every public method and attribute,
with tiktoken's semantics, argument types and exception types.

Encoding and decoding go through :class:`verified_bpe.engine.tokenizer.Tokenizer` (the
``native`` engine when it was built, else the ``fast`` one; both tested id-for-id against
tiktoken); this module adds tiktoken's surface around it:
argument checking (tiktoken's pyo3 core raises ``TypeError`` for a float or ``None`` token,
``OverflowError`` for an id outside ``u32``, ``TypeError`` for ``allowed_special`` that is not
a ``set``/``frozenset``), thread-pool batches, offsets, unstable-token completions, numpy
output and pickling.  Registered encodings pickle by name (:mod:`verified_bpe.api.registry`).

Where tiktoken raises ``AssertionError`` (``is_special_token`` on a non-int,
``explicit_n_vocab`` mismatch) we raise :class:`_TypeAssertion` / :class:`_VocabAssertion`,
which are both ``AssertionError`` and ``TypeError`` / ``ValueError``: code catching either
keeps working, and ``python -O`` does not silence the check.
"""

from __future__ import annotations

import bisect
import functools
import operator
from collections.abc import Collection, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Literal

from ..engine import validate
from ..engine.patterns import (
    check_unicode_version,
    pattern_timeout,
    pinned_splitter,
    unpinned_constructs,
)
from ..engine.rust_syntax import rust_pattern
from ..engine.tokenizer import Tokenizer, bpe_ranks, first_special, special_alternation
from ..errors import (
    DisallowedSpecialTokenError,
    InvalidArgumentError,
    InvalidTypeError,
    MalformedVocabError,
    UnknownTokenError,
    require,
)

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import numpy.typing as npt

AllowedSpecial = Literal["all"] | set[str] | frozenset[str]
DisallowedSpecial = Literal["all"] | Collection[str]

_U32 = 1 << 32
_WHITESPACE_BYTES = frozenset(b" \n\t")


class _TypeAssertion(AssertionError, TypeError):
    """tiktoken asserts here (``AssertionError``); it is a type error."""


class _VocabAssertion(AssertionError, ValueError):
    """tiktoken asserts here (``AssertionError``); it is a bad value."""


class _TypeAttributeError(AttributeError, TypeError):
    """tiktoken fails here with ``AttributeError`` (``list.values``); it is a type error."""


def _token_id(value: Any, what: str = "token id") -> int:
    """One token id as tiktoken's core reads it: anything with ``__index__`` (``int``,
    ``bool``, numpy integers); ``TypeError`` otherwise; ``OverflowError`` outside ``u32``."""
    if type(value) is not int:
        try:
            value = operator.index(value)
        except TypeError:
            raise TypeError(
                f"{what}: {type(value).__name__!r} object cannot be interpreted as an integer"
            ) from None
    if not 0 <= value < _U32:
        raise OverflowError(f"{what} {value} out of range (0 <= id < 2**32)")
    return value


def _mapping(value: Any, argument: str) -> Mapping[Any, Any]:
    if not isinstance(value, Mapping):
        raise _TypeAttributeError(f"{argument} must be a dict, not {type(value).__name__!r}")
    return value


def _checked_tables(
    pat_str: Any, mergeable_ranks: Any, special_tokens: Any
) -> tuple[dict[bytes, int], dict[str, int]]:
    """Copies of the tables, checked as tiktoken's core checks them (``TypeError`` for a key
    or id of the wrong type, ``OverflowError`` for an id outside ``u32``), and where tiktoken
    panics (two tokens with one rank, an empty token) or hangs (an empty special token,
    allowed): ``MalformedVocabError`` naming them."""
    ranks: dict[bytes, int] = {}
    for token, rank in mergeable_ranks.items():
        if isinstance(token, memoryview):
            token = token.tobytes()
        if not isinstance(token, bytes):
            kind = type(token).__name__
            raise TypeError(f"mergeable_ranks key {token!r}: {kind!r} is not 'bytes'")
        ranks[token] = _token_id(rank, f"rank of {token!r}")
    specials: dict[str, int] = {}
    for text, idx in special_tokens.items():
        if not isinstance(text, str):
            kind = type(text).__name__
            raise TypeError(f"special_tokens key {text!r}: {kind!r} is not 'str'")
        specials[text] = _token_id(idx, f"id of special token {text!r}")
    if not isinstance(pat_str, str):
        raise TypeError(f"pat_str: {type(pat_str).__name__!r} object is not an instance of 'str'")
    if "" in specials:  # tiktoken hangs encoding with it allowed
        raise MalformedVocabError("special_tokens has the empty token ''")
    owner: dict[int, bytes] = {}
    for token, rank in ranks.items():  # checked after the types, as tiktoken's core does
        if not token:
            raise MalformedVocabError("mergeable_ranks has the empty token b''")
        if rank in owner:
            raise MalformedVocabError(f"tokens {owner[rank]!r} and {token!r} share rank {rank}")
        owner[rank] = token
    return ranks, specials


def _token_ids(tokens: Any) -> list[int]:
    """A sequence of token ids as tiktoken's core reads it: a ``str`` or a non-sequence
    (generator, set, dict, int) is a ``TypeError``."""
    if isinstance(tokens, str):
        raise TypeError("Can't extract `str` to `Vec`")
    cls = type(tokens)
    if isinstance(tokens, Mapping) or not (
        isinstance(tokens, Sequence) or (hasattr(cls, "__getitem__") and hasattr(cls, "__len__"))
    ):
        raise TypeError(f"{cls.__name__!r} object is not an instance of 'Sequence'")
    return [_token_id(t) for t in tokens]


def _fix_surrogates(text: str) -> str:
    """Lone surrogates become U+FFFD (valid pairs are joined), as tiktoken does."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def _check_text(text: Any) -> None:
    validate.text(text, "text")


class Encoding:
    """tiktoken's ``Encoding``: ``Encoding(name, *, pat_str, mergeable_ranks,
    special_tokens, explicit_n_vocab=None)``.

    ``_pat_str``, ``_mergeable_ranks`` and ``_special_tokens`` are kept under tiktoken's
    names, so the common recipe of extending an encoding with new special tokens works.
    """

    def __init__(
        self,
        name: str,
        *,
        pat_str: str,
        mergeable_ranks: dict[bytes, int],
        special_tokens: dict[str, int],
        explicit_n_vocab: int | None = None,
    ) -> None:
        self.name = name
        self._pat_str = pat_str
        # tiktoken's order of evaluation, hence its errors for empty or mixed tables
        ranks_max = max(_mapping(mergeable_ranks, "mergeable_ranks").values())
        specials_max = max(_mapping(special_tokens, "special_tokens").values(), default=0)
        self.max_token_value = max(ranks_max, specials_max)
        if explicit_n_vocab:
            if len(mergeable_ranks) + len(special_tokens) != explicit_n_vocab:
                raise _VocabAssertion(
                    f"{len(mergeable_ranks)} ranks + {len(special_tokens)} special tokens "
                    f"!= explicit_n_vocab {explicit_n_vocab}"
                )
            if self.max_token_value != explicit_n_vocab - 1:
                raise _VocabAssertion(
                    f"max token value {self.max_token_value} != explicit_n_vocab - 1"
                )
        mergeable_ranks, special_tokens = _checked_tables(pat_str, mergeable_ranks, special_tokens)
        self._mergeable_ranks = mergeable_ranks  # copies: the caller's dicts may change
        self._special_tokens = special_tokens
        self._special_token_values = set(special_tokens.values())
        self._split_pattern = rust_pattern(pat_str)  # as tiktoken's Rust engine reads it
        self._tokenizer = Tokenizer.from_ranks(
            mergeable_ranks, self._split_pattern, special_tokens, name=name
        )
        self._decoder: dict[int, bytes] = {rank: token for token, rank in mergeable_ranks.items()}
        self._special_decoder: dict[int, bytes] = {}
        for text, idx in special_tokens.items():  # an id given twice decodes to the first
            self._special_decoder.setdefault(idx, text.encode("utf-8"))
        self._sorted_token_bytes: list[bytes] | None = None

    def __repr__(self) -> str:
        return f"<Encoding {self.name!r}>"

    # ------------------------------------------------------------------ special-token rules
    def _resolved(
        self, allowed_special: AllowedSpecial, disallowed_special: DisallowedSpecial
    ) -> tuple[AllowedSpecial, DisallowedSpecial]:
        """tiktoken's first lines of ``encode`` and ``encode_batch``: ``"all"`` resolved; the
        default disallowed set, every special token, is one cached frozenset."""
        if allowed_special == "all":
            allowed_special = self.special_tokens_set
        if disallowed_special == "all":
            disallowed_special = (
                self._special_names  # the default: one set, its hash kept
                if isinstance(allowed_special, set | frozenset) and not allowed_special
                else self.special_tokens_set - allowed_special  # type: ignore[operator]
            )
        return allowed_special, disallowed_special

    def _allowed(
        self,
        text: Any,
        allowed_special: AllowedSpecial,
        disallowed_special: DisallowedSpecial,
        replace_surrogates: bool = True,
    ) -> frozenset[str]:
        """tiktoken's steps before its core encodes, in its order (so the same bad argument
        gives the same exception): resolve ``"all"``, refuse text matching a disallowed
        token, then what the core checks: the text (lone surrogates: ``UnicodeEncodeError``
        unless ``replace_surrogates``, as in tiktoken's ``encode``), then ``allowed_special``
        (a ``set`` or ``frozenset`` of ``str``, else ``TypeError``)."""
        allowed_special, disallowed_special = self._resolved(allowed_special, disallowed_special)
        if disallowed_special:
            if not isinstance(disallowed_special, frozenset):
                disallowed_special = frozenset(disallowed_special)
            found = first_special(disallowed_special, text)
            if found is not None:
                raise DisallowedSpecialTokenError(found)
        _check_text(text)
        if not replace_surrogates:
            text.encode("utf-8")  # UnicodeEncodeError, as tiktoken's core
        if not isinstance(allowed_special, set | frozenset):
            raise TypeError(
                f"allowed_special must be 'all', a set or a frozenset, "
                f"not {type(allowed_special).__name__!r}"
            )
        validate.special_names(allowed_special, "allowed_special")  # tiktoken's core: set of str
        return frozenset(allowed_special)

    def _encode_checked(
        self, text: str, allowed_special: AllowedSpecial, disallowed_special: DisallowedSpecial
    ) -> list[int]:
        allowed = self._allowed(text, allowed_special, disallowed_special)
        check_unicode_version(self._split_pattern, text)
        if not allowed:  # the default: nothing to cut at
            return self._tokenizer.encode_ordinary(text)
        return self._tokenizer.encode(text, allowed_special=allowed, disallowed_special=())

    # ------------------------------------------------------------------ encoding
    def encode_ordinary(self, text: str) -> list[int]:
        """Encode ignoring special tokens (= ``encode(text, disallowed_special=())``)."""
        _check_text(text)
        check_unicode_version(self._split_pattern, text)
        return self._tokenizer.encode_ordinary(text)

    def encode(
        self,
        text: str,
        *,
        allowed_special: AllowedSpecial = frozenset(),
        disallowed_special: DisallowedSpecial = "all",
    ) -> list[int]:
        """Encode with tiktoken's special-token rules: text matching a disallowed special
        token (by default every one not allowed) raises ``ValueError``
        (:class:`~verified_bpe.errors.DisallowedSpecialTokenError`)."""
        return self._encode_checked(text, allowed_special, disallowed_special)

    def encode_to_numpy(
        self,
        text: str,
        *,
        allowed_special: AllowedSpecial = frozenset(),
        disallowed_special: DisallowedSpecial = "all",
    ) -> npt.NDArray[np.uint32]:
        """:meth:`encode` as a read-only ``numpy`` ``uint32`` array, as tiktoken gives it
        (numpy is imported only here).  The native engine writes the ids into one buffer
        without the GIL, makes no Python object per id, and the array is a view of that buffer
        (``encode_to_numpy(text, disallowed_special=())`` is the fastest way to encode one long
        text)."""
        np = _numpy("encode_to_numpy")
        allowed = self._allowed(text, allowed_special, disallowed_special)
        check_unicode_version(self._split_pattern, text)
        if not allowed:  # the default: nothing to cut at
            ids = self._tokenizer.encode_ordinary_flat(text)
        else:
            ids = self._tokenizer.encode_flat(text, allowed_special=allowed, disallowed_special=())
        array = np.frombuffer(ids, dtype=np.uint32)
        array.flags.writeable = False  # as tiktoken's, whichever buffer the ids came in
        return array

    def encode_ordinary_batch(self, text: list[str], *, num_threads: int = 8) -> list[list[int]]:
        """:meth:`encode_ordinary` on each text, on ``num_threads`` threads: the native
        engine's own threads without the GIL, else a pool of Python threads."""
        if self._tokenizer.engine == "native":
            return self._tokenizer.encode_ordinary_batch(text, num_threads)
        with ThreadPoolExecutor(num_threads) as pool:
            return list(pool.map(self.encode_ordinary, text))

    def encode_ordinary_batch_to_numpy(
        self, text: list[str], *, num_threads: int = 8
    ) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.int64]]:
        """:meth:`encode_ordinary_batch` flat: ``(ids, offsets)``, a ``uint32`` array of all
        the ids and an ``int64`` array of ``len(text) + 1`` offsets; text ``k``'s ids are
        ``ids[offsets[k]:offsets[k + 1]]``.  The native engine encodes the whole batch on
        ``num_threads`` threads without the GIL into one buffer (no Python object per id);
        without it, the Python engine gives the same arrays.  Needs numpy."""
        np = _numpy("encode_ordinary_batch_to_numpy")
        texts = _batch_texts(text, num_threads)
        if unpinned_constructs(self._split_pattern):  # else the check cannot fail
            for t in texts:
                check_unicode_version(self._split_pattern, t)
        ids, offsets = self._tokenizer.encode_ordinary_batch_flat(texts, num_threads)
        return np.frombuffer(ids, dtype=np.uint32), np.frombuffer(offsets, dtype=np.int64)

    def encode_batch_to_numpy(
        self,
        text: list[str],
        *,
        num_threads: int = 8,
        allowed_special: AllowedSpecial = frozenset(),
        disallowed_special: DisallowedSpecial = "all",
    ) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.int64]]:
        """:meth:`encode_batch` flat, as :meth:`encode_ordinary_batch_to_numpy`: the same
        special-token rules (a text matching a disallowed special token raises
        ``ValueError``); the ordinary runs between allowed special tokens go through the flat
        batch in one call."""
        np = _numpy("encode_batch_to_numpy")
        texts = _batch_texts(text, num_threads)
        allowed_special, disallowed_special = self._resolved(allowed_special, disallowed_special)
        if not isinstance(disallowed_special, frozenset):  # as encode_batch
            disallowed_special = frozenset(disallowed_special)
        allowed: frozenset[str] = frozenset()
        for t in texts:
            allowed = self._allowed(t, allowed_special, disallowed_special)
            check_unicode_version(self._split_pattern, t)
        ids, offsets = self._tokenizer.encode_batch_flat(
            texts, num_threads, allowed_special=allowed, disallowed_special=()
        )
        return np.frombuffer(ids, dtype=np.uint32), np.frombuffer(offsets, dtype=np.int64)

    def encode_batch(
        self,
        text: list[str],
        *,
        num_threads: int = 8,
        allowed_special: AllowedSpecial = frozenset(),
        disallowed_special: DisallowedSpecial = "all",
    ) -> list[list[int]]:
        """:meth:`encode` on each text, in a pool of ``num_threads`` threads."""
        allowed_special, disallowed_special = self._resolved(allowed_special, disallowed_special)
        if not isinstance(disallowed_special, frozenset):  # tiktoken's lines
            disallowed_special = frozenset(disallowed_special)
        encoder = functools.partial(
            self.encode, allowed_special=allowed_special, disallowed_special=disallowed_special
        )
        with ThreadPoolExecutor(num_threads) as pool:
            return list(pool.map(encoder, text))

    def encode_with_unstable(
        self,
        text: str,
        *,
        allowed_special: AllowedSpecial = frozenset(),
        disallowed_special: DisallowedSpecial = "all",
    ) -> tuple[list[int], list[list[int]]]:
        """Stable tokens (a prefix of :meth:`encode`'s) and the token sequences that may
        follow them once more text is appended (tiktoken's algorithm; the order of the
        completions is unspecified, as in tiktoken)."""
        allowed = self._allowed(text, allowed_special, disallowed_special)
        check_unicode_version(self._split_pattern, text)
        text = _fix_surrogates(text)
        tokens = self._tokenizer.encode(text, allowed_special=allowed, disallowed_special=())
        last_len = self._last_piece_token_len(text, allowed, tokens)
        if last_len == 0:
            return tokens, []
        last_len = self._widen_whitespace_tail(tokens, last_len)
        unstable = b"".join(self._decoder[t] for t in tokens[len(tokens) - last_len :])
        stable = tokens[: len(tokens) - last_len]
        return stable, [list(seq) for seq in self._completions(unstable)]

    def encode_single_token(self, text_or_bytes: str | bytes) -> int:
        """The id of the token (ordinary or special) whose text or bytes are exactly
        ``text_or_bytes``; ``KeyError`` if there is none."""
        if isinstance(text_or_bytes, str):
            text_or_bytes = text_or_bytes.encode("utf-8")
        if not isinstance(text_or_bytes, bytes):
            kind = type(text_or_bytes).__name__
            raise TypeError(f"{kind!r} object is not an instance of 'bytes'")
        token = self._mergeable_ranks.get(text_or_bytes)
        if token is not None:
            return token
        try:
            text = text_or_bytes.decode("utf-8")
        except UnicodeDecodeError:
            raise KeyError(text_or_bytes) from None
        token = self._special_tokens.get(text)
        if token is None:
            raise KeyError(text_or_bytes)
        return token

    # ------------------------------------------------------------------ decoding
    def decode_bytes(self, tokens: Sequence[int]) -> bytes:
        """The bytes of ``tokens``; ``KeyError`` for an unknown id."""
        return self._tokenizer.decode_bytes(_token_ids(tokens))

    def decode(self, tokens: Sequence[int], errors: str = "replace") -> str:
        """Decode to text; invalid UTF-8 is replaced by default (tiktoken's lossy default;
        ``errors="strict"`` raises ``UnicodeDecodeError``)."""
        return self.decode_bytes(tokens).decode("utf-8", errors=errors)

    def decode_single_token_bytes(self, token: int) -> bytes:
        """The bytes of one token (special tokens included); ``KeyError`` if unknown."""
        token = _token_id(token)
        found = self._decoder.get(token)
        if found is None:
            found = self._special_decoder.get(token)
            if found is None:
                raise UnknownTokenError(token)
        return found

    def decode_tokens_bytes(self, tokens: Sequence[int]) -> list[bytes]:
        """The bytes of each token."""
        return [self.decode_single_token_bytes(token) for token in tokens]

    def decode_with_offsets(self, tokens: Sequence[int]) -> tuple[str, list[int]]:
        """The text and, for each token, the index of the first character holding one of
        its bytes (a token that starts inside a character points at that character).
        Raises ``UnicodeDecodeError`` if the tokens are not valid UTF-8."""
        token_bytes = self.decode_tokens_bytes(tokens)
        offsets: list[int] = []
        chars = 0  # characters started so far = bytes that are not continuation bytes
        for data in token_bytes:
            starts_inside = bool(data) and 0x80 <= data[0] < 0xC0
            offsets.append(max(0, chars - starts_inside))
            chars += sum(1 for b in data if not 0x80 <= b < 0xC0)
        return b"".join(token_bytes).decode("utf-8", errors="strict"), offsets

    def decode_batch(
        self, batch: Sequence[Sequence[int]], *, errors: str = "replace", num_threads: int = 8
    ) -> list[str]:
        """:meth:`decode` on each list, in a pool of ``num_threads`` threads."""
        decoder = functools.partial(self.decode, errors=errors)
        with ThreadPoolExecutor(num_threads) as pool:
            return list(pool.map(decoder, batch))

    def decode_bytes_batch(
        self, batch: Sequence[Sequence[int]], *, num_threads: int = 8
    ) -> list[bytes]:
        """:meth:`decode_bytes` on each list, in a pool of ``num_threads`` threads."""
        with ThreadPoolExecutor(num_threads) as pool:
            return list(pool.map(self.decode_bytes, batch))

    # ------------------------------------------------------------------ attributes
    def token_byte_values(self) -> list[bytes]:
        """The bytes of every ordinary token, sorted (as tiktoken returns them)."""
        return list(self._sorted_tokens())

    @property
    def eot_token(self) -> int:
        return self._special_tokens["<|endoftext|>"]

    @functools.cached_property
    def special_tokens_set(self) -> set[str]:
        return set(self._special_tokens)

    @property
    def _special_names(self) -> frozenset[str]:
        """The special tokens' texts, the tokenizer's frozenset (not in tiktoken;
        :attr:`special_tokens_set` is a ``set`` a caller may change)."""
        return self._tokenizer._special_names

    def is_special_token(self, token: int) -> bool:
        if not isinstance(token, int):
            raise _TypeAssertion(f"token must be an int, not {type(token).__name__!r}")
        return token in self._special_token_values

    @property
    def engine(self) -> str:
        """The engine that encodes (not in tiktoken): ``"native"`` (the Rust extension, the
        default when the install built it) or ``"fast"`` (pure Python, the fallback); see
        :mod:`verified_bpe.engine.tokenizer`."""
        return self._tokenizer.engine

    @property
    def n_vocab(self) -> int:
        """``max_token_value + 1`` (tiktoken's definition, gaps included)."""
        return self.max_token_value + 1

    # ------------------------------------------------------------------ tiktoken's private API
    def _encode_single_piece(self, text_or_bytes: str | bytes) -> list[int]:
        """BPE of one piece, without the split pattern and without special tokens."""
        if isinstance(text_or_bytes, str):
            text_or_bytes = text_or_bytes.encode("utf-8")  # lone surrogates: as tiktoken
        if not isinstance(text_or_bytes, bytes):
            raise InvalidTypeError(
                "text_or_bytes", f"must be str or bytes, not {type(text_or_bytes).__name__}"
            )
        return self._bpe(text_or_bytes)

    def _encode_only_native_bpe(self, text: str) -> list[int]:
        """Split with the pattern, then BPE each piece (= :meth:`encode_ordinary`)."""
        _check_text(text)
        check_unicode_version(self._split_pattern, text)
        return [t for piece in self._split(_fix_surrogates(text)) for t in self._bpe(piece)]

    def _encode_bytes(self, data: bytes) -> list[int]:
        """Encode bytes that may not be UTF-8: the valid prefix as text; its last piece (and
        the whitespace tokens before it) re-encoded by BPE together with the rest."""
        if not isinstance(data, bytes):
            raise InvalidTypeError("data", f"must be bytes, not {type(data).__name__}")
        try:
            return self.encode_ordinary(data.decode("utf-8"))
        except UnicodeDecodeError as exc:
            valid = exc.start
        text = data[:valid].decode("utf-8")
        tokens = self._tokenizer.encode_ordinary(text)
        last_len = self._last_piece_token_len(text, frozenset(), tokens)
        last_len = self._widen_whitespace_tail(tokens, last_len)
        if tokens and last_len > 0:
            tail = b"".join(self._decoder[t] for t in tokens[len(tokens) - last_len :])
            tokens = tokens[: len(tokens) - last_len]
            rest = tail + data[valid:]
        else:
            rest = data[valid:]
        if rest:
            tokens += self._bpe(rest)
        return tokens

    # ------------------------------------------------------------------ helpers
    def _split(self, text: str) -> list[bytes]:
        """The pieces of ``text`` as tiktoken's engine cuts it (:func:`rust_pattern`, classes
        pinned to tiktoken's Unicode tables), UTF-8 encoded."""
        timeout = pattern_timeout(self._split_pattern, len(text))
        pieces = pinned_splitter(self._split_pattern).split(text, timeout)
        return [piece.encode("utf-8") for piece in pieces]

    def _bpe(self, piece: bytes) -> list[int]:
        return bpe_ranks(self._mergeable_ranks, piece) if piece else []

    def _sorted_tokens(self) -> list[bytes]:
        if self._sorted_token_bytes is None:
            self._sorted_token_bytes = sorted(self._mergeable_ranks)
        return self._sorted_token_bytes

    def _last_piece_token_len(self, text: str, allowed: frozenset[str], tokens: list[int]) -> int:
        """How many of ``tokens`` come from the last regex piece of the text after the last
        allowed special token (0 if the tokens end with a special token or are empty)."""
        if not tokens or tokens[-1] in self._special_token_values:
            return 0
        start = 0
        specials = allowed & self.special_tokens_set
        if specials:
            for found in special_alternation(specials).finditer(text):
                start = found.end()
        pieces = self._split(text[start:])
        if not pieces:
            return 0
        return len(self._bpe(pieces[-1]))

    def _widen_whitespace_tail(self, tokens: list[int], last_len: int) -> int:
        """tiktoken's fix for unstable regex splits: if the last piece starts with an
        all-whitespace token, the all-whitespace tokens before it join the unstable tail."""

        def all_space(token: int) -> bool:
            data = self._decoder.get(token)
            return data is not None and all(b in _WHITESPACE_BYTES for b in data)

        if last_len > 0 and all_space(tokens[len(tokens) - last_len]):
            while last_len < len(tokens) and all_space(tokens[len(tokens) - last_len - 1]):
                last_len += 1
        return last_len

    def _tokens_starting_with(self, prefix: bytes) -> Iterable[bytes]:
        sorted_tokens = self._sorted_tokens()
        i = bisect.bisect_left(sorted_tokens, prefix)
        while i < len(sorted_tokens) and sorted_tokens[i].startswith(prefix):
            yield sorted_tokens[i]
            i += 1

    def _completions(self, unstable: bytes) -> set[tuple[int, ...]]:
        """Token sequences that can follow the stable tokens (tiktoken's search): every
        token extending ``unstable``; for every split ``unstable = prefix + suffix`` and
        token ``t`` starting with ``suffix``, the encoding of ``prefix + t`` cut once it
        covers ``unstable``; and a split before a final whitespace character."""
        out: set[tuple[int, ...]] = set()
        if not unstable:
            return out
        for token in self._tokens_starting_with(unstable):
            out.add((self._mergeable_ranks[token],))
        for i in range(1, len(unstable)):
            prefix, suffix = unstable[:i], unstable[i:]
            for token in self._tokens_starting_with(suffix):
                possibility = prefix + token
                try:
                    encoded = self._tokenizer.encode_ordinary(possibility.decode("utf-8"))
                except UnicodeDecodeError:
                    encoded = self._bpe(possibility)
                seq: list[int] = []
                covered = 0
                for t in encoded:
                    seq.append(t)
                    covered += len(self._decoder[t])
                    if covered >= len(unstable):
                        break
                out.add(tuple(seq))
        if len(unstable) > 1:
            last = _last_char(unstable)
            if last is not None and len(unstable) > len(last[1]) and last[0].isspace():
                cut = len(unstable) - len(last[1])
                out.add(tuple(self._bpe(unstable[:cut]) + self._bpe(unstable[cut:])))
        return out

    # ------------------------------------------------------------------ pickling
    def __getstate__(self) -> object:
        """The tables (a registered encoding pickles by name instead: see
        :func:`verified_bpe.api.registry._reduce_encoding`)."""
        return {
            "name": self.name,
            "pat_str": self._pat_str,
            "mergeable_ranks": self._mergeable_ranks,
            "special_tokens": self._special_tokens,
        }

    def __setstate__(self, value: dict[str, Any]) -> None:
        self.__init__(**value)  # type: ignore[misc]


def _numpy(what: str) -> Any:
    """numpy, or :class:`~verified_bpe.errors.MissingExtraError` naming its install."""
    return require("numpy", "numpy", what)


def _batch_texts(texts: Any, num_threads: Any) -> list[str]:
    """A batch's texts as a list (each a ``str``, else ``TypeError`` naming it) and a thread
    count that is an ``int`` of at least 1 (as ``ThreadPoolExecutor`` requires)."""
    if isinstance(texts, str):
        raise InvalidTypeError("text", "a batch is a list of str, not one str")
    if isinstance(num_threads, bool) or not isinstance(num_threads, int):
        raise InvalidTypeError("num_threads", f"must be an int, not {type(num_threads).__name__}")
    if num_threads < 1:
        raise InvalidArgumentError("num_threads", f"must be at least 1, not {num_threads}")
    return validate.all_str(list(texts), "text")


def _last_char(data: bytes) -> tuple[str, bytes] | None:
    """The last UTF-8 character of ``data`` and its bytes (``None`` if the tail is not
    valid UTF-8; then tiktoken decodes U+FFFD, which is not whitespace)."""
    for width in range(1, min(4, len(data)) + 1):
        tail = data[-width:]
        try:
            text = tail.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if len(text) == 1:
            return text, tail
    return None


__all__ = ["Encoding"]
