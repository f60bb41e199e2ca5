module

public import Bpe
public import Std.Data.HashMap

/-!
# `bpe-encode`: the specification as an executable (route 2 of the cross-check)

`lake exe bpe-encode RANKS_FILE` reads a `.tiktoken` rank file (one `base64 rank` per line)
and then JSON lines on stdin: a JSON string is encoded with `Bpe.encode` (the proven ASCII
pre-tokenizer and the merge loop), a JSON list of strings is taken as already pre-tokenized
chunks and each chunk is encoded with `Bpe.encodeChunk` (for encodings whose pre-tokenizer is
not formalised). It writes one JSON list of token ids per line. The merge table is recovered
with `Bpe.decomposeToken` and every chunk is encoded with `Bpe.encodeChunk`, the spec's own
functions: no second implementation. For speed the association lists handed to them are
restricted to the byte strings that occur inside the token or chunk at hand (hash maps find
those); a lookup of anything else fails in the full table too, so the results are the same.
Native toolchains only: the offline WebAssembly Lean elaborates this file but cannot generate
code.
-/

@[expose] public section
noncomputable section

namespace BpeExe

open Bpe

/-- Value of a base64 digit. -/
def base64Value (c : Char) : Option Nat :=
  if 'A' ≤ c ∧ c ≤ 'Z' then some (c.toNat - 'A'.toNat)
  else if 'a' ≤ c ∧ c ≤ 'z' then some (c.toNat - 'a'.toNat + 26)
  else if '0' ≤ c ∧ c ≤ '9' then some (c.toNat - '0'.toNat + 52)
  else if c = '+' then some 62
  else if c = '/' then some 63
  else none

/-- Groups of four base64 digits ↦ three bytes (fewer for a short last group). -/
def base64Groups : List Nat → List UInt8
  | a :: b :: c :: d :: rest =>
    let n := a * 262144 + b * 4096 + c * 64 + d
    UInt8.ofNat (n / 65536) :: UInt8.ofNat (n / 256 % 256) :: UInt8.ofNat (n % 256) ::
      base64Groups rest
  | [a, b, c] =>
    let n := a * 262144 + b * 4096 + c * 64
    [UInt8.ofNat (n / 65536), UInt8.ofNat (n / 256 % 256)]
  | [a, b] => [UInt8.ofNat ((a * 262144 + b * 4096) / 65536)]
  | _ => []

/-- Base64 decoding (padding `=` allowed at the end); `none` on a bad digit. -/
def base64Decode (cs : List Char) : Option Bytes :=
  ((cs.filter (· != '=')).mapM base64Value).map base64Groups

/-- Split a list of characters at every occurrence of `sep`. -/
def splitOnChar (sep : Char) : List Char → List (List Char)
  | [] => [[]]
  | c :: cs =>
    match splitOnChar sep cs with
    | [] => [[c]]
    | first :: rest => if c = sep then [] :: first :: rest else (c :: first) :: rest

/-- One line `base64 rank` of a `.tiktoken` file. -/
def parseRanksLine (line : List Char) : Option (Bytes × Nat) :=
  match splitOnChar ' ' line with
  | [token, rank] => do
    let bytes ← base64Decode token
    let r ← (String.ofList rank).toNat?
    pure (bytes, r)
  | _ => none

/-- A JSON string literal at the head of `cs` (after its opening quote): the string and the
rest. Handles the escapes `\" \\ \/ \b \f \n \r \t \uXXXX` (with surrogate pairs). -/
def parseJsonString : List Char → List Char → Option (String × List Char)
  | acc, '"' :: rest => some (String.ofList acc.reverse, rest)
  | acc, '\\' :: 'u' :: a :: b :: c :: d :: rest => do
    let hi ← hex4 [a, b, c, d]
    if 0xD800 ≤ hi ∧ hi < 0xDC00 then
      match rest with
      | '\\' :: 'u' :: e :: f :: g :: h :: rest' =>
        let lo ← hex4 [e, f, g, h]
        parseJsonString (Char.ofNat (0x10000 + (hi - 0xD800) * 1024 + (lo - 0xDC00)) :: acc) rest'
      | _ => none
    else parseJsonString (Char.ofNat hi :: acc) rest
  | acc, '\\' :: c :: rest => do
    let e ← match c with
      | '"' => some '"' | '\\' => some '\\' | '/' => some '/' | 'b' => some '\x08'
      | 'f' => some '\x0c' | 'n' => some '\n' | 'r' => some '\r' | 't' => some '\t'
      | _ => none
    parseJsonString (e :: acc) rest
  | acc, c :: rest => parseJsonString (c :: acc) rest
  | _, [] => none
where
  hex4 (ds : List Char) : Option Nat :=
    ds.foldlM (init := 0) fun n ch =>
      if '0' ≤ ch ∧ ch ≤ '9' then some (n * 16 + (ch.toNat - '0'.toNat))
      else if 'a' ≤ ch ∧ ch ≤ 'f' then some (n * 16 + (ch.toNat - 'a'.toNat + 10))
      else if 'A' ≤ ch ∧ ch ≤ 'F' then some (n * 16 + (ch.toNat - 'A'.toNat + 10))
      else none

def skipWs (cs : List Char) : List Char := cs.dropWhile fun c => c = ' ' ∨ c = '\t' ∨ c = '\r'

/-- A list of JSON strings after its `[`: the strings and the rest. -/
def parseJsonStrings : Nat → List Char → List String → Option (List String × List Char)
  | 0, _, _ => none
  | fuel + 1, cs, acc =>
    match skipWs cs with
    | ']' :: rest => some (acc.reverse, rest)
    | '"' :: rest => do
      let (s, rest) ← parseJsonString [] rest
      match skipWs rest with
      | ',' :: rest => parseJsonStrings fuel rest (s :: acc)
      | ']' :: rest => some ((s :: acc).reverse, rest)
      | _ => none
    | _ => none

