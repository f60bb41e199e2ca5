"""Route 3 from the rank file: the offline Lean's interpreter runs `Bpe.Exec.Ranks`, which reads
a `.tiktoken` file (base64 decoding, sorted key array with binary search, the merge recovery
and byte shuffle of `Bpe.recoverMerges`/`Bpe.rankShuffle`), then encodes with the executable
encoder. Lean's tables (written back) must equal the Python ones, its ids tiktoken's; a
corrupted line must stop the run with its line number, and a table that Python's checker
(``check_ranks``) finds outside condition C must be refused by Lean's run-time check
(``Bpe.Exec.checkRanksX``).

With `lean_split` Lean also pre-tokenizes the raw texts (`Bpe.Exec.runRanksTexts`): the whole
chain from the rank file to the ids runs in Lean. A byte value of 256 or more in a texts file
must be refused, not truncated.

The fast tests check the generated files against independent oracles (Python's base64 and the
vocabulary loader); the `lean`-marked tests run the offline Lean on a slice of each encoding
(the full tables with 10,000 texts each are a command: `python -m
verified_bpe.verify.exec_crosscheck --encoding <enc> --from-ranks`, see docs/crosscheck.md,
route 3).
"""

from __future__ import annotations

import base64
import re
from pathlib import Path

import pytest

from test_crosscheck_exec import after_verbatim_sources
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
    body = ranks[ranks.index("/-!") :]
    assert source[len(code) :].strip().startswith(body.strip())
    assert source.count("\nmodule\n") == 0 and source.startswith("module\n")
    assert "public import" not in source
    call = f'#eval Bpe.Exec.runRanks "{tmp_path}/r" "{tmp_path}/t" "{tmp_path}/o" ""'
    assert source.rstrip().endswith(call)


@pytest.mark.parametrize("name", ec.ENCODINGS)
def test_file_to_ids_module_is_its_sources_verbatim(name, tmp_path):
    """The route "rank file and raw texts → ids": the code of `Bpe.Exec.RanksTexts` and of every
    module it imports, in import order, each verbatim; no proof module of Exec; one call."""
    sources = ec.split_sources(ec.EXEC_RANKS_TEXTS)
    names = ["/".join(p.with_suffix("").parts[-2:]) for p in sources]
    for needed in (
        "Exec/Code",
        "Exec/Ranks",
        "Unicode/Cl100k",
        "Unicode/O200k",
        "Exec/PreTokenizeCode",
    ):
        assert needed in names
    assert names[-1] == "Exec/RanksTexts"
    for proof in ("Exec/RanksSort", "Exec/RanksTables", "Exec/RanksEncode", "Exec/Readers"):
        assert proof not in names
    source = ec.render_ranks_split_module(
        name, tmp_path / "r", tmp_path / "t", tmp_path / "o", tmp_path / "tab"
    )
    assert source.startswith("module\n") and "public import" not in source
    after_verbatim_sources(source, sources)
    call = (
        f'#eval Bpe.Exec.runRanksTexts {ec.NEXT_CHUNK[name]} "{tmp_path}/r" "{tmp_path}/t" '
        f'"{tmp_path}/o" "{tmp_path}/tab"'
    )
    assert source.rstrip().endswith(call)
    # both encodings in one module: the same sources once, then one `#eval` per encoding
    both = ec.render_ranks_split_calls(
        [(n, tmp_path / "r", tmp_path / "t", tmp_path / n, None) for n in ec.ENCODINGS]
    )
    evals = [
        f'#eval Bpe.Exec.runRanksTexts {ec.NEXT_CHUNK[n]} "{tmp_path}/r" "{tmp_path}/t" '
        f'"{tmp_path}/{n}" ""'
        for n in ec.ENCODINGS
    ]
    ends, _, rest = after_verbatim_sources(both, sources).partition("#eval")
    assert set(ends.split()) <= {"end"}
    assert ("#eval" + rest).split() == " ".join(evals).split()


def test_tables_file_is_parsed():
    shuffle, merges = ec.parse_tables(" ".join(map(str, range(256))) + "\n1 2 300\n3 4 301\n")
    assert shuffle == list(range(256)) and merges == {(1, 2): 300, (3, 4): 301}


def test_ranks_summary_line_is_parsed():
    m = ec.RANKS_SUMMARY.search(
        "x\nranks merges texts tokens parse_ms sort_ms recover_ms check_ms encode_ms: "
        "1 2 3 4 5 6 7 8 9\n"
    )
    assert m is not None and m.groups() == tuple(str(i) for i in range(1, 10))


