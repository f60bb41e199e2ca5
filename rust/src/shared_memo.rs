//! A piece memo shared by the threads of one batch: piece -> ids, filled by whichever thread
//! merges a piece first and read by all, so that two threads do not each merge the pieces
//! the texts have in common (with a memo per thread, each thread starts empty and merges
//! every common piece once more).
//!
//! Safe Rust, std atomics only: two fixed-size open-addressing tables (linear probing), one
//! for pieces of 1 to [`SHORT_KEY`] bytes (the bytes inline, as [`crate::ranks::pack16`] words) and one for
//! pieces of 17 to [`SpanMemo::MAX_PIECE`] bytes (the bytes in an arena of words).  An entry
//! is written once and never changed or removed: a thread claims an empty slot (a
//! compare-and-swap of its tag from 0), writes its fields, then publishes the tag with
//! `Release`; a reader loads the tag with `Acquire` and reads the fields only if the tag is
//! published, so it never sees a half-written entry.  A claimed but unpublished slot is
//! passed over (the reader may then merge the piece itself: the ids are the same, since the
//! merge is a function of the piece).  A table takes new entries until it is half full (so
//! every probe ends at an empty slot); after that the caller uses its own memo
//! ([`SharedPieces`]).  No Lean counterpart: the ids are [`bpe_ranks_with`]'s, whatever the
//! memo holds (`shared_memo_equals_heap` below; `tests/test_flat_batch.py`).

use crate::engine::{Engine, PieceMemo, PieceSink, SpanMemo};
use crate::ranks::{bpe_ranks_key, bpe_ranks_with, home, Key16, MissingRank, SHORT_KEY};
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};

/// A slot's tag while one thread writes it.
const WRITING: u32 = u32::MAX;

/// One slot of a table: `tag` 0 (empty), [`WRITING`], or published: the piece's length plus
/// 256 times its number of ids.  Short table: `a`, `b` the [`crate::ranks::pack16`] words, `val` the id
/// (one id) or where the ids start in the arena.  Long table: `a` the piece's hash, `b` where
/// its bytes start in the word arena, `val` as in the short table.
#[derive(Default)]
struct Slot {
    tag: AtomicU32,
    val: AtomicU32,
    a: AtomicU64,
    b: AtomicU64,
}

/// An open-addressing table of [`Slot`]s that takes at most half as many entries as it has
/// slots.
struct Table {
    slots: Vec<Slot>,
    /// Entries reserved (an upper bound of the published ones while threads insert).
    used: OwnLine<AtomicUsize>,
    /// Entries published.
    entries: OwnLine<AtomicUsize>,
}

/// A value on a cache line of its own: the counters that every insert adds to do not share a
/// line with the table's and arenas' pointers, which every lookup reads (else each insert by
/// one thread takes that line from the other threads: false sharing).
#[repr(align(64))]
#[derive(Default)]
struct OwnLine<T>(T);

impl<T> std::ops::Deref for OwnLine<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl Table {
    fn new(slots: usize) -> Self {
        Table {
            slots: (0..slots).map(|_| Slot::default()).collect(),
            used: OwnLine(AtomicUsize::new(0)),
            entries: OwnLine(AtomicUsize::new(0)),
        }
    }

    fn mask(&self) -> usize {
        self.slots.len() - 1
    }

    /// Whether the table takes no more entries (half full).
    fn full(&self) -> bool {
        2 * self.used.load(Ordering::Relaxed) >= self.slots.len()
    }

    /// Take no more entries (an arena ran out).
    fn close(&self) {
        self.used.store(self.slots.len(), Ordering::Relaxed);
    }

    /// Reserve room for one more entry (`false`: the table is half full).
    fn reserve(&self) -> bool {
        if 2 * self.used.fetch_add(1, Ordering::Relaxed) >= self.slots.len() {
            self.used.fetch_sub(1, Ordering::Relaxed);
            return false;
        }
        true
    }

