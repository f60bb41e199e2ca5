//! Byte-level fast paths of the cl100k_base and o200k_base pre-tokenizers (no Lean
//! counterpart: an implementation of the same functions, beside the mirrors, which stay as they
//! are).
//!
//! The mirrors ([`super::cl100k::next_chunk_len`], [`super::o200k::next_chunk_len`]) decode
//! every block into a vector of code points and try the branches one by one, each class test a
//! table or range lookup of its own.  [`cl100k_chunk`] and [`o200k_chunk`] are the same
//! branches, in the same order and with the same structure, on the bytes: they read the UTF-8
//! unit at a position as the mirror does (its length [`utf8_len`], cut short by the end of the
//! data, and its code point [`unit_code_point`], so invalid and overlong units too), and all the
//! classes the branches test of that code point at once, from one byte of [`class_bits`]
//! (a table over the Basic Multilingual Plane computed on first use from the mirror's own class
//! functions; the code points above it through those functions).  Lengths are in bytes where
//! the mirror's are in code points: a run of `n` units is the sum of their lengths, "one code
//! point less" is the run up to the start of its last unit.  So each gives the mirror's
//! `nextChunkLen` at every position, in bytes (`test_every_short_string` and
//! `test_every_code_point_in_contexts` in this file, `tests/test_native_fast.py` against the
//! spec mirror).
//!
//! A chunk boundary is a unit boundary, and the mirror's chunk at a position depends only on
//! the text from there (Lean's `nextChunkLen` takes the rest of the list; the units of a suffix
//! that starts at a unit boundary are the suffix of the units), so the splitting loop
//! [`FastChunks`] is the mirror's `splitUnits` on bytes.

use super::o200k::{is_lower_class, is_upper_class};
use super::pretokenize::{fold_case, is_newline, is_punct, unit_code_point, utf8_len};
use super::range_tree::ascii_mask;
use super::tables::{
    bmp_bits, is_l, is_n, is_white_space, CLASS_RANGES, LL_BIT, LM_BIT, LO_BIT, LT_BIT, LU_BIT,
    L_BIT, M_BIT, N_BIT, WHITE_SPACE_BIT,
};
use std::ops::Range;
use std::sync::OnceLock;

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
/// `[^\s\p{L}\p{N}]`.
pub const PUNCT: u8 = 64;
/// In [`CLASSES`], a byte of 128 or more: the first byte of a unit whose code point is read
/// from the unit (never in [`class_bits`]).
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

/// The class bits of every byte, computed at compile time from the generated class ranges
/// (bytes of 128 or more: [`HIGH`] alone).  Below 128 the same as [`class_bits`]
/// (`test_classes` in this file).
pub static CLASSES: [u8; 256] = classes();

/// The class bits of code point `cp`, from the mirror's class functions
/// ([`is_l`], [`is_n`], [`is_white_space`], [`is_newline`], [`is_upper_class`],
/// [`is_lower_class`], [`is_punct`]).
pub fn class_bits(cp: u32) -> u8 {
    class_byte([
        is_l(cp),
        is_n(cp),
        is_white_space(cp),
        is_newline(cp),
        is_upper_class(cp),
        is_lower_class(cp),
        is_punct(cp),
    ])
}

/// The class bits of the answers of the seven classes, in the order of [`class_bits`]' class
/// functions: [`L`], [`N`], [`WS`], [`NL`], [`UPPER`], [`LOWER`], [`PUNCT`].
#[inline(always)]
fn class_byte(answers: [bool; 7]) -> u8 {
    let [l, n, ws, nl, upper, lower, punct] = answers.map(u8::from);
    (l * L) | (n * N) | (ws * WS) | (nl * NL) | (upper * UPPER) | (lower * LOWER) | (punct * PUNCT)
}

const BMP: usize = 0x10000;

/// `unitCodePoint` of a whole 2-byte unit `b0 b1` (lead `110xxxxx`), written out.
#[inline(always)]
fn code_point2(b0: u8, b1: u8) -> u32 {
    u32::from(b0 % 32) * 64 + u32::from(b1 % 64)
}

/// `unitCodePoint` of a whole 3-byte unit `b0 b1 b2` (lead `1110xxxx`), written out: below
/// 65,536, so its class is in the BMP table.
#[inline(always)]
fn code_point3(b0: u8, b1: u8, b2: u8) -> u32 {
    u32::from(b0 % 16) * 4096 + u32::from(b1 % 64) * 64 + u32::from(b2 % 64)
}

/// [`class_bits`] of a code point below U+10000 from its word of class bits ([`bmp_bits`]):
/// the seven class functions of [`class_bits`] answered by one word instead of a lookup
/// each (`test_classes` checks the table made of it against [`class_bits`] on every such
/// code point).
fn class_bits_of_word(cp: u32, w: u16) -> u8 {
    let any = |bits: u16| w & bits != 0;
    class_byte([
        any(L_BIT),
        any(N_BIT),
        any(WHITE_SPACE_BIT),
        is_newline(cp),
        any(LU_BIT | LT_BIT | LM_BIT | LO_BIT | M_BIT),
        any(LL_BIT | LM_BIT | LO_BIT | M_BIT),
        !any(WHITE_SPACE_BIT | L_BIT | N_BIT),
    ])
}

/// [`class_bits`] of every code point below U+10000 (64 KiB, built on first use from the
/// class words, [`class_bits_of_word`]).
pub fn bmp_classes() -> &'static [u8; BMP] {
    static TABLE: OnceLock<Box<[u8; BMP]>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = Box::new([0u8; BMP]);
        for (cp, c) in t.iter_mut().enumerate() {
            let cp = cp as u32;
            *c = class_bits_of_word(cp, bmp_bits(cp).expect("a code point below U+10000"));
        }
        t
    })
}

/// The index in [`Block::m`] of the class bit `bit` ([`L`], [`N`], ...: bit `b` is `1 << b`).
const fn idx(bit: u8) -> usize {
    bit.trailing_zeros() as usize
}

/// How far before the position that needs them the masks of a new block start: a chunk's
/// branches look a unit ahead (a lead unit, up to 4 bytes) and then go back to the chunk's
/// start, so a block that starts at that position would be computed again for the start.
const BACK: usize = 8;

/// The class masks of the block of 64 bytes of the data at `base` (the last block may be
/// shorter): bit `k` of `m[b]` is set when byte `base + k` is in the data and its [`CLASSES`]
/// entry has bit `1 << b` (the [`UPPER`] and [`LOWER`] masks only if the block is `cased`:
/// o200k's, which tests them).  A run of ASCII units of one class is then a run of ones in its
/// mask, so its length is a `trailing_ones`, not a loop with an exit test per byte (see
/// docs/native.md, "The pre-tokenizer over 64-byte masks").
#[derive(Clone, Copy)]
struct Block {
    base: usize,
    m: [u64; 8],
}

