module

public import Bpe.Exec.RanksTexts
public import Bpe.Exec.RanksEncode
public import Bpe.Exec.PreTokenize

/-!
# What the route from the rank file to the ids computes

`Bpe.Exec.runRanksTexts next` builds its tables from the parsed entries `toks` of the rank file
(`loadRanks`), refuses them unless they pass the three run-time checks (`sortedToks` on the
key array, `sorted` on the merges, `checkRanksX`), pre-tokenizes each text with
`preTokenizeX next` and encodes the chunks. For every text, that is tiktoken's algorithm
(`Bpe.encodeRanksWith`) on the parsed table with the spec's pre-tokenizer
`CodePoint.preTokenizeWith next` (`encodeChunks_preTokenizeX_eq_encodeRanksWith`): `Bpe.preTokenizeCl100k` for
`Cl100k.nextChunkLen` (`encodeChunks_preTokenizeX_cl100k_eq_encodeRanksWith`), `Bpe.preTokenizeO200k` for
`O200k.nextChunkLen` (`encodeChunks_preTokenizeX_o200k_eq_encodeRanksWith`). What stays trusted on this route is
the reading of the files (`parseRanks`, `readNat`/`readBytes`) and the writing of the ids, and
Lean's compiler and interpreter.
-/

@[expose] public section

namespace Bpe.Exec

/-- **The ids of the rank-file route with Lean's pre-tokenizer**: when the parsed entries pass
the three run-time checks, pre-tokenizing a text with `preTokenizeX next` and encoding its
chunks with the tables `loadRanks` builds is tiktoken's algorithm on the parsed table with
the spec's pre-tokenizer of `next`. -/
theorem encodeChunks_preTokenizeX_eq_encodeRanksWith (toks : Array TokEntry)
    (hs : sortedToks (keysOf toks) = true) (hm : sorted (mergesOf (keysOf toks) toks) = true)
    (hc : checkRanksX toks (keysOf toks) (mergesOf (keysOf toks) toks) = true)
    (next : List Nat → Nat) (text : String) :
    some (encodeChunks (mergesOf (keysOf toks) toks)
        (fun x => shuffleOf (shuffleTable (keysOf toks) 256 #[]) x)
        (preTokenizeX next (stringBytes text))) =
      encodeRanksWith (CodePoint.preTokenizeWith next) toks.toList text := by
  have h := encodeChunks_eq_encodeRanksWith_of_checkRanksX toks hs hm hc (CodePoint.preTokenizeWith next) text
  rw [← h, preTokenizeX_eq]

/-- `encodeChunks_preTokenizeX_eq_encodeRanksWith` for `cl100k_base`'s pre-tokenizer. -/
theorem encodeChunks_preTokenizeX_cl100k_eq_encodeRanksWith (toks : Array TokEntry)
    (hs : sortedToks (keysOf toks) = true) (hm : sorted (mergesOf (keysOf toks) toks) = true)
    (hc : checkRanksX toks (keysOf toks) (mergesOf (keysOf toks) toks) = true) (text : String) :
    some (encodeChunks (mergesOf (keysOf toks) toks)
        (fun x => shuffleOf (shuffleTable (keysOf toks) 256 #[]) x)
        (preTokenizeX Cl100k.nextChunkLen (stringBytes text))) =
      encodeRanksWith preTokenizeCl100k toks.toList text :=
  encodeChunks_preTokenizeX_eq_encodeRanksWith toks hs hm hc Cl100k.nextChunkLen text

/-- `encodeChunks_preTokenizeX_eq_encodeRanksWith` for `o200k_base`'s pre-tokenizer. -/
theorem encodeChunks_preTokenizeX_o200k_eq_encodeRanksWith (toks : Array TokEntry)
    (hs : sortedToks (keysOf toks) = true) (hm : sorted (mergesOf (keysOf toks) toks) = true)
    (hc : checkRanksX toks (keysOf toks) (mergesOf (keysOf toks) toks) = true) (text : String) :
    some (encodeChunks (mergesOf (keysOf toks) toks)
        (fun x => shuffleOf (shuffleTable (keysOf toks) 256 #[]) x)
        (preTokenizeX O200k.nextChunkLen (stringBytes text))) =
      encodeRanksWith preTokenizeO200k toks.toList text :=
  encodeChunks_preTokenizeX_eq_encodeRanksWith toks hs hm hc O200k.nextChunkLen text

end Bpe.Exec
