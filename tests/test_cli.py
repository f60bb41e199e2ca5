"""The command line, run as a subprocess (``python -m verified_bpe``): encode output against
tiktoken, decode(encode) through pipes, exit statuses (0 ok, 1 input error with a one-line
message and no traceback, 2 usage error), ``--help`` everywhere.  ``verify`` and ``bench``
take minutes, so only their ``--help`` is run."""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

tiktoken = pytest.importorskip("tiktoken")

from oracles import naive_train, naive_vocab, regex_chunks  # noqa: E402
from verified_bpe.engine.patterns import CL100K_PATTERN  # noqa: E402
from verified_bpe.engine.vocab import load_ranks, tiktoken_encoding  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
NAMES = ("cl100k_base", "o200k_base")
TEXTS = [
    "Hello, world! It's a test.\n",
    "中文字符和日本語のテキスト 한국어 😀👍🏽 e\u0301 naïve Ωμέγα Привет",
    "  leading\tand trailing  \n\n",
    "def f(x):\n    return x ** 2\n",
]


def env() -> dict[str, str]:
    out = dict(os.environ)
    out["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "python"), out.get("PYTHONPATH")]))
    out.setdefault("VERIFIED_BPE_TIKTOKEN_TIMEOUT", "5")
    return out


def run(*args: str, stdin: bytes = b"", cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "verified_bpe", *args],
        input=stdin,
        capture_output=True,
        env=env(),
        cwd=cwd or ROOT,
        timeout=120,
    )


def ids_of(proc: subprocess.CompletedProcess) -> list[int]:
    assert proc.returncode == 0, proc.stderr.decode()
    return [int(w) for w in proc.stdout.split()]


def assert_one_line_error(proc: subprocess.CompletedProcess, *needles: str) -> None:
    """Exit status 1, a single line on stderr naming the problem, no traceback."""
    err = proc.stderr.decode()
    assert proc.returncode == 1, (proc.returncode, err)
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert "error:" in err
    for needle in needles:
        assert needle in err, err


# ---------------------------------------------------------------------------- encode
@pytest.mark.parametrize("name", NAMES)
def test_encode_argument_equals_tiktoken(name):
    oracle = tiktoken_encoding(name)
    for text in TEXTS:
        assert ids_of(run("encode", "--encoding", name, text)) == oracle.encode(text)


def test_encode_stdin_file_json(tmp_path):
    text = "\n".join(TEXTS)
    expected = tiktoken_encoding("cl100k_base").encode(text)
    assert ids_of(run("encode", stdin=text.encode())) == expected
    path = tmp_path / "in.txt"
    path.write_text(text, encoding="utf-8")
    assert ids_of(run("encode", "--file", str(path))) == expected
    proc = run("encode", "--json", "-f", "-", stdin=text.encode())
    assert proc.returncode == 0
    assert json.loads(proc.stdout) == expected
    assert ids_of(run("encode", "--engine", "spec", "--file", str(path))) == expected


def test_encode_special_tokens():
    oracle = tiktoken_encoding("o200k_base")
    text = "a<|endoftext|>b <|endofprompt|>"
    base = ("encode", "--encoding", "o200k_base", text)
    assert ids_of(run(*base, "--allowed-special", "all")) == oracle.encode(
        text, allowed_special="all"
    )
    assert ids_of(run(*base, "--allowed-special", "<|endoftext|>", "--ordinary")) == (
        oracle.encode_ordinary(text)
    )
    proc = run(*base, "--allowed-special", "<|endoftext|>")
    assert_one_line_error(proc, "<|endofprompt|>", "--allowed-special")
    assert_one_line_error(run("encode", "<|endoftext|>"), "<|endoftext|>")


def test_encode_bad_input_files(tmp_path):
    assert_one_line_error(run("encode", "--file", str(tmp_path / "missing.txt")), "missing.txt")
    assert_one_line_error(run("encode", stdin=b"ok \xff\xfe"), "UTF-8")


# ---------------------------------------------------------------------------- decode
@pytest.mark.parametrize("name", NAMES)
def test_decode_of_encode_through_pipes(name, stdlib_corpus):
    text = "\n".join(TEXTS) + stdlib_corpus[0][1][:5000]
    common = {"env": env(), "cwd": ROOT}
    cmd = [sys.executable, "-m", "verified_bpe"]
    enc = subprocess.Popen(
        [*cmd, "encode", "--encoding", name],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        **common,
    )
    dec = subprocess.Popen(
        [*cmd, "decode", "--encoding", name], stdin=enc.stdout, stdout=subprocess.PIPE, **common
    )
    assert enc.stdin is not None and enc.stdout is not None
    enc.stdin.write(text.encode("utf-8"))
    enc.stdin.close()
    enc.stdout.close()  # the decoder owns the read end now
    out, _ = dec.communicate(timeout=120)
    assert enc.wait(timeout=120) == 0 and dec.returncode == 0
    assert out == text.encode("utf-8")


