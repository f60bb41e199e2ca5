"""Fuzzing every entry point with inputs mutated from valid ones (issue 12).

Property everywhere: a typed error (a :class:`~verified_bpe.errors.BpeError`; for the CLI exit
1 with one line on stderr, or 2 for a usage error) or the right result, checked against an
oracle that is not the code under test: the text itself (roundtrip), the ``regex`` module
run directly (whole matches), a plain ``dict`` decoder built from tiktoken's rank file, and
tiktoken.  Every case is bounded in time (``CASE_SECONDS``) and the ``.model`` cases in
memory (``tracemalloc``).  Runs are derandomized, so the counts printed at the end of the
run (``fuzz: ...`` lines) and quoted in docs/fuzzing.md are reproducible;
``VERIFIED_BPE_FUZZ_SCALE=10`` runs ten times as many cases.
"""

from __future__ import annotations

import contextlib
import io
import os
import time
import tracemalloc
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path

import pytest
import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import UNICODE_SNIPPETS
from oracles import gguf_metadata, gpt2_token_bytes
from verified_bpe import cli
from verified_bpe.api.train import BasicTokenizer, RegexTokenizer, load_tokenizer
from verified_bpe.engine import patterns
from verified_bpe.errors import (
    BpeError,
    MalformedModelError,
    PatternError,
    PatternTimeoutError,
    UnknownTokenError,
)
from verified_bpe.formats.model_io import format_model, parse_model
from verified_bpe.formats.streaming import StreamingDecoder

CASE_SECONDS = 20.0


#: ``VERIFIED_BPE_FUZZ_SCALE=10`` multiplies every example count (a longer run by hand).
SCALE = int(os.environ.get("VERIFIED_BPE_FUZZ_SCALE", "1"))


def fuzz(max_examples: int) -> settings:
    """Derandomized (reproducible counts), no deadline (cases are bounded by ``bounded``)."""
    return settings(
        max_examples=max_examples * SCALE,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )


SAMPLE = "Hello, world! It's 2024; naïve 日本語 😀\n\tdef f(x): return x**2  # ok"
SNIPPETS = [*UNICODE_SNIPPETS, "a", "aa", " ", "x1", "'s", "<|"]
texts = st.lists(st.sampled_from(SNIPPETS), max_size=12).map("".join)


@contextlib.contextmanager
def bounded(seconds: float = CASE_SECONDS) -> Iterator[None]:
    start = time.monotonic()
    yield
    assert time.monotonic() - start < seconds, "case took too long"


@contextlib.contextmanager
def short_pattern_budget() -> Iterator[None]:
    """Untrusted patterns get 0.2 s + 50 us/char here (1 s in production) to keep runs short."""
    saved = patterns.PATTERN_TIMEOUT_BASE
    patterns.PATTERN_TIMEOUT_BASE = 0.2
    try:
        yield
    finally:
        patterns.PATTERN_TIMEOUT_BASE = saved


def typed(fn: Callable[[], object]) -> tuple[bool, object]:
    """``(True, result)`` or ``(False, error)`` for a BpeError; anything else propagates."""
    try:
        return True, fn()
    except BpeError as exc:
        return False, exc


def whole_matches(pattern: str, text: str) -> str:
    """Oracle: the concatenated whole matches, with the ``regex`` module directly."""
    return "".join(m.group(0) for m in regex.finditer(pattern, text, timeout=5))


# ---------------------------------------------------------------------------- .model
@cache
def valid_model_text() -> str:
    tok = RegexTokenizer()
    tok.train(Path(__file__).read_text(encoding="utf-8"), 320)
    tok.register_special_tokens({"<|endoftext|>": 1000, "<|fim prefix|>": 1001})
    return format_model(tok_data(tok))


def tok_data(tok: BasicTokenizer):  # noqa: ANN201
    from verified_bpe.formats.model_io import ModelData

    return ModelData(tok.pattern, tok.special_tokens, tok.merges)


