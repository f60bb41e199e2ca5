//! The native engine: a rank table and, for the two published patterns, the proven
//! pre-tokenizer; text is cut into blocks, each block pre-tokenized and every chunk merged.

use crate::ranks::{
    bpe_ranks_key, bpe_ranks_with, bpe_run, home, long_run, short_window, slot16, Key16,
    MissingRank, RankIndex, RankMap, LONG_RUN, SHORT_KEY,
};
use crate::unicode::{ascii, cl100k, llama3, o200k, r50k};
use rustc_hash::FxHashMap;

/// The pre-tokenizers the engine runs natively (Lean `Bpe.Unicode.Cl100k`, `Bpe.Unicode.O200k`,
/// `Bpe.Unicode.R50k`, `Bpe.Unicode.Llama3`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PreTokenizer {
    Cl100k,
    O200k,
    R50k,
    Llama3,
    Llama3Meta,
}

impl PreTokenizer {
    /// By the name of its encoding (`"cl100k_base"`, `"o200k_base"`).
    pub fn by_name(name: &str) -> Option<Self> {
        match name {
            "cl100k_base" => Some(Self::Cl100k),
            "o200k_base" => Some(Self::O200k),
            "r50k_base" => Some(Self::R50k),
            "llama3" => Some(Self::Llama3),
            "llama3_meta" => Some(Self::Llama3Meta),
            _ => None,
        }
    }

    /// Each chunk of `data`, as a byte range, to `emit` (cl100k_base and o200k_base: by the
    /// byte-level fast path of [`ascii`], the mirror's chunks without its code-point arrays).
    pub fn split(self, data: &[u8], emit: impl FnMut(std::ops::Range<usize>)) {
        match self {
            Self::Cl100k => ascii::pre_tokenize_cl100k_fast(data, emit),
            Self::O200k => ascii::pre_tokenize_o200k_fast(data, emit),
            Self::R50k => r50k::pre_tokenize_r50k(data, emit),
            Self::Llama3 => llama3::pre_tokenize_llama3(data, emit),
            Self::Llama3Meta => llama3::pre_tokenize_llama3_meta(data, emit),
        }
    }

    /// Each chunk of `data` by the mirror of the Lean machine alone (no fast path).
    pub fn split_mirror(self, data: &[u8], emit: impl FnMut(std::ops::Range<usize>)) {
        match self {
            Self::Cl100k => cl100k::pre_tokenize_cl100k(data, emit),
            Self::O200k => o200k::pre_tokenize_o200k(data, emit),
            Self::R50k => r50k::pre_tokenize_r50k(data, emit),
            Self::Llama3 => llama3::pre_tokenize_llama3(data, emit),
            Self::Llama3Meta => llama3::pre_tokenize_llama3_meta(data, emit),
        }
    }
}

/// A block is cut at the first "\n" followed by an ASCII letter or digit after this many
/// bytes (the cut of `verified_bpe.engine.tokenizer.text_blocks`: no chunk of either pattern
/// crosses it, and the chunk ending there is the same whether the text goes on or not).
/// 8 KiB: a block's unit offsets and code points (12 bytes per byte of text) then stay in the
/// core's own cache next to the rank table (64 KiB blocks: 768 KiB of arrays per block;
/// simulated 2 MiB-cache misses of a 2 MB encode 16% lower, docs/native.md).  Only the
/// mirrors keep such arrays: cl100k_base and o200k_base, split by the byte-level fast path,
/// are not cut.
pub const BLOCK_BYTES: usize = 1 << 13;

/// `data` in consecutive blocks of about `size` bytes (one block if there is no cut point,
/// none if `data` is empty).
pub fn text_blocks(data: &[u8], size: usize) -> impl Iterator<Item = &[u8]> {
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= data.len() {
            return None;
        }
        let mut end = data.len();
        if data.len() - start > size {
            // the first "\n" from start + size on that is followed by a letter or digit
            let mut j = start + size;
            while let Some(k) = find_newline(&data[j..data.len() - 1]) {
                j += k;
                if data[j + 1].is_ascii_alphanumeric() {
                    end = j + 1;
                    break;
                }
                j += 1;
            }
        }
        let block = &data[start..end];
        start = end;
        Some(block)
    })
}

