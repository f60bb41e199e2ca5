//! Rank BPE of one piece, as tiktoken computes it (proven equal to the seed's merge loop under
//! condition C: Lean `Bpe.Ranks`, `encodeWith_eq_of_checkRanks`).
//!
//! Each step merges the adjacent pair whose concatenation has the lowest rank, the leftmost
//! one on ties; the ids are the ranks of the parts left.  Two algorithms compute it, the same
//! two as the pure-Python engine (`verified_bpe.engine.tokenizer`):
//! * [`bpe_scan`] (pieces below [`LONG_PIECE`] bytes): tiktoken's scan, the rank of the pair
//!   each part starts and a linear scan for the minimum per merge (the parts linked in place
//!   by their byte offsets, so a merge moves nothing);
//! * [`bpe_buckets`] (longer pieces): the linked list and bucket queue of
//!   `bpe_ranks_buckets`: the pending pairs in one bucket per rank, a heap of the ranks that
//!   have a bucket, a bucket sorted (leftmost first) when it is opened;
//! * [`bpe_heap`], the linked list and heap of `bpe_ranks_heap` (one heap entry per pair),
//!   kept as a second implementation for the tests and the benchmark.
//!
//! In both list forms an entry `(start, end)` is stale unless `start` is alive and the symbol
//! after it ends at `end`; since a rank depends only on the covered bytes, a live entry is
//! exact.  Both are O(n log n).
//!
//! [`bpe_run`] (pieces of at least [`LONG_RUN`] bytes that are one long run of a byte with at
//! most [`RUN_EDGE`] other bytes on either side) computes the ids of a short window of the
//! piece and pumps a repeated token of it: linear in the run, not a new merge order.  The
//! pumping is proven in Lean for every rank table (`Bpe.bytePairMerge_replicate_pump`,
//! `lean/Bpe/Ranks/Pump.lean`); that this code takes that step is differentially tested
//! (`tests/test_native_runs.py`, docs/native.md).

use rustc_hash::FxHashMap;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::ops::Range;

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
    bpe_ranks_with(ranks, &NO_INDEX, piece, out)
}

/// [`bpe_ranks`] with the [`RankIndex`] of `ranks` (or [`NO_INDEX`]): the same ids.
pub fn bpe_ranks_with(
    ranks: &RankMap,
    index: &RankIndex,
    piece: &[u8],
    out: &mut Vec<u32>,
) -> Result<(), MissingRank> {
    if let Some(token) = index.get(ranks, piece) {
        out.push(token);
        return Ok(());
    }
    if piece.len() < LONG_PIECE {
        scan_with(ranks, index, piece, out)
    } else {
        buckets_merge(ranks, index, piece, |_, _, id| out.push(id))
    }
}

/// [`bpe_ranks_with`] of a piece of 1 to [`SHORT_KEY`] bytes whose [`Key16`] the caller has
/// already computed (a piece memo's miss): the whole-piece lookup reuses its hash.
pub fn bpe_ranks_key(
    ranks: &RankMap,
    index: &RankIndex,
    piece: &[u8],
    key: &Key16,
    out: &mut Vec<u32>,
) -> Result<(), MissingRank> {
    let whole = if index.slots.is_empty() {
        rank_in(ranks, piece)
    } else {
        index.get_key(key)
    };
    if let Some(token) = whole {
        out.push(token);
        return Ok(());
    }
    scan_with(ranks, index, piece, out)
}

/// The rank of every two-byte token of `ranks` at `first << 8 | second`, `u32::MAX` where
/// the pair is not a token: [`bpe_scan`]'s first rank of each pair of bytes is one load
/// instead of a hash lookup (256 KiB; built once per table by walking its entries).
pub fn pair_table(ranks: &RankMap) -> Vec<u32> {
    let mut pairs = vec![NONE; 1 << 16];
    for (token, &rank) in ranks {
        if let [a, b] = token[..] {
            pairs[usize::from(a) << 8 | usize::from(b)] = rank;
        }
    }
    pairs
}

/// Tokens of at most this many bytes are in a [`RankIndex`]'s inline table.
pub const SHORT_KEY: usize = 16;

/// The bytes of a piece of 1 to [`SHORT_KEY`] bytes as two little-endian words, zero-padded
/// (with the length, an exact key: two pieces of one length have equal words only if they
/// are equal): read by two overlapping loads of 8, 4 or 1 bytes, each shifted to its place
/// (where the loads overlap they hold the same bytes).
#[inline(always)]
pub fn pack16(piece: &[u8]) -> (u64, u64) {
    let n = piece.len();
    let word = |k: usize| u64::from_le_bytes(piece[k..k + 8].try_into().expect("8 bytes"));
    let half = |k: usize| {
        u64::from(u32::from_le_bytes(
            piece[k..k + 4].try_into().expect("4 bytes"),
        ))
    };
    if n > 8 {
        (word(0), word(n - 8) >> (8 * (16 - n)))
    } else if n == 8 {
        (word(0), 0)
    } else if n >= 4 {
        (half(0) | half(n - 4) << (8 * (n - 4)), 0)
    } else {
        let b = |k: usize| u64::from(piece[k]) << (8 * k);
        (b(0) | b(n / 2) | b(n - 1), 0)
    }
}

