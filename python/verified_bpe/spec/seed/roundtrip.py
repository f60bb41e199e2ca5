"""The roundtrip theorems as executable checks.

Lean: ``Bpe.Seed.Roundtrip``.  Each function returns ``True`` when the theorem's conclusion holds
for the arguments or one of its hypotheses does not.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ...errors import BpeError
from .encode import decode, encode, encode_chunk, encode_with
from .merge import decode_bytes
from .shuffle import invert_shuffle
from .utf8 import is_ascii_string
from .well_formed import check_well_formed


def _hypotheses(merges, vocab, byte_shuffle, inverse_shuffle) -> bool:  # noqa: ANN001
    return check_well_formed(merges, vocab, byte_shuffle).ok and all(
        inverse_shuffle[byte_shuffle[b]] == b for b in range(256)
    )


def lemma_decode_bytes_encode_chunk(
    merges: Mapping[tuple[int, int], int],
    vocab: Mapping[int, bytes],
    byte_shuffle: Sequence[int],
    chunk: bytes,
) -> bool:
    """For well-formed tables, the ids of a chunk decode to its shuffled bytes.

    Lean: ``Bpe.Seed.Roundtrip.decodeBytes_encodeChunk`` (via ``decodeBytes_encodeLoop``).
    """
    if not check_well_formed(merges, vocab, byte_shuffle).ok:
        return True
    ids = encode_chunk(merges, byte_shuffle, chunk)
    return decode_bytes(vocab, ids) == bytes(byte_shuffle[b] for b in chunk)


def theorem_bpe_roundtrip(
    pre_tokenizer: Callable[[bytes], list[bytes]],
    merges: Mapping[tuple[int, int], int],
    vocab: Mapping[int, bytes],
    byte_shuffle: Sequence[int],
    inverse_shuffle: Sequence[int],
    text: str,
) -> bool:
    """Roundtrip for every string and any partitioning pre-tokenizer.

    Lean: ``Bpe.Seed.Roundtrip.bpe_roundtrip`` (the partition hypothesis is checked on the text's
    bytes only).
    """
    if not _hypotheses(merges, vocab, byte_shuffle, inverse_shuffle):
        return True
    data = text.encode("utf-8")
    if b"".join(pre_tokenizer(data)) != data:
        return True
    ids = encode_with(pre_tokenizer, merges, byte_shuffle, text)
    try:
        return decode(vocab, inverse_shuffle, ids) == text
    except BpeError:
        return False


def theorem_ascii_bpe_roundtrip(
    merges: Mapping[tuple[int, int], int],
    vocab: Mapping[int, bytes],
    byte_shuffle: Sequence[int],
    inverse_shuffle: Sequence[int],
    text: str,
) -> bool:
    """The seed's main theorem: for all ASCII ``text``, ``decode(encode(text)) = text``.

    Lean: ``Bpe.Seed.Roundtrip.ascii_bpe_roundtrip``.
    """
    if not _hypotheses(merges, vocab, byte_shuffle, inverse_shuffle):
        return True
    if not is_ascii_string(text):
        return True
    try:
        return decode(vocab, inverse_shuffle, encode(merges, byte_shuffle, text)) == text
    except BpeError:
        return False


def theorem_ascii_bpe_roundtrip_invert_shuffle(
    merges: Mapping[tuple[int, int], int],
    vocab: Mapping[int, bytes],
    byte_shuffle: Sequence[int],
    text: str,
) -> bool:
    """The roundtrip with the inverse shuffle computed from the shuffle (Lemma 2).

    Lean: ``Bpe.Seed.Roundtrip.ascii_bpe_roundtrip_invertShuffle``.
    """
    return theorem_ascii_bpe_roundtrip(
        merges, vocab, byte_shuffle, invert_shuffle(byte_shuffle), text
    )