/// The index of the first `b'\n'` in `s` (`s.iter().position(|&b| b == b'\n')`), eight
/// bytes at a time: a byte of `x ^ 0x0A..0A` is zero exactly where `x` has a newline, and the
/// lowest byte that `(v - 0x01..01) & !v & 0x80..80` marks is the lowest zero byte of `v` (a
/// borrow only runs upwards from a zero byte, so the bytes below the first zero are exact).
fn find_newline(s: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const NL: u64 = 0x0A0A_0A0A_0A0A_0A0A;
    let mut words = s.chunks_exact(8);
    let mut base = 0;
    for word in words.by_ref() {
        let v = u64::from_le_bytes(word.try_into().expect("8 bytes")) ^ NL;
        let zero = v.wrapping_sub(ONES) & !v & (ONES << 7);
        if zero != 0 {
            return Some(base + (zero.trailing_zeros() / 8) as usize);
        }
        base += 8;
    }
    words
        .remainder()
        .iter()
        .position(|&b| b == b'\n')
        .map(|k| base + k)
}

/// A rank table with an optional native pre-tokenizer and an optional custom pattern
/// (compiled by `fancy-regex`, tiktoken's own regex engine).
pub struct Engine {
    pub ranks: RankMap,
    pub pre_tokenizer: Option<PreTokenizer>,
    pub regex: Option<fancy_regex::Regex>,
    /// The [`RankIndex`] of `ranks` ([`crate::ranks::NO_INDEX`] works too, slower).
    pub index: RankIndex,
}

/// Why [`Engine::encode_ordinary_regex`] gave no ids.
#[derive(Debug)]
pub enum RegexEncodeError {
    /// A part without a rank (as for the native pre-tokenizers).
    Missing(MissingRank),
    /// The regex engine gave up (its backtrack limit); the caller splits another way.
    Regex(fancy_regex::Error),
}

impl Engine {
    /// An engine over `ranks`.
    pub fn new(
        ranks: RankMap,
        pre_tokenizer: Option<PreTokenizer>,
        regex: Option<fancy_regex::Regex>,
    ) -> Self {
        let index = RankIndex::new(&ranks);
        Self {
            index,
            ranks,
            pre_tokenizer,
            regex,
        }
    }

    /// The ids of one piece, appended to `out`: [`bpe_run`] for a long run of one byte (its
    /// pumping holds for every table: Lean `Bpe.bytePairMerge_replicate_pump`), else
    /// [`crate::ranks::bpe_ranks`].
    pub fn merge(&self, piece: &[u8], out: &mut Vec<u32>) -> Result<(), MissingRank> {
        if piece.len() >= LONG_RUN
            && long_run(piece).is_some()
            && !self.ranks.contains_key(piece)
            && bpe_run(&self.ranks, piece, out)?
        {
            return Ok(());
        }
        bpe_ranks_with(&self.ranks, &self.index, piece, out)
    }

    /// The ids of `data` without special tokens (needs a pre-tokenizer).
    pub fn encode_ordinary(&self, pre: PreTokenizer, data: &[u8]) -> Result<Vec<u32>, MissingRank> {
        self.encode_ordinary_with(&mut PieceMemo::for_text(data.len()), pre, data)
    }