/// The hash of a [`pack16`] key of a piece of `len` bytes: its low bits pick a slot
/// ([`slot16`]), its high bits a word and two bits of a [`RankIndex`]'s filter.
#[inline(always)]
pub fn hash16(lo: u64, hi: u64, len: usize) -> u64 {
    (lo ^ hi.rotate_left(32) ^ len as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The home slot of a [`pack16`] key of a piece of `len` bytes in a table of `mask + 1`
/// slots.
#[inline(always)]
pub fn slot16(lo: u64, hi: u64, len: usize, mask: usize) -> usize {
    home(hash16(lo, hi, len), mask)
}

/// A piece of 1 to [`SHORT_KEY`] bytes as its [`pack16`] words, its length and their
/// [`hash16`], computed once: the piece memos and the [`RankIndex`] probe by the same key.
#[derive(Clone, Copy, Debug)]
pub struct Key16 {
    pub lo: u64,
    pub hi: u64,
    pub len: usize,
    pub hash: u64,
}

impl Key16 {
    /// The key of `piece` (1 to [`SHORT_KEY`] bytes).
    #[inline(always)]
    pub fn new(piece: &[u8]) -> Self {
        let (lo, hi) = pack16(piece);
        Self::of_words(lo, hi, piece.len())
    }

    /// The key of the first `len` bytes (1 to [`SHORT_KEY`]) of `window`: the same as
    /// [`Key16::new`] of them (`test_key_in_window`), from two whole-word loads masked to the
    /// length by [`WINDOW_MASKS`], with no branch on the length (a piece's length is what a
    /// branch predictor cannot guess in a text's chunk loop).
    #[inline(always)]
    pub fn in_window(window: &[u8; SHORT_KEY], len: usize) -> Self {
        let (lo_mask, hi_mask) = WINDOW_MASKS[len];
        let (lo, hi) = window.split_at(8);
        let word = |half: &[u8]| u64::from_le_bytes(half.try_into().expect("8 bytes"));
        Self::of_words(word(lo) & lo_mask, word(hi) & hi_mask, len)
    }

    #[inline(always)]
    fn of_words(lo: u64, hi: u64, len: usize) -> Self {
        Self {
            lo,
            hi,
            len,
            hash: hash16(lo, hi, len),
        }
    }
}

/// The masks of [`Key16::in_window`]: for `len` bytes, the low `len` bytes of the two words.
const WINDOW_MASKS: [(u64, u64); SHORT_KEY + 1] = window_masks();

/// The low `bytes` bytes of a word set.
const fn low_bytes(bytes: usize) -> u64 {
    if bytes >= 8 {
        u64::MAX
    } else {
        (1u64 << (8 * bytes)) - 1
    }
}

const fn window_masks() -> [(u64, u64); SHORT_KEY + 1] {
    let mut masks = [(0, 0); SHORT_KEY + 1];
    let mut len = 0;
    while len <= SHORT_KEY {
        let hi = len.saturating_sub(8);
        masks[len] = (low_bytes(len), low_bytes(hi));
        len += 1;
    }
    masks
}

/// The [`SHORT_KEY`] bytes of `block` from the start of the piece `block[range]`, if the
/// piece has 1 to [`SHORT_KEY`] bytes and the block that many bytes from its start: the
/// window a chunk loop keys the piece from ([`Key16::in_window`]).
#[inline(always)]
pub fn short_window<'b>(block: &'b [u8], range: &Range<usize>) -> Option<&'b [u8; SHORT_KEY]> {
    let window = block.get(range.start..range.start + SHORT_KEY)?;
    // 1 <= len <= SHORT_KEY in one comparison
    if range.len().wrapping_sub(1) < SHORT_KEY {
        return Some(window.try_into().expect("SHORT_KEY bytes"));
    }
    None
}

/// The filter hash of bytes longer than [`SHORT_KEY`]: [`hash16`] of their first and last
/// eight bytes and their length (a few loads, whatever the length).
#[inline(always)]
fn long_key(bytes: &[u8]) -> u64 {
    let n = bytes.len();
    let word = |k: usize| u64::from_le_bytes(bytes[k..k + 8].try_into().expect("8 bytes"));
    hash16(word(0), word(n - 8), n)
}

/// The slot of [`hash16`] `h` in a table of `mask + 1` slots.
#[inline(always)]
pub fn home(h: u64, mask: usize) -> usize {
    (h ^ (h >> 29) ^ (h >> 47)) as usize & mask
}

/// The word of a filter of `mask + 1` words (at most 2^40) and the two bits in it (possibly
/// one) that a key of [`hash16`] `h` sets, from the top bits of `h` mixed once more (the low
/// bits of a product depend on the low bits of the key only).
#[inline(always)]
fn filter_bits(h: u64, mask: usize) -> (usize, u64) {
    let g = (h ^ (h >> 32)).wrapping_mul(0xD6E8_FEB8_6659_FD93);
    let word = (g >> 24) as usize & mask;
    (word, 1u64 << (g >> 58) | 1u64 << ((g >> 52) & 63))
}

/// One token of a [`RankIndex`]: its [`pack16`] words, its length (0: an empty slot), its
/// rank.
#[derive(Clone, Copy, Default)]
struct RankSlot {
    lo: u64,
    hi: u64,
    len: u32,
    rank: u32,
}

