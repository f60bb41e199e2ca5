r"""Random patterns of the regex fragment and random texts, for the differential tests of the
semantics (:mod:`verified_bpe.spec.regex`, mirror of ``lean/Bpe/Regex``).

One generator, two oracles: ``tests/test_spec_regex.py`` runs the printed patterns with the
``regex`` module (:data:`REGEX_FRAGMENT`), :mod:`verified_bpe.verify.fancy_diff` with
fancy-regex at tiktoken 0.14's version (:data:`FANCY_FRAGMENT`).  A :class:`Fragment` says which
characters the texts and literals come from and which combinations a pattern may hold; each
comes with a :class:`~verified_bpe.spec.regex.syntax.Classes` record (tiktoken's tables and the
case orbits of its alphabet) that the tests pin against their oracle.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from ..spec.regex.ascii import ascii_orbit
from ..spec.regex.syntax import (
    Alt,
    Caseless,
    Char,
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
    Property,
    Re,
    Rep,
    Seq,
    Set,
)
from ..spec.unicode import tables as ut

#: The texts' alphabet of the ``regex`` oracle: ASCII of every class, case-folding specials
#: (long s, Kelvin sign), and one or two non-ASCII members of each property.
ALPHABET = (
    "abABsSkKxyz019 \t\n\r'!/-_\u017f\u212a\u00e9\u00c9\u01c5\u02b0\u05d0\u0301\u0663\u3000\u00a0"
)

#: More of Unicode for the fancy-regex oracle: three-member case orbits (sigma, omega and the
#: ohm sign, micro sign, ǅ), a combining mark with case partners (U+0345), letters without a
#: simple case partner (ı, İ, ﬀ), numbers with case (Ⅻ), astral letters with case (Deseret),
#: Cherokee, a CJK ideograph, an emoji, white space and format characters (U+2028, U+0085,
#: U+1680, U+200B), and the regex metacharacters as literals.
FANCY_EXTRA = (
    "\u03a3\u03c3\u03c2\u00df\u1e9e\u0131\u0130\u2126\u03c9\u00b5\u0345\u216b\u217b\u00b2"
    "\U00010400\U00010428\u5b57\U0001f600\u2028\u0085\u200b\u1680\u01c4\u01c6\u13a0\uab70"
    "\ufb00iI$\\.*+?()[]{}^|&~"
)
FANCY_ALPHABET = ALPHABET + FANCY_EXTRA

_TABLES = {
    Property.LETTER: ut.is_l,
    Property.NUMBER: ut.is_n,
    Property.UPPERCASE: ut.is_lu,
    Property.LOWERCASE: ut.is_ll,
    Property.TITLECASE: ut.is_lt,
    Property.MODIFIER: ut.is_lm,
    Property.OTHER_LETTER: ut.is_lo,
    Property.MARK: ut.is_m,
    Property.WHITE_SPACE: ut.is_white_space,
}

#: Case orbits (simple case folding) of the alphabets' non-ASCII characters; the ASCII letters,
#: U+017F and U+212A are :func:`ascii_orbit`'s.  ``tests/test_fancy_diff.py`` reads them off
#: fancy-regex over every code point.
_ORBITS: dict[int, list[int]] = {
    0xE9: [0xC9],
    0xC9: [0xE9],
    0x1C4: [0x1C5, 0x1C6],
    0x1C5: [0x1C4, 0x1C6],
    0x1C6: [0x1C4, 0x1C5],
    0x3A3: [0x3C2, 0x3C3],
    0x3C3: [0x3A3, 0x3C2],
    0x3C2: [0x3A3, 0x3C3],
    0xDF: [0x1E9E],
    0x1E9E: [0xDF],
    0x2126: [0x3A9, 0x3C9],
    0x3C9: [0x3A9, 0x2126],
    0xB5: [0x39C, 0x3BC],
    0x345: [0x399, 0x3B9, 0x1FBE],
    0x216B: [0x217B],
    0x217B: [0x216B],
    0x10400: [0x10428],
    0x10428: [0x10400],
    0x13A0: [0xAB70],
    0xAB70: [0x13A0],
}


def has(p: Property, x: int) -> bool:
    """tiktoken's tables (:mod:`verified_bpe.spec.unicode.tables`)."""
    return _TABLES[p](x)


def orbit(x: int) -> list[int]:
    """The case orbit of a character of the alphabets (without itself)."""
    return _ORBITS.get(x) or ascii_orbit(x)


#: tiktoken's tables, the alphabets' case orbits.
CLASSES = Classes(has, orbit)

PROPERTIES = list(Property)
_CASED = (Property.UPPERCASE, Property.LOWERCASE, Property.TITLECASE)


@dataclass(frozen=True)
class Fragment:
    r"""What random patterns and texts are drawn from: the texts' characters, the literals, the
    ends of ranges; whether ``(?i:…)`` groups and negated classes may meet in one pattern, and
    whether ``\p{Lu}``, ``\p{Ll}``, ``\p{Lt}`` may stand inside ``(?i:…)``, and whether a
    repeat's body may be a lookahead alone (fancy-regex refuses ``(?:(?!a))?``)."""

    alphabet: str
    range_ends: str
    mixed: bool = False
    cased_in_caseless: bool = False
    lookahead_repeats: bool = True


#: For the ``regex`` module: no ``(?i:…)`` with negated classes (its bug), no cased property
#: inside ``(?i:…)`` (intended difference 4); ``$`` and ``\`` are not literals (the oracle
#: rewrites every ``$``).  The generator's draws are those of the original test, seed for seed.
REGEX_FRAGMENT = Fragment(ALPHABET, "abksxzAKSZ019")