    /// [`Engine::encode_ordinary`] with the pieces merged through `memo`, which may outlive
    /// the call (a batch thread's [`PieceMemo`] kept across its texts, or a batch's
    /// [`crate::shared_memo::SharedPieces`]): the ids are the same whatever the memo holds,
    /// since every [`PieceSink`] gives a piece's [`bpe_ranks_with`] ids.
    pub fn encode_ordinary_with<'a>(
        &self,
        memo: &mut impl PieceSink<'a>,
        pre: PreTokenizer,
        data: &'a [u8],
    ) -> Result<Vec<u32>, MissingRank> {
        let mut out = Vec::with_capacity(ids_capacity(data));
        // the two published patterns: the byte-level chunk loop and the memo's hits in one
        // loop, over the whole text (it keeps no per-block arrays, so the cut into blocks
        // would only cost its search)
        match pre {
            PreTokenizer::Cl100k => {
                let chunks = ascii::FastChunks::<false>::new(data);
                self.encode_chunks(memo, data, chunks, &mut out)?;
                return Ok(out);
            }
            PreTokenizer::O200k => {
                let chunks = ascii::FastChunks::<true>::new(data);
                self.encode_chunks(memo, data, chunks, &mut out)?;
                return Ok(out);
            }
            _ => {}
        }
        let mut failed: Option<MissingRank> = None;
        // the mirrors, block by block; r50k_base's `\s++$` makes a white-space run before a
        // cut one chunk where the whole text has two (`"  \n"` then a letter), so its text is
        // one block
        let size = if pre == PreTokenizer::R50k {
            usize::MAX
        } else {
            BLOCK_BYTES
        };
        for block in text_blocks(data, size) {
            pre.split(block, |range| {
                if failed.is_none() {
                    if let Err(e) = memo.encode(self, &block[range], &mut out) {
                        failed = Some(e);
                    }
                }
            });
            if let Some(e) = failed {
                return Err(e);
            }
        }
        Ok(out)
    }

    /// The ids of the `chunks` of `block` (byte ranges) appended to `out`, each through `memo`.
    #[inline(always)]
    fn encode_chunks<'a>(
        &self,
        memo: &mut impl PieceSink<'a>,
        block: &'a [u8],
        chunks: impl Iterator<Item = std::ops::Range<usize>>,
        out: &mut Vec<u32>,
    ) -> Result<(), MissingRank> {
        for range in chunks {
            memo.encode_at(self, block, range, out)?;
        }
        Ok(())
    }

    /// The ids of `text` split by the custom pattern `regex` (the whole matches, in order, as
    /// tiktoken's `find_iter`), each merged as by [`Engine::encode_ordinary`].
    pub fn encode_ordinary_regex(
        &self,
        regex: &fancy_regex::Regex,
        text: &str,
    ) -> Result<Vec<u32>, RegexEncodeError> {
        let mut out = Vec::with_capacity(ids_capacity(text.as_bytes()));
        let mut memo = PieceMemo::for_text(text.len());
        for found in regex.find_iter(text) {
            let found = found.map_err(RegexEncodeError::Regex)?;
            memo.encode(self, found.as_str().as_bytes(), &mut out)
                .map_err(RegexEncodeError::Missing)?;
        }
        Ok(out)
    }

    /// The ids of pieces that were split elsewhere (custom patterns): the merge alone.
    pub fn encode_pieces<'a>(
        &self,
        pieces: impl IntoIterator<Item = &'a [u8]>,
    ) -> Result<Vec<u32>, MissingRank> {
        let mut out = Vec::new();
        for piece in pieces {
            self.merge(piece, &mut out)?;
        }
        Ok(out)
    }
}

/// The starting capacity of the ids of `data`: a quarter of its bytes, as English and code give
/// (the bench's 1 MB of code: 231,851 cl100k_base ids), plus one per two bytes >= 128, their count
/// estimated from [`SAMPLES`] windows of [`SAMPLE_BYTES`] spread over the text. Other scripts give
/// more ids per byte (its 1 MB of prose in many scripts, 61% of its bytes >= 128: 433,462 ids), and
/// a vector that doubles mid-encode copies its ids to fresh pages (callgrind, first encode of that
/// prose: 1.3 M instructions of `memcpy`, 20,000 missed cache lines written; page faults of a new
/// process's first encode of it 487 -> 384 with this estimate). Only a hint: the vector still grows
/// if the text has more ids, and it never asks for more than three bytes per byte of text.
/// [`Engine::encode_ordinary_regex`] starts the same way.
fn ids_capacity(data: &[u8]) -> usize {
    let base = data.len() / 4 + 1;
    if data.len() < SAMPLES * SAMPLE_BYTES {
        return base;
    }
    let step = data.len() / SAMPLES;
    let high: usize = (0..SAMPLES)
        .map(|k| {
            let window = &data[k * step..k * step + SAMPLE_BYTES];
            window.iter().filter(|&&b| b >= 0x80).count()
        })
        .sum();
    base + high * (data.len() / (SAMPLES * SAMPLE_BYTES)) / 2
}

