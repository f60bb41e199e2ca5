"""UTF-8-safe streaming decoding: text out as soon as it is valid, one token id at a time.

A token boundary need not be a character boundary: ``"中"`` is ``E4 B8 AD`` and a tokenizer may
emit ``E4`` and ``B8 AD`` as two tokens.  :class:`StreamingDecoder` keeps the bytes of an
incomplete multi-byte sequence until the sequence is complete (or can no longer become
valid) and returns only settled text.

Contract (tested in ``tests/test_streaming.py``): for every id sequence ``ids``,
``"".join(d.feed(i) for i in ids) + d.flush()`` equals
``tokenizer.decode_bytes(ids).decode("utf-8", errors="replace")`` (tiktoken's and
:meth:`~verified_bpe.engine.tokenizer.Tokenizer.decode`'s result), and after each ``feed`` the text
returned so far is exactly the decoding of the bytes seen so far minus a trailing incomplete
sequence (at most 3 bytes).  Bytes that can never become valid are emitted at once as
U+FFFD, with the same number of replacement characters as the batch decode.

Token ids are turned into bytes by the tokenizer itself
(:meth:`~verified_bpe.engine.tokenizer.Tokenizer.decode_single_token_bytes`); settled bytes are
decoded with ``bytes.decode("utf-8", errors="replace")``.  The standard library's incremental
UTF-8 decoder is not used: it holds ``ED A0``..``ED BF`` (a surrogate's first two bytes,
which can never become valid) until more data arrives, i.e. later than necessary.

Why cutting before the held tail gives the batch result: a held tail starts with a lead
byte, which is never a continuation byte, so in the batch decode whatever precedes it ends
there (complete, or a maximal invalid subpart that becomes one U+FFFD whether it is followed
by the lead byte or by the end of the data).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

#: For each lead byte of a multi-byte sequence: (length of the sequence, allowed range of the
#: second byte).  The ranges exclude overlong forms (E0, F0), surrogates (ED) and code points
#: above U+10FFFF (F4); C0, C1 and F5-FF are never valid (Unicode Table 3-7).
_LEAD: dict[int, tuple[int, int, int]] = {
    **{b: (2, 0x80, 0xBF) for b in range(0xC2, 0xE0)},
    0xE0: (3, 0xA0, 0xBF),
    **{b: (3, 0x80, 0xBF) for b in range(0xE1, 0xED)},
    0xED: (3, 0x80, 0x9F),
    0xEE: (3, 0x80, 0xBF),
    0xEF: (3, 0x80, 0xBF),
    0xF0: (4, 0x90, 0xBF),
    0xF1: (4, 0x80, 0xBF),
    0xF2: (4, 0x80, 0xBF),
    0xF3: (4, 0x80, 0xBF),
    0xF4: (4, 0x80, 0x8F),
}


def is_incomplete_sequence(part: bytes) -> bool:
    """Is ``part`` a proper, non-empty prefix of the UTF-8 encoding of some code point?"""
    if not part or part[0] not in _LEAD:
        return False
    length, low, high = _LEAD[part[0]]
    if len(part) >= length:
        return False
    if len(part) >= 2 and not low <= part[1] <= high:
        return False
    return all(0x80 <= b <= 0xBF for b in part[2:])


def incomplete_tail_length(data: bytes) -> int:
    """Length (0-3) of the suffix of ``data`` that is an incomplete UTF-8 sequence: the
    bytes that could still become a character.  At most one suffix length qualifies (each
    candidate starts with a lead byte, and the bytes after it must be continuation bytes)."""
    for k in range(1, min(3, len(data)) + 1):
        if is_incomplete_sequence(data[-k:]):
            return k
    return 0


class TokenBytes(Protocol):
    """What the streaming decoder needs from a tokenizer (``Tokenizer`` provides it)."""

    def decode_single_token_bytes(self, token_id: int) -> bytes:  # pragma: no cover
        ...


class StreamingDecoder:
    """Decode a stream of token ids into text, never splitting a UTF-8 sequence.

    >>> from verified_bpe.engine.tokenizer import Tokenizer
    >>> tok = Tokenizer.from_tiktoken("cl100k_base")
    >>> dec = StreamingDecoder(tok)
    >>> "".join(dec.feed(i) for i in tok.encode("日本語")) + dec.flush()
    '日本語'

    An unknown id raises :class:`~verified_bpe.errors.UnknownTokenError` and leaves the
    decoder unchanged.
    """

    def __init__(self, tokenizer: TokenBytes) -> None:
        self._tokenizer = tokenizer
        self._pending = b""

    def feed(self, token_id: int) -> str:
        """Add one token; return the text that became settled (possibly ``""``)."""
        data = self._pending + self._tokenizer.decode_single_token_bytes(token_id)
        cut = len(data) - incomplete_tail_length(data)
        self._pending = data[cut:]
        return data[:cut].decode("utf-8", errors="replace")

    def feed_many(self, token_ids: Iterable[int]) -> str:
        """Add several tokens; the concatenation of what :meth:`feed` would return."""
        return "".join(self.feed(token_id) for token_id in token_ids)

    def flush(self) -> str:
        """End of stream: a held incomplete sequence becomes one U+FFFD (as in the batch
        decode).  The decoder is then empty and can be reused for a new stream."""
        text = self._pending.decode("utf-8", errors="replace")
        self._pending = b""
        return text

    def reset(self) -> None:
        """Drop any held bytes without emitting them."""
        self._pending = b""

    @property
    def pending(self) -> bytes:
        """The bytes held back (an incomplete UTF-8 sequence, at most 3 bytes)."""
        return self._pending


def stream_decode(tokenizer: TokenBytes, token_ids: Iterable[int]) -> Iterable[str]:
    """Yield the non-empty pieces of text of ``token_ids`` as they settle, then the flushed
    tail (if any)."""
    decoder = StreamingDecoder(tokenizer)
    for token_id in token_ids:
        piece = decoder.feed(token_id)
        if piece:
            yield piece
    tail = decoder.flush()
    if tail:
        yield tail


__all__ = [
    "StreamingDecoder",
    "TokenBytes",
    "incomplete_tail_length",
    "is_incomplete_sequence",
    "stream_decode",
]