NASTY_WORDS = st.sampled_from(
    [
        "",
        " ",
        "-1",
        "1_0",
        "+5",
        "١٢",
        "１",
        "9" * 30,
        "9" * 5000,
        "0x1f",
        "1e9",
        "256 256",
        "255 255 255",
        "\x00",
        "\x85",
        "\r",
    ]
)


@st.composite
def mutated_model(draw: st.DrawFn) -> tuple[bytes, str]:
    lines = valid_model_text().split("\n")[:-1]
    kinds = []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(
            st.sampled_from(
                [
                    "replace",
                    "delete",
                    "duplicate",
                    "swap",
                    "insert",
                    "doubling",
                    "pattern",
                    "count",
                    "header",
                    "bytes",
                    "truncate",
                    "special",
                    "special",
                    "pattern",
                ]
            )
        )
        kinds.append(kind)
        i = draw(st.integers(0, len(lines) - 1))
        if kind == "replace":
            lines[i] = draw(
                st.one_of(
                    NASTY_WORDS,
                    st.text(max_size=20),
                    st.tuples(st.integers(-5, 400), st.integers(-5, 400)).map(
                        lambda p: f"{p[0]} {p[1]}"
                    ),
                )
            )
        elif kind == "delete" and len(lines) > 1:
            del lines[i]
        elif kind == "duplicate":
            lines.insert(i, lines[i])
        elif kind == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == "insert":
            lines.insert(i, draw(NASTY_WORDS))
        elif kind == "doubling":
            n = 256 + len(lines) - 5
            lines += [f"{n + k} {n + k}" for k in range(draw(st.integers(1, 60)))]
        elif kind == "special":
            token = draw(st.sampled_from(["<|x|>", "a", " ", "é", "<|endoftext|>", "a b"]))
            idx = draw(st.one_of(NASTY_WORDS, st.integers(0, 2000).map(str)))
            lines[3 + draw(st.integers(0, 1))] = f"{token} {idx}"
        elif kind == "pattern":
            lines[1] = draw(pattern_strings())
        elif kind == "count":
            lines[2] = draw(st.one_of(NASTY_WORDS, st.integers(0, 10**6).map(str)))
        elif kind == "header":
            lines[0] = draw(st.sampled_from(["", "minbpe v2", "root:x:0:0:SECRET", "MINBPE V1"]))
    data = ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")
    if "bytes" in kinds:
        raw = bytearray(data)
        for _ in range(draw(st.integers(1, 4))):
            raw[draw(st.integers(0, len(raw) - 1))] = draw(st.integers(0, 255))
        data = bytes(raw)
    if "truncate" in kinds:
        data = data[: draw(st.integers(0, len(data)))]
    return data, "+".join(kinds)


@fuzz(150)
@given(case=mutated_model())
def test_fuzz_model_files(case, tmp_path, tally):
    data, kinds = case
    path = tmp_path / "fuzz.model"
    path.write_bytes(data)
    tracemalloc.start()
    try:
        with bounded(), short_pattern_budget():
            ok, got = typed(lambda: load_tokenizer(path))
            peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < (32 << 20) + 512 * len(data), (peak, kinds)
    if not ok:
        assert str(path) in str(got)  # names the file
        assert "SECRET" not in getattr(got, "message", "")  # never echoes a bad header
        tally("fuzz: .model files -> typed error")
        return
    tally("fuzz: .model files -> loaded")
    tok = got
    reparsed = parse_model(data.decode("utf-8"))
    assert parse_model(format_model(tok_data(tok))) == reparsed  # save/load is exact
    with bounded(), short_pattern_budget():
        ok, ids = typed(lambda: tok.encode_ordinary(SAMPLE))
        if ok:
            expected = whole_matches(tok.pattern, SAMPLE) if tok.pattern else SAMPLE
            assert tok.decode(ids) == expected
        else:
            assert isinstance(ids, PatternTimeoutError)