/// The windows [`ids_capacity`] samples, and the bytes of each.
const SAMPLES: usize = 32;
const SAMPLE_BYTES: usize = 64;

/// A memo of piece -> ids for one call (the fast engine's `PieceCache`, per call so that
/// threads share nothing): a piece of one or two bytes that is a token is answered by
/// [`RankIndex::tiny`] first; a piece of at most [`ShortMemo::MAX_LEN`] bytes goes to the
/// [`ShortMemo`]; a longer one that is one token is looked up directly; the ids of a longer
/// piece of at most [`SpanMemo::MAX_PIECE`] bytes are merged once per call and copied
/// afterwards ([`SpanMemo`]).
#[derive(Default)]
pub struct PieceMemo<'a> {
    short: ShortMemo,
    spans: SpanMemo<'a>,
}

/// Something that appends the ids of one piece to `out`, as [`bpe_ranks_with`] (or, for a
/// long run, [`Engine::merge`]) gives them, possibly from a memo: [`PieceMemo`] (one
/// thread's) and [`crate::shared_memo::SharedPieces`] (a batch's, shared by its threads).
pub trait PieceSink<'a> {
    /// The ids of `piece`, appended to `out`.
    fn encode(
        &mut self,
        engine: &Engine,
        piece: &'a [u8],
        out: &mut Vec<u32>,
    ) -> Result<(), MissingRank>;

    /// [`PieceSink::encode`] of a piece of 1 to [`SHORT_KEY`] bytes whose key `key` was read
    /// from `window` (the piece's bytes and those after it in its block).
    fn encode_short(
        &mut self,
        engine: &Engine,
        piece: &'a [u8],
        window: &[u8; SHORT_KEY],
        key: &Key16,
        out: &mut Vec<u32>,
    ) -> Result<(), MissingRank>;

    /// [`PieceSink::encode`] of the piece `block[range]` (not empty): a piece of 1 to
    /// [`SHORT_KEY`] bytes with that many bytes of the block from its start is keyed by
    /// [`Key16::in_window`] (no branch on its length) and goes to
    /// [`PieceSink::encode_short`]; any other piece to [`PieceSink::encode`].
    #[inline(always)]
    fn encode_at(
        &mut self,
        engine: &Engine,
        block: &'a [u8],
        range: std::ops::Range<usize>,
        out: &mut Vec<u32>,
    ) -> Result<(), MissingRank> {
        if let Some(window) = short_window(block, &range) {
            let key = Key16::in_window(window, range.len());
            return self.encode_short(engine, &block[range], window, &key, out);
        }
        self.encode(engine, &block[range], out)
    }
}

impl<'a> PieceSink<'a> for PieceMemo<'a> {
    #[inline(always)]
    fn encode(
        &mut self,
        engine: &Engine,
        piece: &'a [u8],
        out: &mut Vec<u32>,
    ) -> Result<(), MissingRank> {
        PieceMemo::encode(self, engine, piece, out)
    }

    /// The short memo's hit, inlined into the chunk loop; one- and two-byte tokens go there
    /// too (their first occurrence is a miss, merged as any other: the whole-piece lookup
    /// finds them).
    #[inline(always)]
    fn encode_short(
        &mut self,
        engine: &Engine,
        piece: &'a [u8],
        window: &[u8; SHORT_KEY],
        key: &Key16,
        out: &mut Vec<u32>,
    ) -> Result<(), MissingRank> {
        match self.short.probe(key) {
            Ok(slot) => {
                self.short.copy_ids(slot, out);
                Ok(())
            }
            Err(k) => self.short.miss_at(engine, piece, window, k, out),
        }
    }
}

impl<'a> PieceMemo<'a> {
    /// An empty memo for one text of `len` bytes: its [`ShortMemo`] starts at
    /// [`ShortMemo::presize`] slots when first used (a memo made by `default` starts small and
    /// grows; a text of long pieces alone never allocates it).
    pub fn for_text(len: usize) -> Self {
        Self {
            short: ShortMemo {
                start: ShortMemo::presize(len),
                ..ShortMemo::default()
            },
            spans: SpanMemo::default(),
        }
    }

