"""The native engine's long-run path (``bpe_run`` in rust/src/ranks.rs): a piece that is one
long run of a byte, with at most 8 other bytes on either side, is merged on a short window
and a repeated token is pumped.  Not proven in Lean, so tested here against merges that do
not pump: the native heap merge (``bpe_heap``, itself compared with brute force and tiktoken
in tests/test_native.py) on every length, and tiktoken's own ``encode_single_piece`` and the
brute-force definition (tests/test_engine_heap.py) on a sample.

CI runs a subset (a few seconds).  The full run, every run length up to 4,096 of every byte
and of every ASCII pair (lead byte + run byte), on both encodings, is opt-in:
``VERIFIED_BPE_RUNS_FULL=1 .venv/bin/python -m pytest -q tests/test_native_runs.py``
(measured result in docs/native.md).
"""

from __future__ import annotations

import os
import random
import sys
from functools import cache
from pathlib import Path

import pytest

from verified_bpe.engine import native

if not native.available():
    pytest.skip("native engine not built", allow_module_level=True)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_engine_heap import brute_force  # noqa: E402 - rank BPE by its definition
from verified_bpe.engine.tokenizer import Tokenizer  # noqa: E402
from verified_bpe.engine.vocab import load_ranks, tiktoken_encoding  # noqa: E402

NAMES = ("cl100k_base", "o200k_base")
LONG_RUN = 1024  # rust/src/ranks.rs: LONG_RUN (below it the path is not taken)
FULL = os.environ.get("VERIFIED_BPE_RUNS_FULL") == "1"
MAX_LEN = 4096


@cache
def merger(name: str) -> native.NativeMerger:
    return native.NativeMerger(load_ranks(name), tiktoken_encoding(name)._pat_str)


def pumped(name: str, piece: bytes) -> list[int] | None:
    """The run path's ids, ``None`` if it does not pump ``piece``."""
    try:
        return merger(name).bpe(piece, "runs")
    except ValueError:
        return None


def check(name: str, pieces: list[bytes]) -> int:
    """Compare the run path with the heap merge on ``pieces``; the number it pumped."""
    count = 0
    m = merger(name)
    for piece in pieces:
        ids = pumped(name, piece)
        expected = m.bpe(piece, "heap")
        if ids is not None:
            count += 1
            assert ids == expected, (name, piece[:12], len(piece))
        assert m.bpe(piece, "auto") == expected, (name, piece[:12], len(piece))
    return count


def run_pieces(lead: bytes, byte: int, trail: bytes, lengths: range) -> list[bytes]:
    return [lead + bytes([byte]) * n + trail for n in lengths]


# ---------------------------------------------------------------------------- CI subset
@pytest.mark.parametrize("name", NAMES)
def test_runs_of_common_bytes_vs_heap(name):
    """Every residue modulo 256 above the threshold, and the lengths near 4,096, for the runs
    the published tables pump with periods 8, 64 and 128 (and some that they may not)."""
    lengths = [*range(LONG_RUN - 2, LONG_RUN + 258), *range(MAX_LEN - 8, MAX_LEN + 1)]
    total = 0
    for byte in b"x -\n\xff":
        total += check(name, [bytes([byte]) * n for n in lengths])
    # the spaces and the 'x' of the workloads are pumped
    assert pumped(name, b" " * 5000) is not None
    assert pumped(name, b"x" * 5000) is not None
    assert total > 0


@pytest.mark.parametrize("name", NAMES)
def test_runs_with_edges_vs_heap(name):
    """A lead and a trailing byte (a space before letters, a newline after spaces, ...)."""
    lengths = range(LONG_RUN, LONG_RUN + 70)
    for lead, byte, trail in [
        (b" ", ord("x"), b""),
        (b"", ord(" "), b"\n"),
        (b"\n", ord(" "), b"x"),
        (b"ab", ord("="), b"==c"),
        (b"\xe4\xb8", ord("\x80"), b"\xe4"),
    ]:
        check(name, run_pieces(lead, byte, trail, lengths))


@pytest.mark.parametrize("name", NAMES)
def test_runs_vs_tiktoken_and_brute_force(name):
    """The independent oracles: tiktoken's merge of one piece, and the definition."""
    oracle = tiktoken_encoding(name)
    ranks = load_ranks(name)
    for piece in (b"x" * 1500, b" " * 1283, b"-" * 1100, b" " + b"y" * 1029, b"\n" * 1111):
        assert merger(name).bpe(piece) == oracle._core_bpe.encode_single_piece(piece)
    for piece in (b"x" * 1031,):
        assert merger(name).bpe(piece) == brute_force(ranks, piece)


