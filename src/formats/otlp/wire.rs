//! A minimal protobuf wire scanner: walks the fields of one message without decoding them.
//! Used to sniff the format (top-level fields 1 and 2 only) and to tell the two `Sample`
//! layouts apart before decoding with prost.

/// The payload of one field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Payload<'a> {
    /// Wire type 0.
    Varint(u64),
    /// Wire type 1.
    Fixed64(u64),
    /// Wire type 2.
    Bytes(&'a [u8]),
    /// Wire type 5.
    Fixed32(u32),
}

/// One field of a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field<'a> {
    /// Field number.
    pub number: u64,
    /// Its payload.
    pub payload: Payload<'a>,
}

/// Iterator over the fields of a message; yields `Err(offset)` once at the first malformed
/// byte (groups, bad varints, lengths past the end) and then stops.
pub struct Fields<'a> {
    buf: &'a [u8],
    pos: usize,
    done: bool,
}

/// The fields of `buf`.
pub fn fields(buf: &[u8]) -> Fields<'_> {
    Fields {
        buf,
        pos: 0,
        done: false,
    }
}

/// Reads a varint at `*pos` (at most 10 bytes), advancing `pos`.
pub fn read_varint(buf: &[u8], pos: &mut usize) -> Option<u64> {
    let mut value: u64 = 0;
    for shift in 0..10u32 {
        let byte = *buf.get(*pos)?;
        *pos += 1;
        value |= u64::from(byte & 0x7f) << (7 * shift);
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

impl<'a> Fields<'a> {
    fn next_field(&mut self) -> Option<Field<'a>> {
        let key = read_varint(self.buf, &mut self.pos)?;
        let number = key >> 3;
        if number == 0 {
            return None;
        }
        let payload = match key & 7 {
            0 => Payload::Varint(read_varint(self.buf, &mut self.pos)?),
            1 => {
                let start = self.pos;
                self.skip(8)?;
                let raw: [u8; 8] = self.buf.get(start..self.pos)?.try_into().ok()?;
                Payload::Fixed64(u64::from_le_bytes(raw))
            }
            2 => {
                let len = usize::try_from(read_varint(self.buf, &mut self.pos)?).ok()?;
                let start = self.pos;
                self.skip(len)?;
                Payload::Bytes(self.buf.get(start..self.pos)?)
            }
            5 => {
                let start = self.pos;
                self.skip(4)?;
                let raw: [u8; 4] = self.buf.get(start..self.pos)?.try_into().ok()?;
                Payload::Fixed32(u32::from_le_bytes(raw))
            }
            _ => return None,
        };
        Some(Field { number, payload })
    }

    fn skip(&mut self, n: usize) -> Option<()> {
        let end = self.pos.checked_add(n)?;
        (end <= self.buf.len()).then(|| self.pos = end)
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = Result<Field<'a>, usize>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done || self.pos >= self.buf.len() {
            return None;
        }
        let start = self.pos;
        match self.next_field() {
            Some(f) => Some(Ok(f)),
            None => {
                self.done = true;
                Some(Err(start))
            }
        }
    }
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

/// The varints of a packed payload (stops at the first malformed one).
pub fn packed_varints(buf: &[u8]) -> impl Iterator<Item = u64> + '_ {
    let mut pos = 0;
    std::iter::from_fn(move || {
        if pos >= buf.len() {
            return None;
        }
        read_varint(buf, &mut pos)
    })
}

/// True when `buf` is a well-formed message whose fields are all numbered 1 or 2 with wire
/// type 2, and there is at least one: the shape of `ProfilesData` /
/// `ExportProfilesServiceRequest`. (A pprof `Profile` always has field 6, its string table.)
pub fn is_profiles_data_shape(buf: &[u8]) -> bool {
    let mut any = false;
    for f in fields(buf) {
        match f {
            Ok(Field {
                number: 1 | 2,
                payload: Payload::Bytes(_),
            }) => any = true,
            _ => return false,
        }
    }
    any
}

/// Like [`is_profiles_data_shape`] for the first bytes of a message (e.g. an inflated gzip
/// prefix): every complete field is 1 or 2 with wire type 2, and a field cut off at the end
/// has such a tag too.
pub fn is_profiles_data_prefix(buf: &[u8]) -> bool {
    let mut pos = 0usize;
    let mut any = false;
    while pos < buf.len() {
        let Some(key) = read_varint(buf, &mut pos) else {
            return any;
        };
        if !matches!(key, 0x0a | 0x12) {
            return false;
        }
        any = true;
        let Some(len) = read_varint(buf, &mut pos).and_then(|l| usize::try_from(l).ok()) else {
            return true;
        };
        pos = pos.saturating_add(len);
    }
    any
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scans_fields_and_stops_at_garbage() {
        // field 1 varint 150, field 2 bytes "ab", then a group start (wire type 3).
        let buf = [0x08, 0x96, 0x01, 0x12, 0x02, b'a', b'b', 0x1b];
        let got: Vec<_> = fields(&buf).collect();
        assert_eq!(got.len(), 3);
        assert_eq!(
            got[0],
            Ok(Field {
                number: 1,
                payload: Payload::Varint(150)
            })
        );
        assert_eq!(
            got[1],
            Ok(Field {
                number: 2,
                payload: Payload::Bytes(b"ab")
            })
        );
        assert_eq!(got[2], Err(7));
    }

    #[test]
    fn profiles_data_shape() {
        assert!(is_profiles_data_shape(&[0x0a, 0x00, 0x12, 0x00]));
        assert!(!is_profiles_data_shape(&[0x0a, 0x00, 0x32, 0x00]));
        assert!(!is_profiles_data_shape(&[0x0a, 0x05, 0x00]));
        assert!(!is_profiles_data_shape(&[]));
        assert!(is_profiles_data_prefix(&[0x0a, 0x09, 0x01]));
        assert!(!is_profiles_data_prefix(&[0x32, 0x09, 0x01]));
        assert_eq!(packed_varint_count(&[0x01, 0x96, 0x01]), Some(2));
        assert_eq!(packed_varint_count(&[0x96]), None);
    }
}
