//! The o200k_base pre-tokenizer over Unicode.
//!
//! Lean: `Bpe.Unicode.O200k`; Python mirror: `verified_bpe.spec.unicode.o200k`.  With
//! `U = [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`, `W = [\p{Ll}\p{Lm}\p{Lo}\p{M}]` and
//! `C = (?i:'s|'t|'re|'ve|'m|'ll|'d)`, the branches in the pattern's order:
//!
//! ```text
//! [^\r\n\p{L}\p{N}]?U*W+C?           match_word_cased
//! [^\r\n\p{L}\p{N}]?U+W*C?           match_word_upper
//! \p{N}{1,3}                         match_digits        (shared)
//!  ?[^\s\p{L}\p{N}]+[\r\n/]*         match_punct
//! \s*[\r\n]+                         match_newline_ws    (shared)
//! \s+(?!\S)                          match_trailing_ws   (shared)
//! \s+                                match_ws            (shared)
//! ```

use super::pretokenize::{
    drop_code_points, is_punct, is_word_lead, match_contraction, match_digits, match_newline_ws,
    match_trailing_ws, match_ws, pre_tokenize_with, run_length,
};
use super::tables::{
    bmp_bits, is_ll, is_lm, is_lo, is_lt, is_lu, is_m, LL_BIT, LM_BIT, LO_BIT, LT_BIT, LU_BIT,
    M_BIT,
};
use crate::first_match;

/// `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`.  Lean: `Bpe.Unicode.O200k.isUpperClass` (below
/// U+10000 the five bits are read from one word of the class table).
#[inline]
pub fn is_upper_class(c: u32) -> bool {
    match bmp_bits(c) {
        Some(bits) => bits & (LU_BIT | LT_BIT | LM_BIT | LO_BIT | M_BIT) != 0,
        None => is_lu(c) || is_lt(c) || is_lm(c) || is_lo(c) || is_m(c),
    }
}

/// `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`.  Lean: `Bpe.Unicode.O200k.isLowerClass` (one table word
/// below U+10000).
#[inline]
pub fn is_lower_class(c: u32) -> bool {
    match bmp_bits(c) {
        Some(bits) => bits & (LL_BIT | LM_BIT | LO_BIT | M_BIT) != 0,
        None => is_ll(c) || is_lm(c) || is_lo(c) || is_m(c),
    }
}

/// One past the last `W` code point among the `n` from `i`, or 0 if none.
/// Lean: `Bpe.Unicode.O200k.lastLowerEnd`.
pub fn last_lower_end(n: usize, cps: &[u32], i: usize) -> usize {
    let mut end = 0;
    for k in 0..n.min(cps.len().saturating_sub(i)) {
        if is_lower_class(cps[i + k]) {
            end = k + 1;
        }
    }
    end
}

/// `U*W+`: length of its first match at `i` in backtracking order, 0 if none.
/// Lean: `Bpe.Unicode.O200k.casedCore`.
pub fn cased_core(cps: &[u32], i: usize) -> usize {
    let u = run_length(is_upper_class, cps, i);
    let w = run_length(is_lower_class, cps, drop_code_points(u, cps, i));
    if w != 0 {
        u + w
    } else {
        last_lower_end(u, cps, i)
    }
}

/// `U+W*`: the `U` run (at least one) then the `W` run, 0 if no `U`.
/// Lean: `Bpe.Unicode.O200k.upperCore`.
pub fn upper_core(cps: &[u32], i: usize) -> usize {
    let u = run_length(is_upper_class, cps, i);
    if u == 0 {
        0
    } else {
        u + run_length(is_lower_class, cps, drop_code_points(u, cps, i))
    }
}

/// `[^\r\n\p{L}\p{N}]?` before `core`: with the lead if that matches, else without.
/// Lean: `Bpe.Unicode.O200k.withLead`.
pub fn with_lead(core: fn(&[u32], usize) -> usize, cps: &[u32], i: usize) -> usize {
    if i < cps.len() && is_word_lead(cps[i]) {
        let n = core(cps, i + 1);
        if n != 0 {
            return n + 1;
        }
    }
    core(cps, i)
}

/// A word of length `n` at `i` followed by `C?`; 0 stays 0.
/// Lean: `Bpe.Unicode.O200k.withContraction`.
pub fn with_contraction(n: usize, cps: &[u32], i: usize) -> usize {
    if n == 0 {
        0
    } else {
        n + match_contraction(cps, drop_code_points(n, cps, i))
    }
}

/// `[^\r\n\p{L}\p{N}]?U*W+C?`.  Lean: `Bpe.Unicode.O200k.matchWordCased`.
pub fn match_word_cased(cps: &[u32], i: usize) -> usize {
    with_contraction(with_lead(cased_core, cps, i), cps, i)
}

/// `[^\r\n\p{L}\p{N}]?U+W*C?`.  Lean: `Bpe.Unicode.O200k.matchWordUpper`.
pub fn match_word_upper(cps: &[u32], i: usize) -> usize {
    with_contraction(with_lead(upper_core, cps, i), cps, i)
}

/// `[\r\n/]`.  Lean: `Bpe.Unicode.O200k.isPunctTail`.
#[inline]
pub fn is_punct_tail(c: u32) -> bool {
    c == 10 || c == 13 || c == 47
}

/// ` ?[^\s\p{L}\p{N}]+[\r\n/]*`.  Lean: `Bpe.Unicode.O200k.matchPunct`.
pub fn match_punct(cps: &[u32], i: usize) -> usize {
    let lead = usize::from(i < cps.len() && cps[i] == 32);
    let n = run_length(is_punct, cps, drop_code_points(lead, cps, i));
    if n == 0 {
        return 0;
    }
    lead + n + run_length(is_punct_tail, cps, drop_code_points(lead + n, cps, i))
}

/// Length (code points) of the chunk at `i`: the first branch that matches, else 1.
/// Lean: `Bpe.Unicode.O200k.nextChunkLen`.
pub fn next_chunk_len(cps: &[u32], i: usize) -> usize {
    first_match!(
        match_word_cased(cps, i),
        match_word_upper(cps, i),
        match_digits(cps, i),
        match_punct(cps, i),
        match_newline_ws(cps, i),
        match_trailing_ws(cps, i),
        match_ws(cps, i),
    )
}

/// The o200k_base pre-tokenizer on bytes, each chunk given to `emit` as a byte range.
/// Lean: `Bpe.Unicode.O200k.preTokenizeO200k` (chunks concatenate back to `data`:
/// `flatten_preTokenizeO200k`; none is empty: `ne_nil_of_mem_preTokenizeO200k`).
pub fn pre_tokenize_o200k(data: &[u8], emit: impl FnMut(std::ops::Range<usize>)) {
    pre_tokenize_with(next_chunk_len, data, emit)
}
