module

public import Bpe.Exec.Ranks
public import Bpe.Exec.PreTokenizeCode

/-!
# From the rank file to the ids, all in compiled code (no proofs)

`runRanksTexts next` is `runRanks` (`Bpe.Exec.Ranks`; `loadRanks`: parse the `.tiktoken` file, sort
the keys, recover the merges and the shuffle, check condition C) with the raw-text encoder of
`Bpe.Exec.PreTokenizeCode` (`encodeAllRawTexts`: each text is its length in bytes and its bytes,
pre-tokenized by `preTokenizeX next`, then encoded). With `Cl100k.nextChunkLen` or
`O200k.nextChunkLen` the whole chain "rank file and raw texts → ids" runs in Lean; the caller
only supplies the files. `Bpe.Exec.RanksTextsEncode` states what it computes.
-/

@[expose] public section

namespace Bpe.Exec

/-- Read the rank file `ranksPath` and the raw texts `textsPath` (the number of texts, then per
text its length in bytes and its bytes, decimal), build and check the tables (`loadRanks`),
pre-tokenize every text with `preTokenizeX next`, encode it and write one line of ids per text
to `outPath` (and the tables to `tablesPath` unless it is empty). Returns `runRanks`'s summary
line. -/
def runRanksTexts (next : List Nat → Nat) (ranksPath textsPath outPath tablesPath : String) :
    IO String := do
  let l ← loadRanks ranksPath tablesPath
  let t0 ← IO.monoMsNow
  let b ← IO.FS.readBinFile textsPath
  let nt := readNat b 0
  let o := (encodeAllRawTexts next b l.merges (fun x => shuffleOf l.shuffle x)
    (nt.1 / block + 1) nt.1 nt.2 ⟨"", 0, 0, none⟩).1
  if let some e := o.err then throw (IO.userError e)
  IO.FS.writeFile outPath o.text
  let t1 ← IO.monoMsNow
  return summaryLine l o (t1 - t0)

end Bpe.Exec
