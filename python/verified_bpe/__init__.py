"""verified_bpe: a verified GPT-4-style byte-level BPE tokenizer (Lean spec + Python mirror).

The top level is a drop-in for tiktoken (``import verified_bpe as tiktoken``):
:func:`get_encoding`, :func:`encoding_for_model`, :func:`encoding_name_for_model`,
:func:`list_encoding_names` and :class:`Encoding` (:mod:`verified_bpe.api.encoding`,
:mod:`verified_bpe.api.registry`).  minbpe's classes are in :mod:`verified_bpe.minbpe`.

Subpackages by concern, imported top-down (a face imports the engine, never the reverse):

- :mod:`verified_bpe.spec`: the executable mirror of the Lean spec (``lean/Bpe/``), in the
  same layer folders (``seed``, ``ranks``, ``unicode``, ``regex``);
- :mod:`verified_bpe.engine`: the tokenizer engine (``Tokenizer``, rank BPE, the split
  patterns, vocabularies, training);
- :mod:`verified_bpe.formats`: file formats (GGUF, minbpe's ``.model``, streaming decode);
- :mod:`verified_bpe.api`: the faces (tiktoken's ``Encoding`` and registry, minbpe);
- :mod:`verified_bpe.verify` and :mod:`verified_bpe.toolchain`: the cross-check routes
  against Lean and tiktoken, Unicode table generation and scan, the offline Lean toolchain.

The old flat paths (``verified_bpe.tokenizer``, ``verified_bpe.minbpe``,
``verified_bpe.gguf_vocab``, ...) still import (:mod:`verified_bpe._moved`).
"""

# ``_moved`` first (the old import paths, and tiktoken's submodule names, through its finder);
# then, as tiktoken's ``__init__`` binds its submodules (ttok reads
# ``tiktoken.model.MODEL_TO_ENCODING`` right after ``import tiktoken``), this package binds
# ``core``, ``load``, ``model`` and ``registry`` under those names
from . import _moved, core, load, model, registry  # noqa: F401
from .api.encoding import Encoding
from .api.registry import (
    encoding_for_model,
    encoding_name_for_model,
    get_encoding,
    list_encoding_names,
)
from .errors import DisallowedSpecialTokenError

__version__ = "0.1.0"

__all__ = [
    "DisallowedSpecialTokenError",
    "Encoding",
    "encoding_for_model",
    "encoding_name_for_model",
    "get_encoding",
    "list_encoding_names",
]
