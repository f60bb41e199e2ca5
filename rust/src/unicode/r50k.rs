//! The r50k_base pre-tokenizer (GPT-2's pattern) over Unicode, as tiktoken 0.14 ships it.
//!
//! Lean: `Bpe.Unicode.R50k`; Python mirror: `verified_bpe.spec.unicode.r50k`.  The branches
//! of `r50k_pat_str` (encodings gpt2, r50k_base, p50k_base, p50k_edit), in the pattern's order:
//!
//! ```text
//! '(?:[sdmt]|ll|ve|re)               match_contraction   (case-sensitive)
//!  ?\p{L}++                          match_space_run(is_l)
//!  ?\p{N}++                          match_space_run(is_n)
//!  ?[^\s\p{L}\p{N}]++                match_space_run(is_punct)
//! \s++$                              match_end_ws        (cl100k's)
//! \s+(?!\S)                          match_trailing_ws   (shared)
//! \s                                 match_one_ws        (cl100k's)
//! ```

use super::cl100k::{match_end_ws, match_one_ws};
use super::pretokenize::{is_punct, match_trailing_ws, pre_tokenize_with, run_length};
use super::tables::{is_l, is_n};
use crate::first_match;

/// `'(?:[sdmt]|ll|ve|re)`: an apostrophe, then `s d m t` or `ll ve re` (case matters).
/// Lean: `Bpe.Unicode.R50k.matchContraction`.
pub fn match_contraction(cps: &[u32], i: usize) -> usize {
    if i + 1 < cps.len() && cps[i] == 39 {
        let c = cps[i + 1];
        if matches!(c, 115 | 100 | 109 | 116) {
            return 2;
        }
        if i + 2 < cps.len() && matches!((c, cps[i + 2]), (108, 108) | (118, 101) | (114, 101)) {
            return 3;
        }
    }
    0
}

/// ` ?X++` for a class `X` (`pred`) without the space: the space and the run after it if that
/// run is not empty, else the run at `i`.  Lean: `Bpe.Unicode.R50k.matchSpaceRun`.
pub fn match_space_run(pred: impl Fn(u32) -> bool, cps: &[u32], i: usize) -> usize {
    if i >= cps.len() {
        return 0;
    }
    if cps[i] == 32 {
        let n = run_length(pred, cps, i + 1);
        return if n == 0 { 0 } else { n + 1 };
    }
    run_length(pred, cps, i)
}

/// Length (code points) of the chunk at `i`: the first branch that matches (evaluated
/// lazily), else 1.  Lean: `Bpe.Unicode.R50k.nextChunkLen`.
pub fn next_chunk_len(cps: &[u32], i: usize) -> usize {
    first_match!(
        match_contraction(cps, i),
        match_space_run(is_l, cps, i),
        match_space_run(is_n, cps, i),
        match_space_run(is_punct, cps, i),
        match_end_ws(cps, i),
        match_trailing_ws(cps, i),
        match_one_ws(cps, i),
    )
}

/// The r50k_base pre-tokenizer on bytes, each chunk given to `emit` as a byte range.
/// Lean: `Bpe.Unicode.R50k.preTokenizeR50k` (chunks concatenate back to `data`:
/// `flatten_preTokenizeR50k`; none is empty: `ne_nil_of_mem_preTokenizeR50k`).
pub fn pre_tokenize_r50k(data: &[u8], emit: impl FnMut(std::ops::Range<usize>)) {
    pre_tokenize_with(next_chunk_len, data, emit)
}
