"""Oracles written here from their definitions, independent of the package: minbpe's
textbook training loop and a split made by the ``regex`` module directly.

Used by ``test_train.py`` (the trainer) and ``test_cli.py`` (``train`` on the command line).
"""

from __future__ import annotations

import regex

Pair = tuple[int, int]


def naive_replace(ids: list[int], pair: Pair, idx: int) -> list[int]:
    """minbpe's ``merge``: every occurrence of ``pair``, left to right, becomes ``idx``."""
    out: list[int] = []
    i = 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
            out.append(idx)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def naive_train(chunks: list[bytes], num_merges: int) -> tuple[dict[Pair, int], list[list[int]]]:
    """minbpe's training loop: full recount each step; stops when no pair is left."""
    ids = [list(chunk) for chunk in chunks]
    merges: dict[Pair, int] = {}
    for k in range(num_merges):
        stats: dict[Pair, int] = {}
        for chunk_ids in ids:
            for pair in zip(chunk_ids, chunk_ids[1:], strict=False):
                stats[pair] = stats.get(pair, 0) + 1
        if not stats:
            break
        best = max(stats, key=stats.get)  # the first-inserted pair among equal counts
        merges[best] = 256 + k
        ids = [naive_replace(chunk_ids, best, 256 + k) for chunk_ids in ids]
    return merges, ids


def naive_vocab(merges: dict[Pair, int]) -> dict[int, bytes]:
    """minbpe's ``_build_vocab``: the 256 bytes, then each merge's two parts joined."""
    vocab = {i: bytes([i]) for i in range(256)}
    for (a, b), idx in sorted(merges.items(), key=lambda item: item[1]):
        vocab[idx] = vocab[a] + vocab[b]
    return vocab


def regex_chunks(text: str, pattern: str) -> list[bytes]:
    """The whole matches of ``pattern`` in ``text``, found by the ``regex`` module itself (its
    own Unicode tables: they agree with tiktoken's on every character assigned in Unicode 16
    except U+0295, which only o200k's case-sensitive classes tell apart), UTF-8 encoded.
    For a tokenizer's pattern the matches cover the text (checked)."""
    chunks = [match.group(0) for match in regex.finditer(pattern, text)]
    assert "".join(chunks) == text, "the pattern does not cover the text"
    return [chunk.encode("utf-8") for chunk in chunks]