def test_decode_arguments_json_and_invalid_utf8():
    oracle = tiktoken_encoding("cl100k_base")
    ids = oracle.encode("日本語 text")
    assert run("decode", *map(str, ids)).stdout.decode() == oracle.decode(ids)
    assert run("decode", stdin=json.dumps(ids).encode()).stdout.decode() == oracle.decode(ids)
    cut = ids[:1] + [oracle.encode_single_token(b"\xff")]  # partial character, invalid byte
    proc = run("decode", *map(str, cut))
    assert proc.returncode == 0 and proc.stdout.decode() == oracle.decode(cut)
    exact = run("decode", "--bytes", *map(str, cut))
    assert exact.stdout == oracle.decode_bytes(cut)


def test_decode_stream_equals_batch():
    oracle = tiktoken_encoding("cl100k_base")
    ids = oracle.encode(TEXTS[1])
    stdin = "\n".join(map(str, ids)).encode()
    streamed = run("decode", "--stream", stdin=stdin)
    assert streamed.returncode == 0
    assert streamed.stdout.decode() == oracle.decode(ids)
    truncated = ids[:1] + [oracle.encode_single_token(b"\xe4")]
    proc = run("decode", "--stream", *map(str, truncated))
    assert proc.stdout.decode() == oracle.decode(truncated)


def test_decode_unknown_id_exit_1():
    proc = run("decode", "15339", "999999999")
    assert_one_line_error(proc, "unknown token id 999999999")
    assert proc.stdout == b""


# ---------------------------------------------------------------------------- usage
@pytest.mark.parametrize(
    "args", [(), ("encode",), ("decode",), ("train",), ("verify",), ("bench",)]
)
def test_help_exit_0(args):
    proc = run(*args, "--help")
    assert proc.returncode == 0, proc.stderr.decode()
    assert b"usage:" in proc.stdout


@pytest.mark.parametrize(
    "args",
    [
        (),
        ("frobnicate",),
        ("encode", "--encoding", "q50k_base", "x"),  # not a registered encoding
        ("encode", "--engine", "turbo", "x"),
        ("encode", "--no-such-option", "x"),
        ("encode", "--gguf", "a.gguf", "--model", "b.model", "x"),
        ("decode", "--bytes", "--stream", "1"),
        ("decode", "--model", "m.model", "--engine", "spec", "1"),  # the option did nothing
        ("train", "some text"),
        ("train", "--vocab-size", "100", "-o", "x", "text"),
        ("train", "--vocab-size", "many", "-o", "x", "text"),
    ],
)
def test_bad_usage_exit_2(args):
    proc = run(*args)
    err = proc.stderr.decode()
    assert proc.returncode == 2, (proc.returncode, err)
    assert "usage:" in err and "Traceback" not in err


# ---------------------------------------------------------------------------- train
def test_train_then_encode_decode_with_the_model(tmp_path, stdlib_corpus):
    train = pytest.importorskip("verified_bpe.api.train")
    text = stdlib_corpus[0][1][:20_000]
    src = tmp_path / "corpus.txt"
    src.write_text(text, encoding="utf-8")
    prefix = tmp_path / "out" / "tok"
    proc = run("train", "--vocab-size", "300", "--output", str(prefix), "--file", str(src))
    assert proc.returncode == 0, proc.stderr.decode()
    model = Path(str(prefix) + ".model")
    assert proc.stdout.decode().split() == [str(model), str(prefix) + ".vocab"]
    # the merges are minbpe's textbook loop on the regex module's split (tests/oracles.py)
    expected, _ = naive_train(regex_chunks(text, CL100K_PATTERN), 300 - 256)
    loaded = train.load_tokenizer(model)
    assert list(loaded.merges.items()) == list(expected.items())
    # and the model encodes as tiktoken does on the oracle's vocabulary (ranks = ids)
    reference = tiktoken.Encoding(
        name="cli-train-oracle",
        pat_str=CL100K_PATTERN,
        mergeable_ranks={token: idx for idx, token in naive_vocab(expected).items()},
        special_tokens={},
    )
    sample = "def main():\n    return 0\n"
    ids = ids_of(run("encode", "--model", str(model), sample))
    assert ids == reference.encode(sample)
    back = run("decode", "--model", str(model), *map(str, ids))
    assert back.stdout.decode() == sample
    verbose = run("train", "--vocab-size", "260", "-o", str(prefix), "-v", text[:2000])
    assert verbose.returncode == 0 and verbose.stderr  # progress goes to stderr
    assert verbose.stdout.decode().split()[0] == str(model)


def test_train_bad_model_file_exit_1(tmp_path):
    pytest.importorskip("verified_bpe.api.train")
    bad = tmp_path / "bad.model"
    bad.write_text("not a model\n", encoding="utf-8")
    assert_one_line_error(run("encode", "--model", str(bad), "x"), "bad.model")


