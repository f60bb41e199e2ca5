"""Executable mirror of the Lean spec (``lean/Bpe/``), in the same layer folders.

One module per Lean file, the same definitions in the same order, snake_case of the Lean
names: ``lean/Bpe/<Layer>/<Module>.lean`` is ``verified_bpe.spec.<layer>.<module>``.  In
docstrings, ``Lean: Bpe.Seed.Merge.merge`` means the definition ``merge`` of the Lean module
``Bpe.Seed.Merge`` (file ``lean/Bpe/Seed/Merge.lean``; the Lean definitions live in namespace
``Bpe``, so its full Lean name is ``Bpe.merge``).  ``tests/test_spec_mirror.py`` checks the
correspondence for every module.

=======================  ================================  =====================================
Lean module              Python module                     notes
=======================  ================================  =====================================
**Seed** (seed 000)
``Bpe.Seed.Classify``    :mod:`.seed.classify`
``Bpe.Seed.PreTokenize`` :mod:`.seed.pretokenize`          the seed's ASCII machine
``Bpe.Seed.Merge``       :mod:`.seed.merge`
``Bpe.Seed.Decompose``   :mod:`.seed.decompose`            ``recover_merges``: Python only
``Bpe.Seed.Shuffle``     :mod:`.seed.shuffle`              ``byte_shuffle_from_ranks``: Python only
``Bpe.Seed.WellFormed``  :mod:`.seed.well_formed`
``Bpe.Seed.BuildVocab``  :mod:`.seed.build_vocab`          Lemma 5
``Bpe.Seed.Utf8``        :mod:`.seed.utf8`
``Bpe.Seed.Encode``      :mod:`.seed.encode`               ``encode`` rejects non-ASCII text
``Bpe.Seed.Roundtrip``   :mod:`.seed.roundtrip`            theorems as executable checks
``Bpe.Seed.Check``       :mod:`.seed.check`
**Ranks** (tiktoken)
``Bpe.Ranks.Basic``      :mod:`.ranks.basic`               rank-based merging; ``ranks_ok``
``Bpe.Ranks.Check``      :mod:`.ranks.check`               ``check_ranks``; also takes pairs
``Bpe.Ranks.Tree``       :mod:`.ranks.tree`                the search tree the cross-check writes
``Bpe.Ranks.Large``      :mod:`.ranks.large`               tiktoken's heap merge for long pieces
``Bpe.Ranks.Roundtrip``  :mod:`.ranks.roundtrip`           tiktoken's decoder; its roundtrip
**Unicode**
``Bpe.Unicode.RangeTree``    :mod:`.unicode.range_tree`    binary search = Lean's tree walk
``Bpe.Unicode.Tables``       :mod:`.unicode.tables`        generated (``verify.unicode_gen``)
``Bpe.Unicode.PreTokenize``  :mod:`.unicode.pretokenize`   UTF-8 units, shared branches
``Bpe.Unicode.Cl100k``       :mod:`.unicode.cl100k`        cl100k_base over Unicode
``Bpe.Unicode.O200k``        :mod:`.unicode.o200k`         o200k_base over Unicode
``Bpe.Unicode.Encoders``     :mod:`.unicode.encoders`      ``encode_cl100k``, ``encode_o200k``
**Regex** (issue 22)
``Bpe.Regex.Syntax``     :mod:`.regex.syntax`              the fragment; classes as predicates
``Bpe.Regex.Match``      :mod:`.regex.match`               backtracking matcher, ``find_iter``
``Bpe.Regex.Print``      :mod:`.regex.print`               a term back in regex syntax
``Bpe.Regex.Patterns``   :mod:`.regex.patterns`            the five patterns as terms
``Bpe.Regex.Ascii``      :mod:`.regex.ascii`               the ASCII instance of the classes
=======================  ================================  =====================================

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
