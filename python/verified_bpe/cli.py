"""Command line: ``python -m verified_bpe`` (or the ``verified-bpe`` script).

Subcommands::

    encode  [TEXT] [--file F]   text (argument, file or stdin) -> token ids
    decode  [ID ...]            ids (arguments or stdin) -> text
    train   --vocab-size N --output PREFIX [TEXT] [--file F]
    verify  [toolchain options] check the Lean proofs (python -m verified_bpe.toolchain verify)
    bench   [bench options]     encoding throughput (bench/bench_encode.py, source checkout)

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
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any, Protocol

from .engine import validate
from .errors import BpeError, DisallowedSpecialTokenError, InvalidArgumentError, InvalidUtf8Error

ENCODINGS = ("cl100k_base", "o200k_base")
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
    else:
        with open(file, "rb") as handle:  # type: ignore[arg-type]
            data = validate.read_bounded(handle, MAX_INPUT_BYTES, str(file))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidUtf8Error(data, f"input {exc.reason} at byte {exc.start}") from None


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
            raise InvalidUtf8Error(data, f"argument {exc.reason} at byte {exc.start}") from None
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
    """The tokenizer chosen by ``--encoding`` / ``--gguf`` / ``--model``."""
    if args.gguf is not None:
        from .formats.gguf_vocab import tokenizer_from_gguf

        return tokenizer_from_gguf(args.gguf, engine=args.engine)
    if args.model is not None:
        from .api.train import load_tokenizer

        return load_tokenizer(args.model)
    from .engine.tokenizer import Tokenizer

    return Tokenizer.from_tiktoken(args.encoding, engine=args.engine)


def encode_with(codec: Any, text: str, allowed: list[str] | None, ordinary: bool) -> list[int]:
    """Encode with tiktoken's rules (:class:`~verified_bpe.engine.tokenizer.Tokenizer`) or minbpe's
    (a trained model): ``allowed`` is ``None`` (special-token text is an error), ``["all"]``
    or a list of tokens; ``ordinary`` encodes special-token text as text."""
    from .engine.tokenizer import Tokenizer

    if ordinary:
        return list(codec.encode_ordinary(text))
    if isinstance(codec, Tokenizer):
        if allowed is None:
            return codec.encode(text)
        return codec.encode(text, allowed_special="all" if allowed == ["all"] else set(allowed))
    if not hasattr(codec, "to_tokenizer"):  # a BasicTokenizer has no special tokens
        return list(codec.encode(text))
    if allowed is None:
        return list(codec.encode(text, allowed_special="none_raise"))
    return list(codec.encode(text, allowed_special="all" if allowed == ["all"] else set(allowed)))


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


def cmd_verify(args: argparse.Namespace, extra: list[str]) -> int:
    from .toolchain.__main__ import main as toolchain_main

    return int(toolchain_main([*extra, "verify"]) or 0)


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


def cmd_bench(args: argparse.Namespace, extra: list[str]) -> int:
    script = find_bench_script()
    if script is None:
        raise CliError("bench/bench_encode.py not found (run from a source checkout)")
    env = dict(os.environ)
    python_dir = str(script.parent.parent / "python")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [python_dir, env.get("PYTHONPATH")]))
    return subprocess.call([sys.executable, str(script), *extra], env=env)


# ---------------------------------------------------------------------------- parser
def _add_tokenizer_options(p: argparse.ArgumentParser) -> None:
    which = p.add_mutually_exclusive_group()
    which.add_argument(
        "--encoding", choices=ENCODINGS, default="cl100k_base",
        help="published vocabulary (default: %(default)s)",
    )
    which.add_argument("--gguf", metavar="FILE", help="use the BPE vocabulary of a GGUF file")
    which.add_argument("--model", metavar="FILE", help="use a trained .model file (from train)")
    p.add_argument(
        "--engine", choices=("fast", "spec"), default="fast",
        help="fast: heap merge loop; spec: the mirror of the Lean spec (default: %(default)s)",
    )


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="A byte-level BPE tokenizer whose roundtrip decode(encode(s)) = s is "
        "proven in Lean 4 (cl100k_base / o200k_base, GGUF vocabularies, training).",
        epilog="Exit status: 0 ok, 1 error in the input (one line on stderr), 2 usage error.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    enc = sub.add_parser("encode", help="text -> token ids", description="Encode text "
                         "(the TEXT argument, --file, or stdin) and print the ids.")
    enc.add_argument("text", nargs="?", help="text to encode (default: read --file or stdin)")
    enc.add_argument("--file", "-f", metavar="FILE", help="read the text from FILE ('-': stdin)")
    _add_tokenizer_options(enc)
    enc.add_argument("--json", action="store_true", help="print a JSON list")
    enc.add_argument(
        "--allowed-special", metavar="TOKEN", action="append",
        help="encode this special token as its id (repeatable; 'all' for every one); "
        "by default text that spells a special token is an error",
    )
    enc.add_argument("--ordinary", action="store_true",
                     help="encode special-token text as ordinary text")

    dec = sub.add_parser("decode", help="token ids -> text", description="Decode ids (the "
                         "ID arguments, or whitespace/comma separated on stdin) to text.")
    dec.add_argument("ids", nargs="*", metavar="ID", help="token ids (default: read stdin)")
    _add_tokenizer_options(dec)
    out = dec.add_mutually_exclusive_group()
    out.add_argument("--bytes", action="store_true",
                     help="write the exact bytes (no U+FFFD for invalid UTF-8)")
    out.add_argument("--stream", action="store_true",
                     help="write text as soon as it is valid UTF-8, token by token")

    tr = sub.add_parser("train", help="train a tokenizer (minbpe RegexTokenizer)",
                        description="Train merges on a text and write PREFIX.model and "
                        "PREFIX.vocab (their paths are printed).")
    tr.add_argument("text", nargs="?", help="training text (default: read --file or stdin)")
    tr.add_argument("--file", "-f", metavar="FILE", help="read the text from FILE ('-': stdin)")
    tr.add_argument("--vocab-size", type=_vocab_size, required=True, metavar="N",
                    help="256 + number of merges")
    tr.add_argument("--output", "-o", required=True, metavar="PREFIX", help="output prefix")
    tr.add_argument("--pattern", default="cl100k_base",
                    help="split pattern: gpt2, cl100k_base, o200k_base, llama3 or a regex "
                    "(default: %(default)s)")
    tr.add_argument("--verbose", "-v", action="store_true", help="print each merge (stderr)")

    sub.add_parser(
        "verify", help="check every Lean proof and audit the axioms",
        description="Run `python -m verified_bpe.toolchain verify` (takes minutes). Other "
        "options are passed to the toolchain: --route native|wasm, --jobs N, --repo DIR.",
    )
    sub.add_parser(
        "bench", help="encoding throughput vs tiktoken (source checkout)",
        description="Run bench/bench_encode.py; other options are passed to it: "
        "--encoding NAME, --mb SCALE, --repeat N, --spec, --skip-rss.",
    )
    return parser


def _vocab_size(word: str) -> int:
    try:
        value = validate.decimal(word, "--vocab-size")
    except InvalidArgumentError as exc:
        raise argparse.ArgumentTypeError(exc.message) from None
    if value < 256:
        raise argparse.ArgumentTypeError(f"must be at least 256, not {value}")
    return value


PASS_THROUGH = {"verify", "bench"}


def main(
    argv: Sequence[str] | None = None,
    prog: str = PROG,
    stdin: IO[bytes] | None = None,
    stdout: IO[bytes] | None = None,
) -> int:
    """Run the command line; returns the exit status (argparse exits with 2 itself)."""
    parser = build_parser(prog)
    args, extra = parser.parse_known_args(argv)
    if extra and args.command not in PASS_THROUGH:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if stdin is None:
        stdin = sys.stdin.buffer if sys.stdin is not None else io.BytesIO()
    if stdout is None:
        if sys.stdout is None:  # started with stdout closed (``>&-``)
            return _fail(prog, "stdout is closed")
        stdout = sys.stdout.buffer
    try:
        return _dispatch(args, extra, stdin, stdout)
    except BrokenPipeError:
        return 1
    except (BpeError, CliError, OSError) as exc:
        return _fail(prog, _describe(exc))
    except ValueError as exc:  # bad input that is not a BpeError
        return _fail(prog, str(exc))
    except MemoryError:
        return _fail(prog, "out of memory (the input is too large)")
    finally:
        with contextlib.suppress(BrokenPipeError, ValueError):
            stdout.flush()


def _dispatch(
    args: argparse.Namespace, extra: list[str], stdin: IO[bytes], stdout: IO[bytes]
) -> int:
    if args.command == "encode":
        return cmd_encode(args, stdin, stdout)
    if args.command == "decode":
        return cmd_decode(args, stdin, stdout)
    if args.command == "train":
        return cmd_train(args, stdin, stdout)
    if args.command == "verify":
        return cmd_verify(args, extra)
    return cmd_bench(args, extra)


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