/-- One input line: a JSON string (`.inl`) or a JSON list of strings (`.inr`). -/
def parseInput (line : String) : Option (String ⊕ List String) :=
  match skipWs line.toList with
  | '"' :: rest => do
    let (s, rest) ← parseJsonString [] rest
    if (skipWs rest).isEmpty then some (.inl s) else none
  | '[' :: rest => do
    let (ss, rest) ← parseJsonStrings (rest.length + 1) rest []
    if (skipWs rest).isEmpty then some (.inr ss) else none
  | _ => none

/-- All contiguous byte strings of `bs` of length at least 2. -/
def substrings (bs : Bytes) : List Bytes :=
  (List.range bs.length).flatMap fun i =>
    (List.range (bs.length - i + 1)).filterMap fun n =>
      if 2 ≤ n then some ((bs.drop i).take n) else none

structure Tables where
  rankOf : Std.HashMap Bytes Nat
  /-- merged rank ↦ the ranks of its two parts -/
  pairOf : Std.HashMap Nat (Nat × Nat)
  shuffleTable : List UInt8

/-- The ranks of the substrings of `token`, as the `Ranks` list `decomposeToken` takes. -/
def localRanks (rankOf : Std.HashMap Bytes Nat) (token : Bytes) : Ranks :=
  (substrings token).filterMap fun s => rankOf[s]?.map fun r => (s, r)

/-- The merge table behind the ranks (minbpe's recovery, with `Bpe.decomposeToken`). -/
def recoverPairs (rankOf : Std.HashMap Bytes Nat) (ranks : List (Bytes × Nat)) :
    Except String (Std.HashMap Nat (Nat × Nat)) :=
  ranks.foldlM (init := ∅) fun acc (token, r) =>
    if token.length < 2 then pure acc
    else
      match decomposeToken (localRanks rankOf token) token (some r) with
      | [a, b] =>
        match rankOf[a]?, rankOf[b]? with
        | some ra, some rb => pure (acc.insert r (ra, rb))
        | _, _ => throw s!"rank {r}: a part has no rank"
      | parts => throw s!"rank {r}: token splits into {parts.length} parts, not 2"

def loadTables (text : String) : Except String Tables := do
  let lines := (splitOnChar '\n' text.toList).filter (! ·.isEmpty)
  let ranks ← lines.mapM fun l =>
    match parseRanksLine (l.filter (· != '\r')) with
    | some e => pure e
    | none => throw s!"malformed rank line: {String.ofList l}"
  let rankOf : Std.HashMap Bytes Nat := ranks.foldl (init := ∅) fun m (t, r) => m.insert t r
  let shuffleTable ← (List.range 256).mapM fun b =>
    match rankOf[[UInt8.ofNat b]]? with
    | some r => if r < 256 then pure (UInt8.ofNat r) else throw s!"byte {b} has rank {r} ≥ 256"
    | none => throw s!"byte {b} has no rank"
  let pairOf ← recoverPairs rankOf ranks
  pure { rankOf, pairOf, shuffleTable }

/-- The merges whose tokens occur inside `chunk`, as the `Merges` list `encodeChunk` takes. -/
def localMerges (t : Tables) (chunk : Bytes) : Merges :=
  (substrings chunk).filterMap fun s => do
    let r ← t.rankOf[s]?
    let p ← t.pairOf[r]?
    pure (p, r)

def encodeChunkFast (t : Tables) (chunk : Bytes) : List Nat :=
  encodeChunk (localMerges t chunk) (fun b => t.shuffleTable.getD b.toNat 0) chunk

/-- `Bpe.encode` (a string) or chunk-wise `Bpe.encodeChunk` (a list of chunks). -/
def encodeInput (t : Tables) : String ⊕ List String → List Nat
  | .inl s => (preTokenizeAscii (stringBytes s)).flatMap (encodeChunkFast t)
  | .inr chunks => chunks.flatMap fun c => encodeChunkFast t (stringBytes c)

def render (ids : List Nat) : String := "[" ++ ", ".intercalate (ids.map toString) ++ "]"

/-- Read, encode and answer lines until end of input (at most `fuel` lines). -/
def loop (t : Tables) (stdin : IO.FS.Stream) (stdout : IO.FS.Stream) :
    Nat → Nat → IO UInt32
  | 0, _ => return 0
  | fuel + 1, n => do
    let line ← stdin.getLine
    if line.isEmpty then return 0
    let body := String.ofList (line.toList.filter (· != '\n'))
    if body.isEmpty then return ← loop t stdin stdout fuel (n + 1)
    match parseInput body with
    | none =>
      IO.eprintln s!"bpe-encode: line {n}: expected a JSON string or a JSON list of strings"
      return 1
    | some input =>
      stdout.putStrLn (render (encodeInput t input))
      stdout.flush
      loop t stdin stdout fuel (n + 1)

def main (args : List String) : IO UInt32 := do
  match args with
  | [path] =>
    let text ← IO.FS.readFile path
    match loadTables text with
    | .error e => IO.eprintln s!"bpe-encode: {path}: {e}"; return 1
    | .ok t => loop t (← IO.getStdin) (← IO.getStdout) 1000000000 1
  | _ =>
    IO.eprintln "usage: bpe-encode RANKS_FILE < lines.jsonl  (JSON string or list of chunks per line)"
    return 2

end BpeExe

/-- The executable's entry point. -/
def main (args : List String) : IO UInt32 := BpeExe.main args
