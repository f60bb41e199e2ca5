"""Command line: ``python -m verified_bpe`` (or the ``verified-bpe`` script).

Subcommands::

    encode  [TEXT] [--file F]   text (argument, file or stdin) -> token ids
    decode  [ID ...]            ids (arguments or stdin) -> text
    train   --vocab-size N --output PREFIX [TEXT] [--file F]
    verify  [--route R] [--jobs N] [--repo DIR]
                                check the Lean proofs (python -m verified_bpe.toolchain verify)
    bench   [--encoding E] [--mb X] [--repeat N] [--spec] [--skip-rss] [--sections S]
                                encoding throughput (bench/bench_encode.py, source checkout)
    corpus  INPUT... --output DIR [--format F] [--engine E] ...
                                files, folders, globs -> token shards (docs/corpus.md)
    count   [--encoding E] [--json] [FILE ...]
                                token counts per file and in total (stdin without FILE)

``--version`` prints the version and the engine that encodes (native or fast).

``--encoding`` takes every encoding :func:`verified_bpe.api.registry.list_encoding_names`
lists (``cl100k_base``, ``o200k_base``, ``o200k_harmony``).

Exit status: 0 on success, 2 for a usage error (argparse: unknown option, missing or
malformed option value), 1 for an error of the input (a
:class:`~verified_bpe.errors.BpeError` such as a token id that is not ASCII digits, an
unreadable file, input over :data:`MAX_INPUT_BYTES`, memory exhausted...), reported as one
line on stderr without a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any, Protocol

from .api.registry import ENCODING_CONSTRUCTORS, list_encoding_names
from .engine import validate
from .errors import (
    BpeError,
    DisallowedSpecialTokenError,
    InvalidArgumentError,
    InvalidUtf8Error,
    MissingExtraError,
)

#: The encodings ``--encoding`` accepts: every registered one (tiktoken's names).
ENCODINGS = tuple(list_encoding_names())
#: The encodings ``bench/bench_encode.py`` times (the published vocabularies).
BENCH_ENCODINGS = ("cl100k_base", "o200k_base")
#: The sections of ``bench/bench_encode.py`` (its ``--sections``).
BENCH_SECTIONS = ("table", "linear", "rss", "panic", "profile", "batch", "load")
PROG = "verified-bpe"

#: Most bytes read from stdin or ``--file`` (``/dev/zero`` or an endless pipe is refused
#: once this much has been read, instead of exhausting memory).
MAX_INPUT_BYTES = 256 << 20

#: Bytes read at a time by ``decode --stream``.
_STREAM_CHUNK = 1 << 16


class Codec(Protocol):
    """What ``encode`` / ``decode`` need from a tokenizer."""

    def decode_bytes(self, ids: Sequence[int]) -> bytes:  # pragma: no cover
        ...


class CliError(Exception):
    """An error to report in one line with exit status 1 (not a usage error)."""


# ---------------------------------------------------------------------------- input helpers
def read_input_text(text: str | None, file: str | None, stdin: IO[bytes]) -> str:
    """The text to work on: the argument, else the file (``-`` = stdin), else stdin; files
    and stdin must be UTF-8 (:class:`~verified_bpe.errors.InvalidUtf8Error` otherwise) and
    at most :data:`MAX_INPUT_BYTES` long (:class:`~verified_bpe.errors.InvalidArgumentError`)."""
    if text is not None:
        return argument_text(text)
    if file in (None, "-"):
        data = validate.read_bounded(stdin, MAX_INPUT_BYTES, "stdin")
        what = "stdin"
    else:
        with open(file, "rb") as handle:  # type: ignore[arg-type]
            data = validate.read_bounded(handle, MAX_INPUT_BYTES, str(file))
        what = f"the input file {file}"
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidUtf8Error(data, f"{exc.reason} at byte {exc.start}", what) from None


def argument_text(text: str) -> str:
    """A text given as an argument, checked as stdin is: Python decodes argv with
    ``surrogateescape``, so bytes that are not UTF-8 arrive as lone surrogates, which
    encoding would silently replace by U+FFFD; they are
    :class:`~verified_bpe.errors.InvalidUtf8Error` instead, as on stdin."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        data = text.encode("utf-8", "surrogateescape")
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            reason = f"{exc.reason} at byte {exc.start}"
            raise InvalidUtf8Error(data, reason, "the argument") from None
    return text


