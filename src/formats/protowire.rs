//! The one protobuf wire walker of the crate, below the pprof and OTLP readers.
//!
//! prost decodes whole messages; this walker splits one message into its fields by hand, so
//! that a reader knows the byte offset of every field (for error messages), can decode large
//! repeated sub-messages one at a time, can see what protobuf merging would hide (a second
//! scalar of the same number), and can sniff a format by the numbers and wire types of its
//! top-level fields without decoding anything.
//!
//! Invariants, as `google/pprof:profile/proto.go` has them: a varint is at most 10 bytes, a
//! length is checked against the remaining input before it is used, wire types 0, 1, 2 and 5
//! are accepted and groups (3, 4) rejected, field number 0 is an error. A walk stops at its
//! first error, which says where it is and whether the input simply ended (truncation).

/// Wire type 0: varint.
pub const WIRE_VARINT: u8 = 0;
/// Wire type 1: 64-bit fixed.
pub const WIRE_FIXED64: u8 = 1;
/// Wire type 2: length-delimited (messages, strings, packed scalars).
pub const WIRE_LEN: u8 = 2;
/// Wire type 5: 32-bit fixed.
pub const WIRE_FIXED32: u8 = 5;
/// Longest varint encoding.
pub(crate) const MAX_VARINT_LEN: usize = 10;

/// One field of a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field<'a> {
    /// Field number.
    pub number: u64,
    /// Byte offset of the field's key.
    pub offset: usize,
    /// The value.
    pub value: Value<'a>,
}

/// The payload of a field, by wire type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value<'a> {
    /// Wire type 0.
    Varint(u64),
    /// Wire type 1.
    Fixed64(u64),
    /// Wire type 2: the bytes, and their offset in the whole input.
    Len(&'a [u8], usize),
    /// Wire type 5.
    Fixed32(u32),
}

impl Value<'_> {
    /// The wire type number.
    pub fn wire_type(&self) -> u8 {
        match self {
            Value::Varint(_) => WIRE_VARINT,
            Value::Fixed64(_) => WIRE_FIXED64,
            Value::Len(..) => WIRE_LEN,
            Value::Fixed32(_) => WIRE_FIXED32,
        }
    }
}

/// Why the walk stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireError {
    /// Byte offset of the problem (the varint or length at fault).
    pub offset: usize,
    /// Byte offset of the key of the field the problem is in.
    pub field_offset: usize,
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
    /// Position of the key of the field being read.
    field_start: usize,
    failed: bool,
}

/// The fields of the message `buf` (offsets from its start).
pub fn fields(buf: &[u8]) -> Fields<'_> {
    Fields::new(buf, 0)
}

impl<'a> Fields<'a> {
    /// Fields of the message `buf`, which starts at byte `base` of the whole input.
    pub fn new(buf: &'a [u8], base: usize) -> Self {
        Fields {
            buf,
            pos: 0,
            base,
            field_start: 0,
            failed: false,
        }
    }

    /// The byte where the next field starts (after the last one returned or skipped),
    /// counted as the offsets are (from `base`).
    pub fn position(&self) -> usize {
        self.base.saturating_add(self.pos)
    }

    fn error(&mut self, at: usize, truncated: bool, message: String) -> WireError {
        self.failed = true;
        WireError {
            offset: self.base.saturating_add(at),
            field_offset: self.base.saturating_add(self.field_start),
            truncated,
            message,
        }
    }