@fuzz(30)
@given(
    cut=st.integers(0, 4000),
    flips=st.lists(st.tuples(st.integers(0, 4000), st.integers(0, 255)), max_size=3),
)
def test_fuzz_vocab_files_are_not_models(cut, flips, tmp_path, tally):
    """``.vocab`` is for people; loading it (mutated or not) as a model is a typed error."""
    model_text = valid_model_text()
    data = bytearray(_vocab_text(model_text).encode("utf-8"))
    for pos, value in flips:
        data[pos % len(data)] = value
    path = tmp_path / "fuzz.vocab"
    path.write_bytes(bytes(data[: cut % (len(data) + 1)]))
    with bounded(), pytest.raises(MalformedModelError):
        load_tokenizer(path)
    tally("fuzz: .vocab files -> typed error")


@cache
def _vocab_text(model_text: str) -> str:
    from verified_bpe.formats.model_io import format_vocab
    from verified_bpe.spec.seed.well_formed import build_vocab

    data = parse_model(model_text)
    return format_vocab(data.merges, build_vocab(data.merges), data.special_tokens)


# ---------------------------------------------------------------------------- patterns
PATTERN_ATOMS = [
    r"\w+",
    r"\s+",
    r"\d",
    r"\p{L}+",
    r"\p{N}{1,3}",
    r"[^\s\p{L}\p{N}]+",
    ".",
    r"'s",
    " ?",
    r"(?i:ab)",
    "a",
    r"\S",
    r"[a-z]*",
    r"\b",
    "$",
    "^",
    r"(?=\s)",
    r"(?!\S)",
    r"\1",
    "(?P<n>x)",
    "(",
    ")",
    "[",
    "]",
    "{2,1}",
    "*",
    "+?",
    "++",
    "|",
    r"\p{Nope}",
    r"(?<=a)",
    r"\w*\w*\w*X",
]


@st.composite
def pattern_strings(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.sampled_from(PATTERN_ATOMS), min_size=1, max_size=8))
    out = []
    for part in parts:
        wrap = draw(st.sampled_from(["", "group", "nested", "noncap", "alt", "quant"]))
        if wrap == "group":
            part = f"({part})"
        elif wrap == "nested":
            part = f"(({part})|({part}))"
        elif wrap == "noncap":
            part = f"(?:{part})"
        elif wrap == "alt":
            part = "|" + part
        elif wrap == "quant":
            part = part + draw(st.sampled_from(["*", "+", "?", "{1,3}", "*+", "?+"]))
        out.append(part)
    return "".join(out)


@cache
def byte_ranks() -> dict[bytes, int]:
    from verified_bpe.engine.vocab import load_ranks

    return {t: r for t, r in load_ranks("cl100k_base").items() if r < 2000}


@fuzz(150)
@given(pattern=pattern_strings(), text=texts, total=st.booleans())
def test_fuzz_patterns(pattern, text, total, tally):
    """Any pattern: PatternError at construction, PatternTimeoutError while splitting, or ids
    that decode to exactly the whole matches (the text itself when a catch-all branch is
    added)."""
    from verified_bpe.engine.tokenizer import Tokenizer

    if total:
        pattern = f"(?:{pattern})|[\\s\\S]"
    with bounded(), short_pattern_budget():
        ok, tok = typed(lambda: Tokenizer.from_ranks(byte_ranks(), pattern))
        if not ok:
            assert isinstance(tok, PatternError) and tok.pattern == pattern
            tally("fuzz: patterns -> PatternError")
            return
        ok, ids = typed(lambda: tok.encode_ordinary(text))
    if not ok:
        assert isinstance(ids, PatternTimeoutError)
        tally("fuzz: patterns -> PatternTimeoutError")
        return
    expected = whole_matches(pattern, text)
    assert tok.decode(ids) == expected
    if total:
        assert expected == text
    tally("fuzz: patterns -> whole matches")


