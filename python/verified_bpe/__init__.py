"""verified_bpe: a verified GPT-4-style byte-level BPE tokenizer (Lean spec + Python mirror)."""

__version__ = "0.1.0"
