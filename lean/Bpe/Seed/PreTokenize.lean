module

public import Bpe.Seed.Classify
public import Bpe.Seed.ListLemmas

/-!
# ASCII pre-tokenizer (seed part 2) and Lemma 4

The cl100k_base split pattern
`'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+`
restricted to ASCII, as a state machine: at each position the seven branches are tried in
priority order, each returning the length it matches (0 = no match), and the first non-zero
length is the next chunk; if none matches, one byte is consumed (the fallback, unreachable on
ASCII input once `isPunct` follows the regex). The loop is structural recursion on a fuel
equal to the input length. Lemma 4 (`flatten_preTokenizeAscii`): the chunks concatenate back to
the input, and every chunk is non-empty — for every byte string, ASCII or not.
-/

@[expose] public section
noncomputable section

namespace Bpe

/-- Length of the longest prefix of bytes satisfying `p`. -/
def runLength (p : UInt8 → Bool) : Bytes → Nat
  | [] => 0
  | b :: bs => if p b then runLength p bs + 1 else 0

/-- Branch 1, `'(?i:[sdmt]|ll|ve|re)`. -/
def matchContraction : Bytes → Nat
  | q :: c :: rest =>
    if q.toNat == 39 then
      let c := (toLower c).toNat
      if c == 115 || c == 100 || c == 109 || c == 116 then 2
      else match rest with
        | d :: _ =>
          let d := (toLower d).toNat
          if (c == 108 && d == 108) || (c == 118 && d == 101) || (c == 114 && d == 101) then 3
          else 0
        | [] => 0
    else 0
  | _ => 0

/-- The optional lead of branch 2, `[^\r\n\p{L}\p{N}]`, on ASCII. -/
def isWordLead (b : UInt8) : Bool := isAscii b && !isNewline b && !isLetter b && !isDigit b

/-- Branch 2, `[^\r\n\p{L}\p{N}]?+\p{L}+`. -/
def matchWord : Bytes → Nat
  | [] => 0
  | b :: bs =>
    if isLetter b then runLength isLetter (b :: bs)
    else if isWordLead b then
      let n := runLength isLetter bs
      if n == 0 then 0 else n + 1
    else 0

/-- Branch 3, `\p{N}{1,3}`. -/
def matchDigits (rest : Bytes) : Nat := min 3 (runLength isDigit rest)

/-- `[^\s\p{L}\p{N}]++[\r\n]*`: 0 unless at least one punctuation byte. -/
def punctTail (rest : Bytes) : Nat :=
  let n := runLength isPunct rest
  if n == 0 then 0 else n + runLength isNewline (rest.drop n)

/-- Branch 4, ` ?[^\s\p{L}\p{N}]++[\r\n]*`. -/
def matchPunct : Bytes → Nat
  | [] => 0
  | b :: bs =>
    if b.toNat == 32 then
      let n := punctTail bs
      if n == 0 then 0 else n + 1
    else punctTail (b :: bs)

/-- One past the last newline among the first `n` bytes, or 0 if there is none. -/
def lastNewlineEnd : Nat → Bytes → Nat
  | 0, _ => 0
  | _, [] => 0
  | n + 1, b :: bs =>
    let r := lastNewlineEnd n bs
    if r != 0 then r + 1 else if isNewline b then 1 else 0

/-- Branch 5, `\s*[\r\n]`: the longest whitespace prefix that ends in a newline. -/
def matchNewlineWs (rest : Bytes) : Nat := lastNewlineEnd (runLength isSpace rest) rest

/-- Branch 6, `\s+(?!\S)`: the whole whitespace run at the end of the input, otherwise the
run minus its last byte (the backtracking of `(?!\S)`), which must stay non-empty. -/
def matchTrailingWs (rest : Bytes) : Nat :=
  let w := runLength isSpace rest
  if w == 0 then 0 else if w == rest.length then w else w - 1

/-- Branch 7, `\s+`. -/
def matchOtherWs (rest : Bytes) : Nat := runLength isSpace rest

/-- The first non-zero length, or 1 (the fallback: consume one byte). -/
def firstMatch : List Nat → Nat
  | [] => 1
  | n :: ns => if n == 0 then firstMatch ns else n

/-- Length of the chunk starting at `rest`: the seven branches in priority order. -/
def nextChunkLen (rest : Bytes) : Nat :=
  firstMatch [matchContraction rest, matchWord rest, matchDigits rest, matchPunct rest,
    matchNewlineWs rest, matchTrailingWs rest, matchOtherWs rest]

/-- The splitting loop; `fuel` bounds the number of chunks. -/
def splitLoop : Nat → Bytes → List Bytes
  | 0, _ => []
  | _, [] => []
  | fuel + 1, b :: bs =>
    let n := nextChunkLen (b :: bs)
    (b :: bs).take n :: splitLoop fuel ((b :: bs).drop n)

/-- The ASCII pre-tokenizer: fuel = input length (every chunk has at least one byte). -/
def preTokenizeAscii (data : Bytes) : List Bytes := splitLoop data.length data

theorem firstMatch_pos (ns : List Nat) : 0 < firstMatch ns := by
  induction ns with
  | nil => decide
  | cons n ns ih =>
    unfold firstMatch
    split
    next => exact ih
    next h => simp only [beq_iff_eq] at h; omega

theorem nextChunkLen_pos (rest : Bytes) : 0 < nextChunkLen rest := firstMatch_pos _

theorem flatten_splitLoop (fuel : Nat) (data : Bytes) (h : data.length ≤ fuel) :
    (splitLoop fuel data).flatten = data := by
  induction fuel generalizing data with
  | zero =>
    cases data with
    | nil => rfl
    | cons b bs => simp at h
  | succ fuel ih =>
    cases data with
    | nil => rfl
    | cons b bs =>
      have hpos := nextChunkLen_pos (b :: bs)
      apply take_append_drop_flatten
      apply ih
      simp at h ⊢
      omega

theorem ne_nil_of_mem_splitLoop (fuel : Nat) (data c : Bytes) (h : c ∈ splitLoop fuel data) :
    c ≠ [] := by
  induction fuel generalizing data with
  | zero => simp [splitLoop] at h
  | succ fuel ih =>
    cases data with
    | nil => simp [splitLoop] at h
    | cons b bs =>
      simp only [splitLoop, List.mem_cons] at h
      rcases h with h | h
      · have hpos := nextChunkLen_pos (b :: bs)
        subst h
        intro hc
        simp [List.take_eq_nil_iff] at hc
        omega
      · exact ih _ h

/-- **Lemma 4** (partition): the chunks concatenate back to the input. The seed assumes
ASCII input; the statement holds for every byte string. -/
theorem flatten_preTokenizeAscii (data : Bytes) : (preTokenizeAscii data).flatten = data :=
  flatten_splitLoop _ _ (Nat.le_refl _)

/-- **Lemma 4**, in the seed's form (with its ASCII hypothesis). -/
theorem flatten_preTokenizeAscii_of_ascii (data : Bytes) (_h : ∀ b ∈ data, isAscii b = true) :
    (preTokenizeAscii data).flatten = data :=
  flatten_preTokenizeAscii data

/-- **Lemma 4**, second part: every chunk is non-empty. -/
theorem ne_nil_of_mem_preTokenizeAscii (data c : Bytes) (h : c ∈ preTokenizeAscii data) : c ≠ [] :=
  ne_nil_of_mem_splitLoop _ _ _ h

end Bpe
