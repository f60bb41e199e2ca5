"""Check the relative links of Markdown files: every ``[text](path)`` and ``[text](path#anchor)``
outside code must name an existing file, and every anchor a heading of the target (or of the
same file for ``(#anchor)``), slugged as GitHub slugs headings.  Run by ``make lint``::

    python tests/doc_links.py README.md docs/*.md

Prints one line per broken link (``file:line: target: why``) and exits 1 if there is one.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from functools import cache
from pathlib import Path

_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_CODE_SPAN = re.compile(r"(`+).*?\1")
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^()\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$")
_HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"", re.IGNORECASE)
_EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)  # http:, https:, mailto:...


def heading_text(markdown: str) -> str:
    """The text GitHub renders for a heading's Markdown: links and images give their text,
    code spans their contents, emphasis markers disappear."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", markdown)
    text = re.sub(r"(`+)(.*?)\1", r"\2", text)
    return re.sub(r"(\*\*|__|\*)", "", text)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text (github-slugger): lower case; every character
    that is not a letter, digit, ``_``, ``-`` or space removed; each space a ``-``."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def markdown_lines(text: str) -> list[tuple[int, str]]:
    """``(line number, line)`` of the lines outside fenced code blocks."""
    out: list[tuple[int, str]] = []
    fence: str | None = None
    for number, line in enumerate(text.splitlines(), 1):
        opened = _FENCE.match(line)
        if opened:
            if fence is None:
                fence = opened.group(1)
            elif opened.group(1) == fence:
                fence = None
            continue
        if fence is None:
            out.append((number, line))
    return out


def anchors(text: str) -> set[str]:
    """Every anchor of a Markdown text: its headings' slugs (a repeated slug gets ``-1``,
    ``-2``... as on GitHub) and explicit ``<a name=...>`` / ``<a id=...>``."""
    found: set[str] = set()
    seen: Counter[str] = Counter()
    for _, line in markdown_lines(text):
        found.update(_HTML_ANCHOR.findall(line))
        heading = _HEADING.match(line)
        if heading is None:
            continue
        base = slug(heading_text(heading.group(2)))
        found.add(base if seen[base] == 0 else f"{base}-{seen[base]}")
        seen[base] += 1
    return found


@cache
def _file_anchors(path: Path) -> frozenset[str]:
    return frozenset(anchors(path.read_text(encoding="utf-8")))


def link_targets(text: str) -> list[tuple[int, str]]:
    """``(line number, target)`` of the inline and reference links outside code."""
    out: list[tuple[int, str]] = []
    for number, line in markdown_lines(text):
        reference = _REFERENCE.match(line)
        if reference:
            out.append((number, reference.group(1)))
            continue
        plain = _CODE_SPAN.sub("", line)
        out.extend((number, match.group(1)) for match in _LINK.finditer(plain))
    return out


def broken_links(path: Path) -> list[str]:
    """``file:line: target: why`` for each relative link of ``path`` that does not resolve."""
    problems: list[str] = []
    for number, target in link_targets(path.read_text(encoding="utf-8")):
        if _EXTERNAL.match(target):
            continue
        file_part, _, anchor = target.partition("#")
        where = f"{path}:{number}: {target}"
        destination = (path.parent / file_part).resolve() if file_part else path.resolve()
        if not destination.exists():
            problems.append(f"{where}: no such file {file_part}")
        elif anchor and destination.suffix == ".md" and anchor not in _file_anchors(destination):
            problems.append(f"{where}: no heading with anchor #{anchor} in {destination.name}")
    return problems


def main(argv: list[str]) -> int:
    problems = [problem for name in argv for problem in broken_links(Path(name))]
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
