"""Hugging Face ``tokenizer.json`` files (byte-level BPE) with the API of ``tokenizers``.

``sys.modules["tokenizers"] = verified_bpe.hf`` lets code written for ``tokenizers`` run
unchanged for the calls listed in ``docs/hf.md``: ``Tokenizer.from_file``/``from_str``,
``encode``/``encode_batch`` (texts, pairs, pre-tokenized words; ``ids``, ``tokens``,
``offsets``, ``attention_mask``, ``type_ids``, ``sequence_ids``, ``word_ids`` and the
word-level calls...),
``decode``/``decode_batch``, ``token_to_id``, ``id_to_token``, ``get_vocab``,
``get_vocab_size``, ``enable_padding``/``enable_truncation`` (and ``no_``...).  Components
this package does not implement are refused when the file
is loaded (:class:`~verified_bpe.errors.UnsupportedTokenizerJsonError`).
"""

from __future__ import annotations

from ..errors import MalformedTokenizerJsonError, UnsupportedTokenizerJsonError
from .tokenizer import Encoding, Tokenizer

__all__ = [
    "Encoding",
    "MalformedTokenizerJsonError",
    "Tokenizer",
    "UnsupportedTokenizerJsonError",
]
