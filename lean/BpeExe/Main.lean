module

public import Bpe.Exec.Code

/-!
# `bpe-encode`: the executable encoder as a native program (route 2 of the cross-check)

`lake exe bpe-encode INPUT OUTPUT` runs `Bpe.Exec.runFiles`, the same compiled code that the
offline cross-check (route 3) runs under Lean's interpreter: it reads the byte shuffle, the
merge table (sorted by pair) and the pre-tokenized texts from `INPUT` (decimal numbers, written
by `verified_bpe.verify.exec_crosscheck.render_input`), encodes every text with `Bpe.Exec.encodeChunks`
(proven equal to `Bpe.encodeWith` by `Bpe.Exec.encodeChunks_eq_encodeWith`) and writes one line
of ids per text to `OUTPUT`. Nothing is restated here: this file only passes the arguments on. Every loop
of the driver over file-sized data is bounded by blocks of `Bpe.Exec.block` items.
-/

@[expose] public section

namespace BpeExe

def main (args : List String) : IO UInt32 := do
  match args with
  | [input, output] =>
    IO.println (← Bpe.Exec.runFiles input output)
    return 0
  | _ =>
    IO.eprintln "usage: bpe-encode INPUT OUTPUT  (INPUT as written by verified_bpe.verify.exec_crosscheck)"
    return 2

end BpeExe

/-- The executable's entry point. -/
def main (args : List String) : IO UInt32 := BpeExe.main args
