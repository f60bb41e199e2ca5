"""Route 3 of the cross-check: Lean's compiler turns the spec's Unicode pre-tokenizers and the
executable encoder (`Bpe.Exec.PreTokenizeCode`, `Bpe.Exec.Code`, proven equal to the spec by
`Bpe.Exec.preTokenizeX_eq` and `Bpe.Exec.encodeChunks_eq_encodeWith`) into IR, and the offline
Lean's interpreter runs it (`#eval`) on the FULL `cl100k_base` and `o200k_base` tables and 10,000
raw texts per encoding; the ids must equal tiktoken's and the Python reference's. A smaller run
feeds tiktoken's chunks to `runFiles` (the input of `lake exe bpe-encode`).

The fast tests check the generator against independent oracles (tiktoken's own split and
Python's parsing of the file); the `lean`-marked test runs the offline Lean (minutes).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from verified_bpe.verify import exec_crosscheck as ec

REPO = Path(__file__).resolve().parents[1]

#: texts per encoding in the Lean run (measured cost: see docs/crosscheck.md)
N_STDLIB, N_CATALOG, N_RANDOM = 5000, 3000, 2000


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


def test_generated_module_is_the_exec_code_verbatim(tmp_path):
    source = ec.render_module(tmp_path / "a.in", tmp_path / "a.out")
    code = (REPO / "lean" / "Bpe" / "Exec" / "Code.lean").read_text()
    assert source.startswith(code)
    call = f'#eval Bpe.Exec.runFiles "{tmp_path}/a.in" "{tmp_path}/a.out"'
    assert source[len(code) :].strip() == call


def test_raw_input_holds_each_texts_utf8_bytes():
    tables = ec.load_tables("cl100k_base", 300)
    texts = ec.default_texts(5, 5, 5) + ["", "a\r\n\u00e9\U0001f600"]
    nums = iter(int(x) for x in ec.render_input(tables, texts, lean_split=True).split())
    for _ in range(256):
        next(nums)
    for _ in range(3 * next(nums)):
        next(nums)
    assert next(nums) == len(texts)
    for text in texts:
        assert bytes(next(nums) for _ in range(next(nums))) == text.encode("utf-8")
    assert next(nums, None) is None


def after_verbatim_sources(source: str, sources: list[Path]) -> str:
    """What the generated module ``source`` holds after the text of each of ``sources``, which
    it must contain verbatim (without its header), in order, with only blank lines and the
    ``end``s of open sections between two of them (shared by the route 3 generator tests)."""
    pos = 0
    for path in sources:
        body = ec.module_body(path).rstrip("\n")
        assert body in path.read_text()
        found = source.find(body, pos)
        assert found >= pos, path
        assert set(source[pos:found].split()) <= {"end", "module"}, path
        pos = found + len(body)
    return source[pos:]


def test_split_module_is_its_sources_verbatim_in_import_order(tmp_path):
    sources = ec.split_sources()
    names = ["/".join(p.with_suffix("").parts[-2:]) for p in sources]
    for needed in (
        "Exec/Code",
        "Unicode/Tables",
        "Unicode/PreTokenize",
        "Unicode/Cl100k",
        "Unicode/O200k",
        "Exec/PreTokenizeCode",
    ):
        assert needed in names
    assert names[-1] == "Exec/PreTokenizeCode"
    # no proofs of Exec needed
    assert "Exec/Encode" not in names and "Exec/PreTokenize" not in names
    for name in ec.ENCODINGS:
        source = ec.render_split_module(name, tmp_path / "a.in", tmp_path / "a.out")
        ends, _, rest = after_verbatim_sources(source, sources).partition("#eval")
        assert set(ends.split()) <= {"end"}
        call = f'#eval Bpe.Exec.runTexts {ec.NEXT_CHUNK[name]} "{tmp_path}/a.in" "{tmp_path}/a.out"'
        assert ("#eval" + rest).strip() == call
    # both encodings in one module: the same sources once, then one `#eval` per encoding
    both = ec.render_split_calls([(n, tmp_path / n, tmp_path / f"{n}.out") for n in ec.ENCODINGS])
    ends, _, rest = after_verbatim_sources(both, sources).partition("#eval")
    assert set(ends.split()) <= {"end"}
    calls = [
        f'#eval Bpe.Exec.runTexts {ec.NEXT_CHUNK[n]} "{tmp_path}/{n}" "{tmp_path}/{n}.out"'
        for n in ec.ENCODINGS
    ]
    assert ("#eval" + rest).split() == " ".join(calls).split()


def test_closing_ends_counts_open_anonymous_sections():
    body = (
        "@[expose] public section\nnoncomputable section\nnamespace A\nsection B\n"
        "end B\nend A\nsection\nend\n"
    )
    assert ec.closing_ends(body) == "end\nend\n"
    assert ec.closing_ends("def x := 1\n") == ""


def test_summary_line_is_parsed():
    m = ec.SUMMARY.search("foo\nentries texts tokens load_ms encode_ms: 5 2 9 10 20\n")
    assert m is not None and m.groups() == ("5", "2", "9", "10", "20")


@pytest.mark.lean
@pytest.mark.slow
def test_compiled_lean_agrees_with_tiktoken_on_full_vocabulary(tally):
    """Both encodings' full tables and the same 10,000 raw texts, in one module (one compilation
    of the code, one `#eval` of `runTexts` per encoding): every text's ids equal tiktoken's,
    and the Python reference's equal tiktoken's too."""
    texts = ec.default_texts(N_STDLIB, N_CATALOG, N_RANDOM)
    assert len(texts) >= 10_000
    all_tables = [ec.load_tables(name) for name in ec.ENCODINGS]
    runs = ec.run_lean_split(all_tables, texts, REPO / ".cache" / "exec")
    assert list(runs) == list(ec.ENCODINGS)
    for tables in all_tables:
        name, run = tables.name, runs[tables.name]
        assert run.entries == len(tables.merges)
        enc = ec.oracle(tables)
        expected = [enc.encode_ordinary(t) for t in texts]
        assert run.tokens == sum(map(len, expected)), name
        bad = ec.mismatches(texts, run.ids, expected)
        assert not bad, (name, bad[:5])
        assert not ec.mismatches(texts, ec.reference_ids(tables, texts), expected), name
        tally(f"exec crosscheck {name}: texts encoded by compiled Lean", len(texts))
        tally(f"exec crosscheck {name}: tokens", run.tokens)
        tally(f"exec crosscheck {name}: interpreter encode ms", run.encode_ms)
    tally("exec crosscheck (both encodings, one module): Lean seconds", int(run.lean_seconds))
    tally(
        "exec crosscheck (both encodings, one module): Lean peak RSS MiB", run.peak_rss_kib // 1024
    )


@pytest.mark.lean
@pytest.mark.slow
def test_compiled_lean_on_tiktokens_chunks(tally):
    """`runFiles` (what `bpe-encode` runs) on chunks written by Python, on a slice."""
    tables = ec.load_tables("cl100k_base", 3000)
    texts = ec.default_texts(100, 60, 40)
    run = ec.run_lean(tables, texts, REPO / ".cache" / "exec", lean_split=False)
    assert run.entries == len(tables.merges)
    enc = ec.oracle(tables)
    expected = [enc.encode_ordinary(t) for t in texts]
    bad = ec.mismatches(texts, run.ids, expected)
    assert not bad, bad[:5]
    tally("exec crosscheck chunks (cl100k_base, 3,000 ranks): texts", len(texts))
