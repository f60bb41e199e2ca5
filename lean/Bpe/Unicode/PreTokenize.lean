module

public import Bpe.Unicode.Tables
public import Bpe.Seed.PreTokenize

/-!
# Unicode pre-tokenizers: UTF-8 units, shared branches, the splitting loop

The seed's state machine (`Bpe.Seed.PreTokenize`) reads bytes and knows only ASCII classes. The
Unicode pre-tokenizers of `Bpe.Unicode.Cl100k` and `Bpe.Unicode.O200k` read *code
points*: the input bytes are cut into UTF-8 units (`utf8Units`: the bytes of one character, by
the length its first byte announces), each unit has a code point (`unitCodePoint`), and a
branch matcher takes the code points of the rest of the input and returns how many it matches
(0 = the branch does not match). The character classes are those of `Bpe.Unicode.Tables`,
pinned to tiktoken's regex engine.

This file holds what both patterns share: the classes built from the tables
(`[^\r\n\p{L}\p{N}]`, `[^\s\p{L}\p{N}]`), the contraction branch (the same set in both
patterns), `\p{N}{1,3}`, the three whitespace branches, and the loop `splitUnits` that cuts
the units into chunks with a pattern's chunk-length function (fuel = number of units).

Theorems, for every chunk-length function that is always positive and for every byte string
(valid UTF-8 or not): the chunks concatenate back to the input (`flatten_preTokenizeWith`) and
no chunk is empty (`ne_nil_of_mem_preTokenizeWith`).
-/

@[expose] public section
noncomputable section

namespace Bpe.CodePoint

/-- Length of the UTF-8 unit that starts with byte `b` (1 for a byte that cannot start one). -/
def utf8Len (b : UInt8) : Nat :=
  if b.toNat < 0xC0 then 1
  else if b.toNat < 0xE0 then 2
  else if b.toNat < 0xF0 then 3
  else if b.toNat < 0xF8 then 4
  else 1

/-- The code point of one UTF-8 unit (U+FFFD for a unit that is not a character). -/
def unitCodePoint : Bytes → Nat
  | [b] => if b.toNat < 128 then b.toNat else 0xFFFD
  | [b0, b1] => b0.toNat % 32 * 64 + b1.toNat % 64
  | [b0, b1, b2] => b0.toNat % 16 * 4096 + b1.toNat % 64 * 64 + b2.toNat % 64
  | [b0, b1, b2, b3] =>
    b0.toNat % 8 * 262144 + b1.toNat % 64 * 4096 + b2.toNat % 64 * 64 + b3.toNat % 64
  | _ => 0xFFFD

/-- Cut bytes into UTF-8 units; `fuel` bounds the number of units. -/
def utf8Units : Nat → Bytes → List Bytes
  | 0, _ => []
  | _, [] => []
  | fuel + 1, b :: bs =>
    (b :: bs).take (utf8Len b) :: utf8Units fuel ((b :: bs).drop (utf8Len b))

/-- Length of the longest prefix of code points satisfying `p`. -/
def runLength (p : Nat → Bool) : List Nat → Nat
  | [] => 0
  | c :: cs => if p c then runLength p cs + 1 else 0

/-- The code points after the first `n`: `List.drop`, written out because the compiled code of
core's `List.drop` calls a helper that the offline toolchain does not ship, and the compiled
cross-check runs these branches (`Bpe.Exec.PreTokenize`). -/
def dropCodePoints : Nat → List Nat → List Nat
  | 0, cs => cs
  | _, [] => []
  | n + 1, _ :: cs => dropCodePoints n cs

@[simp] theorem dropCodePoints_eq : ∀ (n : Nat) (cs : List Nat),
    dropCodePoints n cs = cs.drop n
  | 0, _ => rfl
  | _ + 1, [] => rfl
  | n + 1, _ :: cs => dropCodePoints_eq n cs

/-- Whether the first `n` code points are all there is (`(cs.drop n).isEmpty`, written out for
the same reason). -/
def reachesEnd : Nat → List Nat → Bool
  | _, [] => true
  | 0, _ :: _ => false
  | n + 1, _ :: cs => reachesEnd n cs

