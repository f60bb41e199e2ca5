"""The pre-tokenization patterns as regex terms.

Lean: ``Bpe.Regex.Patterns``.  Each Lean constant is a function of no arguments here.  Each
pattern prints (:func:`.print.to_regex`) to the exact string of :mod:`verified_bpe.patterns`
(``tests/test_spec_regex.py``).
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


def many(r: Re) -> Re:
    """Lean: ``many``: ``r*``."""
    return Rep(r, 0, None, False)


def plus(r: Re) -> Re:
    """Lean: ``plus``: ``r+``."""
    return Rep(r, 1, None, False)


def opt_poss(r: Re) -> Re:
    """Lean: ``optPoss``: ``r?+``."""
    return Rep(r, 0, 1, True)


def many_poss(r: Re) -> Re:
    """Lean: ``manyPoss``: ``r*+``."""
    return Rep(r, 0, None, True)


def plus_poss(r: Re) -> Re:
    """Lean: ``plusPoss``: ``r++``."""
    return Rep(r, 1, None, True)


def p_l() -> Re:
    """Lean: ``pL``: ``\\p{L}``."""
    return Cls(Esc(False, Property.LETTER))


def p_n() -> Re:
    """Lean: ``pN``: ``\\p{N}``."""
    return Cls(Esc(False, Property.NUMBER))


def ws() -> Re:
    """Lean: ``ws``: ``\\s``."""
    return Cls(Esc(False, Property.WHITE_SPACE))


def not_ws() -> Re:
    """Lean: ``notWs``: ``\\S``."""
    return Cls(Esc(True, Property.WHITE_SPACE))


def word_lead() -> Re:
    """Lean: ``wordLead``: ``[^\\r\\n\\p{L}\\p{N}]``."""
    return Cls(
        Set(True, (it("\r"), it("\n"), ItemProp(Property.LETTER), ItemProp(Property.NUMBER)))
    )


def punct() -> Re:
    """Lean: ``punct``: ``[^\\s\\p{L}\\p{N}]``."""
    return Cls(
        Set(
            True,
            (ItemProp(Property.WHITE_SPACE), ItemProp(Property.LETTER), ItemProp(Property.NUMBER)),
        )
    )


def newline() -> Re:
    """Lean: ``newline``: ``[\\r\\n]``."""
    return Cls(Set(False, (it("\r"), it("\n"))))


def digits3() -> Re:
    """Lean: ``digits3``: ``\\p{N}{1,3}``."""
    return Rep(p_n(), 1, 3, False)


def contractions_cl100k() -> Re:
    """Lean: ``contractionsCl100k``: ``'(?i:[sdmt]|ll|ve|re)``."""
    return Seq(
        ch("'"),
        Caseless(
            alts(
                Cls(Set(False, (it("s"), it("d"), it("m"), it("t")))),
                [Seq(ch("l"), ch("l")), Seq(ch("v"), ch("e")), Seq(ch("r"), ch("e"))],
            )
        ),
    )


def contraction_list() -> list[Re]:
    """Lean: ``contractionList``: ``'s``, ``'t``, ``'re``, ``'ve``, ``'m``, ``'ll``, ``'d``."""
    return [
        Seq(ch("'"), ch("s")),
        Seq(ch("'"), ch("t")),
        seqs(ch("'"), [ch("r"), ch("e")]),
        seqs(ch("'"), [ch("v"), ch("e")]),
        Seq(ch("'"), ch("m")),
        seqs(ch("'"), [ch("l"), ch("l")]),
        Seq(ch("'"), ch("d")),
    ]


def newline_ws() -> Re:
    """Lean: ``newlineWs``: ``\\s*[\\r\\n]``."""
    return Seq(many(ws()), newline())


def trailing_ws() -> Re:
    """Lean: ``trailingWs``: ``\\s+(?!\\S)``."""
    return Seq(plus(ws()), NotAhead(not_ws()))


def other_ws() -> Re:
    """Lean: ``otherWs``: ``\\s+``."""
    return plus(ws())


def seed_pattern() -> Re:
    """Lean: ``seedPattern`` (cl100k_base as first published)."""
    return alts(
        contractions_cl100k(),
        [
            Seq(opt_poss(word_lead()), plus(p_l())),
            digits3(),
            seqs(opt(ch(" ")), [plus_poss(punct()), many(newline())]),
            newline_ws(),
            trailing_ws(),
            other_ws(),
        ],
    )


