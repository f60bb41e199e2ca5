//! Rank BPE of one piece, as tiktoken computes it (proven equal to the seed's merge loop under
//! condition C: Lean `Bpe.Ranks`, `encodeWith_eq_of_checkRanks`).
//!
//! Each step merges the adjacent pair whose concatenation has the lowest rank, the leftmost
//! one on ties; the ids are the ranks of the parts left.  Two algorithms compute it, the same
//! two as the pure-Python engine (`verified_bpe.engine.tokenizer`):
//! * [`bpe_scan`] (pieces below [`LONG_PIECE`] bytes): tiktoken's layout, a vector of parts
//!   with the rank of the pair each one starts, and a linear scan for the minimum per merge;
//! * [`bpe_heap`] (longer pieces): the linked list and heap of `bpe_ranks_heap`, whose
//!   entries are `(rank, start, end)` so that heap order is "lowest rank, leftmost"; an entry
//!   is stale unless `start` is alive and the symbol after it ends at `end`.  O(n log n).

use rustc_hash::FxHashMap;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A rank table: token bytes to rank (= id).
pub type RankMap = FxHashMap<Vec<u8>, u32>;

/// From this many bytes on, [`bpe_ranks`] uses the heap instead of the scan.
pub const LONG_PIECE: usize = 128;

const NONE: u32 = u32::MAX;

/// The bytes of a part that has no rank: a table without all 256 single bytes (tiktoken
/// panics there; the callers raise a typed error naming the piece).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingRank {
    pub part: Vec<u8>,
    pub piece: Vec<u8>,
}

/// The ids of `piece`, appended to `out`.
pub fn bpe_ranks(ranks: &RankMap, piece: &[u8], out: &mut Vec<u32>) -> Result<(), MissingRank> {
    if let Some(&token) = ranks.get(piece) {
        out.push(token);
        return Ok(());
    }
    if piece.len() < LONG_PIECE {
        bpe_scan(ranks, piece, out)
    } else {
        bpe_heap(ranks, piece, out)
    }
}

fn rank_of(ranks: &RankMap, bytes: &[u8]) -> u32 {
    ranks.get(bytes).copied().unwrap_or(NONE)
}

fn push_part(
    ranks: &RankMap,
    piece: &[u8],
    s: usize,
    e: usize,
    out: &mut Vec<u32>,
) -> Result<(), MissingRank> {
    match ranks.get(&piece[s..e]) {
        Some(&token) => {
            out.push(token);
            Ok(())
        }
        None => Err(MissingRank { part: piece[s..e].to_vec(), piece: piece.to_vec() }),
    }
}

/// Rank BPE with a vector of parts and a linear scan per merge (O(n^2), fast on short pieces).
pub fn bpe_scan(ranks: &RankMap, piece: &[u8], out: &mut Vec<u32>) -> Result<(), MissingRank> {
    let n = piece.len();
    // parts[k] = (start of part k, rank of part k joined with part k + 1); the last entry is
    // the end of the piece.
    let mut parts: Vec<(usize, u32)> = (0..=n).map(|s| (s, NONE)).collect();
    for s in 0..n.saturating_sub(1) {
        parts[s].1 = rank_of(ranks, &piece[s..s + 2]);
    }
    let pair_rank = |parts: &[(usize, u32)], k: usize| -> u32 {
        if k + 2 < parts.len() {
            rank_of(ranks, &piece[parts[k].0..parts[k + 2].0])
        } else {
            NONE
        }
    };
    loop {
        let mut best = NONE;
        let mut at = 0;
        for (k, &(_, rank)) in parts[..parts.len() - 1].iter().enumerate() {
            if rank < best {
                best = rank;
                at = k;
            }
        }
        if best == NONE {
            break;
        }
        parts.remove(at + 1);
        parts[at].1 = pair_rank(&parts, at);
        if at > 0 {
            parts[at - 1].1 = pair_rank(&parts, at - 1);
        }
    }
    for w in parts.windows(2) {
        push_part(ranks, piece, w[0].0, w[1].0, out)?;
    }
    Ok(())
}

/// Rank BPE with a linked list and a heap (O(n log n)); the merges of [`bpe_scan`].
pub fn bpe_heap(ranks: &RankMap, piece: &[u8], out: &mut Vec<u32>) -> Result<(), MissingRank> {
    let n = piece.len();
    // nxt[s]: start of the symbol after the one at s; an absorbed start points at n, and
    // nxt[n] = n + 1 is a sentinel, so the liveness test below fails for it and for the last
    // symbol alike.
    let mut nxt: Vec<usize> = (1..=n + 1).collect();
    let mut prv: Vec<usize> = (0..n).map(|s| s.wrapping_sub(1)).collect();
    let mut heap: BinaryHeap<Reverse<(u32, usize, usize)>> = BinaryHeap::new();
    for s in 0..n.saturating_sub(1) {
        let rank = rank_of(ranks, &piece[s..s + 2]);
        if rank != NONE {
            heap.push(Reverse((rank, s, s + 2)));
        }
    }
    while let Some(Reverse((_, start, end))) = heap.pop() {
        let mid = nxt[start];
        if nxt[mid] != end {
            continue; // stale
        }
        nxt[start] = end;
        nxt[mid] = n;
        if end < n {
            prv[end] = start;
            let after = nxt[end];
            let rank = rank_of(ranks, &piece[start..after]);
            if rank != NONE {
                heap.push(Reverse((rank, start, after)));
            }
        }
        let before = prv[start];
        if before != usize::MAX {
            let rank = rank_of(ranks, &piece[before..end]);
            if rank != NONE {
                heap.push(Reverse((rank, before, end)));
            }
        }
    }
    let mut s = 0;
    while s < n {
        let e = nxt[s];
        push_part(ranks, piece, s, e, out)?;
        s = e;
    }
    Ok(())
}
