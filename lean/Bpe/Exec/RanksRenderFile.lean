module

public import Bpe.Exec.RanksRender

/-!
# The rendering is the published files' format

Twelve lines of the published rank files (`cl100k_base.tiktoken`: ranks 0, 188, 256, 1000, 5000,
50000, 100255 and its longest token, rank 58040, 128 spaces; `o200k_base.tiktoken`: ranks
1000, 5000, 50000, 199997), with tokens of every length modulo 3 (so every kind of final base64
group) and ranks of one to six digits. `fileSampleLines` are the files' bytes, copied from the
files; `fileSampleEntries` the entries Python's `base64.b64decode` reads from them
(`tests/test_crosscheck_exec_ranks.py` checks both against the files). The kernel checks that
`renderLines` writes exactly those bytes (`renderLines_fileSample`), so the parser's theorem
`parseRanks_renderRanks` applies to them (`parseRanks_fileSample`).
-/

@[expose] public section

namespace Bpe.Exec

/-- Entries of the published rank files (see the module docstring). -/
def fileSampleEntries : List TokEntry := [
  ([33], 0),
  ([0], 188),
  ([32, 32], 256),
  ([105, 110, 100, 111, 119], 1000),
  ([32, 87, 101, 98], 5000),
  ([9, 78, 83], 50000),
  ([32, 67, 111, 110, 118, 101, 121, 111, 114], 100255),
  ([32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32,
  32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32,
  32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32,
  32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32,
  32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32, 32,
  32, 32, 32, 32, 32, 32, 32, 32], 58040),
  ([46, 108], 1000),
  ([32, 109, 101, 109, 98, 101, 114, 115], 5000),
  ([32, 216, 167, 217, 132, 217, 130, 216, 175], 50000),
  ([32, 99, 111, 99, 111, 115], 199997)]

/-- The lines of those entries in the published files, byte for byte. -/
def fileSampleLines : List UInt8 :=
  [73, 81, 61, 61, 32, 48, 10, 65, 65, 61, 61, 32, 49, 56, 56, 10, 73, 67, 65, 61, 32, 50, 53, 54,
  10, 97, 87, 53, 107, 98, 51, 99, 61, 32, 49, 48, 48, 48, 10, 73, 70, 100, 108, 89, 103, 61, 61,
  32, 53, 48, 48, 48, 10, 67, 85, 53, 84, 32, 53, 48, 48, 48, 48, 10, 73, 69, 78, 118, 98, 110, 90,
  108, 101, 87, 57, 121, 32, 49, 48, 48, 50, 53, 53, 10, 73, 67, 65, 103, 73, 67, 65, 103, 73, 67,
  65, 103, 73, 67, 65, 103, 73, 67, 65, 103, 73, 67, 65, 103, 73, 67, 65, 103, 73, 67, 65, 103, 73,
  67, 65, 103, 73, 67, 65, 103, 73, 67, 65, 103, 73, 67, 65, 103, 73, 67, 65, 103, 73, 67, 65, 103,
  73, 67, 65, 103, 73, 67, 65, 103, 73, 67, 65, 103, 73, 67, 65, 103, 73, 67, 65, 103, 73, 67, 65,
  103, 73, 67, 65, 103, 73, 67, 65, 103, 73, 67, 65, 103, 73, 67, 65, 103, 73, 67, 65, 103, 73, 67,
  65, 103, 73, 67, 65, 103, 73, 67, 65, 103, 73, 67, 65, 103, 73, 67, 65, 103, 73, 67, 65, 103, 73,
  67, 65, 103, 73, 67, 65, 103, 73, 67, 65, 103, 73, 67, 65, 103, 73, 67, 65, 103, 73, 67, 65, 103,
  73, 67, 65, 103, 73, 67, 65, 103, 73, 67, 65, 103, 73, 67, 65, 103, 73, 67, 65, 103, 73, 67, 65,
  61, 32, 53, 56, 48, 52, 48, 10, 76, 109, 119, 61, 32, 49, 48, 48, 48, 10, 73, 71, 49, 108, 98, 87,
  74, 108, 99, 110, 77, 61, 32, 53, 48, 48, 48, 10, 73, 78, 105, 110, 50, 89, 84, 90, 103, 116, 105,
  118, 32, 53, 48, 48, 48, 48, 10, 73, 71, 78, 118, 89, 50, 57, 122, 32, 49, 57, 57, 57, 57, 55, 10]

set_option maxRecDepth 200000 in
theorem renderLines_fileSample : renderLines fileSampleEntries = fileSampleLines := by decide

set_option maxRecDepth 200000 in
theorem parseRanks_fileSample :
    parseRanks ⟨fileSampleLines.toArray⟩ = .ok fileSampleEntries.toArray := by
  rw [← renderLines_fileSample]
  exact parseRanks_renderRanks _ (by decide)

end Bpe.Exec
