module

public import Bpe.Seed.Classify

/-!
# Strings as UTF-8 bytes (Lemma 7)

`stringBytes s` is the UTF-8 encoding of `s` as a byte list (character by character with
core's `String.utf8EncodeChar`, so that the kernel can evaluate it on string literals;
`stringBytes_eq_toUTF8` shows it is core's `String.toUTF8`) and `bytesToString? bs` decodes a
byte list, `none` if it is not valid UTF-8. Lemma 7 (`bytesToString?_stringBytes`): decoding
the encoding of any string gives it back — for every string, ASCII or not (so the roundtrip
needs no ASCII hypothesis). Its ASCII half in the seed's form
(`stringBytes_of_isAsciiString`): an ASCII string is encoded one byte per character, the
byte being the character's code.
-/

@[expose] public section
noncomputable section

namespace Bpe

/-- UTF-8 encoding, as a byte list. -/
def stringBytes (s : String) : Bytes := s.toList.flatMap String.utf8EncodeChar

/-- UTF-8 decoding of a byte list; `none` on invalid UTF-8. -/
def bytesToString? (bs : Bytes) : Option String := String.fromUTF8? ⟨bs.toArray⟩

/-- The seed's `ASCIIString`: every character has a code below 128. -/
def IsAsciiString (s : String) : Prop := ∀ c ∈ s.toList, c.toNat < 128

/-- `stringBytes` is core's UTF-8 encoding `String.toUTF8`. -/
theorem stringBytes_eq_toUTF8 (s : String) : stringBytes s = s.toUTF8.data.toList := by
  obtain ⟨l, rfl⟩ := s.exists_eq_ofList
  simp only [stringBytes, String.toList_ofList, String.toUTF8_eq_toByteArray,
    String.toByteArray_ofList, List.utf8Encode, List.data_toByteArray, List.toList_toArray]

/-- **Lemma 7** (UTF-8 roundtrip), for every string. -/
theorem bytesToString?_stringBytes (s : String) : bytesToString? (stringBytes s) = some s := by
  have h : (ByteArray.mk (stringBytes s).toArray) = s.toUTF8 := by
    simp [stringBytes_eq_toUTF8]
  simp only [bytesToString?, h, String.fromUTF8?, String.toUTF8_eq_toByteArray,
    dif_pos s.isValidUTF8]
  rfl

/-- **Lemma 7**, ASCII half in the seed's form: an ASCII string is encoded one byte per
character, the byte being the character's code. -/
theorem stringBytes_of_isAsciiString (s : String) (hs : IsAsciiString s) :
    stringBytes s = s.toList.map fun c => UInt8.ofNat c.toNat := by
  unfold stringBytes
  have key : ∀ l : List Char, (∀ c ∈ l, c.toNat < 128) →
      l.flatMap String.utf8EncodeChar = l.map fun c => UInt8.ofNat c.toNat := by
    intro l hl
    induction l with
    | nil => rfl
    | cons c cs ih =>
      have hc : c.toNat ≤ 127 := by have := hl c List.mem_cons_self; omega
      have h1 : String.utf8EncodeChar c = [UInt8.ofNat c.toNat] := by
        have hc' : c.val.toNat ≤ 127 := hc
        simp [String.utf8EncodeChar, hc']
        try rfl
      rw [List.flatMap_cons, List.map_cons, ih (fun x hx => hl x (List.mem_cons_of_mem _ hx)), h1]
      rfl
  exact key s.toList hs

end Bpe
