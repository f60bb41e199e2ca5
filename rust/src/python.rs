//! The Python bindings: `verified_bpe._native` (used through `verified_bpe.engine.native`).

use pyo3::buffer::PyBuffer;
use pyo3::exceptions::{PyKeyError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyString};
use rustc_hash::FxHashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use crate::buffer_view;
use crate::engine::{parallel_each, Engine, PieceMemo, PieceSink, PreTokenizer, RegexEncodeError};
use crate::ranks::{bpe_buckets, bpe_heap, bpe_scan, MissingRank, RankMap};
use crate::shared_memo::{SharedMemo, SharedPieces};
use crate::unicode::{cl100k, llama3, o200k, r50k, tables};

fn missing(e: MissingRank) -> PyErr {
    PyKeyError::new_err((PyBytesOwned(e.part), PyBytesOwned(e.piece)))
}

/// Bytes that convert to a Python `bytes` object.
struct PyBytesOwned(Vec<u8>);

impl<'py> IntoPyObject<'py> for PyBytesOwned {
    type Target = PyBytes;
    type Output = Bound<'py, PyBytes>;
    type Error = std::convert::Infallible;
    fn into_pyobject(self, py: Python<'py>) -> Result<Self::Output, Self::Error> {
        Ok(PyBytes::new(py, &self.0))
    }
}

fn regex_error(e: RegexEncodeError) -> PyErr {
    match e {
        RegexEncodeError::Missing(e) => missing(e),
        RegexEncodeError::Regex(e) => PyRuntimeError::new_err(format!("fancy-regex: {e}")),
    }
}

/// How a text is split: a native pre-tokenizer or a custom pattern.
#[derive(Clone, Copy)]
enum Split<'a> {
    Pre(PreTokenizer),
    Regex(&'a fancy_regex::Regex),
}

impl Split<'_> {
    fn encode(self, engine: &Engine, text: &str) -> Result<Vec<u32>, RegexEncodeError> {
        self.encode_memo(engine, text, &mut PieceMemo::for_text(text.len()))
    }

    /// [`Split::encode`] with the piece memo of a batch's thread, its own or a view of the
    /// batch's [`SharedMemo`] (a custom pattern keeps none).
    fn encode_memo<'a>(
        self,
        engine: &Engine,
        text: &'a str,
        memo: &mut impl PieceSink<'a>,
    ) -> Result<Vec<u32>, RegexEncodeError> {
        match self {
            Split::Pre(pre) => engine
                .encode_ordinary_with(memo, pre, text.as_bytes())
                .map_err(RegexEncodeError::Missing),
            Split::Regex(regex) => engine.encode_ordinary_regex(regex, text),
        }
    }
}

fn pre_tokenizer(name: &str) -> PyResult<PreTokenizer> {
    PreTokenizer::by_name(name).ok_or_else(|| {
        PyValueError::new_err(format!(
            "no native pre-tokenizer named {name:?} (cl100k_base, o200k_base, r50k_base, llama3, llama3_meta)"
        ))
    })
}

/// Evaluates `$body` with `$memo` bound to the maker of a batch thread's piece memo (each
/// thread calls it once): on `$threads` (2 or more) threads with a native pre-tokenizer, a
/// view of one [`SharedMemo`] sized for the texts' bytes `$lens` (see [`shared_memo`]); else
/// each thread's own [`PieceMemo`], presized for its share of the bytes ([`PieceMemo::for_text`]
/// of the bytes over the threads: a one-text flat batch, `encode_to_numpy`'s route, then sizes
/// its memo as `encode_ordinary` does instead of growing it from the smallest table).  `$body`
/// is compiled once for each kind of memo, so the
/// encode loops call theirs without a dispatch.  Then records the shared memo's entries for
/// `NativeBpe.last_shared_memo` (the one place that sets [`LAST_SHARED`]).  The flat, Arrow
/// and list batches choose their memo here.
macro_rules! with_batch_memo {
    ($split:expr, $threads:expr, $lens:expr, |$memo:ident| $body:expr) => {{
        let bytes: usize = $lens.sum();
        let shared = shared_memo($split, $threads, bytes);
        let result = match &shared {
            Some(shared) => {
                let $memo = || SharedPieces::new(shared);
                $body
            }
            None => {
                let own = bytes / $threads.max(1);
                let $memo = || PieceMemo::for_text(own);
                $body
            }
        };
        LAST_SHARED.with(|last| last.set(shared.as_ref().map_or((0, 0), SharedMemo::len)));
        result
    }};
}