    fn next_field(&mut self) -> Result<Field<'a>, WireError> {
        let start = self.pos;
        self.field_start = start;
        let key = self.varint()?;
        let number = key >> 3;
        if number == 0 {
            return Err(self.error(start, false, "invalid field number 0".to_owned()));
        }
        let value = match (key & 7) as u8 {
            WIRE_VARINT => Value::Varint(self.varint()?),
            WIRE_FIXED64 => Value::Fixed64(u64::from_le_bytes(self.fixed(start)?)),
            WIRE_FIXED32 => Value::Fixed32(u32::from_le_bytes(self.fixed(start)?)),
            WIRE_LEN => self.length_delimited(number, start)?,
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

    fn length_delimited(&mut self, number: u64, start: usize) -> Result<Value<'a>, WireError> {
        let len = self.varint()?;
        let from = self.pos;
        let remaining = self.buf.len().saturating_sub(from);
        let Some(len) = usize::try_from(len).ok().filter(|&l| l <= remaining) else {
            let message =
                format!("field {number} is {len} bytes long but only {remaining} bytes remain");
            return Err(self.error(start, true, message));
        };
        self.pos = from + len;
        Ok(Value::Len(
            self.buf.get(from..from + len).unwrap_or_default(),
            self.base.saturating_add(from),
        ))
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

    /// The next `N` bytes (a fixed-width value).
    fn fixed<const N: usize>(&mut self, start: usize) -> Result<[u8; N], WireError> {
        let bytes = self
            .buf
            .get(self.pos..)
            .and_then(|rest| rest.get(..N))
            .and_then(|b| <[u8; N]>::try_from(b).ok());
        let Some(bytes) = bytes else {
            return Err(self.error(start, true, "not enough data".to_owned()));
        };
        self.pos += N;
        Ok(bytes)
    }
}

impl Fields<'_> {
    /// Skips the run of length-delimited fields numbered `number` (1–15: a one-byte key) that
    /// starts here, and returns how many it skipped: a message's repeated field (pprof's
    /// samples) counted without being split into [`Field`]s. Stops after `max` fields, before
    /// any other field and before a malformed one, which the next [`Iterator::next`] then
    /// reports.
    pub fn skip_run(&mut self, number: u8, max: usize) -> usize {
        let key = (number << 3) | WIRE_LEN;
        let mut skipped = 0;
        while skipped < max && !self.failed && self.buf.get(self.pos) == Some(&key) {
            let mut at = self.pos + 1;
            let Some(len) = read_varint(self.buf, &mut at) else {
                break;
            };
            let end = usize::try_from(len).ok().and_then(|l| at.checked_add(l));
            match end.filter(|&e| e <= self.buf.len()) {
                Some(end) => self.pos = end,
                None => break,
            }
            skipped += 1;
        }
        skipped
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

/// Reads a varint at `*pos`, advancing it; `None` (with `pos` unchanged) when the input ends
/// first or the varint is longer than 10 bytes.
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

/// The varints of a packed repeated field (stops at the first malformed one).
pub fn packed_varints(buf: &[u8]) -> impl Iterator<Item = u64> + '_ {
    let mut pos = 0;
    std::iter::from_fn(move || {
        if pos >= buf.len() {
            return None;
        }
        read_varint(buf, &mut pos)
    })
}

/// Appends the varints of a packed repeated field to `out`; `None` when one is malformed.
pub fn read_packed_varints(buf: &[u8], out: &mut Vec<u64>) -> Option<()> {
    let mut pos = 0;
    while pos < buf.len() {
        out.push(read_varint(buf, &mut pos)?);
    }
    Some(())
}

/// Number of varints in a packed payload (`None` when it does not end on a varint boundary).
pub fn packed_varint_count(buf: &[u8]) -> Option<usize> {
    let mut pos = 0;
    let mut n = 0usize;
    while pos < buf.len() {
        read_varint(buf, &mut pos)?;
        n += 1;
    }
    Some(n)
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
        assert_eq!((e.offset, e.field_offset), (107, 107));
        assert!(e.truncated);
        assert!(it.next().is_none());
    }

    /// A run is skipped up to the first other field, and up to (not past) a malformed one,
    /// which the walk then reports as it would have.
    #[test]
    fn skips_a_run_of_one_field_and_leaves_errors_to_the_walk() {
        // field 2 "a", field 2 "" , field 2 "bc", field 6 "d", field 2 of 300 bytes (truncated).
        let buf = [
            0x12, 1, b'a', 0x12, 0, 0x12, 2, b'b', b'c', 0x32, 1, b'd', 0x12, 0xac, 0x02, b'x',
        ];
        let mut it = Fields::new(&buf, 10);
        assert_eq!(it.skip_run(6, usize::MAX), 0);
        assert_eq!(it.skip_run(2, usize::MAX), 3);
        assert_eq!(it.skip_run(2, usize::MAX), 0);
        let f = it.next().unwrap().unwrap();
        assert_eq!((f.number, f.offset), (6, 19));
        assert_eq!(it.skip_run(2, usize::MAX), 0);
        let e = it.next().unwrap().unwrap_err();
        assert_eq!(e.field_offset, 22);
        assert!(e
            .message
            .contains("field 2 is 300 bytes long but only 1 bytes remain"));
        assert_eq!(it.skip_run(2, usize::MAX), 0);
        assert!(it.next().is_none());
        // At most `max` at a time, the rest by the next call.
        let mut it = Fields::new(&buf, 10);
        assert_eq!(it.skip_run(2, 2), 2);
        assert_eq!(it.skip_run(2, 2), 1);
        assert_eq!(it.next().unwrap().unwrap().offset, 19);
    }

    #[test]
    fn rejects_groups_and_long_varints() {
        let group = [0x0b];
        let e = fields(&group).next().unwrap().unwrap_err();
        assert!(e.message.contains("unknown wire type 3"));
        let long = [
            0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
        ];
        let e = fields(&long).next().unwrap().unwrap_err();
        assert_eq!(e.message, "bad varint");
        assert_eq!((e.offset, e.field_offset), (1, 0));
        assert!(!e.truncated);
    }

    #[test]
    fn reads_fixed_values_and_stops_at_garbage() {
        // field 1 fixed64 = 1, field 2 fixed32 = 2, field 2 bytes "ab", then a group start.
        let mut buf = vec![0x09, 1, 0, 0, 0, 0, 0, 0, 0, 0x15, 2, 0, 0, 0];
        buf.extend([0x12, 0x02, b'a', b'b', 0x1b]);
        let got: Vec<_> = fields(&buf).collect();
        assert_eq!(got.len(), 4);
        assert_eq!(got[0].as_ref().unwrap().value, Value::Fixed64(1));
        assert_eq!(got[1].as_ref().unwrap().value, Value::Fixed32(2));
        assert_eq!(got[2].as_ref().unwrap().value, Value::Len(b"ab", 16));
        assert_eq!(got[3].as_ref().unwrap_err().field_offset, 18);
        assert_eq!(packed_varint_count(&[0x01, 0x96, 0x01]), Some(2));
        assert_eq!(packed_varint_count(&[0x96]), None);
        assert_eq!(
            packed_varints(&[0x01, 0x96, 0x01]).collect::<Vec<_>>(),
            [1, 150]
        );
    }
}
