//! A lookup table for character classes on the Basic Multilingual Plane (no Lean
//! counterpart: an implementation of the same functions).
//!
//! Each class function of [`super::tables`] (Lean `Bpe.Unicode.Tables.isL`, ...) is
//! `contains(ranges, cp)` (Lean `Bpe.Unicode.RangeTree.contains`).  A binary search over up to
//! 677 ranges per class, and up to five classes per code point in o200k's letter classes, is
//! most of the pre-tokenizer's time on non-ASCII text; so a [`ClassTable`] computes the answers
//! of every class for every code point below U+10000 once, from the same ranges, into one
//! 16-bit word per code point (128 KiB); code points below 128 are answered by a mask computed
//! at compile time, those above U+FFFF by the search.  The generated [`super::tables`] holds
//! the one instance over its ranges (this module knows no ranges of its own, so the two do not
//! import each other).  `tests/test_native.py` reads every class back over all code points and
//! compares it with the generated Python tables.

use super::range_tree::{contains, Ranges};
use std::sync::OnceLock;

const BMP: usize = 0x10000;

/// The class words of up to 16 classes (class `k` is bit `k`), built on first use.
pub struct ClassTable {
    classes: &'static [Ranges],
    words: OnceLock<Vec<u16>>,
}

impl ClassTable {
    /// The table of `classes` (at most 16), not built yet.
    pub const fn new(classes: &'static [Ranges]) -> Self {
        assert!(classes.len() <= 16);
        Self {
            classes,
            words: OnceLock::new(),
        }
    }

    fn build(&self) -> Vec<u16> {
        let mut table = vec![0u16; BMP];
        for (bit, ranges) in self.classes.iter().enumerate() {
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

    #[inline(always)]
    fn words(&self) -> &[u16] {
        self.words.get_or_init(|| self.build())
    }

    /// `contains(ranges, cp)` for the class of bit `bit`, with `ascii` its
    /// [`super::range_tree::ascii_mask`].
    #[inline(always)]
    pub fn lookup(&self, bit: u32, ascii: u128, cp: u32) -> bool {
        if cp < 128 {
            (ascii >> cp) & 1 != 0
        } else if (cp as usize) < BMP {
            (self.words()[cp as usize] >> bit) & 1 != 0
        } else {
            contains(self.classes[bit as usize], cp)
        }
    }

    /// The word of class bits of a code point below U+10000 (`None` above): several classes
    /// for one table load (o200k's letter unions, the complements the patterns use).
    #[inline(always)]
    pub fn bmp_bits(&self, cp: u32) -> Option<u16> {
        self.words().get(cp as usize).copied()
    }
}
