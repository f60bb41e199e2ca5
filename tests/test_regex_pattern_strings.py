"""The pattern strings that ``lean/Bpe/Regex/PatternStrings.lean`` proves ``toRegex cl100kPattern``
and ``toRegex o200kPattern`` equal to (kernel ``decide``) are tiktoken 0.14's own pattern strings,
byte for byte (issue 33, item 2).  The literals are read from the Lean file, so the oracle is
tiktoken's ``tiktoken_ext.openai_public`` and not a copy in this package."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

LEAN_FILE = Path(__file__).resolve().parents[1] / "lean" / "Bpe" / "Regex" / "PatternStrings.lean"


def lean_string(source: str, name: str) -> str:
    """The value of ``def name : String := "…"``: Lean's escapes ``\\\\``, ``\\"``, ``\\n``,
    ``\\t``, ``\\r`` and its gaps (a backslash at the end of a line, then the next line's
    leading spaces, stand for nothing)."""
    m = re.search(rf'def {name} : String :=\s*"((?:[^"\\]|\\.|\\\n)*)"', source)
    assert m, f"no string definition {name}"
    out, body, i = [], m.group(1), 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt == "\n":
            i += 2
            while body[i] in " \t":
                i += 1
            continue
        out.append({"\\": "\\", '"': '"', "n": "\n", "t": "\t", "r": "\r"}[nxt])
        i += 2
    return "".join(out)


def test_lean_string_reader():
    src = 'def s : String :=\n  "a\\\\b\\"c\\\n    | d"\n'
    assert lean_string(src, "s") == 'a\\b"c| d'


@pytest.mark.parametrize(
    ("lean_name", "encoding"),
    [("cl100kPatternString", "cl100k_base"), ("o200kPatternString", "o200k_base")],
)
def test_lean_pattern_string_is_tiktokens(monkeypatch, lean_name, encoding):
    openai_public = pytest.importorskip("tiktoken_ext.openai_public")
    # the constructors download the rank file; only the pattern string is wanted here
    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", lambda *a, **k: {})
    expected = getattr(openai_public, encoding)()["pat_str"]
    assert lean_string(LEAN_FILE.read_text(encoding="utf-8"), lean_name) == expected


def test_nat_to_regex_is_decimal():
    """The quantifier's own decimal printer (kernel-evaluable) writes what ``str`` writes."""
    from verified_bpe.spec.regex.print import nat_to_regex

    assert [nat_to_regex(n) for n in range(2000)] == [str(n) for n in range(2000)]
    assert nat_to_regex(10**30) == str(10**30)
