"""Route 3 with the regex semantics: Lean's compiler turns the matcher and `findIter`
(`Bpe.Exec.FindIterCode`, proven equal to `Bpe.Regex.findIter unicodeClasses` by
`Bpe.Exec.findIterX_eq`, its pattern terms equal to the spec's by `cl100kX_eq`/`o200kX_eq`) and
the machines' splitting loop into IR; the offline Lean's interpreter splits raw texts with both.
Both chunk lists must equal the chunks of the `regex` module (the independent oracle) with the
encoding's pattern.

The fast tests check the generator and the oracle; the `lean`-marked test runs the offline Lean
on a slice of route 3's texts (both encodings in one module). The full run (10,000 texts per
encoding) is the documented command in docs/regex.md.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from test_crosscheck_exec import after_verbatim_sources
from verified_bpe.verify import exec_crosscheck as ec

REPO = Path(__file__).resolve().parents[1]

#: route 3's texts in the CI slice (measured cost: docs/regex.md, route 3)
N_STDLIB, N_CATALOG, N_RANDOM = 200, 100, 100

#: texts that reach the patterns' corners: contractions in every case, `\s++$` and a final
#: newline, runs of white space before a word, o200k's upper/lower runs and the lead's retry
EXTRA_TEXTS = [
    "",
    " ",
    "\n",
    "a \n",
    "x  \n\n",
    "  \t\n y",
    "don't",
    "DON'T",
    "HE'LL'VE'RE",
    "'s",
    "it\u017fs",
    "\u212a'S",
    "HelloWorld ABCdef",
    "\u0391\u0392\u03b3\u03b4'\u0130S",
    "$\u00c9cole",
    "\u4e2d\u6587 ok",
    "1234567",
    " !!!\r\n/x",
    "a\u0301b\u0301",
    "\u2028\u3000x",
]


def _texts() -> list[str]:
    return ec.default_texts(N_STDLIB, N_CATALOG, N_RANDOM) + EXTRA_TEXTS


def test_regex_module_is_its_sources_verbatim_in_import_order(tmp_path):
    sources = ec.split_sources(ec.EXEC_FIND_ITER)
    names = ["/".join(p.with_suffix("").parts[-2:]) for p in sources]
    for needed in (
        "Regex/Syntax",
        "Regex/Patterns",
        "Regex/Unicode",
        "Unicode/Tables",
        "Unicode/Cl100k",
        "Unicode/O200k",
        "Exec/PreTokenizeCode",
    ):
        assert needed in names
    assert names[-1] == "Exec/FindIterCode"
    # the proofs and the noncomputable matcher stay out
    assert "Exec/FindIter" not in names and "Regex/Match" not in names
    calls = [(name, tmp_path / "r.in", tmp_path / f"{name}.out") for name in ec.ENCODINGS]
    source = ec.render_regex_module(calls)
    ends, _, rest = after_verbatim_sources(source, sources).partition("#eval")
    assert set(ends.split()) <= {"end"}
    evals = [line for line in ("#eval" + rest).split("\n") if line]
    assert evals == [
        f"#eval Bpe.Exec.runFindIterTexts {ec.FIND_ITER_PATTERN[n]} {ec.NEXT_CHUNK[n]} "
        f'"{tmp_path}/r.in" "{tmp_path}/{n}.out"'
        for n in ec.ENCODINGS
    ]


def test_pattern_terms_and_runner_exist_in_the_code():
    code = (REPO / "lean" / "Bpe" / "Exec" / "FindIterCode.lean").read_text()
    for name in ec.FIND_ITER_PATTERN.values():
        assert f"\ndef {name.rsplit('.', 1)[1]} : Re :=" in code
    assert "\ndef runFindIterTexts " in code
    assert "noncomputable" not in code.split("-/", 1)[1]


def test_parse_chunk_line():
    assert ec.parse_chunk_line("0") == []
    assert ec.parse_chunk_line("2 1 97 3 32 98 99") == [[97], [32, 98, 99]]
    with pytest.raises(ec.ExecCrossCheckError):
        ec.parse_chunk_line("1 1 97 5")
    with pytest.raises(StopIteration):
        ec.parse_chunk_line("2 1 97")


def test_summary_line_is_parsed():
    out = "x\ntexts chunks differ ms: 4 20 0 31\ny\ntexts chunks differ ms: 4 22 1 40\n"
    assert [m.groups() for m in ec.REGEX_SUMMARY.finditer(out)] == [
        ("4", "20", "0", "31"),
        ("4", "22", "1", "40"),
    ]


@pytest.mark.parametrize("name", ec.ENCODINGS)
def test_oracle_partitions_the_text_and_its_dollar_is_the_engines(name):
    """The oracle's chunks cover the text; `regex`'s `$` (also before a final newline) gives
    the same chunks as the semantics' `$` (end of the text only, `\\Z`) on these texts."""
    import regex

    end_only = regex.compile(ec.PATTERNS[name].replace("$", r"\Z"))
    texts = ec.default_texts(100, 50, 50) + EXTRA_TEXTS + ["a \n", " \n", "x\n\n", "\t\n"]
    for text in texts:
        chunks = ec.code_point_chunks(name, text)
        assert [c for chunk in chunks for c in chunk] == [ord(c) for c in text]
        assert all(chunks)
        assert chunks == [[ord(c) for c in m] for m in end_only.findall(text)], text


@pytest.mark.lean
@pytest.mark.parametrize("names", [ec.ENCODINGS])
def test_compiled_find_iter_and_machines_agree_with_regex(names, tally):
    texts = _texts()
    runs = ec.run_lean_regex(names, texts, REPO / ".cache" / "exec")
    assert set(runs) == set(names)
    for name in names:
        run = runs[name]
        expected = [ec.code_point_chunks(name, t) for t in texts]
        assert run.chunks == sum(map(len, expected))
        assert not ec.mismatches(texts, run.find_iter, expected)[:5]
        assert not ec.mismatches(texts, run.machine, expected)[:5]
        assert run.differ == 0
        tally(f"exec regex {name}: texts split by compiled findIter", len(texts))
        tally(f"exec regex {name}: interpreter ms", run.run_ms)
    tally("exec regex: Lean seconds", int(next(iter(runs.values())).lean_seconds))
