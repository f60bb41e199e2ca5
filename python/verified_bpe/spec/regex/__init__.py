"""Executable mirror of the Lean regex layer (``lean/Bpe/Regex/*.lean``, issue 22).

==========================  =====================
Lean module                 Python module
==========================  =====================
``Bpe.Regex.Syntax``        :mod:`.syntax`
``Bpe.Regex.Match``         :mod:`.match`
``Bpe.Regex.Print``         :mod:`.print`
``Bpe.Regex.Patterns``      :mod:`.patterns`
``Bpe.Regex.Ascii``         :mod:`.ascii`
``Bpe.Regex.Unicode``       :mod:`.unicode`
``Bpe.Regex.Tiktoken``      :mod:`.tiktoken`
==========================  =====================

Code points are ``int``; a position is the suffix of the text still to be read, represented
here by an index ``i`` into the text (Lean's suffix ``s`` is ``text[i:]``).  The semantics is
differential-tested against the ``regex`` module in ``tests/test_spec_regex.py`` (the
intended differences are listed there) and against fancy-regex 0.19.0, tiktoken 0.14's, by
``python -m verified_bpe.verify.fancy_diff`` (``tests/test_fancy_diff.py``).
"""
