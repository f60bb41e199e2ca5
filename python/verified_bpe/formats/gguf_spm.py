"""SentencePiece BPE with byte fallback from GGUF files (``tokenizer.ggml.model == "llama"``:
llama-spm, phi-3, baichuan), as llama.cpp runs it (``llm_tokenizer_spm_session``).

Not byte-level BPE, and not covered by the Lean spec: token texts are plain UTF-8 with
``"▁"`` (U+2581) for a space, merges come from the tokens' scores instead of a merge list.

1. User-defined tokens (and control/unknown tokens with ``parse_special=True``) cut the text
   first, longest text first (as for byte-level files).
2. A space is prepended to the first text fragment and to each one after a special token
   (``tokenizer.ggml.add_space_prefix``, default true), then every space becomes ``"▁"``.
3. The fragment starts as one part per character; while two adjacent parts concatenate to a
   token, the pair whose token has the highest score is merged, the leftmost on ties.
4. A part that is not a token is written as its UTF-8 bytes, each by its byte token
   ``<0xXX>`` (byte fallback); a byte without one raises
   :class:`~verified_bpe.errors.UnencodableBytesError`.

Decoding writes ``"▁"`` back as a space and a byte token as its byte, and drops the one
space that step 2 added in front (llama.cpp's ``remove_space``).
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence

from ..engine.merge_list import merge_parts
from ..engine.validate import check_regular_file
from ..errors import (
    InvalidArgumentError,
    MalformedGgufError,
    UnencodableBytesError,
    UnknownTokenError,
    UnsupportedGgufModelError,
)
from . import gguf_file
from .special_split import by_length, choose_specials, partition_special

SPACE = "\u2581"
KEY_MODEL = "tokenizer.ggml.model"
KEY_TOKENS = "tokenizer.ggml.tokens"
KEY_SCORES = "tokenizer.ggml.scores"
KEY_TOKEN_TYPE = "tokenizer.ggml.token_type"
KEY_ADD_SPACE_PREFIX = "tokenizer.ggml.add_space_prefix"
KEYS = (KEY_MODEL, KEY_TOKENS, KEY_SCORES, KEY_TOKEN_TYPE, KEY_ADD_SPACE_PREFIX)
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6


class SentencePieceBpeTokenizer:
    """llama.cpp's SentencePiece BPE (see the module docstring)."""

    def __init__(
        self,
        tokens: Sequence[str],
        scores: Sequence[float],
        types: Sequence[int],
        add_space_prefix: bool = True,
        name: str = "gguf",
    ) -> None:
        if not len(tokens) == len(scores) == len(types):
            raise MalformedGgufError(
                f"{len(tokens)} tokens, {len(scores)} scores and {len(types)} token types"
            )
        self.tokens = tuple(tokens)
        self.name = name
        self.add_space_prefix = add_space_prefix
        self._scores = list(scores)
        self._ids = {text: i for i, text in enumerate(tokens)}  # the last id of a text wins
        self._bytes: dict[int, bytes] = {}
        self._byte_ids: dict[int, int] = {}
        for i, (text, kind) in enumerate(zip(tokens, types, strict=True)):
            if kind == BYTE:
                try:
                    value = int(text[3:5], 16)
                except ValueError:
                    raise MalformedGgufError(f"byte token {i} {text!r} is not <0xXX>") from None
                self._byte_ids.setdefault(value, i)
                self._bytes[i] = bytes([value])
            else:
                self._bytes[i] = text.replace(SPACE, " ").encode("utf-8")
        specials = by_length(
            (t, i) for i, t in enumerate(tokens) if types[i] in (UNKNOWN, CONTROL, USER_DEFINED)
        )
        self._specials = specials
        self._user_defined_ids = frozenset(i for _, i in specials if types[i] == USER_DEFINED)

    def _rank(self, left: str, right: str) -> float | None:
        token_id = self._ids.get(left + right)
        return None if token_id is None else -self._scores[token_id]

    def _session(self, text: str) -> list[int]:
        out: list[int] = []
        for part in merge_parts(list(text), self._rank):
            token_id = self._ids.get(part)
            if token_id is not None:
                out.append(token_id)
                continue
            data = part.encode("utf-8")
            for b in data:  # byte fallback
                byte_id = self._byte_ids.get(b)
                if byte_id is None:
                    raise UnencodableBytesError(data, b, self.name)
                out.append(byte_id)
        return out

    @property
    def user_defined_tokens(self) -> dict[str, int]:
        """The user-defined tokens (text -> id): they always cut the text first."""
        return {t: i for t, i in self._specials if i in self._user_defined_ids}

    def encode(self, text: str, parse_special: bool | Collection[str] = False) -> list[int]:
        """The ids of ``text`` (no BOS/EOS added), as llama.cpp's ``llama_tokenize`` with
        ``add_special=false``."""
        if not isinstance(text, str):
            raise InvalidArgumentError("text", f"must be a str, not {type(text).__name__}")
        text = text.encode("utf-8", "replace").decode("utf-8") if not text.isascii() else text
        specials = choose_specials(self._specials, self._user_defined_ids, parse_special)
        fragments = partition_special(text, specials)
        out: list[int] = []
        previous_special = True
        for fragment in fragments:
            if isinstance(fragment, int):
                out.append(fragment)
                previous_special = True
                continue
            if self.add_space_prefix and previous_special:
                fragment = " " + fragment
            out.extend(self._session(fragment.replace(" ", SPACE)))
            previous_special = False
        return out

    def encode_ordinary(self, text: str) -> list[int]:
        """:meth:`encode` with ``parse_special=False``."""
        return self.encode(text)

    def decode_bytes(self, ids: Sequence[int]) -> bytes:
        """The bytes of ``ids`` (special tokens: their text), without the space that
        encoding put in front; an unknown id: :class:`~verified_bpe.errors.UnknownTokenError`."""
        out = bytearray()
        for token_id in ids:
            data = self._bytes.get(token_id) if isinstance(token_id, int) else None
            if data is None:
                raise UnknownTokenError(token_id)
            out += data
        if self.add_space_prefix and out.startswith(b" "):
            del out[0]
        return bytes(out)

    def decode_single_token_bytes(self, token_id: int) -> bytes:
        """The bytes of one token (no space removed)."""
        data = self._bytes.get(token_id) if isinstance(token_id, int) else None
        if data is None:
            raise UnknownTokenError(token_id)
        return data

    def decode(self, ids: Sequence[int], errors: str = "replace") -> str:
        """:meth:`decode_bytes` as text."""
        return self.decode_bytes(ids).decode("utf-8", errors)

    def __repr__(self) -> str:
        return f"<SentencePieceBpeTokenizer {self.name!r}>"


