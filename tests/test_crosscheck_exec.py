"""Route 3 of the cross-check: Lean's compiler turns the executable encoder (`Bpe.ExecCode`,
proven equal to the spec by `Bpe.Exec.encodeWith_eq`) into IR, and the offline Lean's
interpreter runs it (`#eval`) on the FULL `cl100k_base` and `o200k_base` tables and 10,000
texts per encoding; the ids must equal tiktoken's and the Python reference's.

The tests check the generator against independent oracles (the `regex` module's split and
Python's parsing of the file). The Lean run itself is `python -m verified_bpe.exec_crosscheck`
(see README, "Cross-check", route 3, for its status on the offline Lean).
"""

from __future__ import annotations

import pytest

from verified_bpe import exec_crosscheck as ec


def test_texts_cover_the_three_sources():
    texts = ec.default_texts(50, 50, 50)
    assert len(texts) == 150
    assert all(t.isascii() for t in texts[:50])
    assert not any(t.isascii() for t in texts[50:100])
    assert ec.random_unicode(50) == texts[100:]


def _parse(source: str) -> tuple[list[int], list[tuple[int, int, int]], list[list[bytes]]]:
    nums = iter(int(x) for x in source.split())
    shuffle = [next(nums) for _ in range(256)]
    merges = [(next(nums), next(nums), next(nums)) for _ in range(next(nums))]
    texts = []
    for _ in range(next(nums)):
        chunks = []
        for _ in range(next(nums)):
            chunks.append(bytes(next(nums) for _ in range(next(nums))))
        texts.append(chunks)
    return shuffle, merges, texts


@pytest.mark.parametrize("name", ec.ENCODINGS)
def test_input_file_holds_the_tables_and_tiktokens_chunks(name):
    import regex

    tables = ec.load_tables(name, 1000)
    texts = ec.default_texts(20, 20, 20)
    shuffle, merges, chunked = _parse(ec.render_input(tables, texts))
    assert shuffle == [tables.ranks[bytes([b])] for b in range(256)]
    assert merges == sorted(merges) and len(merges) == 1000 - 256
    pieces = {(a, b): r for a, b, r in merges}
    assert pieces == tables.merges
    pattern = regex.compile(ec.PATTERNS[name])
    for text, chunks in zip(texts, chunked, strict=True):
        assert chunks == [m.encode() for m in pattern.findall(text)]
        assert b"".join(chunks) == text.encode()


def test_summary_line_is_parsed():
    m = ec.SUMMARY.search("foo\nentries texts tokens load_ms encode_ms: 5 2 9 10 20\n")
    assert m is not None and m.groups() == ("5", "2", "9", "10", "20")
