r"""The pattern of r50k_base, p50k_base and gpt2 as tiktoken 0.14 ships it, as a regex term.

Lean: ``Bpe.Regex.R50kPattern``.  ``r50k_pat_str`` of ``tiktoken_ext/openai_public.py``:
``'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s``
(:data:`verified_bpe.patterns.R50K_PATTERN`; :func:`r50k_pattern` prints to it,
``tests/test_spec_regex.py``).
"""

from __future__ import annotations

from .patterns import ch, it, opt, p_l, p_n, plus_poss, punct, trailing_ws, ws
from .syntax import Cls, Eos, Group, Re, Seq, Set, alts


def contractions_r50k() -> Re:
    """Lean: ``contractionsR50k``: ``'(?:[sdmt]|ll|ve|re)`` (case-sensitive)."""
    return Seq(
        ch("'"),
        Group(
            alts(
                Cls(Set(False, (it("s"), it("d"), it("m"), it("t")))),
                [Seq(ch("l"), ch("l")), Seq(ch("v"), ch("e")), Seq(ch("r"), ch("e"))],
            )
        ),
    )


def space_run(r: Re) -> Re:
    """Lean: ``spaceRun``: `` ?r++``."""
    return Seq(opt(ch(" ")), plus_poss(r))


def r50k_pattern() -> Re:
    """Lean: ``r50kPattern`` (tiktoken 0.14's ``r50k_pat_str``)."""
    return alts(
        contractions_r50k(),
        [
            space_run(p_l()),
            space_run(p_n()),
            space_run(punct()),
            Seq(plus_poss(ws()), Eos()),
            trailing_ws(),
            ws(),
        ],
    )
