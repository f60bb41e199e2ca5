"""Condition C's two-part clause on a GGUF rank table, and what its failures mean for the seed's
encoder (issue 33, item 7: Llama 3).

``python -m verified_bpe.verify.whole_pieces FILE.gguf`` reads the byte-level BPE table of a GGUF
file (ranks = token ids), lists the tokens of two or more bytes that fail ``check_two_parts``
(they do not decompose into exactly two parts with the tokens of lower rank), counts those that
are a whole piece of the file's pre-tokenizer pattern (the ``regex`` module on the pattern
string: the piece is looked up whole by tiktoken's algorithm), and on each such piece compares
the seed's encoder with the merges recovered from the ranks (``encode_chunk``; Lean
``Bpe.encodeChunk``) with rank BPE (``encode_piece_ranks``; Lean ``Bpe.encodePieceRanks``,
tiktoken's algorithm).  Its last line is ``whole-piece tokens: F fail the two-part clause, W are
whole pieces, D encode differently``.
"""

from __future__ import annotations

import argparse

import regex

from ..formats.gguf_vocab import pattern_for_pre, read_gguf_vocab
from ..spec.ranks.basic import encode_piece_ranks, rank_shuffle, recover_merges
from ..spec.ranks.check import check_two_parts
from ..spec.seed.encode import encode_chunk


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m verified_bpe.verify.whole_pieces")
    parser.add_argument("gguf", help="a GGUF file with a byte-level BPE vocabulary")
    args = parser.parse_args(argv)
    vocab = read_gguf_vocab(args.gguf)
    ranks = dict(vocab.ranks)
    entries = sorted(ranks.items(), key=lambda e: e[1])
    failing = [(t, r) for t, r in entries if len(t) >= 2 and not check_two_parts(ranks, (t, r))]
    pattern = regex.compile(pattern_for_pre(vocab.pre))

    def whole(token: bytes) -> bool:
        try:
            text = token.decode("utf-8")
        except UnicodeDecodeError:
            return False
        return [m.encode() for m in pattern.findall(text)] == [token]

    pieces = [t for t, _ in failing if whole(t)]
    merges = recover_merges(ranks)
    shuffle = [rank_shuffle(ranks, b) for b in range(256)]
    differ = [t for t in pieces if encode_chunk(merges, shuffle, t) != encode_piece_ranks(ranks, t)]
    for t in differ[:3]:
        seed, rank_bpe = encode_chunk(merges, shuffle, t), encode_piece_ranks(ranks, t)
        print(f"{t!r}: seed's encoder {seed}, rank BPE {rank_bpe}")
    print(
        f"whole-piece tokens: {len(failing)} fail the two-part clause, {len(pieces)} are whole "
        f"pieces, {len(differ)} encode differently"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
