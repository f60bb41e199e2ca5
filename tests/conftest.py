"""Shared test configuration: import path, the ``slow`` marker, hypothesis settings, corpora,
and a tally of differential cases that is printed at the end of the run."""

from __future__ import annotations

import os
import sys
from collections import Counter
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT / "python") not in sys.path:
    sys.path.insert(0, str(ROOT / "python"))

from verified_bpe.verify import corpus  # noqa: E402
from verified_bpe.verify.corpus import read_text, stdlib_dir, stdlib_python_files  # noqa: E402

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

# Unicode snippets that hypothesis glues together: scripts, combining marks, emoji
# sequences, case-folding and compatibility oddities, Unicode spaces and line breaks.
UNICODE_SNIPPETS = (
    "héllo",
    "naïve",
    "Ωμέγα",
    "Привет",
    "日本語",
    "中文字符",
    "한국어",
    "עברית",
    "مرحبا",
    "हिन्दी",
    "ไทย",
    "e\u0301",
    "\u0301",
    "😀",
    "👍🏽",
    "👨‍👩‍👧",
    "ſ",
    "'ſ",
    "'ſt",
    "\u212a",
    "ǅ",
    "ʰ",
    "²",
    "٣",
    "Ⅻ",
    "\u00a0",
    "\u3000",
    "\u2028",
    "\u0085",
    "\x1c",
    " ",
    "\n",
    "'s",
    "'LL",
    "12345",
    "...",
    "\ufeff",
    "\u200b",
    "İ",
    "ß",
    "ﬁ",
    "\U0001d400",
    "AbC",
    " Émile",
)

# A few mixed texts (prose, code, CJK, many scripts and emoji, contractions) that several
# differential tests encode first.
MIXED_TEXTS = (
    "Hello, world! It's 2024; the quick brown fox jumps over 13 lazy dogs.\n\n",
    "def f(x):\n        return x ** 2  # square\n\t\r\n" + " " * 30 + "end",
    "中文字符和日本語のテキスト、한국어 문장도 있습니다。",
    "naïve café Ωμέγα Привет עברית مرحبا हिन्दी 😀👍🏽 e\u0301",
    "I'm you'll WE'VE they'd SHE'S   \n",
)

_TALLY: Counter[str] = Counter()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: long-running test (deselect with -m 'not slow')")


def _schedule_key(item: pytest.Item) -> tuple[int, int]:
    """Lean-marked tests first, then the other slow ones (in each of the two, the cases of
    one encoding together: `cl100k_base` before `o200k_base`), then the rest in file order."""
    group = 0 if item.get_closest_marker("lean") else 1 if item.get_closest_marker("slow") else 2
    if group == 2:
        return group, 0
    params = getattr(getattr(item, "callspec", None), "params", {})
    ranks = [ENCODINGS.index(v) for v in params.values() if isinstance(v, str) and v in ENCODINGS]
    return group, ranks[0] if ranks else len(ENCODINGS)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Start the long tests first (a stable sort: the order is the same in every worker).
    With `make test`'s ``-n 2 --maxschedchunk 1`` the workers take tests one or two at a time
    in this order: worker 1 gets route 3 and route 1 on `cl100k_base`, worker 2 the same on
    `o200k_base`, so the long Lean checks run side by side and the short tests fill the end."""
    items.sort(key=_schedule_key)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Under pytest-xdist (``make test`` runs ``-n 2``) a worker hands its tally to the
    controller, which prints the sum."""
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["verified_bpe_tally"] = dict(_TALLY)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:  # noqa: ANN001 - xdist's worker node
    _TALLY.update(getattr(node, "workeroutput", {}).get("verified_bpe_tally", {}))


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:  # noqa: ANN001
    if not _TALLY:
        return
    terminalreporter.section("verified_bpe: corpora used")
    for name, count, size in corpus_sizes():
        where = CORPUS_SOURCES[name]
        terminalreporter.write_line(f"{name}: {count} texts, {size:,} bytes ({where})")
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
# ``read_text``, ``stdlib_dir`` and ``stdlib_python_files`` (imported above) come from
# ``verified_bpe.verify.corpus``; test modules import them from here.
LOCALE_LANGS = ("ja", "zh_CN", "ko", "ru", "uk", "el", "ar", "he", "hi", "th", "vi", "de", "fr")
LOCALE_DOMAINS = ("coreutils", "glib20", "gtk20", "apt", "iso_3166", "iso_639", "PackageKit")


