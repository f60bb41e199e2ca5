module

public import Bpe.Seed
public import Bpe.Ranks
public import Bpe.Unicode
public import Bpe.Exec
public import Bpe.Regex

/-!
# Verified byte-level BPE (GPT-4 style)

Library root: imports the root of each layer, bottom to top.
- `Bpe.Seed`: seed 000's specification, its lemmas and the roundtrip for every string.
- `Bpe.Ranks`: tiktoken's rank BPE and the proof that the seed's encoder computes it.
- `Bpe.Unicode`: the cl100k_base and o200k_base pre-tokenizers over Unicode.
- `Bpe.Exec`: the compiled code and the proofs that it returns what the spec returns.
- `Bpe.Regex`: the semantics of tiktoken's regex engine on the pre-tokenizers' fragment, the
  patterns as terms, the machines equal to `findIter` of their patterns, and the whole encoder
  equal to tiktoken's `encode_ordinary` (`Bpe.Regex.encodeCl100k_eq_tiktokenEncodeOrdinary`).

Start reading at `Bpe.Seed.Roundtrip` for the statements, or at `Bpe.Seed.Classify` to follow
the seed in order.
-/
