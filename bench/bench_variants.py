"""The ideas tried for issue 13 and dropped (README, Performance): each against what the
fast engine does, in one process, round-robin, CPU seconds (best of ``--repeat``), every
variant's output checked equal to the engine's (itself tested against tiktoken).

Usage (from the repository root)::

    PYTHONPATH=python python bench/bench_variants.py [--mb SCALE] [--repeat N]

Rows: the split with ``findall`` (the engine's) and with ``finditer`` + ``group(0)`` (before
issue 13's second pass); the BPE of the distinct pieces of each text with the engine's heap
(``bpe_ranks_heap``), with tiktoken's own algorithm (a list of pair ranks, ``min`` and
``index`` in C, quadratic), and with the heap seeded by C-level ``map`` over fixed 8-bit
offsets, then heap against list+min on the multi-token pieces below 12 bytes and from 12
bytes on; a whole cold encode with the piece cache pre-filled with every token that is
valid UTF-8, and with the garbage collector off; the warm lookups + concatenation with
``reduce(iadd, ...)`` (the engine's) and ``chain.from_iterable``; the split with the
literal translation of o200k's pattern (the engine's on non-ASCII text) and with a
rewrite for speed, and on the ASCII code with the literal translation and the engine's ASCII
rewrite (``fast_split.O200K_ASCII``); the bucket queue with its linked list in lists and in
arrays on random letters at n and n/8 and on a run of one letter; and how many of the
multi-byte characters of the prose could be merged before the BPE (the condition under which
that is exact: every substring of the character's bytes is a token, and no token joins a
proper part of it to other bytes).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import heapq
import random
import re
import sys
import time
from collections.abc import Callable, Mapping
from functools import reduce
from itertools import chain, repeat
from operator import iadd
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "bench"))

from bench_encode import cut, prose_text  # noqa: E402
from verified_bpe.engine import tokenizer as tokenizer_module  # noqa: E402
from verified_bpe.engine.fast_split import O200K_ASCII, bmp_pattern  # noqa: E402
from verified_bpe.engine.patterns import O200K_PATTERN, split_pattern  # noqa: E402
from verified_bpe.engine.tokenizer import (  # noqa: E402
    PieceCache,
    Tokenizer,
    bpe_ranks_buckets,
    bpe_ranks_heap,
    text_blocks,
)
from verified_bpe.verify.corpus import stdlib_text  # noqa: E402

INF = 1 << 62
_LETTERS = (
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]++"""
    r"""(?:'(?i:[sdmt]|ll|ve|re))?"""
    r"""|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]++[\p{Ll}\p{Lm}\p{Lo}\p{M}]*+"""
    r"""(?:'(?i:[sdmt]|ll|ve|re))?"""
)
#: O200K_PATTERN rewritten for speed (tried, dropped): possessive where nothing after a
#: quantifier in its branch can fail, a lookahead guard on the two letter branches, the
#: contraction suffix factored; equal whole matches on these texts (asserted below).
O200K_REWRITE = "|".join(
    [
        rf"""(?=[^\r\n\p{{N}}]?[\p{{L}}\p{{M}}])(?:{_LETTERS})""",
        r"""\p{N}{1,3}+""",
        r""" ?+[^\s\p{L}\p{N}]++[\r\n/]*+""",
        r"""\s*[\r\n]++""",
        r"""\s+(?!\S)""",
        r"""\s++""",
    ]
)
SINGLE = [bytes([b]) for b in range(256)]
CODES = [(s << 8) | (s + 2) for s in range(256)]
PAIRS = [slice(s, s + 2) for s in range(256)]


def bpe_list(ranks: Mapping[bytes, int], piece: bytes) -> list[int]:
    """tiktoken's algorithm: the pair ranks in a list, the lowest found by ``min``."""
    get = ranks.get
    token = get(piece)
    if token is not None:
        return [token]
    parts = list(map(SINGLE.__getitem__, piece))
    pair_ranks = list(map(get, map(bytes.__add__, parts, parts[1:]), repeat(INF)))
    while True:
        low = min(pair_ranks)
        if low == INF:
            break
        i = pair_ranks.index(low)
        merged = parts[i] + parts.pop(i + 1)
        parts[i] = merged
        del pair_ranks[i]
        if i:
            pair_ranks[i - 1] = get(parts[i - 1] + merged, INF)
        if i < len(pair_ranks):
            pair_ranks[i] = get(merged + parts[i + 1], INF)
    return list(map(ranks.__getitem__, parts))