    /// From slot `k` on: the first published slot for which `same(tag, slot)` holds
    /// (`Ok`), or the first empty slot (`Err`).  Claimed, unpublished slots are passed over.
    #[inline(always)]
    fn find(&self, mut k: usize, same: impl Fn(u32, &Slot) -> bool) -> Result<&Slot, usize> {
        let mask = self.mask();
        loop {
            let slot = &self.slots[k];
            let tag = slot.tag.load(Ordering::Acquire);
            if tag == 0 {
                return Err(k);
            }
            if tag != WRITING && same(tag, slot) {
                return Ok(slot);
            }
            k = (k + 1) & mask;
        }
    }

    /// Write an entry at the first slot from `k` on that can be claimed, unless a published
    /// slot on the way already holds it (`same`).  `write` fills the claimed slot's fields; the
    /// tag is then published.  The caller has reserved the room ([`Table::reserve`]).
    fn insert(
        &self,
        mut k: usize,
        tag: u32,
        same: impl Fn(u32, &Slot) -> bool,
        write: impl FnOnce(&Slot),
    ) {
        let mask = self.mask();
        loop {
            let slot = &self.slots[k];
            match slot
                .tag
                .compare_exchange(0, WRITING, Ordering::Acquire, Ordering::Acquire)
            {
                Ok(_) => {
                    write(slot);
                    slot.tag.store(tag, Ordering::Release);
                    self.entries.fetch_add(1, Ordering::Relaxed);
                    return;
                }
                Err(seen) if seen != WRITING && same(seen, slot) => {
                    self.used.fetch_sub(1, Ordering::Relaxed);
                    return;
                }
                Err(_) => k = (k + 1) & mask,
            }
        }
    }
}

/// A bump arena of fixed size: `take(n)` hands out `n` fresh cells once, or `None` when full.
struct Arena<T> {
    cells: Vec<T>,
    next: OwnLine<AtomicUsize>,
}

impl<T: Default> Arena<T> {
    fn new(len: usize) -> Self {
        Arena {
            cells: (0..len).map(|_| T::default()).collect(),
            next: OwnLine(AtomicUsize::new(0)),
        }
    }

    fn take(&self, n: usize) -> Option<(usize, &[T])> {
        let start = self.next.fetch_add(n, Ordering::Relaxed);
        if start.checked_add(n)? > self.cells.len() {
            return None;
        }
        Some((start, &self.cells[start..start + n]))
    }
}

/// The memo shared by a batch's threads (see the module documentation).
pub struct SharedMemo {
    short: Table,
    long: Table,
    ids: Arena<AtomicU32>,
    words: Arena<AtomicU64>,
}

/// The words of `piece`, 8 bytes each little-endian, the last zero-padded.
fn words(piece: &[u8]) -> impl Iterator<Item = u64> + '_ {
    piece.chunks(8).map(|c| {
        let mut w = [0u8; 8];
        w[..c.len()].copy_from_slice(c);
        u64::from_le_bytes(w)
    })
}

/// The hash of a piece of the long table.
fn hash_long(piece: &[u8]) -> u64 {
    words(piece).fold(piece.len() as u64, |h, w| {
        (h.rotate_left(23) ^ w).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    })
}

impl SharedMemo {
    /// A memo sized for a batch of `bytes` bytes of text in all: the short table gets one
    /// slot per 16 bytes (1,024 to 65,536 slots), the long one a quarter as many.
    pub fn for_bytes(bytes: usize) -> Self {
        let short = (bytes / 16).next_power_of_two().clamp(1 << 10, 1 << 16);
        Self::with_slots(short, short / 4)
    }

    /// A memo of `short` and `long` slots (powers of two, at least 2).
    pub fn with_slots(short: usize, long: usize) -> Self {
        assert!(short.is_power_of_two() && long.is_power_of_two() && short > 1 && long > 1);
        SharedMemo {
            short: Table::new(short),
            long: Table::new(long),
            ids: Arena::new(2 * short + 8 * long + 128),
            words: Arena::new(4 * long + 8),
        }
    }

    /// How many entries the two tables hold (short, long).
    pub fn len(&self) -> (usize, usize) {
        let count = |t: &Table| t.entries.load(Ordering::Relaxed);
        (count(&self.short), count(&self.long))
    }