/// Lookups into a rank table without following a pointer: the [`pair_table`], and every token
/// of 1 to [`SHORT_KEY`] bytes inline in an open-addressing table (linear probing, at most
/// half full), so a lookup compares two words and a length instead of hashing the bytes and
/// comparing them with a key on the heap.  In front of that table, a filter (a blocked Bloom
/// filter: about [`FILTER_BITS`] bits per token, two bits of one word set per token) answers
/// most lookups of bytes that are not a token without touching the table: two thirds of a
/// merge's lookups on prose, each a cache miss into the table otherwise.  [`RankIndex::get`]
/// answers as `ranks.get` does (longer pieces and an empty index go to `ranks` itself).
/// About 6 MB for cl100k_base's tokens (filter 256 KiB), 12 MB for o200k_base's (512 KiB).
pub struct RankIndex {
    bytes: [u32; 256],
    pairs: Vec<u32>,
    slots: Vec<RankSlot>,
    filter: Vec<u64>,
    /// A filter like `filter` of the tokens longer than [`SHORT_KEY`] bytes, keyed by
    /// [`long_key`]: most lookups of long bytes that are not a token (the joined parts of a
    /// long piece) are answered without hashing the bytes into `ranks`.
    long_filter: Vec<u64>,
    /// Every rank is below [`PACKED_RANKS`]: [`scan_linked`] keeps a pair's rank and its
    /// position in one word (false for [`NO_INDEX`]).
    packs: bool,
}

/// Ranks below this bound fit [`scan_linked`]'s packed words `rank << 7 | position`.
pub const PACKED_RANKS: u32 = 1 << 24;

/// About this many filter bits per token of a [`RankIndex`] (rounded up to a power of two
/// words).
pub const FILTER_BITS: usize = 16;

/// The empty [`RankIndex`]: every lookup goes to the rank table.
pub const NO_INDEX: RankIndex = RankIndex {
    bytes: [NONE; 256],
    pairs: Vec::new(),
    slots: Vec::new(),
    filter: Vec::new(),
    long_filter: Vec::new(),
    packs: false,
};

impl RankIndex {
    /// The index of `ranks` (one walk over its entries).
    pub fn new(ranks: &RankMap) -> Self {
        let short = ranks
            .keys()
            .filter(|t| (1..=SHORT_KEY).contains(&t.len()))
            .count();
        let mut slots = vec![RankSlot::default(); (2 * short).next_power_of_two().max(2)];
        let mask = slots.len() - 1;
        let mut filter = vec![0u64; (FILTER_BITS * short / 64).next_power_of_two()];
        let words = filter.len() - 1;
        for (token, &rank) in ranks {
            let n = token.len();
            if !(1..=SHORT_KEY).contains(&n) {
                continue;
            }
            let (lo, hi) = pack16(token);
            let h = hash16(lo, hi, n);
            let (word, bits) = filter_bits(h, words);
            filter[word] |= bits;
            let mut k = home(h, mask);
            while slots[k].len != 0 {
                k = (k + 1) & mask;
            }
            slots[k] = RankSlot {
                lo,
                hi,
                len: n as u32,
                rank,
            };
        }
        let long = ranks.len() - short;
        let mut long_filter = vec![0u64; (FILTER_BITS * long / 64).next_power_of_two()];
        let words = long_filter.len() - 1;
        for token in ranks.keys().filter(|t| t.len() > SHORT_KEY) {
            let (word, bits) = filter_bits(long_key(token), words);
            long_filter[word] |= bits;
        }
        let mut bytes = [NONE; 256];
        for (b, rank) in bytes.iter_mut().enumerate() {
            *rank = rank_of(ranks, &[b as u8]);
        }
        Self {
            bytes,
            pairs: pair_table(ranks),
            slots,
            filter,
            long_filter,
            packs: ranks.values().all(|&r| r < PACKED_RANKS),
        }
    }

    /// The rank of a piece of one or two bytes that is a token, from the byte table or the
    /// [`pair_table`] (one load, no hashing); `None` for any other piece, and for every piece
    /// under [`NO_INDEX`] (the callers then look it up as before). Where it answers, it
    /// answers as `ranks.get` does (`test_tiny_vs_rank_table`).
    #[inline(always)]
    pub fn tiny(&self, piece: &[u8]) -> Option<u32> {
        let rank = match *piece {
            [a] => self.bytes[usize::from(a)],
            [a, b] => *self.pairs.get(usize::from(a) << 8 | usize::from(b))?,
            _ => return None,
        };
        (rank != NONE).then_some(rank)
    }

    /// The rank of `bytes` in `ranks` (the table this index was made of).
    #[inline]
    pub fn get(&self, ranks: &RankMap, bytes: &[u8]) -> Option<u32> {
        let n = bytes.len();
        if n > SHORT_KEY && !self.slots.is_empty() {
            let (word, bits) = filter_bits(long_key(bytes), self.long_filter.len() - 1);
            if self.long_filter[word] & bits != bits {
                return None;
            }
        }
        if n == 0 || n > SHORT_KEY || self.slots.is_empty() {
            return rank_in(ranks, bytes);
        }
        self.get_key(&Key16::new(bytes))
    }

