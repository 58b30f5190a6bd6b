//! A minimal protobuf wire walker for the top level of a pprof `Profile`.
//!
//! prost decodes each sub-message (Sample, Location, …); this walker splits the top level
//! into fields by hand so that the reader knows the byte offset and index of every message
//! (for error messages), can decode samples one at a time without holding them all, and can
//! see what protobuf merging would hide: a second `time_nanos` (concatenated profiles).
//! Mirrors `google/pprof:profile/proto.go`: varints of at most 10 bytes, lengths checked
//! against the remaining input, wire types 0, 1, 2 and 5 accepted, groups rejected.

/// Protobuf wire types.
pub const WIRE_VARINT: u8 = 0;
/// 64-bit fixed.
pub const WIRE_FIXED64: u8 = 1;
/// Length-delimited (messages, strings, packed scalars).
pub const WIRE_LEN: u8 = 2;
/// 32-bit fixed.
pub const WIRE_FIXED32: u8 = 5;
/// Longest varint encoding.
const MAX_VARINT_LEN: usize = 10;

/// One field of a message.
#[derive(Clone, Copy, Debug)]
pub struct Field<'a> {
    /// Field number.
    pub number: u64,
    /// Byte offset of the field's key.
    pub offset: usize,
    /// The value.
    pub value: Value<'a>,
}

/// The payload of a field, by wire type.
#[derive(Clone, Copy, Debug)]
pub enum Value<'a> {
    /// Wire type 0.
    Varint(u64),
    /// Wire type 1 (the value is not needed by pprof, only skipped).
    Fixed64,
    /// Wire type 2: the bytes, and their offset in the buffer.
    Len(&'a [u8], usize),
    /// Wire type 5 (skipped like [`Value::Fixed64`]).
    Fixed32,
}

impl Value<'_> {
    /// The wire type number.
    pub fn wire_type(&self) -> u8 {
        match self {
            Value::Varint(_) => WIRE_VARINT,
            Value::Fixed64 => WIRE_FIXED64,
            Value::Len(..) => WIRE_LEN,
            Value::Fixed32 => WIRE_FIXED32,
        }
    }
}

/// Why the walk stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireError {
    /// Byte offset of the problem.
    pub offset: usize,
    /// True when the input simply ended inside a field (a truncated file or a prefix).
    pub truncated: bool,
    /// What is wrong.
    pub message: String,
}

/// Iterates over the fields of one message encoded in `buf`; the offsets it reports are
/// `base` plus the position in `buf`. Stops after the first error.
pub struct Fields<'a> {
    buf: &'a [u8],
    pos: usize,
    base: usize,
    failed: bool,
}

impl<'a> Fields<'a> {
    /// Fields of the message `buf`, which starts at byte `base` of the whole input.
    pub fn new(buf: &'a [u8], base: usize) -> Self {
        Fields {
            buf,
            pos: 0,
            base,
            failed: false,
        }
    }

    fn error(&mut self, at: usize, truncated: bool, message: String) -> WireError {
        self.failed = true;
        WireError {
            offset: self.base.saturating_add(at),
            truncated,
            message,
        }
    }

    fn next_field(&mut self) -> Result<Field<'a>, WireError> {
        let start = self.pos;
        let key = self.varint()?;
        let number = key >> 3;
        let wire = (key & 7) as u8;
        if number == 0 {
            return Err(self.error(start, false, "invalid field number 0".to_owned()));
        }
        let value = match wire {
            WIRE_VARINT => Value::Varint(self.varint()?),
            WIRE_FIXED64 => {
                self.skip(8, start)?;
                Value::Fixed64
            }
            WIRE_FIXED32 => {
                self.skip(4, start)?;
                Value::Fixed32
            }
            WIRE_LEN => {
                let len = self.varint()?;
                let from = self.pos;
                let remaining = self.buf.len().saturating_sub(from);
                let len = usize::try_from(len)
                    .ok()
                    .filter(|&l| l <= remaining)
                    .ok_or_else(|| {
                        self.error(
                            start,
                            true,
                            format!(
                            "field {number} is {len} bytes long but only {remaining} bytes remain"
                        ),
                        )
                    })?;
                self.pos = from + len;
                Value::Len(
                    self.buf.get(from..from + len).unwrap_or_default(),
                    self.base.saturating_add(from),
                )
            }
            other => {
                return Err(self.error(
                    start,
                    false,
                    format!("field {number} has unknown wire type {other}"),
                ))
            }
        };
        Ok(Field {
            number,
            offset: self.base.saturating_add(start),
            value,
        })
    }

    fn varint(&mut self) -> Result<u64, WireError> {
        let start = self.pos;
        match read_varint(self.buf, &mut self.pos) {
            Some(v) => Ok(v),
            None => {
                let truncated = self.buf.len().saturating_sub(start) < MAX_VARINT_LEN;
                Err(self.error(start, truncated, "bad varint".to_owned()))
            }
        }
    }

    fn skip(&mut self, n: usize, start: usize) -> Result<(), WireError> {
        if self.buf.len().saturating_sub(self.pos) < n {
            return Err(self.error(start, true, "not enough data".to_owned()));
        }
        self.pos += n;
        Ok(())
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = Result<Field<'a>, WireError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.pos >= self.buf.len() {
            return None;
        }
        Some(self.next_field())
    }
}

/// Reads a varint at `*pos`, advancing it; `None` when the input ends first or the varint is
/// longer than 10 bytes.
pub fn read_varint(buf: &[u8], pos: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    for i in 0..MAX_VARINT_LEN {
        let b = *buf.get(pos.checked_add(i)?)?;
        value |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            *pos += i + 1;
            return Some(value);
        }
    }
    None
}

/// Appends the varints of a packed repeated field to `out`; `None` when one is malformed.
pub fn read_packed_varints(buf: &[u8], out: &mut Vec<u64>) -> Option<()> {
    let mut pos = 0;
    while pos < buf.len() {
        out.push(read_varint(buf, &mut pos)?);
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_fields_and_reports_truncation() {
        // field 9 varint 300, field 6 "ab", field 6 truncated.
        let buf = [0x48, 0xac, 0x02, 0x32, 0x02, b'a', b'b', 0x32, 0x05, b'x'];
        let mut it = Fields::new(&buf, 100);
        let f = it.next().unwrap().unwrap();
        assert_eq!((f.number, f.offset), (9, 100));
        assert!(matches!(f.value, Value::Varint(300)));
        let f = it.next().unwrap().unwrap();
        assert!(matches!(f.value, Value::Len(b"ab", 105)));
        let e = it.next().unwrap().unwrap_err();
        assert_eq!(e.offset, 107);
        assert!(e.truncated);
        assert!(it.next().is_none());
    }

    #[test]
    fn rejects_groups_and_long_varints() {
        let group = [0x0b];
        let e = Fields::new(&group, 0).next().unwrap().unwrap_err();
        assert!(e.message.contains("unknown wire type 3"));
        let long = [
            0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
        ];
        let e = Fields::new(&long, 0).next().unwrap().unwrap_err();
        assert_eq!(e.message, "bad varint");
        assert!(!e.truncated);
    }
}
