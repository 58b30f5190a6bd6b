//! placeholder
use super::{Parsed, ReadOptions, ReadError};
pub fn detect(_b: &[u8]) -> bool { false }
pub fn read(_b: &[u8], _o: &ReadOptions) -> Result<Parsed, ReadError> { Err(ReadError::whole("cpuprofile", "todo")) }
