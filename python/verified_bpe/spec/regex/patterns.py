"""The pre-tokenization patterns as regex terms.

Lean: ``Bpe.Regex.Patterns``.  Each prints (:func:`.print.re_to_regex`) to the exact string
of :mod:`verified_bpe.patterns` (``tests/test_spec_regex.py``).
"""

from __future__ import annotations

from .syntax import (
    Caseless,
    Char,
    Cls,
    Eos,
    Esc,
    Group,
    ItemChar,
    ItemProp,
    NotAhead,
    Property,
    Re,
    Rep,
    Seq,
    Set,
    alts,
    seqs,
)


def ch(c: str) -> Re:
    """Lean: ``ch``: a literal character."""
    return Char(ord(c))


def it(c: str) -> ItemChar:
    """Lean: ``it``: a class member, one character."""
    return ItemChar(ord(c))


def opt(r: Re) -> Re:
    """Lean: ``opt``: ``r?``."""
    return Rep(r, 0, 1, False)


def star_(r: Re) -> Re:
    """Lean: ``star'``: ``r*``."""
    return Rep(r, 0, None, False)


def plus(r: Re) -> Re:
    """Lean: ``plus``: ``r+``."""
    return Rep(r, 1, None, False)


def opt_p(r: Re) -> Re:
    """Lean: ``opt!``: ``r?+``."""
    return Rep(r, 0, 1, True)


def star_p(r: Re) -> Re:
    """Lean: ``star!``: ``r*+``."""
    return Rep(r, 0, None, True)


def plus_p(r: Re) -> Re:
    """Lean: ``plus!``: ``r++``."""
    return Rep(r, 1, None, True)


#: Lean: ``pL``, ``pN``, ``ws``, ``notWs``: ``\p{L}``, ``\p{N}``, ``\s``, ``\S``.
P_L: Re = Cls(Esc(False, Property.LETTER))
P_N: Re = Cls(Esc(False, Property.NUMBER))
WS: Re = Cls(Esc(False, Property.WHITE_SPACE))
NOT_WS: Re = Cls(Esc(True, Property.WHITE_SPACE))

#: Lean: ``wordLead``: ``[^\r\n\p{L}\p{N}]``.
WORD_LEAD: Re = Cls(
    Set(True, (it("\r"), it("\n"), ItemProp(Property.LETTER), ItemProp(Property.NUMBER)))
)
#: Lean: ``punct``: ``[^\s\p{L}\p{N}]``.
PUNCT: Re = Cls(
    Set(True, (ItemProp(Property.WHITE_SPACE), ItemProp(Property.LETTER),
               ItemProp(Property.NUMBER)))
)
#: Lean: ``newline``: ``[\r\n]``.
NEWLINE: Re = Cls(Set(False, (it("\r"), it("\n"))))
#: Lean: ``digits3``: ``\p{N}{1,3}``.
DIGITS3: Re = Rep(P_N, 1, 3, False)

#: Lean: ``contractionsCl100k``: ``'(?i:[sdmt]|ll|ve|re)``.
CONTRACTIONS_CL100K: Re = Seq(
    ch("'"),
    Caseless(alts(Cls(Set(False, (it("s"), it("d"), it("m"), it("t")))),
                  [Seq(ch("l"), ch("l")), Seq(ch("v"), ch("e")), Seq(ch("r"), ch("e"))])),
)

#: Lean: ``contractionList``: ``'s``, ``'t``, ``'re``, ``'ve``, ``'m``, ``'ll``, ``'d``.
CONTRACTION_LIST: list[Re] = [
    Seq(ch("'"), ch("s")), Seq(ch("'"), ch("t")), seqs(ch("'"), [ch("r"), ch("e")]),
    seqs(ch("'"), [ch("v"), ch("e")]), Seq(ch("'"), ch("m")), seqs(ch("'"), [ch("l"), ch("l")]),
    Seq(ch("'"), ch("d")),
]

#: Lean: ``newlineWs``, ``trailingWs``, ``otherWs``: ``\s*[\r\n]``, ``\s+(?!\S)``, ``\s+``.
NEWLINE_WS: Re = Seq(star_(WS), NEWLINE)
TRAILING_WS: Re = Seq(plus(WS), NotAhead(NOT_WS))
OTHER_WS: Re = plus(WS)

