//! Errors of the pprof reader, placed by byte offset in the (inflated) input.
//!
//! Below both passes of the reader ([`super::toplevel`] and [`super::read`]), so that neither
//! imports the other for it.

use super::FORMAT;
use crate::formats::{Place, ReadError};

/// An error at byte `offset` of the (inflated) input.
pub(super) fn byte_err(offset: usize, message: impl Into<String>) -> ReadError {
    ReadError::new(FORMAT, Place::Byte(offset as u64), message)
}

/// Go's error for the `index`-th `what` (`function`, `mapping`, `location`) having id 0,
/// which is reserved; `id_word` is Go's spelling of "ID" in that message.
pub(super) fn reserved_id(offset: usize, what: &str, index: usize, id_word: &str) -> ReadError {
    byte_err(
        offset,
        format!("{what}[{index}]: found {what} with reserved {id_word}=0"),
    )
}

/// Go's error for a second `what` with the same `id`.
pub(super) fn duplicate_id(offset: usize, what: &str, id: u64) -> ReadError {
    byte_err(offset, format!("multiple {what}s with same id: {id}"))
}