impl Block {
    /// The masks of the block of `s` at `base <= s.len()`.
    #[inline(never)]
    fn at(s: &[u8], base: usize, cased: bool) -> Self {
        let rest = &s[base..];
        let masks = |bytes: &[u8; 64]| {
            if cased {
                masks64::<true>(bytes)
            } else {
                masks64::<false>(bytes)
            }
        };
        let m = match rest.first_chunk::<64>() {
            Some(bytes) => masks(bytes),
            None => {
                // the data's end: the bytes past it in no class (not HIGH either)
                let mut bytes = [0u8; 64];
                bytes[..rest.len()].copy_from_slice(rest);
                let valid = (1u64 << rest.len()) - 1;
                masks(&bytes).map(|m| m & valid)
            }
        };
        Self { base, m }
    }
}

/// The class masks of 64 bytes: bit `k` of entry `b` is bit `1 << b` of `CLASSES[bytes[k]]`
/// (one [`CLASSES`] lookup per byte; the masks of [`masks64`] on targets without SSE2, and
/// its oracle in `test_block_masks`).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn masks64_table(bytes: &[u8; 64]) -> [u64; 8] {
    let mut m = [0u64; 8];
    for (k, &b) in bytes.iter().enumerate() {
        let c = CLASSES[b as usize];
        for (b, mask) in m.iter_mut().enumerate() {
            *mask |= u64::from((c >> b) & 1) << k;
        }
    }
    m
}

/// [`masks64_table`] on targets without SSE2.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn masks64<const CASED: bool>(bytes: &[u8; 64]) -> [u64; 8] {
    masks64_table(bytes)
}

/// [`masks64_table`] by SSE2 byte comparisons ([`masks64_sse2`]; [`UPPER`] and [`LOWER`] zero
/// unless `CASED`).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
#[allow(unsafe_code)]
fn masks64<const CASED: bool>(bytes: &[u8; 64]) -> [u64; 8] {
    // SAFETY: `masks64_sse2` needs SSE2 only, which every x86_64 processor has (the target's
    // baseline features, enabled for the whole build).
    unsafe { masks64_sse2::<CASED>(bytes) }
}

/// [`masks64_table`] by SSE2 byte comparisons, 16 bytes at a time, [`UPPER`] and [`LOWER`]
/// only if `CASED`: the ASCII classes are ranges (`[A-Za-z]` L, of which `[A-Z]` UPPER and
/// the rest LOWER, `[0-9]` N, `[\t-\r ]` WS, `[\n\r]` NL, the rest of ASCII PUNCT) and HIGH
/// is the top bit (`test_block_masks` checks them against [`CLASSES`] on every byte).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
fn masks64_sse2<const CASED: bool>(bytes: &[u8; 64]) -> [u64; 8] {
    use core::arch::x86_64::*;
    let [mut l, mut n, mut ws, mut nl, mut upper, mut high] = [0u64; 6];
    for q in 0..4 {
        let word = |h: usize| {
            let at = 16 * q + 8 * h;
            i64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
        };
        let x = _mm_set_epi64x(word(1), word(0));
        // bytes of 128 or more are negative as i8, so no range of positive bounds holds them
        let range = |x: __m128i, lo: u8, hi: u8| {
            _mm_and_si128(
                _mm_cmpgt_epi8(x, _mm_set1_epi8(lo as i8 - 1)),
                _mm_cmplt_epi8(x, _mm_set1_epi8(hi as i8 + 1)),
            )
        };
        let eq = |b: u8| _mm_cmpeq_epi8(x, _mm_set1_epi8(b as i8));
        let bits = |v: __m128i| u64::from(_mm_movemask_epi8(v) as u32) << (16 * q);
        l |= bits(range(_mm_or_si128(x, _mm_set1_epi8(0x20)), b'a', b'z'));
        if CASED {
            upper |= bits(range(x, b'A', b'Z'));
        }
        n |= bits(range(x, b'0', b'9'));
        ws |= bits(_mm_or_si128(range(x, b'\t', b'\r'), eq(b' ')));
        nl |= bits(_mm_or_si128(eq(b'\n'), eq(b'\r')));
        high |= bits(x);
    }
    let mut m = [0u64; 8];
    m[idx(L)] = l;
    m[idx(N)] = n;
    m[idx(WS)] = ws;
    m[idx(NL)] = nl;
    m[idx(UPPER)] = upper;
    m[idx(LOWER)] = if CASED { l & !upper } else { 0 };
    m[idx(PUNCT)] = !(l | n | ws | high);
    m[idx(HIGH)] = high;
    m
}

/// The data with the class table: the units of `s`, each with its code point and class bits,
/// and the class masks of the block of the last position a run looked at.
struct Text<'a> {
    s: &'a [u8],
    t: &'static [u8; BMP],
    b: Block,
    /// Whether the blocks' masks have [`UPPER`] and [`LOWER`] (o200k's pattern).
    cased: bool,
}

impl<'a> Text<'a> {
    /// The data `s`, its first block's masks computed (with [`UPPER`] and [`LOWER`] if
    /// `cased`).
    fn new(s: &'a [u8], cased: bool) -> Self {
        Self {
            s,
            t: bmp_classes(),
            b: Block::at(s, 0, cased),
            cased,
        }
    }

    /// From `j <= s.len()`, past the ASCII bytes of class bit `bit` (an index of
    /// [`Block::m`]), across blocks: the first position from `j` whose byte is not one of them
    /// (or the data's end), and whether its byte is of 128 or more.
    #[inline(always)]
    fn skip(&mut self, mut j: usize, bit: usize) -> (usize, bool) {
        loop {
            if j.wrapping_sub(self.b.base) >= 64 {
                self.b = Block::at(self.s, j.saturating_sub(BACK), self.cased);
            }
            let k = j - self.b.base;
            let ones = (self.b.m[bit] >> k).trailing_ones() as usize;
            j += ones;
            let e = k + ones;
            if e < 64 {
                return (j, (self.b.m[idx(HIGH)] >> e) & 1 != 0);
            }
        }
    }

    /// The code point, class bits and length of the unit at `k < s.len()` (the mirror's
    /// `utf8Units` and `unitCodePoint`).
    #[inline(always)]
    fn unit(&self, k: usize) -> (u32, u8, usize) {
        let b = self.s[k];
        let c = CLASSES[b as usize];
        if c & HIGH == 0 {
            (u32::from(b), c, 1)
        } else {
            self.wide(k)
        }
    }

    /// [`Text::unit`] for a first byte of 128 or more.
    #[inline(never)]
    fn wide(&self, k: usize) -> (u32, u8, usize) {
        self.decode(k)
    }