    /// The ids of one piece appended to `out`: from the memo if it was merged before, else
    /// merged ([`Engine::merge`] semantics) and kept.  The hits of one- and two-byte tokens and
    /// of the short memo are inlined into the caller's loop; everything else is
    /// [`PieceMemo::encode_other`], out of line (a small hot path keeps the split loop's
    /// registers: no spills per piece).
    #[inline(always)]
    pub fn encode(
        &mut self,
        engine: &Engine,
        piece: &'a [u8],
        out: &mut Vec<u32>,
    ) -> Result<(), MissingRank> {
        // a piece of one or two bytes that is a token: one load (most pieces of code are)
        if let Some(token) = engine.index.tiny(piece) {
            out.push(token);
            return Ok(());
        }
        if !piece.is_empty() && piece.len() <= ShortMemo::MAX_LEN {
            // one hash and one probe: a miss goes on from the empty slot the probe ended at
            let key = Key16::new(piece);
            return match self.short.probe(&key) {
                Ok(slot) => {
                    self.short.copy_ids(slot, out);
                    Ok(())
                }
                Err(k) => self.short.miss(engine, piece, k, out),
            };
        }
        self.encode_other(engine, piece, out)
    }

    /// [`PieceMemo::encode`] of a piece that is not for the short memo: empty (a custom
    /// pattern's empty match has no key there) or longer than [`ShortMemo::MAX_LEN`].
    #[inline(never)]
    fn encode_other(
        &mut self,
        engine: &Engine,
        piece: &'a [u8],
        out: &mut Vec<u32>,
    ) -> Result<(), MissingRank> {
        let ranks = &engine.ranks;
        if let Some(token) = engine.index.get(ranks, piece) {
            out.push(token);
            return Ok(());
        }
        if piece.len() > SpanMemo::MAX_PIECE {
            return engine.merge(piece, out);
        }
        self.spans.encode(piece, out, |piece, out| {
            bpe_ranks_with(ranks, &engine.index, piece, out)
        })
    }
}

/// piece -> ids, each piece merged once (by the merge step given to [`SpanMemo::encode`]) and
/// its ids copied afterwards: the rank engine's [`PieceMemo`] for pieces of 17 to
/// [`SpanMemo::MAX_PIECE`] bytes, and the merge-list engine's memo
/// ([`crate::merges::MergeList`]).  Bounded: cleared at [`SpanMemo::LIMIT`] entries.
#[derive(Default)]
pub struct SpanMemo<'a> {
    spans: FxHashMap<&'a [u8], (u32, u32)>,
    ids: Vec<u32>,
}

impl<'a> SpanMemo<'a> {
    /// The callers memoise pieces of at most this many bytes.
    pub const MAX_PIECE: usize = 64;
    const LIMIT: usize = 1 << 15;

    /// The ids of `piece`, appended to `out`: copied if the piece was merged before, else
    /// appended by `merge` and kept (the ids do not depend on what the memo holds, as long as
    /// one memo is used with one merge step).
    pub fn encode<E>(
        &mut self,
        piece: &'a [u8],
        out: &mut Vec<u32>,
        merge: impl FnOnce(&[u8], &mut Vec<u32>) -> Result<(), E>,
    ) -> Result<(), E> {
        if let Some(&(start, end)) = self.spans.get(piece) {
            out.extend_from_slice(&self.ids[start as usize..end as usize]);
            return Ok(());
        }
        let first = out.len();
        merge(piece, out)?;
        if self.spans.len() >= Self::LIMIT {
            self.spans.clear();
            self.ids.clear();
        }
        let start = self.ids.len() as u32;
        self.ids.extend_from_slice(&out[first..]);
        self.spans.insert(piece, (start, self.ids.len() as u32));
        Ok(())
    }
}

