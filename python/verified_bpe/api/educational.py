"""tiktoken's ``tiktoken._educational`` (0.14): ``SimpleBytePairEncoding``, ``bpe_encode``,
``bpe_train``, ``visualise_tokens``, on this package's engine.

Differences, on purpose: the text is cut into whole matches of the pattern as tiktoken's Rust
engine cuts it (tiktoken's educational code uses ``regex.findall``, which returns the groups of
a pattern with capturing groups); ``visualise`` shows the final tokens of each piece, not every
merge step; training stops when the text has no pair left (tiktoken's raises ``ValueError``)
and learns merges of token ids (:func:`verified_bpe.api.train.train_merges`), so it equals
tiktoken's whenever no two merges spell the same bytes (tested on real text).  No Lean
counterpart (the merge loop is the spec's, see :mod:`verified_bpe.api.train`).
"""

from __future__ import annotations

from typing import Any

from ..engine.patterns import pinned_splitter
from ..engine.rust_syntax import rust_pattern
from ..engine.tokenizer import bpe_ranks
from ..spec.seed.well_formed import build_vocab
from .train import train_merges


def _pieces(text: str, pat_str: str) -> list[bytes]:
    return [p.encode("utf-8") for p in pinned_splitter(rust_pattern(pat_str)).split(text)]


def visualise_tokens(token_values: list[bytes]) -> None:
    """Print the tokens on one line, each between ``[`` and ``]`` (bytes that are not whole
    characters shown as U+FFFD)."""
    print("".join(f"[{t.decode('utf-8', errors='replace')}]" for t in token_values))


def bpe_encode(
    mergeable_ranks: dict[bytes, int], input: bytes, visualise: str | None = "colour"
) -> list[int]:
    """The ranks of ``input`` after rank BPE (lowest rank merged first)."""
    tokens = bpe_ranks(mergeable_ranks, input) if input else []
    if visualise:
        decoder = {rank: token for token, rank in mergeable_ranks.items()}
        visualise_tokens([decoder[t] for t in tokens])
    return tokens


def bpe_train(
    data: str, vocab_size: int, pat_str: str, visualise: str | None = "colour"
) -> dict[bytes, int]:
    """A rank table of at most ``vocab_size`` tokens learnt from ``data`` (the 256 bytes,
    then the most frequent pair of each step, first seen on ties)."""
    if vocab_size < 2**8:
        raise ValueError("vocab_size must be at least 256, so we can encode all bytes")
    merges = train_merges(_pieces(data, pat_str), vocab_size - 2**8)
    vocab = build_vocab(merges)
    if visualise:
        visualise_tokens([vocab[idx] for idx in merges.values()])
    return {token: idx for idx, token in vocab.items()}


class SimpleBytePairEncoding:
    """tiktoken's educational encoder: ``pat_str`` and ``mergeable_ranks``, no specials."""

    def __init__(self, *, pat_str: str, mergeable_ranks: dict[bytes, int]) -> None:
        self.pat_str = pat_str
        self.mergeable_ranks = mergeable_ranks
        self._decoder = {token: token_bytes for token_bytes, token in mergeable_ranks.items()}

    def encode(self, text: str, visualise: str | None = "colour") -> list[int]:
        return [
            t
            for piece in _pieces(text, self.pat_str)
            for t in bpe_encode(self.mergeable_ranks, piece, visualise)
        ]

    def decode_bytes(self, tokens: list[int]) -> bytes:
        return b"".join(self._decoder[token] for token in tokens)

    def decode(self, tokens: list[int]) -> str:
        return self.decode_bytes(tokens).decode("utf-8", errors="replace")

    def decode_tokens_bytes(self, tokens: list[int]) -> list[bytes]:
        return [self._decoder[token] for token in tokens]

    @staticmethod
    def train(training_data: str, vocab_size: int, pat_str: str) -> SimpleBytePairEncoding:
        ranks = bpe_train(training_data, vocab_size, pat_str, visualise=None)
        return SimpleBytePairEncoding(pat_str=pat_str, mergeable_ranks=ranks)

    @staticmethod
    def from_tiktoken(encoding: Any) -> SimpleBytePairEncoding:
        if isinstance(encoding, str):
            from .registry import get_encoding

            encoding = get_encoding(encoding)
        return SimpleBytePairEncoding(
            pat_str=encoding._pat_str, mergeable_ranks=encoding._mergeable_ranks
        )


__all__ = ["SimpleBytePairEncoding", "bpe_encode", "bpe_train", "visualise_tokens"]
