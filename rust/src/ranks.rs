//! Rank BPE of one piece, as tiktoken computes it (proven equal to the seed's merge loop under
//! condition C: Lean `Bpe.Ranks`, `encodeWith_eq_of_checkRanks`).
//!
//! Each step merges the adjacent pair whose concatenation has the lowest rank, the leftmost
//! one on ties; the ids are the ranks of the parts left.  Two algorithms compute it, the same
//! two as the pure-Python engine (`verified_bpe.engine.tokenizer`):
//! * [`bpe_scan`] (pieces below [`LONG_PIECE`] bytes): tiktoken's layout, a vector of parts
//!   with the rank of the pair each one starts, and a linear scan for the minimum per merge;
//! * [`bpe_buckets`] (longer pieces): the linked list and bucket queue of
//!   `bpe_ranks_buckets`: the pending pairs in one bucket per rank, a heap of the ranks that
//!   have a bucket, a bucket sorted (leftmost first) when it is opened;
//! * [`bpe_heap`], the linked list and heap of `bpe_ranks_heap` (one heap entry per pair),
//!   kept as a second implementation for the tests and the benchmark.
//!
//! In both list forms an entry `(start, end)` is stale unless `start` is alive and the symbol
//! after it ends at `end`; since a rank depends only on the covered bytes, a live entry is
//! exact.  Both are O(n log n).

use rustc_hash::FxHashMap;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A rank table: token bytes to rank (= id).
pub type RankMap = FxHashMap<Vec<u8>, u32>;

/// From this many bytes on, [`bpe_ranks`] uses the bucket queue instead of the scan.
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
        bpe_buckets(ranks, piece, out)
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
        None => Err(MissingRank {
            part: piece[s..e].to_vec(),
            piece: piece.to_vec(),
        }),
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

/// The merges of [`bpe_heap`] with the pending pairs in one bucket per rank (the algorithm of
/// `bpe_ranks_buckets`): a merge cannot create a pair of the rank being processed (the new
/// pair covers strictly more bytes, so it is another token); if it creates a pair of a lower
/// rank, the rest of the bucket is put back and the lower rank is opened first.  Hence pairs
/// are merged in exactly the heap's (rank, start) order, with a heap operation per distinct
/// rank instead of per pair, and sweeps through the piece in order.
///
/// Two savings that do not change the merges: the id of each symbol is kept at its start
/// (`tok`: a merged symbol's id is the rank it was merged at, a single byte's is looked up
/// once per byte value), so the parts are not looked up again at the end; and the vectors of
/// closed buckets are reused for new buckets instead of being freed and allocated again.
pub fn bpe_buckets(ranks: &RankMap, piece: &[u8], out: &mut Vec<u32>) -> Result<(), MissingRank> {
    let n = piece.len();
    assert!(n < u32::MAX as usize, "piece of 4 GiB or more");
    let absorbed = n as u32; // nxt of an absorbed start: the sentinel nxt[n] = n + 1
    let mut nxt: Vec<u32> = (1..=n as u32 + 1).collect();
    let mut prv: Vec<u32> = (0..n as u32).map(|s| s.wrapping_sub(1)).collect();
    let mut byte_rank = [None::<u32>; 256];
    let mut tok: Vec<u32> = piece
        .iter()
        .map(|&b| *byte_rank[b as usize].get_or_insert_with(|| rank_of(ranks, &[b])))
        .collect();
    let pack = |start: u32, end: u32| (u64::from(start) << 32) | u64::from(end);
    let mut buckets: FxHashMap<u32, Vec<u64>> = FxHashMap::default();
    let mut queue: BinaryHeap<Reverse<u32>> = BinaryHeap::new();
    let mut pool: Vec<Vec<u64>> = Vec::new();
    // a pair into the bucket of its rank; true if the bucket is new
    let add = |buckets: &mut FxHashMap<u32, Vec<u64>>,
               queue: &mut BinaryHeap<Reverse<u32>>,
               pool: &mut Vec<Vec<u64>>,
               rank: u32,
               key: u64|
     -> bool {
        match buckets.get_mut(&rank) {
            Some(bucket) => {
                bucket.push(key);
                false
            }
            None => {
                let mut bucket = pool.pop().unwrap_or_default();
                bucket.push(key);
                buckets.insert(rank, bucket);
                queue.push(Reverse(rank));
                true
            }
        }
    };
    for s in 0..n.saturating_sub(1) {
        let rank = rank_of(ranks, &piece[s..s + 2]);
        if rank != NONE {
            add(
                &mut buckets,
                &mut queue,
                &mut pool,
                rank,
                pack(s as u32, s as u32 + 2),
            );
        }
    }
    while let Some(Reverse(rank)) = queue.pop() {
        let Some(mut entries) = buckets.remove(&rank) else {
            continue;
        };
        entries.sort_unstable();
        let mut lower = false;
        for (done, &key) in entries.iter().enumerate() {
            let (start, end) = ((key >> 32) as u32, key as u32);
            let mid = nxt[start as usize];
            if nxt[mid as usize] != end {
                continue; // stale
            }
            nxt[start as usize] = end;
            nxt[mid as usize] = absorbed;
            tok[start as usize] = rank;
            if (end as usize) < n {
                prv[end as usize] = start;
                let right = nxt[end as usize];
                let new_rank = rank_of(ranks, &piece[start as usize..right as usize]);
                if new_rank != NONE
                    && add(
                        &mut buckets,
                        &mut queue,
                        &mut pool,
                        new_rank,
                        pack(start, right),
                    )
                {
                    lower |= new_rank < rank;
                }
            }
            let left = prv[start as usize];
            if left != u32::MAX {
                let new_rank = rank_of(ranks, &piece[left as usize..end as usize]);
                if new_rank != NONE
                    && add(
                        &mut buckets,
                        &mut queue,
                        &mut pool,
                        new_rank,
                        pack(left, end),
                    )
                {
                    lower |= new_rank < rank;
                }
            }
            if lower {
                let rest = &entries[done + 1..];
                if !rest.is_empty() {
                    match buckets.get_mut(&rank) {
                        Some(bucket) => bucket.extend_from_slice(rest),
                        None => {
                            let mut bucket = pool.pop().unwrap_or_default();
                            bucket.extend_from_slice(rest);
                            buckets.insert(rank, bucket);
                            queue.push(Reverse(rank));
                        }
                    }
                }
                break;
            }
        }
        entries.clear();
        pool.push(entries);
    }
    let mut s = 0usize;
    while s < n {
        let e = nxt[s] as usize;
        if tok[s] == NONE {
            return Err(MissingRank {
                part: piece[s..e].to_vec(),
                piece: piece.to_vec(),
            });
        }
        out.push(tok[s]);
        s = e;
    }
    Ok(())
}
