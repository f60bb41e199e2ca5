"""The corpora the differential tests read are there (``tests/conftest.py``): under CI a
missing one fails here, by name, instead of shrinking the run; elsewhere this skips.  The
sizes found are printed at the end of every run that compares cases ("corpora used")."""

from __future__ import annotations

import pytest

from conftest import CORPUS_SOURCES, cjk_texts, locale_texts, require_corpus, stdlib_texts

FINDERS = {"stdlib": stdlib_texts, "cjk": cjk_texts, "locale": locale_texts}


@pytest.mark.parametrize("name", sorted(CORPUS_SOURCES))
def test_corpus_present(name):
    texts = require_corpus(name, FINDERS[name]())
    assert all(text for _, text in texts), "an empty text in the corpus"


def test_missing_corpus_fails_under_ci(monkeypatch):
    """The rule itself: with ``CI`` set a missing corpus is a failure, without it a skip."""
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="'cjk' not found"):
        require_corpus("cjk", [])
    monkeypatch.delenv("CI")
    monkeypatch.delenv("VERIFIED_BPE_REQUIRE_CORPORA", raising=False)
    with pytest.raises(pytest.skip.Exception, match="test/cjkencodings"):
        require_corpus("cjk", [])
