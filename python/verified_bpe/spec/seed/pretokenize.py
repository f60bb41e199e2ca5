r"""The cl100k_base pre-tokenizer on ASCII input, as a state machine.

Lean: ``Bpe.Seed.PreTokenize``.  Data is a byte string and a position ``i``; Lean's ``rest`` is
``data[i:]`` (indices avoid copying).  Every ``match_*`` function returns the length of the
match of one branch of the cl100k_base pattern at ``i`` (0 = the branch does not match)::

    '(?i:[sdmt]|ll|ve|re)            match_contraction
    [^\r\n\p{L}\p{N}]?+\p{L}+        match_word
    \p{N}{1,3}                       match_digits
     ?[^\s\p{L}\p{N}]++[\r\n]*       match_punct
    \s*[\r\n]                        match_newline_ws
    \s+(?!\S)                        match_trailing_ws
    \s+                              match_other_ws

:func:`next_chunk_len` takes the first branch that matches (regex alternation is ordered),
else 1 byte (the fallback, unreachable on ASCII input now that :func:`is_punct` covers the
control bytes).  The state machine equals ``regex.findall`` with this pattern on every ASCII
string (tested exhaustively on short strings); see ``tests/test_spec_pretokenize.py``.

Note: tiktoken (0.8 and later) ships a faster form of the pattern,
``...|\s++$|\s*[\r\n]|\s+(?!\S)|\s``, whose ``\s++$`` branch makes a whitespace run that
reaches the end of the text one chunk.  It therefore splits the end of a text differently when
the final whitespace run has a newline before its last byte (``"a\n "``: ``["a", "\n", " "]``
here, ``["a", "\n "]`` there): the last two chunks, both whitespace, are joined.  On the real
cl100k_base vocabulary the token ids are the same, because no token consists of whitespace
with a newline followed by non-newline whitespace at its end (tested).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from .classify import is_ascii, is_digit, is_letter, is_newline, is_punct, is_space, to_lower


def run_length(pred: Callable[[int], bool], data: bytes, i: int) -> int:
    """Length of the longest run of bytes satisfying ``pred`` starting at ``i``.

    Lean: ``Bpe.Seed.PreTokenize.runLength``.
    """
    j = i
    while j < len(data) and pred(data[j]):
        j += 1
    return j - i


def match_contraction(data: bytes, i: int) -> int:
    """Branch 1, ``'(?i:[sdmt]|ll|ve|re)``.  Lean: ``Bpe.Seed.PreTokenize.matchContraction``."""
    if i + 1 < len(data) and data[i] == 39:  # '
        c = to_lower(data[i + 1])
        if c in (115, 100, 109, 116):  # s d m t
            return 2
        if i + 2 < len(data):
            d = to_lower(data[i + 2])
            if (c, d) in ((108, 108), (118, 101), (114, 101)):  # ll ve re
                return 3
    return 0


def is_word_lead(b: int) -> bool:
    r"""The optional lead of branch 2, ``[^\r\n\p{L}\p{N}]``, on ASCII.

    Lean: ``Bpe.Seed.PreTokenize.isWordLead``.
    """
    return is_ascii(b) and not is_newline(b) and not is_letter(b) and not is_digit(b)


def match_word(data: bytes, i: int) -> int:
    r"""Branch 2, ``[^\r\n\p{L}\p{N}]?+\p{L}+``.  Lean: ``Bpe.Seed.PreTokenize.matchWord``.

    The lead byte is possessive, but giving it back could not help: the byte would then have
    to be a letter, which the lead class excludes.
    """
    if i >= len(data):
        return 0
    b = data[i]
    if is_letter(b):
        return run_length(is_letter, data, i)
    if is_word_lead(b):
        n = run_length(is_letter, data, i + 1)
        return 0 if n == 0 else n + 1
    return 0


def match_digits(data: bytes, i: int) -> int:
    r"""Branch 3, ``\p{N}{1,3}``.  Lean: ``Bpe.Seed.PreTokenize.matchDigits``."""
    return min(3, run_length(is_digit, data, i))


def punct_tail(data: bytes, i: int) -> int:
    r"""``[^\s\p{L}\p{N}]++[\r\n]*``: 0 unless at least one punctuation byte.

    Lean: ``Bpe.Seed.PreTokenize.punctTail``.
    """
    n = run_length(is_punct, data, i)
    return 0 if n == 0 else n + run_length(is_newline, data, i + n)


