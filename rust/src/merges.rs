//! Merge-list BPE: the BPE model of a Hugging Face `tokenizer.json` (`tokenizers`' `BPE`),
//! for the files whose merges are not a tiktoken rank table (Qwen, DeepSeek, GPT-2...).
//!
//! A piece's bytes start as the tokens of single bytes; the adjacent pair with the lowest
//! index in the merge list is replaced by the token the merge makes, the leftmost one on ties,
//! until no adjacent pair is a merge (`verified_bpe.engine.merge_list.merge_parts`, the
//! Python function on token strings; tested equal to `tokenizers`, no Lean counterpart).
//! With `ignore_merges`, a piece that is a token is that token.
//!
//! The text is split by the file's pattern with `fancy-regex` (the classes pinned by the
//! caller, as for the rank engine), and batches run on several threads without the GIL.

use crate::engine::{parallel_each, SpanMemo};
use rustc_hash::FxHashMap;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::convert::Infallible;

/// A piece holds a byte that has no token (`tokenizers` drops it; the caller refuses it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MissingByte(pub u8);

/// Why a text gave no ids.
#[derive(Debug)]
pub enum MergeEncodeError {
    Missing(MissingByte),
    /// The regex engine gave up (its backtrack limit); the caller splits another way.
    Regex(fancy_regex::Error),
}

/// GPT-2's byte-to-unicode alphabet: the character that spells each byte.
pub fn byte_char(b: u8) -> char {
    let printable = |b: u8| (33..=126).contains(&b) || (161..=172).contains(&b) || b >= 174;
    if printable(b) {
        return char::from(b);
    }
    let offset = (0..b).filter(|&c| !printable(c)).count() as u32;
    char::from_u32(256 + offset).expect("in the BMP")
}

/// A merge list over token ids, with the token of each single byte.
pub struct MergeList {
    /// `(left, right)` -> `(index in the merge list, id of the merged token)`.
    pub merges: FxHashMap<(u32, u32), (u32, u32)>,
    /// The token of each byte (`u32::MAX`: none).
    pub byte_ids: [u32; 256],
    /// `ignore_merges`: the id of every token by its bytes.
    pub whole: Option<FxHashMap<Vec<u8>, u32>>,
}

const NONE: u32 = u32::MAX;
const SCAN_MAX: usize = 24;

impl MergeList {
    /// The ids of one piece, appended to `out`.
    pub fn bpe(&self, piece: &[u8], out: &mut Vec<u32>) -> Result<(), MissingByte> {
        if let Some(whole) = &self.whole {
            if let Some(&id) = whole.get(piece) {
                out.push(id);
                return Ok(());
            }
        }
        let mut ids = Vec::with_capacity(piece.len());
        for &b in piece {
            let id = self.byte_ids[b as usize];
            if id == NONE {
                return Err(MissingByte(b));
            }
            ids.push(id);
        }
        if ids.len() <= SCAN_MAX {
            self.scan(&mut ids);
            out.extend_from_slice(&ids);
        } else {
            self.heap(&ids, out);
        }
        Ok(())
    }

    fn rank(&self, a: u32, b: u32) -> Option<(u32, u32)> {
        self.merges.get(&(a, b)).copied()
    }

    /// Short pieces: find the lowest-index pair (leftmost on ties) and merge, again and again.
    fn scan(&self, ids: &mut Vec<u32>) {
        loop {
            let mut best: Option<(u32, usize, u32)> = None;
            for i in 0..ids.len().saturating_sub(1) {
                if let Some((rank, new)) = self.rank(ids[i], ids[i + 1]) {
                    if best.is_none_or(|(r, _, _)| rank < r) {
                        best = Some((rank, i, new));
                    }
                }
            }
            let Some((_, i, new)) = best else { return };
            ids[i] = new;
            ids.remove(i + 1);
        }
    }