/// A rank table (`dict[bytes, int]`) with the native pre-tokenizer of `pre_tokenizer`
/// (`"cl100k_base"`, `"o200k_base"`), or a custom `pattern` compiled by `fancy-regex`
/// (tiktoken's engine; the caller pins its classes and checks it), or neither (split in
/// Python, merge here).
#[pyclass(frozen, module = "verified_bpe._native")]
struct NativeBpe {
    engine: Engine,
    /// The Python int of every rank `0..=max` (when the ranks are dense): the id lists
    /// returned share these objects instead of allocating one int per id (the memory of a
    /// 50 MB encode is then the list's 8 bytes per id, as for the fast engine's cached ids).
    ints: Vec<Py<PyAny>>,
}

#[pymethods]
impl NativeBpe {
    #[new]
    #[pyo3(signature = (ranks, pre_tokenizer=None, pattern=None))]
    fn new(
        ranks: &Bound<'_, PyDict>,
        pre_tokenizer: Option<&str>,
        pattern: Option<&str>,
    ) -> PyResult<Self> {
        let mut map: RankMap = FxHashMap::with_capacity_and_hasher(ranks.len(), Default::default());
        for (key, value) in ranks.iter() {
            let bytes = key.cast::<PyBytes>()?.as_bytes().to_vec();
            let rank: u32 = value.extract()?;
            map.insert(bytes, rank);
        }
        let pre = match pre_tokenizer {
            Some(name) => Some(self::pre_tokenizer(name)?),
            None => None,
        };
        let regex = match pattern {
            Some(p) => Some(
                fancy_regex::Regex::new(p)
                    .map_err(|e| PyValueError::new_err(format!("fancy-regex: {e}")))?,
            ),
            None => None,
        };
        let max = map.values().copied().max().map_or(0, |m| m as usize + 1);
        let ints = if max <= 2 * map.len() + 1024 {
            let py = ranks.py();
            (0..max)
                .map(|r| Ok((r as u32).into_pyobject(py)?.into_any().unbind()))
                .collect::<PyResult<Vec<_>>>()?
        } else {
            Vec::new()
        };
        Ok(NativeBpe {
            engine: Engine::new(map, pre, regex),
            ints,
        })
    }

