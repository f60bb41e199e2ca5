//! The Llama 3 pre-tokenizers over Unicode (llama.cpp's `llama-bpe`, Meta's `tokenizer.model`).
//!
//! Lean: `Bpe.Unicode.Llama3`; Python mirror: `verified_bpe.spec.unicode.llama3`.  The
//! branches of `LLAMA3_PATTERN`, in the pattern's order:
//!
//! ```text
//! (?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])   match_contraction  (ASCII pairs)
//! [^\r\n\p{L}\p{N}]?\p{L}+                                    match_word         (cl100k's)
//! \p{N}{1,3}                                                  match_digits       (shared)
//!  ?[^\s\p{L}\p{N}]+[\r\n]*                                   match_punct        (cl100k's)
//! \s*[\r\n]+                                                  match_newline_ws   (shared)
//! \s+(?!\S)                                                   match_trailing_ws  (shared)
//! \s+                                                         match_ws           (shared)
//! ```
//!
//! Meta's pattern (`pat_str` of Meta's `llama/tokenizer.py`, `LLAMA3_META_PATTERN`) differs
//! only in the first branch, `(?i:'s|'t|'re|'ve|'m|'ll|'d)`: o200k's case-folding
//! [`pretokenize::match_contraction`] (`'ſ`, U+017F, is a contraction there).

use super::cl100k::{match_punct, match_word};
use super::pretokenize::{
    self, match_digits, match_newline_ws, match_trailing_ws, match_ws, pre_tokenize_with,
};
use crate::first_match;

/// The code point at `i` is `a` or `b` (false at the end).  Lean: `Bpe.Unicode.Llama3.headIs`.
pub fn head_is(a: u32, b: u32, cps: &[u32], i: usize) -> bool {
    i < cps.len() && (cps[i] == a || cps[i] == b)
}

/// `(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])`: ASCII case pairs only.
/// Lean: `Bpe.Unicode.Llama3.matchContraction`.
pub fn match_contraction(cps: &[u32], i: usize) -> usize {
    if i + 1 >= cps.len() || cps[i] != 39 {
        return 0;
    }
    match cps[i + 1] {
        115 | 83 | 116 | 84 => 2,
        114 | 82 | 118 | 86 if head_is(101, 69, cps, i + 2) => 3,
        109 | 77 => 2,
        108 | 76 if head_is(108, 76, cps, i + 2) => 3,
        100 | 68 => 2,
        _ => 0,
    }
}

/// Length (code points) of the chunk at `i` under a Llama 3 pattern whose first branch is
/// `contraction`: the first branch that matches (evaluated lazily), else 1.
/// Lean: `Bpe.Unicode.Llama3.nextChunkLenWith`.
#[inline]
pub fn next_chunk_len_with(
    contraction: impl Fn(&[u32], usize) -> usize,
    cps: &[u32],
    i: usize,
) -> usize {
    first_match!(
        contraction(cps, i),
        match_word(cps, i),
        match_digits(cps, i),
        match_punct(cps, i),
        match_newline_ws(cps, i),
        match_trailing_ws(cps, i),
        match_ws(cps, i),
    )
}

/// llama.cpp's machine (ASCII-pair contractions).  Lean: `Bpe.Unicode.Llama3.nextChunkLen`.
pub fn next_chunk_len(cps: &[u32], i: usize) -> usize {
    next_chunk_len_with(match_contraction, cps, i)
}

/// Meta's machine (`(?i:…)` contractions).  Lean: `Bpe.Unicode.Llama3.nextChunkLenMeta`.
pub fn next_chunk_len_meta(cps: &[u32], i: usize) -> usize {
    next_chunk_len_with(pretokenize::match_contraction, cps, i)
}

/// The Llama 3 pre-tokenizer on bytes, each chunk given to `emit` as a byte range.
/// Lean: `Bpe.Unicode.Llama3.preTokenizeLlama3` (chunks concatenate back to `data`:
/// `flatten_preTokenizeLlama3`; none is empty: `ne_nil_of_mem_preTokenizeLlama3`).
pub fn pre_tokenize_llama3(data: &[u8], emit: impl FnMut(std::ops::Range<usize>)) {
    pre_tokenize_with(next_chunk_len, data, emit)
}

/// Meta's Llama 3 pre-tokenizer on bytes.  Lean: `Bpe.preTokenizeLlama3Meta` (chunks
/// concatenate back to `data`: `flatten_preTokenizeLlama3Meta`).
pub fn pre_tokenize_llama3_meta(data: &[u8], emit: impl FnMut(std::ops::Range<usize>)) {
    pre_tokenize_with(next_chunk_len_meta, data, emit)
}
