"""Executable mirror of the Lean spec (``lean/Bpe/*.lean``).

One module per Lean file, the same definitions in the same order, snake_case of the Lean
names.  In docstrings, ``Lean: Bpe.Merge.merge`` means the definition ``merge`` of the Lean
module ``Bpe.Merge`` (file ``lean/Bpe/Merge.lean``; all Lean definitions live in namespace
``Bpe``, so its full Lean name is ``Bpe.merge``).

==================  =====================  ==========================================
Lean module         Python module          notes
==================  =====================  ==========================================
``Bpe.Classify``    :mod:`.classify`
``Bpe.PreTokenize`` :mod:`.pretokenize`    the seed's ASCII machine; ``rest`` = ``data[i:]``
``Bpe.PreTokenizeUnicode`` :mod:`.pretokenize_unicode`  UTF-8 units, shared branches
``Bpe.PreTokenizeCl100k``  :mod:`.pretokenize_cl100k`   cl100k_base over Unicode
``Bpe.PreTokenizeO200k``   :mod:`.pretokenize_o200k`    o200k_base over Unicode
``Bpe.UnicodeTables``      :mod:`.unicode_tables`       generated (``unicode_gen``)
``Bpe.Encoders``           :mod:`.encoders`             ``encode_cl100k``, ``encode_o200k``
``Bpe.Merge``       :mod:`.merge`
``Bpe.Decompose``   :mod:`.decompose`      ``recover_merges``: Python only
``Bpe.Shuffle``     :mod:`.shuffle`        ``byte_shuffle_from_ranks``: Python only
``Bpe.WellFormed``  :mod:`.well_formed`
``Bpe.BuildVocab``  :mod:`.build_vocab`     Lemma 5
``Bpe.Utf8``        :mod:`.utf8`
``Bpe.Encode``      :mod:`.encode`         ``encode`` rejects non-ASCII text
``Bpe.Roundtrip``   :mod:`.roundtrip`      theorems as executable checks
``Bpe.Check``       :mod:`.check`
``Bpe.RangeTree``   :mod:`.range_tree`     binary search over the ranges = Lean's tree walk
``Bpe.Ranks``       :mod:`.ranks`          tiktoken's rank-based merging; ``ranks_ok``
``Bpe.RanksCheck``  :mod:`.ranks_check`    ``check_ranks``; also takes a list of pairs
``Bpe.RankTree``    :mod:`.rank_tree`      the search tree the cross-check writes
==================  =====================  ==========================================

Representation: a byte is an ``int`` in ``0..255`` (Lean ``UInt8``); a byte string is
``bytes`` (Lean ``List UInt8``); a merge table is a ``dict[(p0, p1), idx]`` in insertion order
(Lean: association list ``List ((Nat × Nat) × Nat)``), a vocabulary ``dict[int, bytes]``
(Lean: ``List (Nat × Bytes)``), a shuffle a ``list[int]`` of length 256 (Lean:
``UInt8 → UInt8``).  Where Lean returns ``none`` Python raises a typed error from
:mod:`verified_bpe.errors`.  Lean's fuel arguments are kept where Lean has them.

Everything here is a pure function: no I/O, no global state, no caching.  ``lemma_*`` and
``theorem_*`` functions are executable statements of the Lean results: each returns ``True``
when the conclusion holds for the given arguments (or the hypothesis does not), so property
tests can search for counterexamples.
"""