    /// The ids of `text` with the native pre-tokenizer, special tokens ignored (the GIL is
    /// released while encoding).
    fn encode_ordinary<'py>(&self, py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyList>> {
        let ids = self.ids_of(py, text)?;
        self.id_list(py, &ids)
    }

    /// `encode_ordinary` as an [`buffer_view::IdBuffer`]: the ids' vector exported as a
    /// read-only buffer of native-order `u32`s, for `numpy.frombuffer` without a copy (the
    /// flat batch copies its texts' ids into one `bytearray`, which a single text does not
    /// need). A lone surrogate raises `UnicodeEncodeError`, as in `encode_ordinary_batch`.
    fn encode_ordinary_ids(&self, py: Python<'_>, text: &str) -> PyResult<buffer_view::IdBuffer> {
        Ok(buffer_view::IdBuffer::new(self.ids_of(py, text)?))
    }

    /// `encode_ordinary` on each text, on `num_threads` threads in all, without the GIL.
    ///
    /// The texts are read in place (their UTF-8 form, which CPython caches; a text with a lone
    /// surrogate raises `UnicodeEncodeError`, and the caller replaces them first): this thread
    /// reads them in order under the GIL while the other threads already encode the texts
    /// read (one that claims a text not read yet waits for it; a text that cannot be read
    /// stops the batch and is the error). The calling thread is one of the `num_threads`: it
    /// then encodes texts too (without the GIL), and between two of its own texts it turns the
    /// texts the other threads finished into Python lists. So `num_threads = 1` runs on one
    /// thread, and no more threads than asked for compete for the cores.
    #[pyo3(signature = (texts, num_threads=8))]
    fn encode_ordinary_batch<'py>(
        &self,
        py: Python<'py>,
        texts: Vec<Bound<'py, PyString>>,
        num_threads: usize,
    ) -> PyResult<Vec<Bound<'py, PyList>>> {
        use std::sync::atomic::AtomicBool;
        use std::sync::OnceLock;
        let split = self.split()?;
        let engine = &self.engine;
        let n = texts.len();
        let threads = num_threads.clamp(1, n.max(1));
        let strs: &Vec<OnceLock<&str>> = &(0..n).map(|_| OnceLock::new()).collect();
        let (next, stop) = (&AtomicUsize::new(0), &AtomicBool::new(false));
        let claim = || {
            let k = next.fetch_add(1, Ordering::Relaxed);
            (k < n).then_some(k)
        };
        // text `k` once read (`None`: the batch stopped, a text could not be read)
        let text = |k: usize| loop {
            if let Some(&text) = strs[k].get() {
                return Some(text);
            }
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            std::thread::yield_now();
        };
        let mut batch = BatchLists {
            lists: vec![None; n],
            failed: None,
        };
        let mut read = Ok(());
        let lens = texts.iter().map(|t| t.len().unwrap_or(0));
        with_batch_memo!(split, threads, lens, |memo| std::thread::scope(|scope| {
            let (tx, mut rx) = mpsc::channel();
            for _ in 1..threads {
                let tx = tx.clone();
                scope.spawn(move || {
                    let mut memo = memo();
                    while let Some(k) = claim() {
                        let Some(text) = text(k) else { break };
                        let ids = split.encode_memo(engine, text, &mut memo);
                        if tx.send((k, ids)).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(tx);
            for (slot, t) in strs.iter().zip(&texts) {
                match t.to_str() {
                    Ok(text) => {
                        let _ = slot.set(text);
                    }
                    Err(e) => {
                        next.store(n, Ordering::Relaxed);
                        stop.store(true, Ordering::Relaxed);
                        read = Err(e);
                        break;
                    }
                }
            }
            let record = |batch: &mut BatchLists<'py>, k, ids| {
                if !batch.record(self, py, k, ids) {
                    next.store(n, Ordering::Relaxed);
                }
            };
            let mut memo = memo();
            while let Some(k) = claim() {
                while let Ok((j, ids)) = rx.try_recv() {
                    record(&mut batch, j, ids);
                }
                let Some(text) = text(k) else { break };
                let ids = py.detach(|| split.encode_memo(engine, text, &mut memo));
                record(&mut batch, k, ids);
            }
            loop {
                // Wait for the other threads without the GIL (the receiver goes and comes back).
                let (back, message) = py.detach(move || {
                    let message = rx.recv();
                    (rx, message)
                });
                rx = back;
                let Ok((k, ids)) = message else { break };
                record(&mut batch, k, ids);
            }
        }));
        read?;
        if let Some(e) = batch.failed {
            return Err(e);
        }
        Ok(batch
            .lists
            .into_iter()
            .map(|list| list.expect("every text was encoded"))
            .collect())
    }

    /// `encode_ordinary` on each text, flat: `(ids, offsets)` as two `bytearray`s, the ids
    /// `u32` and the `len(texts) + 1` offsets `i64` in native byte order (text `k`'s ids are
    /// `ids[offsets[k]:offsets[k + 1]]`). The texts are encoded on `num_threads` threads in all
    /// without the GIL, and no Python object is made per id (the caller wraps the buffers
    /// with `numpy.frombuffer`). A lone surrogate raises `UnicodeEncodeError`, as in
    /// `encode_ordinary_batch`.
    #[pyo3(signature = (texts, num_threads=8))]
    fn encode_ordinary_batch_flat<'py>(
        &self,
        py: Python<'py>,
        texts: Vec<Bound<'py, PyString>>,
        num_threads: usize,
    ) -> PyResult<(Bound<'py, PyByteArray>, Bound<'py, PyByteArray>)> {
        let split = self.split()?;
        let engine = &self.engine;
        if num_threads.min(texts.len()) <= 1 {
            let strs = texts
                .iter()
                .map(|t| t.to_str().map(Some))
                .collect::<PyResult<Vec<Option<&str>>>>()?;
            let parts = py
                .detach(|| encode_each(split, engine, &strs, num_threads))
                .map_err(regex_error)?;
            return flat_arrays(py, &parts, false);
        }
        let parts = encode_while_reading(py, split, engine, &texts, num_threads)?;
        flat_arrays(py, &parts, false)
    }

    /// The flat batch of `length` UTF-8 strings laid out as Arrow lays them: row `i` is
    /// `data[o[start + i]..o[start + i + 1]]` with `o` the offsets buffer (`i64` if `wide`, else
    /// `i32`, little-endian), and is null when `validity` (a bitmap, bit `start + i`) says so:
    /// a null row has no ids. The buffers are read in place (`buffer_view`; held until the
    /// call returns, so they must not be written meanwhile: Arrow's arrays are immutable), or
    /// copied once if `in_place` is false (the bench's comparison). The whole batch runs without
    /// the GIL: each row is checked to lie in `data` (its offsets non-negative, non-decreasing,
    /// within the buffer) and to be UTF-8, else `ValueError((row, kind, message))` with `kind`
    /// `"offsets"` or `"utf8"`. `counts_only`: the ids buffer is empty (the offsets still
    /// count the ids).
    #[pyo3(signature = (data, offsets, wide, start, length, validity=None, num_threads=8, counts_only=false, in_place=true))]
    #[allow(clippy::too_many_arguments)]
    fn encode_utf8_flat<'py>(
        &self,
        py: Python<'py>,
        data: PyBuffer<u8>,
        offsets: PyBuffer<u8>,
        wide: bool,
        start: usize,
        length: usize,
        validity: Option<PyBuffer<u8>>,
        num_threads: usize,
        counts_only: bool,
        in_place: bool,
    ) -> PyResult<(Bound<'py, PyByteArray>, Bound<'py, PyByteArray>)> {
        let split = self.split()?;
        let copies = if in_place {
            None
        } else {
            let validity = validity.as_ref().map(|v| buffer_bytes(py, v)).transpose()?;
            Some((
                buffer_bytes(py, &data)?,
                buffer_bytes(py, &offsets)?,
                validity,
            ))
        };
        let (data, offsets, validity) = match &copies {
            Some((d, o, v)) => (&d[..], &o[..], v.as_deref()),
            None => (
                buffer_view::bytes(&data, "data")?,
                buffer_view::bytes(&offsets, "offsets")?,
                validity
                    .as_ref()
                    .map(|v| buffer_view::bytes(v, "validity"))
                    .transpose()?,
            ),
        };
        let rows = ArrowStrings::new(data, offsets, wide, start, length, validity)?;
        let engine = &self.engine;
        let parts = py.detach(|| {
            // each row's UTF-8 is checked by the thread that encodes it (encode_each)
            let parts = match rows.rows() {
                Ok(texts) => encode_each(split, engine, &texts, num_threads),
                Err(bad) => Err(BatchError::Row(bad)),
            };
            // on an error, the first bad row in row order is the error (as if every row had
            // been checked before any was encoded), else the error met
            parts.map_err(|e| rows.strs().err().map_or(e, BatchError::Row))
        });
        let parts = match parts {
            Ok(parts) => parts,
            Err(BatchError::Row(bad)) => {
                let message = match bad.kind {
                    "utf8" => format!("row {}: invalid UTF-8 at byte {}", bad.row, bad.at),
                    _ => format!(
                        "row {}: offsets {}..{} outside the data",
                        bad.row, bad.lo, bad.hi
                    ),
                };
                return Err(PyValueError::new_err((bad.row, bad.kind, message)));
            }
            Err(BatchError::Encode(e)) => return Err(regex_error(e)),
            Err(BatchError::NotUtf8) => return Err(PyValueError::new_err("invalid UTF-8")),
        };
        flat_arrays(py, &parts, counts_only)
    }

    /// The entries `(short, long)` that this thread's last batch (flat, Arrow or lists) left
    /// in the memo its threads shared, `(0, 0)` if it ran on one thread (for the tests).
    #[staticmethod]
    fn last_shared_memo() -> (usize, usize) {
        LAST_SHARED.with(|last| last.get())
    }

    /// The ids of pieces split elsewhere (a list of `str`): the native merge alone.
    fn encode_pieces<'py>(&self, pieces: &Bound<'py, PyList>) -> PyResult<Bound<'py, PyList>> {
        let mut out = Vec::new();
        for item in pieces.iter() {
            let piece: String = item.extract()?;
            self.engine
                .merge(piece.as_bytes(), &mut out)
                .map_err(missing)?;
        }
        self.id_list(pieces.py(), &out)
    }

    /// Rank BPE of one piece of bytes (`algorithm`: `"auto"` (the engine's own path),
    /// `"scan"`, `"heap"`, `"buckets"`, `"runs"` (the long-run path; `ValueError` if it does not pump)).
    #[pyo3(signature = (piece, algorithm="auto"))]
    fn bpe(&self, piece: &[u8], algorithm: &str) -> PyResult<Vec<u32>> {
        let mut out = Vec::new();
        let ranks = &self.engine.ranks;
        match algorithm {
            "auto" => self.engine.merge(piece, &mut out),
            "runs" => match crate::ranks::bpe_run(ranks, piece, &mut out) {
                Ok(false) => return Err(PyValueError::new_err("not a pumped run")),
                done => done.map(|_| ()),
            },
            "scan" => bpe_scan(ranks, piece, &mut out),
            "heap" => bpe_heap(ranks, piece, &mut out),
            "buckets" => bpe_buckets(ranks, piece, &mut out),
            _ => {
                return Err(PyValueError::new_err(format!(
                    "unknown algorithm {algorithm:?}"
                )))
            }
        }
        .map_err(missing)?;
        Ok(out)
    }

    /// The whole matches of the custom pattern in `text` (for the tests).
    fn split_text(&self, text: &str) -> PyResult<Vec<String>> {
        let Some(regex) = &self.engine.regex else {
            return Err(PyValueError::new_err("this table has no custom pattern"));
        };
        regex
            .find_iter(text)
            .map(|m| m.map(|m| m.as_str().to_owned()))
            .collect::<Result<_, _>>()
            .map_err(|e| PyRuntimeError::new_err(format!("fancy-regex: {e}")))
    }

    /// The number of entries of the rank table.
    fn __len__(&self) -> usize {
        self.engine.ranks.len()
    }
}

