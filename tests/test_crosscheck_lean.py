"""Route 1 of the cross-check: Lean's kernel evaluates the spec on real vocabulary slices
and must agree with tiktoken (and the Python reference) on every fact.

The fast tests check the generator against independent oracles (the `regex` module for
branch coverage, Python's own string parsing for the Lean literals, a planted disagreement).
The `lean`-marked tests run the offline Lean on the generated modules (minutes each).
"""

from __future__ import annotations

import math
import random
import re
from pathlib import Path

import pytest
import regex

from verified_bpe.engine.patterns import CL100K_PATTERN_ORIGINAL
from verified_bpe.verify import crosscheck as cc

REPO = Path(__file__).resolve().parents[1]

#: facts per encoding in the Lean run: a small kernel slice; most of the cross-check volume is
#: route 3 (tests/test_crosscheck_exec.py, compiled code on the full vocabularies)
#: (kernel cost per fact and what the counts were chosen for: docs/crosscheck.md)
N_GENERATED = 20
N_LINES = 6
#: short texts in several scripts (all of `cc.UNICODE_TEXTS`) and random Unicode strings
N_UNICODE = len(cc.UNICODE_TEXTS)
N_RANDOM = 4


def _ci_texts() -> list[str]:
    return cc.default_texts(N_GENERATED, N_LINES, N_UNICODE, N_RANDOM)


def _tiktoken_pattern(name: str, monkeypatch) -> str:
    """The encoding's ``pat_str`` as tiktoken_ext/openai_public.py builds it (no download)."""
    import tiktoken_ext.openai_public as openai_public

    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", lambda *a, **kw: {})
    return getattr(openai_public, name)()["pat_str"]


def _alternatives(pattern: str) -> list[str]:
    """Top-level alternatives of a regex (split at `|` outside groups and classes)."""
    parts, depth, cls, cur, i = [], 0, False, "", 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            cur += pattern[i : i + 2]
            i += 2
            continue
        if cls:
            cls = ch != "]"
        elif ch == "[":
            cls = True
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            parts.append(cur)
            cur = ""
            i += 1
            continue
        cur += ch
        i += 1
    return [*parts, cur]


def test_generated_strings_hit_every_branch_of_the_regex():
    alts = _alternatives(CL100K_PATTERN_ORIGINAL)
    assert len(alts) == 7
    grouped = regex.compile("|".join(f"({a})" for a in alts))
    texts = cc.covering_ascii_strings(N_GENERATED, seed=0)
    hit = set()
    for text in texts:
        for m in grouped.finditer(text):
            hit.add(m.lastindex)
    assert hit == set(range(1, 8))


def test_lean_string_literals_match_python():
    # Lean's escapes \n \t \r \\ \" \xHH \uHHHH are Python's too: parse the literal back
    texts = cc.covering_ascii_strings(200, seed=3) + ['a"b\\c', "\x00\x7f"]
    texts += cc.unicode_texts(1000) + cc.random_texts(200, seed=3)
    for text in texts:
        literal = cc.lean_string(text)
        assert literal.startswith('"') and literal.endswith('"')
        assert eval(literal) == text  # noqa: S307 - a string literal we produced
        assert literal.isprintable()  # invisible code points are escaped


@pytest.mark.parametrize("name", cc.ENCODINGS)
def test_ci_texts_hit_every_branch_of_the_encodings_pattern(name, monkeypatch):
    """Every alternative of the encoding's own pattern (tiktoken's, read from tiktoken_ext)
    produces a chunk of some fact text, and the texts go beyond ASCII: several scripts, emoji
    and combining marks (the `regex` module's groups and Unicode data are the oracle)."""
    import unicodedata

    pattern = _tiktoken_pattern(name, monkeypatch)
    alts = _alternatives(pattern)
    assert len(alts) == (8 if name == "cl100k_base" else 7)
    grouped = regex.compile("|".join(f"({a})" for a in alts))
    texts = _ci_texts()
    hit = {m.lastindex for text in texts for m in grouped.finditer(text)}
    assert hit == set(range(1, len(alts) + 1))
    chars = "".join(texts)
    for script in (
        "CYRILLIC",
        "GREEK",
        "HEBREW",
        "ARABIC",
        "DEVANAGARI",
        "THAI",
        "CJK",
        "HIRAGANA",
        "HANGUL",
    ):
        assert any(unicodedata.name(c, "").startswith(script) for c in chars), script
    assert any(ord(c) >= 0x1F300 for c in chars)  # emoji
    assert any(unicodedata.category(c) == "Mn" for c in chars)  # combining marks
    assert any(unicodedata.category(c) == "Lt" for c in chars)  # title case (o200k's U)