def bpe_heap_c_seed(ranks: Mapping[bytes, int], piece: bytes) -> list[int]:
    """The engine's heap, its first pairs looked up by ``map`` (pieces under 256 bytes)."""
    get = ranks.get
    token = get(piece)
    if token is not None:
        return [token]
    n = len(piece)
    nxt = list(range(1, n + 2))
    prv = list(range(-1, n - 1))
    firsts = map(get, map(piece.__getitem__, PAIRS[: n - 1]))
    heap = [(r << 16) | c for r, c in zip(firsts, CODES, strict=False) if r is not None]
    heapq.heapify(heap)
    while heap:
        key = heapq.heappop(heap)
        end = key & 255
        start = (key >> 8) & 255
        mid = nxt[start]
        if nxt[mid] != end:
            continue
        nxt[start] = end
        nxt[mid] = -1
        if end < n:
            prv[end] = start
            after = nxt[end]
            rank = get(piece[start:after])
            if rank is not None:
                heapq.heappush(heap, (rank << 16) | (start << 8) | after)
        before = prv[start]
        if before >= 0:
            rank = get(piece[before:end])
            if rank is not None:
                heapq.heappush(heap, (rank << 16) | (before << 8) | end)
    out = []
    s = 0
    while s < n:
        out.append(ranks[piece[s : nxt[s]]])
        s = nxt[s]
    return out


def premerge_safe(ranks: Mapping[bytes, int], chars: set[str]) -> int:
    """How many of ``chars`` (multi-byte) could be merged before the BPE, exactly."""
    starts: set[bytes] = set()  # proper suffixes of a character that begin a longer token
    ends: set[bytes] = set()  # proper prefixes of a character that end a longer token
    for token in ranks:
        i = 0
        while i < len(token) and 0x80 <= token[i] < 0xC0:
            i += 1
        if 0 < i < len(token):
            starts.add(token[:i])
        j = len(token) - 1
        while j > 0 and 0x80 <= token[j] < 0xC0:
            j -= 1
        if j > 0 and token[j] >= 0xC0:
            ends.add(token[j:])
    safe = 0
    for ch in chars:
        b = ch.encode("utf-8")
        subs = [b[i:j] for i in range(len(b)) for j in range(i + 2, len(b) + 1)]
        if all(s in ranks for s in subs) and not any(
            b[k:] in starts or b[:k] in ends for k in range(1, len(b))
        ):
            safe += 1
    return safe


def race(variants: dict[str, Callable[[], object]], rounds: int) -> dict[str, float]:
    best = dict.fromkeys(variants, float("inf"))
    for _ in range(rounds):
        for label, fn in variants.items():
            start = time.process_time()
            fn()
            best[label] = min(best[label], time.process_time() - start)
    return best


def show(title: str, times: dict[str, float]) -> None:
    print(f"| {title} | " + " | ".join(f"{k} {v:.4f}" for k, v in times.items()) + " |")


def buckets_in(compact: bool, ranks: Mapping[bytes, int], piece: bytes) -> list[int]:
    """``bpe_ranks_buckets`` with its linked list in arrays (``compact``) or in lists,
    whatever the piece."""
    saved = tokenizer_module.COMPACT_PIECE, tokenizer_module.COMPACT_RANKS
    limit = 0 if compact else 1 << 62
    tokenizer_module.COMPACT_PIECE = tokenizer_module.COMPACT_RANKS = limit
    try:
        return bpe_ranks_buckets(ranks, piece)
    finally:
        tokenizer_module.COMPACT_PIECE, tokenizer_module.COMPACT_RANKS = saved