_SEPARATORS = str.maketrans(",[]", "   ")


def parse_ids(words: Sequence[str]) -> list[int]:
    """Token ids from words: integers (ASCII digits only: no sign, ``_`` or other digits)
    separated by spaces, commas or newlines, optionally a JSON list (``[1, 2]``).
    :class:`~verified_bpe.errors.InvalidArgumentError` names the first word that is not."""
    text = " ".join(words).translate(_SEPARATORS)
    return [validate.decimal(word, "token id") for word in text.split()]


def iter_stdin_ids(stdin: IO[bytes]) -> Iterator[int]:
    """Ids from stdin as they arrive (line by line, at most 64 KiB at a time, so memory is
    bounded even for one endless line), for ``decode --stream``."""
    carry = ""
    while chunk := stdin.readline(_STREAM_CHUNK):
        text = (carry + chunk.decode("ascii", errors="replace")).translate(_SEPARATORS)
        words = text.split()
        carry = words.pop() if words and not text[-1].isspace() else ""
        if len(carry) > validate.MAX_DECIMAL_DIGITS:
            validate.decimal(carry, "token id")  # raises: not a number, or too large
        yield from (validate.decimal(word, "token id") for word in words)
    if carry:
        yield validate.decimal(carry, "token id")


# ---------------------------------------------------------------------------- tokenizers
def load_codec(args: argparse.Namespace) -> Any:
    """The tokenizer chosen by ``--encoding`` / ``--gguf`` / ``--model`` / ``--tokenizer-json``."""
    if getattr(args, "tokenizer_json", None) is not None:
        from .hf import Tokenizer as HfTokenizer

        return HfTokenizer.from_file(args.tokenizer_json)
    if args.gguf is not None:
        from .formats.gguf_vocab import tokenizer_from_gguf

        return tokenizer_from_gguf(args.gguf, engine=args.engine or "fast")
    if args.model is not None:
        from .api.train import load_tokenizer

        return load_tokenizer(args.model)
    return tokenizer_for_encoding(args.encoding, args.engine or "fast")


def tokenizer_for_encoding(name: str, engine: str) -> Any:
    """The :class:`~verified_bpe.engine.tokenizer.Tokenizer` of the registered encoding
    ``name``: a published vocabulary as it is, else (``o200k_harmony``) the registry's ranks,
    pattern and special tokens, with the spec pre-tokenizer of the published encoding whose
    pattern it shares."""
    from .engine.tokenizer import SPEC_PRE_TOKENIZERS, Tokenizer
    from .engine.vocab import ENCODINGS as PUBLISHED

    if name in PUBLISHED:
        return Tokenizer.from_tiktoken(name, engine=engine)  # type: ignore[arg-type]
    table = ENCODING_CONSTRUCTORS[name]()
    pattern = str(table["pat_str"])
    base = next((spec.name for spec in PUBLISHED.values() if spec.pattern == pattern), "")
    return Tokenizer(
        name,
        table["mergeable_ranks"],  # type: ignore[arg-type]
        pattern,
        table["special_tokens"],  # type: ignore[arg-type]
        engine=engine,  # type: ignore[arg-type]
        spec_pre_tokenizer=SPEC_PRE_TOKENIZERS.get(base),
    )


def encode_with(codec: Any, text: str, allowed: list[str] | None, ordinary: bool) -> list[int]:
    """Encode with tiktoken's rules (:class:`~verified_bpe.engine.tokenizer.Tokenizer`) or minbpe's
    (a trained model): ``allowed`` is ``None`` (special-token text is an error), ``["all"]``
    or a list of tokens; ``ordinary`` encodes special-token text as text."""
    from .engine.tokenizer import Tokenizer

    if hasattr(codec, "encode_batch"):  # a tokenizer.json: tokenizers' rules
        return list(codec.encode(text).ids)
    if ordinary:
        return list(codec.encode_ordinary(text))
    if isinstance(codec, Tokenizer):
        if allowed is None:
            return codec.encode(text)
        return codec.encode(text, allowed_special="all" if allowed == ["all"] else set(allowed))
    if hasattr(codec, "user_defined_tokens"):  # a GGUF file under llama.cpp's rules
        return _encode_llama_cpp(codec, text, allowed)
    if not hasattr(codec, "to_tokenizer"):  # a BasicTokenizer has no special tokens
        return list(codec.encode(text))
    if allowed is None:
        return list(codec.encode(text, allowed_special="none_raise"))
    return list(codec.encode(text, allowed_special="all" if allowed == ["all"] else set(allowed)))


