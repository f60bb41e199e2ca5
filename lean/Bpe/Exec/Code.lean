module

/-!
# The executable encoder (compiled code, no proofs)

A self-contained copy of the encoder written so that Lean's compiler can turn it into IR that
the offline (WebAssembly) interpreter runs: only own structural recursion over `List`/`Nat`,
`Array` and `ByteArray` primitives (`size`, indexing, `push`), `String.push` and file I/O — no
core function whose compiled code calls a private helper (`List.length`, `++`, `foldl`,
`for … in`, `Array.map`, hash maps).

* `find`: the merge table is an `Array` of `((left, right), rank)` entries sorted strictly by
  the pair (checked at run time by `sorted`); a lookup is a binary search (`findIn`), not a
  walk of an association list.
* `scan`: one left-to-right pass over the ids finds the adjacent pair with the lowest merge
  rank (the first one on ties), with no table of pair counts.
* `loop`/`encodeChunk`/`encodeChunks`: the merge loop of `Bpe.encodeChunk` with the same fuel.
* `runFiles`: reads the tables and the pre-tokenized texts from a file of decimal numbers,
  encodes every text and writes one line of ids per text.

`Bpe.Exec.Encode` (in `Bpe/Exec/Encode.lean`) proves that `encodeChunk`/`encodeChunks` return exactly what
the spec's `Bpe.encodeChunk`/`Bpe.encodeWith` return on the merge list `t.toList`.
-/

@[expose] public section

namespace Bpe.Exec

/-- A merge table entry: the pair of token ids and the id (rank) of the merged token. -/
abbrev Entry := (Nat × Nat) × Nat

/-- The order of the table: lexicographic on pairs. -/
def keyLt (p q : Nat × Nat) : Bool := p.1 < q.1 || (p.1 == q.1 && p.2 < q.2)

