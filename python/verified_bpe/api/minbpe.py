"""A drop-in for minbpe: ``BasicTokenizer``, ``RegexTokenizer``, ``GPT4Tokenizer``,
``get_stats``, ``merge``, ``render_token`` (``from verified_bpe.minbpe import ...``).

The first two are :mod:`verified_bpe.api.train`'s classes with minbpe's ``vocab`` convention:
after :meth:`~Tokenizer.load` the ``vocab`` also maps each special token's id to its UTF-8
bytes (minbpe's ``_build_vocab``); after ``train`` it holds the bytes and merges only.
Saving, the well-formedness check and ``to_tokenizer`` always use the merge table alone
(``build_vocab(merges)``), the table of the roundtrip theorem.

:class:`GPT4Tokenizer` is cl100k_base as minbpe presents it: merges recovered from the ranks
(:func:`~verified_bpe.spec.seed.decompose.recover_merges`, ids = ranks), ``vocab`` in the
shuffled byte space (``vocab[i] = bytes([i])`` for ``i < 256``), ``byte_shuffle`` /
``inverse_byte_shuffle`` (``byte -> rank of that byte``), the five cl100k special tokens.
Encoding is the spec's :func:`~verified_bpe.spec.seed.encode.encode_with` with that shuffle.
Deliberate differences from minbpe: the default split pattern is tiktoken 0.14's cl100k
pattern (with ``\\s++$``; ids equal tiktoken's); special token ids decode (minbpe's
``GPT4Tokenizer.decode`` raises ``KeyError`` on them); ``save``/``load`` work (minbpe raises
``NotImplementedError``): the ``.model`` file holds the merges in id space and ``load`` keeps
the cl100k byte shuffle.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..engine import validate
from ..engine.patterns import CL100K_PATTERN
from ..engine.tokenizer import Tokenizer as _FastTokenizer
from ..engine.tokenizer import _named_spec_tables
from ..engine.vocab import special_tokens as _published_special_tokens
from ..errors import DisallowedSpecialTokenError, UnknownTokenError
from ..formats.model_io import SHUFFLED_HEADER, format_vocab
from ..spec.seed.encode import decode_chunk, encode_with
from ..spec.seed.merge import get_stats as _spec_get_stats
from ..spec.seed.merge import merge
from ..spec.seed.well_formed import WellFormedResult, build_vocab, check_well_formed
from . import train as _train

#: minbpe's name for GPT-4's split pattern; here tiktoken 0.14's cl100k pattern.
GPT4_SPLIT_PATTERN = CL100K_PATTERN
GPT4_SPECIAL_TOKENS = _published_special_tokens("cl100k_base")


def get_stats(
    ids: Sequence[int], counts: dict[tuple[int, int], int] | None = None
) -> dict[tuple[int, int], int]:
    """minbpe's ``get_stats(ids, counts=None)``: the count of each adjacent pair of ``ids``
    (the spec's :func:`~verified_bpe.spec.seed.merge.get_stats`, Lean
    ``Bpe.Seed.Merge.getStats``), added into ``counts`` in place when it is given (minbpe's
    way of counting over many chunks); returns the counts."""
    found = _spec_get_stats(ids)
    if counts is None:
        return found
    for pair, n in found.items():
        counts[pair] = counts.get(pair, 0) + n
    return counts


def replace_control_characters(s: str) -> str:
    """minbpe's: every character of a Unicode category ``C*`` (control, format, surrogate,
    private use, unassigned) written ``\\u`` + at least four lowercase hex digits
    (``"\\x00"`` -> ``"\\u0000"``); the others as they are."""
    return "".join(f"\\u{ord(ch):04x}" if unicodedata.category(ch)[0] == "C" else ch for ch in s)


def render_token(t: bytes) -> str:
    """minbpe's ``render_token``: the bytes decoded as UTF-8 (invalid bytes become U+FFFD),
    then :func:`replace_control_characters`.  Lossy, unlike the package's own
    :func:`~verified_bpe.formats.model_io.render_token` (the ``.vocab`` files' escaping)."""
    return replace_control_characters(t.decode("utf-8", errors="replace"))


class MinbpeDisallowedSpecialTokenError(DisallowedSpecialTokenError, AssertionError):
    """minbpe asserts (``AssertionError``) when ``allowed_special="none_raise"`` meets a
    special token; this is both that and the package's typed error."""


class _MinbpeVocab:
    """minbpe's ``vocab`` convention on top of :mod:`verified_bpe.api.train`'s classes."""

    merges: dict[tuple[int, int], int]
    vocab: dict[int, bytes]
    special_tokens: dict[str, int]

    @contextmanager
    def _merge_vocab(self) -> Iterator[None]:
        """Within the block ``vocab`` is the merge table's alone."""
        saved = self.vocab
        self.vocab = build_vocab(self.merges)
        try:
            yield
        finally:
            self.vocab = saved

    def register_special_tokens(self, special_tokens: Mapping[str, int]) -> None:
        """minbpe's: the special tokens become exactly ``special_tokens`` (the previous ones
        are dropped, their ids free).  Checked as the package's classes check them (an id
        that is a byte or merge id: :class:`~verified_bpe.errors.MalformedVocabError`);
        atomic."""
        with self._merge_vocab():
            specials, decoder = _train._with_specials({}, self.vocab, special_tokens)
        self.special_tokens, self._decoder = specials, decoder  # type: ignore[attr-defined]

    @property
    def inverse_special_tokens(self) -> dict[int, str]:
        """id -> special token text (minbpe's attribute)."""
        return {idx: text for text, idx in self.special_tokens.items()}

    def load(self, model_file: str | Path) -> None:
        """Load a ``.model`` file; ``vocab`` then includes the special tokens (minbpe)."""
        super().load(model_file)  # type: ignore[misc]
        self.vocab = {
            **self.vocab,
            **{idx: text.encode("utf-8") for text, idx in self.special_tokens.items()},
        }

    def save(self, file_prefix: str | Path) -> tuple[Path, Path]:
        with self._merge_vocab():
            return super().save(file_prefix)  # type: ignore[misc]

    def check_well_formed(self) -> WellFormedResult:
        with self._merge_vocab():
            return super().check_well_formed()  # type: ignore[misc]


class BasicTokenizer(_MinbpeVocab, _train.BasicTokenizer):
    """minbpe's ``BasicTokenizer`` (no split pattern)."""


class RegexTokenizer(_MinbpeVocab, _train.RegexTokenizer):
    """minbpe's ``RegexTokenizer`` (default pattern: GPT-4's, tiktoken 0.14's form)."""

    def encode(self, text: str, allowed_special: Any = "none_raise") -> list[int]:
        """minbpe's rule: ``allowed_special`` is ``"all"``, ``"none"``, ``"none_raise"``
        (a special token in the text: :class:`MinbpeDisallowedSpecialTokenError`, an
        ``AssertionError`` as in minbpe) or a ``set`` (tokens this tokenizer lacks are
        ignored); anything else: ``ValueError``."""
        if not isinstance(allowed_special, str | set):
            raise ValueError(f"allowed_special={allowed_special!r} not understood")
        try:
            return super().encode(text, allowed_special)
        except DisallowedSpecialTokenError as exc:
            raise MinbpeDisallowedSpecialTokenError(exc.token) from None

    def to_tokenizer(self, name: str = "trained") -> _FastTokenizer:
        with self._merge_vocab():
            return super().to_tokenizer(name)


Tokenizer = BasicTokenizer


class GPT4Tokenizer(RegexTokenizer):
    """cl100k_base in minbpe's form (see the module docstring).  Its ``.model`` files start
    with ``minbpe v1 cl100k-byte-shuffle``: their merges are in the shuffled id space, so a
    plain loader (``load_tokenizer``, the CLI, minbpe) refuses them instead of reading
    other ids."""

    _model_header = SHUFFLED_HEADER

    def __init__(self) -> None:
        super().__init__(pattern=GPT4_SPLIT_PATTERN)
        tables = _named_spec_tables("cl100k_base")
        merges = dict(sorted(tables.merges.items(), key=lambda item: item[1]))
        self._set_tables(merges, {})
        self._shuffle = list(tables.byte_shuffle)
        self._inverse = list(tables.inverse_shuffle)
        self.byte_shuffle = dict(enumerate(self._shuffle))
        self.inverse_byte_shuffle = dict(enumerate(self._inverse))
        self.register_special_tokens(GPT4_SPECIAL_TOKENS)

    def train(self, text: str, vocab_size: int, verbose: bool = False) -> None:
        """A pretrained tokenizer: not meant to be trained (as minbpe)."""
        raise NotImplementedError("GPT4Tokenizer is pretrained and cannot be trained")

    def check_well_formed(self) -> WellFormedResult:
        with self._merge_vocab():
            return check_well_formed(self.merges, self.vocab, self._shuffle)

    def encode_ordinary(self, text: str) -> list[int]:
        """The spec's ``encode_with``: split with the pattern, shuffle the bytes, merge."""
        validate.text(text, "text")
        return encode_with(self._pre_tokenize, self.merges, self._shuffle, text)

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """Look up each id and undo the byte shuffle (the spec's ``decode_chunk``); special
        tokens decode to their text; unknown id: ``UnknownTokenError``; an id that is not an
        ``int`` (``True``, ``1.0``): ``InvalidArgumentError``."""
        specials = self.inverse_special_tokens
        merge_ids = len(self.merges) + 256
        parts: list[bytes] = []
        run: list[int] = []
        for idx in validate.token_ids(ids, "ids"):
            if idx in specials:
                parts.append(decode_chunk(self.vocab, self._inverse, run))
                parts.append(specials[idx].encode("utf-8"))
                run = []
            elif isinstance(idx, int) and 0 <= idx < merge_ids:
                run.append(idx)
            else:
                raise UnknownTokenError(idx)
        parts.append(decode_chunk(self.vocab, self._inverse, run))
        return b"".join(parts)

    def save_vocab(self, vocab_file: str | Path) -> Path:
        """A readable vocabulary with the real (unshuffled) bytes of each token."""
        table = bytes(self._inverse)
        with self._merge_vocab():
            real = {idx: token.translate(table) for idx, token in self.vocab.items()}
        path = Path(vocab_file)
        path.write_text(
            format_vocab(self.merges, real, self.special_tokens), encoding="utf-8", newline="\n"
        )
        return path

    def save(self, file_prefix: str | Path) -> tuple[Path, Path]:
        """``<prefix>.model`` (merges in id space; :meth:`load` reads it back) and
        ``<prefix>.vocab`` with the real bytes."""
        model, _ = super().save(file_prefix)
        return model, self.save_vocab(str(file_prefix) + ".vocab")

    def to_tokenizer(self, name: str = "cl100k_base") -> _FastTokenizer:
        return _FastTokenizer.from_tiktoken("cl100k_base")


__all__ = [
    "GPT4_SPECIAL_TOKENS",
    "GPT4_SPLIT_PATTERN",
    "BasicTokenizer",
    "GPT4Tokenizer",
    "RegexTokenizer",
    "Tokenizer",
    "get_stats",
    "merge",
    "render_token",
    "replace_control_characters",
]
