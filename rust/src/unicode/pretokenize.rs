//! Shared parts of the Unicode pre-tokenizers: UTF-8 units, code-point classes, the branches
//! common to cl100k_base and o200k_base, and the splitting loop.
//!
//! Lean: `Bpe.Unicode.PreTokenize`; Python mirror: `verified_bpe.spec.unicode.pretokenize`.
//! Every function below is the Lean definition of the same (snake_case) name, in the same
//! order.  As in the Python mirror, Lean's list `rest` is the slice `cps[i..]`: a matcher
//! takes the code points and a position and returns a length in code points (0 = no match).

use super::tables::{bmp_bits, is_l, is_n, is_white_space, L_BIT, N_BIT, WHITE_SPACE_BIT};

/// Length of the UTF-8 unit that starts with byte `b` (1 for a byte that cannot start a
/// sequence).  Lean: `Bpe.Unicode.PreTokenize.utf8Len`.
#[inline]
pub fn utf8_len(b: u8) -> usize {
    if b < 0xC0 {
        1
    } else if b < 0xE0 {
        2
    } else if b < 0xF0 {
        3
    } else if b < 0xF8 {
        4
    } else {
        1
    }
}

/// The code point of one UTF-8 unit (U+FFFD for a unit that is not a character).
/// Lean: `Bpe.Unicode.PreTokenize.unitCodePoint`.
#[inline]
pub fn unit_code_point(unit: &[u8]) -> u32 {
    let b = |k: usize| unit[k] as u32;
    match unit.len() {
        1 if unit[0] < 128 => b(0),
        2 => (b(0) % 32) * 64 + b(1) % 64,
        3 => (b(0) % 16) * 4096 + (b(1) % 64) * 64 + b(2) % 64,
        4 => (b(0) % 8) * 262144 + (b(1) % 64) * 4096 + (b(2) % 64) * 64 + b(3) % 64,
        _ => 0xFFFD,
    }
}

/// Where the UTF-8 units of `data` start, plus `data.len()` at the end: unit `k` is
/// `data[starts[k]..starts[k + 1]]` (each non-empty; the last one may be cut short by the end
/// of the data).  Lean: `Bpe.Unicode.PreTokenize.utf8Units` (fuel = input length; offsets
/// instead of a list of byte lists).
pub fn utf8_units(fuel: usize, data: &[u8]) -> Vec<usize> {
    let mut starts = Vec::with_capacity(data.len() + 1);
    let (mut i, mut fuel) = (0usize, fuel);
    while fuel > 0 && i < data.len() {
        starts.push(i);
        i = (i + utf8_len(data[i])).min(data.len());
        fuel -= 1;
    }
    starts.push(i);
    starts
}

/// Length of the longest run of code points satisfying `pred` from `i`.
/// Lean: `Bpe.Unicode.PreTokenize.runLength`.
#[inline]
pub fn run_length(pred: impl Fn(u32) -> bool, cps: &[u32], i: usize) -> usize {
    let mut j = i;
    while j < cps.len() && pred(cps[j]) {
        j += 1;
    }
    j.saturating_sub(i)
}

/// Where the code points after the first `n` from `i` start (never past the end).
/// Lean: `Bpe.Unicode.PreTokenize.dropCodePoints`.
#[inline]
pub fn drop_code_points(n: usize, cps: &[u32], i: usize) -> usize {
    (i + n).min(cps.len())
}

/// Whether the `n` code points from `i` are all there is.
/// Lean: `Bpe.Unicode.PreTokenize.reachesEnd`.
#[inline]
pub fn reaches_end(n: usize, cps: &[u32], i: usize) -> bool {
    drop_code_points(n, cps, i) == cps.len()
}

/// `[\r\n]`.  Lean: `Bpe.Unicode.PreTokenize.isNewline`.
#[inline]
pub fn is_newline(c: u32) -> bool {
    c == 10 || c == 13
}

/// `[^\r\n\p{L}\p{N}]`.  Lean: `Bpe.Unicode.PreTokenize.isWordLead` (one table word below
/// U+10000).
#[inline]
pub fn is_word_lead(c: u32) -> bool {
    match bmp_bits(c) {
        Some(bits) => !is_newline(c) && bits & (L_BIT | N_BIT) == 0,
        None => !is_newline(c) && !is_l(c) && !is_n(c),
    }
}

/// `[^\s\p{L}\p{N}]`.  Lean: `Bpe.Unicode.PreTokenize.isPunct` (one table word below
/// U+10000).
#[inline]
pub fn is_punct(c: u32) -> bool {
    match bmp_bits(c) {
        Some(bits) => bits & (WHITE_SPACE_BIT | L_BIT | N_BIT) == 0,
        None => !is_white_space(c) && !is_l(c) && !is_n(c),
    }
}