def match_punct(data: bytes, i: int) -> int:
    r"""Branch 4, `` ?[^\s\p{L}\p{N}]++[\r\n]*``.  Lean: ``Bpe.Seed.PreTokenize.matchPunct``.

    Backtracking the optional space cannot help (a space is not punctuation).
    """
    if i >= len(data):
        return 0
    if data[i] == 32:
        n = punct_tail(data, i + 1)
        return 0 if n == 0 else n + 1
    return punct_tail(data, i)


def last_newline_end(n: int, data: bytes, i: int) -> int:
    """One past the last newline among the ``n`` bytes from ``i``, or 0 if there is none.

    Lean: ``Bpe.Seed.PreTokenize.lastNewlineEnd``.
    """
    end = 0
    for k in range(min(n, len(data) - i)):
        if is_newline(data[i + k]):
            end = k + 1
    return end


def match_newline_ws(data: bytes, i: int) -> int:
    r"""Branch 5, ``\s*[\r\n]``: the longest whitespace prefix that ends in a newline.

    Lean: ``Bpe.Seed.PreTokenize.matchNewlineWs``.  (``\s*`` backtracks from the end of the run
    until the next byte is a newline.)
    """
    return last_newline_end(run_length(is_space, data, i), data, i)


def match_trailing_ws(data: bytes, i: int) -> int:
    r"""Branch 6, ``\s+(?!\S)``.  Lean: ``Bpe.Seed.PreTokenize.matchTrailingWs``.

    The whole whitespace run if it reaches the end of the data; otherwise the run minus its
    last byte (the backtracking of ``(?!\S)``), 0 for a run of 1.
    """
    w = run_length(is_space, data, i)
    if w == 0:
        return 0
    if w == len(data) - i:
        return w
    return w - 1


def match_other_ws(data: bytes, i: int) -> int:
    r"""Branch 7, ``\s+``.  Lean: ``Bpe.Seed.PreTokenize.matchOtherWs``."""
    return run_length(is_space, data, i)


#: The seven branches in priority order (the list Lean's ``nextChunkLen`` writes out).
BRANCH_MATCHERS: tuple[Callable[[bytes, int], int], ...] = (
    match_contraction,
    match_word,
    match_digits,
    match_punct,
    match_newline_ws,
    match_trailing_ws,
    match_other_ws,
)


def first_match(lengths: Iterable[int]) -> int:
    """The first non-zero length, or 1 (the fallback: consume one byte).

    Lean: ``Bpe.Seed.PreTokenize.firstMatch``.
    """
    for n in lengths:
        if n != 0:
            return n
    return 1


def next_chunk_len(data: bytes, i: int) -> int:
    """Length of the chunk starting at ``i``: the seven branches in priority order.

    Lean: ``Bpe.Seed.PreTokenize.nextChunkLen``.  Always ``>= 1`` (Lean: ``nextChunkLen_pos``).
    """
    return first_match([match(data, i) for match in BRANCH_MATCHERS])


def split_loop(fuel: int, data: bytes, i: int) -> list[bytes]:
    """The splitting loop from ``i``; ``fuel`` bounds the number of chunks.

    Lean: ``Bpe.Seed.PreTokenize.splitLoop`` (structural recursion, here a loop).
    """
    chunks: list[bytes] = []
    while fuel > 0 and i < len(data):
        n = next_chunk_len(data, i)
        chunks.append(data[i : i + n])
        i += n
        fuel -= 1
    return chunks


def pre_tokenize_ascii(data: bytes) -> list[bytes]:
    """The ASCII pre-tokenizer: fuel = input length (every chunk has at least one byte).

    Lean: ``Bpe.Seed.PreTokenize.preTokenizeAscii``.
    """
    return split_loop(len(data), data, 0)


def lemma_pre_tokenize_partition(data: bytes) -> bool:
    """Lemma 4: the chunks concatenate to ``data`` and none is empty (for every byte string,
    ASCII or not).

    Lean: ``Bpe.Seed.PreTokenize.flatten_preTokenizeAscii`` and ``ne_nil_of_mem_preTokenizeAscii``
    (``flatten_preTokenizeAscii_of_ascii`` is the seed's form with an ASCII hypothesis).
    """
    chunks = pre_tokenize_ascii(data)
    return b"".join(chunks) == data and all(len(c) > 0 for c in chunks)