def _encode_llama_cpp(codec: Any, text: str, allowed: list[str] | None) -> list[int]:
    """llama.cpp's rules: user-defined tokens always cut the text; control tokens only when
    asked (``--allowed-special all``: llama.cpp's ``parse_special``; a list of tokens: those,
    as if they were user-defined).  Without it, control-token text is encoded as text, as
    llama.cpp does (no error)."""
    if allowed is None:
        return list(codec.encode(text))
    if allowed == ["all"]:
        return list(codec.encode(text, parse_special=True))
    return list(codec.encode(text, parse_special=set(allowed)))


# ---------------------------------------------------------------------------- subcommands
def cmd_encode(args: argparse.Namespace, stdin: IO[bytes], stdout: IO[bytes]) -> int:
    text = read_input_text(args.text, args.file, stdin)
    allowed = [argument_text(token) for token in args.allowed_special or []] or None
    ids = encode_with(load_codec(args), text, allowed, args.ordinary)
    out = json.dumps(ids) if args.json else " ".join(map(str, ids))
    stdout.write(out.encode("ascii") + b"\n")
    return 0


def cmd_decode(args: argparse.Namespace, stdin: IO[bytes], stdout: IO[bytes]) -> int:
    codec = load_codec(args)
    if args.stream:
        from .formats.streaming import StreamingDecoder

        decoder = StreamingDecoder(codec)
        source = iter(parse_ids(args.ids)) if args.ids else iter_stdin_ids(stdin)
        for token_id in source:
            piece = decoder.feed(token_id)
            if piece:
                stdout.write(piece.encode("utf-8"))
                stdout.flush()
        stdout.write(decoder.flush().encode("utf-8"))
        return 0
    if args.ids:
        words = args.ids
    else:
        words = [validate.read_bounded(stdin, MAX_INPUT_BYTES, "stdin").decode("ascii", "replace")]
    data = codec.decode_bytes(parse_ids(words))
    if args.bytes:
        stdout.write(data)
    else:
        stdout.write(data.decode("utf-8", errors="replace").encode("utf-8"))
    return 0


def cmd_train(args: argparse.Namespace, stdin: IO[bytes], stdout: IO[bytes]) -> int:
    from .api.train import RegexTokenizer
    from .errors import PatternError

    text = read_input_text(args.text, args.file, stdin)
    try:
        pattern = None if args.pattern is None else argument_text(args.pattern)
        tokenizer = RegexTokenizer(pattern=pattern)
    except PatternError as exc:
        raise CliError(f"--pattern: {exc}") from None
    if args.verbose:  # train prints its progress on stdout; keep stdout for the result
        with contextlib.redirect_stdout(sys.stderr):
            tokenizer.train(text, args.vocab_size, verbose=True)
    else:
        tokenizer.train(text, args.vocab_size, verbose=False)
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    paths = tokenizer.save(args.output)
    stdout.write("".join(f"{p}\n" for p in paths).encode("utf-8"))
    return 0


def count_tokens(codec: Any, text: str) -> int:
    """The number of ids ``encode_ordinary`` gives for ``text`` (special-token text counts
    as ordinary text).  A :class:`~verified_bpe.engine.tokenizer.Tokenizer` whose pattern
    allows it encodes the text in :func:`~verified_bpe.engine.tokenizer.text_blocks` (cuts
    that change no piece) with ``encode_ordinary_batch``, a few blocks at a time: all cores,
    and memory bounded by the blocks, not by the file's ids."""
    from .engine.tokenizer import BLOCK_SAFE_PATTERNS, Tokenizer, text_blocks

    if not isinstance(codec, Tokenizer) or codec.pattern not in BLOCK_SAFE_PATTERNS:
        return len(encode_with(codec, text, None, ordinary=hasattr(codec, "encode_ordinary")))
    threads = os.cpu_count() or 1
    blocks = text_blocks(text)
    total = 0
    while group := [block for _, block in zip(range(4 * threads), blocks, strict=False)]:
        total += sum(map(len, codec.encode_ordinary_batch(group, threads)))
    return total