/// `work(state, k)` for every index `k` in `order` (a permutation of `0..order.len()`), on
/// `threads` threads in all (this one and scoped ones), which claim the indices one at a time
/// in `order`; each thread makes its own `state()` once and keeps it across its indices (the
/// batches' piece memos).  The results in index order; the first error stops the claiming
/// and is returned.  The flat and Arrow batches (`encode_each` in `python.rs`) and the
/// merge-list engine's batch ([`crate::merges::parallel_map`]) run on it.
pub fn parallel_each<S, T: Send, E: Send>(
    order: &[usize],
    threads: usize,
    state: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, usize) -> Result<T, E> + Sync,
) -> Result<Vec<T>, E> {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let n = order.len();
    let threads = threads.clamp(1, n.max(1));
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let run = || -> Result<Vec<(usize, T)>, E> {
        let mut done = Vec::new();
        let mut own = state();
        while !failed.load(Ordering::Relaxed) {
            let Some(&k) = order.get(next.fetch_add(1, Ordering::Relaxed)) else {
                break;
            };
            match work(&mut own, k) {
                Ok(value) => done.push((k, value)),
                Err(e) => {
                    failed.store(true, Ordering::Relaxed);
                    return Err(e);
                }
            }
        }
        Ok(done)
    };
    let finished = std::thread::scope(|scope| {
        let others: Vec<_> = (1..threads).map(|_| scope.spawn(run)).collect();
        let mut finished = vec![run()];
        finished.extend(
            others
                .into_iter()
                .map(|h| h.join().expect("encoder thread")),
        );
        finished
    });
    let mut slots: Vec<Option<T>> = (0..n).map(|_| None).collect();
    for done in finished {
        for (k, value) in done? {
            slots[k] = Some(value);
        }
    }
    Ok(slots
        .into_iter()
        .map(|v| v.expect("every index done"))
        .collect())
}

/// One entry of a [`ShortMemo`]: the piece's bytes packed little-endian into `lo` and `hi`
/// (zero-padded), `meta` = its length (0: an empty slot) plus 256 times its number of ids,
/// `val` its id if it has one, else where its ids start in [`ShortMemo::ids`].
#[derive(Clone, Copy, Default)]
struct Slot {
    lo: u64,
    hi: u64,
    meta: u32,
    val: u32,
}

/// The ids of pieces of at most [`ShortMemo::MAX_LEN`] bytes, memoised for one call, in an
/// open-addressing table that keeps each piece inline (two words and its length: one probe
/// compares them, no pointer to follow), so a repeated piece does not touch the rank table.
/// A miss is merged by [`crate::ranks::bpe_ranks`] (which looks the whole piece up first, as tiktoken
/// does), so the ids are `bpe_ranks`' in every case.  The table starts at
/// [`ShortMemo::MIN_SLOTS`] slots (or at [`ShortMemo::presize`] of the text's length, so that
/// one text's encode does not double and rehash it again and again), doubles at half load up
/// to [`ShortMemo::MAX_SLOTS`], and is emptied when that is half full.
#[derive(Default)]
struct ShortMemo {
    slots: Vec<Slot>,
    used: usize,
    /// The ids of the pieces of more than one id, one piece after the other, then
    /// [`ShortMemo::MAX_LEN`] zeros (for [`ShortMemo::copy_ids`]; none while it is empty).
    ids: Vec<u32>,
    /// The slots made on first use (0: [`ShortMemo::MIN_SLOTS`]; else a power of two).
    start: usize,
}

impl ShortMemo {
    const MAX_LEN: usize = crate::ranks::SHORT_KEY;
    const MIN_SLOTS: usize = 1 << 8;
    const MAX_SLOTS: usize = 1 << 16;
    /// The most slots [`ShortMemo::presize`] gives (1.5 MiB of slots): the most the memo
    /// holds.
    const MAX_PRESIZE: usize = Self::MAX_SLOTS;

    /// The starting slots for a text of `len` bytes: one per 16 bytes, a power of two in
    /// [`ShortMemo::MIN_SLOTS`]..=[`ShortMemo::MAX_PRESIZE`] (the bench's 1 MB of code holds
    /// 12,800 distinct pieces of at most 16 bytes under either pattern, its 1 MB of prose in
    /// many scripts 20,000, which fit at half load without doubling: callgrind, cl100k prose
    /// 97.10 M -> 95.88 M instructions, 881 K -> 829 K mispredicted, against a cap of 2^15).
    fn presize(len: usize) -> usize {
        (len / 16)
            .next_power_of_two()
            .clamp(Self::MIN_SLOTS, Self::MAX_PRESIZE)
    }

