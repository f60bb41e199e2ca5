"""First use, as a new user meets the package (issue 36): ``bench`` measures the package the
command runs from and says in one line why it cannot; ``verify.testdata`` honours ``--help``
and says where its files are; messages name what is wrong with the input given;
``Encoding.engine``, ``--version`` and ``count`` (token counts against tiktoken's)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import verified_bpe
from verified_bpe.engine import native
from verified_bpe.engine.tokenizer import BLOCK_CHARS
from verified_bpe.verify import testdata

ROOT = Path(__file__).resolve().parent.parent
PROG = "python -m verified_bpe: error: "
#: bench's cheapest section: one vocabulary per engine, 1,000 spaces (a few seconds).
SMALL_BENCH = ("bench", "--mb", "0.001", "--encoding", "cl100k_base", "--sections", "panic")


def env(pythonpath: Path = ROOT / "python") -> dict[str, str]:
    out = dict(os.environ)
    out["PYTHONPATH"] = os.pathsep.join(filter(None, [str(pythonpath), out.get("PYTHONPATH")]))
    out.setdefault("VERIFIED_BPE_TIKTOKEN_TIMEOUT", "5")
    return out


def run(*args: str, cwd: Path = ROOT, stdin: bytes = b"", **kw) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, input=stdin, capture_output=True, timeout=300, **kw
    )


def cli(*args: str, **kw) -> subprocess.CompletedProcess:
    return run("-m", "verified_bpe", *args, env=kw.pop("env", env()), **kw)


def one_line_error(proc: subprocess.CompletedProcess, *needles: str) -> str:
    """Exit status 1 and one line on stderr (no traceback) holding every needle."""
    err = proc.stderr.decode()
    assert proc.returncode == 1, (proc.returncode, err)
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    for needle in needles:
        assert needle in err, err
    return err


def installed_copy(tmp_path: Path, with_native: bool) -> Path:
    """A copy of the package in a folder of its own, as an install puts it (with or without
    the built extension); returns the folder to put on ``PYTHONPATH``."""
    site = tmp_path / "site"
    ignore = None if with_native else shutil.ignore_patterns("_native*")
    shutil.copytree(
        Path(verified_bpe.__file__).resolve().parent, site / "verified_bpe", ignore=ignore
    )
    return site


# ---------------------------------------------------------------------------- bench
HIDE_TIKTOKEN = "import sys; sys.modules['tiktoken'] = None\n"  # import tiktoken fails


def test_bench_without_tiktoken_is_one_line():
    """No traceback: one line naming ``pip install tiktoken``, from the command and from the
    script itself."""
    code = HIDE_TIKTOKEN + "from verified_bpe.cli import main\nsys.exit(main(['bench']))"
    one_line_error(run("-c", code, env=env()), "pip install tiktoken", "error:")
    script = ROOT / "bench" / "bench_encode.py"
    code = HIDE_TIKTOKEN + "import runpy; sys.argv = ['bench_encode.py']\n"
    code += f"runpy.run_path({str(script)!r}, run_name='__main__')"
    one_line_error(run("-c", code, env=env()), "pip install tiktoken")


@pytest.mark.skipif(not native.available(), reason="the native engine is not built here")
def test_bench_measures_the_package_it_runs_from(tmp_path):
    """From the checkout, with the package installed elsewhere: the installed copy is timed
    (native), not the checkout's python/."""
    site = installed_copy(tmp_path, with_native=True)
    proc = cli(*SMALL_BENCH, env=env(site))
    out = proc.stdout.decode()
    assert proc.returncode == 0, proc.stderr.decode()
    assert f"verified_bpe: {site / 'verified_bpe'} (native engine built)" in out
    assert "cl100k_base: verified_bpe native -> " in out


def test_bench_without_the_extension_says_so_and_nothing_false(tmp_path):
    """A package without the extension: one line says so, the pure-Python engine is timed,
    and no claim about the install's toolchain is made."""
    site = installed_copy(tmp_path, with_native=False)
    proc = cli(*SMALL_BENCH, env=env(site))
    out, err = proc.stdout.decode(), proc.stderr.decode()
    assert proc.returncode == 0, err
    assert f"verified_bpe: {site / 'verified_bpe'} (no native engine:" in out
    assert "cl100k_base: verified_bpe fast -> " in out
    assert "Rust toolchain when" not in err and str(site / "verified_bpe") in err


def test_bench_env_keeps_site_directories_off_pythonpath(monkeypatch):
    from verified_bpe import cli as cli_module

    monkeypatch.delenv("PYTHONPATH", raising=False)
    parent = str(Path(cli_module.__file__).resolve().parent.parent)
    got = cli_module.bench_env().get("PYTHONPATH", "")
    site_packages = Path(sysconfig.get_paths()["purelib"]).resolve()
    assert (parent in got.split(os.pathsep)) == (Path(parent) != site_packages)


# ---------------------------------------------------------------------------- testdata
def test_testdata_help_downloads_nothing(tmp_path):
    folder = tmp_path / "data"
    folder.mkdir()
    proc = run(
        "-m",
        "verified_bpe.verify.testdata",
        "--help",
        env={**env(), "VERIFIED_BPE_TESTDATA": str(folder)},
    )
    assert proc.returncode == 0 and b"usage:" in proc.stdout and b"--print-dir" in proc.stdout
    assert list(folder.iterdir()) == []


