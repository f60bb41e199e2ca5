//! The cl100k_base pre-tokenizer over Unicode, as tiktoken 0.14 ships it.
//!
//! Lean: `Bpe.Unicode.Cl100k`; Python mirror: `verified_bpe.spec.unicode.cl100k`.  The
//! branches, in the pattern's order:
//!
//! ```text
//! '(?i:[sdmt]|ll|ve|re)              match_contraction   (shared)
//! [^\r\n\p{L}\p{N}]?+\p{L}++         match_word
//! \p{N}{1,3}+                        match_digits        (shared)
//!  ?[^\s\p{L}\p{N}]++[\r\n]*+        match_punct
//! \s++$                              match_end_ws
//! \s*[\r\n]                          match_newline_ws    (shared)
//! \s+(?!\S)                          match_trailing_ws   (shared)
//! \s                                 match_one_ws
//! ```

use super::pretokenize::{
    drop_code_points, is_newline, is_punct, is_word_lead, match_contraction, match_digits,
    match_newline_ws, match_trailing_ws, pre_tokenize_with, reaches_end, run_length,
};
use super::tables::{is_l, is_white_space};
use crate::first_match;

/// `[^\r\n\p{L}\p{N}]?+\p{L}++`.  Lean: `Bpe.Unicode.Cl100k.matchWord`.
pub fn match_word(cps: &[u32], i: usize) -> usize {
    if i >= cps.len() {
        return 0;
    }
    let c = cps[i];
    if is_l(c) {
        return run_length(is_l, cps, i);
    }
    if is_word_lead(c) {
        let n = run_length(is_l, cps, i + 1);
        return if n == 0 { 0 } else { n + 1 };
    }
    0
}

/// `[^\s\p{L}\p{N}]++[\r\n]*+`: 0 unless at least one punctuation code point.
/// Lean: `Bpe.Unicode.Cl100k.punctTail`.
pub fn punct_tail(cps: &[u32], i: usize) -> usize {
    let n = run_length(is_punct, cps, i);
    if n == 0 {
        0
    } else {
        n + run_length(is_newline, cps, drop_code_points(n, cps, i))
    }
}

/// ` ?[^\s\p{L}\p{N}]++[\r\n]*+`.  Lean: `Bpe.Unicode.Cl100k.matchPunct`.
pub fn match_punct(cps: &[u32], i: usize) -> usize {
    if i >= cps.len() {
        return 0;
    }
    if cps[i] == 32 {
        let n = punct_tail(cps, i + 1);
        return if n == 0 { 0 } else { n + 1 };
    }
    punct_tail(cps, i)
}

/// `\s++$`: a whitespace run that reaches the end of the text.
/// Lean: `Bpe.Unicode.Cl100k.matchEndWs`.
pub fn match_end_ws(cps: &[u32], i: usize) -> usize {
    let w = run_length(is_white_space, cps, i);
    if reaches_end(w, cps, i) {
        w
    } else {
        0
    }
}

/// `\s`.  Lean: `Bpe.Unicode.Cl100k.matchOneWs`.
pub fn match_one_ws(cps: &[u32], i: usize) -> usize {
    usize::from(i < cps.len() && is_white_space(cps[i]))
}

/// Length (code points) of the chunk at `i`: the first branch that matches (evaluated
/// lazily), else 1.  Lean: `Bpe.Unicode.Cl100k.nextChunkLen`.
pub fn next_chunk_len(cps: &[u32], i: usize) -> usize {
    first_match!(
        match_contraction(cps, i),
        match_word(cps, i),
        match_digits(cps, i),
        match_punct(cps, i),
        match_end_ws(cps, i),
        match_newline_ws(cps, i),
        match_trailing_ws(cps, i),
        match_one_ws(cps, i),
    )
}

/// The cl100k_base pre-tokenizer on bytes, each chunk given to `emit` as a byte range.
/// Lean: `Bpe.Unicode.Cl100k.preTokenizeCl100k` (chunks concatenate back to `data`:
/// `flatten_preTokenizeCl100k`; none is empty: `ne_nil_of_mem_preTokenizeCl100k`).
pub fn pre_tokenize_cl100k(data: &[u8], emit: impl FnMut(std::ops::Range<usize>)) {
    pre_tokenize_with(next_chunk_len, data, emit)
}
