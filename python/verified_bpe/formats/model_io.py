"""minbpe-style ``.model`` / ``.vocab`` files and readable rendering of tokens.

``.model`` (the file :func:`parse_model` reads back; minbpe's format, plain UTF-8 text, every
line ending in ``\\n``)::

    minbpe v1                 header, exactly this
    <pattern>                 split pattern; empty line for a BasicTokenizer
    <n>                       number of special tokens (decimal)
    <special> <id>            n lines: token text, one space, decimal id
    <id0> <id1>               one line per merge, in order: the k-th line (k = 0, 1, ...)
                              is the merge (id0, id1) -> 256 + k

Every id in a merge line must name a token defined before it (a byte ``0..255`` or an earlier
merge); special ids must not collide with those ids or each other.  The merge count is not
stored, so a file cut after a complete merge line is a valid (smaller) model; a file cut
anywhere else (before the special tokens are complete, or inside a line: the last line has
no ``\\n``) is reported as truncated.  Errors are
:class:`~verified_bpe.errors.MalformedModelError` with the 1-based line number.

Limits (so that memory stays bounded by the file's size): numbers have at most 18 digits,
and the tokens of all merges together may hold at most
``VOCAB_BYTES_BASE + VOCAB_BYTES_PER_FILE_BYTE * len(text)`` bytes (16 MiB + 64 per
character of the file); a file whose merges grow past it (``256 256``, ``257 257``, ...
doubles the length on every line) is refused at the line that crosses it, before the tokens
are built.
Only a regular file is read (a FIFO or device:
:class:`~verified_bpe.errors.NotRegularFileError`).

``.vocab`` is for people only (never read back): one line per token, ``[t] id`` for a byte,
``[a][b] -> [ab] id`` for a merge, ``[<|special|>] id`` for a special token, each token
shown with :func:`render_token`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..engine import validate
from ..errors import InvalidArgumentError, MalformedModelError
from ..spec.seed.well_formed import build_vocab, check_well_formed

MODEL_HEADER = "minbpe v1"
#: Header of :class:`~verified_bpe.api.minbpe.GPT4Tokenizer`'s files: its merges are in
#: cl100k's byte-shuffled id space, so a plain loader (this module's default, minbpe's) must
#: refuse the file instead of reading other ids from it.
SHUFFLED_HEADER = "minbpe v1 cl100k-byte-shuffle"
FIRST_MERGE_ID = 256
IDENTITY_SHUFFLE: tuple[int, ...] = tuple(range(256))

Pair = tuple[int, int]

#: Bound on the total bytes of the merged tokens: base + per character of the file (above).
VOCAB_BYTES_BASE = 16 << 20
VOCAB_BYTES_PER_FILE_BYTE = 64


@dataclass(frozen=True)
class ModelData:
    """The contents of a ``.model`` file: split pattern (``""`` = none), special tokens and
    merges (insertion order = merge order, ids ``256, 257, ...``)."""

    pattern: str
    special_tokens: dict[str, int] = field(default_factory=dict)
    merges: dict[Pair, int] = field(default_factory=dict)


# ---------------------------------------------------------------------------- rendering
def _render_char(ch: str) -> str:
    """One decoded character: printable as itself, ``\\`` doubled, an undecodable byte
    (a surrogate escape) as ``\\xNN`` (``NN >= 80``), any other control, format, separator or
    unassigned character as ``\\xNN`` (ASCII), ``\\uNNNN`` or ``\\UNNNNNNNN``, so that
    the rendering is injective."""
    cp = ord(ch)
    if 0xDC80 <= cp <= 0xDCFF:  # an invalid UTF-8 byte, from errors="surrogateescape"
        return f"\\x{cp - 0xDC00:02x}"
    if ch == "\\":
        return "\\\\"
    if ch == " " or unicodedata.category(ch)[0] not in "CZ":
        return ch
    if cp < 0x80:  # \xNN with NN >= 0x80 is kept for undecodable bytes
        return f"\\x{cp:02x}"
    if cp < 0x10000:
        return f"\\u{cp:04x}"
    return f"\\U{cp:08x}"


def render_token(token: bytes) -> str:
    """A token's bytes as readable, unambiguous text: valid UTF-8 shown as characters, except
    that control characters, separators other than the plain space, and every byte that is not
    part of valid UTF-8 are escaped (``\\n`` -> ``\\x0a``, a lone ``0xe6`` -> ``\\xe6``), and a
    backslash is shown as ``\\\\``."""
    return "".join(_render_char(ch) for ch in token.decode("utf-8", errors="surrogateescape"))


def format_merge(pair: Pair, idx: int, vocab: Mapping[int, bytes]) -> str:
    """``[a][b] -> [ab] idx`` for the merge ``pair -> idx``."""
    left, right = render_token(vocab[pair[0]]), render_token(vocab[pair[1]])
    return f"[{left}][{right}] -> [{render_token(vocab[idx])}] {idx}"


def format_vocab(
    merges: Mapping[Pair, int], vocab: Mapping[int, bytes], special_tokens: Mapping[str, int]
) -> str:
    """The human-readable ``.vocab`` text (see the module docstring)."""
    made_by = {idx: pair for pair, idx in merges.items()}
    lines: list[str] = []
    for idx, token in vocab.items():
        pair = made_by.get(idx)
        if pair is None:
            lines.append(f"[{render_token(token)}] {idx}")
        else:
            lines.append(format_merge(pair, idx, vocab))
    for text, idx in special_tokens.items():
        lines.append(f"[{render_token(text.encode('utf-8'))}] {idx}")
    return "".join(line + "\n" for line in lines)


# ---------------------------------------------------------------------------- .model
def format_model(data: ModelData, header: str = MODEL_HEADER) -> str:
    """The ``.model`` text of ``data``; :func:`parse_model` reads ``data`` back from it.

    Raises :class:`~verified_bpe.errors.InvalidArgumentError` (a ``ValueError``) if it
    cannot be written faithfully: merge ids not ``256, 257, ...`` in order, a line break in
    the pattern or a special token, an empty special token, an id of more than 18 digits,
    or anything else that the reader would read otherwise (checked by reading it back).
    """
    if "\n" in data.pattern or "\r" in data.pattern:
        raise InvalidArgumentError("pattern", "contains a line break; a .model file cannot hold it")
    lines = [header, data.pattern, str(len(data.special_tokens))]
    for text, idx in data.special_tokens.items():
        if not text or "\n" in text or "\r" in text:
            raise InvalidArgumentError(f"special token {text!r}", "empty or contains a line break")
        lines.append(f"{text} {idx}")
    for k, ((p0, p1), idx) in enumerate(data.merges.items()):
        if idx != FIRST_MERGE_ID + k:
            expected = FIRST_MERGE_ID + k
            raise InvalidArgumentError("merges", f"merge {k} has id {idx}, not {expected}")
        lines.append(f"{p0} {p1}")
    text = "".join(line + "\n" for line in lines)
    try:
        back = parse_model(text, header)
    except MalformedModelError as exc:
        raise InvalidArgumentError("model", f"would not load back: {exc}") from None
    if back != data:
        raise InvalidArgumentError("model", "would load back as other tables")
    return text


def _short(text: str) -> str:
    """``repr`` of a line of the file, cut to 40 characters (errors stay short)."""
    return repr(text) if len(text) <= 40 else repr(text[:37]) + "..."


def _decimal(field_text: str, what: str, line: int) -> int:
    """A non-negative decimal integer (ASCII digits only), or a typed error."""
    try:
        return validate.decimal(field_text, what)
    except InvalidArgumentError as exc:
        raise MalformedModelError(f"{what}: {exc.message}", line) from None


def _parse_special(text: str, line: int) -> tuple[str, int]:
    """``<special> <id>`` (the token may contain spaces; the id follows the last one)."""
    token, sep, idx_text = text.rpartition(" ")
    if not sep or not token:
        raise MalformedModelError(f"expected '<special token> <id>', got {_short(text)}", line)
    return token, _decimal(idx_text, "special token id", line)


def _parse_merge(text: str, line: int, next_id: int) -> Pair:
    """``<id0> <id1>``, both ids already defined (below ``next_id``)."""
    fields = text.split(" ")
    if len(fields) != 2:
        raise MalformedModelError(f"expected a merge '<id0> <id1>', got {_short(text)}", line)
    p0 = _decimal(fields[0], "merge id", line)
    p1 = _decimal(fields[1], "merge id", line)
    for part in (p0, p1):
        if part >= next_id:
            raise MalformedModelError(
                f"merge ({p0}, {p1}) -> {next_id} refers to token {part}, which is not "
                f"defined before it (ids 0..{next_id - 1} are)",
                line,
            )
    return (p0, p1)


def _check_header(first_line: str, header: str) -> None:
    """The first line must be ``header``: anything else is not a ``.model`` file at all
    (checked before anything else, so a text file is reported as such, not as truncated).
    The line is not shown: the file may be anything."""
    found = first_line.removesuffix("\r").strip()
    if found == header:
        return
    if found == MODEL_HEADER:  # a plain minbpe file where a GPT4Tokenizer one is expected
        raise MalformedModelError(f"bad header: the first line is not {header!r}", 1)
    if found == SHUFFLED_HEADER:
        raise MalformedModelError(
            "a GPT4Tokenizer file (merges in cl100k's byte-shuffled ids): "
            "load it with verified_bpe.minbpe.GPT4Tokenizer().load",
            1,
        )
    raise MalformedModelError(f"not a minbpe .model file (its first line is not {header!r})", 1)


def _split_lines(text: str) -> list[str]:
    """The lines of a ``.model`` text (``\\r\\n`` accepted); the text must end with ``\\n``."""
    if not text:
        raise MalformedModelError("empty file (expected the header 'minbpe v1')", None)
    if not text.endswith("\n"):
        last = text.count("\n") + 1
        raise MalformedModelError("truncated: the last line does not end with a newline", last)
    return [line.removesuffix("\r") for line in text[:-1].split("\n")]


def parse_model(text: str, header: str = MODEL_HEADER) -> ModelData:
    """Parse and validate ``.model`` text.

    Beyond the syntax, the result is checked with
    :func:`~verified_bpe.spec.seed.well_formed.check_well_formed` (identity byte shuffle), so a
    loaded table satisfies the hypothesis of the roundtrip theorem; in particular two merges
    giving the same bytes (possible in a hand-written file) are rejected.  Every failure is a
    :class:`~verified_bpe.errors.MalformedModelError` carrying the line number.
    """
    if text:
        _check_header(text.partition("\n")[0], header)
    lines = _split_lines(text)
    if len(lines) < 3:
        what = "pattern line" if len(lines) < 2 else "number of special tokens"
        raise MalformedModelError(f"truncated: no {what}", len(lines) + 1)
    pattern = lines[1]
    n_special = _decimal(lines[2].strip(), "number of special tokens", 3)
    if len(lines) < 3 + n_special:
        raise MalformedModelError(
            f"truncated: {n_special} special tokens announced, {len(lines) - 3} lines follow",
            len(lines) + 1,
        )
    special_tokens: dict[str, int] = {}
    special_lines: dict[str, int] = {}
    for k in range(n_special):
        line = 4 + k
        token, idx = _parse_special(lines[3 + k], line)
        if token in special_tokens:
            raise MalformedModelError(f"special token {token!r} appears twice", line)
        if idx in special_tokens.values():
            raise MalformedModelError(f"special token id {idx} is used twice", line)
        special_tokens[token] = idx
        special_lines[token] = line
    merges: dict[Pair, int] = {}
    merge_lines: dict[int, int] = {}
    lengths = [1] * FIRST_MERGE_ID  # byte length of each token, to bound the vocabulary
    limit = budget = VOCAB_BYTES_BASE + VOCAB_BYTES_PER_FILE_BYTE * len(text)
    for k, merge_text in enumerate(lines[3 + n_special :]):
        line = 4 + n_special + k
        idx = FIRST_MERGE_ID + k
        pair = _parse_merge(merge_text, line, idx)
        lengths.append(lengths[pair[0]] + lengths[pair[1]])
        budget -= lengths[-1]
        if budget < 0:
            raise MalformedModelError(
                f"the merges up to this line make tokens of more than {limit} bytes in total "
                f"(limit: {VOCAB_BYTES_BASE} + {VOCAB_BYTES_PER_FILE_BYTE} per character "
                "of the file)",
                line,
            )
        if pair in merges:
            raise MalformedModelError(
                f"merge {pair} appears twice (first as id {merges[pair]})", line
            )
        merges[pair] = idx
        merge_lines[idx] = line
    n_ids = FIRST_MERGE_ID + len(merges)
    for token, idx in special_tokens.items():
        if idx < n_ids:
            raise MalformedModelError(
                f"special token {token!r} has id {idx}, "
                f"already a byte or merge id (0..{n_ids - 1})",
                special_lines[token],
            )
    _check_tables(merges, merge_lines)
    return ModelData(pattern, special_tokens, merges)


def _check_tables(merges: Mapping[Pair, int], merge_lines: Mapping[int, int]) -> None:
    """Run :func:`check_well_formed` on the parsed merges; report a failure at the line of the
    later of two merges with equal bytes."""
    vocab = build_vocab(merges)
    result = check_well_formed(merges, vocab, IDENTITY_SHUFFLE)
    if result.ok:
        return
    line = None
    if result.field == "injectivity":
        first: dict[bytes, int] = {}
        for idx, token in vocab.items():
            if token in first:
                line = merge_lines.get(idx)
                break
            first[token] = idx
    raise MalformedModelError(
        f"merge table is not well formed: {result.field}: {result.reason}", line
    )


# ---------------------------------------------------------------------------- files
def write_model(path: str | Path, data: ModelData, header: str = MODEL_HEADER) -> Path:
    """Write ``data`` as a ``.model`` file (UTF-8, ``\\n`` line ends); returns the path.
    Nothing is written if :func:`format_model` refuses ``data``."""
    path = Path(path)
    path.write_text(format_model(data, header), encoding="utf-8", newline="\n")
    return path


def read_model(path: str | Path, header: str = MODEL_HEADER) -> ModelData:
    """Read and validate a ``.model`` file (:func:`parse_model`).

    A file that is not UTF-8 is a :class:`~verified_bpe.errors.MalformedModelError` too; a
    path that is not a regular file a :class:`~verified_bpe.errors.NotRegularFileError`.
    """
    raw = validate.read_regular_file(str(path))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        try:
            _check_header(raw.partition(b"\n")[0].decode("utf-8", "replace"), header)
        except MalformedModelError as bad:
            raise MalformedModelError(bad.message, bad.line, str(path)) from None
        raise MalformedModelError(f"not UTF-8 ({exc.reason})", line, str(path)) from None
    try:
        return parse_model(text, header)
    except MalformedModelError as exc:
        raise MalformedModelError(exc.message, exc.line, str(path)) from None