def spm_tokenizer_from_gguf(path: str | os.PathLike[str]) -> SentencePieceBpeTokenizer:
    """Read a SentencePiece (``"llama"``) GGUF file; errors name the file.  Each value's
    type is checked before it is read (:class:`~.gguf_file.GgufMetadata`): tokens an array
    of non-empty strings, scores of numbers and token types of integers, one per token,
    ``add_space_prefix`` a bool."""
    where = os.fspath(path)
    check_regular_file(where)
    try:
        with gguf_file.open_metadata(where, (KEY_TOKENS,)) as meta:
            model = meta.string(KEY_MODEL, required=True)
            if model != "llama":
                raise UnsupportedGgufModelError(str(model), path=where)
            tokens = meta.strings(KEY_TOKENS, required=True, nonempty=True)
            assert tokens is not None
            scores = meta.numbers(KEY_SCORES, required=True, per_token=len(tokens))
            types = meta.integers(KEY_TOKEN_TYPE, per_token=len(tokens))
            if types is None:
                raise MalformedGgufError(f"missing key {KEY_TOKEN_TYPE!r}")
            prefix = meta.boolean(KEY_ADD_SPACE_PREFIX)
        assert scores is not None
        return SentencePieceBpeTokenizer(
            tokens,
            scores,
            types,
            add_space_prefix=True if prefix is None else prefix,
            name=where,
        )
    except UnsupportedGgufModelError:
        raise
    except MalformedGgufError as exc:
        raise MalformedGgufError(exc.message, path=where) from None


__all__ = ["SentencePieceBpeTokenizer", "spm_tokenizer_from_gguf"]