    /// Whether both tables are empty.
    pub fn is_empty(&self) -> bool {
        self.len() == (0, 0)
    }

    /// The ids of a published entry `tag`/`val`, appended to `out`.
    fn copy_ids(&self, tag: u32, val: u32, out: &mut Vec<u32>) {
        let count = (tag >> 8) as usize;
        if count == 1 {
            out.push(val);
        } else {
            let start = val as usize;
            let cells = &self.ids.cells[start..start + count];
            out.extend(cells.iter().map(|c| c.load(Ordering::Relaxed)));
        }
    }

    /// The `val` of an entry whose ids are `ids` (the id itself, or where they were copied in
    /// the arena), or `None` if the arena is full.
    fn store_ids(&self, ids: &[u32]) -> Option<u32> {
        if let [id] = ids {
            return Some(*id);
        }
        let (start, cells) = self.ids.take(ids.len())?;
        for (cell, &id) in cells.iter().zip(ids) {
            cell.store(id, Ordering::Relaxed);
        }
        Some(start as u32)
    }

    /// The ids of the piece of `key` (1 to [`SHORT_KEY`] bytes) appended to `out` if the memo
    /// has it (`Ok`), else `Err` with where a search for it stopped.
    #[inline(always)]
    fn short_get(&self, key: &Key16, out: &mut Vec<u32>) -> Result<(), usize> {
        let slot = self
            .short
            .find(home(key.hash, self.short.mask()), short_same(key))?;
        self.copy_ids(
            slot.tag.load(Ordering::Relaxed),
            slot.val.load(Ordering::Relaxed),
            out,
        );
        Ok(())
    }

    /// Keep `ids` as the ids of the piece of `key` (1 to [`SHORT_KEY`] bytes), searching from
    /// slot `k`; `false` if the memo takes no more.
    fn short_put(&self, key: &Key16, k: usize, ids: &[u32]) -> bool {
        if !self.short.reserve() {
            return false;
        }
        let Some(val) = self.store_ids(ids) else {
            self.short.close();
            return false;
        };
        let tag = key.len as u32 | (ids.len() as u32) << 8;
        self.short.insert(k, tag, short_same(key), |s| {
            s.a.store(key.lo, Ordering::Relaxed);
            s.b.store(key.hi, Ordering::Relaxed);
            s.val.store(val, Ordering::Relaxed);
        });
        true
    }

    /// Whether the long table's slot `s` (published, `tag`) holds `piece` of hash `h`.
    fn long_same(&self, piece: &[u8], h: u64, tag: u32, s: &Slot) -> bool {
        if tag & 0xFF != piece.len() as u32 || s.a.load(Ordering::Relaxed) != h {
            return false;
        }
        let at = s.b.load(Ordering::Relaxed) as usize;
        let stored = &self.words.cells[at..at + piece.len().div_ceil(8)];
        stored
            .iter()
            .zip(words(piece))
            .all(|(cell, w)| cell.load(Ordering::Relaxed) == w)
    }

    /// As [`SharedMemo::short_get`], for a piece of 17 to [`SpanMemo::MAX_PIECE`] bytes.
    fn long_get(&self, piece: &[u8], h: u64, out: &mut Vec<u32>) -> Result<(), usize> {
        let home = (h ^ h >> 32) as usize & self.long.mask();
        let slot = self
            .long
            .find(home, |tag, s| self.long_same(piece, h, tag, s))?;
        self.copy_ids(
            slot.tag.load(Ordering::Relaxed),
            slot.val.load(Ordering::Relaxed),
            out,
        );
        Ok(())
    }