def test_testdata_names_its_folder(tmp_path, capsys):
    """With the files in place (nothing fetched), the listing ends with their folder and
    ``--print-dir`` prints only it."""
    models = tmp_path / f"llama.cpp-{testdata.SDIST_VERSION}" / "models"
    models.mkdir(parents=True)
    (models.parent / ".extracted").write_text("x\n")
    (models / "ggml-vocab-tiny.gguf").write_bytes(b"")
    assert testdata.main(["--dir", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "tiny: 0 vectors" and lines[-1].endswith(f" in {models}")
    assert testdata.main(["--dir", str(tmp_path), "--print-dir"]) == 0
    assert capsys.readouterr().out == f"{models}\n"


def test_testdata_default_folder(tmp_path, monkeypatch):
    """In a checkout: its .cache/testdata; installed: the user's cache, not the venv."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    module = Path(testdata.__file__)
    assert testdata.default_cache_dir(module) == ROOT / ".cache" / "testdata"
    installed = tmp_path / "venv" / "lib" / "site-packages" / "verified_bpe" / "verify" / "x.py"
    expected = tmp_path / "xdg" / "verified_bpe" / "testdata"
    assert testdata.default_cache_dir(installed) == expected


# ---------------------------------------------------------------------------- messages
def test_model_option_given_a_text_file(tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("a training text\n" * 100 + "no final newline", encoding="utf-8")
    binary = tmp_path / "blob.bin"
    binary.write_bytes(bytes(range(256)) * 4)
    for path in (corpus, binary):
        err = one_line_error(cli("encode", "--model", str(path), "x"), str(path))
        assert "not a minbpe .model file" in err and "truncated" not in err


def test_file_option_given_binary(tmp_path):
    binary = tmp_path / "blob.bin"
    binary.write_bytes(b"text \xff more")
    err = one_line_error(cli("encode", "--file", str(binary)), PROG)
    assert f"the input file {binary} is not valid UTF-8" in err and "at byte 5" in err
    assert "decoded" not in err
    one_line_error(cli("encode", stdin=b"ok\xfe"), "stdin is not valid UTF-8", "at byte 2")


def test_verify_outside_a_checkout(tmp_path):
    one_line_error(cli("verify", cwd=tmp_path), PROG, "--repo", "source checkout")
    one_line_error(cli("verify", "--repo", str(tmp_path), cwd=tmp_path), PROG, "--repo")


# ---------------------------------------------------------------------------- new surface
def test_encoding_engine_and_version():
    expected = "native" if native.available() else "fast"
    byte_ranks = {bytes([b]): b for b in range(256)}
    enc = verified_bpe.Encoding(
        "bytes", pat_str=r"\S+|\s+", mergeable_ranks=byte_ranks, special_tokens={}
    )
    assert enc.engine == expected
    proc = cli("--version")
    assert proc.returncode == 0, proc.stderr.decode()
    line = proc.stdout.decode().strip()
    assert line.startswith(f"verified-bpe {verified_bpe.__version__} (engine: {expected}")


def test_count_equals_tiktoken(tmp_path):
    """Per file and in total; files longer than one block (the block path); stdin with
    ``--json``; special-token text counted as text.  The counts are tiktoken's."""
    pytest.importorskip("tiktoken")
    from verified_bpe.engine.vocab import tiktoken_encoding

    modules = (shutil, subprocess, json.decoder, os)
    texts = [
        "".join(Path(m.__file__).read_text(encoding="utf-8") for m in modules),
        "Ωμέγα 日本語\n\nx" * 6000,
        (ROOT / "README.md").read_text(encoding="utf-8") + "<|endoftext|>",
    ]
    assert len(texts[0]) > 2 * BLOCK_CHARS and len(texts[1]) > BLOCK_CHARS
    files = [tmp_path / f"{k}.txt" for k in range(len(texts))]
    for path, text in zip(files, texts, strict=True):
        path.write_text(text, encoding="utf-8")
    oracle = tiktoken_encoding("cl100k_base")
    expected = [len(oracle.encode_ordinary(text)) for text in texts]
    proc = cli("count", *map(str, files))
    assert proc.returncode == 0, proc.stderr.decode()
    lines = [f"{n} {f}" for n, f in zip(expected, files, strict=True)]
    assert proc.stdout.decode().splitlines() == [*lines, f"{sum(expected)} total"]
    proc = cli("count", "--json", stdin=texts[2].encode())
    assert json.loads(proc.stdout) == {
        "files": [{"file": "-", "tokens": expected[2]}],
        "total": expected[2],
    }


def test_count_errors_name_the_file(tmp_path):
    binary = tmp_path / "blob.bin"
    binary.write_bytes(b"\x00\xff")
    one_line_error(cli("count", str(binary)), str(binary), "not valid UTF-8")
    one_line_error(cli("count", str(tmp_path / "missing.txt")), "missing.txt")
    proc = cli("count", "--help")
    assert proc.returncode == 0 and b"--json" in proc.stdout
