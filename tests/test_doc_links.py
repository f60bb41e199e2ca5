"""``tests/doc_links.py`` (run by ``make lint``): GitHub's heading anchors, and the broken links
it must report, on small Markdown texts; README.md and docs/ have none."""

from __future__ import annotations

from pathlib import Path

import pytest

import doc_links

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    ("heading", "anchor"),
    [  # as github.com renders them
        ("What is proven", "what-is-proven"),
        (
            "The Python reference (`python/verified_bpe/`)",
            "the-python-reference-pythonverified_bpe",
        ),
        ("gpt2, r50k_base, p50k_base, p50k_edit", "gpt2-r50k_base-p50k_base-p50k_edit"),
        (
            "Condition C checked at run time (the compiled route)",
            "condition-c-checked-at-run-time-the-compiled-route",
        ),
        ("Foo & Bar", "foo--bar"),
        ("Speed: 3.8× **tiktoken**", "speed-38-tiktoken"),
        ("See [the docs](docs/x.md)", "see-the-docs"),
    ],
)
def test_github_slugs(heading, anchor):
    assert doc_links.slug(doc_links.heading_text(heading)) == anchor


def test_repeated_headings_and_html_anchors():
    text = '# A\n## A\n### A\n<a name="here"></a>\n```\n# not a heading\n```\n'
    assert doc_links.anchors(text) == {"a", "a-1", "a-2", "here"}


def test_reports_broken_links_only(tmp_path):
    (tmp_path / "other.md").write_text("# Real heading\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "# Top\n"
        "[ok](other.md) [ok](other.md#real-heading) [ok](#top) [web](https://x.invalid/a#b)\n"
        "[gone](missing.md) [bad anchor](other.md#nope) [self](#bottom)\n"
        "`[in code](missing.md)`\n"
        "```\n[in a block](missing.md)\n```\n"
        "[ref]: other.md#nope\n",
        encoding="utf-8",
    )
    problems = doc_links.broken_links(page)
    assert [p.split(": ")[1] for p in problems] == [
        "missing.md",
        "other.md#nope",
        "#bottom",
        "other.md#nope",
    ]
    assert all(p.startswith(f"{page}:") for p in problems)
    assert doc_links.main([str(page)]) == 1


def test_readme_and_docs_have_no_broken_link():
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    assert doc_links.main([str(f) for f in files]) == 0
