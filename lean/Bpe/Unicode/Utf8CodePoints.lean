module

public import Bpe.Unicode.CodePoints
public import Bpe.Seed.Utf8

/-!
# Decoding the UTF-8 of a string gives its code points

The Unicode machines cut their input bytes into UTF-8 units by the length that each unit's first
byte announces (`CodePoint.utf8Units`) and read each unit's code point (`CodePoint.unitCodePoint`).
On the bytes of a string (`stringBytes s`, core's UTF-8 encoding) this recovers the string:

* `unitCodePoint_utf8EncodeChar`: the code point of a character's encoding is the character's;
* `utf8Units_stringBytes`: the units of `stringBytes s` are the encodings of its characters;
* `codePoints_stringBytes`: the decoded code points are `s.toList.map Char.toNat`;
* `exists_unitChunks_stringBytes`: every chunk of units of `stringBytes s` is the encoding of a
  list of the string's characters.
-/

@[expose] public section

namespace Bpe.CodePoint

theorem char_toNat_lt (c : Char) : c.toNat < 0x110000 := by
  have h := c.valid
  simp only [UInt32.isValidChar, Nat.isValidChar] at h
  show c.val.toNat < 0x110000
  omega

/-- A character's UTF-8 encoding: its first byte announces its length. -/
theorem utf8EncodeChar_eq_cons (c : Char) :
    ∃ b bs, String.utf8EncodeChar c = b :: bs ∧ utf8Len b = bs.length + 1 := by
  have hc := char_toNat_lt c
  unfold String.utf8EncodeChar
  generalize hv : c.val.toNat = v
  have hv' : v < 0x110000 := by
    rw [← hv]
    exact hc
  dsimp only
  split
  next h1 =>
    refine ⟨_, _, rfl, ?_⟩
    simp only [utf8Len, UInt8.toNat_ofNat', List.length_nil]
    rw [if_pos (by omega)]
  next h1 =>
    split
    next h2 =>
      refine ⟨_, _, rfl, ?_⟩
      simp only [utf8Len, UInt8.toNat_ofNat', List.length_cons, List.length_nil]
      rw [if_neg (by omega), if_pos (by omega)]
    next h2 =>
      split
      next h3 =>
        refine ⟨_, _, rfl, ?_⟩
        simp only [utf8Len, UInt8.toNat_ofNat', List.length_cons, List.length_nil]
        rw [if_neg (by omega), if_neg (by omega), if_pos (by omega)]
      next h3 =>
        refine ⟨_, _, rfl, ?_⟩
        simp only [utf8Len, UInt8.toNat_ofNat', List.length_cons, List.length_nil]
        rw [if_neg (by omega), if_neg (by omega), if_neg (by omega), if_pos (by omega)]

/-- The code point of a character's UTF-8 encoding is the character's. -/
theorem unitCodePoint_utf8EncodeChar (c : Char) :
    unitCodePoint (String.utf8EncodeChar c) = c.toNat := by
  have hc := char_toNat_lt c
  unfold String.utf8EncodeChar
  show _ = c.val.toNat
  generalize hv : c.val.toNat = v
  have hv' : v < 0x110000 := by
    rw [← hv]
    exact hc
  dsimp only
  split
  next h1 =>
    simp only [unitCodePoint, UInt8.toNat_ofNat']
    rw [if_pos (by omega)]
    omega
  next h1 =>
    split
    next h2 =>
      simp only [unitCodePoint, UInt8.toNat_ofNat']
      omega
    next h2 =>
      split
      next h3 =>
        simp only [unitCodePoint, UInt8.toNat_ofNat']
        omega
      next h3 =>
        simp only [unitCodePoint, UInt8.toNat_ofNat']
        omega

theorem length_le_length_flatMap (l : List Char) :
    l.length ≤ (l.flatMap String.utf8EncodeChar).length := by
  induction l with
  | nil => exact Nat.le_refl _
  | cons c cs ih =>
    obtain ⟨b, bs, he, _⟩ := utf8EncodeChar_eq_cons c
    simp only [List.flatMap_cons, he, List.length_append, List.length_cons]
    omega

theorem utf8Units_flatMap (l : List Char) :
    ∀ fuel, l.length ≤ fuel →
      utf8Units fuel (l.flatMap String.utf8EncodeChar) = l.map String.utf8EncodeChar := by
  induction l with
  | nil =>
    intro fuel _
    cases fuel <;> rfl
  | cons c cs ih =>
    intro fuel hf
    simp only [List.length_cons] at hf
    obtain ⟨fuel, rfl⟩ : ∃ f, fuel = f + 1 := ⟨fuel - 1, by omega⟩
    obtain ⟨b, bs, he, hl⟩ := utf8EncodeChar_eq_cons c
    have ht : ((b :: bs) ++ cs.flatMap String.utf8EncodeChar).take (bs.length + 1) = b :: bs :=
      List.take_left' (by simp)
    have hd : ((b :: bs) ++ cs.flatMap String.utf8EncodeChar).drop (bs.length + 1) =
        cs.flatMap String.utf8EncodeChar :=
      List.drop_left' (by simp)
    simp only [List.flatMap_cons, he, List.map_cons]
    show (b :: (bs ++ cs.flatMap String.utf8EncodeChar)).take (utf8Len b) ::
        utf8Units fuel ((b :: (bs ++ cs.flatMap String.utf8EncodeChar)).drop (utf8Len b)) = _
    rw [hl, ← List.cons_append, ht, hd, ih fuel (by omega)]

/-- The UTF-8 units of a string's bytes are the encodings of its characters. -/
theorem utf8Units_stringBytes (s : String) :
    utf8Units (stringBytes s).length (stringBytes s) = s.toList.map String.utf8EncodeChar :=
  utf8Units_flatMap s.toList _ (length_le_length_flatMap s.toList)

/-- **Decoding the UTF-8 of a string gives its code points.** -/
theorem codePoints_stringBytes (s : String) :
    codePoints (stringBytes s) = s.toList.map Char.toNat := by
  simp only [codePoints, utf8Units_stringBytes, List.map_map]
  congr 1
  funext c
  exact unitCodePoint_utf8EncodeChar c

theorem exists_splitUnitGroups_map (next : List Nat → Nat) :
    ∀ (fuel : Nat) (l : List Char), ∃ cs : List (List Char),
      splitUnitGroups next fuel (l.map String.utf8EncodeChar) =
        cs.map (·.map String.utf8EncodeChar)
  | 0, _ => ⟨[], rfl⟩
  | _ + 1, [] => ⟨[], rfl⟩
  | fuel + 1, c :: cs => by
    show ∃ r : List (List Char), ((c :: cs).map String.utf8EncodeChar).take
          (next (((c :: cs).map String.utf8EncodeChar).map unitCodePoint)) ::
        splitUnitGroups next fuel (((c :: cs).map String.utf8EncodeChar).drop
          (next (((c :: cs).map String.utf8EncodeChar).map unitCodePoint))) =
      r.map (·.map String.utf8EncodeChar)
    generalize next (((c :: cs).map String.utf8EncodeChar).map unitCodePoint) = n
    obtain ⟨rest, hrest⟩ := exists_splitUnitGroups_map next fuel ((c :: cs).drop n)
    refine ⟨(c :: cs).take n :: rest, ?_⟩
    rw [← List.map_drop, hrest, ← List.map_take, List.map_cons]

/-- Every chunk of units of a string's bytes is the encoding of a list of its characters. -/
theorem exists_unitChunks_stringBytes (next : List Nat → Nat) (s : String) :
    ∃ cs : List (List Char),
      unitChunks next (stringBytes s) = cs.map (·.map String.utf8EncodeChar) := by
  simp only [unitChunks, utf8Units_stringBytes]
  exact exists_splitUnitGroups_map next _ _

end Bpe.CodePoint