    /// From `j`, a unit of 128 or more, past the units of 128 or more one after the other whose
    /// class has the bit `mask` (a word of another script, [`Text::run`]'s inner loop in one
    /// call instead of a call of [`Text::wide`] per unit): the first position not passed, and
    /// whether the run goes on there (an ASCII byte of the class: else a unit without the bit
    /// or the data's end stopped it).
    #[inline(never)]
    fn high_run(&self, mut j: usize, mask: u8) -> (usize, bool) {
        let s = self.s;
        loop {
            // whole units of 2 bytes, then of 3, with the byte after each in the data (the
            // units of most words of other scripts), written out: `decode`'s code points,
            // their classes in the table
            while let Some(&[b0, b1, after]) = s.get(j..j + 3) {
                if b0 & 0xE0 != 0xC0 {
                    break;
                }
                if self.t[code_point2(b0, b1) as usize] & mask == 0 {
                    return (j, false);
                }
                j += 2;
                if after < 128 {
                    return (j, CLASSES[after as usize] & mask != 0);
                }
            }
            while let Some(&[b0, b1, b2, after]) = s.get(j..j + 4) {
                if b0 & 0xF0 != 0xE0 {
                    break;
                }
                if self.t[code_point3(b0, b1, b2) as usize] & mask == 0 {
                    return (j, false);
                }
                j += 3;
                if after < 128 {
                    return (j, CLASSES[after as usize] & mask != 0);
                }
            }
            // the others, and the units at the data's end
            let (_, c, n) = self.decode(j);
            if c & mask == 0 {
                return (j, false);
            }
            j += n;
            match s.get(j) {
                Some(&b) if b >= 128 => {}
                Some(&b) => return (j, CLASSES[b as usize] & mask != 0),
                None => return (j, false),
            }
        }
    }

    /// [`Text::wide`], inlined where it is called in a loop.
    #[inline(always)]
    fn decode(&self, k: usize) -> (u32, u8, usize) {
        let rest = &self.s[k..];
        // unitCodePoint of a whole unit of 2 or 3 bytes, written out (a code point below
        // 65,536, so its class is in the table); a unit cut short by the end of the data, and
        // the others, through the function itself
        let (cp, n) = match *rest {
            [b0, b1, ..] if b0 & 0xE0 == 0xC0 => (code_point2(b0, b1), 2),
            [b0, b1, b2, ..] if b0 & 0xF0 == 0xE0 => (code_point3(b0, b1, b2), 3),
            _ => {
                let n = utf8_len(rest[0]).min(rest.len());
                let cp = unit_code_point(&rest[..n]);
                let c = match self.t.get(cp as usize) {
                    Some(&c) => c,
                    None => class_bits(cp),
                };
                return (cp, c, n);
            }
        };
        (cp, self.t[cp as usize % BMP], n)
    }

    /// The bytes of the run of units from `i` whose class has the bit `mask` (one of [`L`],
    /// [`N`], ...; the mirror's `runLength`): the ASCII stretches by [`Text::skip`], the units
    /// of 128 or more through [`Text::high_run`].
    #[inline(always)]
    fn run(&mut self, i: usize, mask: u8) -> usize {
        debug_assert!(mask.is_power_of_two() && mask != HIGH);
        let mut j = i;
        loop {
            let (end, high) = self.skip(j, idx(mask));
            j = end;
            if !high {
                break;
            }
            // units of 128 or more one after the other (a word of another script) without
            // the masks, up to an ASCII byte of the class
            let (end, more) = self.high_run(j, mask);
            j = end;
            if !more {
                break;
            }
        }
        j - i
    }

    /// [`Text::run`] from a unit of 128 or more at `i`: its units of 128 or more through
    /// [`Text::high_run`] first, without the masks.
    #[inline(always)]
    fn run_wide(&mut self, i: usize, mask: u8) -> usize {
        let (end, more) = self.high_run(i, mask);
        if more {
            end - i + self.run(end, mask)
        } else {
            end - i
        }
    }

    /// [`Text::run`], through [`Text::run_wide`] if the byte at `i` is of 128 or more (a word
    /// of another script after a lead).
    #[inline(always)]
    fn run_any(&mut self, i: usize, mask: u8) -> usize {
        if self.s.get(i).is_some_and(|&b| b >= 128) {
            self.run_wide(i, mask)
        } else {
            self.run(i, mask)
        }
    }

    /// [`Text::run`] after one table look-up at `i`, which ends an empty run without the
    /// masks (o200k's cores try runs that are mostly empty: of `W` and `U` at punctuation and
    /// white space).
    #[inline(always)]
    fn run_or_none(&mut self, i: usize, mask: u8) -> usize {
        match self.s.get(i) {
            Some(&b) if CLASSES[b as usize] & (mask | HIGH) != 0 => self.run(i, mask),
            _ => 0,
        }
    }

    /// The bytes of the run of units from `i` whose code point is in `set` (the mirror's
    /// `runLength` of o200k's `[\r\n/]`: an overlong unit can be one of them).
    #[inline]
    fn run_of(&self, i: usize, set: &[u32]) -> usize {
        let mut j = i;
        while j < self.s.len() {
            let (cp, _, n) = self.unit(j);
            if !set.contains(&cp) {
                break;
            }
            j += n;
        }
        j - i
    }

    /// `'(?i:[sdmt]|ll|ve|re)` at `i` in bytes, 0 if none (the mirror's `matchContraction`).
    #[inline]
    fn contraction(&self, i: usize) -> usize {
        let len = self.s.len();
        if i >= len || self.s[i] < 128 && self.s[i] != b'\'' {
            return 0;
        }
        let (a, _, n1) = self.unit(i);
        if a != 39 || i + n1 >= len {
            return 0;
        }
        let (b, _, n2) = self.unit(i + n1);
        let c = fold_case(b);
        if matches!(c, 115 | 100 | 109 | 116) {
            return n1 + n2; // s d m t
        }
        if i + n1 + n2 < len {
            let (d, _, n3) = self.unit(i + n1 + n2);
            if matches!((c, fold_case(d)), (108, 108) | (118, 101) | (114, 101)) {
                return n1 + n2 + n3; // ll ve re
            }
        }
        0
    }

    /// `\p{N}{1,3}` in bytes (the mirror's `matchDigits`).
    #[inline]
    fn digits(&mut self, i: usize) -> usize {
        // three ASCII digits, or fewer before an ASCII byte in the block: from the masks
        if i.wrapping_sub(self.b.base) < 64 {
            let k = i - self.b.base;
            let ones = (self.b.m[idx(N)] >> k).trailing_ones() as usize;
            if ones >= 3 {
                return 3;
            }
            let e = k + ones;
            if e < 64 && (self.b.m[idx(HIGH)] >> e) & 1 == 0 {
                return ones;
            }
        }
        let mut j = i;
        for _ in 0..3 {
            if j >= self.s.len() {
                break;
            }
            let (_, c, n) = self.unit(j);
            if c & N == 0 {
                break;
            }
            j += n;
        }
        j - i
    }

    /// The white-space run from `i` (at least one unit): its end, the start of its last unit,
    /// and one past its last `[\r\n]` (`i` if none; the mirror's `lastNewlineEnd`).  The
    /// ASCII stretches by the masks (an ASCII white-space unit is one byte), a unit of 128 or
    /// more through [`Text::wide`].
    #[inline]
    fn white_space(&mut self, i: usize) -> (usize, usize, usize) {
        let (mut j, mut last, mut nl) = (i, i, i);
        loop {
            if j.wrapping_sub(self.b.base) >= 64 {
                self.b = Block::at(self.s, j.saturating_sub(BACK), self.cased);
            }
            let k = j - self.b.base;
            let ones = (self.b.m[idx(WS)] >> k).trailing_ones() as usize;
            if ones != 0 {
                // the newlines among them: one past the last
                let nls = (self.b.m[idx(NL)] >> k) & (u64::MAX >> (64 - ones));
                if nls != 0 {
                    nl = j + 64 - nls.leading_zeros() as usize;
                }
                j += ones;
                last = j - 1;
            }
            let e = k + ones;
            if e == 64 {
                continue;
            }
            if (self.b.m[idx(HIGH)] >> e) & 1 == 0 {
                break;
            }
            let (_, c, n) = self.wide(j);
            if c & WS == 0 {
                break;
            }
            last = j;
            j += n;
            if c & NL != 0 {
                nl = j;
            }
        }
        (j, last, nl)
    }