    /// As [`SharedMemo::short_put`], for a piece of 17 to [`SpanMemo::MAX_PIECE`] bytes.
    fn long_put(&self, piece: &[u8], h: u64, k: usize, ids: &[u32]) -> bool {
        if !self.long.reserve() {
            return false;
        }
        let stored = self.store_ids(ids).and_then(|val| {
            let (at, cells) = self.words.take(piece.len().div_ceil(8))?;
            for (cell, w) in cells.iter().zip(words(piece)) {
                cell.store(w, Ordering::Relaxed);
            }
            Some((val, at))
        });
        let Some((val, at)) = stored else {
            self.long.close();
            return false;
        };
        let tag = piece.len() as u32 | (ids.len() as u32) << 8;
        self.long.insert(
            k,
            tag,
            |tag, s| self.long_same(piece, h, tag, s),
            |s| {
                s.a.store(h, Ordering::Relaxed);
                s.b.store(at as u64, Ordering::Relaxed);
                s.val.store(val, Ordering::Relaxed);
            },
        );
        true
    }
}

/// One thread's view of a batch's memo: the [`SharedMemo`] first, and the thread's own
/// [`PieceMemo`] for the pieces the shared one no longer takes (a table half full).
pub struct SharedPieces<'s, 'a> {
    pub shared: &'s SharedMemo,
    pub own: PieceMemo<'a>,
}

impl<'s, 'a> SharedPieces<'s, 'a> {
    /// A view of `shared` with an empty memo of its own.
    pub fn new(shared: &'s SharedMemo) -> Self {
        SharedPieces {
            shared,
            own: PieceMemo::default(),
        }
    }
}

impl<'a> PieceSink<'a> for SharedPieces<'_, 'a> {
    /// The ids of one piece appended to `out`, as [`PieceMemo::encode`] gives them.
    fn encode(
        &mut self,
        engine: &Engine,
        piece: &'a [u8],
        out: &mut Vec<u32>,
    ) -> Result<(), MissingRank> {
        // a piece of one or two bytes that is a token: one load, as in `PieceMemo::encode`
        // (and the shared table keeps its room for the pieces that need a merge)
        if let Some(token) = engine.index.tiny(piece) {
            out.push(token);
            return Ok(());
        }
        let memo = self.shared;
        let n = piece.len();
        if (1..=SHORT_KEY).contains(&n) {
            return self.encode_keyed(engine, piece, &Key16::new(piece), out);
        }
        if n <= SHORT_KEY || n > SpanMemo::MAX_PIECE {
            return self.own.encode(engine, piece, out);
        }
        if let Some(token) = engine.index.get(&engine.ranks, piece) {
            out.push(token);
            return Ok(());
        }
        let h = hash_long(piece);
        let Err(k) = memo.long_get(piece, h, out) else {
            return Ok(());
        };
        if memo.long.full() {
            return self.own.encode(engine, piece, out);
        }
        let first = out.len();
        bpe_ranks_with(&engine.ranks, &engine.index, piece, out)?;
        memo.long_put(piece, h, k, &out[first..]);
        Ok(())
    }

    /// The shared table's lookup ([`SharedPieces::encode_keyed`]); one- and two-byte tokens
    /// go to the shared table too.
    fn encode_short(
        &mut self,
        engine: &Engine,
        piece: &'a [u8],
        _window: &[u8; SHORT_KEY],
        key: &Key16,
        out: &mut Vec<u32>,
    ) -> Result<(), MissingRank> {
        self.encode_keyed(engine, piece, key, out)
    }
}

impl<'a> SharedPieces<'_, 'a> {
    /// The ids of `piece` (1 to [`SHORT_KEY`] bytes, of key `key`) appended to `out`: from the
    /// shared table, else merged ([`bpe_ranks_key`]) and kept there; once the table is full,
    /// through this thread's own memo.
    #[inline(always)]
    fn encode_keyed(
        &mut self,
        engine: &Engine,
        piece: &'a [u8],
        key: &Key16,
        out: &mut Vec<u32>,
    ) -> Result<(), MissingRank> {
        let memo = self.shared;
        let Err(k) = memo.short_get(key, out) else {
            return Ok(());
        };
        if memo.short.full() {
            return self.own.encode(engine, piece, out);
        }
        let first = out.len();
        bpe_ranks_key(&engine.ranks, &engine.index, piece, key, out)?;
        memo.short_put(key, k, &out[first..]);
        Ok(())
    }
}

