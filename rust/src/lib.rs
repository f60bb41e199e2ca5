//! verified-bpe's native engine: the proven pre-tokenizers of cl100k_base and o200k_base
//! (Lean `Bpe.Unicode`, mirrored function by function in [`unicode`]) and tiktoken's rank BPE
//! (Lean `Bpe.Ranks`, in [`ranks`]), with PyO3 bindings (module `verified_bpe._native`).
//!
//! No `unsafe` anywhere in the crate (`forbid` below).
#![forbid(unsafe_code)]

pub mod engine;
pub mod merges;
pub mod ranks;
pub mod unicode;

#[cfg(feature = "python")]
mod python;
