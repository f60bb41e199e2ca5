module

public import Bpe.Classify
public import Bpe.ListLemmas
public import Bpe.PreTokenize
public import Bpe.Merge
public import Bpe.Decompose
public import Bpe.Shuffle
public import Bpe.WellFormed
public import Bpe.BuildVocab
public import Bpe.Utf8
public import Bpe.Encode
public import Bpe.Roundtrip
public import Bpe.Check
public import Bpe.RangeTree
public import Bpe.UnicodeTables
public import Bpe.PreTokenizeUnicode
public import Bpe.PreTokenizeCl100k
public import Bpe.PreTokenizeO200k
public import Bpe.Encoders
public import Bpe.ExecCode
public import Bpe.ExecPreTokenizeCode
public import Bpe.ExecPreTokenize
public import Bpe.ExecRanks
public import Bpe.ExecRanksLookup
public import Bpe.ExecRanksRecover
public import Bpe.ExecRanksSort
public import Bpe.ExecRanksTables
public import Bpe.ExecRanksEncode
public import Bpe.ExecTable
public import Bpe.Exec
public import Bpe.Ranks
public import Bpe.RanksCheck
public import Bpe.DecomposeRun
public import Bpe.MergePair
public import Bpe.RanksEquiv
public import Bpe.RanksSlice
public import Bpe.RankTree
public import Bpe.RanksFast

/-!
# Verified byte-level BPE (GPT-4 style)

Library root: imports every module of the specification and its proofs. Start reading at
`Bpe.Roundtrip` for the statements, or at `Bpe.Classify` to follow the seed in order.
-/