def test_encode_ordinary_on_long_runs_vs_tiktoken():
    """The engine's own path (the pre-tokenizer's pieces, then the run path)."""
    for name, text in (("cl100k_base", "x" * 200_000), ("o200k_base", " " * 200_000)):
        tok = Tokenizer.from_tiktoken(name, "native")
        text = "ab " + text + "\n" + text
        assert tok.encode_ordinary(text) == tiktoken_encoding(name).encode_ordinary(text)


def test_table_failing_condition_c_is_pumped():
    """The pumping holds for every table (Lean ``Bpe.bytePairMerge_replicate_pump``), so a
    table that fails condition C is pumped too: ``aaaa`` is a token but ``aa`` merges first
    (rank 257 < 258) and ``aa aa`` has no rank."""
    ranks = {bytes([b]): b for b in range(256)}
    ranks[b"aaaa"] = 256
    ranks[b"aa"] = 257
    m = native.NativeMerger(ranks, tiktoken_encoding("cl100k_base")._pat_str)
    piece = b"a" * 1030
    assert m.bpe(piece, "runs") == m.bpe(piece) == brute_force(ranks, piece)


def repeated_rank_tables(count: int) -> list[dict[bytes, int]]:
    """Tables that repeat ranks: the bytes, then runs ``a^k`` (k = 2..9) and a few tokens with
    ``b``, each present or not, ranks drawn from 256..259 (so tokens of different lengths
    share an id, which the run path must not take for equal bytes)."""
    rng = random.Random(32)
    tables = []
    for _ in range(count):
        ranks = {bytes([b]): b for b in range(256)}
        for token in [b"a" * k for k in range(2, 10)] + [b"ba", b"ab", b"baa", b"aab"]:
            if rng.random() < 0.7:
                ranks[token] = rng.randrange(256, 260)
        tables.append(ranks)
    return tables


def test_tables_with_repeated_ranks():
    """On tables where two tokens share a rank, the run path equals the heap merge on a window
    of lengths (also with a leading or trailing ``b``), and the definition on one length per
    table; some of them are pumped."""
    pat = tiktoken_encoding("cl100k_base")._pat_str
    pumps = 0
    for ranks in repeated_rank_tables(12):
        m = native.NativeMerger(ranks, pat)
        for n in range(LONG_RUN, LONG_RUN + 40):
            for piece in (b"a" * n, b"b" + b"a" * n, b"a" * n + b"b"):
                expected = m.bpe(piece, "heap")
                assert m.bpe(piece) == expected, (ranks, len(piece))
                try:
                    ids = m.bpe(piece, "runs")
                except ValueError:
                    continue
                pumps += 1
                assert ids == expected, (ranks, len(piece))
        piece = b"b" + b"a" * (LONG_RUN + 7)
        assert m.bpe(piece) == brute_force(ranks, piece), ranks
    assert pumps > 0


# ---------------------------------------------------------------------------- full, opt-in
@pytest.mark.skipif(not FULL, reason="set VERIFIED_BPE_RUNS_FULL=1 (docs/native.md)")
@pytest.mark.parametrize("name", NAMES)
def test_full_every_byte_every_length(name):
    pumps = sum(
        check(name, [bytes([byte]) * n for n in range(1, MAX_LEN + 1)]) for byte in range(256)
    )
    print(f"\n{name}: 256 bytes x lengths 1..{MAX_LEN}: {pumps} pumped, all equal")


@pytest.mark.skipif(not FULL, reason="set VERIFIED_BPE_RUNS_FULL=1 (docs/native.md)")
@pytest.mark.parametrize("name", NAMES)
def test_full_every_ascii_pair_every_length(name):
    """Lead byte ``a`` then a run of ``b``, every ASCII pair, every length from the threshold
    (below it the path is not taken) over every residue modulo 256."""
    pumps = 0
    for lead in range(128):
        for byte in range(128):
            if lead != byte:
                pumps += check(
                    name, run_pieces(bytes([lead]), byte, b"", range(LONG_RUN, LONG_RUN + 256))
                )
    print(
        f"\n{name}: ASCII pairs x lengths {LONG_RUN}..{LONG_RUN + 255}: {pumps} pumped, all equal"
    )
