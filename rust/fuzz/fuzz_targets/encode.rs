//! cargo-fuzz target: [`check::check`] on every input (what it checks: `check.rs`, and
//! docs/fuzzing.md). `cargo test` in the engine crate runs the same checks on fixed inputs
//! (`rust/tests/fuzz_check.rs`), so the checks are compiled and run by `make test`.
#![no_main]
#![forbid(unsafe_code)]

#[path = "check.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|input: &[u8]| check::check(input));
