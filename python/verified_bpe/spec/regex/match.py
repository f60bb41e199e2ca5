"""Regex semantics: backtracking, leftmost-first, as tiktoken's engine (fancy-regex).

Lean: ``Bpe.Regex.Match``.  Lean's suffix ``s`` is the index ``i`` into the text ``t``
(``s = t[i:]``, ``s.length = len(t) - i``); a continuation takes the index where a sub-match
ends and returns the end of the whole match, or ``None`` (fail: backtrack).  The recursion
is as deep as Lean's (one frame per iteration of a loop): callers raise Python's recursion
limit for long texts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .syntax import (
    Alt,
    Caseless,
    Char,
    CharClass,
    Classes,
    Cls,
    Empty,
    Eos,
    Esc,
    Group,
    Item,
    ItemChar,
    ItemProp,
    ItemRange,
    NotAhead,
    Re,
    Rep,
    Seq,
)

Text = Sequence[int]
Cont = Callable[[int], int | None]
Matcher = Callable[[int, Cont], int | None]


def item_holds(c: Classes, x: int, i: Item) -> bool:
    """Lean: ``itemHolds``."""
    if isinstance(i, ItemChar):
        return x == i.c
    if isinstance(i, ItemRange):
        return i.lo <= x <= i.hi
    assert isinstance(i, ItemProp)
    return c.has(i.p, x)


def class_base(c: Classes, k: CharClass, x: int) -> bool:
    """Lean: ``classBase``."""
    if isinstance(k, Esc):
        return c.has(k.p, x)
    return any(item_holds(c, x, i) for i in k.items)


def class_negated(k: CharClass) -> bool:
    """Lean: ``classNegated``."""
    return k.negated


def class_holds(c: Classes, ci: bool, k: CharClass, x: int) -> bool:
    """Lean: ``classHolds``: case-closed (when ``ci``), then negated."""
    inside = class_base(c, k, x) or (ci and any(class_base(c, k, y) for y in c.orbit(x)))
    return inside != class_negated(k)


def char_holds(c: Classes, ci: bool, lit: int, x: int) -> bool:
    """Lean: ``charHolds``."""
    return x == lit or (ci and lit in c.orbit(x))


def step(t: Text, p: Callable[[int], bool], k: Cont, i: int) -> int | None:
    """Lean: ``step``: one code point satisfying ``p``, then ``k``."""
    if i >= len(t):
        return None
    return k(i + 1) if p(t[i]) else None


def times(m: Matcher, k: Cont, n: int, i: int) -> int | None:
    """Lean: ``times``: exactly ``n`` iterations of ``m``, then ``k``."""
    if n == 0:
        return k(i)
    return m(i, lambda j: times(m, k, n - 1, j))


def up_to(m: Matcher, k: Cont, n: int, i: int) -> int | None:
    """Lean: ``upTo``: at most ``n`` more iterations, greedy, then ``k``."""
    if n == 0:
        return k(i)
    r = m(i, lambda j: up_to(m, k, n - 1, j))
    return r if r is not None else k(i)


def star(t: Text, m: Matcher, k: Cont, n: int, i: int) -> int | None:
    """Lean: ``star``: greedy iterations that each shorten the input, then ``k``."""
    if n == 0:
        return k(i)
    r = m(i, lambda j: star(t, m, k, n - 1, j) if len(t) - j < len(t) - i else None)
    return r if r is not None else k(i)


def repeat_greedy(t: Text, m: Matcher, lo: int, hi: int | None, k: Cont, i: int) -> int | None:
    """Lean: ``repeatGreedy``: ``lo`` iterations, then up to ``hi - lo`` or any number."""

    def rest(j: int) -> int | None:
        if hi is not None:
            return up_to(m, k, max(hi - lo, 0), j)
        return star(t, m, k, len(t) - j + 1, j)

    return times(m, rest, lo, i)


def match_re(c: Classes, t: Text, r: Re, ci: bool, i: int, k: Cont) -> int | None:
    """Lean: ``matchRe``: pass each way ``r`` matches at ``i``, in priority order, to ``k``."""
    if isinstance(r, Empty):
        return k(i)
    if isinstance(r, Char):
        lit = r.c
        return step(t, lambda x: char_holds(c, ci, lit, x), k, i)
    if isinstance(r, Cls):
        cls = r.k
        return step(t, lambda x: class_holds(c, ci, cls, x), k, i)
    if isinstance(r, Seq):
        b = r.b
        return match_re(c, t, r.a, ci, i, lambda j: match_re(c, t, b, ci, j, k))
    if isinstance(r, Alt):
        first = match_re(c, t, r.a, ci, i, k)
        return first if first is not None else match_re(c, t, r.b, ci, i, k)
    if isinstance(r, Rep):
        body = r.r

        def m(j: int, kk: Cont) -> int | None:
            return match_re(c, t, body, ci, j, kk)

        if r.possessive:
            e = repeat_greedy(t, m, r.lo, r.hi, lambda j: j, i)
            return k(e) if e is not None else None
        return repeat_greedy(t, m, r.lo, r.hi, k, i)
    if isinstance(r, Group):
        return match_re(c, t, r.r, ci, i, k)
    if isinstance(r, Caseless):
        return match_re(c, t, r.r, True, i, k)
    if isinstance(r, NotAhead):
        return None if match_re(c, t, r.r, ci, i, lambda j: j) is not None else k(i)
    assert isinstance(r, Eos)
    return k(i) if i == len(t) else None


def match_at(c: Classes, r: Re, t: Text, i: int) -> int | None:
    """Lean: ``matchAt``: the end of the match of ``r`` anchored at ``i``."""
    return match_re(c, t, r, False, i, lambda j: j)


Loop = Callable[[bool, int], list[tuple[int, int]]]


def find_step(c: Classes, r: Re, t: Text, loop: Loop, adj: bool, i: int) -> list[tuple[int, int]]:
    """Lean: ``findStep``: one step of the ``find_iter`` loop at ``i``, ``loop`` for the rest;
    the matches as ``(start, end)`` spans."""
    e = match_at(c, r, t, i)
    if e is not None:
        if len(t) - e < len(t) - i:
            return [(i, e), *loop(True, e)]
        more = [] if i >= len(t) else loop(False, i + 1)
        return more if adj else [(i, i), *more]
    return [] if i >= len(t) else loop(False, i + 1)


def find_loop(c: Classes, r: Re, t: Text, fuel: int, adj: bool, i: int) -> list[tuple[int, int]]:
    """Lean: ``findLoop``."""
    if fuel == 0:
        return []
    return find_step(c, r, t, lambda b, j: find_loop(c, r, t, fuel - 1, b, j), adj, i)


def find_iter_spans(c: Classes, r: Re, t: Text) -> list[tuple[int, int]]:
    """The spans of :func:`find_iter`'s matches."""
    return find_loop(c, r, t, len(t) + 1, False, 0)


def find_iter(c: Classes, r: Re, t: Text) -> list[list[int]]:
    """Lean: ``findIter``: all leftmost non-overlapping matches (gaps skipped)."""
    return [list(t[a:b]) for a, b in find_iter_spans(c, r, t)]
