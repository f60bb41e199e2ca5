//! ASCII fast paths of the cl100k_base and o200k_base pre-tokenizers (no Lean counterpart: an
//! implementation of the same functions, beside the mirrors, which stay as they are).
//!
//! The mirrors ([`super::cl100k::next_chunk_len`], [`super::o200k::next_chunk_len`]) decode
//! every block into code points and try the branches one by one.  On ASCII the same branches
//! can read the bytes directly, through one table of class bits per byte, [`CLASSES`],
//! computed at compile time from the generated class ranges (so it is the class functions'
//! answer on every byte below 128, by construction; `test_ascii_classes` in this file and
//! `tests/test_native_ascii.py` check it too).
//!
//! [`cl100k_chunk`] and [`o200k_chunk`] are the branches of `nextChunkLen` on bytes, in the
//! same order and with the same structure, and give `None` ("undecided") as soon as their
//! answer would depend on a byte of 128 or more, whose code point they do not read: a run of
//! a class that stops at such a byte, the byte after an apostrophe, a chunk that starts there.
//! Where they give `Some(n)` every byte they read is ASCII, and for ASCII code points every
//! class test is the table's, so `n` is the mirror's `nextChunkLen`.
//!
//! [`pre_tokenize_fast`] runs them and hands over to the mirror where they are undecided.
//! Two facts make that exact:
//! * the mirror's chunk at a position depends only on the text from there (Lean's
//!   `nextChunkLen` takes the rest of the list; a chunk boundary is a UTF-8 unit boundary,
//!   and the units of a suffix that starts at a unit boundary are the suffix of the units);
//! * a `"\n"` followed by an ASCII letter or digit ends a chunk of both patterns, whatever
//!   follows (the cut of [`crate::engine::text_blocks`]), so the mirror can run on the text
//!   from the undecided position to such a cut, and the fast path go on from the cut.

use super::pretokenize::{pre_tokenize_with, utf8_len};
use super::range_tree::ascii_mask;
use super::tables::CLASS_RANGES;
use std::ops::Range;

/// `\p{L}`.
pub const L: u8 = 1;
/// `\p{N}`.
pub const N: u8 = 2;
/// `\s` (White_Space).
pub const WS: u8 = 4;
/// `[\r\n]`.
pub const NL: u8 = 8;
/// o200k's `U = [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`.
pub const UPPER: u8 = 16;
/// o200k's `W = [\p{Ll}\p{Lm}\p{Lo}\p{M}]`.
pub const LOWER: u8 = 32;
/// `[^\s\p{L}\p{N}]` on ASCII.
pub const PUNCT: u8 = 64;
/// A byte of 128 or more: not a code point on its own, never decided here.
pub const HIGH: u8 = 128;

const fn has(mask: u128, b: usize) -> bool {
    (mask >> b) & 1 != 0
}

const fn classes() -> [u8; 256] {
    let l = ascii_mask(CLASS_RANGES[0]);
    let n = ascii_mask(CLASS_RANGES[1]);
    let lu = ascii_mask(CLASS_RANGES[2]);
    let ll = ascii_mask(CLASS_RANGES[3]);
    let lt = ascii_mask(CLASS_RANGES[4]);
    let lm = ascii_mask(CLASS_RANGES[5]);
    let lo = ascii_mask(CLASS_RANGES[6]);
    let m = ascii_mask(CLASS_RANGES[7]);
    let ws = ascii_mask(CLASS_RANGES[8]);
    let mut table = [HIGH; 256];
    let mut b = 0;
    while b < 128 {
        let mut c = 0;
        if has(l, b) {
            c |= L;
        }
        if has(n, b) {
            c |= N;
        }
        if has(ws, b) {
            c |= WS;
        }
        if b == 10 || b == 13 {
            c |= NL;
        }
        if has(lu, b) || has(lt, b) || has(lm, b) || has(lo, b) || has(m, b) {
            c |= UPPER;
        }
        if has(ll, b) || has(lm, b) || has(lo, b) || has(m, b) {
            c |= LOWER;
        }
        if !has(ws, b) && !has(l, b) && !has(n, b) {
            c |= PUNCT;
        }
        table[b] = c;
        b += 1;
    }
    table
}

/// The class bits of every byte (bytes of 128 or more: [`HIGH`] alone).
pub static CLASSES: [u8; 256] = classes();

/// The class bits of `s[k]`.
#[inline(always)]
fn class(s: &[u8], k: usize) -> u8 {
    CLASSES[s[k] as usize]
}