    /// The slot of the piece of `key` if it is in the memo (`Ok`), else the index of the
    /// empty slot where its probe ended (`Err`; `usize::MAX` while the memo has no slots yet).
    /// The one probe loop of the memo: [`PieceMemo::encode`]'s hit and [`ShortMemo::miss`]'s
    /// insertion both come from it.
    #[inline(always)]
    fn probe(&self, key: &Key16) -> Result<Slot, usize> {
        if self.slots.is_empty() {
            return Err(usize::MAX);
        }
        let mask = self.slots.len() - 1;
        let mut k = home(key.hash, mask);
        loop {
            let slot = self.slots[k];
            if slot.meta == 0 {
                return Err(k);
            }
            if slot.lo == key.lo && slot.hi == key.hi && slot.meta as usize & 0xFF == key.len {
                return Ok(slot);
            }
            k = (k + 1) & mask;
        }
    }

    /// The ids of the piece of `slot` (a slot of this memo) appended to `out`. Several ids are
    /// copied as a constant [`ShortMemo::MAX_LEN`] of them (the most a piece of the memo has;
    /// [`ShortMemo::ids`] keeps that many zeros after its last id), then cut to their count:
    /// a few vector moves instead of a `memcpy` call whose size branches the predictor misses.
    #[inline(always)]
    fn copy_ids(&self, slot: Slot, out: &mut Vec<u32>) {
        let count = (slot.meta >> 8) as usize;
        if count == 1 {
            out.push(slot.val);
        } else {
            let start = slot.val as usize;
            let len = out.len();
            let ids: &[u32; Self::MAX_LEN] = self.ids[start..start + Self::MAX_LEN]
                .try_into()
                .expect("MAX_LEN ids");
            out.extend_from_slice(ids);
            out.truncate(len + count);
        }
    }

    /// The ids of `piece` (1..=[`ShortMemo::MAX_LEN`] bytes), which [`ShortMemo::probe`] did
    /// not find and whose probe ended at the empty slot `k`, appended to `out`: merged by
    /// [`bpe_ranks_with`] (through [`bpe_ranks_key`], which reuses the key's hash for the
    /// whole-piece lookup) and kept at slot `k`.  The caller's key is not passed: its words are
    /// recomputed here (a few instructions per miss) so that the hot loop does not store it
    /// for every piece.
    #[inline(never)]
    fn miss(
        &mut self,
        engine: &Engine,
        piece: &[u8],
        k: usize,
        out: &mut Vec<u32>,
    ) -> Result<(), MissingRank> {
        self.miss_key(engine, piece, &Key16::new(piece), k, out)
    }

    /// [`ShortMemo::miss`] of a piece that starts `window` (the chunk loop's
    /// [`PieceSink::encode_at`]): its key recomputed by [`Key16::in_window`], with no branch on
    /// the piece's length.
    #[inline(never)]
    fn miss_at(
        &mut self,
        engine: &Engine,
        piece: &[u8],
        window: &[u8; Self::MAX_LEN],
        k: usize,
        out: &mut Vec<u32>,
    ) -> Result<(), MissingRank> {
        self.miss_key(
            engine,
            piece,
            &Key16::in_window(window, piece.len()),
            k,
            out,
        )
    }

    /// The body of [`ShortMemo::miss`] and [`ShortMemo::miss_at`], given the piece's key.
    #[inline(always)]
    fn miss_key(
        &mut self,
        engine: &Engine,
        piece: &[u8],
        key: &Key16,
        mut k: usize,
        out: &mut Vec<u32>,
    ) -> Result<(), MissingRank> {
        if self.slots.is_empty() {
            self.slots = vec![Slot::default(); self.start.max(Self::MIN_SLOTS)];
            k = home(key.hash, self.slots.len() - 1);
        }
        let first = out.len();
        bpe_ranks_key(&engine.ranks, &engine.index, piece, key, out)?;
        let count = out.len() - first;
        let val = if count == 1 {
            out[first]
        } else {
            // the ids in place of the last MAX_LEN zeros, then MAX_LEN zeros again
            let start = self.ids.len().saturating_sub(Self::MAX_LEN);
            self.ids.truncate(start);
            self.ids.extend_from_slice(&out[first..]);
            self.ids.resize(self.ids.len() + Self::MAX_LEN, 0);
            start as u32
        };
        self.slots[k] = Slot {
            lo: key.lo,
            hi: key.hi,
            meta: key.len as u32 | (count as u32) << 8,
            val,
        };
        self.used += 1;
        if 2 * self.used > self.slots.len() {
            self.grow();
        }
        Ok(())
    }

