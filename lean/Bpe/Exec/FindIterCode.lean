module

public import Bpe.Regex.Patterns
public import Bpe.Regex.Unicode
public import Bpe.Exec.PreTokenizeCode

/-!
# The regex matcher and `findIter` in compiled code (no proofs)

`Bpe.Regex.findIter` (`Bpe.Regex.Match`) sits in a `noncomputable section` and reads lengths
with core's `List.length`, `List.take`, `List.any`, `List.contains`, `List.isEmpty`, whose
compiled code calls private helpers that the offline build lacks. `findIterX` is the same
matcher written for compiled code, over the Unicode instance of the classes (`unicodeHas`,
`asciiOrbit`, i.e. `unicodeClasses`):

* a position is the rest of the text **and its length** (`n`), passed along: a step drops one
  code point and one from the length, so `star`'s test "the iteration shortened the input"
  (`s'.length < s.length` in the spec, two walks of the input per iteration) is `n' < n`, and
  the counter of an unbounded repeat is `n + 1`, read from the position;
* a match returns the rest of the text with its length (`ResX`), so `findLoopX` cuts the chunk
  (`takeCps`) without measuring anything;
* the membership tests are own recursions (`anyItemsX`, `anyBaseX`, `containsX`).

The patterns are `cl100kX` and `o200kX`: `Bpe.Regex.cl100kPattern` and `Bpe.Regex.o200kPattern`
written without `List.drop` (which does not compile offline); `Bpe.Exec.FindIter` proves them
equal to the spec's terms and `findIterX r` equal to `Bpe.Regex.findIter unicodeClasses r` for
every term `r` and every input.

`runFindIterTexts` is route 3's runner: it reads raw texts (each its length in bytes and its
bytes), and for every text writes the chunks of `findIterX` with the encoding's pattern and
the chunks of the machine (`preTokenizeX` with `Cl100k.nextChunkLen` / `O200k.nextChunkLen`),
both as code points, and counts the texts where they differ.
-/

@[expose] public section

namespace Bpe.Exec

open Bpe.Regex

/-! ## The patterns -/

/-- `(?i:'s|'t|'re|'ve|'m|'ll|'d)?` (`Bpe.Regex.contractionsO200k` without `List.drop`). -/
def contractionsO200kX : Re :=
  opt (.caseless (alts (.seq (ch '\'') (ch 's'))
    [.seq (ch '\'') (ch 't'), seqs (ch '\'') [ch 'r', ch 'e'], seqs (ch '\'') [ch 'v', ch 'e'],
      .seq (ch '\'') (ch 'm'), seqs (ch '\'') [ch 'l', ch 'l'], .seq (ch '\'') (ch 'd')]))

/-- cl100k_base's pattern (`Bpe.Regex.cl100kPattern`). -/
def cl100kX : Re :=
  alts contractionsCl100k
    [.seq (optPoss wordLead) (plusPoss pL), .rep pN 1 (some 3) true,
      seqs (opt (ch ' ')) [plusPoss punct, manyPoss newline], .seq (plusPoss ws) .eos, newlineWs,
      trailingWs, ws]

/-- o200k_base's pattern (`Bpe.Regex.o200kPattern`). -/
def o200kX : Re :=
  alts (seqs (opt wordLead) [many upperish, plus lowerish, contractionsO200kX])
    [seqs (opt wordLead) [plus upperish, many lowerish, contractionsO200kX], digits3,
      seqs (opt (ch ' ')) [plus punct, many (.cls (.set false [it '\r', it '\n', it '/']))],
      .seq (many ws) (plus newline), trailingWs, otherWs]

/-! ## Classes -/

/-- Whether the class member `i` contains `x` (`Bpe.Regex.itemHolds unicodeClasses`). -/
def itemHoldsX (x : Nat) : Item → Bool
  | .char c => x == c
  | .range lo hi => decide (lo ≤ x) && decide (x ≤ hi)
  | .prop p => unicodeHas p x

/-- Whether some member contains `x` (`items.any (itemHolds unicodeClasses x)`). -/
def anyItemsX (x : Nat) : List Item → Bool
  | [] => false
  | i :: is => itemHoldsX x i || anyItemsX x is

/-- The class before negation and case closure (`Bpe.Regex.classBase unicodeClasses`). -/
def classBaseX : CharClass → Nat → Bool
  | .esc _ p, x => unicodeHas p x
  | .set _ items, x => anyItemsX x items

/-- Whether one of `xs` is in the class before negation (`xs.any (classBase … k)`). -/
def anyBaseX (k : CharClass) : List Nat → Bool
  | [] => false
  | x :: xs => classBaseX k x || anyBaseX k xs

/-- Whether the class is negated (`Bpe.Regex.classNegated`). -/
def classNegatedX : CharClass → Bool
  | .esc n _ => n
  | .set n _ => n

/-- Whether `x` is in the class (`Bpe.Regex.classHolds unicodeClasses`). -/
def classHoldsX (ci : Bool) (k : CharClass) (x : Nat) : Bool :=
  (classBaseX k x || (ci && anyBaseX k (asciiOrbit x))) != classNegatedX k

