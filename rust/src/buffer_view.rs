//! The one place of the crate with `unsafe` (allowed in `lib.rs` for this module alone): the
//! bytes of an exported Python buffer (Arrow's offsets, data and validity buffers) read in
//! place, without the copy that [`pyo3::buffer::PyBuffer::copy_to_slice`] makes.

use pyo3::buffer::PyBuffer;
use pyo3::exceptions::PyValueError;
use pyo3::PyResult;

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
