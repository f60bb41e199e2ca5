module

public import Bpe.Unicode.PreTokenize

/-!
# The splitting loop over code points, and its bridge from UTF-8 bytes

`CodePoint.preTokenizeWith` cuts bytes into UTF-8 units and the units into chunks, reading each
chunk length off the code points of the remaining units. This file states the same loop on code
points alone (`splitCodePoints`, `preTokenizeCodePoints`: the form in which the regex theorems of
`Bpe.Regex.Cl100k` are stated) and shows that the byte loop is that loop on the decoded code
points (`codePoints`: one per UTF-8 unit, U+FFFD for a unit that is not a character):

* `splitUnits_eq_map_flatten`, `preTokenizeWith_eq_map_flatten`: the byte chunks are the chunks
  of units (`unitChunks`), each flattened;
* `map_splitUnitGroups`, `map_unitChunks`: the chunks of units, each read as its code points, are
  the chunks of `splitCodePoints` on the code points.
-/

@[expose] public section
noncomputable section

namespace Bpe.CodePoint

/-- The splitting loop over code points: the next chunk is the first `next cps` code points;
`fuel` bounds the number of chunks. -/
def splitCodePoints (next : List Nat → Nat) : Nat → List Nat → List (List Nat)
  | 0, _ => []
  | _, [] => []
  | fuel + 1, c :: cs =>
    let n := next (c :: cs)
    (c :: cs).take n :: splitCodePoints next fuel ((c :: cs).drop n)

/-- Pre-tokenize code points with a pattern's chunk-length function (fuel = their number). -/
def preTokenizeCodePoints (next : List Nat → Nat) (cps : List Nat) : List (List Nat) :=
  splitCodePoints next cps.length cps

/-- `splitUnits` with each chunk kept as its list of units. -/
def splitUnitGroups (next : List Nat → Nat) : Nat → List Bytes → List (List Bytes)
  | 0, _ => []
  | _, [] => []
  | fuel + 1, u :: us =>
    let n := next ((u :: us).map unitCodePoint)
    (u :: us).take n :: splitUnitGroups next fuel ((u :: us).drop n)

/-- The code points that `preTokenizeWith` reads: one per UTF-8 unit of `data`. -/
def codePoints (data : Bytes) : List Nat := (utf8Units data.length data).map unitCodePoint

/-- The chunks of `preTokenizeWith`, each as its list of UTF-8 units. -/
def unitChunks (next : List Nat → Nat) (data : Bytes) : List (List Bytes) :=
  let units := utf8Units data.length data
  splitUnitGroups next units.length units

theorem splitUnits_eq_map_flatten (next : List Nat → Nat) :
    ∀ (fuel : Nat) (units : List Bytes),
      splitUnits next fuel units = (splitUnitGroups next fuel units).map List.flatten
  | 0, _ => rfl
  | _ + 1, [] => rfl
  | fuel + 1, u :: us => by
    simp only [splitUnits, splitUnitGroups, List.map_cons,
      splitUnits_eq_map_flatten next fuel]

theorem map_splitUnitGroups (next : List Nat → Nat) :
    ∀ (fuel : Nat) (units : List Bytes),
      (splitUnitGroups next fuel units).map (·.map unitCodePoint) =
        splitCodePoints next fuel (units.map unitCodePoint)
  | 0, _ => rfl
  | _ + 1, [] => rfl
  | fuel + 1, u :: us => by
    simp only [splitUnitGroups, List.map_cons, splitCodePoints, map_splitUnitGroups next fuel,
      List.map_take, List.map_drop]

/-- The chunks of `preTokenizeWith` are its chunks of units, flattened. -/
theorem preTokenizeWith_eq_map_flatten (next : List Nat → Nat) (data : Bytes) :
    preTokenizeWith next data = (unitChunks next data).map List.flatten :=
  splitUnits_eq_map_flatten next _ _

/-- The chunks of units of `preTokenizeWith`, read as code points, are the chunks of the loop
over the code points of `data`. -/
theorem map_unitChunks (next : List Nat → Nat) (data : Bytes) :
    (unitChunks next data).map (·.map unitCodePoint) =
      preTokenizeCodePoints next (codePoints data) := by
  simp only [unitChunks, preTokenizeCodePoints, codePoints, map_splitUnitGroups, List.length_map]

end Bpe.CodePoint
