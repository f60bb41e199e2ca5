r"""Where tiktoken fails and the model returns ids (issue 33, item 6).

tiktoken 0.14.0 runs its pattern with fancy-regex 0.19.0, whose backtracking stack holds at
most 1,000,000 entries; ``\s+(?!\S)`` pushes one per white-space character.  So 999,999 or
more consecutive white-space characters other than ``\r`` and ``\n`` fail:

* followed by a character that is not white space (both encodings);
* at the end of the text (o200k_base only; cl100k_base's ``\s++$`` takes a final run without
  backtracking).

Followed by ``\r``/``\n`` they are ``\s*[\r\n]+``'s and pass; a run of 999,998 passes
(checked here for cl100k_base).  ``encode_ordinary`` panics (``pyo3_runtime.PanicException:
called `Result::unwrap()` on an `Err` value: RuntimeError(StackOverflow)``); ``encode`` raises
``ValueError: Regex error while tokenizing: Error executing regex: Max stack size exceeded for
backtracking``.

verified_bpe returns ids there, and they are the ids of ``tiktokenEncodeOrdinary``
(``lean/Bpe/Regex/Tiktoken.lean``): tiktoken's own per-piece encoder (``_encode_single_piece``:
the piece's rank, else ``byte_pair_encode``) on the pieces of ``find_iter``, here those of the
``regex`` module (no stack limit) with tiktoken's pattern.  docs/regex.md, "What stays trusted".
"""

from __future__ import annotations

import pytest
import regex

from verified_bpe.engine.patterns import CL100K_PATTERN, O200K_PATTERN
from verified_bpe.engine.tokenizer import Tokenizer
from verified_bpe.engine.vocab import tiktoken_encoding

#: The shortest failing white-space run (measured with tiktoken 0.14.0).
RUN = 999_999

CASES = [
    ("cl100k_base", CL100K_PATTERN, " " * RUN + "x", " " * (RUN - 1) + "x"),
    ("o200k_base", O200K_PATTERN, "\t" * RUN, None),
]


@pytest.mark.parametrize(("name", "pattern", "text", "shorter"), CASES)
def test_tiktoken_fails_where_the_model_returns_ids(
    name: str, pattern: str, text: str, shorter: str | None
) -> None:
    oracle = tiktoken_encoding(name)
    with pytest.raises(BaseException, match="StackOverflow") as info:
        oracle.encode_ordinary(text)
    assert type(info.value).__name__ == "PanicException"
    if shorter is not None:
        oracle.encode_ordinary(shorter)  # one character less passes (0.9 s: checked once)
    pieces = [m.group().encode() for m in regex.finditer(pattern.replace("$", r"\Z"), text)]
    spec = [i for p in pieces for i in oracle._encode_single_piece(p)]
    assert Tokenizer.from_tiktoken(name).encode_ordinary(text) == spec


def test_tiktoken_encode_raises_value_error() -> None:
    with pytest.raises(ValueError, match="Max stack size exceeded for backtracking"):
        tiktoken_encoding("cl100k_base").encode(" " * RUN + "x")
