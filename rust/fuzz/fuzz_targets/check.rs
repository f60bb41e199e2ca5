//! The checks of the fuzz target `encode` (`fuzz_targets/encode.rs`): the native engine's entry points on arbitrary input, with cl100k_base's and o200k_base's
//! rank tables (read from `$VBPE_FUZZ_VOCAB`, written by the command in docs/fuzzing.md):
//!
//! * the pre-tokenizer's chunks partition the input (consecutive, non-empty, covering it),
//!   on any bytes, invalid UTF-8 included (Lean: `flatten_preTokenizeCl100k` and friends),
//!   and the byte-level fast path's chunks are the mirror's;
//! * `Engine::encode_ordinary` never panics, its ids decode back to the input bytes, and they
//!   are the mirror's chunks each merged by `bpe_heap` (so the byte-level fast path, the piece
//!   memos, the pair table and the rank index are checked against code that uses none of
//!   them); the rank index looks up every substring of up to 40 bytes as the table does;
//! * the merge algorithms (`bpe_scan`, `bpe_heap`, `bpe_buckets`, and `bpe_ranks_with` with
//!   the rank index) give the same ids on the input as one piece;
//! * the long-run path (`bpe_run`) on a run built from the input (run byte, length from
//!   1024 up to 4095, up to 8 bytes on either side): when it pumps, the heap's ids;
//! * on valid UTF-8, the fancy-regex split of GPT-2's pattern partitions the text too, and
//!   `Engine::encode_ordinary_regex` round-trips.
//!
//! With the first input byte's bit 1 set, a synthetic table instead ([`synthetic`]): tokens
//! over `a` and `b` drawn from the input with ranks that repeat, where `bpe_scan`,
//! `bpe_heap`, `bpe_buckets` and `bpe_run` must give the definition's ids (lowest rank, then
//! leftmost: Lean `Bpe.bytePairMerge`, for every table).
//!
//! The first input byte picks the encoding (bit 0) or the synthetic table (bit 1); the rest
//! is the text.
#![forbid(unsafe_code)]

use _native::engine::{Engine, PreTokenizer};
use _native::ranks::{bpe_buckets, bpe_heap, bpe_ranks_with, bpe_run, bpe_scan, RankMap, LONG_RUN};
use std::sync::OnceLock;

const GPT2: &str = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+";

struct Table {
    engine: Engine,
    decoder: Vec<Vec<u8>>,
}

fn hex_bytes(hex: &str) -> Vec<u8> {
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex"))
        .collect()
}

/// `$VBPE_FUZZ_VOCAB/<name>.hex`: one `<hex bytes> <rank>` line per token.
fn load(name: &str, pre: PreTokenizer) -> Table {
    let dir = std::env::var("VBPE_FUZZ_VOCAB").expect("set VBPE_FUZZ_VOCAB (docs/fuzzing.md)");
    let text = std::fs::read_to_string(format!("{dir}/{name}.hex")).expect("vocabulary file");
    let mut ranks = RankMap::default();
    let mut decoder = Vec::new();
    for line in text.lines() {
        let (hex, rank) = line.split_once(' ').expect("line");
        let (bytes, rank) = (hex_bytes(hex), rank.parse::<u32>().expect("rank"));
        if decoder.len() <= rank as usize {
            decoder.resize(rank as usize + 1, Vec::new());
        }
        decoder[rank as usize] = bytes.clone();
        ranks.insert(bytes, rank);
    }
    let regex = fancy_regex::Regex::new(GPT2).ok();
    Table {
        engine: Engine::new(ranks, Some(pre), regex),
        decoder,
    }
}

fn tables() -> &'static [Table; 2] {
    static TABLES: OnceLock<[Table; 2]> = OnceLock::new();
    TABLES.get_or_init(|| {
        [
            load("cl100k_base", PreTokenizer::Cl100k),
            load("o200k_base", PreTokenizer::O200k),
        ]
    })
}