@[simp] theorem reachesEnd_eq : ∀ (n : Nat) (cs : List Nat),
    reachesEnd n cs = (cs.drop n).isEmpty
  | _, [] => by simp [reachesEnd]
  | 0, _ :: _ => rfl
  | n + 1, _ :: cs => reachesEnd_eq n cs

/-- `[\r\n]`. -/
def isNewline (c : Nat) : Bool := c == 10 || c == 13

/-- `[^\r\n\p{L}\p{N}]`, the optional lead of the word branches. -/
def isWordLead (c : Nat) : Bool := !isNewline c && !Unicode.isL c && !Unicode.isN c

/-- `[^\s\p{L}\p{N}]`, punctuation and symbols. -/
def isPunct (c : Nat) : Bool := !Unicode.isWhiteSpace c && !Unicode.isL c && !Unicode.isN c

/-- Case folding of the contraction letters as tiktoken's `(?i:...)` sees them: `A-Z` to
`a-z`, and U+017F (long s) to `s`; other code points are unchanged. -/
def foldCase (c : Nat) : Nat :=
  if 65 ≤ c && c ≤ 90 then c + 32 else if c == 0x17F then 115 else c

/-- cl100k's branch `'(?i:[sdmt]|ll|ve|re)`, which is also o200k's contraction suffix
`(?i:'s|'t|'re|'ve|'m|'ll|'d)` (the same set). -/
def matchContraction : List Nat → Nat
  | q :: c :: rest =>
    if q == 39 then
      let c := foldCase c
      if c == 115 || c == 100 || c == 109 || c == 116 then 2
      else match rest with
        | d :: _ =>
          let d := foldCase d
          if (c == 108 && d == 108) || (c == 118 && d == 101) || (c == 114 && d == 101) then 3
          else 0
        | [] => 0
    else 0
  | _ => 0

/-- `\p{N}{1,3}` (possessive or not: the same). -/
def matchDigits (rest : List Nat) : Nat := min 3 (runLength Unicode.isN rest)

/-- One past the last newline among the first `n` code points, or 0 if there is none. -/
def lastNewlineEnd : Nat → List Nat → Nat
  | 0, _ => 0
  | _, [] => 0
  | n + 1, c :: cs =>
    let r := lastNewlineEnd n cs
    if r != 0 then r + 1 else if isNewline c then 1 else 0

/-- `\s*[\r\n]` (and o200k's `\s*[\r\n]+`, of the same length): the longest whitespace
prefix that ends in a newline. -/
def matchNewlineWs (rest : List Nat) : Nat :=
  lastNewlineEnd (runLength Unicode.isWhiteSpace rest) rest

/-- `\s+(?!\S)`: the whole whitespace run at the end of the input, otherwise the run minus its
last code point (the backtracking of `(?!\S)`), which must stay non-empty. -/
def matchTrailingWs (rest : List Nat) : Nat :=
  let w := runLength Unicode.isWhiteSpace rest
  if w == 0 then 0 else if reachesEnd w rest then w else w - 1

/-- `\s+`. -/
def matchWs (rest : List Nat) : Nat := runLength Unicode.isWhiteSpace rest

/-- The splitting loop: the next chunk is the first `next cps` units, where `cps` are the code
points of the remaining units; `fuel` bounds the number of chunks. -/
def splitUnits (next : List Nat → Nat) : Nat → List Bytes → List Bytes
  | 0, _ => []
  | _, [] => []
  | fuel + 1, u :: us =>
    let n := next ((u :: us).map unitCodePoint)
    ((u :: us).take n).flatten :: splitUnits next fuel ((u :: us).drop n)

/-- Pre-tokenize bytes with a pattern's chunk-length function (fuel = number of units). -/
def preTokenizeWith (next : List Nat → Nat) (data : Bytes) : List Bytes :=
  let units := utf8Units data.length data
  splitUnits next units.length units

theorem utf8Len_pos (b : UInt8) : 0 < utf8Len b := by
  unfold utf8Len
  repeat' split
  all_goals omega

theorem flatten_utf8Units (fuel : Nat) (data : Bytes) (h : data.length ≤ fuel) :
    (utf8Units fuel data).flatten = data := by
  induction fuel generalizing data with
  | zero =>
    cases data with
    | nil => rfl
    | cons b bs => simp at h
  | succ fuel ih =>
    cases data with
    | nil => rfl
    | cons b bs =>
      have hpos := utf8Len_pos b
      apply take_append_drop_flatten
      apply ih
      simp at h ⊢
      omega

theorem ne_nil_of_mem_utf8Units (fuel : Nat) (data u : Bytes) (h : u ∈ utf8Units fuel data) :
    u ≠ [] := by
  induction fuel generalizing data with
  | zero => simp [utf8Units] at h
  | succ fuel ih =>
    cases data with
    | nil => simp [utf8Units] at h
    | cons b bs =>
      simp only [utf8Units, List.mem_cons] at h
      rcases h with h | h
      · have hpos := utf8Len_pos b
        subst h
        intro hc
        simp [List.take_eq_nil_iff] at hc
        omega
      · exact ih _ h

theorem flatten_splitUnits (next : List Nat → Nat) (hpos : ∀ cps, 0 < next cps) (fuel : Nat)
    (units : List Bytes) (h : units.length ≤ fuel) :
    (splitUnits next fuel units).flatten = units.flatten := by
  induction fuel generalizing units with
  | zero =>
    cases units with
    | nil => rfl
    | cons u us => simp at h
  | succ fuel ih =>
    cases units with
    | nil => rfl
    | cons u us =>
      have hn := hpos ((u :: us).map unitCodePoint)
      simp only [splitUnits]
      generalize next ((u :: us).map unitCodePoint) = n at hn ⊢
      have hlen : ((u :: us).drop n).length ≤ fuel := by
        simp only [List.length_drop, List.length_cons] at h ⊢
        omega
      rw [List.flatten_cons, ih _ hlen, ← List.flatten_append, List.take_append_drop]

theorem ne_nil_of_mem_splitUnits (next : List Nat → Nat) (hpos : ∀ cps, 0 < next cps)
    (fuel : Nat) (units : List Bytes) (hunits : ∀ u ∈ units, u ≠ []) (c : Bytes)
    (h : c ∈ splitUnits next fuel units) : c ≠ [] := by
  induction fuel generalizing units with
  | zero => simp [splitUnits] at h
  | succ fuel ih =>
    cases units with
    | nil => simp [splitUnits] at h
    | cons u us =>
      have hn := hpos ((u :: us).map unitCodePoint)
      simp only [splitUnits] at h
      generalize next ((u :: us).map unitCodePoint) = n at hn h
      rcases List.mem_cons.mp h with h | h
      · obtain ⟨m, rfl⟩ : ∃ m, n = m + 1 := ⟨n - 1, by omega⟩
        rw [List.take_succ_cons, List.flatten_cons] at h
        subst h
        intro hc
        exact hunits u List.mem_cons_self (List.append_eq_nil_iff.mp hc).1
      · exact ih _ (fun v hv => hunits v (List.mem_of_mem_drop hv)) h

/-- **Partition**: the chunks of any pre-tokenizer built with `preTokenizeWith` concatenate
back to the input, for every byte string. -/
theorem flatten_preTokenizeWith (next : List Nat → Nat) (hpos : ∀ cps, 0 < next cps)
    (data : Bytes) : (preTokenizeWith next data).flatten = data := by
  simp only [preTokenizeWith]
  rw [flatten_splitUnits next hpos _ _ (Nat.le_refl _), flatten_utf8Units _ _ (Nat.le_refl _)]

/-- **No empty chunk**: every chunk of `preTokenizeWith` is non-empty. -/
theorem ne_nil_of_mem_preTokenizeWith (next : List Nat → Nat) (hpos : ∀ cps, 0 < next cps)
    (data c : Bytes) (h : c ∈ preTokenizeWith next data) : c ≠ [] :=
  ne_nil_of_mem_splitUnits next hpos (utf8Units data.length data).length
    (utf8Units data.length data) (fun u hu => ne_nil_of_mem_utf8Units _ _ u hu) c h

end Bpe.CodePoint