def test_python_and_tiktoken_disagreement_is_refused(monkeypatch):
    sl = cc.load_slice("cl100k_base", 1000)
    real = cc.oracle

    class Wrong:
        def __init__(self, enc):
            self.enc = enc

        def encode_ordinary(self, text):
            ids = self.enc.encode_ordinary(text)
            return [ids[0] + 1, *ids[1:]]

    monkeypatch.setattr(cc, "oracle", lambda s: Wrong(real(s)))
    with pytest.raises(cc.CrossCheckError, match="Python"):
        cc.make_facts(sl, ["Hello world"])


@pytest.mark.parametrize("name", cc.ENCODINGS)
def test_facts_are_tiktokens_ids_with_the_encodings_own_pattern(name, monkeypatch):
    """The expected ids are those of a tiktoken Encoding built here from tiktoken_ext's pattern
    and the slice's ranks, and the facts state the encoding's own encoder."""
    import tiktoken

    sl = cc.load_slice(name, 1000)
    facts = cc.make_facts(sl, _ci_texts())
    enc = tiktoken.Encoding(
        name="oracle",
        pat_str=_tiktoken_pattern(name, monkeypatch),
        mergeable_ranks=sl.ranks,
        special_tokens={},
    )
    assert [list(f.ids) for f in facts] == [enc.encode_ordinary(f.text) for f in facts]
    encoder = "encodeCl100k" if name == "cl100k_base" else "encodeO200k"
    source = cc.render_module(sl, facts, ranks_ok=True)
    assert source.count(f"example : {encoder} merges shuffle ") == len(facts)
    assert f"theorem roundtrip (s : String) :\n    decodeRanks ranks ({encoder} " in source


_DEF = re.compile(r"^def (ranks|merges)(\d*) : \w+ :=\s*(.*?)\n\n", re.M | re.S)


def _module_tables(source: str) -> tuple[list, list]:
    """The rank table and merge table a module's Lean text defines, read back by
    following `def ranks := ranks0 ++ …` (and `merges`) through the block definitions."""
    defs = {(kind, k): body for kind, k, body in _DEF.findall(source)}
    tables = []
    for kind in ("ranks", "merges"):
        names = [n.strip() for n in defs[(kind, "")].split("++")]
        assert names == [f"{kind}{k}" for k in range(len(names))]
        assert (kind, str(len(names))) not in defs  # no block left out of the table
        literal = "".join(defs[(kind, n.removeprefix(kind))] for n in names)
        tables.append(eval(literal.replace("][", "] + ["), {}))  # noqa: S307 - our literal
    ranks = [(bytes(t), r) for t, r in tables[0]]
    return ranks, tables[1]


@pytest.mark.parametrize("name", cc.ENCODINGS)
def test_module_ranks_are_the_slice_and_every_block_is_checked(name):
    """The `ranks` the module proves condition C for is the first 1,000 ranks of the
    vocabulary file, in rank order; every merge joins two of its tokens into a third; every
    block has its three kernel checks and is named in the assembled theorems."""
    from verified_bpe.engine.vocab import load_ranks

    sl = cc.load_slice(name, 1000)
    source = cc.render_module(sl, [], ranks_ok=True)
    ranks, merges = _module_tables(source)
    expected = sorted(((t, r) for t, r in load_ranks(name).items() if r < 1000), key=lambda e: e[1])
    assert ranks == expected
    token = {r: t for t, r in ranks}
    assert all(token[a] + token[b] == token[r] for (a, b), r in merges)
    assert [r for _, r in merges] == [r for t, r in ranks if len(t) >= 2]
    n_blocks = source.count("def ranks") - 1
    for k in range(n_blocks):
        for thm in (f"lookup{k}", f"twoParts{k}", f"recover{k}"):
            assert f"theorem {thm} :" in source
            assert re.search(rf"\b{thm}\b[,\]]", source), thm  # used in an assembly
    for thm in (
        "treeOk",
        "checkedFast",
        "checked",
        "ranksOk",
        "recoverMerges_eq",
        "rankShuffle_eq",
        "encode_eq_ranks",
        "encodeWith_eq_ranks",
        "encodeChunk_eq_ranks",
    ):
        assert f"theorem {thm} " in source
    # condition C comes from the fast checker through its soundness theorem
    assert "checkRanks_of_checkRanksFast checkedFast" in source
    assert "recoverMerges_eq_of_checkRankTree treeOk" in source
    assert "rankShuffle_eq_of_checkRankTree treeOk" in source