    /// o200k's `casedCore` (`U*W+`) at `i`.
    #[inline(always)]
    fn cased_core(&mut self, i: usize) -> usize {
        if i < self.s.len() && CLASSES[self.s[i] as usize] & (UPPER | HIGH) == 0 {
            return self.run_or_none(i, LOWER); // no U run: W+ or nothing
        }
        // the U run, and one past its last W unit (lastLowerEnd over the run) on the way: an
        // ASCII U unit is not W (`test_block_masks`), so only the wide ones can move it
        let (mut j, mut end) = (i, i);
        loop {
            let (e, high) = self.skip(j, idx(UPPER));
            j = e;
            if !high {
                break;
            }
            let (_, c, n) = self.wide(j);
            if c & UPPER == 0 {
                break;
            }
            j += n;
            if c & LOWER != 0 {
                end = j;
            }
        }
        let w = self.run_or_none(j, LOWER);
        if w != 0 {
            return j - i + w;
        }
        end - i
    }

    /// o200k's `upperCore` (`U+W*`) at `i`.
    #[inline(always)]
    fn upper_core(&mut self, i: usize) -> usize {
        let u = self.run_or_none(i, UPPER);
        if u == 0 {
            return 0;
        }
        u + self.run_or_none(i + u, LOWER)
    }

    /// o200k's core `U*W+` ([`Text::cased_core`]) if `CASED`, else `U+W*`
    /// ([`Text::upper_core`]).
    #[inline(always)]
    fn core<const CASED: bool>(&mut self, i: usize) -> usize {
        if CASED {
            self.cased_core(i)
        } else {
            self.upper_core(i)
        }
    }

    /// o200k's `withContraction (withLead core)`: `[^\r\n\p{L}\p{N}]?` core `C?` at `i`
    /// (the core of [`Text::core`]), with `c` and `n0` the class and length of the unit at `i`.
    #[inline(always)]
    fn word<const CASED: bool>(&mut self, i: usize, c: u8, n0: usize) -> usize {
        let core = Self::core::<CASED>;
        let mut n = 0;
        if is_lead(c) {
            n = core(self, i + n0);
            if n != 0 {
                n += n0;
            }
        }
        if n == 0 {
            n = core(self, i);
        }
        if n == 0 {
            return 0;
        }
        n + self.contraction(i + n)
    }
}

/// `[^\r\n\p{L}\p{N}]` on a unit's class bits.
#[inline(always)]
fn is_lead(c: u8) -> bool {
    c & (NL | L | N) == 0
}

/// cl100k_base's `nextChunkLen` at `i < s.len()`, in bytes: [`cl100k_branches`] on the
/// unit at `i`, an ASCII byte here, a unit of 128 or more in [`cl100k_wide`].
#[inline(always)]
fn cl100k_at(t: &mut Text, i: usize) -> usize {
    let b = t.s[i];
    if b >= 128 {
        return cl100k_wide(t, i);
    }
    cl100k_branches::<false>(t, i, u32::from(b), CLASSES[b as usize], 1)
}

/// [`cl100k_at`] at a unit of 128 or more.
#[inline(never)]
fn cl100k_wide(t: &mut Text, i: usize) -> usize {
    let (cp, c, n0) = t.decode(i);
    cl100k_branches::<true>(t, i, cp, c, n0)
}

/// cl100k_base's `nextChunkLen` at `i < s.len()`, in bytes, given the code point `cp`, class
/// bits `c` and length `n0` of the unit at `i` ([`Text::unit`]), of 128 or more if `WIDE`
/// (whose runs start without the masks, [`Text::run_wide`]).
#[inline(always)]
fn cl100k_branches<const WIDE: bool>(t: &mut Text, i: usize, cp: u32, c: u8, n0: usize) -> usize {
    // '(?i:[sdmt]|ll|ve|re)
    if cp == 39 {
        let n = t.contraction(i);
        if n != 0 {
            return n;
        }
    }
    // [^\r\n\p{L}\p{N}]?+\p{L}++
    if c & L != 0 {
        return if WIDE { t.run_wide(i, L) } else { t.run(i, L) };
    }
    if is_lead(c) {
        let n = t.run_any(i + n0, L);
        if n != 0 {
            return n0 + n;
        }
    }
    // \p{N}{1,3}+
    if c & N != 0 {
        return t.digits(i);
    }
    // ' ?[^\s\p{L}\p{N}]++[\r\n]*+'
    let lead = if cp == 32 { n0 } else { 0 };
    let n = if WIDE {
        t.run_any(i + lead, PUNCT)
    } else {
        t.run(i + lead, PUNCT)
    };
    if n != 0 {
        return lead + n + t.run(i + lead + n, NL);
    }
    if c & WS != 0 {
        let (end, last, nl) = t.white_space(i);
        // \s++$
        if end == t.s.len() {
            return end - i;
        }
        // \s*[\r\n]
        if nl != i {
            return nl - i;
        }
        // \s+(?!\S), else \s
        return if last > i { last - i } else { end - i };
    }
    n0
}

/// o200k_base's `nextChunkLen` at `i < s.len()`, in bytes.
#[inline(always)]
fn o200k_at(t: &mut Text, i: usize) -> usize {
    let (cp, c, n0) = t.unit(i);
    // [^\r\n\p{L}\p{N}]?U*W+C?, then [^\r\n\p{L}\p{N}]?U+W*C?
    let n = t.word::<true>(i, c, n0);
    if n != 0 {
        return n;
    }
    let n = t.word::<false>(i, c, n0);
    if n != 0 {
        return n;
    }
    // \p{N}{1,3}
    if c & N != 0 {
        return t.digits(i);
    }
    // ' ?[^\s\p{L}\p{N}]+[\r\n/]*'
    let lead = if cp == 32 { n0 } else { 0 };
    let n = t.run(i + lead, PUNCT);
    if n != 0 {
        return lead + n + t.run_of(i + lead + n, &[10, 13, 47]);
    }
    if c & WS != 0 {
        let (end, last, nl) = t.white_space(i);
        // \s*[\r\n]+
        if nl != i {
            return nl - i;
        }
        // \s+(?!\S), else \s+
        return if end == t.s.len() || last == i {
            end - i
        } else {
            last - i
        };
    }
    n0
}