/// `[^\r\n\p{L}\p{N}]` on an ASCII byte's bits.
#[inline(always)]
fn is_lead(c: u8) -> bool {
    c & (NL | L | N | HIGH) == 0
}

/// The run of bytes from `i` whose class has a bit of `mask` (the mirror's `runLength`);
/// `None` if it stops at a byte of 128 or more (whose code point might go on with the run).
#[inline(always)]
fn run(s: &[u8], i: usize, mask: u8) -> Option<usize> {
    let mut j = i;
    while j < s.len() {
        let c = class(s, j);
        if c & mask == 0 {
            if c & HIGH != 0 {
                return None;
            }
            break;
        }
        j += 1;
    }
    Some(j.saturating_sub(i))
}

/// The run from `i` of the bytes in `set`, a set of ASCII bytes that no other code point
/// belongs to (`[\r\n]`, `[\r\n/]`): decided on any byte.
#[inline(always)]
fn run_of(s: &[u8], i: usize, set: &[u8]) -> usize {
    let mut j = i;
    while j < s.len() && set.contains(&s[j]) {
        j += 1;
    }
    j.saturating_sub(i)
}

/// `'(?i:[sdmt]|ll|ve|re)` (the mirror's `matchContraction`; U+017F folds to `s`, so a byte
/// of 128 or more after the apostrophe is undecided).
#[inline]
fn contraction(s: &[u8], i: usize) -> Option<usize> {
    if i + 1 < s.len() && s[i] == b'\'' {
        if s[i + 1] >= 128 {
            return None;
        }
        let c = s[i + 1].to_ascii_lowercase();
        if matches!(c, b's' | b'd' | b'm' | b't') {
            return Some(2);
        }
        if i + 2 < s.len() {
            if s[i + 2] >= 128 {
                return None;
            }
            let d = s[i + 2].to_ascii_lowercase();
            if matches!((c, d), (b'l', b'l') | (b'v', b'e') | (b'r', b'e')) {
                return Some(3);
            }
        }
    }
    Some(0)
}

/// `\p{N}{1,3}` (the mirror's `matchDigits`).
#[inline]
fn digits(s: &[u8], i: usize) -> Option<usize> {
    let mut k = 0;
    while k < 3 && i + k < s.len() {
        let c = class(s, i + k);
        if c & N == 0 {
            if c & HIGH != 0 {
                return None;
            }
            break;
        }
        k += 1;
    }
    Some(k)
}

/// One past the last `[\r\n]` among the `n` bytes from `i`, or 0 (`lastNewlineEnd`).
#[inline]
fn last_newline_end(s: &[u8], i: usize, n: usize) -> usize {
    s[i..i + n]
        .iter()
        .rposition(|&b| b == b'\n' || b == b'\r')
        .map_or(0, |k| k + 1)
}

/// cl100k_base's `nextChunkLen` at `i < s.len()` on bytes, `None` where it is undecided.
pub fn cl100k_chunk(s: &[u8], i: usize) -> Option<usize> {
    let c = class(s, i);
    if c & HIGH != 0 {
        return None;
    }
    // '(?i:[sdmt]|ll|ve|re)
    if s[i] == b'\'' {
        let n = contraction(s, i)?;
        if n != 0 {
            return Some(n);
        }
    }
    // [^\r\n\p{L}\p{N}]?+\p{L}++
    if c & L != 0 {
        return run(s, i, L);
    }
    if is_lead(c) {
        let n = run(s, i + 1, L)?;
        if n != 0 {
            return Some(n + 1);
        }
    }
    // \p{N}{1,3}+
    if c & N != 0 {
        return digits(s, i);
    }
    // ' ?[^\s\p{L}\p{N}]++[\r\n]*+'
    let lead = usize::from(s[i] == b' ');
    let n = run(s, i + lead, PUNCT)?;
    if n != 0 {
        return Some(lead + n + run_of(s, i + lead + n, b"\r\n"));
    }
    if c & WS != 0 {
        let w = run(s, i, WS)?;
        // \s++$
        if i + w == s.len() {
            return Some(w);
        }
        // \s*[\r\n]
        let n = last_newline_end(s, i, w);
        if n != 0 {
            return Some(n);
        }
        // \s+(?!\S), else \s
        return Some(if w > 1 { w - 1 } else { 1 });
    }
    Some(1)
}