def _key(token: bytes) -> int:
    """`Bpe.keyOf`, computed independently: the bytes little-endian under a leading 1."""
    return int.from_bytes(token + b"\x01", "little")


def test_key_of_is_the_little_endian_number_and_injective():
    from verified_bpe.spec.ranks.tree import key_of

    rng = random.Random(5)
    tokens = {b"", b"\x00", b"\x00\x00", b"\x01", b"\xff", b"\x00\x01", b"\x01\x00"}
    tokens |= {rng.randbytes(rng.randint(0, 6)) for _ in range(2000)}
    keys = {key_of(t) for t in tokens}
    assert len(keys) == len(tokens)
    assert all(key_of(t) == _key(t) for t in tokens)


_TREE = re.compile(r"^def tree : RankTree :=\s*(.*?)\n\n", re.M | re.S)


def _module_tree(source: str):
    """The `tree` literal of a module's Lean text, parsed into (key, rank, left, right)."""
    tokens = re.findall(r"\(|\)|\.node|\.leaf|\d+", _TREE.search(source).group(1))
    pos = 0

    def take() -> str:
        nonlocal pos
        pos += 1
        return tokens[pos - 1]

    def parse():
        tok = take()
        if tok == ".leaf":
            return None
        assert tok == "(" and take() == ".node"
        key, rank = int(take()), int(take())
        node = (key, rank, parse(), parse())
        assert take() == ")"
        return node

    tree = parse()
    assert pos == len(tokens)
    return tree


def _in_order(tree) -> list[tuple[int, int]]:
    if tree is None:
        return []
    key, rank, left, right = tree
    return [*_in_order(left), (key, rank), *_in_order(right)]


def _height(tree) -> int:
    return 0 if tree is None else 1 + max(_height(tree[2]), _height(tree[3]))


def _search(tree, key: int) -> int | None:
    while tree is not None and tree[0] != key:
        tree = tree[2] if key < tree[0] else tree[3]
    return None if tree is None else tree[1]


@pytest.mark.parametrize("name", cc.ENCODINGS)
def test_module_tree_is_the_balanced_search_tree_of_the_slice(name):
    """The `tree` literal is a search tree holding exactly the slice's tokens under their
    keys, balanced (the middle entry at every root, as `RankTree.build` places it), so that
    a search finds every token's rank and nothing for other byte strings."""
    sl = cc.load_slice(name, 1000)
    tree = _module_tree(cc.render_module(sl, [], ranks_ok=True))
    pairs = _in_order(tree)
    assert pairs == sorted((_key(t), r) for t, r in sl.ranks.items())
    assert all(a[0] < b[0] for a, b in zip(pairs, pairs[1:], strict=False))
    assert _height(tree) == math.ceil(math.log2(len(pairs) + 1))

    def middle_at_roots(node) -> bool:
        if node is None:
            return True
        inner = _in_order(node)
        return (
            inner[len(inner) // 2] == node[:2]
            and middle_at_roots(node[2])
            and middle_at_roots(node[3])
        )

    assert middle_at_roots(tree)
    assert all(_search(tree, _key(t)) == r for t, r in sl.ranks.items())
    rng = random.Random(7)
    others = {rng.randbytes(rng.randint(0, 4)) for _ in range(3000)} - set(sl.ranks)
    assert all(_search(tree, _key(t)) is None for t in others)


def test_planted_bad_rank_table_is_refused():
    """A table that fails condition C is not written (the Lean check would fail)."""
    from verified_bpe.errors import BpeError

    ranks = dict(cc.load_slice("cl100k_base", 300).ranks)
    with pytest.raises(cc.CrossCheckError, match="check_ranks"):
        cc.render_module(cc.Slice("cl100k_base", 301, {**ranks, b"": 300}), [], ranks_ok=True)
    # a token of three bytes swaps ranks with its first part: it no longer splits in two
    t3 = next(t for t in ranks if len(t) == 3)
    t2 = next(t for t in ranks if len(t) == 2 and t3.startswith(t))
    swapped = {**ranks, t3: ranks[t2], t2: ranks[t3]}
    with pytest.raises(BpeError, match="parts"):
        cc.render_module(cc.Slice("cl100k_base", 300, swapped), [], ranks_ok=True)


# ---------------------------------------------------------------------- Lean runs
def _lean():
    from verified_bpe.toolchain.build import Builder
    from verified_bpe.toolchain.runner import LeanRunner

    runner = LeanRunner(REPO, REPO / ".cache", log=lambda *_: None)
    builder = Builder(REPO, runner, jobs=2, log=lambda *_: None)
    builder.build(scan=True)  # cached after `make verify`
    return runner, builder


def _write(source: str, name: str) -> Path:
    path = REPO / ".cache" / "crosscheck" / "BpeCross" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source, encoding="utf-8")
    return path