def gpt2_pattern() -> Re:
    """Lean: ``gpt2Pattern``."""
    return alts(
        Seq(ch("'"), ch("s")),
        [
            *contraction_list()[1:],
            Seq(opt(ch(" ")), plus(Cls(Set(False, (ItemProp(Property.LETTER),))))),
            Seq(opt(ch(" ")), plus(Cls(Set(False, (ItemProp(Property.NUMBER),))))),
            Seq(opt(ch(" ")), plus(punct())),
            trailing_ws(),
            other_ws(),
        ],
    )


def cl100k_pattern() -> Re:
    """Lean: ``cl100kPattern`` (tiktoken 0.14)."""
    return alts(
        contractions_cl100k(),
        [
            Seq(opt_poss(word_lead()), plus_poss(p_l())),
            Rep(p_n(), 1, 3, True),
            seqs(opt(ch(" ")), [plus_poss(punct()), many_poss(newline())]),
            Seq(plus_poss(ws()), Eos()),
            newline_ws(),
            trailing_ws(),
            ws(),
        ],
    )


def upperish() -> Re:
    """Lean: ``upperish``: ``[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]``."""
    return Cls(
        Set(
            False,
            tuple(
                ItemProp(p)
                for p in (
                    Property.UPPERCASE,
                    Property.TITLECASE,
                    Property.MODIFIER,
                    Property.OTHER_LETTER,
                    Property.MARK,
                )
            ),
        )
    )


def lowerish() -> Re:
    """Lean: ``lowerish``: ``[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]``."""
    return Cls(
        Set(
            False,
            tuple(
                ItemProp(p)
                for p in (
                    Property.LOWERCASE,
                    Property.MODIFIER,
                    Property.OTHER_LETTER,
                    Property.MARK,
                )
            ),
        )
    )


def contractions_caseless() -> Re:
    """Lean: ``contractionsCaseless`` (``Bpe.Regex.O200kClasses``):
    ``(?i:'s|'t|'re|'ve|'m|'ll|'d)``."""
    return Caseless(alts(Seq(ch("'"), ch("s")), contraction_list()[1:]))


def contractions_o200k() -> Re:
    """Lean: ``contractionsO200k``: ``(?i:'s|'t|'re|'ve|'m|'ll|'d)?``."""
    return opt(contractions_caseless())


def o200k_pattern() -> Re:
    """Lean: ``o200kPattern`` (tiktoken 0.14)."""
    first = seqs(opt(word_lead()), [many(upperish()), plus(lowerish()), contractions_o200k()])
    return alts(
        first,
        [
            seqs(opt(word_lead()), [plus(upperish()), many(lowerish()), contractions_o200k()]),
            digits3(),
            seqs(
                opt(ch(" ")), [plus(punct()), many(Cls(Set(False, (it("\r"), it("\n"), it("/")))))]
            ),
            Seq(many(ws()), plus(newline())),
            trailing_ws(),
            other_ws(),
        ],
    )


def pair(c: str, d: str) -> Re:
    """Lean: ``pair``: ``[cd]``."""
    return Cls(Set(False, (it(c), it(d))))


def llama3_branches() -> list[Re]:
    """Lean: ``llama3Branches`` (``Bpe.Regex.Llama3Branches``): the six alternatives after the
    contractions, shared by llama.cpp's and Meta's Llama 3 patterns."""
    return [
        Seq(opt(word_lead()), plus(p_l())),
        digits3(),
        seqs(opt(ch(" ")), [plus(punct()), many(newline())]),
        Seq(many(ws()), plus(newline())),
        trailing_ws(),
        other_ws(),
    ]


def llama3_pattern() -> Re:
    """Lean: ``llama3Pattern``."""
    return alts(
        Group(
            alts(
                Seq(ch("'"), pair("s", "S")),
                [
                    Seq(ch("'"), pair("t", "T")),
                    seqs(ch("'"), [pair("r", "R"), pair("e", "E")]),
                    seqs(ch("'"), [pair("v", "V"), pair("e", "E")]),
                    Seq(ch("'"), pair("m", "M")),
                    seqs(ch("'"), [pair("l", "L"), pair("l", "L")]),
                    Seq(ch("'"), pair("d", "D")),
                ],
            )
        ),
        llama3_branches(),
    )


def llama3_meta_pattern() -> Re:
    """Lean: ``llama3MetaPattern`` (``Bpe.Regex.Llama3Meta``): Meta's ``tokenizer.model``
    pattern, ``(?i:'s|'t|'re|'ve|'m|'ll|'d)`` before the six shared alternatives."""
    return alts(contractions_caseless(), llama3_branches())