/-- Whether `c` is one of `xs` (`xs.contains c`). -/
def containsX (c : Nat) : List Nat → Bool
  | [] => false
  | x :: xs => c == x || containsX c xs

/-- Whether `x` matches the literal `c` (`Bpe.Regex.charHolds unicodeClasses`). -/
def charHoldsX (ci : Bool) (c x : Nat) : Bool :=
  x == c || (ci && containsX c (asciiOrbit x))

/-! ## The matcher -/

/-- The end of a match: the rest of the text and its length. -/
abbrev ResX := Option (List Nat × Nat)

/-- A continuation on a position (the rest of the text and its length). -/
abbrev ContX := List Nat → Nat → ResX

/-- A matcher: from a position and a continuation. -/
abbrev MatcherX := List Nat → Nat → ContX → ResX

/-- One code point that satisfies `p`, then `k` (`Bpe.Regex.step`). -/
def stepX (p : Nat → Bool) (k : ContX) : List Nat → Nat → ResX
  | [], _ => none
  | x :: rest, n => if p x then k rest (n - 1) else none

/-- Exactly `j` iterations of `m`, then `k` (`Bpe.Regex.times`). -/
def timesX (m : MatcherX) (k : ContX) : Nat → ContX
  | 0, s, n => k s n
  | j + 1, s, n => m s n fun s' n' => timesX m k j s' n'

/-- At most `j` more iterations of `m`, greedy, then `k` (`Bpe.Regex.upTo`). -/
def upToX (m : MatcherX) (k : ContX) : Nat → ContX
  | 0, s, n => k s n
  | j + 1, s, n =>
    match m s n fun s' n' => upToX m k j s' n' with
    | some e => some e
    | none => k s n

/-- Any number of iterations of `m`, greedy, each shortening the input, then `k`
(`Bpe.Regex.star`; the length is compared, not recomputed). -/
def starX (m : MatcherX) (k : ContX) : Nat → ContX
  | 0, s, n => k s n
  | j + 1, s, n =>
    match m s n fun s' n' => if n' < n then starX m k j s' n' else none with
    | some e => some e
    | none => k s n

/-- `r{lo,hi}` with the matcher `m` of `r`, greedy (`Bpe.Regex.repeatGreedy`); an unbounded
repeat runs `starX` with the counter `n + 1`. -/
def repeatGreedyX (m : MatcherX) (lo : Nat) (hi : Option Nat) (k : ContX) : ContX :=
  timesX m (fun s n => match hi with
    | some h => upToX m k (h - lo) s n
    | none => starX m k (n + 1) s n) lo

/-- The continuation that accepts where it is. -/
def doneX : ContX := fun s n => some (s, n)

/-- The matcher (`Bpe.Regex.matchRe unicodeClasses`): `matchX r ci s n k` runs `r` on `s` of
length `n` and passes each way it matches, in priority order, to `k`. -/
def matchX : Re → Bool → List Nat → Nat → ContX → ResX
  | .empty, _, s, n, k => k s n
  | .char c, ci, s, n, k => stepX (charHoldsX ci c) k s n
  | .cls cc, ci, s, n, k => stepX (classHoldsX ci cc) k s n
  | .seq a b, ci, s, n, k => matchX a ci s n fun s' n' => matchX b ci s' n' k
  | .alt a b, ci, s, n, k =>
    match matchX a ci s n k with
    | some e => some e
    | none => matchX b ci s n k
  | .rep r lo hi possessive, ci, s, n, k =>
    if possessive then
      match repeatGreedyX (matchX r ci) lo hi doneX s n with
      | some e => k e.1 e.2
      | none => none
    else repeatGreedyX (matchX r ci) lo hi k s n
  | .group r, ci, s, n, k => matchX r ci s n k
  | .caseless r, _, s, n, k => matchX r true s n k
  | .notAhead r, ci, s, n, k =>
    match matchX r ci s n doneX with
    | some _ => none
    | none => k s n
  | .eos, _, s, n, k =>
    match s with
    | [] => k s n
    | _ :: _ => none

/-- The match of `r` anchored at `s` (of length `n`) (`Bpe.Regex.matchAt unicodeClasses`). -/
def matchAtX (r : Re) (s : List Nat) (n : Nat) : ResX := matchX r false s n doneX

/-! ## `find_iter` -/

/-- The first `j` code points. -/
def takeCps : Nat → List Nat → List Nat
  | 0, _ => []
  | _, [] => []
  | j + 1, x :: xs => x :: takeCps j xs

/-- The number of code points. -/
def lenCps : List Nat → Nat
  | [] => 0
  | _ :: xs => lenCps xs + 1