def _lean_run(name: str):
    """One encoding's module, checked by Lean (one core). The two encodings are separate
    tests so that `make test`'s two workers check them at the same time; each writes its own
    file."""
    runner, builder = _lean()
    sl = cc.load_slice(name, 1000)
    facts = cc.make_facts(sl, _ci_texts())
    source = cc.render_module(sl, facts, reduce_sample=3, ranks_ok=True)
    path = _write(source, f"{cc.MODULE_NAMES[name]}.lean")
    return facts, source, runner.check(path, [builder.out_dir])


#: `#reduce`'s output: the encoder's ids, or `some ids` through the search tree
REDUCED = re.compile(r"^(?:some )?(\[[\d,\s]*\])$", re.M)


@pytest.mark.lean
@pytest.mark.slow
@pytest.mark.parametrize("name", cc.ENCODINGS)
def test_lean_kernel_agrees_with_tiktoken(name, tally):
    facts, source, result = _lean_run(name)
    lines = cc.fact_lines(source)
    failed = sorted({lines[m.line] for m in result.errors if m.line in lines})
    report = [f"{facts[k].text!r}: tiktoken = Python = {list(facts[k].ids)}" for k in failed]
    assert result.ok, "\n".join(report) + "\n" + result.output[-3000:]
    assert "theorem roundtrip " in source
    assert "theorem ranksOk " in source and "theorem checkedFast " in source
    # Lean's own output (#reduce) for a sample, beside tiktoken's
    reduced = [eval(m) for m in REDUCED.findall(result.output)]  # noqa: S307 - id lists
    assert reduced == [list(f.ids) for f in facts[:3]], result.output[-3000:]
    tally(f"crosscheck {name}: facts checked by the Lean kernel", len(facts))
    tally(f"crosscheck {name}: Lean seconds", int(result.seconds))
    tally(f"crosscheck {name}: Lean CPU seconds", int(result.cpu_seconds))
    tally(f"crosscheck {name}: Lean peak RSS MiB", result.peak_rss_kib // 1024)


@pytest.mark.lean
def test_planted_wrong_id_fails_the_lean_check():
    """A wrong id fails the kernel's check at its fact, and only there. On the first 300
    ranks (44 merges, used by both facts), whose kernel evaluation is cheap: the check that
    fails is the same `decide` as on CI's 1,000-rank slices."""
    runner, builder = _lean()
    sl = cc.load_slice("cl100k_base", 300)
    facts = cc.make_facts(sl, ["Hello world", " tokenization"])
    wrong = cc.Fact(facts[1].text, (facts[1].ids[0] + 1, *facts[1].ids[1:]))
    source = cc.render_module(sl, [facts[0], wrong], well_formed=False)
    result = runner.check(_write(source, "Planted.lean"), [builder.out_dir])
    assert not result.ok
    lines = cc.fact_lines(source)
    assert {lines.get(m.line) for m in result.errors} == {1}, result.output[-3000:]
