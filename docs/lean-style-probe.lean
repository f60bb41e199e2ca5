module

@[expose] public section

namespace PolyProbe

def len {α : Type} : List α → Nat
  | [] => 0
  | _ :: xs => len xs + 1

def append {α : Type} : List α → List α → List α
  | [], ys => ys
  | x :: xs, ys => x :: append xs ys

def take {α : Type} : Nat → List α → List α
  | 0, _ => []
  | _, [] => []
  | n + 1, x :: xs => x :: take n xs

def drop {α : Type} : Nat → List α → List α
  | 0, xs => xs
  | _, [] => []
  | n + 1, _ :: xs => drop n xs

def revOnto {α : Type} : List α → List α → List α
  | [], acc => acc
  | x :: xs, acc => revOnto xs (x :: acc)

/-- Own sum of bytes as numbers, position-weighted (so order matters). -/
def weigh : Nat → List UInt8 → Nat
  | _, [] => 0
  | i, b :: bs => (i + 1) * b.toNat + weigh (i + 1) bs

def weighAll : Nat → List (List UInt8) → Nat
  | _, [] => 0
  | i, u :: us => (i + 1) * weigh 0 u + weighAll (i + 1) us

def bytes : List UInt8 := [104, 105, 33, 200, 7]
def units : List (List UInt8) := [[104], [105, 33], [200, 7, 1]]

-- each line prints ok if the polymorphic helper compiled and ran correctly offline;
-- the last one must print FAIL (a wrong expectation)
#eval (pure (if len bytes == 5 && len units == 3 && len ([1, 2, 3] : List Nat) == 3 then "ok" else "FAIL") : IO String)
#eval (pure (if weigh 0 (append bytes [1, 2]) == weigh 0 [104, 105, 33, 200, 7, 1, 2] &&
      weighAll 0 (append units [[9]]) == weighAll 0 [[104], [105, 33], [200, 7, 1], [9]] then "ok" else "FAIL") : IO String)
#eval (pure (if weigh 0 (take 2 bytes) == weigh 0 [104, 105] && weigh 0 (drop 3 bytes) == weigh 0 [200, 7] &&
      weighAll 0 (take 2 units) == weighAll 0 [[104], [105, 33]] &&
      weighAll 0 (drop 1 units) == weighAll 0 [[105, 33], [200, 7, 1]] then "ok" else "FAIL") : IO String)
#eval (pure (if weigh 0 (revOnto bytes []) == weigh 0 [7, 200, 33, 105, 104] &&
      weighAll 0 (revOnto units []) == weighAll 0 [[200, 7, 1], [105, 33], [104]] then "ok" else "FAIL") : IO String)
#eval (pure (if len bytes == 4 then "ok" else "FAIL") : IO String)

end PolyProbe
