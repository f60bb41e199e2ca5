module

public import Bpe.Exec.PreTokenizeCode
public import Bpe.Exec.Encode

/-!
# The compiled pre-tokenization loop is the spec's

`Bpe.Exec.preTokenizeX` (in `Bpe.Exec.PreTokenizeCode`) cuts the bytes into UTF-8 units and
computes their code points once, then drops the chunk's units and code points in step. With
core's `take`/`drop`/`map`/`flatten`/`length` for its own helpers, it is the spec's loop
`CodePoint.preTokenizeWith` (`preTokenizeX_eq`), for every chunk-length function and every
input; so `preTokenizeX Cl100k.nextChunkLen` is `preTokenizeCl100k`, `preTokenizeX
O200k.nextChunkLen` is `preTokenizeO200k`, and with `Exec.encodeChunks_eq_encodeWith` the
compiled driver `runTexts` computes `Bpe.encodeWith` of the spec's pre-tokenizer on every text it
reads (`encodeChunks_preTokenizeX`).
-/

@[expose] public section

namespace Bpe.Exec

@[simp] theorem unitCount_eq : ∀ us : List (List UInt8), unitCount us = us.length
  | [] => rfl
  | _ :: us => by simp [unitCount, unitCount_eq us]

@[simp] theorem takeBytes_eq : ∀ (n : Nat) (bs : List UInt8), takeBytes n bs = bs.take n
  | 0, _ => rfl
  | _ + 1, [] => rfl
  | n + 1, b :: bs => by simp [takeBytes, takeBytes_eq n bs]

@[simp] theorem dropBytes_eq : ∀ (n : Nat) (bs : List UInt8), dropBytes n bs = bs.drop n
  | 0, _ => rfl
  | _ + 1, [] => rfl
  | n + 1, _ :: bs => dropBytes_eq n bs

@[simp] theorem takeUnits_eq : ∀ (n : Nat) (us : List (List UInt8)),
    takeUnits n us = us.take n
  | 0, _ => rfl
  | _ + 1, [] => rfl
  | n + 1, u :: us => by simp [takeUnits, takeUnits_eq n us]

@[simp] theorem dropUnits_eq : ∀ (n : Nat) (us : List (List UInt8)),
    dropUnits n us = us.drop n
  | 0, _ => rfl
  | _ + 1, [] => rfl
  | n + 1, _ :: us => dropUnits_eq n us

@[simp] theorem joinUnits_eq : ∀ us : List (List UInt8), joinUnits us = us.flatten
  | [] => rfl
  | u :: us => by simp [joinUnits, joinUnits_eq us]

@[simp] theorem codePointsX_eq : ∀ us : List (List UInt8),
    codePointsX us = us.map CodePoint.unitCodePoint
  | [] => rfl
  | u :: us => by simp [codePointsX, codePointsX_eq us]

@[simp] theorem unitsX_eq : ∀ (fuel : Nat) (data : List UInt8),
    unitsX fuel data = CodePoint.utf8Units fuel data
  | 0, _ => rfl
  | _ + 1, [] => rfl
  | fuel + 1, b :: bs => by
    simp only [unitsX, CodePoint.utf8Units, takeBytes_eq, dropBytes_eq, unitsX_eq fuel]

theorem splitX_eq (next : List Nat → Nat) : ∀ (fuel : Nat) (us : List (List UInt8)),
    splitX next fuel us (us.map CodePoint.unitCodePoint) = CodePoint.splitUnits next fuel us
  | 0, _ => rfl
  | _ + 1, [] => rfl
  | fuel + 1, u :: us => by
    simp only [splitX, CodePoint.splitUnits, joinUnits_eq, takeUnits_eq, dropUnits_eq,
      CodePoint.dropCodePoints_eq, ← List.map_drop, splitX_eq next fuel]

/-- **The compiled splitting loop is the spec's**, for every chunk-length function and every
input. -/
theorem preTokenizeX_eq (next : List Nat → Nat) (data : Bytes) :
    preTokenizeX next data = CodePoint.preTokenizeWith next data := by
  simp only [preTokenizeX, CodePoint.preTokenizeWith, lenBytes_eq, unitCount_eq, unitsX_eq,
    codePointsX_eq,
    splitX_eq]

/-- **What `runTexts` computes for each text**: on a table that passes `sorted`, encoding the
chunks of `preTokenizeX next` is `Bpe.encodeWith (CodePoint.preTokenizeWith next)`, i.e.
`Bpe.encodeCl100k` for `Cl100k.nextChunkLen` and `Bpe.encodeO200k` for `O200k.nextChunkLen`. -/
theorem encodeChunks_preTokenizeX (t : Array Entry) (hs : sorted t = true)
    (next : List Nat → Nat) (sh : UInt8 → UInt8) (text : String) :
    encodeChunks t sh (preTokenizeX next (stringBytes text)) =
      Bpe.encodeWith (CodePoint.preTokenizeWith next) t.toList sh text := by
  rw [← encodeChunks_eq_encodeWith t hs]
  simp only [preTokenizeX_eq]

end Bpe.Exec