    /// [`RankIndex::get`] of the piece of `key` (an index with slots: not [`NO_INDEX`]).
    #[inline(always)]
    fn get_key(&self, key: &Key16) -> Option<u32> {
        let (word, bits) = filter_bits(key.hash, self.filter.len() - 1);
        if self.filter[word] & bits != bits {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut k = home(key.hash, mask);
        loop {
            let slot = &self.slots[k];
            if slot.len == 0 {
                return None;
            }
            if slot.lo == key.lo && slot.hi == key.hi && slot.len as usize == key.len {
                return Some(slot.rank);
            }
            k = (k + 1) & mask;
        }
    }

    /// [`RankIndex::get`], `u32::MAX` for no rank.
    #[inline]
    fn rank(&self, ranks: &RankMap, bytes: &[u8]) -> u32 {
        self.get(ranks, bytes).unwrap_or(NONE)
    }

    /// [`RankIndex::rank`] of `padded[part]`, where `padded` holds a piece followed by at
    /// least [`SHORT_KEY`] more bytes: a part of 1 to [`SHORT_KEY`] bytes is keyed by
    /// [`Key16::in_window`] from its [`short_window`] (no branch on its length).
    #[inline(always)]
    fn rank_padded(&self, ranks: &RankMap, padded: &[u8], part: Range<usize>) -> u32 {
        match short_window(padded, &part) {
            Some(w) if !self.slots.is_empty() => self
                .get_key(&Key16::in_window(w, part.len()))
                .unwrap_or(NONE),
            _ => self.rank(ranks, &padded[part]),
        }
    }

    /// The ranks of the parts `x` and `y` of `padded` ([`RankIndex::rank_padded`] of each),
    /// the two lookups overlapped: both filter words are loaded before either is tested, and
    /// then both first slots (the slot of a key the filter rejects is replaced by slot 0, so
    /// no branch sits between the loads), so the two cache misses of a merge's new pairs are
    /// waited for once, not one after the other.
    #[inline(always)]
    fn rank2_padded(
        &self,
        ranks: &RankMap,
        padded: &[u8],
        x: Range<usize>,
        y: Range<usize>,
    ) -> (u32, u32) {
        let (Some(win_x), Some(win_y)) = (short_window(padded, &x), short_window(padded, &y))
        else {
            return (
                self.rank_padded(ranks, padded, x),
                self.rank_padded(ranks, padded, y),
            );
        };
        if self.slots.is_empty() {
            return (self.rank(ranks, &padded[x]), self.rank(ranks, &padded[y]));
        }
        let kx = Key16::in_window(win_x, x.len());
        let ky = Key16::in_window(win_y, y.len());
        let words = self.filter.len() - 1;
        let (wx, bx) = filter_bits(kx.hash, words);
        let (wy, by) = filter_bits(ky.hash, words);
        let (fx, fy) = (self.filter[wx], self.filter[wy]);
        let (px, py) = (fx & bx == bx, fy & by == by);
        let mask = self.slots.len() - 1;
        let (hx, hy) = (home(kx.hash, mask), home(ky.hash, mask));
        let sx = self.slots[if px { hx } else { 0 }];
        let sy = self.slots[if py { hy } else { 0 }];
        let rx = if px {
            self.probe_from(&kx, hx, sx)
        } else {
            NONE
        };
        let ry = if py {
            self.probe_from(&ky, hy, sy)
        } else {
            NONE
        };
        (rx, ry)
    }

    /// The rank of the key `key` (`NONE` if it has none), its probe starting at slot `k`,
    /// whose contents `slot` the caller has loaded.
    #[inline(always)]
    fn probe_from(&self, key: &Key16, mut k: usize, mut slot: RankSlot) -> u32 {
        let mask = self.slots.len() - 1;
        loop {
            if slot.len == 0 {
                return NONE;
            }
            if slot.lo == key.lo && slot.hi == key.hi && slot.len as usize == key.len {
                return slot.rank;
            }
            k = (k + 1) & mask;
            slot = self.slots[k];
        }
    }

    /// The rank of the two bytes `a b`, `u32::MAX` for no rank.
    #[inline]
    fn pair(&self, ranks: &RankMap, a: u8, b: u8) -> u32 {
        match self.pairs.get(usize::from(a) << 8 | usize::from(b)) {
            Some(&rank) => rank,
            None => rank_of(ranks, &[a, b]),
        }
    }
}

/// From this many bytes on, [`crate::engine::Engine::merge`] tries [`bpe_run`] first.
pub const LONG_RUN: usize = 1024;

/// The bytes of a run [`bpe_run`] merges in full before it pumps (its window).
pub const RUN_WINDOW: usize = 256;

/// At most this many bytes on either side of the run in a piece that [`bpe_run`] takes.
pub const RUN_EDGE: usize = 8;

/// The maximal run of one byte through the middle of `piece`, as `start..end`, if the piece
/// is that run with at most [`RUN_EDGE`] bytes on either side and the run is at least
/// [`LONG_RUN`] bytes long.
pub fn long_run(piece: &[u8]) -> Option<std::ops::Range<usize>> {
    let mid = piece.len() / 2;
    let byte = *piece.get(mid)?;
    let start = piece[..mid]
        .iter()
        .rposition(|&b| b != byte)
        .map_or(0, |k| k + 1);
    let end = piece[mid..]
        .iter()
        .position(|&b| b != byte)
        .map_or(piece.len(), |k| mid + k);
    let fits = start <= RUN_EDGE && piece.len() - end <= RUN_EDGE && end - start >= LONG_RUN;
    fits.then_some(start..end)
}

/// The ids of a piece `u a^n v` that is one long run (see [`long_run`]), by pumping: if the
/// merge of `x c c y` is `X ++ C ++ C ++ Y` (the parts of `X` covering `x`, and so on), then
/// the merge of `x c^k y` is `X ++ C^k ++ Y` for every `k >= 1` (rust-gems' characterisation:
/// a list of tokens is the merge of its bytes iff each token is its own merge and every
/// adjacent pair is the merge of its two tokens' bytes; `X C^k Y` has no adjacent pair that
/// `X C C Y` lacks).  Here `c` is one token `a^w`: the window `u a^m v` (`m` = [`RUN_WINDOW`]
/// or twice that, plus the remainder of `n - m` modulo `w`, with `w` from the first pair of
/// equal parts inside the run of the window `u a^RUN_WINDOW v`) is merged by [`bpe_buckets`], two equal adjacent
/// parts of length dividing `n - m` are found inside the run and repeated.  `Ok(false)`
/// (nothing appended) when the piece is not such a run or no such pair is found: the caller
/// merges it in full.  Linear in `n` apart from the fixed window.
///
/// Lean: `Bpe.bytePairMerge_replicate_pump` (`lean/Bpe/Ranks/Pump.lean`) proves the step for
/// every rank table: if the window `u a^m v` merges to `P ++ [a^w, a^w] ++ S` (`P` covering `u`
/// and the run before the pair, `S` the run after it and `v`) and `w` divides `n - m`, then
/// `u a^n v` merges to `P`, `2 + (n - m) / w` copies of `a^w`, `S`; through the
/// characterisation `Bpe.bytePairMerge_flatten_eq_iff` (`lean/Bpe/Ranks/Valid.lean`) and
/// `Bpe.bytePairMerge_pump`.  So no condition on the table is needed: the two parts are
/// compared by their spans (inside the run and of equal length, so equal bytes), not by their
/// ids, which two tokens could share in a table with a repeated rank.  The step on a window
/// is Lean `Bpe.Ranks.Run.pumpRun` (`lean/Bpe/Ranks/Run.lean`, Python
/// `verified_bpe.spec.ranks.run.pump_run`), whose answer is proven to be the merge of the whole
/// piece (`Bpe.bytePairMerge_eq_of_pumpRun_eq_some`, for every table and window).  Not proven:
/// that this Rust code computes `pumpRun` (its window merge is [`bpe_buckets`]' loop); tested
/// against the heap merge, tiktoken and the definition (`tests/test_native_runs.py`).
pub fn bpe_run(ranks: &RankMap, piece: &[u8], out: &mut Vec<u32>) -> Result<bool, MissingRank> {
    let Some(run) = long_run(piece) else {
        return Ok(false);
    };
    let n = run.end - run.start;
    let byte = piece[run.start];
    let window = |m: usize| -> Vec<u8> {
        let mut w = Vec::with_capacity(piece.len() - n + m);
        w.extend_from_slice(&piece[..run.start]);
        w.resize(run.start + m, byte);
        w.extend_from_slice(&piece[run.end..]);
        w
    };
    // the parts of a window: (start, end, id), in order
    let parts = |bytes: &[u8]| -> Result<Vec<(usize, usize, u32)>, MissingRank> {
        let mut parts = Vec::new();
        buckets_merge(ranks, &NO_INDEX, bytes, |s, e, id| parts.push((s, e, id)))?;
        Ok(parts)
    };
    // the first two adjacent parts inside the run of a window of run length m of one length
    // dividing n - m (Lean `Bpe.Ranks.Run.twinParts`)
    let pair = |parts: &[(usize, usize, u32)], m: usize| {
        twin_parts(parts, run.start, run.start + m, n - m)
    };
    let first = parts(&window(RUN_WINDOW))?;
    // the width of the first two parts of one length inside the run (any length divides 0)
    let Some(k) = twin_parts(&first, run.start, run.start + RUN_WINDOW, 0) else {
        return Ok(false);
    };
    let width = first[k].1 - first[k].0;
    // the window u a^m v with m = RUN_WINDOW or 2 RUN_WINDOW plus the remainder (the end of
    // a short window can take back the last equal pair: 264 spaces in cl100k_base are
    // 128 + 64 + 72)
    let mut found = None;
    for base in [RUN_WINDOW, 2 * RUN_WINDOW] {
        let m = base + (n - base) % width;
        let parts = if m == RUN_WINDOW {
            first.clone()
        } else {
            parts(&window(m))?
        };
        if let Some(k) = pair(&parts, m) {
            found = Some((parts, k, m));
            break;
        }
    }
    let Some((parts, k, m)) = found else {
        return Ok(false);
    };
    // Lean `Bpe.Ranks.Run.pumpRun`: the parts before the pair, the pair's part repeated, the
    // parts after it
    let (s, e, id) = parts[k];
    let copies = 2 + (n - m) / (e - s);
    out.extend(parts[..k].iter().map(|p| p.2));
    out.extend(std::iter::repeat_n(id, copies));
    out.extend(parts[k + 2..].iter().map(|p| p.2));
    Ok(true)
}

/// `ranks.get(bytes)`, not inlined: [`RankIndex::get`]'s path for pieces outside the inline
/// table stays out of its short path.
#[inline(never)]
fn rank_in(ranks: &RankMap, bytes: &[u8]) -> Option<u32> {
    ranks.get(bytes).copied()
}

/// Lean `Bpe.Ranks.Run.twinParts` on parts given as `(start, end, id)`: the index of the
/// first two adjacent parts that lie in the bytes `lo..hi` and have one length `w` with
/// `d % w == 0` (`d % 0` is `d`, as in Lean).  Inside a run, one length means the same bytes.
fn twin_parts(parts: &[(usize, usize, u32)], lo: usize, hi: usize, d: usize) -> Option<usize> {
    parts.windows(2).position(|w| {
        let ((s0, e0, _), (s1, e1, _)) = (w[0], w[1]);
        lo <= s0 && e1 <= hi && e0 - s0 == e1 - s1 && d.checked_rem(e0 - s0).unwrap_or(d) == 0
    })
}

fn rank_of(ranks: &RankMap, bytes: &[u8]) -> u32 {
    ranks.get(bytes).copied().unwrap_or(NONE)
}

/// The id of the part `piece[s..e]` appended to `out`: a single byte (the parts a merge never
/// touched) by [`RankIndex::tiny`], one load; any other part (and every part under
/// [`NO_INDEX`]) looked up in `ranks`.
fn push_part(
    ranks: &RankMap,
    index: &RankIndex,
    piece: &[u8],
    s: usize,
    e: usize,
    out: &mut Vec<u32>,
) -> Result<(), MissingRank> {
    if let Some(rank) = index.tiny(&piece[s..e]) {
        out.push(rank);
        return Ok(());
    }
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

/// Rank BPE with a linear scan for the minimum per merge (O(n^2), fast on short pieces): the
/// parts of a piece below [`LONG_PIECE`] bytes linked in place on the stack
/// ([`scan_linked`]), those of a longer one in a vector ([`scan_parts`]).
pub fn bpe_scan(ranks: &RankMap, piece: &[u8], out: &mut Vec<u32>) -> Result<(), MissingRank> {
    scan_with(ranks, &NO_INDEX, piece, out)
}

/// [`bpe_scan`] with the [`RankIndex`] of `ranks` (or [`NO_INDEX`]).
fn scan_with(
    ranks: &RankMap,
    index: &RankIndex,
    piece: &[u8],
    out: &mut Vec<u32>,
) -> Result<(), MissingRank> {
    let n = piece.len();
    if n <= SHORT_KEY {
        scan_linked::<{ SHORT_KEY + 1 }, { 2 * SHORT_KEY + 1 }>(ranks, index, piece, out)
    } else if n <= SCAN_STACK {
        scan_linked::<{ SCAN_STACK + 8 }, { SCAN_STACK + 8 + SHORT_KEY }>(ranks, index, piece, out)
    } else if n < LONG_PIECE {
        scan_linked::<LONG_PIECE, { LONG_PIECE + SHORT_KEY }>(ranks, index, piece, out)
    } else {
        let mut parts = vec![(0u32, NONE, NONE); n + 1];
        scan_parts(ranks, index, piece, &mut parts, out)
    }
}

/// Pieces of at most this many bytes are merged by [`bpe_scan`] in a middle-sized stack frame
/// (17 entries up to 16 bytes, 65 up to this, 128 below [`LONG_PIECE`]; longer pieces, which
/// only [`bpe_scan`] itself takes, in a vector).
pub const SCAN_STACK: usize = 64;

/// The merges of [`bpe_scan`] in `parts` (`piece.len() + 1` entries): entry `k` is (start of
/// part `k`, rank of part `k` joined with part `k + 1`, id of part `k` if it was made by a
/// merge, else `NONE`); the last live entry is the end of the piece.  A merged part's id is
/// the rank it was merged at, so only the single bytes left are looked up at the end.
fn scan_parts(
    ranks: &RankMap,
    index: &RankIndex,
    piece: &[u8],
    parts: &mut [(u32, u32, u32)],
    out: &mut Vec<u32>,
) -> Result<(), MissingRank> {
    let n = piece.len();
    assert!(n < u32::MAX as usize, "piece of 4 GiB or more");
    let mut len = parts.len();
    for (s, part) in parts.iter_mut().enumerate() {
        *part = (s as u32, NONE, NONE);
    }
    for s in 0..n.saturating_sub(1) {
        parts[s].1 = index.pair(ranks, piece[s], piece[s + 1]);
    }
    let pair_rank = |parts: &[(u32, u32, u32)], len: usize, k: usize| -> u32 {
        if k + 2 < len {
            index.rank(ranks, &piece[parts[k].0 as usize..parts[k + 2].0 as usize])
        } else {
            NONE
        }
    };
    loop {
        let mut best = NONE;
        let mut at = 0;
        for (k, &(_, rank, _)) in parts[..len - 1].iter().enumerate() {
            if rank < best {
                best = rank;
                at = k;
            }
        }
        if best == NONE {
            break;
        }
        parts.copy_within(at + 2..len, at + 1);
        len -= 1;
        parts[at].2 = best;
        parts[at].1 = pair_rank(parts, len, at);
        if at > 0 {
            parts[at - 1].1 = pair_rank(parts, len, at - 1);
        }
    }
    for w in parts[..len].windows(2) {
        if w[0].2 != NONE {
            out.push(w[0].2);
        } else {
            push_part(ranks, index, piece, w[0].0 as usize, w[1].0 as usize, out)?;
        }
    }
    Ok(())
}

/// The merges of [`bpe_scan`] on a piece of fewer than [`LONG_PIECE`] bytes (at most `N - 1`),
/// its parts linked in place instead of kept in a vector: for a live part starting at byte
/// `s`, `end[s]` is its end, `prev[s]` the start of the part before it, `id[s]` its id if a
/// merge made it (the rank it was merged at; `NONE` for a single byte, looked up at the end)
/// and `rank[s]` the rank of it joined with the next part (`NONE` if there is none, or no such
/// token, and for a start that a merge absorbed).  A merge moves nothing: the minimum is found
/// over `rank` in byte order (absorbed starts are `NONE`), so the leftmost of equal ranks is
/// the leftmost pair, as in the vector; the two new pairs around the merged part are looked up
/// together ([`RankIndex::rank2_padded`], keyed from a copy of the piece padded by
/// [`SHORT_KEY`] bytes, `P = N + SHORT_KEY`).  When every rank is below [`PACKED_RANKS`] (the published
/// tables; [`RankIndex`]'s `packs`), `rank[s]` holds `rank << 7 | s` instead (`NONE` stays
/// `NONE`), so one branch-free minimum, which the compiler vectorizes, gives the lowest rank
/// and, among equal ranks, the lowest start; otherwise the minimum rank, then its first
/// position.
fn scan_linked<const N: usize, const P: usize>(
    ranks: &RankMap,
    index: &RankIndex,
    piece: &[u8],
    out: &mut Vec<u32>,
) -> Result<(), MissingRank> {
    let n = piece.len();
    assert!(
        n < N && N <= 128 && (N.is_multiple_of(8) || N <= SHORT_KEY + 1) && P == N + SHORT_KEY,
        "scan_linked: piece of {n} bytes in {N} entries"
    );
    // the piece with SHORT_KEY bytes after it: every part has a window for its key
    let mut padded = [0u8; P];
    padded[..n].copy_from_slice(piece);
    let mut rank = [NONE; N];
    let mut id = [NONE; N];
    // every part one byte (the entries at n and past it are never read): constants, so no
    // loop on n
    let mut end: [u8; N] = std::array::from_fn(|s| (s + 1) as u8);
    let mut prev: [u8; N] = std::array::from_fn(|s| s.wrapping_sub(1) as u8);
    let packs = index.packs;
    // the word kept for a pair of rank r starting at s
    let word = |r: u32, s: usize| -> u32 {
        if packs && r != NONE {
            r << 7 | s as u32
        } else {
            r
        }
    };
    let live = n.saturating_sub(1);
    for s in 0..live {
        rank[s] = word(index.pair(ranks, piece[s], piece[s + 1]), s);
    }
    // the entries the packed minimum looks at: whole groups of eight covering the pairs; for
    // short pieces always the first 16, a constant, so that loop has no exit to mispredict
    let span = if N <= SHORT_KEY + 1 {
        SHORT_KEY
    } else {
        (live + 7) & !7
    };
    loop {
        let (best, at) = if packs {
            // eight lanes of minima over whole groups of eight (the entries past the last
            // pair are NONE), which the compiler turns into vector minima, then the lanes'
            // minimum: the lowest rank and, among its pairs, the lowest start
            let mut lanes = [NONE; 8];
            for group in rank[..span].chunks_exact(8) {
                for (lane, &r) in lanes.iter_mut().zip(group) {
                    *lane = (*lane).min(r);
                }
            }
            let low = lanes.iter().fold(NONE, |m, &r| m.min(r));
            if low == NONE {
                break;
            }
            (low >> 7, (low & 0x7F) as usize)
        } else {
            let mut best = NONE;
            let mut at = 0;
            for (k, &r) in rank[..live].iter().enumerate() {
                if r < best {
                    best = r;
                    at = k;
                }
            }
            if best == NONE {
                break;
            }
            (best, at)
        };
        let b = usize::from(end[at]);
        let c = usize::from(end[b]);
        end[at] = c as u8;
        rank[b] = NONE;
        id[at] = best;
        let right = if c < n {
            prev[c] = at as u8;
            Some(at..usize::from(end[c]))
        } else {
            None
        };
        let left = (at > 0).then(|| usize::from(prev[at]));
        match (left, right) {
            (Some(p), Some(r)) => {
                let (lr, rr) = index.rank2_padded(ranks, &padded, p..c, r);
                rank[p] = word(lr, p);
                rank[at] = word(rr, at);
            }
            (Some(p), None) => {
                rank[p] = word(index.rank_padded(ranks, &padded, p..c), p);
                rank[at] = NONE;
            }
            (None, Some(r)) => rank[at] = word(index.rank_padded(ranks, &padded, r), at),
            (None, None) => rank[at] = NONE,
        }
    }
    let mut s = 0;
    while s < n {
        let e = usize::from(end[s]);
        if id[s] != NONE {
            out.push(id[s]);
        } else {
            push_part(ranks, index, piece, s, e, out)?;
        }
        s = e;
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
        push_part(ranks, &NO_INDEX, piece, s, e, out)?;
        s = e;
    }
    Ok(())
}

/// The merges of [`bpe_heap`] with the pending pairs in one bucket per rank (the algorithm of
/// `bpe_ranks_buckets`): if a merge creates a pair of a lower rank, or of the rank being
/// processed (only in a table that gives two tokens one rank: the new pair covers more bytes,
/// so it is another token), the rest of the bucket is put back and the lowest rank is opened
/// again.  Hence pairs are merged in exactly the heap's (rank, start) order, with a heap
/// operation per distinct rank instead of per pair, and sweeps through the piece in order.
///
/// Two savings that do not change the merges: the id of each symbol is kept at its start
/// (`tok`: a merged symbol's id is the rank it was merged at, a single byte's is looked up
/// once per byte value), so the parts are not looked up again at the end; and the vectors of
/// closed buckets are reused for new buckets instead of being freed and allocated again.
pub fn bpe_buckets(ranks: &RankMap, piece: &[u8], out: &mut Vec<u32>) -> Result<(), MissingRank> {
    buckets_merge(ranks, &NO_INDEX, piece, |_, _, id| out.push(id))
}

/// The merges of [`bpe_buckets`], each final part given to `emit` as `(start, end, id)`.
fn buckets_merge(
    ranks: &RankMap,
    index: &RankIndex,
    piece: &[u8],
    mut emit: impl FnMut(usize, usize, u32),
) -> Result<(), MissingRank> {
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
        let rank = index.pair(ranks, piece[s], piece[s + 1]);
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
                let new_rank = index.rank(ranks, &piece[start as usize..right as usize]);
                if new_rank != NONE
                    && add(
                        &mut buckets,
                        &mut queue,
                        &mut pool,
                        new_rank,
                        pack(start, right),
                    )
                {
                    lower |= new_rank <= rank;
                }
            }
            let left = prv[start as usize];
            if left != u32::MAX {
                let new_rank = index.rank(ranks, &piece[left as usize..end as usize]);
                if new_rank != NONE
                    && add(
                        &mut buckets,
                        &mut queue,
                        &mut pool,
                        new_rank,
                        pack(left, end),
                    )
                {
                    lower |= new_rank <= rank;
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
        emit(s, e, tok[s]);
        s = e;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`Key16::in_window`] against [`Key16::new`] of the same bytes: every length 1 to
    /// [`SHORT_KEY`] at every start of random windows (all byte values, zero bytes included:
    /// the padding must not make two lengths collide), and the padding bytes after the piece
    /// changed without changing the key.
    #[test]
    fn test_key_in_window() {
        let mut next = crate::xorshift(0x2545_F491_4F6C_DD1Du64);
        for round in 0..2_000 {
            let data: Vec<u8> = (0..64)
                .map(|_| match round % 3 {
                    0 => next() as u8,
                    1 => (next() % 3) as u8, // mostly zero bytes and ones
                    _ => b"ab \n"[(next() % 4) as usize],
                })
                .collect();
            for start in 0..data.len() - SHORT_KEY {
                let window: &[u8; SHORT_KEY] = data[start..start + SHORT_KEY].try_into().unwrap();
                for len in 1..=SHORT_KEY {
                    let (a, b) = (Key16::in_window(window, len), Key16::new(&window[..len]));
                    assert_eq!((a.lo, a.hi, a.len, a.hash), (b.lo, b.hi, b.len, b.hash));
                    let mut other = *window;
                    other[len..].iter_mut().for_each(|x| *x ^= 0x5A);
                    let c = Key16::in_window(&other, len);
                    assert_eq!((a.lo, a.hi, a.hash), (c.lo, c.hi, c.hash), "{len}");
                }
            }
        }
    }

    /// [`RankIndex::get`] against the rank table itself, for a table of the 256 bytes and
    /// 4,000 tokens of 2 to 80 bytes over four letters (many longer than [`SHORT_KEY`], so
    /// the long filter is exercised): every token, every token with its last byte changed,
    /// and every substring of up to 90 bytes of texts made of tokens; under [`NO_INDEX`] too.
    #[test]
    fn test_get_vs_rank_table() {
        let mut next = crate::xorshift(0x9E37_79B9_7F4A_7C15u64);
        let mut ranks: RankMap = (0..=255u8).map(|b| (vec![b], u32::from(b))).collect();
        let mut tokens = Vec::new();
        while ranks.len() < 256 + 4000 {
            let len = 2 + (next() % 79) as usize;
            let token: Vec<u8> = (0..len).map(|_| b"abcd"[(next() % 4) as usize]).collect();
            let rank = ranks.len() as u32;
            ranks.entry(token.clone()).or_insert(rank);
            tokens.push(token);
        }
        let index = RankIndex::new(&ranks);
        for token in &tokens {
            assert_eq!(index.get(&ranks, token), ranks.get(token).copied());
            let mut near = token.clone();
            *near.last_mut().expect("a token") ^= 1;
            assert_eq!(index.get(&ranks, &near), ranks.get(&near).copied());
            assert_eq!(NO_INDEX.get(&ranks, &near), ranks.get(&near).copied());
        }
        for _ in 0..100 {
            let text: Vec<u8> = (0..4)
                .flat_map(|_| tokens[(next() % tokens.len() as u64) as usize].clone())
                .collect();
            for start in 0..text.len() {
                for end in start..text.len().min(start + 90) {
                    let part = &text[start..end];
                    assert_eq!(index.get(&ranks, part), ranks.get(part).copied());
                }
            }
        }
    }

    /// [`RankIndex::tiny`] against the rank table itself on every piece of one or two bytes, a
    /// few longer ones and the empty one, for a table without some bytes, with some pairs, and
    /// under [`NO_INDEX`] (never an answer).
    #[test]
    fn test_tiny_vs_rank_table() {
        let mut ranks = RankMap::default();
        let mut next = 0u32;
        for b in 0..=255u8 {
            if b % 7 != 3 {
                ranks.insert(vec![b], next);
                next += 1;
            }
        }
        for (a, b) in [
            (b'a', b'b'),
            (b'b', b'a'),
            (b' ', b't'),
            (0, 255),
            (255, 0),
            (3, 3),
        ] {
            ranks.insert(vec![a, b], next);
            next += 1;
        }
        ranks.insert(b"abc".to_vec(), next);
        let index = RankIndex::new(&ranks);
        for a in 0..=255u8 {
            assert_eq!(index.tiny(&[a]), ranks.get(&[a][..]).copied(), "{a}");
            assert_eq!(NO_INDEX.tiny(&[a]), None);
            for b in 0..=255u8 {
                assert_eq!(
                    index.tiny(&[a, b]),
                    ranks.get(&[a, b][..]).copied(),
                    "{a} {b}"
                );
            }
        }
        for piece in [&b""[..], b"abc", b"abcd"] {
            assert_eq!(index.tiny(piece), None);
        }
    }
}
