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
