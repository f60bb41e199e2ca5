module

public import Bpe.Ranks.Basic
public import Bpe.Ranks.Check
public import Bpe.Ranks.MergePair
public import Bpe.Ranks.DecomposeRun
public import Bpe.Ranks.Equiv
public import Bpe.Ranks.Slice
public import Bpe.Ranks.Tree
public import Bpe.Ranks.Fast
public import Bpe.Ranks.EncodeBy
public import Bpe.Ranks.Large
public import Bpe.Ranks.Roundtrip
public import Bpe.Ranks.WholePieces
public import Bpe.Ranks.Valid
public import Bpe.Ranks.Pump
public import Bpe.Ranks.Run

/-!
# Layer 2: tiktoken's rank BPE, and the seed's encoder is tiktoken's

tiktoken's algorithm as a specification (`Basic`: `bytePairMerge`, `encodePieceRanks`,
`encodeRanksWith`), condition C (`RanksOk`) with its checker (`Check`) and a fast checker
through a proven search tree (`Tree`, `Fast`; tiktoken's encoder through it, `EncodeBy`), and
the equivalence: under condition C the seed's merge loop on the recovered tables returns
tiktoken's ids, for every chunk and every string (`Equiv`:
`Bpe.encodeChunk_eq_encodePieceRanks`, `Bpe.encodeWith_eq_encodeRanksWith`;
its two sides in `MergePair` and `DecomposeRun`; on given tables in `Slice`).
tiktoken 0.14's heap merge for pieces of 100 bytes or more is the same loop (`Large`:
`Bpe.bytePairMergeLarge_eq_bytePairMerge`, `Bpe.encodePieceRanksBySize_eq`), and tiktoken's
algorithm round-trips under condition C (`Roundtrip`: `Bpe.decodeRanks_encodeRanksWith`), and
under the weaker `RanksDecodeOk` that Llama 3's table satisfies, with its checker and the
kernel-checked counterexample showing the seed's encoder is not tiktoken's there (`WholePieces`).
For every rank table, a list of byte strings is the merge of its concatenation exactly when
every part and every two adjacent parts are their own merge (`Valid`:
`Bpe.bytePairMerge_flatten_eq_iff`), so a token repeated twice in a merge can be repeated any
number of times (`Pump`: `Bpe.bytePairMerge_pump`, `Bpe.bytePairMerge_replicate_pump`), and
the Rust engine's long-run step as a function gives the merge whenever it answers (`Run`:
`Bpe.pumpRun`, `Bpe.bytePairMerge_eq_of_pumpRun_eq_some`).
Builds on `Bpe.Seed`.
-/