#: Lean: ``seedPattern`` (cl100k_base as first published).
SEED_PATTERN: Re = alts(
    CONTRACTIONS_CL100K,
    [Seq(opt_p(WORD_LEAD), plus(P_L)), DIGITS3, seqs(opt(ch(" ")), [plus_p(PUNCT), star_(NEWLINE)]),
     NEWLINE_WS, TRAILING_WS, OTHER_WS],
)

#: Lean: ``gpt2Pattern``.
GPT2_PATTERN: Re = alts(
    Seq(ch("'"), ch("s")),
    [*CONTRACTION_LIST[1:],
     Seq(opt(ch(" ")), plus(Cls(Set(False, (ItemProp(Property.LETTER),))))),
     Seq(opt(ch(" ")), plus(Cls(Set(False, (ItemProp(Property.NUMBER),))))),
     Seq(opt(ch(" ")), plus(PUNCT)), TRAILING_WS, OTHER_WS],
)

#: Lean: ``cl100kPattern`` (tiktoken 0.14).
CL100K_PATTERN: Re = alts(
    CONTRACTIONS_CL100K,
    [Seq(opt_p(WORD_LEAD), plus_p(P_L)), Rep(P_N, 1, 3, True),
     seqs(opt(ch(" ")), [plus_p(PUNCT), star_p(NEWLINE)]), Seq(plus_p(WS), Eos()), NEWLINE_WS,
     TRAILING_WS, WS],
)

#: Lean: ``upperish``, ``lowerish``: ``[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]``,
#: ``[\p{Ll}\p{Lm}\p{Lo}\p{M}]``.
UPPERISH: Re = Cls(Set(False, tuple(ItemProp(p) for p in (
    Property.UPPERCASE, Property.TITLECASE, Property.MODIFIER, Property.OTHER_LETTER,
    Property.MARK))))
LOWERISH: Re = Cls(Set(False, tuple(ItemProp(p) for p in (
    Property.LOWERCASE, Property.MODIFIER, Property.OTHER_LETTER, Property.MARK))))

#: Lean: ``contractionsO200k``: ``(?i:'s|'t|'re|'ve|'m|'ll|'d)?``.
CONTRACTIONS_O200K: Re = opt(Caseless(alts(Seq(ch("'"), ch("s")), CONTRACTION_LIST[1:])))

#: Lean: ``o200kPattern`` (tiktoken 0.14).
O200K_PATTERN: Re = alts(
    seqs(opt(WORD_LEAD), [star_(UPPERISH), plus(LOWERISH), CONTRACTIONS_O200K]),
    [seqs(opt(WORD_LEAD), [plus(UPPERISH), star_(LOWERISH), CONTRACTIONS_O200K]), DIGITS3,
     seqs(opt(ch(" ")), [plus(PUNCT), star_(Cls(Set(False, (it("\r"), it("\n"), it("/")))))]),
     Seq(star_(WS), plus(NEWLINE)), TRAILING_WS, OTHER_WS],
)


def pair(c: str, d: str) -> Re:
    """Lean: ``pair``: ``[cd]``."""
    return Cls(Set(False, (it(c), it(d))))


#: Lean: ``llama3Pattern``.
LLAMA3_PATTERN: Re = alts(
    Group(alts(Seq(ch("'"), pair("s", "S")),
               [Seq(ch("'"), pair("t", "T")), seqs(ch("'"), [pair("r", "R"), pair("e", "E")]),
                seqs(ch("'"), [pair("v", "V"), pair("e", "E")]), Seq(ch("'"), pair("m", "M")),
                seqs(ch("'"), [pair("l", "L"), pair("l", "L")]), Seq(ch("'"), pair("d", "D"))])),
    [Seq(opt(WORD_LEAD), plus(P_L)), DIGITS3, seqs(opt(ch(" ")), [plus(PUNCT), star_(NEWLINE)]),
     Seq(star_(WS), plus(NEWLINE)), TRAILING_WS, OTHER_WS],
)