/// Why a flat batch over UTF-8 buffers stopped.
enum BatchError {
    /// A row that is not a UTF-8 string of the data buffer.
    Row(BadRow),
    /// A row that a batch thread found not to be UTF-8 (the first bad row is then looked for
    /// in row order: [`ArrowStrings::strs`]).
    NotUtf8,
    Encode(RegexEncodeError),
}

impl From<RegexEncodeError> for BatchError {
    fn from(e: RegexEncodeError) -> Self {
        BatchError::Encode(e)
    }
}

/// A text of a batch as [`encode_each`] takes it: `None` (no ids) or a string, whose UTF-8 is
/// checked (if it is bytes) by the thread that encodes it, so that the check runs on the
/// batch's threads rather than before them.
trait BatchText<'a>: Sync {
    type Error: From<RegexEncodeError> + Send;
    /// Its length in bytes (0 for `None`).
    fn bytes(&self) -> usize;
    /// The string (`None`: no ids), or why it is not one.
    fn text(&self) -> Result<Option<&'a str>, Self::Error>;
}

impl<'a> BatchText<'a> for Option<&'a str> {
    type Error = RegexEncodeError;
    fn bytes(&self) -> usize {
        self.map_or(0, str::len)
    }
    fn text(&self) -> Result<Option<&'a str>, RegexEncodeError> {
        Ok(*self)
    }
}