/// o200k's `casedCore` (`U*W+`) at `i`.
#[inline]
fn cased_core(s: &[u8], i: usize) -> Option<usize> {
    let u = run(s, i, UPPER)?;
    let w = run(s, (i + u).min(s.len()), LOWER)?;
    if w != 0 {
        return Some(u + w);
    }
    // lastLowerEnd over the U run
    Some(
        s[i.min(s.len())..(i + u).min(s.len())]
            .iter()
            .rposition(|&b| CLASSES[b as usize] & LOWER != 0)
            .map_or(0, |k| k + 1),
    )
}

/// o200k's `upperCore` (`U+W*`) at `i`.
#[inline]
fn upper_core(s: &[u8], i: usize) -> Option<usize> {
    let u = run(s, i, UPPER)?;
    if u == 0 {
        return Some(0);
    }
    Some(u + run(s, (i + u).min(s.len()), LOWER)?)
}

/// o200k's `withContraction (withLead core)`: `[^\r\n\p{L}\p{N}]?` core `C?` at `i`.
#[inline]
fn word(s: &[u8], i: usize, core: fn(&[u8], usize) -> Option<usize>) -> Option<usize> {
    let mut n = 0;
    if is_lead(class(s, i)) {
        n = core(s, i + 1)?;
        if n != 0 {
            n += 1;
        }
    }
    if n == 0 {
        n = core(s, i)?;
    }
    if n == 0 {
        return Some(0);
    }
    Some(n + contraction(s, (i + n).min(s.len()))?)
}

/// o200k_base's `nextChunkLen` at `i < s.len()` on bytes, `None` where it is undecided.
pub fn o200k_chunk(s: &[u8], i: usize) -> Option<usize> {
    let c = class(s, i);
    if c & HIGH != 0 {
        return None;
    }
    // [^\r\n\p{L}\p{N}]?U*W+C?, then [^\r\n\p{L}\p{N}]?U+W*C?
    let n = word(s, i, cased_core)?;
    if n != 0 {
        return Some(n);
    }
    let n = word(s, i, upper_core)?;
    if n != 0 {
        return Some(n);
    }
    // \p{N}{1,3}
    if c & N != 0 {
        return digits(s, i);
    }
    // ' ?[^\s\p{L}\p{N}]+[\r\n/]*'
    let lead = usize::from(s[i] == b' ');
    let n = run(s, i + lead, PUNCT)?;
    if n != 0 {
        return Some(lead + n + run_of(s, i + lead + n, b"\r\n/"));
    }
    if c & WS != 0 {
        let w = run(s, i, WS)?;
        // \s*[\r\n]+
        let n = last_newline_end(s, i, w);
        if n != 0 {
            return Some(n);
        }
        // \s+(?!\S), else \s+
        return Some(if i + w == s.len() || w == 1 { w } else { w - 1 });
    }
    Some(1)
}

/// The first cut after `k` in the UTF-8 units of `s` from `i` (a unit start `j > k` whose
/// unit before it is `"\n"` and whose byte is an ASCII letter or digit), or the end.  Walked
/// unit by unit: in bytes that are not UTF-8 a `"\n"` can be inside a unit (`"\xC1\n"`).
fn next_cut(s: &[u8], i: usize, k: usize) -> usize {
    let mut p = i;
    while p < s.len() {
        let q = (p + utf8_len(s[p])).min(s.len());
        if q > k && s[p] == b'\n' && q < s.len() && s[q].is_ascii_alphanumeric() {
            return q;
        }
        p = q;
    }
    s.len()
}

/// Pre-tokenize `data` with the fast path `fast`, handing over to the mirror `next_len`
/// (through [`pre_tokenize_with`]) from where `fast` is undecided to the first cut after the
/// first byte of 128 or more from there (in units: see [`next_cut`]); each chunk to `emit` as a byte range.  The same
/// chunks as `pre_tokenize_with(next_len, data, emit)` (see the module's comment).
pub fn pre_tokenize_fast(
    fast: fn(&[u8], usize) -> Option<usize>,
    next_len: fn(&[u32], usize) -> usize,
    data: &[u8],
    mut emit: impl FnMut(Range<usize>),
) {
    let mut i = 0;
    while i < data.len() {
        if let Some(n) = fast(data, i) {
            emit(i..i + n);
            i += n;
            continue;
        }
        let high = data[i..]
            .iter()
            .position(|&b| b >= 128)
            .map_or(data.len(), |k| i + k);
        let end = next_cut(data, i, high);
        pre_tokenize_with(next_len, &data[i..end], |r| emit(i + r.start..i + r.end));
        i = end;
    }
}