@pytest.mark.lean
@pytest.mark.slow
def test_lean_from_rank_file_and_raw_texts_to_ids(tally):
    """The whole chain in Lean (`runRanksTexts`): parse the rank file, build and check the
    tables, pre-tokenize the raw texts with the encoding's `preTokenizeX`, encode; for each
    encoding, both in one module (one compilation of the code, one `#eval` each). On a slice
    (CI); the full vocabularies with 10,000 texts each are the documented command
    (docs/crosscheck.md, route 3 from the rank file)."""
    texts = ec.default_texts(N_TEXTS, N_TEXTS, N_TEXTS)
    runs = ec.run_lean_ranks_split(
        {name: ec.rank_file_bytes(name, N_RANKS) for name in ec.ENCODINGS},
        texts,
        REPO / ".cache" / "exec_ranks",
    )
    assert list(runs) == list(ec.ENCODINGS)
    for name, run in runs.items():
        tables = ec.load_tables(name, N_RANKS)
        assert run.n_ranks == N_RANKS and run.n_merges == len(tables.merges)
        assert run.shuffle == tables.shuffle
        assert run.merges == tables.merges
        enc = ec.oracle(tables)
        expected = [enc.encode_ordinary(t) for t in texts]
        assert run.tokens == sum(map(len, expected)), name
        assert not ec.mismatches(texts, run.ids, expected), name
        tally(f"exec ranks crosscheck {name}: texts from rank file to ids in Lean", len(texts))
    tally("exec ranks crosscheck (both encodings, one module): Lean seconds", int(run.lean_seconds))


#: the Lean module whose kernel fact says that `renderLines` writes these lines
RENDER_FILE = REPO / "lean" / "Bpe" / "Exec" / "RanksRenderFile.lean"


def _lean_list(text: str, name: str) -> str:
    """The body of ``def name … :=`` in a Lean source, up to the next doc comment, option or
    theorem."""
    start = text.index(f"def {name} ")
    body = text[text.index(":=", start) + 2 :]
    return body[: min(body.index(k) for k in ("/--", "set_option", "theorem") if k in body)]


def test_lean_rendering_sample_is_the_published_files():
    """`Bpe.Exec.renderLines_fileSample` (checked by the kernel) says `renderLines` of
    `fileSampleEntries` is `fileSampleLines`; here both lists are checked against the published
    files: the lines byte for byte, the entries as Python's base64 decodes those lines. So
    Lean's rendering is the files' own format on these lines (every final base64 group, ranks
    of one to six digits, the longest token)."""
    text = RENDER_FILE.read_text(encoding="utf-8")
    data = bytes(int(x) for x in re.findall(r"\d+", _lean_list(text, "fileSampleLines")))
    entries = [
        (bytes(int(x) for x in re.findall(r"\d+", tok)), int(rank))
        for tok, rank in re.findall(
            r"\(\[([\d,\s]*)\],\s*(\d+)\)", _lean_list(text, "fileSampleEntries")
        )
    ]
    lines = data.split(b"\n")
    assert lines[-1] == b"" and len(lines) - 1 == len(entries) == 12
    published = {name: set(ec.rank_file_bytes(name).splitlines()) for name in ec.ENCODINGS}
    assert all(line in published["cl100k_base"] for line in lines[:8])
    assert all(line in published["o200k_base"] for line in lines[8:-1])
    assert _entries(data) == entries
    assert {len(t) % 3 for t, _ in entries} == {0, 1, 2}
    longest = max(len(line.split(b" ")[0]) for line in published["cl100k_base"])
    assert max(len(line.split(b" ")[0]) for line in lines[:-1]) == longest


def _entries(data: bytes) -> list[tuple[bytes, int]]:
    """The entries of a rank file in file order, decoded by Python's base64."""
    out = []
    for line in data.decode("ascii").splitlines():
        token, rank = line.split(" ")
        out.append((base64.b64decode(token, validate=True), int(rank)))
    return out


def _refused_files() -> dict[str, bytes]:
    """The 300-rank slice of ``cl100k_base`` and ways to spoil it: a line that is not base64,
    three tables outside condition C (a byte without its token, two lines out of rank order, a
    two-byte token missing that later tokens are made of), and four malformed lines (base64
    with a padding character inside a group, a rank followed by a letter, a token without a
    rank, non-canonical base64 whose dropped bits are not zero); last, the good slice with one
    rank written with 50 digits (leading zeros), which must be read whole, not split."""
    lines = ec.rank_file_bytes("cl100k_base", 300).split(b"\n")[:-1]
    join = lambda ls: b"".join(line + b"\n" for line in ls)  # noqa: E731
    corrupted = list(lines)
    corrupted[6] = b"not*base64 6"
    swapped = list(lines)
    swapped[-2], swapped[-1] = swapped[-1], swapped[-2]
    bad_padding, bad_rank, no_rank = list(lines), list(lines), list(lines)
    bad_padding[11] = b"QQ=Q 11"
    bad_rank[19] = lines[19] + b"x"
    no_rank[41] = lines[41].split(b" ")[0]
    noncanonical, long_rank = list(lines), list(lines)
    noncanonical[11] = _noncanonical(lines[11])
    token, rank = lines[5].split(b" ")
    long_rank[5] = token + b" " + rank.rjust(50, b"0")
    return {
        "good": join(lines),
        "corrupted": join(corrupted),
        "no_byte_255": join(line for line in lines if not line.endswith(b" 255")),
        "swapped": join(swapped),
        "no_rank_256": join(line for line in lines if not line.endswith(b" 256")),
        "bad_padding": join(bad_padding),
        "bad_rank": join(bad_rank),
        "no_rank": join(no_rank),
        "noncanonical": join(noncanonical),
        "long_rank": join(long_rank),
    }


