module

public import Bpe.Seed.Classify
public import Bpe.Seed.ListLemmas
public import Bpe.Seed.AssocList
public import Bpe.Seed.PreTokenize
public import Bpe.Seed.Merge
public import Bpe.Seed.Decompose
public import Bpe.Seed.Shuffle
public import Bpe.Seed.WellFormed
public import Bpe.Seed.BuildVocab
public import Bpe.Seed.Utf8
public import Bpe.Seed.Encode
public import Bpe.Seed.Roundtrip
public import Bpe.Seed.Check

/-!
# Layer 1: the seed's specification and its theorems

The definitions of seed 000 (`Classify`, `PreTokenize`, `Merge`, `Decompose`, `Shuffle`,
`Utf8`, `Encode`) and what is proven about them: the seed's Lemmas 1-7 (Lemma 5's
injectivity refuted by a kernel-checked counterexample and corrected, `BuildVocab`), the
structure `WellFormed` and its Boolean checker (`Check`), and the roundtrip
`decode vocab inv (encodeWith pre merges sh s) = some s` for every string and every
partitioning pre-tokenizer (`Roundtrip`: `Bpe.bpe_roundtrip`, `Bpe.ascii_bpe_roundtrip`).
Imports nothing outside this folder.
-/