#: For fancy-regex: the whole fragment over :data:`FANCY_ALPHABET`, but no repeat of a lookahead
#: (fancy-regex refuses the pattern: "Target of repeat operator is invalid").
FANCY_FRAGMENT = Fragment(
    FANCY_ALPHABET,
    "abksxzAKSZ019\u00e9\u03c3\u03a3\u5b57",
    mixed=True,
    cased_in_caseless=True,
    lookahead_repeats=False,
)


def nullable(r: Re) -> bool:
    """Whether ``r`` may match the empty string (a sound over-approximation)."""
    if isinstance(r, (Char, Cls)):
        return False
    if isinstance(r, (Seq,)):
        return nullable(r.a) and nullable(r.b)
    if isinstance(r, Alt):
        return nullable(r.a) or nullable(r.b)
    if isinstance(r, Rep):
        return r.lo == 0 or nullable(r.r)
    if isinstance(r, (Group, Caseless)):
        return nullable(r.r)
    return True


@dataclass(frozen=True)
class _Mode:
    frag: Fragment
    caseless: bool
    inside_caseless: bool = False

    def properties(self) -> list[Property]:
        if self.inside_caseless and not self.frag.cased_in_caseless:
            return [p for p in PROPERTIES if p not in _CASED]
        return PROPERTIES


def _item(rng: random.Random, mode: _Mode) -> ItemChar | ItemRange | ItemProp:
    kind = rng.randrange(3)
    if kind == 0:
        return ItemChar(ord(rng.choice(mode.frag.alphabet)))
    if kind == 1:
        lo, hi = sorted(ord(rng.choice(mode.frag.range_ends)) for _ in range(2))
        return ItemRange(lo, hi)
    return ItemProp(rng.choice(mode.properties()))


def no_set_operators(items: tuple[Item, ...]) -> tuple[Item, ...]:
    """``items`` without a ``&`` or ``~`` right after the same character: in a class fancy-regex
    reads ``&&`` and ``~~`` as set operators (intersection, symmetric difference). The printer
    escapes both since it was found (``tests/test_fancy_diff.py``); the filter stays so that a
    seed draws the patterns it drew before."""
    out: list[Item] = []
    for i in items:
        if not (out and i == out[-1] and isinstance(i, ItemChar) and chr(i.c) in "&~"):
            out.append(i)
    return tuple(out)


def _atom(rng: random.Random, depth: int, mode: _Mode) -> Re:
    kind = rng.randrange(10)
    negated = (mode.frag.mixed or not mode.caseless) and rng.random() < 0.3
    if kind <= 2:
        return Char(ord(rng.choice(mode.frag.alphabet)))
    if kind == 3:
        return Cls(Esc(negated, rng.choice(mode.properties())))
    if kind == 4:
        items = tuple(_item(rng, mode) for _ in range(rng.randint(1, 3)))
        return Cls(Set(negated, no_set_operators(items)))
    if depth > 0 and kind == 5:
        return Group(_re(rng, depth - 1, mode))
    if depth > 0 and kind == 6 and mode.caseless:
        return Caseless(_re(rng, depth - 1, replace(mode, inside_caseless=True)))
    if depth > 0 and kind == 7:
        return NotAhead(_re(rng, depth - 1, mode))
    if kind == 8 and rng.random() < 0.3:
        return Eos()
    return Char(ord(rng.choice(mode.frag.alphabet)))


def _repeatable(r: Re) -> Re:
    return r if isinstance(r, (Char, Cls, Group, Caseless)) else Group(r)


def is_lookahead(r: Re) -> bool:
    """Whether ``r`` is a lookahead, through groups: what fancy-regex does not repeat."""
    if isinstance(r, (Group, Caseless)):
        return is_lookahead(r.r)
    return isinstance(r, NotAhead)


def _piece(rng: random.Random, depth: int, mode: _Mode) -> Re:
    r = _atom(rng, depth, mode)
    if rng.random() < 0.45:
        lo, hi = rng.choice([(0, 1), (0, None), (1, None), (1, 3), (2, 2), (0, 2), (2, None)])
        body = _repeatable(r)
        if hi is None and nullable(body):
            return r
        if not mode.frag.lookahead_repeats and is_lookahead(body):
            return r
        return Rep(body, lo, hi, rng.random() < 0.4)
    return r


def _re(rng: random.Random, depth: int, mode: _Mode) -> Re:
    """A random term; alternations inside a concatenation get a group."""
    kind = rng.randrange(5)
    if kind <= 1:
        return _piece(rng, depth, mode)
    if kind <= 3:
        a = _re(rng, depth - 1, mode) if depth else _piece(rng, 0, mode)
        return Seq(Group(a) if isinstance(a, Alt) else a, _piece(rng, depth, mode))
    if rng.random() < 0.1:
        return Alt(Empty(), _piece(rng, depth, mode))
    rest = _re(rng, depth - 1, mode) if depth else _piece(rng, 0, mode)
    return Alt(_piece(rng, depth, mode), rest)


def random_pattern(rng: random.Random, frag: Fragment = REGEX_FRAGMENT) -> Re:
    """A random pattern of the fragment (depth 0-3).  Unbounded repeats never have a body that
    may match the empty string (intended difference 3 of ``tests/test_spec_regex.py``)."""
    return _re(rng, rng.randint(0, 3), _Mode(frag, caseless=rng.random() < 0.5))


def random_text(rng: random.Random, frag: Fragment = REGEX_FRAGMENT) -> str:
    """A random text of 0-8 characters of the fragment's alphabet."""
    return "".join(rng.choice(frag.alphabet) for _ in range(rng.randint(0, 8)))
