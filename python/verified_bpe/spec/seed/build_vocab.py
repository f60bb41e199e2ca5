"""Lemma 5: the vocabulary built from a merge table.

Lean: ``Bpe.Seed.BuildVocab``.  ``build_vocab`` satisfies the ``base_tokens`` and ``merge_decomp``
fields of ``WellFormed`` for a *numbered* merge table (the ``k``-th merge creates id
``256 + k`` from two smaller ids, as minbpe training and tiktoken rank files do); injectivity
does not follow (:data:`NOT_INJECTIVE_MERGES`), and holds when no two merged tokens carry the
same bytes.
"""

from __future__ import annotations

from collections.abc import Mapping

from .well_formed import build_vocab

#: The counterexample to unconditional injectivity, ``a, b, c = 97, 98, 99``;
#: ``vocab[257] = vocab[259] = b"abc"`` (Lean: ``Bpe.Seed.BuildVocab.buildVocab_not_injective``).
NOT_INJECTIVE_MERGES: dict[tuple[int, int], int] = {
    (97, 98): 256,
    (256, 99): 257,
    (98, 99): 258,
    (97, 258): 259,
}


def merges_numbered(n: int, merges: Mapping[tuple[int, int], int]) -> bool:
    """The ``k``-th merge (counting from ``n``) creates id ``n + k`` from two smaller ids.

    Lean: ``Bpe.Seed.BuildVocab.mergesNumbered``.
    """
    for k, ((p0, p1), idx) in enumerate(merges.items()):
        if not (idx == n + k and p0 < n + k and p1 < n + k):
            return False
    return True


def defined_below(n: int, vocab: Mapping[int, bytes]) -> bool:
    """Exactly the ids below ``n`` are defined, each with a non-empty byte string.

    Lean: ``Bpe.Seed.BuildVocab.DefinedBelow`` (a ``Prop`` over all ids; on a finite ``dict``
    the ids at or above ``n`` are the keys that are too large).
    """
    return all(k < n for k in vocab) and all(vocab.get(i) for i in range(n))


def lemma_build_vocab_base_tokens(merges: Mapping[tuple[int, int], int]) -> bool:
    """Lemma 5, base tokens: a numbered table keeps ``vocab[b] = [b]``.

    Lean: ``Bpe.Seed.BuildVocab.buildVocab_base_tokens``.
    """
    if not merges_numbered(256, merges):
        return True
    vocab = build_vocab(merges)
    return all(vocab[b] == bytes([b]) for b in range(256))


def lemma_build_vocab_merge_decomp(merges: Mapping[tuple[int, int], int]) -> bool:
    """Lemma 5, merge decomposition: for a numbered table every merge ``(p0, p1) -> idx`` has
    ``vocab[idx] = vocab[p0] + vocab[p1]``, both parts strictly shorter.

    Lean: ``Bpe.Seed.BuildVocab.buildVocab_merge_decomp``.
    """
    if not merges_numbered(256, merges):
        return True
    vocab = build_vocab(merges)
    return all(
        vocab[idx] == vocab[p0] + vocab[p1]
        and len(vocab[p0]) < len(vocab[idx])
        and len(vocab[p1]) < len(vocab[idx])
        for (p0, p1), idx in merges.items()
    )


def lemma_build_vocab_injectivity(merges: Mapping[tuple[int, int], int]) -> bool:
    """Lemma 5, injectivity (corrected): for a numbered table, if no two merged tokens carry
    the same bytes, no two ids at all do.

    Lean: ``Bpe.Seed.BuildVocab.buildVocab_injectivity``.
    """
    if not merges_numbered(256, merges):
        return True
    vocab = build_vocab(merges)
    merged = [t for i, t in vocab.items() if i >= 256]
    if len(set(merged)) != len(merged):
        return True
    return len(set(vocab.values())) == len(vocab)
