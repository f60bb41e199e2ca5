module

public import Bpe.Exec.Code

/-!
# Reading a `.tiktoken` rank file in compiled code (no proofs)

Executable code in the style of `Bpe.Exec.Code` (own structural recursion, `Array`/`ByteArray`
primitives, file I/O; no core function whose compiled code calls a private helper) that turns
the bytes of a `.tiktoken` file into the encoder's tables, so that the chain
"rank file → ids" runs in Lean:

* `parseRanks`: every non-empty line is `base64(token) SPACE rank`; the token is decoded by own
  recursion (`decode64`, canonical base64 only); a bad line stops the run with its line number
  (`ParseState.err`). No length limit: a token's base64 and a rank are read up to the space and
  the end of the line, however long.
* `findTok`: byte string ↦ rank by binary search in the entries sorted strictly by bytes
  (`bytesLt`, lexicographic; checked at run time by `sortedToks`), not a list walk.
* `decomposeX`/`recoverOne`: the decomposition of `Bpe.decomposeToken` with `findTok` as the
  lookup (same loop, same fuel, same tie-breaking), and the merge `Bpe.recoverMerge` records.
* `shuffleTable`: the byte shuffle `Bpe.rankShuffle` as a 256-entry array.
* `sortBy`: a bottom-up merge sort of an array; used for the keys and for the merges (which
  must then pass `Bpe.Exec.sorted`, the encoder's check).
* `checkRanksX`: condition C (`Bpe.RanksOk`) on the parsed entries, tested through `findTok`
  and the merge count, so that the run refuses a table outside the theorem's scope.
* `keysOf`/`mergesOf`/`shuffleTable`: the tables; `loadRanks` reads the rank file, builds the
  tables and checks condition C (timing each phase); `runRanks` then reads the pre-tokenized
  texts, encodes, writes the ids.

Loops over file-sized data are state machines run `block` steps at a time (`iterBlocks`), so
the recursion stays shallow whether or not the interpreter turns tail calls into jumps. A loop
is a test `stop` and a step `next`, not one `σ → Option σ`: the driver then holds no second
reference to the state while `next` runs, so the arrays in it (the parsed entries, the sort's
output, the recovered merges) are pushed in place. With `Option` the driver kept the state
alive for the `none` case and every push copied the whole array (measured: the key sort of
`cl100k_base` fell from 994 s to 21 s, parsing from 94 s to 9 s).
`Bpe.Exec.RanksLookup` proves `findTok` equal to `Bpe.rankOf` on a sorted key array,
`Bpe.Exec.RanksCheck` that `checkRanksX` implies `Bpe.RanksOk`, `Bpe.Exec.RanksRender` that
`parseRanks` reads the rendering of any table back as that table (`parseRanks_renderRanks`).
-/

@[expose] public section

namespace Bpe.Exec

/-- A token (byte string) with its rank. -/
abbrev TokEntry := List UInt8 × Nat

/-! ## Byte strings -/

/-- Lexicographic order on byte strings (a proper prefix comes first). -/
def bytesLt : List UInt8 → List UInt8 → Bool
  | [], [] => false
  | [], _ :: _ => true
  | _ :: _, [] => false
  | a :: as, b :: bs => a.toNat < b.toNat || (a.toNat == b.toNat && bytesLt as bs)

/-- Equality of byte strings. -/
def bytesEq : List UInt8 → List UInt8 → Bool
  | [], [] => true
  | a :: as, b :: bs => a.toNat == b.toNat && bytesEq as bs
  | _, _ => false

/-! ## Byte string ↦ rank -/

/-- Binary search for `k` among the entries `lo ≤ i < hi` of a key array sorted by bytes. -/
def findTokIn (s : Array TokEntry) (k : List UInt8) : Nat → Nat → Nat → Option Nat
  | 0, _, _ => none
  | fuel + 1, lo, hi =>
    if h : lo < hi ∧ hi ≤ s.size then
      if bytesEq (s[(lo + hi) / 2]'(by omega)).1 k then some (s[(lo + hi) / 2]'(by omega)).2
      else if bytesLt (s[(lo + hi) / 2]'(by omega)).1 k then
        findTokIn s k fuel ((lo + hi) / 2 + 1) hi
      else findTokIn s k fuel lo ((lo + hi) / 2)
    else none

/-- The rank of a byte string (`none`: not a token). -/
def findTok (s : Array TokEntry) (k : List UInt8) : Option Nat :=
  findTokIn s k (s.size + 1) 0 s.size

/-- Adjacent entries from `i` on are strictly increasing by bytes. -/
def sortedToksFrom (s : Array TokEntry) : Nat → Nat → Bool
  | 0, _ => true
  | fuel + 1, i =>
    if h : i + 1 < s.size then bytesLt (s[i]'(by omega)).1 s[i + 1].1 && sortedToksFrom s fuel (i + 1)
    else true

/-- The keys are sorted strictly by bytes (so `findTok` is correct and no token is listed
twice). -/
def sortedToks (s : Array TokEntry) : Bool := sortedToksFrom s s.size 0

/-! ## Loops in blocks -/

/-- Run `next` from `st` until `stop` holds, at most `fuel` steps; the flag says whether `stop`
held. The state goes to `next` unshared (`stop` is asked first and `st` is not used after
`next st`), so an array in it is updated in place, not copied at every step. -/
def iterSteps {σ : Type} (stop : σ → Bool) (next : σ → σ) : Nat → σ → σ × Bool
  | 0, st => (st, false)
  | fuel + 1, st => if stop st then (st, true) else iterSteps stop next fuel (next st)

/-- Run `next` until `stop` holds, `block` steps per call (`fuel` calls at most). -/
def iterBlocks {σ : Type} (stop : σ → Bool) (next : σ → σ) : Nat → σ → σ × Bool
  | 0, st => (st, false)
  | fuel + 1, st =>
    let r := iterSteps stop next block st
    if r.2 then r else iterBlocks stop next fuel r.1

/-! ## Merge sort -/

def minN (a b : Nat) : Nat := if a ≤ b then a else b

/-- The state of a bottom-up merge sort: the runs of length `width` of `src` are merged
pairwise into `dst`; the current pair starts at `lo`, its cursors are `i` and `j`. -/
structure SortState (α : Type) where
  src : Array α
  dst : Array α
  width : Nat
  lo : Nat
  i : Nat
  j : Nat

def getA {α : Type} (a : Array α) (i : Nat) : Option α := if h : i < a.size then some a[i] else none

/-- The sort is done: one run covers the whole array. -/
def sortStop {α : Type} (st : SortState α) : Bool := st.src.size ≤ st.width

/-- One step of the sort: move one element to `dst`, go to the next pair of runs, or start the
next pass. -/
def sortNext {α : Type} (lt : α → α → Bool) (st : SortState α) : SortState α :=
  let n := st.src.size
  if n ≤ st.lo then
    ⟨st.dst, #[], 2 * st.width, 0, 0, minN (2 * st.width) n⟩
  else
    let mid := minN (st.lo + st.width) n
    let hi := minN (st.lo + 2 * st.width) n
    match (if st.i < mid then getA st.src st.i else none),
      (if st.j < hi then getA st.src st.j else none) with
    | some x, some y =>
      if lt y x then { st with dst := st.dst.push y, j := st.j + 1 }
      else { st with dst := st.dst.push x, i := st.i + 1 }
    | some x, none => { st with dst := st.dst.push x, i := st.i + 1 }
    | none, some y => { st with dst := st.dst.push y, j := st.j + 1 }
    | none, none => { st with lo := hi, i := hi, j := minN (hi + st.width) n }

/-- Log₂ of `n`, rounded up, plus one (at most `fuel` halvings). -/
def passes : Nat → Nat → Nat
  | 0, _ => 0
  | fuel + 1, n => if n ≤ 1 then 1 else passes fuel ((n + 1) / 2) + 1

/-- The array sorted by `lt` (stable merge sort). -/
def sortBy {α : Type} (lt : α → α → Bool) (a : Array α) : Array α :=
  let n := a.size
  let steps := (2 * n + 2) * (passes 64 n + 1)
  (iterBlocks sortStop (sortNext lt) (steps / block + 2)
    ⟨a, #[], 1, 0, 0, minN 1 n⟩).1.src

/-! ## Parsing the `.tiktoken` file -/

/-- The value of a base64 digit (`64`: not a base64 digit). -/
def b64 (c : UInt8) : Nat :=
  let n := c.toNat
  if 65 ≤ n && n ≤ 90 then n - 65
  else if 97 ≤ n && n ≤ 122 then n - 71
  else if 48 ≤ n && n ≤ 57 then n + 4
  else if n == 43 then 62
  else if n == 47 then 63
  else 64

def isNil : List UInt8 → Bool
  | [] => true
  | _ => false

/-- Base64 decoding (with `=` padding in the last group only); `none` if malformed. Only
canonical base64 is accepted: in a padded last group the bits of the last digit that fall off
must be zero (`QQ==`, not `QR==`), so that decoding is injective
(`Bpe.Exec.encode64_of_decode64`). -/
def decode64 : List UInt8 → Option (List UInt8)
  | [] => some []
  | a :: b :: c :: d :: rest =>
    let va := b64 a
    let vb := b64 b
    let vc := b64 c
    let vd := b64 d
    let x := UInt8.ofNat (va * 4 + vb / 16)
    let y := UInt8.ofNat ((vb % 16) * 16 + vc / 4)
    let z := UInt8.ofNat ((vc % 4) * 64 + vd)
    if va < 64 && vb < 64 then
      if c.toNat == 61 && d.toNat == 61 && isNil rest then
        if vb % 16 == 0 then some [x] else none
      else if vc < 64 && d.toNat == 61 && isNil rest then
        if vc % 4 == 0 then some [x, y] else none
      else if vc < 64 && vd < 64 then
        match decode64 rest with
        | some r => some (x :: y :: z :: r)
        | none => none
      else none
    else none
  | _ => none

/-- The bytes from `i` up to the first space or newline (reversed onto `acc`; at most `fuel`;
`parseLine` gives the size of the buffer, enough to reach its end). -/
def takeField (b : ByteArray) : Nat → Nat → List UInt8 → List UInt8 × Nat
  | 0, i, acc => (acc, i)
  | fuel + 1, i, acc =>
    if i < b.size && byteAt b i != 32 && byteAt b i != 10 then
      takeField b fuel (i + 1) (byteAt b i :: acc)
    else (acc, i)

/-- The state of the parser: position, line number (from 1), entries so far, error. -/
structure ParseState where
  pos : Nat
  line : Nat
  toks : Array TokEntry
  err : Option String

/-- The line `i` starts: a token and its rank, and the position after the line; or what is
wrong with it. -/
def parseLine (b : ByteArray) (i : Nat) : Except String (TokEntry × Nat) :=
  let f := takeField b b.size i []
  let j := f.2
  if !(j < b.size && byteAt b j == 32) then .error "expected `base64 SPACE rank`"
  else
    match decode64 (revBytes f.1 []) with
    | none => .error "the token is not valid base64"
    | some [] => .error "empty token"
    | some tok =>
      if !isDigit (byteAt b (j + 1)) then .error "expected a rank after the space"
      else
        let r := digits b b.size (j + 1) 0
        if r.2 < b.size && byteAt b r.2 != 10 then .error "unexpected byte after the rank"
        else .ok ((tok, r.1), r.2 + 1)

/-- The parser is done: at the end of the file, or after an error. -/
def parseStop (b : ByteArray) (st : ParseState) : Bool :=
  st.err.isSome || b.size ≤ st.pos

/-- One line (empty lines are skipped). -/
def parseNext (b : ByteArray) (st : ParseState) : ParseState :=
  if byteAt b st.pos == 10 then { st with pos := st.pos + 1, line := st.line + 1 }
  else
    match parseLine b st.pos with
    | .error e =>
      { st with err := some ((pushNat "line " 40 st.line).append (": ".append e)) }
    | .ok (e, p) => ⟨p, st.line + 1, st.toks.push e, none⟩

/-- The entries of a `.tiktoken` file, in file order, or the first bad line's message. -/
def parseRanks (b : ByteArray) : Except String (Array TokEntry) :=
  let r := iterBlocks (parseStop b) (parseNext b) (b.size / block + 2) ⟨0, 1, #[], none⟩
  match r.1.err with
  | some e => .error e
  | none => if r.2 then .ok r.1.toks else .error "the file was not read to its end"

/-! ## Recovering the merges and the shuffle -/

/-- The rank of `t` if it is below `m` (`Bpe.allowedRank` with `some m`). -/
def allowedX (s : Array TokEntry) (m : Nat) (t : List UInt8) : Option Nat :=
  match findTok s t with
  | some r => if r < m then some r else none
  | none => none

/-- Position (from `i`) and rank of the best adjacent pair (`Bpe.bestPairIndex`). -/
def bestPairX (s : Array TokEntry) (m : Nat) : Nat → List (List UInt8) → Option (Nat × Nat)
  | i, a :: b :: rest =>
    match allowedX s m (appendBytes a b), bestPairX s m (i + 1) (b :: rest) with
    | none, r => r
    | some r, none => some (i, r)
    | some r, some (j, q) => if q < r then some (j, q) else some (i, r)
  | _, _ => none

/-- Replace parts `i` and `i + 1` by their concatenation (`Bpe.mergeAt`). -/
def mergeAtX : Nat → List (List UInt8) → List (List UInt8)
  | 0, a :: b :: rest => appendBytes a b :: rest
  | i + 1, a :: rest => a :: mergeAtX i rest
  | _, parts => parts

/-- The decomposition loop (`Bpe.decomposeLoop` with the bound `some m`). -/
def decomposeLoopX (s : Array TokEntry) (m : Nat) : Nat → List (List UInt8) → List (List UInt8)
  | 0, parts => parts
  | fuel + 1, parts =>
    match bestPairX s m 0 parts with
    | none => parts
    | some (i, _) => decomposeLoopX s m fuel (mergeAtX i parts)

/-- The single bytes of a token, as parts. -/
def singles : List UInt8 → List (List UInt8)
  | [] => []
  | x :: xs => [x] :: singles xs

/-- `Bpe.decomposeToken` with the bound `some m`. -/
def decomposeX (s : Array TokEntry) (tok : List UInt8) (m : Nat) : List (List UInt8) :=
  decomposeLoopX s m (lenBytes tok) (singles tok)

/-- The merge one token records (`Bpe.recoverMerge`). -/
def recoverOne (s : Array TokEntry) (e : TokEntry) : Option Entry :=
  match decomposeX s e.1 e.2 with
  | [a, b] =>
    match findTok s a, findTok s b with
    | some ra, some rb => some ((ra, rb), e.2)
    | _, _ => none
  | _ => none

/-- All entries are done. -/
def recoverStop (toks : Array TokEntry) (st : Nat × Array Entry) : Bool := toks.size ≤ st.1

/-- One entry of the rank file (in file order): push the merge it records. -/
def recoverNext (s : Array TokEntry) (toks : Array TokEntry) (st : Nat × Array Entry) :
    Nat × Array Entry :=
  match getA toks st.1 with
  | none => st
  | some e =>
    match recoverOne s e with
    | some m => (st.1 + 1, st.2.push m)
    | none => (st.1 + 1, st.2)

/-- The merges recorded by the entries, in file order (`Bpe.recoverMerges`). -/
def recoverAll (s : Array TokEntry) (toks : Array TokEntry) : Array Entry :=
  (iterBlocks (recoverStop toks) (recoverNext s toks) (toks.size / block + 2) (0, #[])).1.2

/-- The shuffle values of bytes `256 - fuel` … `255` pushed onto `a` (`Bpe.rankShuffle`). -/
def shuffleTable (s : Array TokEntry) : Nat → Array UInt8 → Array UInt8
  | 0, a => a
  | fuel + 1, a =>
    let x := UInt8.ofNat (256 - (fuel + 1))
    match findTok s [x] with
    | some r => shuffleTable s fuel (a.push (UInt8.ofNat r))
    | none => shuffleTable s fuel (a.push x)

/-- The key array: the entries sorted by bytes. -/
def keysOf (toks : Array TokEntry) : Array TokEntry := sortBy (fun p q => bytesLt p.1 q.1) toks

/-- The merges recorded by the entries, sorted by pair (for `Bpe.Exec.find`). -/
def mergesOf (s toks : Array TokEntry) : Array Entry :=
  sortBy (fun p q => keyLt p.1 q.1) (recoverAll s toks)

/-! ## Condition C at run time -/

/-- The ranks strictly increase along the entries from `i` on (`Bpe.ranksIncreasing`). -/
def ranksIncFrom (toks : Array TokEntry) : Nat → Nat → Bool
  | 0, _ => true
  | fuel + 1, i =>
    if h : i + 1 < toks.size then
      decide ((toks[i]'(by omega)).2 < toks[i + 1].2) && ranksIncFrom toks fuel (i + 1)
    else true

/-- No entry from `i` on is the empty byte string. -/
def nonEmptyFrom (toks : Array TokEntry) : Nat → Nat → Bool
  | 0, _ => true
  | fuel + 1, i =>
    if h : i < toks.size then !isNil toks[i].1 && nonEmptyFrom toks fuel (i + 1) else true

/-- Every rank from entry `i` on is below 2^32 - 1 = 4294967295, tiktoken's sentinel
`Rank::MAX` (`Bpe.rankSentinel`, `Bpe.checkRankBound`). -/
def ranksBelowFrom (toks : Array TokEntry) : Nat → Nat → Bool
  | 0, _ => true
  | fuel + 1, i =>
    if h : i < toks.size then
      decide (toks[i].2 < 4294967295) && ranksBelowFrom toks fuel (i + 1)
    else true

/-- The byte string has two bytes or more. -/
def isLong : List UInt8 → Bool
  | _ :: _ :: _ => true
  | _ => false

/-- `acc` plus the number of entries from `i` on with two bytes or more. -/
def countLongFrom (toks : Array TokEntry) : Nat → Nat → Nat → Nat
  | 0, _, acc => acc
  | fuel + 1, i, acc =>
    if h : i < toks.size then
      countLongFrom toks fuel (i + 1) (if isLong toks[i].1 then acc + 1 else acc)
    else acc

/-- Byte `i` has a one-byte token, of rank below 256 (`Bpe.checkByteRank`). -/
def byteRankOk (s : Array TokEntry) (i : Nat) : Bool :=
  match findTok s [UInt8.ofNat i] with
  | some r => decide (r < 256)
  | none => false

/-- Bytes `i` … `i + fuel - 1` pass `byteRankOk`. -/
def byteRanksFrom (s : Array TokEntry) : Nat → Nat → Bool
  | 0, _ => true
  | fuel + 1, i => byteRankOk s i && byteRanksFrom s fuel (i + 1)

/-- **Condition C (`Bpe.RanksOk`) at run time**, on the parsed entries `toks` (file order),
their key array `s` and the merges `m` recovered from them: the ranks strictly increase along
the file, no token is empty, every rank is below tiktoken's sentinel 2^32 - 1, every byte is a
token of rank below 256 (looked up with `findTok s`), and every token of two bytes or more records a merge (`m` has as many entries as
`toks` has such tokens; `recoverOne` records one only for a decomposition into two parts). With
`sortedToks s` (no token twice), this is `Bpe.RanksOk` (`Bpe.Exec.ranksOk_of_checkRanksX`); the
merge count costs nothing, so the check adds linear passes and 256 lookups to the recovery. -/
def checkRanksX (toks s : Array TokEntry) (m : Array Entry) : Bool :=
  ranksIncFrom toks toks.size 0 && nonEmptyFrom toks toks.size 0 &&
    ranksBelowFrom toks toks.size 0 && byteRanksFrom s 256 0 &&
    m.size == countLongFrom toks toks.size 0 0

/-! ## Writing the tables back -/

def pushEntryStop (m : Array Entry) (st : Nat × String) : Bool := m.size ≤ st.1

def pushEntryNext (m : Array Entry) (st : Nat × String) : Nat × String :=
  match getA m st.1 with
  | none => st
  | some ((a, c), r) => (st.1 + 1, (pushIds st.2 0 [a, c, r]).1)

/-- The entries `i` … `i + fuel - 1` of a byte array as numbers. -/
def natsOf (a : Array UInt8) : Nat → Nat → List Nat
  | 0, _ => []
  | fuel + 1, i =>
    match getA a i with
    | some x => x.toNat :: natsOf a fuel (i + 1)
    | none => []

/-- The shuffle (one line of 256 numbers) and the merges (`left right rank`, one a line). -/
def renderTables (sh : Array UInt8) (m : Array Entry) : String :=
  let first := (pushIds "" 0 (natsOf sh 256 0)).1
  (iterBlocks (pushEntryStop m) (pushEntryNext m) (m.size / block + 2) (0, first)).1.2

/-- What `loadRanks` built from a rank file: the merges sorted by pair, the shuffle, the number
of ranks, and the times of its phases in ms (parsing, sorting the keys, recovering the merges,
checking condition C). -/
structure Loaded where
  merges : Array Entry
  shuffle : Array UInt8
  ranks : Nat
  times : List Nat

/-- Read the rank file `ranksPath`, build the tables and check them (`sortedToks` on the keys,
`sorted` on the merges, condition C by `checkRanksX`); if `tablesPath` is not empty, also write
the tables there (`renderTables`). Fails with the reason (for a bad line: its number). -/
def loadRanks (ranksPath tablesPath : String) : IO Loaded := do
  let t0 ← IO.monoMsNow
  let rb ← IO.FS.readBinFile ranksPath
  let fail := fun (e : String) => IO.userError ((ranksPath.append ": ").append e)
  match parseRanks rb with
  | .error e => throw (fail e)
  | .ok toks =>
    let t1 ← IO.monoMsNow
    let s := keysOf toks
    if !sortedToks s then throw (fail "a token is listed twice")
    let t2 ← IO.monoMsNow
    let m := mergesOf s toks
    if !sorted m then throw (fail "two tokens record the same merge")
    let shuf := shuffleTable s 256 #[]
    let t3 ← IO.monoMsNow
    if !checkRanksX toks s m then
      throw (fail ("the table fails condition C (increasing ranks below 2^32 - 1, no empty ".append
        "token, every byte a token of rank below 256, every longer token two parts)"))
    let t4 ← IO.monoMsNow
    if tablesPath != "" then IO.FS.writeFile tablesPath (renderTables shuf m)
    return ⟨m, shuf, toks.size, [t1 - t0, t2 - t1, t3 - t2, t4 - t3]⟩

/-- The summary line of a run: ranks, merges, texts, tokens, then the times in ms. -/
def summaryLine (l : Loaded) (o : Out) (encodeMs : Nat) : String :=
  (pushIds "ranks merges texts tokens parse_ms sort_ms recover_ms check_ms encode_ms: " 0
    (appendIds [l.ranks, l.merges.size, o.texts, o.tokens] (appendIds l.times [encodeMs]))).1

/-- Read the rank file `ranksPath` and the pre-tokenized texts `textsPath` (the number of
texts, then per text its number of chunks and every chunk as its length and bytes, decimal),
build the tables (`loadRanks`), encode every text and write one line of ids per text to
`outPath`; if `tablesPath` is not empty, also write the tables there. Returns a summary line;
fails with the reason (for a bad line: its number) if the tables cannot be built. -/
def runRanks (ranksPath textsPath outPath tablesPath : String) : IO String := do
  let l ← loadRanks ranksPath tablesPath
  let t0 ← IO.monoMsNow
  let b ← IO.FS.readBinFile textsPath
  let nt := readNat b 0
  let o := (encodeAllTexts b l.merges (fun x => shuffleOf l.shuffle x) (nt.1 / block + 1) nt.1
    nt.2 ⟨"", 0, 0, none⟩).1
  if let some e := o.err then throw (IO.userError e)
  IO.FS.writeFile outPath o.text
  let t1 ← IO.monoMsNow
  return summaryLine l o (t1 - t0)

/-- Time condition C alone on the rank file `ranksPath`: parse it, sort the keys (`keysOf`,
checked by `sortedToks`), then run the passes of `checkRanksX` (all but its final comparison of
two numbers, the merge count, since the merges are not recovered here). Returns a summary line
(`long`: the tokens of two bytes or more, as many as the merges a passing table records). -/
def timeCheckRanks (ranksPath : String) : IO String := do
  let t0 ← IO.monoMsNow
  let rb ← IO.FS.readBinFile ranksPath
  match parseRanks rb with
  | .error e => throw (IO.userError e)
  | .ok toks =>
    let t1 ← IO.monoMsNow
    let s := keysOf toks
    if !sortedToks s then throw (IO.userError "a token is listed twice")
    let t2 ← IO.monoMsNow
    if !(ranksIncFrom toks toks.size 0 && nonEmptyFrom toks toks.size 0 &&
        ranksBelowFrom toks toks.size 0 && byteRanksFrom s 256 0) then
      throw (IO.userError "the table fails condition C")
    let n := countLongFrom toks toks.size 0 0
    if n == 0 then throw (IO.userError "no token of two bytes or more")
    let t3 ← IO.monoMsNow
    let line := pushIds "ranks long parse_ms sort_ms check_ms: " 0
      [toks.size, n, t1 - t0, t2 - t1, t3 - t2]
    return line.1

end Bpe.Exec