    /// Long pieces: the same merges through a heap of `(index, position)` over a linked list
    /// of symbols (a stale entry, whose pair changed, is skipped when popped).
    fn heap(&self, ids: &[u32], out: &mut Vec<u32>) {
        let n = ids.len();
        let mut id = ids.to_vec();
        let mut next: Vec<usize> = (1..=n).collect();
        let mut prev: Vec<usize> = (0..n).map(|i| i.wrapping_sub(1)).collect();
        let mut alive = vec![true; n];
        let mut heap = BinaryHeap::new();
        for i in 0..n - 1 {
            if let Some((rank, new)) = self.rank(id[i], id[i + 1]) {
                heap.push(Reverse((rank, i, new)));
            }
        }
        while let Some(Reverse((rank, i, new))) = heap.pop() {
            let j = next[i];
            if !alive[i] || j >= n || self.rank(id[i], id[j]) != Some((rank, new)) {
                continue;
            }
            id[i] = new;
            alive[j] = false;
            next[i] = next[j];
            if next[i] < n {
                prev[next[i]] = i;
            }
            let p = prev[i];
            if p < n {
                if let Some((r, m)) = self.rank(id[p], new) {
                    heap.push(Reverse((r, p, m)));
                }
            }
            if next[i] < n {
                if let Some((r, m)) = self.rank(new, id[next[i]]) {
                    heap.push(Reverse((r, i, m)));
                }
            }
        }
        let mut i = 0;
        while i < n {
            out.push(id[i]);
            i = next[i];
        }
    }

    /// The ids of `text` cut by `regex` into its matches and, with `gaps`, the text between
    /// them (`tokenizers`' `Split` with `Isolated`; without gaps: `Removed` with `invert`);
    /// empty matches are left out.
    pub fn encode(
        &self,
        regex: &fancy_regex::Regex,
        gaps: bool,
        text: &str,
    ) -> Result<Vec<u32>, MergeEncodeError> {
        let mut out = Vec::with_capacity(text.len() / 4 + 1);
        let mut memo = SpanMemo::default();
        let mut pos = 0;
        for found in regex.find_iter(text) {
            let found = found.map_err(MergeEncodeError::Regex)?;
            if found.start() == found.end() {
                continue;
            }
            if gaps && found.start() > pos {
                memo_encode(
                    self,
                    &mut memo,
                    &text.as_bytes()[pos..found.start()],
                    &mut out,
                )
                .map_err(MergeEncodeError::Missing)?;
            }
            memo_encode(self, &mut memo, found.as_str().as_bytes(), &mut out)
                .map_err(MergeEncodeError::Missing)?;
            pos = found.end();
        }
        if gaps && pos < text.len() {
            memo_encode(self, &mut memo, &text.as_bytes()[pos..], &mut out)
                .map_err(MergeEncodeError::Missing)?;
        }
        Ok(out)
    }
}

/// The ids of `piece`, appended to `out`, through `memo` (a single byte and a piece longer
/// than [`SpanMemo::MAX_PIECE`] are merged directly).
fn memo_encode<'a>(
    bpe: &MergeList,
    memo: &mut SpanMemo<'a>,
    piece: &'a [u8],
    out: &mut Vec<u32>,
) -> Result<(), MissingByte> {
    if piece.len() == 1 || piece.len() > SpanMemo::MAX_PIECE {
        return bpe.bpe(piece, out);
    }
    memo.encode(piece, out, |piece, out| bpe.bpe(piece, out))
}

/// The byte of each character of GPT-2's byte-to-unicode alphabet (indexed by code point;
/// `u16::MAX`: not in the alphabet).
fn unspell_table() -> &'static [u16; 0x144] {
    static TABLE: std::sync::OnceLock<[u16; 0x144]> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = [u16::MAX; 0x144];
        for b in 0..=255u8 {
            table[byte_char(b) as usize] = b as u16;
        }
        table
    })
}

/// The bytes a text spells in GPT-2's alphabet, appended to `out` (`false`: a character
/// outside it; `out` then holds part of the text).
pub fn unspell(text: &str, out: &mut Vec<u8>) -> bool {
    let table = unspell_table();
    for c in text.chars() {
        match table.get(c as usize) {
            Some(&b) if b != u16::MAX => out.push(b as u8),
            _ => return false,
        }
    }
    true
}

/// Byte strings cut from one buffer: item `i` is `data[ends[i - 1]..ends[i]]`.
#[derive(Default)]
pub struct Strings {
    pub data: Vec<u8>,
    pub ends: Vec<usize>,
}

