//! The fuzz target's checks (`fuzz/fuzz_targets/check.rs`) on fixed inputs, so that
//! `cargo test` compiles and runs them (the fuzz crate itself needs cargo-fuzz and nightly
//! flags, and `make test` does not build it):
//!
//! * synthetic tables with repeated ranks (first byte's bit 1): scan, heap, buckets and the
//!   long-run path against the definition, on 3,000 pseudo-random inputs;
//! * cl100k_base and o200k_base (first byte's bit 0), when `$VBPE_FUZZ_VOCAB` names the
//!   folder of their hex tables (`tests/test_crate.py` writes them; docs/fuzzing.md): the
//!   pre-tokenizer, the fast paths, every merge and the run path on 2,000 pseudo-random texts
//!   mixing ASCII code, letters, digits, spaces, other scripts, emoji and invalid UTF-8.
#![forbid(unsafe_code)]

#[path = "../fuzz/fuzz_targets/check.rs"]
mod check;

/// xorshift64: the same inputs on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn synthetic_tables() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..3000 {
        let len = 1 + rng.below(200);
        let mut input: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        input[0] |= 2;
        check::check(&input);
    }
}

/// Pieces a text is drawn from: code, prose, digits, whitespace runs, other scripts, emoji,
/// contractions and bytes that are not UTF-8 (a lone continuation, a cut sequence, an
/// overlong encoding, a surrogate).
const PARTS: &[&[u8]] = &[
    b"fn main() {",
    b"    let x = 1;",
    b"\n",
    b"\r\n",
    b"  ",
    b"\t",
    b" the",
    b"Hello",
    b" world",
    b"'s",
    b"'LL",
    b"12345",
    b" 3.14",
    b"!!",
    b"==>",
    "\u{a0}".as_bytes(),
    " caf\u{e9}".as_bytes(),
    " \u{41f}\u{440}\u{438}\u{432}\u{435}\u{442}".as_bytes(),
    "\u{4f60}\u{597d}".as_bytes(),
    "\u{1f600}".as_bytes(),
    "\u{301}".as_bytes(),
    b"\x80",
    b"\xe2\x82",
    b"\xc0\xaf",
    b"\xed\xa0\x80",
];

#[test]
fn real_tables() {
    if std::env::var_os("VBPE_FUZZ_VOCAB").is_none() {
        eprintln!("real_tables: $VBPE_FUZZ_VOCAB not set, skipped (tests/test_crate.py sets it)");
        return;
    }
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for k in 0..2000 {
        let mut input = vec![(k % 2) as u8];
        for _ in 0..rng.below(40) {
            let part = PARTS[rng.below(PARTS.len())];
            for _ in 0..1 + rng.below(3) {
                input.extend_from_slice(part);
            }
        }
        check::check(&input);
    }
}
