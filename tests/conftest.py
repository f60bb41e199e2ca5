"""Shared test configuration: import path, the ``slow`` marker, hypothesis settings, corpora,
and a tally of differential cases that is printed at the end of the run."""

from __future__ import annotations

import gettext
import os
import sys
import sysconfig
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT / "python") not in sys.path:
    sys.path.insert(0, str(ROOT / "python"))

# Offline machines: do not wait for tiktoken's download attempt more than a moment.
os.environ.setdefault("VERIFIED_BPE_TIKTOKEN_TIMEOUT", "5")

settings.register_profile(
    "default",
    deadline=None,
    max_examples=100,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "thorough",
    deadline=None,
    max_examples=1000,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

ENCODINGS = ("cl100k_base", "o200k_base")

_TALLY: Counter[str] = Counter()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: long-running test (deselect with -m 'not slow')")


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:  # noqa: ANN001
    if not _TALLY:
        return
    terminalreporter.section("verified_bpe: cases compared")
    for key in sorted(_TALLY):
        terminalreporter.write_line(f"{key}: {_TALLY[key]}")


@pytest.fixture(scope="session")
def tally():
    """``tally(key, n=1)`` adds ``n`` to the counter ``key`` shown in the run summary."""

    def add(key: str, n: int = 1) -> None:
        _TALLY[key] += n

    return add


# ---------------------------------------------------------------------------- corpora
def stdlib_dir() -> Path:
    return Path(sysconfig.get_paths()["stdlib"])


def stdlib_python_files() -> list[Path]:
    """The top-level ``*.py`` files of the CPython standard library running the tests."""
    return sorted(stdlib_dir().glob("*.py"))


def read_text(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")


LOCALE_LANGS = ("ja", "zh_CN", "ko", "ru", "uk", "el", "ar", "he", "hi", "th", "vi", "de", "fr")
LOCALE_DOMAINS = ("coreutils", "glib20", "gtk20", "apt", "iso_3166", "iso_639", "PackageKit")


def locale_texts(max_chars_per_lang: int = 60_000) -> list[tuple[str, str]]:
    """Translated messages from the gettext catalogs installed on this machine
    (``/usr/share/locale/<lang>/LC_MESSAGES/*.mo``), one text per language."""
    texts: list[tuple[str, str]] = []
    base = Path("/usr/share/locale")
    for lang in LOCALE_LANGS:
        parts: list[str] = []
        size = 0
        for domain in LOCALE_DOMAINS:
            mo = base / lang / "LC_MESSAGES" / f"{domain}.mo"
            if not mo.is_file():
                continue
            try:
                with mo.open("rb") as fh:
                    catalog = gettext.GNUTranslations(fh)._catalog  # type: ignore[attr-defined]
            except (OSError, UnicodeDecodeError, ValueError):
                continue
            for key, value in catalog.items():
                if key == "" or not isinstance(value, str) or not value:
                    continue
                parts.append(value)
                size += len(value)
                if size >= max_chars_per_lang:
                    break
            if size >= max_chars_per_lang:
                break
        if parts:
            texts.append((f"locale:{lang}", "\n".join(parts)))
    return texts


def cjk_texts() -> list[tuple[str, str]]:
    """CPython's ``test/cjkencodings/*-utf8.txt`` (Chinese, Japanese, Korean samples)."""
    folder = stdlib_dir() / "test" / "cjkencodings"
    return [(f"cjk:{p.name}", read_text(p)) for p in sorted(folder.glob("*-utf8.txt"))]


def unicode_corpus() -> list[tuple[str, str]]:
    return cjk_texts() + locale_texts()


@pytest.fixture(scope="session")
def stdlib_corpus() -> list[tuple[str, str]]:
    files = stdlib_python_files()
    if not files:
        pytest.skip("no CPython standard library sources found")
    return [(f"stdlib:{p.name}", read_text(p)) for p in files]


@pytest.fixture(scope="session")
def non_english_corpus() -> list[tuple[str, str]]:
    texts = unicode_corpus()
    if not texts:
        pytest.skip("no non-English text found on this machine")
    return texts