impl Strings {
    pub fn get(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.data[start..self.ends[i]]
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    fn push(&mut self, text: &str) -> bool {
        let ok = unspell(text, &mut self.data);
        self.ends.push(self.data.len());
        ok
    }
}

/// The `n` texts of `blob` (joined by `"\n"`) as the bytes they spell (`Err`: which one is
/// not in the alphabet, or the count differs).
pub fn unspell_lines(blob: &str, n: usize) -> Result<Strings, String> {
    let mut out = Strings::default();
    if n == 0 {
        return if blob.is_empty() {
            Ok(out)
        } else {
            Err("one text too many".into())
        };
    }
    for (i, text) in blob.split('\n').enumerate() {
        if i >= n {
            return Err(format!("more than {n} texts"));
        }
        if !out.push(text) {
            return Err(format!("text {i} {text:?} is not in the byte alphabet"));
        }
    }
    if out.len() != n {
        return Err(format!("{} texts, not {n}", out.len()));
    }
    Ok(out)
}

/// The `n` merge lines of `blob` (`"left right"`, joined by `"\n"`), each side as the bytes
/// it spells (`Err`: a line that is not two non-empty sides around one space, a side not in
/// the alphabet, or a count that differs).
pub fn unspell_merges(blob: &str, n: usize) -> Result<(Strings, Strings), String> {
    let (mut lefts, mut rights) = (Strings::default(), Strings::default());
    if n == 0 {
        return if blob.is_empty() {
            Ok((lefts, rights))
        } else {
            Err("one merge too many".into())
        };
    }
    for (i, line) in blob.split('\n').enumerate() {
        if i >= n {
            return Err(format!("more than {n} merges"));
        }
        match line.split_once(' ') {
            Some((l, r)) if !l.is_empty() && !r.is_empty() && !r.contains(' ') => {
                if !lefts.push(l) || !rights.push(r) {
                    return Err(format!("merge {i} {line:?} is not in the byte alphabet"));
                }
            }
            _ => return Err(format!("merge {i} is not a pair")),
        }
    }
    if lefts.len() != n {
        return Err(format!("{} merges, not {n}", lefts.len()));
    }
    Ok((lefts, rights))
}

/// Why the merges `lefts[i] rights[i]` are not every split of every token (`tokens[i]`
/// with id `ids[i]`; byte strings) into two tokens, listed in non-decreasing order of the
/// id they make (`None` if they are): `verified_bpe.hf` then runs the file with rank BPE.
pub fn all_splits_problem(
    tokens: &Strings,
    ids: &[u32],
    lefts: &Strings,
    rights: &Strings,
) -> Option<String> {
    let vocab: FxHashMap<&[u8], u32> = (0..tokens.len()).map(|i| (tokens.get(i), ids[i])).collect();
    // The tokens in id order; each one's splits (the lengths of a left side whose two sides
    // are tokens) must be the next merges, in any order, each once: no merge is looked up,
    // its sides are compared with the token's.
    let mut order: Vec<(u32, &[u8])> = vocab.iter().map(|(&t, &id)| (id, t)).collect();
    order.sort_unstable();
    let mut next = 0usize;
    let mut cuts: Vec<(usize, bool)> = Vec::new();
    for &(id, token) in &order {
        cuts.clear();
        cuts.extend(
            (1..token.len())
                .filter(|&k| vocab.contains_key(&token[..k]) && vocab.contains_key(&token[k..]))
                .map(|k| (k, false)),
        );
        for _ in 0..cuts.len() {
            if next >= lefts.len() {
                return Some(format!("token {id}: a split is not a merge"));
            }
            let (left, right) = (lefts.get(next), rights.get(next));
            let k = left.len();
            match cuts.iter_mut().find(|(c, _)| *c == k) {
                Some((_, used)) if !*used && &token[..k] == left && &token[k..] == right => {
                    *used = true
                }
                _ => {
                    return Some(format!(
                        "merge {next} is not a split of token {id} not listed before"
                    ))
                }
            }
            next += 1;
        }
    }
    (next != lefts.len()).then(|| format!("merge {next} is not a split of a token in id order"))
}

/// `f` on every index `0..n`, on `threads` threads (this one included), in order
/// ([`parallel_each`] with no state and no error).
pub fn parallel_map<T: Send>(n: usize, threads: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let order: Vec<usize> = (0..n).collect();
    match parallel_each(&order, threads, || (), |_, k| Ok::<T, Infallible>(f(k))) {
        Ok(values) => values,
        Err(never) => match never {},
    }
}

#[cfg(feature = "python")]
pub mod python {
    //! `verified_bpe._native.MergeListBpe`.

