"""Bpe.Ranks.Tree: the search tree of a rank table answers as the table (``lookTree_eq``).

Oracles: a plain ``dict`` lookup of the table (the spec's ``rankOf`` on a table without
repeated byte strings), Python's ``sorted`` for the merge sort, and the stated properties of a
balanced search tree (in-order keys strictly increase, the root is the middle entry)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from verified_bpe.spec.ranks.tree import (
    build,
    check_rank_tree,
    find,
    key_of,
    keyed_ranks,
    keys_strict,
    look_tree,
    merge_keys,
    rank_tree,
    sort_keys,
    sorted_keys,
)

TOKENS = st.binary(min_size=0, max_size=4)
TABLES = st.dictionaries(TOKENS, st.integers(0, 10**6), max_size=40)
PAIRS = st.lists(st.tuples(st.integers(0, 50), st.integers(0, 9)), max_size=40)


def in_order(tree):
    if tree is None:
        return []
    key, rank, left, right = tree
    return [*in_order(left), (key, rank), *in_order(right)]


def test_key_of_examples():
    assert key_of(b"") == 1
    assert key_of(b"\x00") == 256
    assert key_of(b"ab") == (1 * 256 + ord("b")) * 256 + ord("a")


@given(st.binary(max_size=6), st.binary(max_size=6))
def test_key_of_injective(s, t):
    assert (key_of(s) == key_of(t)) == (s == t)


@given(PAIRS)
def test_sort_keys_is_a_stable_sort_by_key(pairs):
    assert sort_keys(len(pairs), pairs) == sorted(pairs, key=lambda p: p[0])


@given(PAIRS, PAIRS)
def test_merge_keys_of_sorted_lists(xs, ys):
    xs, ys = sorted(xs, key=lambda p: p[0]), sorted(ys, key=lambda p: p[0])
    merged = merge_keys(len(xs) + len(ys), xs, ys)
    assert sorted(merged) == sorted(xs + ys)
    assert [k for k, _ in merged] == sorted(k for k, _ in xs + ys)


@given(PAIRS)
def test_merge_keys_without_fuel_appends(xs):
    assert merge_keys(0, xs, xs) == xs + xs


@given(TABLES)
def test_tree_of_a_table_answers_as_the_table(table):
    entries = list(table.items())
    tree = rank_tree(entries)
    assert check_rank_tree(entries, tree)
    assert in_order(tree) == sorted_keys(entries) == sorted(keyed_ranks(entries))
    for token, rank in entries:
        assert look_tree(tree, token) == rank
    for token in (b"zzzzz", b"\xff" * 5):
        assert look_tree(tree, token) == table.get(token)


@given(TABLES)
def test_root_is_the_middle_entry(table):
    pairs = sorted_keys(list(table.items()))
    tree = build(len(pairs), pairs)
    if pairs:
        assert tree[:2] == pairs[len(pairs) // 2]
    else:
        assert tree is None


@given(TABLES, TOKENS)
def test_check_rank_tree_refuses_other_trees_and_repeats(table, token):
    entries = list(table.items())
    tree = rank_tree(entries)
    if entries:
        key, rank, left, right = tree
        assert not check_rank_tree(entries, (key, rank + 1, left, right))
        twice = [*entries, entries[0]]
        assert not keys_strict(sorted_keys(twice))
        assert not check_rank_tree(twice, rank_tree(twice))
    assert find(tree, key_of(token)) == table.get(token)