@fuzz(40)
@given(pattern=pattern_strings(), text=texts, size=st.integers(256, 300))
def test_fuzz_train_with_patterns(pattern, text, size, tally):
    with bounded(), short_pattern_budget():
        ok, tok = typed(lambda: RegexTokenizer(pattern=pattern))
        if ok:
            ok, tok = typed(lambda: (tok.train(text * 3, size), tok)[1])
    if not ok:
        assert isinstance(tok, PatternError)
        tally("fuzz: train patterns -> typed error")
        return
    assert tok.check_well_formed().ok
    assert tok.decode(tok.encode_ordinary(text)) == whole_matches(pattern, text)
    tally("fuzz: train patterns -> trained")


# ---------------------------------------------------------------------------- decode / stream
@cache
def oracle_decoder() -> dict[int, bytes]:
    """A plain dict from tiktoken's rank file (plus cl100k's special tokens)."""
    from verified_bpe.engine.vocab import encoding_spec, load_ranks

    out = {rank: token for token, rank in load_ranks("cl100k_base").items()}
    out.update({i: t.encode() for t, i in encoding_spec("cl100k_base").special_tokens.items()})
    return out


@cache
def cl100k():  # noqa: ANN201
    from verified_bpe.engine.tokenizer import Tokenizer

    return Tokenizer.from_tiktoken("cl100k_base")


ids_strategy = st.lists(
    st.one_of(
        st.integers(0, 300),  # single bytes: partial UTF-8 sequences
        st.integers(0, 100_300),
        st.sampled_from([100_256, 100_257, 100_276, 100_277, -1, 2**31, 2**64, 10**30]),
        st.integers(),
    ),
    max_size=30,
)


@fuzz(200)
@given(ids=ids_strategy)
def test_fuzz_decode(ids, tally):
    decoder = oracle_decoder()
    with bounded():
        ok, got = typed(lambda: cl100k().decode_bytes(ids))
    if all(i in decoder for i in ids):
        assert ok and got == b"".join(decoder[i] for i in ids)
        tally("fuzz: decode ids -> bytes")
    else:
        assert isinstance(got, UnknownTokenError)
        assert got.token_id == next(i for i in ids if i not in decoder)
        tally("fuzz: decode ids -> UnknownTokenError")


@fuzz(200)
@given(ids=ids_strategy)
def test_fuzz_streaming_decoder(ids, tally):
    """Unknown ids raise and change nothing; the rest streams to the batch decode."""
    decoder = oracle_decoder()
    stream = StreamingDecoder(cl100k())
    out, good = [], []
    with bounded():
        for token_id in ids:
            pending = stream.pending
            ok, piece = typed(lambda t=token_id: stream.feed(t))
            if ok:
                out.append(piece)
                good.append(token_id)
            else:
                assert isinstance(piece, UnknownTokenError) and stream.pending == pending
                tally("fuzz: streaming ids -> UnknownTokenError")
        out.append(stream.flush())
    expected = b"".join(decoder[i] for i in good).decode("utf-8", errors="replace")
    assert "".join(out) == expected
    tally("fuzz: streaming sequences -> batch text")


# ---------------------------------------------------------------------------- GGUF
@cache
def small_gguf(tmp: str) -> bytes:
    gguf = pytest.importorskip("gguf")
    from verified_bpe.formats.gguf_vocab import bytes_to_token_text
    from verified_bpe.spec.seed.decompose import recover_merges

    ranks = {t: r for t, r in byte_ranks().items() if r < 400}
    by_id = {r: t for t, r in ranks.items()}
    merges = sorted(recover_merges(ranks).items(), key=lambda item: item[1])
    path = Path(tmp) / "small.gguf"
    writer = gguf.GGUFWriter(str(path), arch="llama")
    writer.add_string("tokenizer.ggml.model", "gpt2")
    writer.add_string("tokenizer.ggml.pre", "llama-bpe")
    writer.add_array("tokenizer.ggml.tokens", [bytes_to_token_text(by_id[i]) for i in range(400)])
    writer.add_array(
        "tokenizer.ggml.merges",
        [
            f"{bytes_to_token_text(by_id[a])} {bytes_to_token_text(by_id[b])}"
            for (a, b), _ in merges
        ],
    )
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path.read_bytes()