/// A table from the input: every byte at its own rank, then one token per input byte up to
/// the first zero byte (at most 12): `2 + (x & 3)` letters `a`/`b` from bits 2..5 of `x`, rank
/// `256 + (x >> 6)` (so ranks repeat); and the rest of the input as a text over `a`/`b` (bit 0
/// of each byte).
fn synthetic(data: &[u8]) -> (RankMap, Vec<u8>) {
    let mut ranks: RankMap = (0..=255u8).map(|b| (vec![b], u32::from(b))).collect();
    let cut = data
        .iter()
        .take(12)
        .position(|&x| x == 0)
        .unwrap_or(data.len().min(12));
    for &x in &data[..cut] {
        let token: Vec<u8> = (0..2 + usize::from(x & 3))
            .map(|k| if x >> (2 + k) & 1 == 0 { b'a' } else { b'b' })
            .collect();
        ranks.insert(token, 256 + u32::from(x >> 6));
    }
    let text = data[cut..].iter().map(|&x| b'a' + (x & 1)).collect();
    (ranks, text)
}

/// Rank BPE by its definition: merge the lowest-rank adjacent pair, the leftmost of equal
/// ranks, until no pair has a rank (quadratic; Lean `Bpe.bytePairMerge`).
fn definition(ranks: &RankMap, piece: &[u8]) -> Vec<u32> {
    let mut parts: Vec<&[u8]> = piece.chunks(1).collect();
    loop {
        let best = (0..parts.len().saturating_sub(1))
            .filter_map(|k| {
                let pair = [parts[k], parts[k + 1]].concat();
                ranks.get(&pair).map(|&r| (r, k))
            })
            .min();
        let Some((_, k)) = best else {
            return parts.iter().map(|p| ranks[*p]).collect();
        };
        let start = parts[k].as_ptr() as usize - piece.as_ptr() as usize;
        parts[k] = &piece[start..start + parts[k].len() + parts[k + 1].len()];
        parts.remove(k + 1);
    }
}

/// The merges and the run path on a [`synthetic`] table.
fn check_synthetic(data: &[u8]) {
    let (ranks, text) = synthetic(data);
    let text = &text[..text.len().min(256)];
    let expected = definition(&ranks, text);
    let (mut scan, mut heap, mut buckets) = (Vec::new(), Vec::new(), Vec::new());
    bpe_scan(&ranks, text, &mut scan).expect("scan");
    bpe_heap(&ranks, text, &mut heap).expect("heap");
    bpe_buckets(&ranks, text, &mut buckets).expect("buckets");
    assert_eq!(scan, expected, "scan merges as the definition");
    assert_eq!(heap, expected, "heap merges as the definition");
    assert_eq!(buckets, expected, "buckets merge as the definition");
    // a run of `a` or `b` (from the text's first letter) with the text's next letters around
    if let [run, hi, edges @ ..] = text {
        let n = LONG_RUN + usize::from(*hi) % 64 + edges.len() % 256;
        let lead = &edges[..edges.len().min(8)];
        let trail = &edges[lead.len()..edges.len().min(16)];
        let mut piece = lead.to_vec();
        piece.resize(lead.len() + n, *run);
        piece.extend_from_slice(trail);
        let (mut pumped, mut heap) = (Vec::new(), Vec::new());
        if bpe_run(&ranks, &piece, &mut pumped).expect("run") {
            bpe_heap(&ranks, &piece, &mut heap).expect("heap");
            assert_eq!(pumped, heap, "the pumped run merges as the heap");
        }
    }
}

fn decode(table: &Table, ids: &[u32]) -> Vec<u8> {
    ids.iter()
        .flat_map(|&id| table.decoder[id as usize].iter().copied())
        .collect()
}