/// The masks of the bytes of `bytes` equal to `a` and to `b` (bit `k` for byte `k`).
#[inline(always)]
#[allow(unsafe_code)]
fn eq_masks(bytes: &[u8; 64], a: u8, b: u8) -> [u64; 2] {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: `eq_masks_sse2` needs SSE2 only, which every x86_64 processor has (the
        // target's baseline features, enabled for the whole build).
        unsafe { eq_masks_sse2(bytes, a, b) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut m = [0u64; 2];
        for (k, &x) in bytes.iter().enumerate() {
            m[0] |= u64::from(x == a) << k;
            m[1] |= u64::from(x == b) << k;
        }
        m
    }
}

/// [`eq_masks`] by SSE2 byte comparisons, 16 bytes at a time.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
fn eq_masks_sse2(bytes: &[u8; 64], a: u8, b: u8) -> [u64; 2] {
    use core::arch::x86_64::*;
    let (mut ma, mut mb) = (0u64, 0u64);
    for q in 0..4 {
        let word = |h: usize| {
            let at = 16 * q + 8 * h;
            i64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
        };
        let x = _mm_set_epi64x(word(1), word(0));
        let bits = |v: __m128i| u64::from(_mm_movemask_epi8(v) as u32) << (16 * q);
        ma |= bits(_mm_cmpeq_epi8(x, _mm_set1_epi8(a as i8)));
        mb |= bits(_mm_cmpeq_epi8(x, _mm_set1_epi8(b as i8)));
    }
    [ma, mb]
}

/// cl100k_base's chunk starts in the 64 bytes of `t.s` from `i`, all at once, given that `i`
/// is a chunk start (the chunks from a start depend only on the text from there): bit `k`
/// (`0 < k < 64`) of the first word is set when `i + k` starts a chunk of [`cl100k_at`]'s
/// splitting from `i`, for every `k` below a limit up to which the starts do not depend on the
/// bytes from the first byte of 128 or more on, nor on the bytes past the 64 (no bit at or past
/// it; 0 if there is none below it).  The second word is the mask of the bytes of 128 or more
/// among the 64, the positions past the data's end counted as such.
///
/// On ASCII bytes, with `L` letters, `N` digits, `R` `[\r\n]`, `W` the other white space,
/// `P` the rest (the apostrophe too), a position starts a chunk exactly when (the pattern's
/// branches taken in order, `test_bulk_starts` against the mirror from every position):
/// - a digit starts its run or is 3, 6, ... digits into it (`\p{N}{1,3}`), or a non-digit
///   follows a digit;
/// - a letter starts its run and the byte before is neither `W` nor a "solo" `P` (a `P`
///   whose run starts there unjoined: not after a space, which `' ?P+'` takes); a non-letter
///   follows a letter; a contraction `'s`, `'ll`, ... at a solo apostrophe before letters
///   ends there (`'(?i:[sdmt]|ll|ve|re)` comes first);
/// - a `P` starts its run unjoined (a run swallows the `R` bytes after it: `[\r\n]*`);
/// - a white-space run (of `W` and `R`, ended before the limit, so not by the data's end:
///   `\s++$`) starts a chunk at its first byte unless that is an `R` after a `P`; a `W`
///   starts one after the `R` bytes a `P` run swallowed, after the run's last `R` (the end
///   of `\s*[\r\n]`), and as the run's last byte (`\s+(?!\S)` leaves it to the next
///   branch's lead, or `\s`).
///
/// Each rule looks back, or one byte ahead (a byte of 128 or more, or past the data's end, is
/// in none of the ASCII classes there), except the white-space run's: the limit is the first
/// byte of 128 or more (or the data's end, or 64), and one past the first byte of a
/// white-space run that reaches the byte before it (whose last `R` and last byte may be past
/// it; whether its first byte starts a chunk depends on the bytes before only); a
/// contraction's look-ahead only moves starts past it.
#[inline(never)]
fn cl100k_bulk(t: &Text, i: usize) -> (u64, u64) {
    match t.s.get(i..).and_then(|r| r.first_chunk::<64>()) {
        Some(bytes) => bulk_starts(t, i, bytes),
        None => cl100k_bulk_tail(t, i),
    }
}

/// [`cl100k_bulk`] at fewer than 64 bytes before the data's end: the positions past it as
/// bytes of 128 or more.
#[cold]
#[inline(never)]
fn cl100k_bulk_tail(t: &Text, i: usize) -> (u64, u64) {
    let rest = t.s.get(i..).unwrap_or_default();
    let mut padded = [0x80u8; 64];
    padded[..rest.len()].copy_from_slice(rest);
    bulk_starts(t, i, &padded)
}

/// [`cl100k_bulk`] on the 64 bytes `bytes` from `i` (the data's, or padded).
#[inline(always)]
fn bulk_starts(t: &Text, i: usize, bytes: &[u8; 64]) -> (u64, u64) {
    let m = masks64::<false>(bytes);
    let high = m[idx(HIGH)];
    let ws = m[idx(WS)];
    // the bytes below the first of 128 or more (all if none)
    let valid = (high & high.wrapping_neg()).wrapping_sub(1);
    // the limit: that byte, or one past the start of a white-space run reaching the byte
    // before it (the top bit of `valid`)
    // (without a branch: which one is as good as random)
    let reach = ws & valid & !(valid >> 1);
    let run = 64 - (!ws & valid).leading_zeros();
    // bits 0..=run (all 64 when run is 63 or 64; `2 << 64` would overflow, so the shift
    // is from the top)
    let cut = u64::MAX >> (63 - run.min(63));
    let below = valid & (cut | u64::from(reach == 0).wrapping_neg());
    let [sp, apos] = eq_masks(bytes, b' ', b'\'');
    let (l, n, r) = (m[idx(L)], m[idx(N)], m[idx(NL)]);
    let w = ws & !r;
    let p = m[idx(PUNCT)];
    // the masks of the byte before (bit k: byte k - 1), an R before the 64 bytes: position 0
    // is a start, and no rule below gives it a run that goes on from before it
    let (l1, n1, w1, p1, sp1) = (l << 1, n << 1, w << 1, p << 1, sp << 1);
    let (ws1, r1) = (ws << 1 | 1, r << 1 | 1);
    // a P whose run starts here unjoined
    let solo = p & !p1 & !sp1;
    // digits: the runs' starts, then every third digit of a run, and the byte after a run
    let mut digits = n & !n1;
    let three = n & n1 & (n << 2);
    let mut d = digits;
    loop {
        d = (d << 3) & three;
        if d == 0 {
            break;
        }
        digits |= d;
    }
    let mut starts = 1 | digits | (!n & n1);
    // letters: a run's start not led by a W or a solo P; the byte after a run
    starts |= l & !l1 & !w1 & !(solo << 1);
    starts |= !l & l1;
    // contractions at solo apostrophes before letters (below the limit): their ends
    let mut c = apos & solo & (l >> 1) & below;
    while c != 0 {
        let j = c.trailing_zeros() as usize;
        c &= c - 1;
        let len = j + t.contraction(i + j);
        if len > j && len < 64 {
            starts |= 1 << len;
        }
    }
    // punctuation runs, unjoined
    starts |= solo;
    // white space: a run's first byte (not an R after a P)
    starts |= w & !ws1;
    starts |= r & !ws1 & !p1;
    // the W after R bytes that a P run swallowed (the carry of seed + run lands past the run)
    let swallowed = r & p1;
    starts |= w & r.wrapping_add(swallowed) & !r;
    // the W after the run's last R: W bytes whose W run ends at an R, filled down from its
    // last byte (a prefix scan over the W runs)
    let mut before_r = w & (r >> 1);
    if before_r != 0 {
        // (mostly none: white space before a line break)
        let mut g = w;
        for shift in [1, 2, 4, 8, 16, 32] {
            before_r |= (before_r >> shift) & g;
            g &= g >> shift;
        }
    }
    starts |= w & r1 & !before_r;
    // the last byte of a run, a W
    starts |= w & !(ws >> 1);
    (starts & below & !1, high)
}

/// cl100k_base's `nextChunkLen` at `i < s.len()`, in bytes (the mirror's
/// [`super::cl100k::next_chunk_len`] on the units of `s`).
pub fn cl100k_chunk(s: &[u8], i: usize) -> usize {
    cl100k_at(&mut Text::new(s, false), i)
}

/// o200k_base's `nextChunkLen` at `i < s.len()`, in bytes (the mirror's
/// [`super::o200k::next_chunk_len`] on the units of `s`).
pub fn o200k_chunk(s: &[u8], i: usize) -> usize {
    o200k_at(&mut Text::new(s, true), i)
}

/// The chunks of `data` as byte ranges, in order: cl100k_base's if not `O200K`, else
/// o200k_base's (the mirror's `splitUnits` on bytes, as an iterator, so that a caller's loop
/// holds the chunk function and its own body together; [`pre_tokenize_cl100k_fast`] and
/// [`pre_tokenize_o200k_fast`] run it).
///
/// cl100k_base's splitting takes the chunk starts of 64 bytes at once where it can, up to their
/// first byte of 128 or more ([`cl100k_bulk`]), and gives the chunks between them one by one;
/// elsewhere (and for o200k_base) each chunk through the chunk function.
pub struct FastChunks<'a, const O200K: bool> {
    t: Text<'a>,
    i: usize,
    /// Chunk starts known ahead of `i`: bit `k` is position `q_base + k`.
    q: u64,
    q_base: usize,
    /// No bulk attempt from a position below this (past the byte of 128 or more that ended the
    /// last starts, or past the last one of a failed attempt, farther after failed attempts in
    /// a row).
    no_bulk: usize,
    /// Failed bulk attempts in a row (at most 3).
    fails: usize,
}