impl<'a> BatchText<'a> for Option<&'a [u8]> {
    type Error = BatchError;
    fn bytes(&self) -> usize {
        self.map_or(0, <[u8]>::len)
    }
    fn text(&self) -> Result<Option<&'a str>, BatchError> {
        self.map(std::str::from_utf8)
            .transpose()
            .map_err(|_| BatchError::NotUtf8)
    }
}

/// Row `row` (counted from the array's first row) is not a string of the data buffer: `kind`
/// `"offsets"` (its offsets `lo..hi` are negative, decreasing or past the data) or `"utf8"`
/// (not UTF-8 from byte `at` of the row).
struct BadRow {
    row: usize,
    kind: &'static str,
    lo: i64,
    hi: i64,
    at: usize,
}

/// The rows of an Arrow `string`/`large_string` array over its three buffers (checked for
/// length against `start + length` rows when made).
struct ArrowStrings<'a> {
    data: &'a [u8],
    offsets: &'a [u8],
    wide: bool,
    start: usize,
    length: usize,
    validity: Option<&'a [u8]>,
}

impl<'a> ArrowStrings<'a> {
    fn new(
        data: &'a [u8],
        offsets: &'a [u8],
        wide: bool,
        start: usize,
        length: usize,
        validity: Option<&'a [u8]>,
    ) -> PyResult<Self> {
        let width = if wide { 8 } else { 4 };
        let rows = start
            .checked_add(length)
            .filter(|rows| {
                rows.checked_add(1)
                    .and_then(|n| n.checked_mul(width))
                    .is_some()
            })
            .ok_or_else(|| PyValueError::new_err("array offset and length overflow"))?;
        if (rows + 1) * width > offsets.len() {
            return Err(PyValueError::new_err(
                "offsets buffer is shorter than the rows it should hold",
            ));
        }
        if let Some(bits) = validity {
            if rows.div_ceil(8) > bits.len() {
                return Err(PyValueError::new_err("validity bitmap is too short"));
            }
        }
        Ok(ArrowStrings {
            data,
            offsets,
            wide,
            start,
            length,
            validity,
        })
    }

    /// Offset `i` of the offsets buffer (`i < start + length + 1`, checked by `new`).
    fn offset(&self, i: usize) -> i64 {
        if self.wide {
            let at = &self.offsets[i * 8..i * 8 + 8];
            i64::from_le_bytes(at.try_into().expect("8 bytes"))
        } else {
            let at = &self.offsets[i * 4..i * 4 + 4];
            i64::from(i32::from_le_bytes(at.try_into().expect("4 bytes")))
        }
    }