/// Every check above on one input (the fuzz target's body; `rust/tests/fuzz_check.rs` runs it
/// on fixed inputs under `cargo test`).
pub fn check(input: &[u8]) {
    let Some((&pick, data)) = input.split_first() else {
        return;
    };
    if pick & 2 != 0 {
        return check_synthetic(data);
    }
    let table = &tables()[usize::from(pick & 1)];
    let pre = table.engine.pre_tokenizer.expect("pre-tokenizer");

    let mut next = 0;
    pre.split(data, |range| {
        assert_eq!(range.start, next, "chunks are consecutive");
        assert!(range.end > range.start, "chunks are non-empty");
        next = range.end;
    });
    assert_eq!(next, data.len(), "chunks cover the input");
    let (mut fast, mut mirror) = (Vec::new(), Vec::new());
    pre.split(data, |range| fast.push(range));
    pre.split_mirror(data, |range| mirror.push(range));
    assert_eq!(fast, mirror, "the fast path splits as the mirror");

    let ids = table
        .engine
        .encode_ordinary(pre, data)
        .expect("every byte has a rank");
    assert_eq!(
        decode(table, &ids),
        data,
        "encode then decode is the identity"
    );
    // the fast paths (ASCII split, short-piece memo, piece memo, rank index and pair table)
    // against the mirror's chunks each merged by the heap without any of them
    let ranks = &table.engine.ranks;
    let mut spec = Vec::new();
    pre.split_mirror(data, |range| {
        bpe_heap(ranks, &data[range], &mut spec).expect("heap");
    });
    assert_eq!(
        ids, spec,
        "encode_ordinary gives the mirror's chunks' heap merges"
    );
    // the rank index answers as the table on every substring of up to 40 bytes (the inline
    // keys up to 16, the long filter beyond)
    for start in 0..data.len().min(64) {
        for end in start..data.len().min(start + 41) {
            let part = &data[start..end];
            assert_eq!(
                table.engine.index.get(ranks, part),
                ranks.get(part).copied(),
                "the rank index looks up as the table"
            );
        }
    }

    if data.len() <= 4096 {
        let ranks = &table.engine.ranks;
        let (mut scan, mut heap, mut buckets) = (Vec::new(), Vec::new(), Vec::new());
        let mut indexed = Vec::new();
        bpe_scan(ranks, data, &mut scan).expect("scan");
        bpe_ranks_with(ranks, &table.engine.index, data, &mut indexed).expect("indexed");
        bpe_heap(ranks, data, &mut heap).expect("heap");
        bpe_buckets(ranks, data, &mut buckets).expect("buckets");
        assert_eq!(scan, heap, "scan and heap merge alike");
        assert_eq!(scan, buckets, "scan and buckets merge alike");
        assert_eq!(
            scan, indexed,
            "the indexed merge (pair table, inline keys) merges alike"
        );
        assert_eq!(decode(table, &scan), data);
    }

    if let [byte, hi, lo, edges @ ..] = data {
        let n = LONG_RUN + (usize::from(*hi) << 8 | usize::from(*lo)) % 3072;
        let lead = &edges[..edges.len().min(8)];
        let trail = &edges[lead.len()..edges.len().min(16)];
        let mut piece = lead.to_vec();
        piece.resize(lead.len() + n, *byte);
        piece.extend_from_slice(trail);
        let ranks = &table.engine.ranks;
        let (mut pumped, mut heap) = (Vec::new(), Vec::new());
        if bpe_run(ranks, &piece, &mut pumped).expect("run") {
            bpe_heap(ranks, &piece, &mut heap).expect("heap");
            assert_eq!(pumped, heap, "the pumped run merges as the heap");
        }
    }

    if let (Ok(text), Some(regex)) = (std::str::from_utf8(data), &table.engine.regex) {
        let mut next = 0;
        for found in regex.find_iter(text) {
            let found = found.expect("GPT-2's pattern stays within the backtrack limit");
            assert_eq!(found.start(), next, "matches are consecutive");
            next = found.end();
        }
        assert_eq!(next, text.len(), "GPT-2's pattern matches every character");
        let ids = table
            .engine
            .encode_ordinary_regex(regex, text)
            .expect("regex encode");
        assert_eq!(decode(table, &ids), data);
    }
}