impl<'a, const O200K: bool> FastChunks<'a, O200K> {
    /// The chunks of `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Self {
            t: Text::new(data, O200K),
            i: 0,
            q: 0,
            q_base: 0,
            no_bulk: 0,
            fails: 0,
        }
    }
}

impl<const O200K: bool> Iterator for FastChunks<'_, O200K> {
    type Item = Range<usize>;

    #[inline(always)]
    fn next(&mut self) -> Option<Range<usize>> {
        let i = self.i;
        if !O200K && self.q != 0 {
            let end = self.q_base + self.q.trailing_zeros() as usize;
            self.q &= self.q - 1;
            self.i = end;
            return Some(i..end);
        }
        if i >= self.t.s.len() {
            return None;
        }
        if !O200K && i >= self.no_bulk {
            // a byte of 128 or more among the 8 from `i`: too few starts before it to pay for
            // the bulk's masks
            let head = self.t.s.get(i..).and_then(|r| r.first_chunk::<8>());
            let head = head.map_or(0, |h| u64::from_le_bytes(*h) & 0x8080_8080_8080_8080);
            let (starts, high) = if head == 0 {
                cl100k_bulk(&self.t, i)
            } else {
                (0, head)
            };
            if starts != 0 {
                let end = i + starts.trailing_zeros() as usize;
                self.q = starts & (starts - 1);
                self.q_base = i;
                self.i = end;
                self.fails = 0;
                // the next attempt past the first byte of 128 or more, which ended the starts
                // (the chunk that holds it through the chunk function)
                if high != 0 {
                    self.no_bulk = i + high.trailing_zeros() as usize + 1;
                }
                return Some(i..end);
            }
            // text of another script: past the last byte of 128 or more of the 64 (of the 8
            // if the bulk was not tried; the next position if none), fewer attempts after
            // failed ones, up to one per 256 bytes
            let after = match (high, head) {
                (0, _) => 1,
                (_, 0) => 64 - high.leading_zeros() as usize,
                _ => 8 - head.leading_zeros() as usize / 8,
            };
            self.no_bulk = i + after + 64 * self.fails;
            self.fails = (self.fails + 1).min(3);
        }
        let n = if O200K {
            o200k_at(&mut self.t, i)
        } else {
            cl100k_at(&mut self.t, i)
        };
        self.i = i + n;
        Some(i..i + n)
    }
}

/// cl100k_base's chunks of `data` (the same as [`super::cl100k::pre_tokenize_cl100k`]).
pub fn pre_tokenize_cl100k_fast(data: &[u8], emit: impl FnMut(Range<usize>)) {
    FastChunks::<false>::new(data).for_each(emit)
}