# ---------------------------------------------------------------------------- gguf
def test_encode_with_gguf_vocabulary(tmp_path):
    pytest.importorskip("gguf")
    from test_gguf import good_kv, oracle, write_gguf
    from verified_bpe.engine.patterns import LLAMA3_PATTERN

    path = write_gguf(tmp_path / "v.gguf", **good_kv())
    for text in TEXTS:
        ids = ids_of(run("encode", "--gguf", str(path), text))
        assert ids == oracle("cl100k_base", LLAMA3_PATTERN).encode(text)
        assert run("decode", "--gguf", str(path), *map(str, ids)).stdout.decode() == text
    corrupt = tmp_path / "bad.gguf"
    corrupt.write_bytes(b"GGUF" + b"\x00" * 3)
    assert_one_line_error(run("encode", "--gguf", str(corrupt), "x"), "bad.gguf")


# ---------------------------------------------------------------------------- pass-through
def test_verify_and_bench_pass_options_through():
    """Bad option values are usage errors (exit 2) before any work; a tiny benchmark really
    runs (a few seconds) with the options given."""
    for args in (
        ("verify", "--route", "bogus"),
        ("verify", "--jobs", "0"),
        ("verify", "--skip-spec"),
        ("bench", "--encoding", "bogus"),
        ("bench", "--mb", "-1"),
        ("bench", "--sections", "table,bogus"),
        ("bench", "--skip-spec"),  # it did nothing (the spec engine is timed only on --spec)
    ):
        proc = run(*args)
        assert proc.returncode == 2 and b"usage:" in proc.stderr, args
    proc = run(
        "bench", "--mb", "0.01", "--skip-rss", "--encoding", "o200k_base", "--sections", "table"
    )
    assert proc.returncode == 0, proc.stderr.decode()
    assert b"verified_bpe fast" in proc.stdout


def _options(help_text: str) -> set[str]:
    """The long options an argparse ``--help`` names (in the usage line and the texts)."""
    return set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", help_text))


def test_verify_and_bench_help_list_what_they_forward():
    """``verify --help`` and ``bench --help`` list exactly the options of the programs they
    run (the toolchain's and ``bench/bench_encode.py``'s own ``--help``), and forward them:
    the argv built for each equals what was asked."""
    from verified_bpe import cli

    toolchain = subprocess.run(
        [sys.executable, "-m", "verified_bpe.toolchain", "--help"],
        capture_output=True,
        env=env(),
        cwd=ROOT,
        timeout=120,
        check=True,
    ).stdout.decode()
    script = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_encode.py"), "--help"],
        capture_output=True,
        env=env(),
        cwd=ROOT,
        timeout=120,
        check=True,
    ).stdout.decode()
    for command, program in (("verify", toolchain), ("bench", script)):
        ours = run(command, "--help").stdout.decode()
        assert _options(ours) - {"--help"} == _options(program) - {"--help"}, command
    parser = cli.build_parser()
    args = parser.parse_args(["verify", "--route", "wasm", "--jobs", "1", "--repo", "/x"])
    assert cli.verify_argv(args) == ["--jobs", "1", "--route", "wasm", "--repo", "/x", "verify"]
    args = parser.parse_args(["bench", "--mb", "0.5", "--spec", "--sections", "linear"])
    assert cli.bench_argv(args) == [
        "--mb",
        "0.5",
        "--repeat",
        "3",
        "--sections",
        "linear",
        "--spec",
    ]


@pytest.mark.parametrize("command", ["encode", "decode", "train", "verify", "bench"])
def test_help_lists_every_option(command):
    """Each subcommand's ``--help`` names every option its parser accepts."""
    from verified_bpe import cli

    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    accepted = {
        flag
        for action in sub.choices[command]._actions
        for flag in action.option_strings
        if flag.startswith("--")
    }
    assert _options(run(command, "--help").stdout.decode()) == accepted


def test_encoding_takes_every_registered_encoding(tmp_path, monkeypatch):
    """``--encoding`` accepts every name of ``list_encoding_names``; o200k_harmony encodes
    its special tokens as tiktoken's own o200k_harmony does.  The GPT-2 family's files come
    from a tiktoken cache rebuilt from llama.cpp's GPT-2 vocabulary (published hashes)."""
    import verified_bpe
    from verified_bpe.engine.vocab import tiktoken_cache_path
    from verified_bpe.verify import testdata

    openai_public = pytest.importorskip("tiktoken_ext.openai_public")
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    for file_name, contents in testdata.gpt2_tiktoken_files().items():
        tiktoken_cache_path(file_name)[0].write_bytes(contents)
    text = "<|start|>user<|message|>2+2?<|end|> <|endoftext|> x"
    for name in verified_bpe.list_encoding_names():
        proc = run("encode", "--encoding", name, "--allowed-special", "all", text)
        assert proc.returncode == 0, (name, proc.stderr.decode())
    original = openai_public.load_tiktoken_bpe
    try:  # tiktoken's constructor, with the download replaced by the o200k_base ranks
        openai_public.load_tiktoken_bpe = lambda url, expected_hash=None: load_ranks("o200k_base")
        oracle = tiktoken.Encoding(**openai_public.o200k_harmony())
    finally:
        openai_public.load_tiktoken_bpe = original
    ids = ids_of(run("encode", "--encoding", "o200k_harmony", "--allowed-special", "all", text))
    assert ids == oracle.encode(text, allowed_special="all")
    back = run("decode", "--encoding", "o200k_harmony", *map(str, ids))
    assert back.stdout.decode() == text