/-- Binary search for `k` among the entries `lo ≤ i < hi` of a sorted table. -/
def findIn (t : Array Entry) (k : Nat × Nat) : Nat → Nat → Nat → Option Nat
  | 0, _, _ => none
  | fuel + 1, lo, hi =>
    if h : lo < hi ∧ hi ≤ t.size then
      if (t[(lo + hi) / 2]'(by omega)).1 == k then some (t[(lo + hi) / 2]'(by omega)).2
      else if keyLt (t[(lo + hi) / 2]'(by omega)).1 k then findIn t k fuel ((lo + hi) / 2 + 1) hi
      else findIn t k fuel lo ((lo + hi) / 2)
    else none

/-- The merge rank of a pair (`none`: no merge). -/
def find (t : Array Entry) (k : Nat × Nat) : Option Nat := findIn t k (t.size + 1) 0 t.size

/-- Adjacent entries of the table from `i` on are strictly increasing. -/
def sortedFrom (t : Array Entry) : Nat → Nat → Bool
  | 0, _ => true
  | fuel + 1, i =>
    if h : i + 1 < t.size then keyLt (t[i]'(by omega)).1 t[i + 1].1 && sortedFrom t fuel (i + 1)
    else true

/-- The table is sorted strictly by pair (so `find` is correct). -/
def sorted (t : Array Entry) : Bool := sortedFrom t t.size 0

/-- The better of two candidates: the lower rank, the first one on ties. -/
def pick : Option Entry → Option Entry → Option Entry
  | none, r => r
  | some x, none => some x
  | some x, some y => if y.2 < x.2 then some y else some x

/-- The pair `(a, b)` with its merge rank, if it has one. -/
def cand (t : Array Entry) (a b : Nat) : Option Entry :=
  match find t (a, b) with
  | none => none
  | some i => some ((a, b), i)

/-- One pass over the ids: the adjacent pair with the lowest rank (first on ties). -/
def scan (t : Array Entry) : Option Entry → List Nat → Option Entry
  | acc, a :: b :: rest => scan t (pick acc (cand t a b)) (b :: rest)
  | acc, _ => acc

/-- Replace every adjacent `(pair.1, pair.2)` with `idx`, left to right. -/
def mergeIds : List Nat → Nat × Nat → Nat → List Nat
  | a :: b :: rest, pair, idx =>
    if a == pair.1 && b == pair.2 then idx :: mergeIds rest pair idx
    else a :: mergeIds (b :: rest) pair idx
  | ids, _, _ => ids

/-- The merge loop, with the spec's fuel. -/
def loop (t : Array Entry) : Nat → List Nat → List Nat
  | 0, ids => ids
  | fuel + 1, ids =>
    match scan t none ids with
    | none => ids
    | some (pair, idx) => loop t fuel (mergeIds ids pair idx)

/-- The length of a list of ids. -/
def len : List Nat → Nat
  | [] => 0
  | _ :: xs => len xs + 1

/-- Concatenation of byte strings. -/
def appendBytes : List UInt8 → List UInt8 → List UInt8
  | [], ys => ys
  | x :: xs, ys => x :: appendBytes xs ys

/-- The length of a byte string. -/
def lenBytes : List UInt8 → Nat
  | [] => 0
  | _ :: xs => lenBytes xs + 1

/-- Shuffle the bytes of a chunk into token ids. -/
def shuffleBytes (sh : UInt8 → UInt8) : List UInt8 → List Nat
  | [] => []
  | b :: bs => (sh b).toNat :: shuffleBytes sh bs

/-- Encode one chunk. -/
def encodeChunk (t : Array Entry) (sh : UInt8 → UInt8) (chunk : List UInt8) : List Nat :=
  let ids := shuffleBytes sh chunk
  loop t (len ids) ids

/-- Concatenate two lists of ids. -/
def appendIds : List Nat → List Nat → List Nat
  | [], ys => ys
  | x :: xs, ys => x :: appendIds xs ys

/-- Encode the chunks of a text, one after the other. -/
def encodeChunks (t : Array Entry) (sh : UInt8 → UInt8) : List (List UInt8) → List Nat
  | [] => []
  | c :: cs => appendIds (encodeChunk t sh c) (encodeChunks t sh cs)

/-! ## Reading and writing files -/

def isDigit (c : UInt8) : Bool := 48 ≤ c.toNat && c.toNat ≤ 57

def byteAt (b : ByteArray) (i : Nat) : UInt8 := if h : i < b.size then b[i] else 0

/-- The first digit at or after `i` (at most `fuel` bytes skipped; `readNat` gives the size of
the buffer, enough to reach its end). -/
def skipToDigit (b : ByteArray) : Nat → Nat → Nat
  | 0, i => i
  | fuel + 1, i => if i < b.size && !isDigit (byteAt b i) then skipToDigit b fuel (i + 1) else i

/-- The decimal number starting at `i`: its value and the position after it (at most `fuel`
digits; with the size of the buffer as fuel the whole run of digits is read,
`Bpe.Exec.digits_of_drop`). -/
def digits (b : ByteArray) : Nat → Nat → Nat → Nat × Nat
  | 0, i, acc => (acc, i)
  | fuel + 1, i, acc =>
    if i < b.size && isDigit (byteAt b i) then
      digits b fuel (i + 1) (acc * 10 + ((byteAt b i).toNat - 48))
    else (acc, i)

/-- The next decimal number at or after `i`, and the position after it. The fuel of both loops
is the size of the buffer, so no run of digits is ever split into two numbers, however long
(`Bpe.Exec.readNat_of_drop`). -/
def readNat (b : ByteArray) (i : Nat) : Nat × Nat :=
  digits b b.size (skipToDigit b b.size i) 0

/-- `n` table entries `a b rank`, pushed onto `t`. -/
def readEntries (b : ByteArray) : Nat → Nat → Array Entry → Array Entry × Nat
  | 0, i, t => (t, i)
  | n + 1, i, t =>
    let a := readNat b i
    let c := readNat b a.2
    let r := readNat b c.2
    readEntries b n r.2 (t.push ((a.1, c.1), r.1))

/-- Blocks of entries are read by separate calls of `readEntries`, so the recursion stays
shallow even where the interpreter does not turn tail calls into jumps. -/
def block : Nat := 512

/-- `n` table entries, `block` at a time (`fuel` blocks at most). -/
def readAllEntries (b : ByteArray) : Nat → Nat → Nat → Array Entry → Array Entry × Nat
  | 0, _, i, t => (t, i)
  | fuel + 1, n, i, t =>
    if n ≤ block then readEntries b n i t
    else
      let r := readEntries b block i t
      readAllEntries b fuel (n - block) r.2 r.1

/-- The byte of value `n`; `none` if `n` is 256 or more (a reader refuses such a value instead
of truncating it: `Bpe.Exec.byteOfNat?_eq_some`). -/
def byteOfNat? (n : Nat) : Option UInt8 := if n < 256 then some (UInt8.ofNat n) else none

/-- `n` numbers as bytes, pushed onto `t`; stops at the first value of 256 or more (so `t` is
then short). -/
def readByteTable (b : ByteArray) : Nat → Nat → Array UInt8 → Array UInt8 × Nat
  | 0, i, t => (t, i)
  | n + 1, i, t =>
    let a := readNat b i
    match byteOfNat? a.1 with
    | some x => readByteTable b n a.2 (t.push x)
    | none => (t, i)

def revBytes : List UInt8 → List UInt8 → List UInt8
  | [], acc => acc
  | x :: xs, acc => revBytes xs (x :: acc)

/-- `n` numbers as the bytes of a chunk (reversed onto `acc`); `none` if one of them is 256 or
more. -/
def readBytes (b : ByteArray) : Nat → Nat → List UInt8 → Option (List UInt8 × Nat)
  | 0, i, acc => some (revBytes acc [], i)
  | n + 1, i, acc =>
    let a := readNat b i
    match byteOfNat? a.1 with
    | some x => readBytes b n a.2 (x :: acc)
    | none => none

def revChunks : List (List UInt8) → List (List UInt8) → List (List UInt8)
  | [], acc => acc
  | x :: xs, acc => revChunks xs (x :: acc)

/-- `n` chunks, each its length and then its bytes; `none` if a byte value is 256 or more. -/
def readChunks (b : ByteArray) : Nat → Nat → List (List UInt8) → Option (List (List UInt8) × Nat)
  | 0, i, acc => some (revChunks acc [], i)
  | n + 1, i, acc =>
    let l := readNat b i
    match readBytes b l.1 l.2 [] with
    | some c => readChunks b n c.2 (c.1 :: acc)
    | none => none

def digitChar (d : Nat) : Char := Char.ofNat (48 + d)

/-- Append the decimal digits of `n` (at most `fuel` of them). -/
def pushNat (s : String) : Nat → Nat → String
  | 0, _ => s
  | fuel + 1, n =>
    if n < 10 then s.push (digitChar n)
    else (pushNat s fuel (n / 10)).push (digitChar (n % 10))

/-- Append the ids separated by spaces, then a newline; also count them. -/
def pushIds : String → Nat → List Nat → String × Nat
  | s, c, [] => (s.push '\n', c)
  | s, c, [x] => ((pushNat s 40 x).push '\n', c + 1)
  | s, c, x :: y :: rest => pushIds ((pushNat s 40 x).push ' ') (c + 1) (y :: rest)

/-- What a run produced: the output text, texts and tokens, and why it stopped early (a text
with a byte value of 256 or more). -/
structure Out where
  text : String
  texts : Nat
  tokens : Nat
  err : Option String

/-- The error of text `k` (from 1) holding a byte value of 256 or more. -/
def byteErr (k : Nat) : String :=
  (pushNat "text " 40 k).append ": a byte value is 256 or more (not a byte)"

/-- Encode `n` texts starting at `i` (each: number of chunks, then the chunks). -/
def encodeTexts (b : ByteArray) (t : Array Entry) (sh : UInt8 → UInt8) :
    Nat → Nat → Out → Out × Nat
  | 0, i, o => (o, i)
  | n + 1, i, o =>
    let k := readNat b i
    match readChunks b k.1 k.2 [] with
    | none => ({ o with err := some (byteErr (o.texts + 1)) }, i)
    | some cs =>
      let w := pushIds o.text o.tokens (encodeChunks t sh cs.1)
      encodeTexts b t sh n cs.2 ⟨w.1, o.texts + 1, w.2, none⟩

/-- `n` texts, `block` at a time (`fuel` blocks at most). -/
def encodeAllTexts (b : ByteArray) (t : Array Entry) (sh : UInt8 → UInt8) :
    Nat → Nat → Nat → Out → Out × Nat
  | 0, _, i, o => (o, i)
  | fuel + 1, n, i, o =>
    if n ≤ block then encodeTexts b t sh n i o
    else
      let r := encodeTexts b t sh block i o
      if r.1.err.isSome then r else encodeAllTexts b t sh fuel (n - block) r.2 r.1

/-- The shuffle as a function (byte ↦ the rank of its single-byte token). -/
def shuffleOf (a : Array UInt8) (x : UInt8) : UInt8 :=
  if h : x.toNat < a.size then a[x.toNat] else x

/-- Read `inPath` (256 shuffle values; the number of table entries and the entries
`left right rank` sorted by pair; the number of texts and the texts), encode the texts with
`encodeAll` (its arguments: the file, the table, the shuffle, the number of blocks, the number
of texts, the position of the first), write one line of ids per text to `outPath`. Returns a
summary line; fails if the table is not sorted. -/
def runWith (encodeAll : ByteArray → Array Entry → (UInt8 → UInt8) → Nat → Nat → Nat → Out →
    Out × Nat) (inPath outPath : String) : IO String := do
  let t0 ← IO.monoMsNow
  let b ← IO.FS.readBinFile inPath
  let shuf := readByteTable b 256 0 #[]
  if shuf.1.size != 256 then
    throw (IO.userError "the shuffle has a value of 256 or more (not a byte)")
  let m := readNat b shuf.2
  let tab := readAllEntries b (m.1 / block + 1) m.1 m.2 #[]
  if !sorted tab.1 then
    throw (IO.userError "the merge table is not sorted strictly by pair")
  let nt := readNat b tab.2
  let t1 ← IO.monoMsNow
  let o := (encodeAll b tab.1 (shuffleOf shuf.1) (nt.1 / block + 1) nt.1 nt.2
    ⟨"", 0, 0, none⟩).1
  if let some e := o.err then throw (IO.userError e)
  IO.FS.writeFile outPath o.text
  let t2 ← IO.monoMsNow
  let line := pushIds "entries texts tokens load_ms encode_ms: " 0
    [tab.1.size, o.texts, o.tokens, t1 - t0, t2 - t1]
  return line.1

/-- `runWith` on pre-tokenized texts: each text is the number of its chunks and every chunk
as its length and bytes. -/
def runFiles (inPath outPath : String) : IO String := runWith encodeAllTexts inPath outPath

end Bpe.Exec