@cache
def small_gguf_oracle():
    """tiktoken on the ranks and pattern :func:`small_gguf` writes (``llama-bpe``)."""
    import tiktoken

    ranks = {t: r for t, r in byte_ranks().items() if r < 400}
    return tiktoken.Encoding(
        "small-gguf", pat_str=patterns.LLAMA3_PATTERN, mergeable_ranks=ranks, special_tokens={}
    )


@fuzz(100)
@given(data=st.data())
def test_fuzz_gguf(data, tmp_path_factory, tally):
    """Mutations aimed at the structure: 8-byte counts and lengths set to huge or small
    values, bytes flipped in the header, cuts, garbage appended.  A file that reads must
    hold what an independent reader of the format finds (model, pre, tokens, merges), and
    if the tokenizer's keys are the original ones, encode as tiktoken on the same ranks."""
    from verified_bpe.formats.gguf_vocab import read_gguf_vocab, tokenizer_from_gguf

    raw = bytearray(small_gguf(str(tmp_path_factory.getbasetemp())))
    for _ in range(data.draw(st.integers(1, 3))):
        kind = data.draw(st.sampled_from(["u64", "flip", "cut", "append"]))
        if kind == "u64" and len(raw) >= 8:
            pos = data.draw(st.integers(0, len(raw) - 8))
            value = data.draw(st.sampled_from([0, 1, 2**31, 2**63, 2**64 - 1, len(raw)]))
            raw[pos : pos + 8] = value.to_bytes(8, "little")
        elif kind == "flip":
            pos = data.draw(st.integers(0, min(len(raw), 512) - 1))
            raw[pos] = data.draw(st.integers(0, 255))
        elif kind == "cut":
            del raw[data.draw(st.integers(0, len(raw))) :]
        else:
            raw += data.draw(st.binary(max_size=64))
        if not raw:
            break
    path = tmp_path_factory.mktemp("g") / "fuzz.gguf"
    path.write_bytes(bytes(raw))
    with bounded():
        ok, tok = typed(lambda: tokenizer_from_gguf(path))
    if not ok:
        assert str(path) in str(tok)
        tally("fuzz: GGUF bytes -> typed error")
        return
    # what was read is what the format says the file holds (tests/oracles.py's reader)
    vocab = read_gguf_vocab(path)
    meta = gguf_metadata(bytes(raw))  # the strings ours read must be UTF-8: .decode() checks
    assert vocab.model == meta[b"tokenizer.ggml.model"].decode()
    assert vocab.pre == (meta.get(b"tokenizer.ggml.pre", b"").decode() or "default")
    assert list(vocab.tokens) == [token.decode() for token in meta[b"tokenizer.ggml.tokens"]]
    lines = [line.decode() for line in meta[b"tokenizer.ggml.merges"]]
    assert [tuple(map(gpt2_token_bytes, line.split(" "))) for line in lines] == list(vocab.merges)
    with bounded():
        ok, ids = typed(lambda: tok.encode_ordinary(SAMPLE))
    if ok:
        assert tok.decode(ids) == SAMPLE
    original = gguf_metadata(small_gguf(str(tmp_path_factory.getbasetemp())))
    if all(meta.get(key) == original[key] for key in original):
        # the tokenizer's keys were not touched: the ids are tiktoken's on the same ranks
        assert ok and ids == small_gguf_oracle().encode_ordinary(SAMPLE)
        tally("fuzz: GGUF bytes -> read, tokenizer intact, ids = tiktoken")
    tally("fuzz: GGUF bytes -> read = independent reader")


# ---------------------------------------------------------------------------- CLI
WORDS = st.sampled_from(
    [
        "12",
        "0",
        "100257",
        "1_0",
        "-1",
        "abc",
        "١",
        "9" * 40,
        "[1,",
        "2]",
        ",",
        "--json",
        "--bytes",
        "--stream",
        "--ordinary",
        "--allowed-special",
        "all",
        "<|endoftext|>",
        "--encoding",
        "o200k_base",
        "p50k",
        "--engine",
        "spec",
        "turbo",
        "--file",
        "/dev/null",
        "/nonexistent",
        "/",
        "--gguf",
        "--model",
        "--vocab-size",
        "300",
        "255",
        "x",
        "--pattern",
        "(",
        "gpt2",
        "-o",
        "héllo",
        "a<|endoftext|>b",
        "",
    ]
)