    /// Every row as bytes of the data buffer (`None`: null), not checked for UTF-8, or the
    /// first row whose offsets are bad.
    fn rows(&self) -> Result<Vec<Option<&'a [u8]>>, BadRow> {
        (0..self.length).map(|i| self.row(i)).collect()
    }

    /// Row `i` as bytes of the data buffer (`None`: null), or why its offsets are bad.
    fn row(&self, i: usize) -> Result<Option<&'a [u8]>, BadRow> {
        let row = self.start + i;
        if let Some(bits) = self.validity {
            if bits[row / 8] >> (row % 8) & 1 == 0 {
                return Ok(None);
            }
        }
        let (lo, hi) = (self.offset(row), self.offset(row + 1));
        if lo < 0 || hi < lo || hi as u64 > self.data.len() as u64 {
            return Err(self.bad(i, "offsets", 0));
        }
        Ok(Some(&self.data[lo as usize..hi as usize]))
    }

    /// Row `i` is bad: `kind` from byte `at` (its offsets named).
    fn bad(&self, i: usize, kind: &'static str, at: usize) -> BadRow {
        let row = self.start + i;
        BadRow {
            row: i,
            kind,
            lo: self.offset(row),
            hi: self.offset(row + 1),
            at,
        }
    }

    /// Every row as a string of the data buffer (`None`: null), or the first bad row (bad
    /// offsets or not UTF-8), row by row.
    fn strs(&self) -> Result<Vec<Option<&'a str>>, BadRow> {
        (0..self.length)
            .map(|i| match self.row(i)? {
                None => Ok(None),
                Some(bytes) => std::str::from_utf8(bytes)
                    .map(Some)
                    .map_err(|e| self.bad(i, "utf8", e.valid_up_to())),
            })
            .collect()
    }
}

/// The bytes of a buffer, in one copy (`PyBuffer_ToContiguous`, a memcpy): the flat batch's
/// `in_place = false`, for the bench's comparison with the in-place read.
fn buffer_bytes(py: Python<'_>, buffer: &PyBuffer<u8>) -> PyResult<Vec<u8>> {
    let mut out = vec![0u8; buffer.item_count()];
    buffer.copy_to_slice(py, &mut out)?;
    Ok(out)
}

/// The ids of every text (`None`: no ids), on `num_threads` threads in all: this thread and
/// `num_threads - 1` scoped ones claim the texts one at a time, longest first (so that the
/// last texts claimed are short and no thread waits long for another at the end), each
/// thread keeping one piece memo across its texts (so a batch of many short texts merges a
/// common piece once per thread, not once per text); a text given as bytes is checked for
/// UTF-8 by the thread that claims it ([`BatchText`]); the first error stops the claiming.
/// Runs without the GIL.
fn encode_each<'a, T: BatchText<'a>>(
    split: Split<'_>,
    engine: &Engine,
    texts: &[T],
    num_threads: usize,
) -> Result<Vec<Vec<u32>>, T::Error> {
    let threads = num_threads.clamp(1, texts.len().max(1));
    let mut order: Vec<usize> = (0..texts.len()).collect();
    if threads > 1 {
        order.sort_by_key(|&k| std::cmp::Reverse(texts[k].bytes()));
    }
    let lens = texts.iter().map(T::bytes);
    with_batch_memo!(split, threads, lens, |memo| parallel_each(
        &order,
        threads,
        memo,
        |memo, k| match texts[k].text()? {
            Some(text) => Ok(split.encode_memo(engine, text, memo)?),
            None => Ok(Vec::new()),
        }
    ))
}

/// The memo shared by a batch's threads when it runs on two or more with a native
/// pre-tokenizer (sized for the texts' `bytes`); `None` on one thread (its own memo is
/// enough) or with a custom pattern (its pieces keep no memo).
fn shared_memo(split: Split<'_>, threads: usize, bytes: usize) -> Option<SharedMemo> {
    (threads > 1 && matches!(split, Split::Pre(_))).then(|| SharedMemo::for_bytes(bytes))
}

