//! The one module of the crate with `unsafe` blocks (allowed in `lib.rs` for this module
//! alone) on the Python side, both about the buffer protocol: the bytes of an exported Python
//! buffer (Arrow's offsets, data and validity buffers) read in place, without the copy that
//! [`pyo3::buffer::PyBuffer::copy_to_slice`] makes ([`bytes`]); and a vector of ids exported
//! as a read-only buffer, without the copy into a `bytearray` ([`IdBuffer`]).

use pyo3::buffer::PyBuffer;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::{ffi, PyResult};
use std::ffi::{c_int, c_void};

/// The bytes of `buffer` in place, borrowed for as long as `buffer` (the export) is held.
///
/// The caller, `NativeBpe::encode_utf8_flat`, passes the buffers of a pyarrow array and reads
/// them without the GIL; it checks every offset against the length of the data buffer before
/// reading a row and checks each row to be UTF-8, so nothing is read outside the slice made here.
pub(crate) fn bytes<'a>(buffer: &'a PyBuffer<u8>, what: &str) -> PyResult<&'a [u8]> {
    if buffer.item_count() == 0 {
        return Ok(&[]); // an exporter may give a null pointer for no bytes
    }
    let Some(ptr) = buffer.as_slice_ptr() else {
        return Err(PyValueError::new_err(format!(
            "the {what} buffer is not contiguous"
        )));
    };
    // SAFETY: `as_slice_ptr` is the export's own pointer and item count (`buf` of the
    // `Py_buffer`, non-null, checked by pyo3 to be C-contiguous items of format `u8`, one byte
    // each, so no alignment is needed). The memory stays valid while the export is held, and
    // the returned slice borrows `buffer`, the export, so it cannot outlive it (the export is
    // released when the `PyBuffer` drops, after the call). The memory is not written during
    // the call: the buffers are those of an Arrow array, which the Arrow format makes immutable
    // once built (pyarrow's API writes no buffer of an array; only a writable memoryview of one
    // could, and `verified_bpe.data`, the caller, documents that writing through one during
    // the call is not allowed). Only shared reads are made, from any number of threads.
    Ok(unsafe { ptr.as_ref() })
}

/// Ids exported to Python as a read-only buffer of their bytes (native-order `u32`s, format
/// `B`, as a `bytearray` of them would give), for `numpy.frombuffer` without a copy: what
/// `NativeBpe.encode_ordinary_ids` returns. tiktoken's `encode_to_numpy` gives read-only
/// arrays the same way. The ids are never changed once made: the class is frozen and no
/// method writes them.
#[pyclass(module = "verified_bpe._native", frozen)]
pub(crate) struct IdBuffer {
    ids: Vec<u32>,
}

impl IdBuffer {
    /// The buffer of `ids`, its spare capacity given back (the engine's starting capacity is
    /// an estimate, which may be above the count; shrinking in place copies nothing).
    pub(crate) fn new(mut ids: Vec<u32>) -> Self {
        ids.shrink_to_fit();
        IdBuffer { ids }
    }
}

#[pymethods]
impl IdBuffer {
    /// The number of bytes, four per id (as `len` of the `bytearray` of the ids).
    fn __len__(&self) -> usize {
        4 * self.ids.len()
    }

    /// The buffer protocol's export: the ids' bytes, read-only (a request for a writable
    /// buffer raises `BufferError`, from `PyBuffer_FillInfo`).
    ///
    /// # Safety
    /// Called by CPython with `view` pointing to a `Py_buffer` to fill, as the protocol says.
    unsafe fn __getbuffer__(
        slf: Bound<'_, Self>,
        view: *mut ffi::Py_buffer,
        flags: c_int,
    ) -> PyResult<()> {
        let ids = &slf.get().ids;
        let len = ffi::Py_ssize_t::try_from(4 * ids.len()).expect("a vector's bytes fit isize");
        // SAFETY: `view` is CPython's `Py_buffer` to fill (the protocol's contract for
        // `bf_getbuffer`). `PyBuffer_FillInfo` stores the pointer and length of the ids'
        // bytes and takes a new reference to `slf`, which owns the vector, so the memory lives
        // while the export does; the vector is never changed or moved once made (frozen class,
        // no method writes it), and the export is read-only (`readonly = 1`; a writable
        // request fails), so nothing writes through it. `u32`s have no padding, so every byte
        // is initialised; format `B` needs no alignment.
        let status = unsafe {
            ffi::PyBuffer_FillInfo(
                view,
                slf.as_ptr(),
                ids.as_ptr().cast_mut().cast::<c_void>(),
                len,
                1,
                flags,
            )
        };
        if status == -1 {
            Err(PyErr::fetch(slf.py()))
        } else {
            Ok(())
        }
    }
}