/-- The `find_iter` loop at `s` of length `n` (`Bpe.Regex.findLoop unicodeClasses`). -/
def findLoopX (r : Re) : Nat → Bool → List Nat → Nat → List (List Nat)
  | 0, _, _, _ => []
  | fuel + 1, adj, s, n =>
    match matchAtX r s n with
    | some e =>
      if e.2 < n then takeCps (n - e.2) s :: findLoopX r fuel true e.1 e.2
      else if adj then
        match s with
        | [] => []
        | _ :: t => findLoopX r fuel false t (n - 1)
      else
        [] :: match s with
          | [] => []
          | _ :: t => findLoopX r fuel false t (n - 1)
    | none =>
      match s with
      | [] => []
      | _ :: t => findLoopX r fuel false t (n - 1)

/-- All leftmost, non-overlapping matches of `r` in `s` (`Bpe.Regex.findIter unicodeClasses`). -/
def findIterX (r : Re) (s : List Nat) : List (List Nat) :=
  let n := lenCps s
  findLoopX r (n + 1) false s n

/-! ## Route 3's runner -/

/-- The code points of each chunk of bytes. -/
def chunkCodePoints : List (List UInt8) → List (List Nat)
  | [] => []
  | c :: cs => codePointsX (unitsX (lenBytes c) c) :: chunkCodePoints cs

/-- Whether two lists of code points are equal. -/
def eqCps : List Nat → List Nat → Bool
  | [], [] => true
  | x :: xs, y :: ys => x == y && eqCps xs ys
  | _, _ => false

/-- Whether two lists of chunks are equal. -/
def eqChunks : List (List Nat) → List (List Nat) → Bool
  | [], [] => true
  | x :: xs, y :: ys => eqCps x y && eqChunks xs ys
  | _, _ => false

/-- The number of chunks. -/
def lenChunks : List (List Nat) → Nat
  | [] => 0
  | _ :: cs => lenChunks cs + 1

/-- Append ` x` for every code point. -/
def pushCps (s : String) : List Nat → String
  | [] => s
  | x :: xs => pushCps (pushNat (s.push ' ') 40 x) xs

/-- Append ` len cp…` for every chunk. -/
def pushChunkList (s : String) : List (List Nat) → String
  | [] => s
  | c :: cs => pushChunkList (pushCps (pushNat (s.push ' ') 40 (lenCps c)) c) cs

/-- Append one line: the number of chunks, then every chunk as its length and code points. -/
def pushChunks (s : String) (cs : List (List Nat)) : String :=
  (pushChunkList (pushNat s 40 (lenChunks cs)) cs).push '\n'

/-- What the run produced: the output, the texts read, the chunks of `findIterX`, the texts
where they differ from the machine's, and why it stopped early. -/
structure RegexOut where
  text : String
  texts : Nat
  chunks : Nat
  differ : Nat
  err : Option String

/-- `n` raw texts from `i` (each its length in bytes and its bytes): per text, a line of the
chunks of `findIterX r` on its code points and a line of the chunks of `preTokenizeX next`. -/
def regexTexts (r : Re) (next : List Nat → Nat) (b : ByteArray) :
    Nat → Nat → RegexOut → RegexOut × Nat
  | 0, i, o => (o, i)
  | n + 1, i, o =>
    let l := readNat b i
    match readBytes b l.1 l.2 [] with
    | none => ({ o with err := some (byteErr (o.texts + 1)) }, i)
    | some x =>
      let f := findIterX r (codePointsX (unitsX (lenBytes x.1) x.1))
      let m := chunkCodePoints (preTokenizeX next x.1)
      regexTexts r next b n x.2
        ⟨pushChunks (pushChunks o.text f) m, o.texts + 1, o.chunks + lenChunks f,
          if eqChunks f m then o.differ else o.differ + 1, none⟩

/-- `n` texts, `block` at a time (`fuel` blocks at most). -/
def regexAllTexts (r : Re) (next : List Nat → Nat) (b : ByteArray) :
    Nat → Nat → Nat → RegexOut → RegexOut × Nat
  | 0, _, i, o => (o, i)
  | fuel + 1, n, i, o =>
    if n ≤ block then regexTexts r next b n i o
    else
      let x := regexTexts r next b block i o
      if x.1.err.isSome then x else regexAllTexts r next b fuel (n - block) x.2 x.1

/-- Read `inPath` (the number of texts, then each text as its length in bytes and its bytes),
write two lines per text to `outPath` (`findIterX r`'s chunks, the machine's chunks), and
return a summary line: texts, chunks of `findIterX`, texts where the two differ, milliseconds. -/
def runFindIterTexts (r : Re) (next : List Nat → Nat) (inPath outPath : String) :
    IO String := do
  let t0 ← IO.monoMsNow
  let b ← IO.FS.readBinFile inPath
  let nt := readNat b 0
  let o := (regexAllTexts r next b (nt.1 / block + 1) nt.1 nt.2 ⟨"", 0, 0, 0, none⟩).1
  if let some e := o.err then throw (IO.userError e)
  IO.FS.writeFile outPath o.text
  let t1 ← IO.monoMsNow
  let line := pushIds "texts chunks differ ms: " 0 [o.texts, o.chunks, o.differ, t1 - t0]
  return line.1

end Bpe.Exec
