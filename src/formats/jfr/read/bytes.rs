//! The primitive encodings of a JFR chunk: big-endian fixed-size numbers, or LEB128 varints
//! when the chunk's "compressed integers" feature is set, and the string encodings.

use super::super::NAME;
use crate::formats::error::{Place, ReadError};

/// String encodings (the first byte of a string).
const STRING_NULL: u8 = 0;
const STRING_EMPTY: u8 = 1;
const STRING_POOL: u8 = 2;
const STRING_UTF8: u8 = 3;
const STRING_CHARS: u8 = 4;
const STRING_LATIN1: u8 = 5;

/// A string as written: inline text, a reference into the string constant pool, or null.
#[derive(Clone, Debug, PartialEq)]
pub enum JfrString {
    Null,
    Text(String),
    Pool(i64),
}

/// Values a cursor may decode per byte it covers (JDK types take at least one byte per value;
/// only a hostile type of empty objects could decode more, without bound).
const VALUES_PER_BYTE: usize = 8;
/// Values any cursor may decode, however small.
const MIN_VALUE_BUDGET: usize = 256;

/// A cursor over one chunk's bytes; offsets in errors are file offsets (`base` + position).
pub struct Bytes<'a> {
    data: &'a [u8],
    pos: usize,
    base: usize,
    compressed: bool,
    /// Values left to decode (see [`VALUES_PER_BYTE`]).
    budget: usize,
}

impl<'a> Bytes<'a> {
    /// A cursor over `data`, which starts at file offset `base`.
    pub fn new(data: &'a [u8], base: usize, compressed: bool) -> Self {
        Bytes {
            data,
            pos: 0,
            base,
            compressed,
            budget: data.len().saturating_mul(VALUES_PER_BYTE) + MIN_VALUE_BUDGET,
        }
    }

    /// Limits the values decoded from here on to what `bytes` bytes may hold.
    pub fn set_budget(&mut self, bytes: usize) {
        self.budget = bytes.saturating_mul(VALUES_PER_BYTE) + MIN_VALUE_BUDGET;
    }

    /// Counts one decoded value; an error when the cursor's budget is spent.
    pub fn spend(&mut self) -> Result<(), ReadError> {
        match self.budget.checked_sub(1) {
            Some(left) => {
                self.budget = left;
                Ok(())
            }
            None => Err(self.error(format!(
                "the types decode more than {VALUES_PER_BYTE} values per byte (empty objects?)"
            ))),
        }
    }

    /// The position, relative to the chunk start.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Moves to `pos` (relative to the chunk start); an error past the end.
    pub fn seek(&mut self, pos: usize) -> Result<(), ReadError> {
        if pos > self.data.len() {
            return Err(self.error("an offset points past the end of the chunk"));
        }
        self.pos = pos;
        Ok(())
    }

    /// Bytes left after the position.
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    /// An error at the current position.
    pub fn error(&self, message: impl Into<String>) -> ReadError {
        self.error_at(self.pos, message)
    }

    /// An error at `pos` (relative to the chunk start).
    pub fn error_at(&self, pos: usize, message: impl Into<String>) -> ReadError {
        ReadError::new(NAME, Place::Byte((self.base + pos) as u64), message)
    }

    /// The next `n` bytes.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], ReadError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.data.len());
        let Some(end) = end else {
            return Err(self.error("the data ends in the middle of a value (truncated file?)"));
        };
        let s = &self.data[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn fixed<const N: usize>(&mut self) -> Result<[u8; N], ReadError> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    pub fn u8(&mut self) -> Result<u8, ReadError> {
        Ok(self.take(1)?[0])
    }

    /// A fixed-size big-endian i16 (chunk header fields).
    pub fn raw_i16(&mut self) -> Result<i16, ReadError> {
        self.fixed().map(i16::from_be_bytes)
    }

    /// A fixed-size big-endian i32.
    pub fn raw_i32(&mut self) -> Result<i32, ReadError> {
        self.fixed().map(i32::from_be_bytes)
    }

    /// A fixed-size big-endian i64.
    pub fn raw_i64(&mut self) -> Result<i64, ReadError> {
        self.fixed().map(i64::from_be_bytes)
    }

    /// An unsigned LEB128 number of at most 9 bytes (the ninth holds 8 bits), as JFR writes.
    fn varint(&mut self) -> Result<i64, ReadError> {
        let mut out: u64 = 0;
        for i in 0..8 {
            let b = self.u8()?;
            out |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(out as i64);
            }
        }
        Ok((out | (u64::from(self.u8()?) << 56)) as i64)
    }