/// Whether a short-table slot (published, `tag`) holds the piece of `key`.
fn short_same(key: &Key16) -> impl Fn(u32, &Slot) -> bool + '_ {
    move |tag, s| {
        tag & 0xFF == key.len as u32
            && s.a.load(Ordering::Relaxed) == key.lo
            && s.b.load(Ordering::Relaxed) == key.hi
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ranks::{bpe_heap, RankMap};

    /// A table over the bytes plus merges of "a", "b", "c" (ranks 256..): every pair, then
    /// some triples and longer runs, so pieces merge in several steps.
    fn engine() -> Engine {
        let mut ranks = RankMap::default();
        for b in 0..=255u8 {
            ranks.insert(vec![b], b as u32);
        }
        let tokens: [&[u8]; 12] = [
            b"ab", b"ba", b"aa", b"cc", b"abc", b"aab", b"bab", b"ccc", b"abab", b"cccc", b"aaaa",
            b"abcabc",
        ];
        for t in tokens {
            let n = ranks.len() as u32;
            ranks.insert(t.to_vec(), n);
        }
        Engine::new(ranks, None, None)
    }

    fn pieces(seed: u32, count: usize) -> Vec<Vec<u8>> {
        let mut state = seed;
        (0..count)
            .map(|_| {
                state = state.wrapping_mul(1103515245).wrapping_add(12345);
                let len = 1 + (state >> 16) as usize % 80;
                (0..len)
                    .map(|_| {
                        state = state.wrapping_mul(1103515245).wrapping_add(12345);
                        b"abcab "[(state >> 16) as usize % 6]
                    })
                    .collect()
            })
            .collect()
    }

    fn heap(engine: &Engine, piece: &[u8]) -> Vec<u32> {
        let mut out = Vec::new();
        bpe_heap(&engine.ranks, piece, &mut out).expect("every byte has a rank");
        out
    }

    #[test]
    fn shared_memo_equals_heap() {
        let engine = engine();
        // pieces of 9 to 12 bytes over "ab" that share their first 8 bytes in pairs, and of
        // 17 to 19 bytes that share all but their last byte in pairs (so that the small
        // tables below hold entries that differ from a looked-up piece in its last word only),
        // then random pieces of 1 to 80 bytes
        let mut all = Vec::new();
        for len in [9, 12, 17, 19] {
            for bits in 0..1u32 << 8 {
                for last in [b'a', b'b'] {
                    let mut piece: Vec<u8> = (0..8).map(|i| b'a' + (bits >> i & 1) as u8).collect();
                    piece.resize(len - 1, b'c');
                    piece.push(last);
                    all.push(piece);
                }
            }
        }
        all.extend(pieces(7, 6000));
        // small tables, so that both fill up and the threads' own memos take over
        for (short, long) in [(1 << 12, 1 << 10), (64, 64), (16, 8), (2, 2)] {
            let memo = SharedMemo::with_slots(short, long);
            std::thread::scope(|scope| {
                for t in 0..3 {
                    let (engine, all, memo) = (&engine, &all, &memo);
                    scope.spawn(move || {
                        let mut view = SharedPieces::new(memo);
                        for round in 0..2 {
                            for (i, piece) in all.iter().enumerate() {
                                if (i + t + round) % 2 == 0 {
                                    continue;
                                }
                                let mut got = vec![7];
                                view.encode(engine, piece, &mut got).expect("ranks");
                                assert_eq!(got[1..], heap(engine, piece)[..], "{piece:?}");
                            }
                        }
                    });
                }
            });
            let (s, l) = memo.len();
            let published = |t: &Table| {
                t.slots
                    .iter()
                    .filter(|s| !matches!(s.tag.load(Ordering::Relaxed), 0 | WRITING))
                    .count()
            };
            assert_eq!((s, l), (published(&memo.short), published(&memo.long)));
            assert!(
                s > 0 && (l > 0 || long == 2),
                "the shared tables were used: {s} {l} of {short} {long}"
            );
            assert!(2 * s <= short && 2 * l <= long, "at most half full");
        }
    }
}