def cmd_count(args: argparse.Namespace, stdin: IO[bytes], stdout: IO[bytes]) -> int:
    """Token counts per file and in total (``wc``'s layout: ``COUNT NAME`` lines, a
    ``total`` line for more than one file, the bare count for stdin alone)."""
    codec = None
    counts: list[tuple[str, int]] = []
    for name in args.files or ["-"]:
        text = read_input_text(None, name, stdin)  # before the vocabulary: errors come fast
        if codec is None:
            codec = load_codec(args)
        counts.append((name, count_tokens(codec, text)))
    total = sum(count for _, count in counts)
    if args.json:
        files = [{"file": name, "tokens": count} for name, count in counts]
        out = json.dumps({"files": files, "total": total})
    elif args.files:
        lines = [f"{count} {name}" for name, count in counts]
        out = "\n".join(lines + ([f"{total} total"] if len(counts) > 1 else []))
    else:
        out = str(total)
    stdout.write(out.encode("utf-8") + b"\n")
    return 0


def verify_argv(args: argparse.Namespace) -> list[str]:
    """The ``python -m verified_bpe.toolchain`` arguments for ``verify``'s options."""
    argv = ["--jobs", str(args.jobs)]
    if args.route is not None:
        argv += ["--route", args.route]
    if args.repo is not None:
        argv += ["--repo", args.repo]
    return [*argv, "verify"]


def cmd_verify(args: argparse.Namespace) -> int:
    from .toolchain.__main__ import is_checkout, repo_containing
    from .toolchain.__main__ import main as toolchain_main

    if args.repo is None and repo_containing(Path.cwd()) is None:
        raise CliError(
            "verify checks the Lean proofs of a source checkout, and none contains the "
            "current directory (no lakefile.lean and lean/): cd into one or pass --repo DIR"
        )
    if args.repo is not None and not is_checkout(Path(args.repo)):
        raise CliError(f"--repo {args.repo}: not a source checkout (no lakefile.lean and lean/)")
    return int(toolchain_main(verify_argv(args)) or 0)


def find_bench_script(start: Path | None = None) -> Path | None:
    """``bench/bench_encode.py`` of the source checkout containing ``start`` (default: the
    current directory) or this package; ``None`` if there is none."""
    here = Path(__file__).resolve()
    roots = [*(start or Path.cwd()).resolve().parents, (start or Path.cwd()).resolve()]
    roots += list(here.parents)
    for root in roots:
        candidate = root / "bench" / "bench_encode.py"
        if candidate.is_file():
            return candidate
    return None


def bench_argv(args: argparse.Namespace) -> list[str]:
    """The ``bench/bench_encode.py`` arguments for ``bench``'s options."""
    argv = ["--mb", repr(args.mb), "--repeat", str(args.repeat), "--sections", args.sections]
    if args.encoding is not None:
        argv += ["--encoding", args.encoding]
    if args.spec:
        argv.append("--spec")
    if args.skip_rss:
        argv.append("--skip-rss")
    return argv


def cmd_bench(args: argparse.Namespace) -> int:
    """Run ``bench/bench_encode.py`` on the package this command runs from (the installed
    one, with its native engine when it was built; not the checkout's ``python/``)."""
    import importlib.util

    script = find_bench_script()
    if script is None:
        raise CliError(
            "bench runs bench/bench_encode.py of a source checkout, and none contains the "
            "current directory: cd into one"
        )
    if importlib.util.find_spec("tiktoken") is None:
        raise CliError(
            "bench times tiktoken and checks every id against it, and tiktoken is not "
            "installed: pip install tiktoken"
        )
    return subprocess.call([sys.executable, str(script), *bench_argv(args)], env=bench_env())


def bench_env() -> dict[str, str]:
    """The environment for the benchmark: this package's folder first on ``PYTHONPATH``,
    unless it is a site directory, which the child finds by itself (putting one before the
    standard library could shadow it)."""
    import site

    env = dict(os.environ)
    parent = Path(__file__).resolve().parent.parent
    sites = {Path(p).resolve() for p in [*site.getsitepackages(), site.getusersitepackages()]}
    if parent not in sites:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(parent), env.get("PYTHONPATH")]))
    return env


