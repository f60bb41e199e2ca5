"""Route 3 from the rank file: the offline Lean's interpreter runs `Bpe.Exec.Ranks`, which reads
a `.tiktoken` file (base64 decoding, sorted key array with binary search, the merge recovery
and byte shuffle of `Bpe.recoverMerges`/`Bpe.rankShuffle`), then encodes with the executable
encoder. Lean's tables (written back) must equal the Python ones, its ids tiktoken's; a
corrupted line must stop the run with its line number.

The fast tests check the generated files against independent oracles (Python's base64 and the
vocabulary loader); the `lean`-marked tests run the offline Lean on a slice (the full tables
are a command: `python -m verified_bpe.verify.exec_crosscheck --from-ranks`, see README route 3).
"""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from verified_bpe.verify import exec_crosscheck as ec

REPO = Path(__file__).resolve().parents[1]

#: ranks of the slice the Lean test reads, and texts per source
N_RANKS, N_TEXTS = 3000, 100


@pytest.mark.parametrize("name", ec.ENCODINGS)
def test_rank_file_slice_is_the_published_table(name):
    from verified_bpe.engine.vocab import load_ranks
    from verified_bpe.verify.crosscheck import slice_ranks

    data = ec.rank_file_bytes(name, 1000)
    parsed = {}
    for line in data.decode("ascii").splitlines():
        token, rank = line.split(" ")
        parsed[base64.b64decode(token, validate=True)] = int(rank)
    assert parsed == slice_ranks(load_ranks(name), 1000)
    assert data.endswith(b"\n") and b"\n\n" not in data


def test_generated_module_carries_both_files_verbatim(tmp_path):
    source = ec.render_ranks_module(tmp_path / "r", tmp_path / "t", tmp_path / "o", None)
    code = (REPO / "lean" / "Bpe" / "Exec" / "Code.lean").read_text()
    ranks = (REPO / "lean" / "Bpe" / "Exec" / "Ranks.lean").read_text()
    assert source.startswith(code)
    body = ranks[ranks.index("/-!"):]
    assert source[len(code):].strip().startswith(body.strip())
    assert source.count("\nmodule\n") == 0 and source.startswith("module\n")
    assert "public import" not in source
    call = f'#eval Bpe.Exec.runRanks "{tmp_path}/r" "{tmp_path}/t" "{tmp_path}/o" ""'
    assert source.rstrip().endswith(call)


def test_tables_file_is_parsed():
    shuffle, merges = ec.parse_tables(" ".join(map(str, range(256))) + "\n1 2 300\n3 4 301\n")
    assert shuffle == list(range(256)) and merges == {(1, 2): 300, (3, 4): 301}


def test_ranks_summary_line_is_parsed():
    m = ec.RANKS_SUMMARY.search(
        "x\nranks merges texts tokens parse_ms sort_ms recover_ms encode_ms: 1 2 3 4 5 6 7 8\n")
    assert m is not None and m.groups() == tuple(str(i) for i in range(1, 9))


@pytest.mark.lean
@pytest.mark.slow
def test_lean_builds_the_tables_from_the_rank_file(tally):
    name = "cl100k_base"
    tables = ec.load_tables(name, N_RANKS)
    texts = ec.default_texts(N_TEXTS, N_TEXTS, N_TEXTS)
    run = ec.run_lean_ranks(name, ec.rank_file_bytes(name, N_RANKS), texts,
                            REPO / ".cache" / "exec_ranks")
    assert run.n_ranks == N_RANKS and run.n_merges == len(tables.merges)
    assert run.shuffle == tables.shuffle
    assert run.merges == tables.merges
    enc = ec.oracle(tables)
    expected = [enc.encode_ordinary(t) for t in texts]
    assert not ec.mismatches(texts, run.ids, expected)
    tally("exec ranks crosscheck: ranks parsed by compiled Lean", run.n_ranks)
    tally("exec ranks crosscheck: Lean seconds", int(run.lean_seconds))


@pytest.mark.lean
@pytest.mark.slow
def test_lean_names_the_bad_line_of_a_corrupted_rank_file():
    lines = ec.rank_file_bytes("cl100k_base", 300).split(b"\n")
    lines[6] = b"not*base64 6"
    with pytest.raises(ec.ExecCrossCheckError, match=r"line 7: the token is not valid base64"):
        ec.run_lean_ranks("cl100k_base", b"\n".join(lines), ["a b"],
                          REPO / ".cache" / "exec_ranks_bad", write_tables=False)