def _noncanonical(line: bytes) -> bytes:
    """The line with the last digit of its one-byte token's base64 (``XY==``) raised by one:
    the same byte for a lenient decoder (the raised bits fall off), not canonical base64."""
    token, rank = line.split(b" ")
    assert len(token) == 4 and token.endswith(b"==")
    alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    raised = alphabet[alphabet.index(token[1]) + 1]
    return token[:1] + bytes([raised]) + b"== " + rank


#: pre-tokenized texts files (as ``render_texts`` writes them) with a byte value out of range:
#: in the second text, in the first text's second chunk
BAD_TEXTS = ("2\n1 1 97\n1 2 98 256\n", "1\n2 1 97 1 300\n")
#: a texts file whose one byte (97, ``a``) is written with 50 digits: a reader that stops after
#: 40 digits reads the byte 0 and leaves ``97`` over
LONG_NUMBER_TEXT = "1\n1 1 " + "0" * 48 + "97\n"


def test_long_number_text_is_one_byte():
    nums = [int(x) for x in LONG_NUMBER_TEXT.split()]
    assert nums == [1, 1, 1, 97] and max(map(len, LONG_NUMBER_TEXT.split())) == 50


def test_rank_files_are_canonical():
    """The published files are canonical base64 and decimal, so a strict reader accepts them:
    Python's re-encoding of every line gives the line back."""
    for name in ec.ENCODINGS:
        for line in ec.rank_file_bytes(name).splitlines():
            token, rank = line.split(b" ")
            assert base64.b64encode(base64.b64decode(token, validate=True)) == token, line
            assert str(int(rank)).encode() == rank, line


def test_noncanonical_line_is_lenient_base64_for_python():
    """Python's decoder accepts the spoilt token (the same byte as the original), so the
    oracle for its refusal is the re-encoding, which differs."""
    files = _refused_files()
    good, bad = _entries(files["good"]), _entries(files["noncanonical"])
    assert good == bad
    token = files["noncanonical"].split(b"\n")[11].split(b" ")[0]
    assert base64.b64encode(base64.b64decode(token, validate=True)) != token
    assert _entries(files["long_rank"]) == good


def test_bad_texts_hold_a_value_out_of_byte_range():
    for text in BAD_TEXTS:
        nums = [int(x) for x in text.split()]
        assert max(nums) >= 256
        with pytest.raises(ValueError):
            bytes(nums)


def test_refused_files_fail_condition_c_by_the_python_checker():
    from verified_bpe.spec.ranks.check import check_ranks

    files = _refused_files()
    assert check_ranks(_entries(files["good"]))
    for name in ("no_byte_255", "swapped", "no_rank_256"):
        assert not check_ranks(_entries(files[name])), name


@pytest.mark.parametrize("name", ["corrupted", "bad_padding", "bad_rank", "no_rank"])
def test_malformed_files_are_refused_by_pythons_readers(name):
    """The independent oracle for the malformed lines: Python's strict base64 and int."""
    with pytest.raises(ValueError):
        _entries(_refused_files()[name])


@pytest.mark.lean
@pytest.mark.slow
def test_lean_refuses_a_corrupted_line_and_tables_outside_condition_c():
    files = _refused_files()
    work = REPO / ".cache" / "exec_ranks_bad"
    out = ec.run_lean_refusals(
        list(files.values()), work, texts_files=(*BAD_TEXTS, LONG_NUMBER_TEXT)
    )
    # the good slice is accepted (a summary line), and so is it with a 50-digit rank and with a
    # 50-digit byte value in the texts; every spoilt one is refused with its reason
    assert len(ec.RANKS_SUMMARY.findall(out)) == 3
    assert not re.search(r"refusal(0|9)\.tiktoken:", out)
    assert re.search(r"refusal1\.tiktoken: line 7: the token is not valid base64", out)
    for k in (2, 3, 4):
        assert re.search(rf"refusal{k}\.tiktoken: the table fails condition C", out), k
    assert re.search(r"refusal5\.tiktoken: line 12: the token is not valid base64", out)
    assert re.search(r"refusal6\.tiktoken: line 20: unexpected byte after the rank", out)
    assert re.search(r"refusal7\.tiktoken: line 42: expected `base64 SPACE rank`", out)
    assert re.search(r"refusal8\.tiktoken: line 12: the token is not valid base64", out)
    # the 50-digit number is read whole: the byte 97 (`a`), encoded as tiktoken does
    enc = ec.oracle(ec.load_tables("cl100k_base", 300))
    ids = [int(x) for x in (work / "refusal_texts2.out").read_text().split()]
    assert ids == enc.encode_ordinary("a")
    # a byte value of 256 or more in a texts file is refused, not truncated
    assert re.search(r"text 2: a byte value is 256 or more", out)
    assert re.search(r"text 1: a byte value is 256 or more", out)