    /// Twice the slots, the entries moved over; at [`ShortMemo::MAX_SLOTS`], empty instead.
    fn grow(&mut self) {
        if self.slots.len() >= Self::MAX_SLOTS {
            self.slots.fill(Slot::default());
            self.ids.clear();
            self.used = 0;
            return;
        }
        let bigger = vec![Slot::default(); 2 * self.slots.len()];
        let old = std::mem::replace(&mut self.slots, bigger);
        let mask = self.slots.len() - 1;
        for slot in old.into_iter().filter(|s| s.meta != 0) {
            let mut k = slot16(slot.lo, slot.hi, slot.meta as usize & 0xFF, mask);
            while self.slots[k].meta != 0 {
                k = (k + 1) & mask;
            }
            self.slots[k] = slot;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`text_blocks`]' cut written out byte by byte: the first `"\n"` at or after
    /// `start + size` followed by an ASCII letter or digit.
    fn blocks_by_definition(data: &[u8], size: usize) -> Vec<&[u8]> {
        let mut out = Vec::new();
        let mut start = 0;
        while start < data.len() {
            let mut end = data.len();
            if data.len() - start > size {
                for j in start + size..data.len() - 1 {
                    if data[j] == b'\n' && data[j + 1].is_ascii_alphanumeric() {
                        end = j + 1;
                        break;
                    }
                }
            }
            out.push(&data[start..end]);
            start = end;
        }
        out
    }

    /// [`ids_capacity`] asks for a quarter of the bytes of ASCII text, about half as much again
    /// for text of bytes >= 128 alone, and never for more than three bytes of ids per byte.
    #[test]
    fn ids_capacity_bounds() {
        for len in [0, 1, 100, 2047, 2048, 2049, 10_000, 65_537, 1 << 20] {
            let ascii = vec![b'a'; len];
            assert_eq!(ids_capacity(&ascii), len / 4 + 1, "{len} ASCII bytes");
            let high: Vec<u8> = "é".bytes().cycle().take(len).collect();
            let cap = ids_capacity(&high);
            assert!(4 * cap <= 3 * len + 4, "{len} high bytes: {cap} ids");
            if len >= SAMPLES * SAMPLE_BYTES {
                assert!(
                    cap + SAMPLES * SAMPLE_BYTES >= len / 4 + len / 2,
                    "{len} high bytes: {cap} ids"
                );
            }
        }
    }

    /// [`find_newline`] against `position`, and [`text_blocks`] against its definition, on
    /// random texts of newlines, spaces, letters, digits and high bytes (every offset of the
    /// newline inside a word, texts shorter and longer than a word).
    #[test]
    fn test_find_newline_and_blocks() {
        let mut next = crate::xorshift(0x2545_F491_4F6C_DD1Du64);
        let alphabet = b"\n\n  \tab9Z\xc3\xa9(";
        for round in 0..3000 {
            let len = (next() % 200) as usize;
            let density = 1 + next() % 40;
            let data: Vec<u8> = (0..len)
                .map(|_| {
                    if next().is_multiple_of(density) {
                        b'\n'
                    } else {
                        alphabet[2 + (next() % (alphabet.len() as u64 - 2)) as usize]
                    }
                })
                .collect();
            for from in 0..data.len().min(20) {
                let s = &data[from..];
                assert_eq!(
                    find_newline(s),
                    s.iter().position(|&b| b == b'\n'),
                    "round {round}"
                );
            }
            for size in [1, 2, 7, 8, 9, 16, 33] {
                let got: Vec<&[u8]> = text_blocks(&data, size).collect();
                assert_eq!(got, blocks_by_definition(&data, size), "round {round}");
            }
        }
    }
}
