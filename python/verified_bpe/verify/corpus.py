"""Real text found on this machine, for tests and benchmarks: CPython's standard library
sources and the translated messages of the installed gettext catalogs
(``/usr/share/locale/<lang>/LC_MESSAGES/<domain>.mo``)."""

from __future__ import annotations

import gettext
import itertools
import random
import sysconfig
from collections.abc import Iterator, Sequence
from pathlib import Path

LOCALE_DIR = Path("/usr/share/locale")


# ---------------------------------------------------------------------------- stdlib sources
def stdlib_dir() -> Path:
    return Path(sysconfig.get_paths()["stdlib"])


def stdlib_python_files() -> list[Path]:
    """The top-level ``*.py`` files of the running CPython's standard library, sorted."""
    return sorted(stdlib_dir().glob("*.py"))


def read_text(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")


def stdlib_text(limit: int) -> str:
    """Whole files of :func:`stdlib_python_files`, concatenated, up to and including the one
    that brings the total to at least ``limit`` UTF-8 bytes (not cut to ``limit``)."""
    parts: list[str] = []
    size = 0
    for path in stdlib_python_files():
        text = read_text(path)
        parts.append(text)
        size += len(text.encode("utf-8"))
        if size >= limit:
            break
    return "".join(parts)


# ---------------------------------------------------------------------------- gettext catalogs
def catalog_messages(path: Path) -> list[str]:
    """The translated messages of one ``.mo`` file, in file order; ``[]`` if it cannot be read
    (unreadable, not UTF-8, malformed header)."""
    try:
        with path.open("rb") as fh:
            catalog = gettext.GNUTranslations(fh)._catalog  # type: ignore[attr-defined]
    except (OSError, UnicodeDecodeError, ValueError, IndexError):
        # IndexError: a malformed Plural-Forms header (e.g. mn/glib20.mo on Ubuntu)
        return []
    return [value for key, value in catalog.items() if key and isinstance(value, str) and value]


def catalog_paths(
    langs: Sequence[str] | None = None,
    domains: Sequence[str] | None = None,
    root: Path = LOCALE_DIR,
) -> list[Path]:
    """The catalogs ``root/<lang>/LC_MESSAGES/<domain>.mo`` that exist: in the order of
    ``langs`` and ``domains`` where they are given, else in sorted order."""
    if langs is None:
        paths = sorted(root.glob("*/LC_MESSAGES/*.mo"))
        return paths if domains is None else [p for p in paths if p.stem in domains]
    if domains is None:
        return [p for lang in langs for p in sorted((root / lang / "LC_MESSAGES").glob("*.mo"))]
    paths = [root / lang / "LC_MESSAGES" / f"{domain}.mo" for lang in langs for domain in domains]
    return [p for p in paths if p.is_file()]


def locale_texts(
    langs: Sequence[str] | None = None,
    domains: Sequence[str] | None = None,
    *,
    max_chars_per_lang: int | None = None,
    max_bytes: int | None = None,
    root: Path = LOCALE_DIR,
) -> Iterator[tuple[str, str]]:
    """Yield ``(lang, text)``, one per language with at least one message: its translated
    messages (from :func:`catalog_paths`), one per line.

    ``max_chars_per_lang``: a language's text ends with the message that brings it to at least
    that many characters.  ``max_bytes``: the whole output ends with the catalog that brings
    it to at least that many UTF-8 bytes of messages (newlines not counted).
    """
    total = 0
    by_lang = itertools.groupby(catalog_paths(langs, domains, root), key=lambda p: p.parts[-3])
    for lang, paths in by_lang:
        parts: list[str] = []
        chars = 0
        for path in paths:
            for message in catalog_messages(path):
                parts.append(message)
                chars += len(message)
                total += len(message.encode("utf-8"))
                if max_chars_per_lang is not None and chars >= max_chars_per_lang:
                    break
            if max_bytes is not None and total >= max_bytes:
                break
            if max_chars_per_lang is not None and chars >= max_chars_per_lang:
                break
        if parts:
            yield lang, "\n".join(parts)
        if max_bytes is not None and total >= max_bytes:
            return


#: code point ranges random strings draw from: ASCII, Latin, Greek/Cyrillic, Hebrew/Arabic,
#: Devanagari/Thai, combining marks, CJK, Hangul, emoji, Unicode spaces and line breaks
UNICODE_RANGES = (
    (0x20, 0x7E),
    (0x0A, 0x0D),
    (0xA0, 0x17F),
    (0x370, 0x4FF),
    (0x5D0, 0x6FF),
    (0x900, 0x97F),
    (0xE00, 0xE7F),
    (0x300, 0x36F),
    (0x4E00, 0x9FFF),
    (0xAC00, 0xD7A3),
    (0x1F300, 0x1FAFF),
    (0x2000, 0x206F),
    (0x3000, 0x303F),
    (0xFE00, 0xFE0F),
    (0x10000, 0x1007F),
)


def random_unicode(count: int, seed: int = 0, max_len: int = 40) -> list[str]:
    """``count`` seeded random strings of code points from :data:`UNICODE_RANGES`."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        chars = []
        for _ in range(rng.randint(1, max_len)):
            lo, hi = rng.choice(UNICODE_RANGES)
            chars.append(chr(rng.randint(lo, hi)))
        out.append("".join(chars))
    return out
