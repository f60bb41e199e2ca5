"""One test per finding of the reliability campaign (issue 12); each failed before its fix.

Oracles: tiktoken (whole-match splitting), the input itself (a roundtrip must give back the
text; a refused file must be named in the error), the tokenizer's state before the failing
call (atomicity), wall-clock and ``tracemalloc`` bounds (hangs, memory).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import tracemalloc
from io import BytesIO
from pathlib import Path

import pytest

from verified_bpe import cli
from verified_bpe.api.train import RegexTokenizer, load_tokenizer
from verified_bpe.errors import (
    BpeError,
    DisallowedSpecialTokenError,
    InvalidArgumentError,
    MalformedModelError,
    MalformedVocabError,
    NotRegularFileError,
    PatternError,
    PatternTimeoutError,
    UnknownTokenError,
)

ROOT = Path(__file__).resolve().parent.parent
CAPTURE = r"'(s|t)|\w+| ?[^\w\s]+|\s+"
NESTED = r"'((s)|(t))|(\w)+| ?([^\w\s]+)|(\s)+"
TEXT = "it's a test, isn't it"
CATASTROPHIC = r"\w*\w*\w*X|."
CORPUS = Path(__file__).read_text(encoding="utf-8")  # plenty of pairs for 300 merges


def run_cli(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "python"), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-m", "verified_bpe", *args],
        input=stdin,
        capture_output=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )


def assert_exit_1_one_line(proc: subprocess.CompletedProcess, *needles: str) -> str:
    err = proc.stderr.decode()
    assert proc.returncode == 1, (proc.returncode, err)
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    for needle in needles:
        assert needle in err, (needle, err)
    return err


def returns_within(seconds: float, fn, *args):  # noqa: ANN001, ANN202
    """Run ``fn(*args)`` in a thread; fail if it has not returned after ``seconds``."""
    box: dict[str, object] = {}

    def target() -> None:
        try:
            box["value"] = fn(*args)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"{fn.__name__} still running after {seconds} s"
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box.get("value")


def write_model_text(path: Path, pattern: str, merges: list[str], specials: str = "0\n") -> Path:
    path.write_text(f"minbpe v1\n{pattern}\n{specials}" + "".join(m + "\n" for m in merges))
    return path


@pytest.fixture(scope="module")
def trained() -> RegexTokenizer:
    tok = RegexTokenizer()
    tok.train("hello world, hello there; it's a test, isn't it? " * 20, 300)
    return tok


# ---------------------------------------------------------------------------- whole matches
@pytest.mark.parametrize("pattern", [CAPTURE, NESTED])
@pytest.mark.parametrize("engine", ["fast", "spec"])
def test_capturing_groups_split_whole_matches_as_tiktoken(pattern, engine):
    tiktoken = pytest.importorskip("tiktoken")
    from verified_bpe.engine.tokenizer import Tokenizer
    from verified_bpe.engine.vocab import load_ranks

    ranks = {t: r for t, r in load_ranks("cl100k_base").items() if r < 3000}  # spec: quick
    oracle = tiktoken.Encoding("capture", pat_str=pattern, mergeable_ranks=ranks, special_tokens={})
    tok = Tokenizer.from_ranks(ranks, pattern, engine=engine)
    ids = tok.encode(TEXT)
    assert ids == oracle.encode(TEXT)
    assert tok.decode(ids) == TEXT


def test_capturing_groups_in_tiktoken_compatible_encoding():
    tiktoken = pytest.importorskip("tiktoken")
    from verified_bpe.api.encoding import Encoding
    from verified_bpe.engine.vocab import load_ranks

    ranks = load_ranks("cl100k_base")
    ours = Encoding("capture", pat_str=CAPTURE, mergeable_ranks=ranks, special_tokens={})
    oracle = tiktoken.Encoding("capture", pat_str=CAPTURE, mergeable_ranks=ranks, special_tokens={})
    # (tiktoken's own _encode_only_native_bpe uses findall and fails here: its Rust core is
    # the oracle)
    assert ours._encode_only_native_bpe(TEXT) == oracle.encode_ordinary(TEXT)
    assert ours.encode(TEXT) == oracle.encode(TEXT)


@pytest.mark.parametrize("pattern", [CAPTURE, NESTED])
def test_capturing_groups_in_regex_tokenizer_model_file_and_train_cli(pattern, tmp_path):
    tok = RegexTokenizer(pattern=pattern)
    tok.train(TEXT * 10, 280)
    assert tok.decode(tok.encode(TEXT)) == TEXT
    model, _ = tok.save(tmp_path / "cap")
    loaded = load_tokenizer(model)
    assert loaded.decode(loaded.encode(TEXT)) == TEXT
    assert loaded.to_tokenizer().decode(loaded.to_tokenizer().encode(TEXT)) == TEXT
    prefix = tmp_path / "cli"
    proc = run_cli("train", "--vocab-size", "280", "-o", str(prefix), "--pattern", pattern, TEXT)
    assert proc.returncode == 0, proc.stderr.decode()
    ids = run_cli("encode", "--model", str(prefix) + ".model", TEXT).stdout.decode().split()
    back = run_cli("decode", "--model", str(prefix) + ".model", *ids)
    assert back.stdout.decode() == TEXT


# ---------------------------------------------------------------------------- train atomic
def test_failed_train_leaves_tokenizer_unchanged(trained):
    tok = RegexTokenizer()
    tok.train(CORPUS, 270)
    tok.register_special_tokens({"<|end|>": 290})  # free now, a merge id after training to 300
    before = (dict(tok.merges), dict(tok.vocab), dict(tok.special_tokens), tok.encode(TEXT))
    with pytest.raises(MalformedVocabError, match="290"):
        tok.train(CORPUS, 300)
    after = (dict(tok.merges), dict(tok.vocab), dict(tok.special_tokens), tok.encode(TEXT))
    assert after == before
    with pytest.raises(DisallowedSpecialTokenError):
        tok.encode("a <|end|> b")


# ---------------------------------------------------------------------------- decode ids
@pytest.mark.parametrize("bad", [True, False, 1.0, 104.0, None, "104", b"h"])
@pytest.mark.parametrize("engine", ["fast", "spec"])
def test_decode_bytes_refuses_non_int_ids(trained, bad, engine):
    """``True == 1`` and ``hash(1.0) == hash(1)``: a dict lookup would silently decode them as
    ids 1 and 104; each decoder must name the bad position instead."""
    from verified_bpe.engine.tokenizer import Tokenizer

    identity = Tokenizer.from_ranks({bytes([b]): b for b in range(256)}, CAPTURE, engine=engine)
    assert identity.decode_bytes([104, 105]) == b"hi"
    from verified_bpe.api import minbpe

    port = minbpe.RegexTokenizer()
    port.train("hello world, hello there " * 5, 260)
    for tok in (identity, trained, port):
        with pytest.raises(InvalidArgumentError, match=r"ids\[1\]"):
            tok.decode_bytes([104, bad])
        with pytest.raises(InvalidArgumentError, match=r"ids\[1\]"):
            tok.decode([104, bad])


# ---------------------------------------------------------------------------- special ids
@pytest.mark.parametrize("bad", [-1, 1.5, None, "abc", True, False, 2**70 * 1.0, b"1"])
def test_register_special_tokens_refuses_non_int_ids(trained, bad):
    tok = RegexTokenizer()
    tok.train(CORPUS, 270)
    before = (dict(tok.special_tokens), tok.decode_bytes(range(270)))
    with pytest.raises(InvalidArgumentError, match="special token"):
        tok.register_special_tokens({"<|ok|>": 1000, "<|bad|>": bad})
    assert (dict(tok.special_tokens), tok.decode_bytes(range(270))) == before  # nothing added
    with pytest.raises(InvalidArgumentError):
        from verified_bpe.engine.tokenizer import Tokenizer

        Tokenizer.from_ranks({bytes([b]): b for b in range(256)}, CAPTURE, {"<|bad|>": bad})


def test_registered_ids_survive_save_and_load(tmp_path):
    tok = RegexTokenizer()
    tok.train(TEXT * 10, 270)
    tok.register_special_tokens({"<|a|>": 1000})
    model, _ = tok.save(tmp_path / "t")
    assert load_tokenizer(model).special_tokens == {"<|a|>": 1000}


# ---------------------------------------------------------------------------- .model bounds
def test_doubling_model_file_is_refused_quickly_with_line(tmp_path):
    merges = ["97 97"] + [f"{256 + k} {256 + k}" for k in range(39)]
    path = write_model_text(tmp_path / "double.model", "", merges)
    assert path.stat().st_size < 400  # the campaign's file had 331 bytes
    tracemalloc.start()
    try:
        with pytest.raises(MalformedModelError) as info:
            load_tokenizer(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert info.value.line is not None and 4 <= info.value.line <= 4 + 30
    assert str(path) in str(info.value)
    assert peak < 64 << 20


def test_linear_chain_model_memory_is_bounded(tmp_path):
    merges = ["97 97"] + [f"{256 + k} 97" for k in range(29_999)]
    path = write_model_text(tmp_path / "chain.model", "", merges)
    tracemalloc.start()
    try:
        with pytest.raises(MalformedModelError) as info:
            load_tokenizer(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert info.value.line is not None
    assert peak < 100 << 20  # was 460 MB


def test_huge_number_in_model_has_line_number(tmp_path):
    path = write_model_text(tmp_path / "big.model", "", ["97 97", "9" * 5000 + " 97"])
    with pytest.raises(MalformedModelError) as info:
        load_tokenizer(path)
    assert info.value.line == 5
    specials = "1\n<|x|> " + "7" * 4400 + "\n"
    special = write_model_text(tmp_path / "bigs.model", "", [], specials=specials)
    with pytest.raises(MalformedModelError) as info:
        load_tokenizer(special)
    assert info.value.line == 4


def test_bad_header_does_not_echo_the_file(tmp_path):
    path = tmp_path / "passwd"
    path.write_text("root:x:0:0:SECRETVALUE:/root:/bin/bash\n")
    with pytest.raises(MalformedModelError) as info:
        load_tokenizer(path)
    assert "SECRETVALUE" not in info.value.message and "root" not in info.value.message
    assert str(path) in str(info.value) and info.value.line == 1


# ---------------------------------------------------------------------------- patterns
def test_malformed_pattern_is_typed(tmp_path):
    with pytest.raises(PatternError):
        RegexTokenizer(pattern="(unclosed")
    path = write_model_text(tmp_path / "bad.model", "(unclosed", [])
    with pytest.raises(MalformedModelError) as info:
        load_tokenizer(path)
    assert info.value.line == 2 and str(path) in str(info.value)
    proc = run_cli("encode", "--model", str(path), "hello")
    assert_exit_1_one_line(proc, str(path))


def test_catastrophic_pattern_from_model_times_out(tmp_path, monkeypatch):
    from verified_bpe.engine import patterns

    monkeypatch.setattr(patterns, "PATTERN_TIMEOUT_BASE", 0.3)
    path = write_model_text(tmp_path / "slow.model", CATASTROPHIC, [])
    tok = load_tokenizer(path)
    start = time.monotonic()
    with pytest.raises(PatternTimeoutError) as info:
        returns_within(30, tok.encode, "a" * 3000)
    assert time.monotonic() - start < 10
    assert info.value.pattern == CATASTROPHIC and repr(CATASTROPHIC) in str(info.value)
    with pytest.raises(PatternTimeoutError):
        returns_within(30, tok.to_tokenizer().encode, "a" * 3000)
    with pytest.raises(PatternTimeoutError):
        returns_within(30, RegexTokenizer(pattern=CATASTROPHIC).train, "a" * 3000, 260)


def test_catastrophic_pattern_cli_is_one_line(tmp_path):
    path = write_model_text(tmp_path / "slow.model", CATASTROPHIC, [])
    proc = run_cli("encode", "--model", str(path), "a" * 3000)
    assert_exit_1_one_line(proc, "took more than")


# ---------------------------------------------------------------------------- files
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_fifo_is_refused_without_hanging(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    from verified_bpe.formats.gguf_vocab import read_gguf_vocab

    for reader in (read_gguf_vocab, load_tokenizer):
        with pytest.raises(NotRegularFileError) as info:
            returns_within(10, reader, str(fifo))
        assert str(fifo) in str(info.value) and "FIFO" in str(info.value)


def test_dev_null_as_gguf_and_model_names_the_file():
    from verified_bpe.formats.gguf_vocab import read_gguf_vocab

    for reader in (read_gguf_vocab, load_tokenizer):
        with pytest.raises(NotRegularFileError, match="/dev/null"):
            reader("/dev/null")
    assert_exit_1_one_line(run_cli("encode", "--gguf", "/dev/null", "x"), "/dev/null")


def test_missing_gguf_names_the_file(tmp_path):
    from verified_bpe.formats.gguf_vocab import read_gguf_vocab

    with pytest.raises(OSError) as info:
        read_gguf_vocab(tmp_path / "nope.gguf")
    assert info.value.filename is not None


def test_endless_input_is_bounded(monkeypatch, capsys):
    monkeypatch.setattr(cli, "MAX_INPUT_BYTES", 1 << 20)
    code = cli.main(["encode", "--file", "/dev/zero"], stdin=BytesIO(), stdout=BytesIO())
    assert code == 1
    assert "/dev/zero" in capsys.readouterr().err
    code = cli.main(["decode"], stdin=BytesIO(b"1 " * (1 << 20)), stdout=BytesIO())
    assert code == 1


# ---------------------------------------------------------------------------- CLI
@pytest.mark.parametrize("word", ["abc", "1_0", "-1", "+1", "１", "٣", "1e3", "0x10", "9" * 5000])
def test_decode_rejects_non_decimal_ids_exit_1(word):
    out = BytesIO()
    assert cli.main(["decode", "12", word], stdin=BytesIO(), stdout=out) == 1
    assert cli.main(["decode"], stdin=BytesIO(f"12 {word}".encode()), stdout=out) == 1
    assert cli.main(["decode", "--stream"], stdin=BytesIO(f"12 {word}\n".encode()), stdout=out) == 1


def test_decode_stream_with_trained_model(trained, tmp_path):
    model, _ = trained.save(tmp_path / "t")
    ids = trained.encode("hello world")
    out = BytesIO()
    line = " ".join(map(str, ids)).encode() + b"\n"
    argv = ["decode", "--stream", "--model", str(model)]
    assert cli.main(argv, stdin=BytesIO(line), stdout=out) == 0
    assert out.getvalue().decode() == "hello world"


def test_decode_non_numeric_subprocess_exit_1():
    assert_exit_1_one_line(run_cli("decode", "12", "abc"), "abc")
    assert_exit_1_one_line(run_cli("decode", "1_0"), "1_0")


def test_doubling_model_cli_is_one_line(tmp_path):
    merges = ["97 97"] + [f"{256 + k} {256 + k}" for k in range(59)]
    path = write_model_text(tmp_path / "double.model", "", merges)
    assert_exit_1_one_line(run_cli("encode", "--model", str(path), "x"), str(path), "line")


def test_every_error_is_a_bpe_error():
    for cls in (InvalidArgumentError, NotRegularFileError, PatternError, PatternTimeoutError):
        assert issubclass(cls, BpeError) and issubclass(cls, ValueError)


# ============================================================================ issue 26
# Second campaign (hostile use of the drop-in).  Oracles: tiktoken 0.14 built from the real
# cl100k table, minbpe's documented behaviour, the CLI's own stdin path.
KIMI_STYLE = "|".join(
    [
        r"[\p{Han}]+",
        r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]*"
        r"[\p{Ll}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
        r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]+"
        r"[\p{Ll}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
        r"\p{N}{1,3}",
        r" ?[^\s\p{L}\p{N}]+[\r\n]*",
        r"\s*[\r\n]+",
        r"\s+(?!\S)",
        r"\s+",
    ]
)
RUST_TEXTS = ["Hello 世界 abc\n", "aa\n", "ab ab\n", "x  \n", "Straße ǅ 12345\n", "a{e<=1}b"]


def tiktoken_pair(pattern: str, specials: dict[str, int] | None = None):  # noqa: ANN201
    tiktoken = pytest.importorskip("tiktoken")
    from verified_bpe.api.encoding import Encoding
    from verified_bpe.engine.vocab import load_ranks

    ranks = load_ranks("cl100k_base")
    kwargs = {"pat_str": pattern, "mergeable_ranks": ranks, "special_tokens": specials or {}}
    return Encoding("t", **kwargs), tiktoken.Encoding("t", **kwargs)


@pytest.mark.parametrize(
    "pattern",
    [
        KIMI_STYLE,  # Rust class intersection (Kimi K2 / Moonlight)
        r"a+$|.|\n",  # Rust: end of text only
        r"a+\Z|.|\n",  # fancy-regex: end, or before a final newline
        r"[\w--\d]+|.|\n",  # difference
        r"[[:alpha:]]+|.|\n",  # ASCII class in Rust
        r"[a[bc]]+|.|\n",  # nested class
        r"\x{61}+|.|\n",  # hex escape with braces
        r"(?:ab){e<=1}|.|\n",  # literal braces in Rust, fuzzy match in regex
    ],
)
def test_rust_syntax_patterns_split_as_tiktoken(pattern):
    ours, oracle = tiktoken_pair(pattern)
    for text in RUST_TEXTS:
        assert ours.encode(text) == oracle.encode(text), text
        assert ours.decode(ours.encode(text)) == oracle.decode(oracle.encode(text))


@pytest.mark.parametrize("pattern", [r"(?R)a$|.", r"(?|a)|.", r"(a(?1)?b)|."])
def test_rust_constructs_we_cannot_translate_are_refused_by_name(pattern):
    from verified_bpe.api.encoding import Encoding

    with pytest.raises(PatternError) as info:
        Encoding("t", pat_str=pattern, mergeable_ranks={b"a": 0}, special_tokens={})
    assert pattern[:4] in str(info.value) or "flag" in str(info.value)


def test_unicode_sensitive_custom_pattern_refuses_newer_characters():
    from verified_bpe.errors import PatternUnicodeError

    ours, oracle = tiktoken_pair(CAPTURE)
    assert ours.encode("it's a\u00e9") == oracle.encode("it's a\u00e9")
    with pytest.raises(PatternUnicodeError, match="U\\+0558"):
        ours.encode("a\u0558")  # \w: regex's tables say letter, tiktoken's do not


@pytest.mark.parametrize("text", ["hello\u0558", "hello world\ua7ce", "x\u088f"])
def test_encode_with_unstable_keeps_stable_tokens_on_new_code_points(text):
    from verified_bpe.engine.patterns import CL100K_PATTERN

    ours, oracle = tiktoken_pair(CL100K_PATTERN, {"<|endoftext|>": 100257})
    stable, completions = ours.encode_with_unstable(text)
    want_stable, want_completions = oracle.encode_with_unstable(text)
    assert stable == want_stable
    assert sorted(map(tuple, completions)) == sorted(map(tuple, want_completions))


@pytest.mark.parametrize(
    ("ranks_extra", "specials", "error"),
    [
        ({b"zz": -1}, {}, OverflowError),
        ({b"zz": 2**40}, {}, OverflowError),
        ({b"zz": 3000.0}, {}, TypeError),
        ({"zz": 3000}, {}, TypeError),
        ({7: 3000}, {}, TypeError),
        ({}, {"<|x|>": -5}, OverflowError),
        ({}, {"<|x|>": 1.5}, TypeError),
        ({}, {b"<|x|>": 5000}, TypeError),
    ],
)
def test_encoding_constructor_refuses_bad_tables_as_tiktoken(ranks_extra, specials, error):
    tiktoken = pytest.importorskip("tiktoken")
    from verified_bpe.api.encoding import Encoding

    ranks = {bytes([b]): b for b in range(256)} | ranks_extra
    kwargs = {"pat_str": r"(?s:.)", "mergeable_ranks": ranks, "special_tokens": specials}
    with pytest.raises(error):
        tiktoken.Encoding("t", **kwargs)
    with pytest.raises(error):
        Encoding("t", **kwargs)


def test_encoding_copies_the_callers_tables():
    from verified_bpe.api.encoding import Encoding

    ranks = {bytes([b]): b for b in range(256)}
    specials = {"<|x|>": 300}
    enc = Encoding("t", pat_str=r"(?s:.)", mergeable_ranks=ranks, special_tokens=specials)
    ranks[b"ab"] = 256
    del ranks[b"a"]
    specials["<|y|>"] = 301
    assert enc.encode_single_token(b"a") == 97  # tiktoken's core keeps its own copy
    with pytest.raises(KeyError):
        enc.encode_single_token(b"ab")
    assert enc.special_tokens_set == {"<|x|>"}
    assert enc.decode_single_token_bytes(97) == b"a"


def test_encoding_duplicate_ranks_are_a_typed_error_not_a_panic():
    from verified_bpe.api.encoding import Encoding

    with pytest.raises(MalformedVocabError, match="share rank 1"):
        Encoding("t", pat_str=".", mergeable_ranks={b"a": 1, b"b": 1}, special_tokens={})


@pytest.mark.parametrize(
    "call",
    [
        lambda e: e.encode(None),
        lambda e: e.encode(b"bytes"),
        lambda e: e.encode_ordinary(5),
        lambda e: e.encode_with_unstable(None),
        lambda e: e.encode_to_numpy(None),
        lambda e: e.encode_batch(["ok", None]),
        lambda e: e.encode_ordinary_batch([b"x"]),
        lambda e: e._encode_single_piece(None),
        lambda e: e._encode_only_native_bpe(None),
        lambda e: e._encode_bytes("text"),
        lambda e: e.encode_single_token(None),
    ],
)
def test_non_str_text_is_a_type_error_like_tiktoken(call):
    from verified_bpe.engine.patterns import CL100K_PATTERN

    ours, oracle = tiktoken_pair(CL100K_PATTERN)
    with pytest.raises(TypeError):
        call(oracle)
    with pytest.raises(TypeError):
        call(ours)


def test_own_classes_raise_type_errors_for_wrong_types(trained):
    from verified_bpe.engine.tokenizer import Tokenizer

    identity = Tokenizer.from_ranks({bytes([b]): b for b in range(256)}, CAPTURE)
    for call in (
        lambda: identity.decode([None]),
        lambda: identity.encode(None),
        lambda: identity.encode_ordinary(b"x"),
        lambda: trained.decode([1.0]),
        lambda: trained.encode(None),
        lambda: trained.encode_ordinary(3),
    ):
        with pytest.raises(TypeError):
            call()
        with pytest.raises(InvalidArgumentError):  # and still the typed error it was
            call()


# ---------------------------------------------------------------------------- minbpe semantics
def test_minbpe_get_stats_accumulates_into_counts():
    from verified_bpe.api.minbpe import get_stats

    counts: dict[tuple[int, int], int] = {(9, 9): 1, (1, 2): 1}
    out = get_stats([1, 2, 1, 2, 3], counts)  # minbpe: counts updated in place and returned
    assert out is counts
    assert counts == {(9, 9): 1, (1, 2): 3, (2, 1): 1, (2, 3): 1}
    assert list(counts) == [(9, 9), (1, 2), (2, 1), (2, 3)]
    assert get_stats([5, 6, 5, 6]) == {(5, 6): 2, (6, 5): 1}


@pytest.mark.parametrize("module", ["train", "minbpe"])
def test_reregistered_special_id_is_freed(module):
    from verified_bpe.api import minbpe, train

    tok = {"train": train, "minbpe": minbpe}[module].RegexTokenizer()
    tok.train(TEXT * 10, 270)
    tok.register_special_tokens({"<|a|>": 300})
    tok.register_special_tokens({"<|a|>": 301})
    tok.register_special_tokens({"<|b|>": 300})  # 300 is free again
    assert tok.decode([300]) == "<|b|>"
    if module == "train":  # the package's classes add
        assert tok.special_tokens == {"<|a|>": 301, "<|b|>": 300}
        assert tok.decode([301]) == "<|a|>"
    else:  # minbpe's register_special_tokens replaces the whole set
        assert tok.special_tokens == {"<|b|>": 300}
        with pytest.raises(UnknownTokenError):
            tok.decode([301])


@pytest.mark.parametrize("module", ["train", "minbpe"])
def test_allowed_special_naming_an_absent_token_is_ignored(module):
    from verified_bpe.api import minbpe, train

    tok = {"train": train, "minbpe": minbpe}[module].RegexTokenizer()
    tok.train(TEXT * 10, 270)
    tok.register_special_tokens({"<|a|>": 300})
    assert tok.encode("x<|a|>", allowed_special={"<|a|>", "<|absent|>"}) == [*tok.encode("x"), 300]


def test_minbpe_none_raise_is_an_assertion_error_as_in_minbpe():
    from verified_bpe.api import minbpe

    tok = minbpe.RegexTokenizer()
    tok.register_special_tokens({"<|a|>": 300})
    with pytest.raises(AssertionError):
        tok.encode("x<|a|>")
    with pytest.raises(DisallowedSpecialTokenError):
        tok.encode("x<|a|>")


def test_save_refuses_what_load_would_refuse(tmp_path):
    tok = RegexTokenizer()
    tok.train(TEXT * 10, 270)
    tok.register_special_tokens({"<|big|>": 10**19})  # more digits than a .model id may have
    with pytest.raises(InvalidArgumentError, match="load back"):
        tok.save(tmp_path / "t")
    assert not (tmp_path / "t.model").exists()


def test_gpt4_model_file_is_refused_by_plain_loaders(tmp_path):
    from verified_bpe.api.minbpe import GPT4Tokenizer

    gpt4 = GPT4Tokenizer()
    model, _ = gpt4.save(tmp_path / "gpt4")
    with pytest.raises(MalformedModelError, match="GPT4Tokenizer") as info:
        load_tokenizer(model)
    assert info.value.line == 1
    assert_exit_1_one_line(run_cli("encode", "--model", str(model), "hello"), "GPT4Tokenizer")
    loaded = GPT4Tokenizer()
    loaded.load(model)
    assert loaded.encode("hello world") == gpt4.encode("hello world")


# ---------------------------------------------------------------------------- CLI
def test_invalid_utf8_argument_is_refused_as_on_stdin():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "python"), env.get("PYTHONPATH")]))
    bad = b"a\xffb"
    on_stdin = run_cli("encode", stdin=bad)
    assert_exit_1_one_line(on_stdin, "UTF-8")
    proc = subprocess.run(
        [sys.executable.encode(), b"-m", b"verified_bpe", b"encode", bad],
        capture_output=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )
    assert_exit_1_one_line(proc, "UTF-8")
    for argv in (
        [b"train", b"--vocab-size", b"260", b"--pattern", bad, b"-o", b"/dev/null", b"x"],
        [b"encode", b"--allowed-special", bad, b"x"],
    ):
        proc = subprocess.run(
            [sys.executable.encode(), b"-m", b"verified_bpe", *argv],
            capture_output=True,
            env=env,
            cwd=ROOT,
            timeout=120,
        )
        assert_exit_1_one_line(proc, "UTF-8")


def test_closed_stdout_is_one_line_not_a_traceback():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "python"), env.get("PYTHONPATH")]))
    proc = subprocess.run(
        [sys.executable, "-m", "verified_bpe", "encode", "hello"],
        capture_output=False,
        stdout=None,
        stderr=subprocess.PIPE,
        env=env,
        cwd=ROOT,
        timeout=120,
        preexec_fn=lambda: os.close(1),
    )
    err = proc.stderr.decode()
    assert proc.returncode == 1 and "Traceback" not in err and "stdout" in err, err


# ---------------------------------------------------------------------------- submodules
def test_tiktoken_submodules_import_under_the_tiktoken_name():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "python"), env.get("PYTHONPATH")]))
    code = (
        "import sys, verified_bpe; sys.modules['tiktoken'] = verified_bpe\n"
        "from tiktoken.load import load_tiktoken_bpe\n"
        "from tiktoken.model import MODEL_TO_ENCODING, MODEL_PREFIX_TO_ENCODING\n"
        "from tiktoken.core import Encoding\n"
        "import tiktoken.registry\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()
