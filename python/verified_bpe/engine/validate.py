"""Checks of arguments and input files, raising typed errors that name the input.

No Lean counterpart: the Lean spec takes ``Nat`` ids and byte lists, so these checks are what
lets a Python value reach it at all (a token id is a non-negative ``int``; a decimal is ASCII
digits; a vocabulary file is a regular file).  Errors:
:class:`~verified_bpe.errors.InvalidArgumentError` and its subclass
:class:`~verified_bpe.errors.NotRegularFileError`.
"""

from __future__ import annotations

import math
import os
import stat
from collections.abc import Iterable
from itertools import repeat
from typing import IO, Any

from ..errors import InvalidArgumentError, InvalidTypeError, NotRegularFileError

#: Most digits accepted in a decimal id (ids up to 10**18 - 1; ``int()`` itself refuses
#: more than 4,300 digits with a bare ``ValueError``).
MAX_DECIMAL_DIGITS = 18

_ASCII_DIGITS = frozenset("0123456789")


def token_id(value: object, argument: str) -> int:
    """``value`` if it is a non-negative ``int`` (not a ``bool``), else
    :class:`~verified_bpe.errors.InvalidArgumentError` naming ``argument`` (for a value that
    is not an ``int``: :class:`~verified_bpe.errors.InvalidTypeError`, also a ``TypeError``)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidTypeError(
            argument, f"a token id must be a non-negative int, not {type(value).__name__}"
        )
    if value < 0:
        raise InvalidArgumentError(argument, f"a token id must be non-negative, not {value}")
    return value


def token_ids(values: Iterable[object], argument: str) -> list[int]:
    """``values`` as a list of token ids, each checked by :func:`token_id` (so ``True`` or
    ``1.0`` is an :class:`~verified_bpe.errors.InvalidArgumentError` naming ``argument[k]``,
    never a silent lookup of id 1: ``True == 1`` and ``hash(1.0) == hash(1)`` in a dict)."""
    ids = list(values)
    if all(type(v) is int for v in ids):
        return ids  # type: ignore[return-value]
    return [token_id(v, f"{argument}[{k}]") for k, v in enumerate(ids)]


def text(value: object, argument: str) -> str:
    """``value`` if it is a ``str``, else :class:`~verified_bpe.errors.InvalidTypeError`
    (a ``TypeError``, as tiktoken and minbpe raise) naming ``argument``."""
    if not isinstance(value, str):
        raise InvalidTypeError(argument, f"must be a str, not {type(value).__name__}")
    return value


def all_str(values: list[Any], argument: str) -> list[str]:
    """``values`` if every item is a ``str`` (one check over the list, in C), else
    :class:`~verified_bpe.errors.InvalidTypeError` naming the first item that is not:
    ``argument[k]``, as :func:`text` would for it."""
    if all(map(isinstance, values, repeat(str))):
        return values
    for k, value in enumerate(values):
        text(value, f"{argument}[{k}]")
    raise AssertionError("unreachable: some item is not a str")  # pragma: no cover


def special_names(values: Iterable[object], argument: str) -> None:
    """Refuse a special token named by anything but its text (an id such as ``100257``,
    bytes, ``None``): :class:`~verified_bpe.errors.InvalidTypeError` naming ``argument``,
    a ``TypeError`` as tiktoken's core raises."""
    for value in values:
        if not isinstance(value, str):
            raise InvalidTypeError(
                argument,
                f"special tokens are named by their text (str), not {type(value).__name__} "
                f"({value!r})",
            )


def thread_count(num_threads: Any, n_tasks: int) -> int:
    """How many threads run ``n_tasks`` tasks when ``num_threads`` are asked for, read as
    tiktoken's batches read it (they hand it to ``ThreadPoolExecutor(max_workers=...)``):
    ``None`` is the executor's default, a number above 0 is an upper bound (``2.0``, ``1.5``
    and ``2**64`` included), 0 or less is a ``ValueError``
    (:class:`~verified_bpe.errors.InvalidArgumentError`), a value that does not compare with
    0 a ``TypeError`` (:class:`~verified_bpe.errors.InvalidTypeError`).  The result is
    1..``max(n_tasks, 1)``."""
    if num_threads is None:
        num_threads = min(32, (os.cpu_count() or 1) + 4)
    try:
        positive = num_threads > 0
    except TypeError:
        raise InvalidTypeError(
            "num_threads", f"must be a number, not {type(num_threads).__name__}"
        ) from None
    if not positive:
        raise InvalidArgumentError("num_threads", f"must be greater than 0, not {num_threads!r}")
    cap = max(n_tasks, 1)
    if num_threads >= cap:
        return cap
    return max(1, min(cap, math.ceil(num_threads)))


def decimal(word: str, argument: str, max_digits: int = MAX_DECIMAL_DIGITS) -> int:
    """The value of ``word`` if it is 1..``max_digits`` ASCII digits (no sign, ``_``, space
    or other Unicode digit, all of which ``int()`` accepts), else
    :class:`~verified_bpe.errors.InvalidArgumentError`."""
    if not word or not _ASCII_DIGITS.issuperset(word):
        shown = repr(word) if len(word) <= 40 else repr(word[:37]) + "..."
        raise InvalidArgumentError(argument, f"not a non-negative integer: {shown}")
    if len(word) > max_digits:
        raise InvalidArgumentError(argument, f"number too large ({len(word)} digits)")
    return int(word)


def file_kind(mode: int) -> str | None:
    """``None`` for a regular file, else what it is (``"FIFO"``, ``"device"``, ...)."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "special file"


def check_regular_file(path: str) -> None:
    """Refuse ``path`` unless it is a regular file (symlinks followed), before anything opens
    it.  ``OSError`` (with the file name) if it cannot be examined."""
    kind = file_kind(os.stat(path).st_mode)
    if kind is not None:
        raise NotRegularFileError(path, kind)


def read_regular_file(path: str) -> bytes:
    """The bytes of the regular file ``path``.  The file is opened without blocking and
    examined with ``fstat`` before it is read, so a FIFO or device is refused
    (:class:`~verified_bpe.errors.NotRegularFileError`) without hanging, even if it replaced
    a regular file after a check."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        kind = file_kind(os.fstat(fd).st_mode)
    except OSError:
        os.close(fd)
        raise
    if kind is not None:
        os.close(fd)
        raise NotRegularFileError(path, kind)
    with os.fdopen(fd, "rb") as handle:
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return handle.read()


def read_bounded(stream: IO[bytes], limit: int, name: str) -> bytes:
    """At most ``limit`` bytes of ``stream``; more (``/dev/zero``, an endless pipe) is
    :class:`~verified_bpe.errors.InvalidArgumentError` naming ``name``, raised as soon as
    byte ``limit + 1`` is read (memory stays bounded by ``limit``)."""
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise InvalidArgumentError(name, f"input larger than the limit of {limit} bytes")
    return data


__all__ = [
    "MAX_DECIMAL_DIGITS",
    "all_str",
    "check_regular_file",
    "decimal",
    "file_kind",
    "read_bounded",
    "read_regular_file",
    "text",
    "token_id",
]
