"""llama.cpp's first step for any vocabulary type (``tokenizer_st_partition``): special tokens
cut the text before anything else."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from ..errors import InvalidArgumentError


def by_length(specials: Iterable[tuple[str, int]]) -> list[tuple[str, int]]:
    """``(text, id)`` pairs, longest text first (the order llama.cpp tries them in); empty
    texts are left out (they would match everywhere)."""
    return sorted((item for item in specials if item[0]), key=lambda item: -len(item[0]))


def partition_special(text: str, specials: Sequence[tuple[str, int]]) -> list[str | int]:
    """``text`` cut by ``specials`` (``(text, id)`` pairs, tried in order): each occurrence of
    a special text, leftmost first, becomes its id; the text around stays text (empty pieces
    left out).  Later specials only search the text that earlier ones left."""
    fragments: list[str | int] = [text] if text else []
    for special, token_id in specials:
        out: list[str | int] = []
        for fragment in fragments:
            if isinstance(fragment, int) or special not in fragment:
                out.append(fragment)
                continue
            for k, piece in enumerate(fragment.split(special)):
                if k:
                    out.append(token_id)
                if piece:
                    out.append(piece)
        fragments = out
    return fragments


def choose_specials(
    specials: Sequence[tuple[str, int]],
    user_defined: Collection[int],
    parse_special: bool | Collection[str],
) -> list[tuple[str, int]]:
    """The specials that cut the text: user-defined tokens always; control and unknown ones
    with ``parse_special=True`` (llama.cpp's flag), or those named in a collection of texts
    (a name that is no special token: :class:`~verified_bpe.errors.InvalidArgumentError`)."""
    if parse_special is True:
        return list(specials)
    if parse_special is False:
        return [(t, i) for t, i in specials if i in user_defined]
    names = set(parse_special)
    unknown = names - {t for t, _ in specials}
    if unknown:
        raise InvalidArgumentError(
            "parse_special", f"{sorted(unknown)[0]!r} is not a special token of this vocabulary"
        )
    return [(t, i) for t, i in specials if i in user_defined or t in names]


__all__ = ["by_length", "choose_specials", "partition_special"]