/// [`encode_each`] of Python strings on `num_threads` (2 or more) threads, reading them while
/// the others encode: this thread reads each text's UTF-8 (under the GIL: CPython makes it for
/// a text that is not ASCII) in the claiming order (longest first by code points) and hands it
/// over, while the other threads already encode the texts read; then it releases the GIL and
/// encodes too.  A thread that claims a text not read yet waits for it.  A text that cannot be
/// read (a lone surrogate: `UnicodeEncodeError`) stops the batch and is the error.
fn encode_while_reading<'a>(
    py: Python<'_>,
    split: Split<'_>,
    engine: &Engine,
    texts: &'a [Bound<'_, PyString>],
    num_threads: usize,
) -> PyResult<Vec<Vec<u32>>> {
    use std::sync::atomic::AtomicBool;
    use std::sync::OnceLock;
    let n = texts.len();
    let threads = num_threads.clamp(1, n.max(1));
    let lens: Vec<usize> = texts.iter().map(|t| t.len().unwrap_or(0)).collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&k| std::cmp::Reverse(lens[k]));
    let strs: Vec<OnceLock<&'a str>> = (0..n).map(|_| OnceLock::new()).collect();
    let (next, stop) = (AtomicUsize::new(0), AtomicBool::new(false));
    let lens = lens.iter().copied();
    let (read, finished) = with_batch_memo!(split, threads, lens, |memo| {
        let run = || -> Result<Vec<(usize, Vec<u32>)>, RegexEncodeError> {
            let mut memo = memo();
            let mut done = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                let Some(&k) = order.get(next.fetch_add(1, Ordering::Relaxed)) else {
                    break;
                };
                let text = loop {
                    if let Some(&text) = strs[k].get() {
                        break text;
                    }
                    if stop.load(Ordering::Relaxed) {
                        return Ok(done);
                    }
                    std::thread::yield_now();
                };
                match split.encode_memo(engine, text, &mut memo) {
                    Ok(ids) => done.push((k, ids)),
                    Err(e) => {
                        stop.store(true, Ordering::Relaxed);
                        return Err(e);
                    }
                }
            }
            Ok(done)
        };
        std::thread::scope(|scope| {
            let others: Vec<_> = (1..threads).map(|_| scope.spawn(run)).collect();
            let mut read = Ok(());
            for &k in &order {
                match texts[k].to_str() {
                    Ok(text) => {
                        let _ = strs[k].set(text);
                    }
                    Err(e) => {
                        stop.store(true, Ordering::Relaxed);
                        read = Err(e);
                        break;
                    }
                }
            }
            py.detach(|| {
                let mut finished = Vec::with_capacity(threads);
                if read.is_ok() {
                    finished.push(run());
                }
                finished.extend(
                    others
                        .into_iter()
                        .map(|h| h.join().expect("encoder thread")),
                );
                (read, finished)
            })
        })
    });
    read?;
    let mut slots: Vec<Option<Vec<u32>>> = (0..n).map(|_| None).collect();
    for done in finished {
        for (k, ids) in done.map_err(regex_error)? {
            slots[k] = Some(ids);
        }
    }
    Ok(slots
        .into_iter()
        .map(|ids| ids.expect("every text was encoded"))
        .collect())
}

thread_local! {
    /// The entries (short, long) that the calling thread's last batch left in its shared
    /// memo, `(0, 0)` if it had none: read by `NativeBpe.last_shared_memo` (the tests' check
    /// that the shared memo was used).
    static LAST_SHARED: std::cell::Cell<(usize, usize)> = const { std::cell::Cell::new((0, 0)) };
}

/// `parts` as one `u32` buffer (empty if `counts_only`) and `parts.len() + 1` `i64` offsets,
/// native byte order; the copy into the ids buffer runs without the GIL.
fn flat_arrays<'py>(
    py: Python<'py>,
    parts: &[Vec<u32>],
    counts_only: bool,
) -> PyResult<(Bound<'py, PyByteArray>, Bound<'py, PyByteArray>)> {
    let offsets = PyByteArray::new_with(py, 8 * (parts.len() + 1), |buf| {
        let mut at = 0i64;
        let (first, rest) = buf.split_at_mut(8);
        first.copy_from_slice(&at.to_ne_bytes());
        for (slot, part) in rest.chunks_exact_mut(8).zip(parts) {
            at += part.len() as i64;
            slot.copy_from_slice(&at.to_ne_bytes());
        }
        Ok(())
    })?;
    let total = if counts_only {
        0
    } else {
        parts.iter().map(Vec::len).sum::<usize>()
    };
    let ids = PyByteArray::new_with(py, 4 * total, |buf| {
        if total > 0 {
            // part by part: each a slice of the buffer, copied in one loop the compiler
            // vectorises (id by id through one iterator over all parts cost 3x as much)
            py.detach(|| {
                let mut rest = buf;
                for part in parts {
                    let (head, tail) = std::mem::take(&mut rest).split_at_mut(4 * part.len());
                    for (slot, id) in head.chunks_exact_mut(4).zip(part) {
                        slot.copy_from_slice(&id.to_ne_bytes());
                    }
                    rest = tail;
                }
            });
        }
        Ok(())
    })?;
    Ok((ids, offsets))
}