    /// An `int`, `long` or `short` field value: varint or fixed by the chunk's encoding.
    pub fn long(&mut self) -> Result<i64, ReadError> {
        if self.compressed {
            self.varint()
        } else {
            self.raw_i64()
        }
    }

    pub fn int(&mut self) -> Result<i32, ReadError> {
        if self.compressed {
            self.varint().map(|v| v as i32)
        } else {
            self.raw_i32()
        }
    }

    pub fn short(&mut self) -> Result<i16, ReadError> {
        if self.compressed {
            self.varint().map(|v| v as i16)
        } else {
            self.raw_i16()
        }
    }

    /// A length or count: an `int` that is not negative and not larger than the bytes left
    /// (every element takes at least `min_size` bytes; 0 bounds the count by the bytes left).
    pub fn count(&mut self, min_size: usize) -> Result<usize, ReadError> {
        let at = self.pos;
        let n = self.int()?;
        let n =
            usize::try_from(n).map_err(|_| self.error_at(at, format!("a negative count ({n})")))?;
        if n.saturating_mul(min_size.max(1)) > self.remaining() {
            return Err(self.error_at(
                at,
                format!("a count ({n}) larger than the bytes left in the event"),
            ));
        }
        Ok(n)
    }

    pub fn f32(&mut self) -> Result<f32, ReadError> {
        self.fixed().map(f32::from_be_bytes)
    }

    pub fn f64(&mut self) -> Result<f64, ReadError> {
        self.fixed().map(f64::from_be_bytes)
    }

    /// A `char`: UTF-16 code unit (unpaired surrogates become U+FFFD).
    pub fn char(&mut self) -> Result<char, ReadError> {
        let c = self.short()? as u16;
        Ok(char::from_u32(u32::from(c)).unwrap_or(char::REPLACEMENT_CHARACTER))
    }

    /// A string in any of JFR's encodings.
    pub fn string(&mut self) -> Result<JfrString, ReadError> {
        let at = self.pos;
        match self.u8()? {
            STRING_NULL => Ok(JfrString::Null),
            STRING_EMPTY => Ok(JfrString::Text(String::new())),
            STRING_POOL => self.long().map(JfrString::Pool),
            STRING_UTF8 => {
                let n = self.count(1)?;
                let b = self.take(n)?;
                Ok(JfrString::Text(String::from_utf8_lossy(b).into_owned()))
            }
            STRING_CHARS => {
                let n = self.count(1)?;
                let units = (0..n)
                    .map(|_| self.short().map(|c| c as u16))
                    .collect::<Result<Vec<u16>, _>>()?;
                Ok(JfrString::Text(String::from_utf16_lossy(&units)))
            }
            STRING_LATIN1 => {
                let n = self.count(1)?;
                let b = self.take(n)?;
                Ok(JfrString::Text(b.iter().map(|&c| char::from(c)).collect()))
            }
            other => Err(self.error_at(at, format!("unknown string encoding {other}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_and_strings() {
        let mut b = Bytes::new(&[0x85, 0xb0, 0x03], 0, true);
        assert_eq!(b.long().unwrap(), 55301);
        let mut b = Bytes::new(&[3, 2, b'h', b'i', 2, 7, 0, 1], 0, true);
        assert_eq!(b.string().unwrap(), JfrString::Text("hi".into()));
        assert_eq!(b.string().unwrap(), JfrString::Pool(7));
        assert_eq!(b.string().unwrap(), JfrString::Null);
        assert_eq!(b.string().unwrap(), JfrString::Text(String::new()));
        let mut b = Bytes::new(&[3, 9, b'h'], 10, true);
        let e = b.string().unwrap_err();
        assert_eq!(e.place, Place::Byte(11));
    }
}
