"""Arrow string arrays to token ids: :func:`encode_arrow` and :func:`count_arrow`.

The UTF-8 of each chunk goes to the native engine as Arrow lays it out: its offsets, data and
validity buffers are passed through the buffer protocol and read in place, without the GIL (no
copy, no Python ``str`` per row; the engine checks every row's offsets against the data buffer
and its UTF-8 first).  Arrow arrays are immutable: a buffer of the array must not be written
(through a writable ``memoryview`` of it) while the call runs.  The ids come back as one
``uint32`` buffer and ``int64`` offsets, which become the ``large_list<uint32>`` result without
a copy.  Nulls stay null.  Without the native engine, the rows go through the Python engine
(same ids).  No Lean counterpart: this is ``encode_ordinary`` applied row by row.
"""

from __future__ import annotations

from typing import Any

from ..api.encoding import Encoding
from ..errors import InvalidArgumentError, InvalidTypeError, InvalidUtf8Error, require

#: The pip install that brings pyarrow (the ``data`` extra).
PYARROW_INSTALL = "'verified-bpe[data]'  (or: pip install pyarrow)"


def pyarrow(what: str) -> Any:
    """pyarrow, or :class:`~verified_bpe.errors.MissingExtraError` naming its install."""
    return require("pyarrow", PYARROW_INSTALL, what)


def _chunks(pa: Any, array: Any, what: str) -> list[Any]:
    """The string chunks of ``array`` (a ``StringArray``, ``LargeStringArray`` or a
    ``ChunkedArray`` of either), else :class:`~verified_bpe.errors.InvalidTypeError`."""
    if isinstance(array, pa.ChunkedArray):
        chunks = list(array.chunks)
        kind = array.type
    elif isinstance(array, pa.Array):
        chunks, kind = [array], array.type
    else:
        raise InvalidTypeError(
            "array", f"{what} takes a pyarrow string array, not {type(array).__name__}"
        )
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)):
        raise InvalidTypeError("array", f"{what} takes string or large_string, not {kind}")
    return chunks


def _byte_view(buffer: Any) -> Any:
    """A pyarrow buffer as unsigned bytes (pyarrow exports format ``'b'``), no copy."""
    return memoryview(b"" if buffer is None else buffer).cast("B")


def _flat_chunk(
    encoding: Encoding,
    chunk: Any,
    num_threads: int,
    counts_only: bool,
    first_row: int = 0,
    in_place: bool = True,
) -> tuple[Any, Any]:
    """``(ids, offsets)`` buffers of one string chunk (a null row: no ids).  A row whose
    offsets leave the data buffer: :class:`~verified_bpe.errors.InvalidArgumentError`; one
    that is not UTF-8: :class:`~verified_bpe.errors.InvalidUtf8Error`; each naming the row of
    the whole array (``first_row``: the chunk's first).  ``in_place=False`` copies the buffers
    once first (the bench's comparison)."""
    merger = encoding._tokenizer._native
    if merger is not None and merger.splits:
        validity, offsets, data = chunk.buffers()
        try:
            flat = merger.encode_utf8_flat(
                _byte_view(data),
                _byte_view(offsets),
                chunk.type.id != _string_type_id(),
                chunk.offset,
                len(chunk),
                _byte_view(validity) if chunk.null_count else None,
                num_threads,
                counts_only,
                in_place,
            )
        except ValueError as exc:
            raise _bad_row(exc, first_row) from None
        if flat is not None:
            return flat
    texts = ["" if t is None else t for t in chunk.to_pylist()]
    return encoding._tokenizer.encode_ordinary_batch_flat(texts, num_threads)


def _bad_row(exc: ValueError, first_row: int) -> ValueError:
    """The package's typed error for the native engine's ``ValueError((row, kind, message))``
    (a chunk's buffers shorter than its rows: ``InvalidArgumentError`` on ``array``)."""
    if len(exc.args) != 3:
        return InvalidArgumentError("array", str(exc))
    row, kind, message = exc.args
    reason = message.split(": ", 1)[1]
    if kind == "utf8":
        reason = reason.removeprefix("invalid UTF-8 ")
        return InvalidUtf8Error(b"", reason, f"array row {first_row + row}")
    return InvalidArgumentError("array", f"row {first_row + row}: {reason}")


def _string_type_id() -> int:
    import pyarrow as pa

    return pa.string().id  # type: ignore[no-any-return]


def _validity(pa: Any, chunk: Any) -> Any:
    """A validity bitmap for the rows of ``chunk`` from bit 0 (``None``: no nulls)."""
    if not chunk.null_count:
        return None
    return chunk.is_valid().buffers()[1]


def encode_arrow(encoding: Encoding, array: Any, *, num_threads: int = 8) -> Any:
    """``encoding.encode_ordinary`` of every row of ``array`` (``pa.StringArray``,
    ``pa.LargeStringArray`` or a ``pa.ChunkedArray`` of them) as one
    ``pa.LargeListArray`` of ``uint32``, row for row; a null row stays null.  An array built
    from raw buffers is checked: a row that is not UTF-8 raises
    :class:`~verified_bpe.errors.InvalidUtf8Error`, offsets outside the data buffer
    :class:`~verified_bpe.errors.InvalidArgumentError`, each naming the row."""
    pa = pyarrow("encode_arrow")
    out, first_row = [], 0
    for chunk in _chunks(pa, array, "encode_arrow"):
        ids, offsets = _flat_chunk(encoding, chunk, num_threads, False, first_row)
        first_row += len(chunk)
        ids_buf, offsets_buf = pa.py_buffer(ids), pa.py_buffer(offsets)
        values = pa.Array.from_buffers(pa.uint32(), len(ids_buf) // 4, [None, ids_buf])
        out.append(
            pa.Array.from_buffers(
                pa.large_list(pa.uint32()),
                len(chunk),
                [_validity(pa, chunk), offsets_buf],
                children=[values],
            )
        )
    if not out:
        return pa.array([], type=pa.large_list(pa.uint32()))
    return out[0] if len(out) == 1 else pa.concat_arrays(out)


def count_arrow(encoding: Encoding, array: Any, *, num_threads: int = 8) -> Any:
    """The number of ids of every row of ``array`` (as :func:`encode_arrow`) as a
    ``pa.Int64Array``; a null row stays null.  The ids themselves are not kept."""
    pa = pyarrow("count_arrow")
    # ``import pyarrow`` does not load pyarrow.compute
    pc = require("pyarrow.compute", PYARROW_INSTALL, "count_arrow")
    out, first_row = [], 0
    for chunk in _chunks(pa, array, "count_arrow"):
        _, offsets = _flat_chunk(encoding, chunk, num_threads, True, first_row)
        first_row += len(chunk)
        starts = pa.Array.from_buffers(pa.int64(), len(chunk) + 1, [None, pa.py_buffer(offsets)])
        counts = pc.subtract(starts[1:], starts[:-1])
        if chunk.null_count:
            counts = pc.if_else(chunk.is_valid(), counts, pa.scalar(None, pa.int64()))
        out.append(counts)
    if not out:
        return pa.array([], type=pa.int64())
    return out[0] if len(out) == 1 else pa.concat_arrays(out)


__all__ = ["count_arrow", "encode_arrow"]
