//! A timing harness for the single-threaded encode (not a test): `cargo run --release
//! --no-default-features --example encode_timing -- RANKS.hex NAME TEXT [REPEAT]`, where
//! RANKS.hex has one `hex-bytes rank` line per token and NAME is `cl100k_base` or
//! `o200k_base`.  Prints the best CPU time of the split alone (and of the mirror alone) and of the whole encode.
/// CPU nanoseconds of this thread so far (`/proc/thread-self/schedstat`: steady on a loaded
/// machine, unlike the wall clock).
fn cpu() -> f64 {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").expect("schedstat");
    s.split_whitespace()
        .next()
        .expect("field")
        .parse::<f64>()
        .expect("ns")
        / 1e9
}
use _native::engine::{Engine, PreTokenizer};
use _native::ranks::RankMap;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let table = std::fs::read_to_string(&args[1]).expect("ranks");
    let mut ranks = RankMap::default();
    for line in table.lines() {
        let (hex, rank) = line.split_once(' ').expect("line");
        let bytes = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex"))
            .collect();
        ranks.insert(bytes, rank.parse().expect("rank"));
    }
    let pre = PreTokenizer::by_name(&args[2]).expect("name");
    let text = std::fs::read(&args[3]).expect("text");
    let repeat: usize = args.get(4).map_or(5, |r| r.parse().expect("repeat"));
    let mb = text.len() as f64 / 1e6;
    // each timing covers `inner` passes, so that it spans many scheduler ticks
    let inner = (4_000_000 / text.len().max(1)).max(1);
    let engine = Engine::new(ranks, Some(pre), None);
    let (mut split, mut mirror, mut whole) = (f64::MAX, f64::MAX, f64::MAX);
    let mut chunks = 0;
    let mut ids = 0;
    for _ in 0..repeat {
        let start = cpu();
        for _ in 0..inner {
            chunks = 0;
            pre.split(&text, |_| chunks += 1);
        }
        split = split.min((cpu() - start) / inner as f64);
        let start = cpu();
        for _ in 0..inner {
            pre.split_mirror(&text, |_| ());
        }
        mirror = mirror.min((cpu() - start) / inner as f64);
        let start = cpu();
        for _ in 0..inner {
            ids = engine.encode_ordinary(pre, &text).expect("ranks").len();
        }
        whole = whole.min((cpu() - start) / inner as f64);
    }
    println!(
        "{} {}: {chunks} chunks, {ids} ids; split {:.1} MB/s (mirror {:.1}), encode {:.1} MB/s",
        args[2],
        args[3],
        mb / split,
        mb / mirror,
        mb / whole
    );
}