/// Case folding of the contraction letters as tiktoken's `(?i:...)` sees them: `A-Z` to
/// `a-z` and U+017F (long s) to `s`.  Lean: `Bpe.Unicode.PreTokenize.foldCase`.
#[inline]
pub fn fold_case(c: u32) -> u32 {
    if (65..=90).contains(&c) {
        c + 32
    } else if c == 0x17F {
        115
    } else {
        c
    }
}

/// `'(?i:[sdmt]|ll|ve|re)`, the same set as o200k's `(?i:'s|'t|'re|'ve|'m|'ll|'d)`.
/// Lean: `Bpe.Unicode.PreTokenize.matchContraction`.
pub fn match_contraction(cps: &[u32], i: usize) -> usize {
    if i + 1 < cps.len() && cps[i] == 39 {
        let c = fold_case(cps[i + 1]);
        if matches!(c, 115 | 100 | 109 | 116) {
            return 2; // s d m t
        }
        if i + 2 < cps.len() {
            let d = fold_case(cps[i + 2]);
            if matches!((c, d), (108, 108) | (118, 101) | (114, 101)) {
                return 3; // ll ve re
            }
        }
    }
    0
}

/// `\p{N}{1,3}`.  Lean: `Bpe.Unicode.PreTokenize.matchDigits`.
pub fn match_digits(cps: &[u32], i: usize) -> usize {
    run_length(is_n, cps, i).min(3)
}

/// One past the last newline among the `n` code points from `i`, or 0 if none.
/// Lean: `Bpe.Unicode.PreTokenize.lastNewlineEnd`.
pub fn last_newline_end(n: usize, cps: &[u32], i: usize) -> usize {
    let mut end = 0;
    for k in 0..n.min(cps.len().saturating_sub(i)) {
        if is_newline(cps[i + k]) {
            end = k + 1;
        }
    }
    end
}

/// `\s*[\r\n]` (and o200k's `\s*[\r\n]+`, same length): the longest whitespace prefix ending
/// in a newline.  Lean: `Bpe.Unicode.PreTokenize.matchNewlineWs`.
pub fn match_newline_ws(cps: &[u32], i: usize) -> usize {
    last_newline_end(run_length(is_white_space, cps, i), cps, i)
}

/// `\s+(?!\S)`: the whole run at the end of the text, otherwise the run minus its last code
/// point (0 for a run of 1).  Lean: `Bpe.Unicode.PreTokenize.matchTrailingWs`.
pub fn match_trailing_ws(cps: &[u32], i: usize) -> usize {
    let w = run_length(is_white_space, cps, i);
    if w == 0 {
        0
    } else if reaches_end(w, cps, i) {
        w
    } else {
        w - 1
    }
}

/// `\s+`.  Lean: `Bpe.Unicode.PreTokenize.matchWs`.
pub fn match_ws(cps: &[u32], i: usize) -> usize {
    run_length(is_white_space, cps, i)
}

/// The splitting loop: `next_len` code points (at least 1) make the next chunk; `emit` gets
/// each chunk as a byte range of the data.  Lean: `Bpe.Unicode.PreTokenize.splitUnits` (a
/// callback instead of a list of chunks, so a caller can merge each chunk as it comes).
pub fn split_units(
    next_len: fn(&[u32], usize) -> usize,
    fuel: usize,
    data: &[u8],
    starts: &[usize],
    mut emit: impl FnMut(std::ops::Range<usize>),
) {
    let units = starts.len() - 1;
    let cps: Vec<u32> = (0..units)
        .map(|k| unit_code_point(&data[starts[k]..starts[k + 1]]))
        .collect();
    let (mut i, mut fuel) = (0usize, fuel);
    while fuel > 0 && i < units {
        let n = first_match_len(next_len(&cps, i));
        let j = (i + n).min(units);
        emit(starts[i]..starts[j]);
        i = j;
        fuel -= 1;
    }
}

/// A chunk has at least one code point (`firstMatch` returns 1 when no branch matches; the
/// `next_chunk_len` functions already do, this guards the loop's progress).
#[inline]
fn first_match_len(n: usize) -> usize {
    n.max(1)
}

/// Pre-tokenize `data` with the chunk-length function of a pattern, giving each chunk to
/// `emit`.  Lean: `Bpe.Unicode.PreTokenize.preTokenizeWith`; its chunks concatenate back to
/// `data` (`flatten_preTokenizeWith`) and none is empty (`ne_nil_of_mem_preTokenizeWith`).
pub fn pre_tokenize_with(
    next_len: fn(&[u32], usize) -> usize,
    data: &[u8],
    emit: impl FnMut(std::ops::Range<usize>),
) {
    let starts = utf8_units(data.len(), data);
    split_units(next_len, starts.len() - 1, data, &starts, emit);
}

/// The first non-zero length of `lens` (evaluated lazily), else 1.
/// Lean: `Bpe.Seed.PreTokenize.firstMatch`.
#[macro_export]
macro_rules! first_match {
    ($($len:expr),+ $(,)?) => {{
        let mut n = 0usize;
        $( if n == 0 { n = $len; } )+
        if n == 0 { 1 } else { n }
    }};
}