/// o200k_base's chunks of `data` (the same as [`super::o200k::pre_tokenize_o200k`]).
pub fn pre_tokenize_o200k_fast(data: &[u8], emit: impl FnMut(Range<usize>)) {
    FastChunks::<true>::new(data).for_each(emit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::unicode::{cl100k, o200k};

    #[test]
    fn test_classes() {
        let t = bmp_classes();
        for cp in 0..BMP as u32 {
            assert_eq!(t[cp as usize], class_bits(cp), "{cp:#x}");
        }
        for (b, &class) in CLASSES.iter().enumerate() {
            let c = if b < 128 { class_bits(b as u32) } else { HIGH };
            assert_eq!(class, c, "{b}");
        }
    }

    /// The masks of a block against [`CLASSES`] byte by byte: [`masks64`] (SSE2 on x86_64)
    /// and [`masks64_table`] on every byte value at every position and on random blocks, and
    /// [`Block::at`] on blocks cut short by the data's end; and an ASCII U unit is never W
    /// (which [`Text::cased_core`] relies on).
    #[test]
    fn test_block_masks() {
        let check = |bytes: &[u8]| {
            let full = bytes.first_chunk::<64>();
            for cased in [false, true] {
                let blocks = [Block::at(bytes, 0, cased).m]
                    .into_iter()
                    .chain(full.map(|b| {
                        if cased {
                            masks64::<true>(b)
                        } else {
                            masks64::<false>(b)
                        }
                    }))
                    .chain(full.map(masks64_table));
                for m in blocks {
                    for k in 0..64 {
                        let c = bytes.get(k).map_or(0, |&b| CLASSES[b as usize]);
                        for (b, mask) in m.iter().enumerate() {
                            if !cased && (1 << b) & (UPPER | LOWER) != 0 {
                                continue; // unused by cl100k's pattern
                            }
                            let want = u64::from((c >> b) & 1);
                            assert_eq!((mask >> k) & 1, want, "{bytes:?} {k} {b}");
                        }
                    }
                }
            }
        };
        let all: Vec<u8> = (0..=255).collect();
        for shift in 0..256 {
            let block: Vec<u8> = (0..64).map(|k| all[(k + shift) % 256]).collect();
            check(&block);
            check(&block[..shift % 64]);
        }
        let mut next = crate::xorshift(0x2545_F491_4F6C_DD1Du64);
        for round in 0..10_000 {
            // random bytes, and ASCII only (more runs)
            let top = if round % 2 == 0 { 0xFF } else { 0x7F };
            let block: Vec<u8> = (0..64).map(|_| (next() as u8) & top).collect();
            check(&block);
            check(&block[..round % 64]);
        }
        for (b, c) in CLASSES[..128].iter().enumerate() {
            assert_ne!(c & (UPPER | LOWER), UPPER | LOWER, "{b}");
        }
    }

    /// Runs of each class (letters of one case and of both, digits, spaces, newlines,
    /// punctuation, with and without non-ASCII units among them) of 1 to 200 units ending at
    /// every position of a 64-byte block, after a prefix of every length below 64 and before
    /// the data's end or another unit: the fast path's chunks are the mirror's (the masks'
    /// runs across block boundaries, and blocks cut short by the data's end).
    #[test]
    fn test_runs_across_blocks() {
        let kinds: [&str; 14] = [
            "a", "Z", "aB", "7", " ", "\n", " \n", "\r\n", ".", "/", "é", "aé", " \u{a0}", "Ǆ",
        ];
        let tails: [&str; 10] = ["", "é", "世", ".", "a", "A", " ", "\n", "\u{a0}", "'s"];
        let prefix = "é-x 9\u{301}".repeat(16).into_bytes();
        let lengths = if cfg!(debug_assertions) { 70 } else { 200 };
        let mut case = 0;
        for kind in kinds {
            for offset in 0..64 {
                for len in 1..=lengths {
                    let mut data = prefix[..offset].to_vec();
                    data.extend_from_slice(kind.repeat(len).as_bytes());
                    data.extend_from_slice(tails[case % tails.len()].as_bytes());
                    case += 1;
                    for [mirror, fast] in SPLITS {
                        assert_eq!(chunks(mirror, &data), chunks(fast, &data), "{data:?}");
                    }
                }
            }
        }
    }

    /// Long random strings (thousands of units: letters in runs of mixed case and of one case,
    /// digits, punctuation, spaces and newlines, apostrophes, non-ASCII letters, marks and
    /// spaces, invalid bytes), so that runs are long (up to 16 bytes in [`test_every_short_string`]):
    /// the fast path's chunks are the mirror's.
    #[test]
    fn test_long_random_strings() {
        let pieces: Vec<&[u8]> = vec![
            b"a",
            b"Z",
            b"hello",
            b"WORLD",
            b"camelCaseWord",
            b"ALLCAPSRUNS",
            b"x",
            b"7",
            b"2026",
            b"'s",
            b"'LL",
            b"'",
            b".",
            b"->",
            b"::",
            b"/",
            b"@",
            b"[",
            b"`",
            b"{",
            b" ",
            b"  ",
            b"\n",
            b"\r\n",
            b"\t",
            "é".as_bytes(),
            "É".as_bytes(),
            "ǅ".as_bytes(),
            "\u{301}".as_bytes(),
            "世界".as_bytes(),
            "\u{a0}".as_bytes(),
            "٣".as_bytes(),
            "\u{1F600}".as_bytes(),
            b"\xff",
            b"\xc3",
        ];
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let rounds = if cfg!(debug_assertions) { 40 } else { 400 };
        for round in 0..rounds {
            let mut data = Vec::new();
            // the first rounds mostly letters (long runs), the later ones everything
            let letters = round % 2 == 0;
            while data.len() < 4096 {
                let k = if letters && next(4) != 0 {
                    next(6)
                } else {
                    next(pieces.len())
                };
                data.extend_from_slice(pieces[k]);
            }
            for [mirror, fast] in SPLITS {
                assert_eq!(chunks(mirror, &data), chunks(fast, &data), "{data:?}");
            }
        }
    }

    /// ASCII pieces for [`cl100k_bulk`]: every class of its rules, the contraction letters of
    /// both cases, apostrophes, every white-space byte, runs of each (the weights: repeats).
    const ASCII_PIECES: [&[u8]; 40] = [
        b"a", b"Q", b"s", b"D", b"m", b"T", b"l", b"L", b"v", b"E", b"r", b"e", b"x", b"hello",
        b"Word", b"0", b"7", b"12", b"2026", b"'", b"'", b"'s", b"'LL", b"'ve", b" ", b" ", b"  ",
        b"\t", b"\n", b"\r", b"\r\n", b"\x0b", b"\x0c", b".", b"(", b"->", b"/", b"\"", b"_",
        b"    ",
    ];

    fn random_ascii(next: &mut impl FnMut() -> u64, len: usize) -> Vec<u8> {
        let mut data = Vec::new();
        // some strings without one of the classes, so that runs are long
        let skip = next() % 8;
        while data.len() < len {
            let k = (next() % ASCII_PIECES.len() as u64) as usize;
            let piece = ASCII_PIECES[k];
            let class = CLASSES[piece[0] as usize];
            let dropped = match skip {
                0 => class & L != 0,
                1 => class & WS != 0,
                2 => class & PUNCT != 0,
                3 => class & N != 0,
                _ => false,
            };
            if !dropped {
                data.extend_from_slice(piece);
            }
        }
        data.truncate(len);
        data
    }

    /// Non-ASCII units for [`cl100k_bulk`]'s limit: a letter, a mark, a digit, white space
    /// (one a line break), punctuation, a letter of 3 and of 4 bytes, and units that are not
    /// UTF-8 (a lone continuation byte, overlong `"\n"`, `'` and `s`, a unit cut short).
    const WIDE_PIECES: [&[u8]; 14] = [
        "é".as_bytes(),
        "\u{301}".as_bytes(),
        "٣".as_bytes(),
        "\u{a0}".as_bytes(),
        "\u{2028}".as_bytes(),
        "“".as_bytes(),
        "世".as_bytes(),
        "\u{1F600}".as_bytes(),
        b"\x80",
        b"\xc0\x8a",
        b"\xc0\xa7",
        b"\xc1\xb3",
        b"\xe4\xb8",
        b"\xff",
    ];

    /// [`cl100k_bulk`] from every position of random ASCII strings, of ASCII strings with
    /// non-ASCII units planted, and of both cut short (windows that end at the data's end):
    /// each start it gives is a start of the mirror's chunks of the text from that position,
    /// and so is every position it leaves out below its last start; it gives none at or past
    /// the first byte of 128 or more, and its second word is the mask of those bytes (and of
    /// the positions past the data's end).
    #[test]
    fn test_bulk_starts() {
        let mut next = crate::xorshift(0x1234_5678_9ABC_DEF1);
        let rounds = if cfg!(debug_assertions) { 200 } else { 3000 };
        // starts found in windows: all ASCII, with a byte of 128 or more, cut by the end
        let mut found = [0u64; 3];
        for round in 0..rounds {
            let mut data = random_ascii(&mut next, 200);
            for _ in 0..round % 6 {
                let at = (next() % data.len() as u64) as usize;
                let unit = WIDE_PIECES[(next() % WIDE_PIECES.len() as u64) as usize];
                data.splice(at..at, unit.iter().copied());
            }
            if round % 3 == 0 {
                let len = (next() % data.len() as u64) as usize;
                data.truncate(len);
            }
            let t = Text::new(&data, false);
            for i in 0..data.len() {
                let (got, high) = cl100k_bulk(&t, i);
                let window = &data[i..data.len().min(i + 64)];
                let mut want_high = u64::MAX << window.len().min(63) << (window.len() / 64);
                for (k, &b) in window.iter().enumerate() {
                    want_high |= u64::from(b >= 128) << k;
                }
                assert_eq!(high, want_high, "{window:?}");
                let first = high.trailing_zeros();
                assert_eq!(got >> first.min(63) >> (first / 64), 0, "{window:?}");
                let mut want = 0u64;
                cl100k::pre_tokenize_cl100k(&data[i..], |r| {
                    if r.start < 64 {
                        want |= 1 << r.start;
                    }
                });
                let known = if got == 0 {
                    0
                } else {
                    u64::MAX >> got.leading_zeros()
                };
                let kind = if window.len() < 64 {
                    2
                } else {
                    usize::from(high != 0)
                };
                found[kind] += u64::from(got.count_ones());
                assert_eq!(got, want & known & !1, "{window:?}");
            }
        }
        assert!(found.iter().all(|&f| f > 0), "{found:?}");
    }

    /// Long ASCII strings (so that [`FastChunks`] takes its starts from [`cl100k_bulk`]), and
    /// windows of them with non-ASCII units planted (the switch between the bulk and the
    /// chunk function): the fast path's chunks are the mirror's.
    #[test]
    fn test_long_ascii_strings() {
        let mut next = crate::xorshift(0x0DDB_1A5E_5BAD_5EED);
        let rounds = if cfg!(debug_assertions) { 30 } else { 300 };
        let wide: [&str; 6] = ["é", "世", "\u{a0}", "\u{1F600}", "\u{2028}", "٣"];
        for round in 0..rounds {
            let mut data = random_ascii(&mut next, 4096);
            for [mirror, fast] in SPLITS {
                assert_eq!(chunks(mirror, &data), chunks(fast, &data), "{data:?}");
            }
            // non-ASCII units planted at random places, more in the later rounds
            for _ in 0..(round % 16) {
                let at = (next() % data.len() as u64) as usize;
                let unit = wide[(next() % wide.len() as u64) as usize].as_bytes();
                data.splice(at..at, unit.iter().copied());
            }
            for _ in 0..8 {
                let a = (next() % data.len() as u64) as usize;
                let b = (a + (next() % 300) as usize).min(data.len());
                let window = &data[a..b];
                for [mirror, fast] in SPLITS {
                    assert_eq!(chunks(mirror, window), chunks(fast, window), "{window:?}");
                }
            }
            for [mirror, fast] in SPLITS {
                assert_eq!(chunks(mirror, &data), chunks(fast, &data), "{data:?}");
            }
        }
    }

    /// A pre-tokenizer: the chunks of the data, each given to the callback.
    type Split = fn(&[u8], &mut dyn FnMut(Range<usize>));

    fn chunks(split: Split, data: &[u8]) -> Vec<Range<usize>> {
        let mut out = Vec::new();
        split(data, &mut |r| out.push(r));
        out
    }

    const SPLITS: [[Split; 2]; 2] = [
        [
            |d, e| cl100k::pre_tokenize_cl100k(d, e),
            |d, e| pre_tokenize_cl100k_fast(d, e),
        ],
        [
            |d, e| o200k::pre_tokenize_o200k(d, e),
            |d, e| pre_tokenize_o200k_fast(d, e),
        ],
    ];

    /// Every string of up to 4 (3 in a debug build) pieces of the alphabet: one byte of each
    /// ASCII class the branches tell apart, non-ASCII code points that go on with each run, and
    /// units that are not UTF-8 (a lone continuation byte, overlong `"\n"`, `'` and `/`, a unit
    /// cut short).
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
            "ǅ".as_bytes(),
            "ſ".as_bytes(),
            "\u{a0}".as_bytes(),
            "\u{301}".as_bytes(),
            "٣".as_bytes(),
            "世".as_bytes(),
            "\u{1F600}".as_bytes(),
            b"\xff",
            b"\xc0\x8a",
            b"\xc0\xa7",
            b"\xc0\xaf",
            b"\xe4\xb8",
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
                for [mirror, fast] in SPLITS {
                    assert_eq!(chunks(mirror, &data), chunks(fast, &data), "{data:?}");
                }
            }
        }
    }

    /// The contexts of [`test_every_code_point_in_contexts`]: each `_` is the code point; the
    /// four probe strings of the exhaustive scan (`verified_bpe.verify.unicode_scan.probes`)
    /// and strings where it starts, continues or ends each branch's run.
    const CONTEXTS: [&str; 12] = [
        "__",
        "6_-l",
        "x'_ 'l_ '_e 'r_.",
        "a_A \n_ 9_\t _",
        "_",
        " _a",
        "A_b_",
        "'_'s",
        "._/\n",
        "  _ \n",
        "\n_\n\r_",
        "12_3_4",
    ];

    fn disagreeing(cps: impl Iterator<Item = u32>) -> Vec<(u32, &'static str)> {
        let mut wrong = Vec::new();
        for cp in cps.filter(|c| !(0xD800..0xE000).contains(c)) {
            let c = char::from_u32(cp).expect("scalar value").to_string();
            for context in CONTEXTS {
                let text = context.replace('_', &c);
                for [mirror, fast] in SPLITS {
                    if chunks(mirror, text.as_bytes()) != chunks(fast, text.as_bytes()) {
                        wrong.push((cp, context));
                    }
                }
            }
        }
        wrong
    }

    /// Every code point of the Basic Multilingual Plane and the first of each later plane, in
    /// every context of [`CONTEXTS`]: the fast path's chunks are the mirror's.
    #[test]
    fn test_every_code_point_in_contexts() {
        let step = if cfg!(debug_assertions) { 7 } else { 1 };
        let planes = (1..=16).map(|p| p << 16);
        let wrong = disagreeing((0..0x10000).step_by(step).chain(planes));
        assert!(wrong.is_empty(), "{:?}", &wrong[..wrong.len().min(20)]);
    }

    /// Every code point in every context of [`CONTEXTS`].  An exploring run (`cargo test
    /// --release --no-default-features -- --ignored`; its result is in docs/native.md).
    #[test]
    #[ignore]
    fn test_every_code_point_in_probes() {
        let wrong = disagreeing(0..=0x10FFFF);
        assert!(wrong.is_empty(), "{:?}", &wrong[..wrong.len().min(20)]);
    }
}