    use super::*;
    use pyo3::exceptions::{PyKeyError, PyRuntimeError, PyValueError};
    use pyo3::prelude::*;
    use pyo3::types::{PyBytes, PyDict, PyList, PyString};

    /// The strings of a list, borrowed (`TypeError` for another item).
    pub fn strings<'py>(list: &Bound<'py, PyList>) -> PyResult<Vec<Bound<'py, PyString>>> {
        list.iter()
            .map(|x| Ok(x.cast_into::<PyString>()?))
            .collect()
    }

    /// A `{str: int}` dict's keys and values.
    pub fn str_ids<'py>(
        dict: &Bound<'py, PyDict>,
    ) -> PyResult<(Vec<Bound<'py, PyString>>, Vec<u32>)> {
        let mut keys = Vec::with_capacity(dict.len());
        let mut ids = Vec::with_capacity(dict.len());
        for (key, value) in dict.iter() {
            keys.push(key.cast_into::<PyString>()?);
            ids.push(value.extract::<u32>()?);
        }
        Ok((keys, ids))
    }

    /// `&str`s of Python strings.
    pub fn as_strs<'a>(strings: &'a [Bound<'_, PyString>]) -> PyResult<Vec<&'a str>> {
        strings.iter().map(|s| s.to_str()).collect()
    }

    /// A byte-level vocabulary as a rank table, and the all-splits check
    /// ([`all_splits_problem`], without the GIL) on its merges: `vocab` the `n` token texts
    /// joined by `"\n"` (UTF-8), `ids` their ids, `merges` (`None`: no check) the
    /// `n_merges` `"left right"` lines joined by `"\n"`.  Returns `({bytes: id}, None)`, or
    /// `(None, problem)`: a text not in GPT-2's alphabet, a line that is not a pair, or the
    /// first merge out of place.  No string is read one by one (the texts come joined).
    #[pyfunction]
    #[pyo3(signature = (vocab, ids, merges, n_merges))]
    pub fn byte_level_ranks<'py>(
        py: Python<'py>,
        vocab: &[u8],
        ids: Vec<u32>,
        merges: Option<&[u8]>,
        n_merges: usize,
    ) -> PyResult<(Option<Bound<'py, PyDict>>, Option<String>)> {
        let texts = std::str::from_utf8(vocab).map_err(|e| PyValueError::new_err(e.to_string()))?;
        let merges = merges
            .map(std::str::from_utf8)
            .transpose()
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let checked = py.detach(|| -> Result<Strings, String> {
            let tokens = unspell_lines(texts, ids.len())?;
            if let Some(blob) = merges {
                let (lefts, rights) = unspell_merges(blob, n_merges)?;
                if let Some(problem) = all_splits_problem(&tokens, &ids, &lefts, &rights) {
                    return Err(problem);
                }
            }
            Ok(tokens)
        });
        let tokens = match checked {
            Ok(tokens) => tokens,
            Err(problem) => return Ok((None, Some(problem))),
        };
        let table = PyDict::new(py);
        for (i, &id) in ids.iter().enumerate() {
            table.set_item(PyBytes::new(py, tokens.get(i)), id)?;
        }
        Ok((Some(table), None))
    }

    /// The merges' sides: `lefts` and `rights`, or with `rights` `None` the `"left right"`
    /// lines `lefts` split at their one space (`Err`: a line that is not a pair).
    #[allow(clippy::type_complexity)]
    pub fn sides<'a>(
        lefts: &'a [Bound<'_, PyString>],
        rights: Option<&'a [Bound<'_, PyString>]>,
    ) -> PyResult<Result<(Vec<&'a str>, Vec<&'a str>), String>> {
        let mut lefts = as_strs(lefts)?;
        if let Some(r) = rights {
            if r.len() != lefts.len() {
                return Ok(Err("lefts and rights differ in length".into()));
            }
            return Ok(Ok((lefts, as_strs(r)?)));
        }
        let mut rights = Vec::with_capacity(lefts.len());
        for (i, line) in lefts.iter_mut().enumerate() {
            match line.split_once(' ') {
                Some((l, r)) if !l.is_empty() && !r.is_empty() && !r.contains(' ') => {
                    *line = l;
                    rights.push(r);
                }
                _ => return Ok(Err(format!("merge {i} is not a pair"))),
            }
        }
        Ok(Ok((lefts, rights)))
    }

    fn error(e: MergeEncodeError) -> PyErr {
        match e {
            MergeEncodeError::Missing(MissingByte(b)) => PyKeyError::new_err(b),
            MergeEncodeError::Regex(e) => PyRuntimeError::new_err(format!("fancy-regex: {e}")),
        }
    }

    /// A merge list: `vocab` (`{token string: id}`, spelled in GPT-2's byte alphabet),
    /// `lefts[i]`/`rights[i]` the sides of merge `i`, `ignore_merges`, and the split
    /// `pattern` for `fancy-regex` (`None`: the caller splits) with `gaps` (keep the text
    /// between matches). `ValueError` naming a merge whose side or result is not a token.
    #[pyclass(frozen, module = "verified_bpe._native")]
    pub struct MergeListBpe {
        bpe: MergeList,
        regex: Option<fancy_regex::Regex>,
        gaps: bool,
        ints: Vec<Py<PyAny>>,
    }

    #[pymethods]
    impl MergeListBpe {
        #[new]
        #[pyo3(signature = (vocab, lefts, rights, ignore_merges, pattern=None, gaps=true))]
        fn new(
            vocab: &Bound<'_, PyDict>,
            lefts: &Bound<'_, PyList>,
            rights: Option<&Bound<'_, PyList>>,
            ignore_merges: bool,
            pattern: Option<&str>,
            gaps: bool,
        ) -> PyResult<Self> {
            let py = vocab.py();
            let (keys, values) = str_ids(vocab)?;
            let keys = as_strs(&keys)?;
            let max = values.iter().copied().max().unwrap_or(0);
            let ids: FxHashMap<&str, u32> = keys.iter().copied().zip(values).collect();
            let left_strings = strings(lefts)?;
            let right_strings = rights.map(strings).transpose()?;
            let (lefts, rights) =
                sides(&left_strings, right_strings.as_deref())?.map_err(PyValueError::new_err)?;
            let mut merges = FxHashMap::with_capacity_and_hasher(lefts.len(), Default::default());
            let mut joined = String::new();
            for (i, (&l, &r)) in lefts.iter().zip(&rights).enumerate() {
                joined.clear();
                joined.push_str(l);
                joined.push_str(r);
                let (Some(&a), Some(&b)) = (ids.get(l), ids.get(r)) else {
                    return Err(PyValueError::new_err(format!(
                        "merge {i} ({l:?}, {r:?}) names an unknown token"
                    )));
                };
                let Some(&m) = ids.get(joined.as_str()) else {
                    return Err(PyValueError::new_err(format!(
                        "merge {i} ({l:?}, {r:?}) makes a token not in the vocabulary"
                    )));
                };
                merges.insert((a, b), (i as u32, m)); // the last of duplicates, as `tokenizers`
            }
            let mut byte_ids = [NONE; 256];
            let mut back: FxHashMap<char, u8> = FxHashMap::default();
            for b in 0..=255u8 {
                let c = byte_char(b);
                back.insert(c, b);
                if let Some(&id) = ids.get(c.encode_utf8(&mut [0; 4]) as &str) {
                    byte_ids[b as usize] = id;
                }
            }
            let whole = ignore_merges.then(|| {
                ids.iter()
                    .filter_map(|(text, &id)| {
                        let bytes: Option<Vec<u8>> =
                            text.chars().map(|c| back.get(&c).copied()).collect();
                        bytes.map(|b| (b, id))
                    })
                    .collect()
            });
            let regex = match pattern {
                Some(p) => Some(
                    fancy_regex::Regex::new(p)
                        .map_err(|e| PyValueError::new_err(format!("fancy-regex: {e}")))?,
                ),
                None => None,
            };
            let dense = (max as usize) <= 2 * ids.len() + 1024;
            let ints = if dense {
                (0..=max)
                    .map(|r| Ok(r.into_pyobject(py)?.into_any().unbind()))
                    .collect::<PyResult<Vec<_>>>()?
            } else {
                Vec::new()
            };
            Ok(Self {
                bpe: MergeList {
                    merges,
                    byte_ids,
                    whole,
                },
                regex,
                gaps,
                ints,
            })
        }

        /// Whether this engine splits the text itself (a pattern was given).
        #[getter]
        fn splits(&self) -> bool {
            self.regex.is_some()
        }

        /// The ids of `text` (split by the pattern); `KeyError(byte)` for a byte without a
        /// token, `RuntimeError` if fancy-regex gave up.
        fn encode_ordinary<'py>(
            &self,
            py: Python<'py>,
            text: &str,
        ) -> PyResult<Bound<'py, PyList>> {
            let regex = self.regex()?;
            let ids = py
                .detach(|| self.bpe.encode(regex, self.gaps, text))
                .map_err(error)?;
            self.id_list(py, &ids)
        }

        /// `encode_ordinary` of every text, on `num_threads` threads without the GIL.
        #[pyo3(signature = (texts, num_threads=8))]
        fn encode_ordinary_batch<'py>(
            &self,
            py: Python<'py>,
            texts: Vec<Bound<'py, PyString>>,
            num_threads: usize,
        ) -> PyResult<Vec<Bound<'py, PyList>>> {
            let regex = self.regex()?;
            let strs = texts
                .iter()
                .map(|t| t.to_str())
                .collect::<PyResult<Vec<&str>>>()?;
            let results = py.detach(|| {
                parallel_map(strs.len(), num_threads, |k| {
                    self.bpe.encode(regex, self.gaps, strs[k])
                })
            });
            results
                .into_iter()
                .map(|ids| self.id_list(py, &ids.map_err(error)?))
                .collect()
        }

        /// The ids of pieces split elsewhere (a list of `str`).
        fn encode_pieces<'py>(&self, pieces: &Bound<'py, PyList>) -> PyResult<Bound<'py, PyList>> {
            let mut out = Vec::new();
            for item in pieces.iter() {
                let piece = item.cast::<PyString>()?.to_str()?.to_owned();
                self.bpe
                    .bpe(piece.as_bytes(), &mut out)
                    .map_err(|e| error(MergeEncodeError::Missing(e)))?;
            }
            self.id_list(pieces.py(), &out)
        }

        /// The ids of one piece of bytes.
        fn bpe(&self, piece: &[u8]) -> PyResult<Vec<u32>> {
            let mut out = Vec::new();
            self.bpe
                .bpe(piece, &mut out)
                .map_err(|e| error(MergeEncodeError::Missing(e)))?;
            Ok(out)
        }
    }

    impl MergeListBpe {
        fn regex(&self) -> PyResult<&fancy_regex::Regex> {
            self.regex
                .as_ref()
                .ok_or_else(|| PyValueError::new_err("this merge list has no pattern"))
        }

        fn id_list<'py>(&self, py: Python<'py>, ids: &[u32]) -> PyResult<Bound<'py, PyList>> {
            if self.ints.is_empty() {
                return PyList::new(py, ids);
            }
            PyList::new(py, ids.iter().map(|&id| self.ints[id as usize].bind(py)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(merges: &[(u32, u32, u32)]) -> MergeList {
        let mut byte_ids = [NONE; 256];
        for b in 0..=255u8 {
            byte_ids[b as usize] = b as u32;
        }
        MergeList {
            merges: merges
                .iter()
                .enumerate()
                .map(|(i, &(a, b, m))| ((a, b), (i as u32, m)))
                .collect(),
            byte_ids,
            whole: None,
        }
    }

    #[test]
    fn heap_equals_scan() {
        // "a"=97, "b"=98; aa=300, ab=301, aaa=302 (aa+a), ba=303
        let bpe = list(&[(97, 97, 300), (98, 97, 303), (300, 97, 302), (97, 98, 301)]);
        let mut state = 12345u32;
        for len in 2..80 {
            for _ in 0..20 {
                let piece: Vec<u8> = (0..len)
                    .map(|_| {
                        state = state.wrapping_mul(1103515245).wrapping_add(12345);
                        if (state >> 16) & 1 == 0 {
                            b'a'
                        } else {
                            b'b'
                        }
                    })
                    .collect();
                let mut scanned: Vec<u32> = piece.iter().map(|&b| b as u32).collect();
                bpe.scan(&mut scanned);
                let mut heaped = Vec::new();
                bpe.heap(
                    &piece.iter().map(|&b| b as u32).collect::<Vec<_>>(),
                    &mut heaped,
                );
                assert_eq!(scanned, heaped, "{:?}", String::from_utf8_lossy(&piece));
            }
        }
    }

    #[test]
    fn byte_alphabet() {
        assert_eq!(byte_char(b'!'), '!');
        assert_eq!(byte_char(b' '), '\u{120}');
        assert_eq!(byte_char(0), '\u{100}');
        assert_eq!(byte_char(173), '\u{143}');
    }
}