def run_main(
    argv: list[str], stdin: bytes, capsys: pytest.CaptureFixture[str]
) -> tuple[int, bytes, str]:
    out = io.BytesIO()
    try:
        code = cli.main(argv, stdin=io.BytesIO(stdin), stdout=out)
    except SystemExit as exc:  # argparse: usage error (2) or --help (0)
        code = int(exc.code or 0)
    err = capsys.readouterr().err
    return code, out.getvalue(), err


@fuzz(120)
@given(
    command=st.sampled_from(["encode", "decode", "train"]),
    words=st.lists(WORDS, max_size=6),
    stdin=st.sampled_from([b"", b"1 2 3", b"hello", b"\xff\xfe", b"12 abc", b"[1, 2]"]),
    size=st.sampled_from([[], ["--vocab-size", "260"], ["--vocab-size", "٢٦٠"]]),
)
def test_fuzz_cli(command, words, stdin, size, capsys, tmp_path, tally):
    argv = [command, *words]
    if command == "train":
        argv = [command, *words[-2:], "-o", str(tmp_path / "t"), *size]
    with bounded(), short_pattern_budget():
        code, out, err = run_main(argv, stdin, capsys)
    assert code in (0, 1, 2), (argv, code)
    assert "Traceback" not in err
    if code == 1:
        assert len(err.strip().splitlines()) == 1 and "error:" in err, (argv, err)
    tally(f"fuzz: CLI {command} -> exit {code}")
    if code != 0 or not _plain(argv):
        return
    if command == "train":
        load_tokenizer(tmp_path / "t.model")  # what train writes, load reads
    args = cli.build_parser().parse_known_args(argv)[0]
    if command == "decode" and not args.stream:
        ids = cli.parse_ids(args.ids or [stdin.decode("ascii")])
        data = b"".join(oracle_decoder()[i] for i in ids)
        assert out == (data if args.bytes else data.decode("utf-8", "replace").encode())
    elif command == "encode" and args.text is not None and not args.allowed_special:
        pytest.importorskip("tiktoken")
        from verified_bpe.engine.vocab import tiktoken_encoding

        enc = tiktoken_encoding("cl100k_base")
        expected = enc.encode_ordinary(args.text) if args.ordinary else enc.encode(args.text)
        assert cli.parse_ids([out.decode()]) == expected


def _plain(argv: list[str]) -> bool:
    """cl100k_base (the oracle's vocabulary) and no file options."""
    return not {"--encoding", "--gguf", "--model", "--file"} & set(argv)


def test_fuzz_cli_decode_stdin_matches_oracle(capsys):
    """Ids split over many lines and chunks (``decode --stream`` reads 64 KiB at a time)."""
    ids = list(range(0, 100_000, 7))
    payload = "\n".join(" ".join(map(str, ids[k : k + 50])) for k in range(0, len(ids), 50))
    expected = b"".join(oracle_decoder()[i] for i in ids).decode("utf-8", "replace").encode()
    for mode in ([], ["--stream"]):
        code, out, err = run_main(["decode", *mode], payload.encode(), capsys)
        assert code == 0, err
        assert out == expected


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_fuzz_cli_special_paths(tmp_path, capsys, tally):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    paths = ["/dev/null", "/dev/zero", str(tmp_path), str(fifo), str(tmp_path / "missing")]
    for path in paths:
        for option in ("--gguf", "--model"):
            with bounded(10):
                code, _, err = run_main(["encode", option, path, "x"], b"", capsys)
            assert code == 1 and path in err and len(err.strip().splitlines()) == 1, (option, err)
            tally("fuzz: CLI special paths -> exit 1")