#
# The corpora are files of this machine, not of the project: a missing one must not shrink
# the run silently. Under CI (``CI`` set, as ``.ci/run`` is run, or
# ``VERIFIED_BPE_REQUIRE_CORPORA=1``) a missing corpus fails every test that reads it and
# ``tests/test_corpora.py``; elsewhere those tests skip, naming what is missing. The sizes
# found are printed at the end of the run ("corpora used").
CORPUS_SOURCES = {
    "stdlib": "CPython's standard library sources (<stdlib>/*.py)",
    "cjk": "CPython's test/cjkencodings/*-utf8.txt (Debian: package libpython3.X-testsuite)",
    "locale": "gettext catalogs /usr/share/locale/<lang>/LC_MESSAGES/<domain>.mo of "
    f"{', '.join(LOCALE_DOMAINS)} (Debian: e.g. coreutils, libglib2.0-data, apt, iso-codes)",
}


def corpora_required() -> bool:
    """Whether a missing corpus is a failure (CI) rather than a skip."""
    ci = os.environ.get("CI", "").lower() not in ("", "0", "false", "no")
    return ci or os.environ.get("VERIFIED_BPE_REQUIRE_CORPORA", "") == "1"


def require_corpus(name: str, texts: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """``texts`` if the corpus ``name`` (a key of :data:`CORPUS_SOURCES`) was found; else fail
    (under CI) or skip, naming what is missing."""
    if texts:
        return texts
    message = f"corpus {name!r} not found on this machine: {CORPUS_SOURCES[name]}"
    if corpora_required():
        pytest.fail(message + " (required under CI)", pytrace=False)
    pytest.skip(message)


@cache
def locale_texts(max_chars_per_lang: int = 60_000) -> list[tuple[str, str]]:
    """Translated messages from the gettext catalogs installed on this machine, one text per
    language of ``LOCALE_LANGS`` (domains ``LOCALE_DOMAINS``)."""
    texts = corpus.locale_texts(LOCALE_LANGS, LOCALE_DOMAINS, max_chars_per_lang=max_chars_per_lang)
    return [(f"locale:{lang}", text) for lang, text in texts]


@cache
def cjk_texts() -> list[tuple[str, str]]:
    """CPython's ``test/cjkencodings/*-utf8.txt`` (Chinese, Japanese, Korean samples)."""
    folder = stdlib_dir() / "test" / "cjkencodings"
    return [(f"cjk:{p.name}", read_text(p)) for p in sorted(folder.glob("*-utf8.txt"))]


def unicode_corpus() -> list[tuple[str, str]]:
    """The non-English texts: :func:`cjk_texts` and :func:`locale_texts`; each must be
    there (:func:`require_corpus`)."""
    return require_corpus("cjk", cjk_texts()) + require_corpus("locale", locale_texts())


@cache
def stdlib_texts() -> list[tuple[str, str]]:
    return [(f"stdlib:{p.name}", read_text(p)) for p in stdlib_python_files()]


@pytest.fixture(scope="session")
def stdlib_corpus() -> list[tuple[str, str]]:
    return require_corpus("stdlib", stdlib_texts())


@pytest.fixture(scope="session")
def non_english_corpus() -> list[tuple[str, str]]:
    return unicode_corpus()


def corpus_sizes() -> list[tuple[str, int, int]]:
    """``(name, texts, UTF-8 bytes)`` of each corpus as found on this machine."""
    found = {"stdlib": stdlib_texts(), "cjk": cjk_texts(), "locale": locale_texts()}
    return [
        (name, len(texts), sum(len(text.encode("utf-8")) for _, text in texts))
        for name, texts in found.items()
    ]
