"""verified_bpe: a verified GPT-4-style byte-level BPE tokenizer (Lean spec + Python mirror).

The top level is a drop-in for tiktoken (``import verified_bpe as tiktoken``):
:func:`get_encoding`, :func:`encoding_for_model`, :func:`encoding_name_for_model`,
:func:`list_encoding_names` and :class:`Encoding` (:mod:`verified_bpe.encoding`,
:mod:`verified_bpe.registry`).  minbpe's classes are in :mod:`verified_bpe.minbpe`.
"""

from .encoding import Encoding
from .errors import DisallowedSpecialTokenError
from .registry import (
    encoding_for_model,
    encoding_name_for_model,
    get_encoding,
    list_encoding_names,
)

__version__ = "0.1.0"

__all__ = [
    "DisallowedSpecialTokenError",
    "Encoding",
    "encoding_for_model",
    "encoding_name_for_model",
    "get_encoding",
    "list_encoding_names",
]
