module

public import Bpe.Ranks.Basic
public import Bpe.Ranks.Check
public import Bpe.Ranks.MergePair
public import Bpe.Ranks.DecomposeRun
public import Bpe.Ranks.Equiv
public import Bpe.Ranks.Slice
public import Bpe.Ranks.Tree
public import Bpe.Ranks.Fast

/-!
# Layer 2: tiktoken's rank BPE, and the seed's encoder is tiktoken's

tiktoken's algorithm as a specification (`Basic`: `bytePairMerge`, `encodePieceRanks`,
`encodeRanksWith`), condition C (`RanksOk`) with its checker (`Check`) and a fast checker
through a proven search tree (`Tree`, `Fast`), and the equivalence: under condition C the
seed's merge loop on the recovered tables returns tiktoken's ids, for every chunk and every
string (`Equiv`: `Bpe.encodeChunk_eq_encodePieceRanks`, `Bpe.encodeWith_eq_encodeRanksWith`;
its two sides in `MergePair` and `DecomposeRun`; on given tables in `Slice`).
Builds on `Bpe.Seed`.
-/
