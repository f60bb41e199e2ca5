"""Route 2 of the cross-check: the compiled Lean executable `bpe-encode` (built by `lake`
from the spec's own definitions) against the Python reference and tiktoken on the full
`cl100k_base` and `o200k_base` vocabularies.

Needs a native Lean toolchain (`lake` on PATH, e.g. from elan). Without one the module is
skipped: on machines without internet the offline route is route 1
(`tests/test_crosscheck_lean.py`, kernel evaluation with the WebAssembly Lean).
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from verified_bpe import crosscheck as cc
from verified_bpe.patterns import (
    CL100K_PATTERN_ORIGINAL,
    O200K_PATTERN,
    compile_pattern,
    pre_tokenize_regex,
)

REPO = Path(__file__).resolve().parents[1]
LAKE = shutil.which("lake")
if LAKE is None:  # pragma: no cover - depends on the machine
    pytest.skip(
        "no native `lake` on PATH: route 2 needs a native Lean toolchain (elan); the offline "
        "cross-check is route 1, tests/test_crosscheck_lean.py (kernel evaluation)",
        allow_module_level=True,
    )

N_TEXTS = 2000


@pytest.fixture(scope="module")
def exe() -> Path:
    subprocess.run([LAKE, "build", "bpe-encode"], cwd=REPO, check=True)
    path = REPO / ".lake" / "build" / "bin" / "bpe-encode"
    assert path.exists()
    return path


def write_ranks(ranks: dict[bytes, int], path: Path) -> Path:
    by_rank = sorted(ranks.items(), key=lambda item: item[1])
    lines = [f"{base64.b64encode(t).decode()} {r}" for t, r in by_rank]
    path.write_text("\n".join(lines) + "\n")
    return path


def texts() -> list[str]:
    lines = cc.covering_ascii_strings(N_TEXTS // 2, seed=7)
    lines += cc.real_lines(N_TEXTS // 2, max_len=200)
    lines += ["héllo wörld", "日本語のテキスト", "emoji 😀👍🏽 ok", "Ωμέγα 123456 'll"]
    return lines


@pytest.mark.slow
@pytest.mark.parametrize("name", cc.ENCODINGS)
def test_compiled_lean_agrees_with_python_and_tiktoken(name, exe, tmp_path):
    import tiktoken

    from verified_bpe.spec.encode import encode, encode_with
    from verified_bpe.tokenizer import spec_tables
    from verified_bpe.vocab import load_ranks

    ranks = load_ranks(name)
    ranks_file = write_ranks(ranks, tmp_path / f"{name}.tiktoken")
    pattern = CL100K_PATTERN_ORIGINAL if name == "cl100k_base" else O200K_PATTERN
    oracle = tiktoken.Encoding(name=name, pat_str=pattern, mergeable_ranks=ranks,
                               special_tokens={})
    tables = spec_tables(ranks)
    inputs, expected, python = [], [], []
    for text in texts():
        if name == "cl100k_base" and text.isascii():
            inputs.append(json.dumps(text))  # Bpe.encode: the proven pre-tokenizer
            python.append(encode(tables.merges, tables.byte_shuffle, text))
        else:
            inputs.append(json.dumps(compile_pattern(pattern).findall(text)))  # Bpe.encodeChunk
            python.append(encode_with(lambda d: pre_tokenize_regex(d.decode(), pattern),
                                      tables.merges, tables.byte_shuffle, text))
        expected.append(oracle.encode_ordinary(text))
    assert python == expected
    run = subprocess.run([str(exe), str(ranks_file)], input="\n".join(inputs) + "\n",
                         capture_output=True, text=True, check=True)
    got = [json.loads(line) for line in run.stdout.splitlines()]
    assert len(got) == len(expected)
    mismatches = [(t, g, e) for t, g, e in zip(texts(), got, expected, strict=True) if g != e]
    assert not mismatches, mismatches[:5]
