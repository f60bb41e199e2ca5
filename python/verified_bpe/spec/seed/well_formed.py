"""Well-formed tables: the hypothesis of the roundtrip theorem, as an executable check with
a precise reason on failure; ``build_vocab``.

Lean: ``Bpe.Seed.WellFormed`` (the Boolean checker proven sound is ``Bpe.Seed.Check``, mirrored in
:mod:`.check`; both are tested to agree).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ...errors import MalformedVocabError
from .shuffle import invert_shuffle


@dataclass(frozen=True)
class WellFormedResult:
    """Outcome of :func:`check_well_formed`.

    ``field`` names the violated field of the Lean structure (``base_tokens``,
    ``merge_decomp``, ``injectivity``, ``shuffle_bijection``), ``None`` when ``ok``.
    """

    ok: bool
    field: str | None = None
    reason: str = ""

    def __bool__(self) -> bool:
        return self.ok


def check_well_formed(
    merges: Mapping[tuple[int, int], int],
    vocab: Mapping[int, bytes],
    byte_shuffle: Sequence[int],
) -> WellFormedResult:
    """Check the four fields of ``WellFormed merges vocab byte_shuffle`` in order; the first
    violation found is reported.

    Lean: ``Bpe.Seed.WellFormed.WellFormed`` (a ``Prop`` structure, decidable on finite tables):

    * ``base_tokens``: ``vocab[i] = [i]`` for every ``i < 256``;
    * ``merge_decomp``: every ``merges[(p0, p1)] = idx`` has ``vocab[idx] = vocab[p0] ++
      vocab[p1]``, ``|vocab[p0]| < |vocab[idx]|`` and ``|vocab[p1]| < |vocab[idx]|``;
    * ``injectivity``: two defined entries with equal bytes have equal ids;
    * ``shuffle_bijection``: ``byte_shuffle`` is a permutation of ``0..255``.
    """
    for i in range(256):
        if vocab.get(i) != bytes([i]):
            return WellFormedResult(
                False, "base_tokens", f"vocab[{i}] = {vocab.get(i)!r}, expected {bytes([i])!r}"
            )
    for (p0, p1), idx in merges.items():
        where = f"merge ({p0}, {p1}) -> {idx}"
        for name, key in (("p0", p0), ("p1", p1), ("idx", idx)):
            if key not in vocab:
                return WellFormedResult(
                    False, "merge_decomp", f"{where}: {name}={key} not in vocab"
                )
        left, right, new = vocab[p0], vocab[p1], vocab[idx]
        if new != left + right:
            return WellFormedResult(
                False,
                "merge_decomp",
                f"{where}: vocab[{idx}] = {new!r} != vocab[{p0}] ++ vocab[{p1}] = {left + right!r}",
            )
        if not len(left) < len(new):
            return WellFormedResult(
                False, "merge_decomp", f"{where}: |vocab[{p0}]| = {len(left)} not < {len(new)}"
            )
        if not len(right) < len(new):
            return WellFormedResult(
                False, "merge_decomp", f"{where}: |vocab[{p1}]| = {len(right)} not < {len(new)}"
            )
    seen: dict[bytes, int] = {}
    for token_id, piece in vocab.items():
        other = seen.get(piece)
        if other is not None and other != token_id:
            return WellFormedResult(
                False, "injectivity", f"vocab[{other}] = vocab[{token_id}] = {piece!r}"
            )
        seen[piece] = token_id
    if len(byte_shuffle) != 256:
        return WellFormedResult(
            False, "shuffle_bijection", f"byte_shuffle has length {len(byte_shuffle)}, not 256"
        )
    hit: dict[int, int] = {}
    for b, s in enumerate(byte_shuffle):
        if not 0 <= s <= 255:
            return WellFormedResult(
                False, "shuffle_bijection", f"byte_shuffle[{b}] = {s} is not a byte"
            )
        if s in hit:
            return WellFormedResult(
                False,
                "shuffle_bijection",
                f"byte_shuffle[{hit[s]}] = byte_shuffle[{b}] = {s} (not injective)",
            )
        hit[s] = b
    return WellFormedResult(True)


def well_formed_shuffle_cancel(byte_shuffle: Sequence[int]) -> bool:
    """Lemma 2 in the seed's form: a bijective shuffle is cancelled by its computed inverse.

    Lean: ``Bpe.Seed.WellFormed.WellFormed.shuffle_cancel`` (from the ``shuffle_bijection`` field).
    """
    if len(byte_shuffle) != 256 or sorted(byte_shuffle) != list(range(256)):
        return True
    inverse = invert_shuffle(byte_shuffle)
    return all(inverse[byte_shuffle[b]] == b for b in range(256))


def base_vocab() -> dict[int, bytes]:
    """The 256 base tokens ``i -> [i]``.  Lean: ``Bpe.Seed.WellFormed.baseVocab``."""
    return {i: bytes([i]) for i in range(256)}


def build_step(vocab: dict[int, bytes], m: tuple[tuple[int, int], int]) -> dict[int, bytes]:
    """One step of ``build_vocab``: ``vocab[idx] = vocab[p0] ++ vocab[p1]`` (updates ``vocab``
    in place and returns it).

    Lean: ``Bpe.Seed.WellFormed.buildStep``.  A later entry overwrites an earlier one (Lean: a new
    head shadows it).  Lean skips a merge whose parts are not defined yet; Python raises
    :class:`~verified_bpe.errors.MalformedVocabError` instead.
    """
    (p0, p1), idx = m
    if p0 not in vocab or p1 not in vocab:
        raise MalformedVocabError(f"merge ({p0}, {p1}) -> {idx} uses an id that is not defined yet")
    vocab[idx] = vocab[p0] + vocab[p1]
    return vocab


def build_vocab(merges: Mapping[tuple[int, int], int]) -> dict[int, bytes]:
    """``vocab[i] = [i]`` for ``i < 256``, then :func:`build_step` for each merge in
    insertion order.

    Lean: ``Bpe.Seed.WellFormed.buildVocab``.
    """
    vocab = base_vocab()
    for m in merges.items():
        build_step(vocab, m)
    return vocab
