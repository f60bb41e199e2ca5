"""Bpe.Encode: encode_chunk / decode_chunk / encode / decode, typed errors, Lemma 7 and the
main roundtrip theorem on random well-formed tables."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verified_bpe.engine.patterns import CL100K_PATTERN, O200K_PATTERN, pre_tokenize_regex
from verified_bpe.errors import InvalidUtf8Error, NonAsciiError, UnknownTokenError
from verified_bpe.spec.seed import encode as enc
from verified_bpe.spec.seed import roundtrip
from verified_bpe.spec.seed.pretokenize import pre_tokenize_ascii
from verified_bpe.spec.seed.shuffle import invert_shuffle
from verified_bpe.spec.seed.well_formed import build_vocab, check_well_formed

IDENTITY = list(range(256))
MERGES = {(97, 98): 256, (256, 99): 257, (32, 257): 258}


def test_encode_loop_respects_fuel():
    merges = {(97, 97): 256, (256, 256): 257}
    assert enc.encode_loop(merges, 0, [97, 97, 97, 97]) == [97, 97, 97, 97]
    assert enc.encode_loop(merges, 1, [97, 97, 97, 97]) == [256, 256]
    assert enc.encode_loop(merges, 2, [97, 97, 97, 97]) == [257]
    assert enc.encode_loop(merges, 9, [97, 97, 97, 97]) == [257]


def test_encode_chunk_examples():
    assert enc.encode_chunk(MERGES, IDENTITY, b"abcab") == [257, 256]
    assert enc.encode_chunk(MERGES, IDENTITY, b" abc") == [258]
    assert enc.encode_chunk(MERGES, IDENTITY, b"ba") == [98, 97]
    assert enc.encode_chunk(MERGES, IDENTITY, b"") == []
    assert enc.encode_chunk(MERGES, IDENTITY, b"a") == [97]


def test_encode_chunk_merges_all_occurrences_then_lowest_rank():
    merges = {(97, 97): 256, (256, 97): 257, (256, 256): 258}
    # aaaaa -> [aa, aa, a] (every occurrence of (97, 97) at once); then the pairs are
    # (256, 256) -> 258 and (256, 97) -> 257, so 257 wins -> [aa, aaa]; (256, 257) is no merge
    assert enc.encode_chunk(merges, IDENTITY, b"aaaaa") == [256, 257]


def test_encode_chunk_tie_leftmost_pair_wins():
    merges = {(1, 2): 10, (2, 3): 10}
    assert enc.encode_chunk(merges, IDENTITY, bytes([1, 2, 3])) == [10, 3]
    assert enc.encode_chunk(merges, IDENTITY, bytes([2, 3, 1, 2])) == [10, 10]


def test_encode_chunk_applies_the_shuffle_first():
    shuffle = list(range(256))
    shuffle[97], shuffle[98] = 98, 97  # swap a and b
    assert enc.encode_chunk({}, shuffle, b"ab") == [98, 97]
    assert enc.encode_chunk({(98, 97): 256}, shuffle, b"ab") == [256]


def test_decode_chunk_unshuffles():
    shuffle = list(range(256))
    shuffle[97], shuffle[98] = 98, 97
    vocab = build_vocab({(98, 97): 256})
    inverse = invert_shuffle(shuffle)
    assert enc.decode_chunk(vocab, inverse, [256]) == b"ab"
    with pytest.raises(UnknownTokenError):
        enc.decode_chunk(vocab, inverse, [999])


def test_encode_uses_the_ascii_pre_tokenizer():
    # chunks: "ab", " ab", "c" ... the pair (98, 32) never forms because of the split
    merges = {(97, 98): 256, (98, 32): 257}
    assert enc.encode(merges, IDENTITY, "ab ab") == [256, 32, 256]
    assert enc.encode(merges, IDENTITY, "") == []


def test_encode_rejects_non_ascii():
    with pytest.raises(NonAsciiError) as info:
        enc.encode(MERGES, IDENTITY, "héllo")
    assert info.value.position == 1 and info.value.char == "é"
    assert isinstance(info.value, ValueError)


def test_decode_invalid_utf8_is_typed():
    vocab = build_vocab({})
    with pytest.raises(InvalidUtf8Error):
        enc.decode(vocab, IDENTITY, [0xFF])
    with pytest.raises(InvalidUtf8Error):
        enc.decode(vocab, IDENTITY, [0xE6, 0x97])  # truncated sequence
    assert enc.decode(vocab, IDENTITY, [0xE6, 0x97, 0xA5]) == "日"
    with pytest.raises(UnknownTokenError):
        enc.decode(vocab, IDENTITY, [256])


@given(st.text(alphabet=st.characters(max_codepoint=127)))
def test_lemma_7_ascii_utf8(text):
    data = text.encode("utf-8")
    assert list(data) == [ord(ch) for ch in text]
    assert enc.lemma_ascii_utf8_roundtrip(text)


def test_lemma_7_is_about_ascii_only():
    assert len("é".encode()) == 2
    assert enc.lemma_ascii_utf8_roundtrip("é")  # vacuous


@st.composite
def well_formed_tables(draw):
    """Random merges built like training would (each new token = two existing ones, no
    duplicate strings), a random byte permutation, and the derived vocab."""
    shuffle = draw(st.permutations(list(range(256))))
    vocab = {i: bytes([i]) for i in range(256)}
    seen = set(vocab.values())
    merges: dict[tuple[int, int], int] = {}
    # ids that occur in ASCII text after the shuffle, so that merges actually fire
    useful = [shuffle[b] for b in b" \n\tetaoinshrdlu'sT0.,"]
    for _ in range(draw(st.integers(0, 60))):
        ids = useful + list(range(256, 256 + len(merges)))
        p0 = draw(st.sampled_from(ids))
        p1 = draw(st.sampled_from(ids))
        joined = vocab[p0] + vocab[p1]
        if (p0, p1) in merges or joined in seen:
            continue
        idx = 256 + len(merges)
        merges[(p0, p1)] = idx
        vocab[idx] = joined
        seen.add(joined)
    return merges, vocab, shuffle


ascii_text = st.one_of(
    st.text(alphabet=st.characters(max_codepoint=127), max_size=200),
    st.text(alphabet=" \n\tetaoinshrdlu'sT0.,", max_size=200),
)


@given(well_formed_tables(), ascii_text)
def test_theorem_ascii_roundtrip(tables, text):
    merges, vocab, shuffle = tables
    assert check_well_formed(merges, vocab, shuffle).ok
    assert build_vocab(merges) == vocab
    inverse = invert_shuffle(shuffle)
    ids = enc.encode(merges, shuffle, text)
    assert enc.decode(vocab, inverse, ids) == text
    assert roundtrip.theorem_ascii_bpe_roundtrip(merges, vocab, shuffle, inverse, text)
    assert roundtrip.theorem_ascii_bpe_roundtrip_invert_shuffle(merges, vocab, shuffle, text)
    for chunk in pre_tokenize_ascii(text.encode("ascii")):
        assert roundtrip.lemma_decode_bytes_encode_chunk(merges, vocab, shuffle, chunk)


@given(well_formed_tables(), st.text(max_size=100))
def test_encode_with_regex_roundtrips_unicode(tables, text):
    merges, vocab, shuffle = tables
    inverse = invert_shuffle(shuffle)
    for pattern in (CL100K_PATTERN, O200K_PATTERN):

        def split(data: bytes, p: str = pattern) -> list[bytes]:
            return pre_tokenize_regex(data.decode("utf-8"), p)

        ids = enc.encode_with(split, merges, shuffle, text)
        assert enc.decode(vocab, inverse, ids) == text
        assert roundtrip.theorem_bpe_roundtrip(split, merges, vocab, shuffle, inverse, text)


def test_theorem_check_detects_a_broken_encoder(monkeypatch):
    merges = {(97, 98): 256}
    vocab = build_vocab(merges)
    monkeypatch.setattr(roundtrip, "encode", lambda m, s, t: [97])
    assert not roundtrip.theorem_ascii_bpe_roundtrip(merges, vocab, IDENTITY, IDENTITY, "ab")
    monkeypatch.setattr(roundtrip, "encode_with", lambda p, m, s, t: [999])
    assert not roundtrip.theorem_bpe_roundtrip(
        pre_tokenize_ascii, merges, vocab, IDENTITY, IDENTITY, "ab"
    )


def test_theorem_needs_well_formedness():
    merges = {(97, 98): 256}
    vocab = build_vocab(merges)
    vocab[256] = b"ba"  # not the concatenation
    assert enc.decode(vocab, IDENTITY, enc.encode(merges, IDENTITY, "ab")) != "ab"
    assert roundtrip.theorem_ascii_bpe_roundtrip(merges, vocab, IDENTITY, IDENTITY, "ab")


@given(well_formed_tables(), st.binary(max_size=60))
def test_fuel_is_sufficient(tables, chunk):
    merges, _vocab, shuffle = tables
    assert enc.lemma_fuel_sufficient(merges, shuffle, chunk)
    # brute force: with unbounded fuel the loop ends at the same list
    ids = [shuffle[b] for b in chunk]
    assert enc.encode_loop(merges, 10**9, ids) == enc.encode_chunk(merges, shuffle, chunk)