/// cl100k_base's chunks of `data` by [`pre_tokenize_fast`].
pub fn pre_tokenize_cl100k_fast(data: &[u8], emit: impl FnMut(Range<usize>)) {
    pre_tokenize_fast(cl100k_chunk, super::cl100k::next_chunk_len, data, emit)
}

/// o200k_base's chunks of `data` by [`pre_tokenize_fast`].
pub fn pre_tokenize_o200k_fast(data: &[u8], emit: impl FnMut(Range<usize>)) {
    pre_tokenize_fast(o200k_chunk, super::o200k::next_chunk_len, data, emit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::unicode::pretokenize::{is_newline, is_punct};
    use crate::unicode::tables::{is_l, is_n, is_white_space};
    use crate::unicode::{cl100k, o200k};

    #[test]
    fn test_ascii_classes() {
        for b in 0..128u32 {
            let c = CLASSES[b as usize];
            assert_eq!(c & L != 0, is_l(b));
            assert_eq!(c & N != 0, is_n(b));
            assert_eq!(c & WS != 0, is_white_space(b));
            assert_eq!(c & NL != 0, is_newline(b));
            assert_eq!(c & UPPER != 0, o200k::is_upper_class(b));
            assert_eq!(c & LOWER != 0, o200k::is_lower_class(b));
            assert_eq!(c & PUNCT != 0, is_punct(b));
        }
    }

    fn chunks(split: fn(&[u8], &mut dyn FnMut(Range<usize>)), data: &[u8]) -> Vec<Range<usize>> {
        let mut out = Vec::new();
        split(data, &mut |r| out.push(r));
        out
    }

    #[test]
    fn test_every_short_string() {
        let alphabet: Vec<&[u8]> = vec![
            b"a",
            b"S",
            b"l",
            b"e",
            b"0",
            b"'",
            b"/",
            b".",
            b" ",
            b"\t",
            b"\n",
            b"\r",
            b"\x0b",
            "é".as_bytes(),
            "ſ".as_bytes(),
            "\u{a0}".as_bytes(),
            "\u{301}".as_bytes(),
            "٣".as_bytes(),
            b"\xff",
        ];
        let splits: [[fn(&[u8], &mut dyn FnMut(Range<usize>)); 2]; 2] = [
            [
                |d, e| cl100k::pre_tokenize_cl100k(d, e),
                |d, e| pre_tokenize_cl100k_fast(d, e),
            ],
            [
                |d, e| o200k::pre_tokenize_o200k(d, e),
                |d, e| pre_tokenize_o200k_fast(d, e),
            ],
        ];
        let k = alphabet.len();
        for len in 1..=if cfg!(debug_assertions) { 3 } else { 4 } {
            for code in 0..k.pow(len) {
                let mut data = Vec::new();
                let mut c = code;
                for _ in 0..len {
                    data.extend_from_slice(alphabet[c % k]);
                    c /= k;
                }
                for [mirror, fast] in splits {
                    assert_eq!(chunks(mirror, &data), chunks(fast, &data), "{data:?}");
                }
            }
        }
    }

    /// Every code point in the four probe strings of the exhaustive scan
    /// (`verified_bpe.verify.unicode_scan.probes`): the fast path's chunks are the mirror's.
    /// An exploring run (`cargo test --release --no-default-features -- --ignored`; its
    /// result is in docs/native.md).
    #[test]
    #[ignore]
    fn test_every_code_point_in_probes() {
        let mut wrong = 0;
        for cp in (0..=0x10FFFFu32).filter(|c| !(0xD800..0xE000).contains(c)) {
            let c = char::from_u32(cp).expect("scalar value");
            let probes = [
                format!("{c}{c}"),
                format!("6{c}-l"),
                format!("x'{c} 'l{c} '{c}e 'r{c}."),
                format!("a{c}A \n{c} 9{c}\t {c}"),
            ];
            for p in &probes {
                let d = p.as_bytes();
                let mut m = Vec::new();
                let mut f = Vec::new();
                cl100k::pre_tokenize_cl100k(d, |r| m.push(r));
                pre_tokenize_cl100k_fast(d, |r| f.push(r));
                wrong += usize::from(m != f);
                m.clear();
                f.clear();
                o200k::pre_tokenize_o200k(d, |r| m.push(r));
                pre_tokenize_o200k_fast(d, |r| f.push(r));
                wrong += usize::from(m != f);
            }
        }
        assert_eq!(wrong, 0);
    }
}
