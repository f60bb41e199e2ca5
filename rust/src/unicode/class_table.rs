//! A lookup table for the character classes on the Basic Multilingual Plane (no Lean
//! counterpart: an implementation of the same functions).
//!
//! Each class function of [`super::tables`] (Lean `Bpe.Unicode.Tables.isL`, ...) is
//! `contains(ranges, cp)` (Lean `Bpe.Unicode.RangeTree.contains`).  A binary search over up to
//! 677 ranges per class, and up to five classes per code point in o200k's letter classes, is
//! most of the pre-tokenizer's time on non-ASCII text; so the answers of every class for every
//! code point below U+10000 are computed once, from the same ranges, into one 16-bit word per
//! code point (128 KiB); code points below 128 are answered by a mask computed at compile
//! time, those above U+FFFF by the search.  `tests/test_native.py` reads every class back
//! over all code points and compares it with the generated Python tables.

use super::range_tree::{contains, Ranges};
use super::tables::CLASS_RANGES;
use std::sync::OnceLock;

const BMP: usize = 0x10000;

fn build() -> Vec<u16> {
    let mut table = vec![0u16; BMP];
    for (bit, ranges) in CLASS_RANGES.iter().enumerate() {
        for &(lo, hi) in ranges.iter() {
            let (lo, hi) = (lo as usize, hi as usize);
            if lo >= BMP {
                break;
            }
            for word in &mut table[lo..=hi.min(BMP - 1)] {
                *word |= 1 << bit;
            }
        }
    }
    table
}

fn bmp_table() -> &'static [u16] {
    static TABLE: OnceLock<Vec<u16>> = OnceLock::new();
    TABLE.get_or_init(build)
}

/// `contains(ranges, cp)`, where `ranges` is the class of bit `bit` in [`CLASS_RANGES`] and
/// `ascii` its [`super::range_tree::ascii_mask`].
#[inline(always)]
pub fn lookup(ranges: Ranges, ascii: u128, bit: u32, cp: u32) -> bool {
    if cp < 128 {
        (ascii >> cp) & 1 != 0
    } else if (cp as usize) < BMP {
        (bmp_table()[cp as usize] >> bit) & 1 != 0
    } else {
        contains(ranges, cp)
    }
}

/// The word of class bits of a code point below U+10000 (`None` above): several classes for
/// one table load (o200k's letter unions, the complements the patterns use).
#[inline(always)]
pub fn bmp_bits(cp: u32) -> Option<u16> {
    bmp_table().get(cp as usize).copied()
}
