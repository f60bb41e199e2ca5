//! verified-bpe's native engine: the proven pre-tokenizers of cl100k_base and o200k_base
//! (Lean `Bpe.Unicode`, mirrored function by function in [`unicode`]) and tiktoken's rank BPE
//! (Lean `Bpe.Ranks`, in [`ranks`]), with PyO3 bindings (module `verified_bpe._native`).
//!
//! No `unsafe` in the crate (`deny` below) except the one allowed module `buffer_view`
//! (the Python bindings' buffer protocol, two `unsafe` blocks with their SAFETY arguments: the
//! in-place read of Arrow's buffers and the read-only export of one text's ids) and the two allowed functions `unicode::ascii::masks64` and
//! `unicode::ascii::eq_masks` on x86_64 (the calls of their SSE2 byte masks, SSE2 being in the
//! target's baseline); the engine, the rest of the pre-tokenizers and the merge have none.
#![deny(unsafe_code)]

pub mod engine;
pub mod merges;
pub mod ranks;
pub mod shared_memo;
pub mod unicode;

#[cfg(feature = "python")]
#[allow(unsafe_code)]
mod buffer_view;

/// A xorshift64 generator from `seed` (not zero), for the unit tests' pseudo-random inputs.
#[cfg(test)]
pub(crate) fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}
#[cfg(feature = "python")]
mod python;
