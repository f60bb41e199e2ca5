module

public import Bpe.Classify

/-!
# Strings as UTF-8 bytes (Lemma 7)

`stringBytes s` is the UTF-8 encoding of `s` as a byte list and `bytesToString? bs` decodes
a byte list, `none` if it is not valid UTF-8. Lemma 7 (`bytesToString?_stringBytes`):
decoding the encoding of any string gives it back. This is the seed's Lemma 7 for every
string, ASCII or not (so the roundtrip needs no ASCII hypothesis).
-/

@[expose] public section
noncomputable section

namespace Bpe

/-- UTF-8 encoding, as a byte list. -/
def stringBytes (s : String) : Bytes := s.toUTF8.data.toList

/-- UTF-8 decoding of a byte list; `none` on invalid UTF-8. -/
def bytesToString? (bs : Bytes) : Option String := String.fromUTF8? ⟨bs.toArray⟩

/-- The seed's `ASCIIString`: every character has a code below 128. -/
def IsAsciiString (s : String) : Prop := ∀ c ∈ s.toList, c.toNat < 128

/-- **Lemma 7** (UTF-8 roundtrip), for every string. -/
theorem bytesToString?_stringBytes (s : String) : bytesToString? (stringBytes s) = some s := by
  have h : (ByteArray.mk (stringBytes s).toArray) = s.toUTF8 := by
    simp [stringBytes]
  simp only [bytesToString?, h, String.fromUTF8?, String.toUTF8_eq_toByteArray,
    dif_pos s.isValidUTF8]
  rfl

end Bpe