# ---------------------------------------------------------------------------- parser
def _add_tokenizer_options(p: argparse.ArgumentParser) -> None:
    which = p.add_mutually_exclusive_group()
    which.add_argument(
        "--encoding",
        choices=ENCODINGS,
        default="cl100k_base",
        help="a registered encoding (default: %(default)s)",
    )
    which.add_argument("--gguf", metavar="FILE", help="use the BPE vocabulary of a GGUF file")
    which.add_argument("--model", metavar="FILE", help="use a trained .model file (from train)")
    which.add_argument(
        "--tokenizer-json",
        metavar="FILE",
        help="use a Hugging Face tokenizer.json (byte-level BPE)",
    )
    p.add_argument(
        "--engine",
        choices=("native", "fast", "spec"),
        default=None,
        help="native: the Rust engine (the default when it was built); fast: pure Python "
        "(the default otherwise); spec: the mirror of the Lean spec (not with --model, which "
        "encodes with the trained tokenizer's own merge loop)",
    )


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="A byte-level BPE tokenizer whose roundtrip decode(encode(s)) = s is "
        "proven in Lean 4 (cl100k_base / o200k_base, GGUF vocabularies, training).",
        epilog="Exit status: 0 ok, 1 error in the input (one line on stderr), 2 usage error.",
    )
    parser.add_argument(
        "--version", action=_VersionAction, help="print the version and the engine, and exit"
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    enc = sub.add_parser(
        "encode",
        help="text -> token ids",
        description="Encode text (the TEXT argument, --file, or stdin) and print the ids.",
    )
    enc.add_argument("text", nargs="?", help="text to encode (default: read --file or stdin)")
    enc.add_argument("--file", "-f", metavar="FILE", help="read the text from FILE ('-': stdin)")
    _add_tokenizer_options(enc)
    enc.add_argument("--json", action="store_true", help="print a JSON list")
    enc.add_argument(
        "--allowed-special",
        metavar="TOKEN",
        action="append",
        help="encode this special token as its id (repeatable; 'all' for every one); "
        "by default text that spells a special token is an error",
    )
    enc.add_argument(
        "--ordinary",
        action="store_true",
        help="encode special-token text as ordinary text (overrides --allowed-special)",
    )

    dec = sub.add_parser(
        "decode",
        help="token ids -> text",
        description="Decode ids (the "
        "ID arguments, or whitespace/comma separated on stdin) to text.",
    )
    dec.add_argument("ids", nargs="*", metavar="ID", help="token ids (default: read stdin)")
    _add_tokenizer_options(dec)
    out = dec.add_mutually_exclusive_group()
    out.add_argument(
        "--bytes", action="store_true", help="write the exact bytes (no U+FFFD for invalid UTF-8)"
    )
    out.add_argument(
        "--stream",
        action="store_true",
        help="write text as soon as it is valid UTF-8, token by token",
    )

    tr = sub.add_parser(
        "train",
        help="train a tokenizer (minbpe RegexTokenizer)",
        description="Train merges on a text and write PREFIX.model and "
        "PREFIX.vocab (their paths are printed).",
    )
    tr.add_argument("text", nargs="?", help="training text (default: read --file or stdin)")
    tr.add_argument("--file", "-f", metavar="FILE", help="read the text from FILE ('-': stdin)")
    tr.add_argument(
        "--vocab-size", type=_vocab_size, required=True, metavar="N", help="256 + number of merges"
    )
    tr.add_argument("--output", "-o", required=True, metavar="PREFIX", help="output prefix")
    tr.add_argument(
        "--pattern",
        default="cl100k_base",
        help="split pattern: gpt2, cl100k_base, o200k_base, llama3 or a regex "
        "(default: %(default)s)",
    )
    tr.add_argument("--verbose", "-v", action="store_true", help="print each merge (stderr)")

    ver = sub.add_parser(
        "verify",
        help="check every Lean proof and audit the axioms",
        description="Run `python -m verified_bpe.toolchain verify` (= make verify; takes "
        "minutes): check every module under lean/, audit the headline theorems' axioms.",
    )
    ver.add_argument(
        "--route",
        choices=("native", "wasm"),
        default=None,
        help="native: `lean` on PATH; wasm: the offline npm build "
        "(default: native if `lean` is on PATH)",
    )
    ver.add_argument(
        "--jobs",
        type=_positive,
        default=2,
        metavar="N",
        help="Lean checks at once (default: %(default)s)",
    )
    ver.add_argument(
        "--repo",
        metavar="DIR",
        default=None,
        help="the project checkout (default: the one containing the current directory)",
    )

    ben = sub.add_parser(
        "bench",
        help="encoding throughput vs tiktoken (source checkout)",
        description="Run bench/bench_encode.py (= make bench without installing the "
        "[bench] extra): speed, linearity, memory and profile next to tiktoken.",
    )
    ben.add_argument(
        "--encoding", choices=BENCH_ENCODINGS, default=None, help="one encoding (default: both)"
    )
    ben.add_argument(
        "--mb",
        type=_positive_float,
        default=1.0,
        metavar="X",
        help="scale of every workload (default: %(default)s)",
    )
    ben.add_argument(
        "--repeat",
        type=_positive,
        default=3,
        metavar="N",
        help="runs per ordinary workload (default: %(default)s)",
    )
    ben.add_argument("--spec", action="store_true", help="also time the spec engine")
    ben.add_argument("--skip-rss", action="store_true", help="no 50 MB RSS subprocesses")
    ben.add_argument(
        "--sections",
        type=_sections,
        default=",".join(BENCH_SECTIONS),
        metavar="LIST",
        help=f"comma-separated subset of {','.join(BENCH_SECTIONS)} (default: all)",
    )
    cnt = sub.add_parser(
        "count",
        help="token counts per file and in total",
        description="Count the tokens of each FILE (default: stdin) and their total; "
        "special-token text counts as ordinary text (encode_ordinary).",
    )
    cnt.add_argument("files", nargs="*", metavar="FILE", help="files to count ('-': stdin)")
    _add_tokenizer_options(cnt)
    cnt.add_argument("--json", action="store_true", help='print {"files": [...], "total": N}')
    _add_corpus_parser(sub)
    return parser


def _add_corpus_parser(sub: Any) -> None:
    """``corpus``: whole corpora to token shards (:mod:`verified_bpe.data.corpus`)."""
    from .data.corpus import ENGINES as CORPUS_ENGINES
    from .data.corpus import FORMATS as CORPUS_FORMATS

    cor = sub.add_parser(
        "corpus",
        help="tokenize files, folders or globs into shards (parquet, megatron, nanogpt)",
        description="Tokenize INPUT files (.txt: one document; .jsonl: one per line; "
        ".parquet: one per row), folders or globs into shards in DIR with a manifest.json; "
        "a rerun skips the shards already complete (docs/corpus.md).",
    )
    cor.add_argument("inputs", nargs="+", metavar="INPUT")
    cor.add_argument("--encoding", "-e", choices=ENCODINGS, default="cl100k_base")
    cor.add_argument("--output", "-o", required=True, metavar="DIR")
    cor.add_argument("--format", choices=CORPUS_FORMATS, default="parquet")
    cor.add_argument("--engine", choices=CORPUS_ENGINES, default="local")
    cor.add_argument(
        "--workers", type=_positive, default=None, metavar="N", help="default: every core"
    )
    cor.add_argument(
        "--address", default=None, metavar="ADDR", help="a running Dask or Ray cluster"
    )
    cor.add_argument("--text-field", default="text", metavar="NAME", help="default: text")
    cor.add_argument(
        "--eot", action="store_true", help="append the EOT id to every document (nanogpt: always)"
    )
    cor.add_argument(
        "--shard-mb",
        type=_positive_float,
        default=64.0,
        metavar="X",
        help="input MB per shard (consecutive files; default: %(default)s)",
    )
    cor.add_argument(
        "--errors",
        choices=("strict", "replace"),
        default="strict",
        help="invalid UTF-8 in an input: an error (strict) or U+FFFD (replace)",
    )


def cmd_corpus(args: argparse.Namespace) -> int:
    from .data.corpus import run_corpus

    if args.address and args.engine == "local":
        raise CliError("--address needs --engine dask or --engine ray")
    run_corpus(
        args.inputs,
        args.output,
        encoding=args.encoding,
        fmt=args.format,
        engine=args.engine,
        workers=args.workers,
        address=args.address,
        text_field=args.text_field,
        eot=args.eot,
        errors=args.errors,
        command=" ".join([PROG, *sys.argv[1:]]),
        shard_bytes=max(1, int(args.shard_mb * 1e6)),
    )
    return 0


def version_line() -> str:
    """``verified-bpe VERSION (engine: native|fast)``: the engine a default ``Encoding`` uses."""
    from . import __version__
    from .engine import native

    engine = (
        "native" if native.available() else "fast (pure Python: the native engine is not built)"
    )
    return f"{PROG} {__version__} (engine: {engine})"


class _VersionAction(argparse.Action):
    """``--version``: print :func:`version_line` on stdout and exit 0 (computed only then)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        kwargs.update(nargs=0, default=argparse.SUPPRESS)
        super().__init__(option_strings, argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        print(version_line())
        parser.exit()


def _integer_at_least(minimum: int, what: str) -> Callable[[str], int]:
    """An argparse type: ASCII digits (:func:`~verified_bpe.engine.validate.decimal`) for a
    number at least ``minimum``; a usage error (exit 2) otherwise."""

    def parse(word: str) -> int:
        try:
            value = validate.decimal(word, what)
        except InvalidArgumentError as exc:
            raise argparse.ArgumentTypeError(exc.message) from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, not {value}")
        return value

    return parse


_vocab_size = _integer_at_least(256, "--vocab-size")
_positive = _integer_at_least(1, "a count")


def _positive_float(word: str) -> float:
    try:
        value = float(word)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {word!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number, not {word!r}")
    return value


def _sections(word: str) -> str:
    unknown = [part for part in word.split(",") if part not in BENCH_SECTIONS]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown section {unknown[0]!r} (choose from {', '.join(BENCH_SECTIONS)})"
        )
    return word


def main(
    argv: Sequence[str] | None = None,
    prog: str = PROG,
    stdin: IO[bytes] | None = None,
    stdout: IO[bytes] | None = None,
) -> int:
    """Run the command line; returns the exit status (argparse exits with 2 itself)."""
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    unused = option_without_effect(args)
    if unused is not None:
        parser.error(unused)
    if stdin is None:
        stdin = sys.stdin.buffer if sys.stdin is not None else io.BytesIO()
    if stdout is None:
        if sys.stdout is None:  # started with stdout closed (``>&-``)
            return _fail(prog, "stdout is closed")
        stdout = sys.stdout.buffer
    try:
        return _dispatch(args, stdin, stdout)
    except BrokenPipeError:
        return 1
    except (BpeError, CliError, OSError, MissingExtraError) as exc:
        return _fail(prog, _describe(exc))
    except ValueError as exc:  # bad input that is not a BpeError
        return _fail(prog, str(exc))
    except MemoryError:
        return _fail(prog, "out of memory (the input is too large)")
    finally:
        with contextlib.suppress(BrokenPipeError, ValueError):
            stdout.flush()


def option_without_effect(args: argparse.Namespace) -> str | None:
    """Why an option given together with another would do nothing (a usage error), if so."""
    if getattr(args, "model", None) is not None and getattr(args, "engine", None) is not None:
        return "--engine does not apply to --model (a trained model has its own merge loop)"
    return None


def _dispatch(args: argparse.Namespace, stdin: IO[bytes], stdout: IO[bytes]) -> int:
    if args.command == "encode":
        return cmd_encode(args, stdin, stdout)
    if args.command == "decode":
        return cmd_decode(args, stdin, stdout)
    if args.command == "train":
        return cmd_train(args, stdin, stdout)
    if args.command == "verify":
        return cmd_verify(args)
    if args.command == "corpus":
        return cmd_corpus(args)
    if args.command == "count":
        return cmd_count(args, stdin, stdout)
    return cmd_bench(args)


def _describe(exc: Exception) -> str:
    if isinstance(exc, DisallowedSpecialTokenError):
        return (
            f"the text contains the special token {exc.token!r}: pass --allowed-special "
            f"{exc.token!r} (or --allowed-special all) to encode it as its id, or --ordinary "
            "to encode it as text"
        )
    if isinstance(exc, OSError) and exc.filename is not None:
        return f"{exc.filename}: {exc.strerror or exc}"
    return str(exc)


def _fail(prog: str, message: str) -> int:
    """Report ``message`` as one line on stderr; exit status 1."""
    first_line = message.strip().splitlines()[0] if message.strip() else "failed"
    print(f"{prog}: error: {first_line}", file=sys.stderr)
    return 1


__all__ = ["build_parser", "main", "parse_ids", "read_input_text"]