/// The lists of a batch as the texts finish, and the first error (after which the other
/// results are dropped).
struct BatchLists<'py> {
    lists: Vec<Option<Bound<'py, PyList>>>,
    failed: Option<PyErr>,
}

impl<'py> BatchLists<'py> {
    /// Record text `k`'s ids as a list; `false` once the batch has failed.
    fn record(
        &mut self,
        bpe: &NativeBpe,
        py: Python<'py>,
        k: usize,
        ids: Result<Vec<u32>, RegexEncodeError>,
    ) -> bool {
        if self.failed.is_some() {
            return false;
        }
        match ids
            .map_err(regex_error)
            .and_then(|ids| bpe.id_list(py, &ids))
        {
            Ok(list) => {
                self.lists[k] = Some(list);
                true
            }
            Err(e) => {
                self.failed = Some(e);
                false
            }
        }
    }
}

impl NativeBpe {
    /// `ids` as a Python list, sharing the int objects of `self.ints` when there are any.
    /// The ids of `text` under the split (the pre-tokenizer or pattern), encoded without the
    /// GIL: the body of `encode_ordinary` and `encode_ordinary_ids`.
    fn ids_of(&self, py: Python<'_>, text: &str) -> PyResult<Vec<u32>> {
        let split = self.split()?;
        py.detach(|| split.encode(&self.engine, text))
            .map_err(regex_error)
    }

    fn id_list<'py>(&self, py: Python<'py>, ids: &[u32]) -> PyResult<Bound<'py, PyList>> {
        if self.ints.is_empty() {
            return PyList::new(py, ids);
        }
        PyList::new(py, ids.iter().map(|&id| self.ints[id as usize].bind(py)))
    }

    fn split(&self) -> PyResult<Split<'_>> {
        match (self.engine.pre_tokenizer, &self.engine.regex) {
            (Some(pre), _) => Ok(Split::Pre(pre)),
            (None, Some(regex)) => Ok(Split::Regex(regex)),
            (None, None) => Err(PyValueError::new_err(
                "this table has no native pre-tokenizer or pattern",
            )),
        }
    }
}

/// The chunks of `data` (any bytes) under the native pre-tokenizer `name`.
#[pyfunction]
fn pre_tokenize<'py>(
    py: Python<'py>,
    name: &str,
    data: &[u8],
) -> PyResult<Vec<Bound<'py, PyBytes>>> {
    let pre = pre_tokenizer(name)?;
    let mut chunks = Vec::new();
    pre.split(data, |range| chunks.push(PyBytes::new(py, &data[range])));
    Ok(chunks)
}

/// `nextChunkLen` of the pre-tokenizer `name` on code points `cps` at `i`.
#[pyfunction]
fn next_chunk_len(name: &str, cps: Vec<u32>, i: usize) -> PyResult<usize> {
    Ok(match pre_tokenizer(name)? {
        PreTokenizer::Cl100k => cl100k::next_chunk_len(&cps, i),
        PreTokenizer::O200k => o200k::next_chunk_len(&cps, i),
        PreTokenizer::R50k => r50k::next_chunk_len(&cps, i),
        PreTokenizer::Llama3 => llama3::next_chunk_len(&cps, i),
        PreTokenizer::Llama3Meta => llama3::next_chunk_len_meta(&cps, i),
    })
}

/// The ranges `(lo, hi)` of the code points (0..=0x10FFFF) that the class `name` (a Python
/// table name: `"l"`, `"white_space"`, ...) holds, read through the engine's `is_*` function.
#[pyfunction]
fn class_ranges(name: &str) -> PyResult<Vec<(u32, u32)>> {
    let is = tables::class_by_name(name)
        .ok_or_else(|| PyValueError::new_err(format!("no class named {name:?}")))?;
    let mut out: Vec<(u32, u32)> = Vec::new();
    for cp in 0..=0x10FFFFu32 {
        if is(cp) {
            match out.last_mut() {
                Some(last) if last.1 + 1 == cp => last.1 = cp,
                _ => out.push((cp, cp)),
            }
        }
    }
    Ok(out)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<NativeBpe>()?;
    m.add_class::<buffer_view::IdBuffer>()?;
    m.add_class::<crate::merges::python::MergeListBpe>()?;
    m.add_function(wrap_pyfunction!(pre_tokenize, m)?)?;
    m.add_function(wrap_pyfunction!(next_chunk_len, m)?)?;
    m.add_function(wrap_pyfunction!(class_ranges, m)?)?;
    m.add_function(wrap_pyfunction!(
        crate::merges::python::byte_level_ranks,
        m
    )?)?;
    m.add("LONG_PIECE", crate::ranks::LONG_PIECE)?;
    Ok(())
}
