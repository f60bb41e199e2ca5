module

public import Bpe.Exec.Code
public import Bpe.Unicode.Cl100k
public import Bpe.Unicode.O200k

/-!
# Pre-tokenization in compiled code (no proofs)

The Unicode pre-tokenizers (`Bpe.preTokenizeCl100k`, `Bpe.preTokenizeO200k`) decide each chunk
with the spec's own branch functions (`Cl100k.nextChunkLen`, `O200k.nextChunkLen`), which the
offline compiler accepts as they are. Their splitting loop (`CodePoint.preTokenizeWith`) does
not compile offline (`List.take`, `map`, `flatten`, `length`) and recomputes the code points
of the whole rest of the text for every chunk. `preTokenizeX` is the same loop written for
compiled code: it cuts the bytes into UTF-8 units once, computes their code points once, and
drops the chunk's units and code points in step (`splitX`).

`runTexts` reads the tables and raw texts (each its length and its bytes), pre-tokenizes each
text with `preTokenizeX`, encodes it with `ExecCode`'s encoder and writes the ids.
`Bpe.Exec.PreTokenize` proves that `preTokenizeX next` is `CodePoint.preTokenizeWith next`.
-/

@[expose] public section

namespace Bpe.Exec

/-- The first `n` bytes. -/
def takeBytes : Nat → List UInt8 → List UInt8
  | 0, _ => []
  | _, [] => []
  | n + 1, b :: bs => b :: takeBytes n bs

/-- The bytes after the first `n`. -/
def dropBytes : Nat → List UInt8 → List UInt8
  | 0, bs => bs
  | _, [] => []
  | n + 1, _ :: bs => dropBytes n bs

/-- The number of units (the fuel of `splitX`). -/
def unitCount : List (List UInt8) → Nat
  | [] => 0
  | _ :: us => unitCount us + 1

/-- Cut bytes into UTF-8 units (`CodePoint.utf8Units`); `fuel` bounds the number of units. -/
def unitsX : Nat → List UInt8 → List (List UInt8)
  | 0, _ => []
  | _, [] => []
  | fuel + 1, b :: bs =>
    takeBytes (CodePoint.utf8Len b) (b :: bs) ::
      unitsX fuel (dropBytes (CodePoint.utf8Len b) (b :: bs))

/-- The code point of every unit. -/
def codePointsX : List (List UInt8) → List Nat
  | [] => []
  | u :: us => CodePoint.unitCodePoint u :: codePointsX us

/-- The first `n` units. -/
def takeUnits : Nat → List (List UInt8) → List (List UInt8)
  | 0, _ => []
  | _, [] => []
  | n + 1, u :: us => u :: takeUnits n us

/-- The units after the first `n`. -/
def dropUnits : Nat → List (List UInt8) → List (List UInt8)
  | 0, us => us
  | _, [] => []
  | n + 1, _ :: us => dropUnits n us

/-- The bytes of the units, in order. -/
def joinUnits : List (List UInt8) → List UInt8
  | [] => []
  | u :: us => appendBytes u (joinUnits us)

/-- The splitting loop over units `us` whose code points are `cps`: the next chunk is the
first `next cps` units; units and code points are dropped in step. -/
def splitX (next : List Nat → Nat) : Nat → List (List UInt8) → List Nat → List (List UInt8)
  | 0, _, _ => []
  | _, [], _ => []
  | fuel + 1, u :: us, cps =>
    let n := next cps
    joinUnits (takeUnits n (u :: us)) ::
      splitX next fuel (dropUnits n (u :: us)) (CodePoint.dropCodePoints n cps)

/-- Pre-tokenize bytes with a chunk-length function (`CodePoint.preTokenizeWith`). -/
def preTokenizeX (next : List Nat → Nat) (data : List UInt8) : List (List UInt8) :=
  let units := unitsX (lenBytes data) data
  splitX next (unitCount units) units (codePointsX units)

/-- Encode `n` texts starting at `i` (each: its length in bytes, then its bytes),
pre-tokenizing each with `next`. -/
def encodeRawTexts (next : List Nat → Nat) (b : ByteArray) (t : Array Entry)
    (sh : UInt8 → UInt8) : Nat → Nat → Out → Out × Nat
  | 0, i, o => (o, i)
  | n + 1, i, o =>
    let l := readNat b i
    match readBytes b l.1 l.2 [] with
    | none => ({ o with err := some (byteErr (o.texts + 1)) }, i)
    | some x =>
      let w := pushIds o.text o.tokens (encodeChunks t sh (preTokenizeX next x.1))
      encodeRawTexts next b t sh n x.2 ⟨w.1, o.texts + 1, w.2, none⟩

/-- `n` texts, `block` at a time (`fuel` blocks at most). -/
def encodeAllRawTexts (next : List Nat → Nat) (b : ByteArray) (t : Array Entry)
    (sh : UInt8 → UInt8) : Nat → Nat → Nat → Out → Out × Nat
  | 0, _, i, o => (o, i)
  | fuel + 1, n, i, o =>
    if n ≤ block then encodeRawTexts next b t sh n i o
    else
      let r := encodeRawTexts next b t sh block i o
      if r.1.err.isSome then r else encodeAllRawTexts next b t sh fuel (n - block) r.2 r.1

/-- `runWith` on raw texts (each its length and its bytes), pre-tokenized in Lean with `next`
(`Cl100k.nextChunkLen` or `O200k.nextChunkLen`). -/
def runTexts (next : List Nat → Nat) (inPath outPath : String) : IO String :=
  runWith (encodeAllRawTexts next) inPath outPath

end Bpe.Exec