def long_pieces(scale: float, repeat: int) -> None:
    """The buckets' linked list in lists and in arrays, on random letters (many ranks) at n
    and n/8, and on a run of one letter (one rank)."""
    ranks = Tokenizer.from_tiktoken("cl100k_base")._ranks
    rng = random.Random(13)
    size = max(8, int(scale * 100_000))
    letters = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(size)).encode()
    pieces = {
        f"{size // 8} letters": letters[: size // 8],
        f"{size} letters": letters,
        f"{2 * size} x": b"x" * (2 * size),
    }
    for label, piece in pieces.items():
        assert buckets_in(True, ranks, piece) == buckets_in(False, ranks, piece)
        show(
            f"cl100k {label}: buckets",
            race(
                {
                    "lists": lambda: buckets_in(False, ranks, piece),  # noqa: B023
                    "arrays": lambda: buckets_in(True, ranks, piece),  # noqa: B023
                },
                repeat,
            ),
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    size = max(1, int(args.mb * 1_000_000))
    texts = {"code": cut(stdlib_text(size), size), "prose": prose_text(size)}
    print("CPU s, best of", args.repeat)
    for name in ("cl100k_base", "o200k_base"):
        tok = Tokenizer.from_tiktoken(name)
        ranks = tok._ranks
        strings: dict[str, list[int]] = {}
        for token, rank in ranks.items():
            with contextlib.suppress(UnicodeDecodeError):
                strings[token.decode("utf-8")] = [rank]
        for workload, text in texts.items():
            distinct = [p.encode("utf-8") for p in dict.fromkeys(tok._split(text))]
            engine = [bpe_ranks_heap(ranks, p) for p in distinct]
            assert [bpe_list(ranks, p) for p in distinct] == engine
            assert [bpe_heap_c_seed(ranks, p) for p in distinct if len(p) < 255] == [
                ids for p, ids in zip(distinct, engine, strict=True) if len(p) < 255
            ]
            multi = [p for p in distinct if p not in ranks and len(p) < 255]
            short = [p for p in multi if len(p) < 12]
            longer = [p for p in multi if len(p) >= 12]
            show(
                f"{name} {workload}: BPE of {len(distinct)} distinct pieces",
                race(
                    {
                        "heap (engine)": lambda: [bpe_ranks_heap(ranks, p) for p in distinct],  # noqa: B023
                        "list+min": lambda: [bpe_list(ranks, p) for p in distinct],  # noqa: B023
                        "heap, C seed": lambda: [
                            bpe_heap_c_seed(ranks, p)  # noqa: B023
                            for p in distinct  # noqa: B023
                            if len(p) < 255
                        ],
                    },
                    args.repeat,
                ),
            )
            for label, group in (("2-11", short), ("12-254", longer)):
                show(
                    f"{name} {workload}: BPE of the {len(group)} distinct multi-token pieces "
                    f"of {label} bytes",
                    race(
                        {
                            "heap (engine)": lambda: [bpe_ranks_heap(ranks, p) for p in group],  # noqa: B023
                            "list+min": lambda: [bpe_list(ranks, p) for p in group],  # noqa: B023
                        },
                        args.repeat,
                    ),
                )
            compiled = tok._split._bmp
            assert compiled is not None
            assert split_pattern(compiled, text) == tok._split(text)
            show(
                f"{name} {workload}: split",
                race(
                    {
                        "findall (engine)": lambda: tok._split(text),  # noqa: B023
                        "finditer + group(0) (before)": lambda: split_pattern(compiled, text),  # noqa: B023
                    },
                    args.repeat,
                ),
            )
            empty = PieceCache(ranks, 1 << 20)
            filled = PieceCache(ranks, 1 << 20)
            split = tok._split

            def cold(cache: PieceCache, prefill: bool) -> list[int]:
                cache.clear()
                if prefill:
                    cache.update(strings)  # noqa: B023
                return reduce(iadd, map(cache.__getitem__, split(text)), [])  # noqa: B023

            def cold_no_gc() -> list[int]:
                gc.disable()
                try:
                    return cold(empty, False)  # noqa: B023
                finally:
                    gc.enable()

            assert cold(filled, True) == cold(empty, False)
            show(
                f"{name} {workload}: cold encode",
                race(
                    {
                        "empty cache (engine)": lambda: cold(empty, False),  # noqa: B023
                        "cache pre-filled with the tokens": lambda: cold(filled, True),  # noqa: B023
                        "gc disabled": cold_no_gc,
                    },
                    args.repeat,
                ),
            )
            pieces = split(text)
            lookup = empty.__getitem__
            assert list(chain.from_iterable(map(lookup, pieces))) == cold(empty, False)
            show(
                f"{name} {workload}: warm lookups + concatenation",
                race(
                    {
                        "reduce(iadd) (engine)": lambda: reduce(iadd, map(lookup, pieces), []),  # noqa: B023
                        "chain.from_iterable": lambda: list(
                            chain.from_iterable(map(lookup, pieces))  # noqa: B023
                        ),
                    },
                    3 * args.repeat,
                ),
            )
        multi = {c for c in texts["prose"] if len(c.encode("utf-8")) > 1}
        print(
            f"| {name}: multi-byte characters of the prose that could be merged first, "
            f"exactly | {premerge_safe(ranks, multi)} of {len(multi)} |"
        )
    literal = re.compile(bmp_pattern(O200K_PATTERN))
    rewrite = re.compile(bmp_pattern(O200K_REWRITE)).findall
    for workload, text in texts.items():
        assert literal.findall(text) == rewrite(text)
        show(
            f"o200k {workload}: split",
            race(
                {
                    "literal translation (engine on non-ASCII text)": lambda: literal.findall(text),  # noqa: B023
                    "equivalent rewrite": lambda: rewrite(text),  # noqa: B023
                },
                3 * args.repeat,
            ),
        )
    ascii_rewrite = re.compile(O200K_ASCII).findall
    blocks = list(text_blocks(texts["code"]))
    assert all(block.isascii() for block in blocks)
    assert [ascii_rewrite(b) for b in blocks] == [literal.findall(b) for b in blocks]
    show(
        "o200k code (ASCII): split",
        race(
            {
                "literal translation": lambda: [literal.findall(b) for b in blocks],
                "ASCII rewrite (engine)": lambda: [ascii_rewrite(b) for b in blocks],
            },
            3 * args.repeat,
        ),
    )
    long_pieces(args.mb, args.repeat)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
