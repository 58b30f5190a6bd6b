//! The fields of one line: after the record letter and its space, lowercase hex numbers
//! separated by single spaces, or a string (version 3: its byte length in hex first).

/// A cursor over the fields of one line.
pub(super) struct Fields<'a> {
    rest: &'a str,
}

impl<'a> Fields<'a> {
    /// The fields of `line` (everything after its first two bytes, as heaptrack's LineReader).
    pub fn new(line: &'a str) -> Self {
        Fields {
            rest: line.get(2..).unwrap_or_default(),
        }
    }

    /// The next hex number; `None` at the end of the line, for a field that is not lowercase
    /// hex, or for one that does not fit in 64 bits.
    pub fn hex(&mut self) -> Option<u64> {
        if self.rest.is_empty() {
            return None;
        }
        let (field, rest) = self.rest.split_once(' ').unwrap_or((self.rest, ""));
        if field.is_empty()
            || !field
                .bytes()
                .all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f'))
        {
            return None;
        }
        let value = u64::from_str_radix(field, 16).ok()?;
        self.rest = rest;
        Some(value)
    }

    /// The next hex number as a 32-bit index.
    pub fn index(&mut self) -> Option<u32> {
        self.hex().and_then(|v| u32::try_from(v).ok())
    }

    /// A sized string (file version 3): its length in hex, a space, that many bytes.
    pub fn sized_string(&mut self) -> Option<&'a str> {
        let len = usize::try_from(self.hex()?).ok()?;
        let s = self.rest.get(..len)?;
        self.rest = self.rest.get(len..).unwrap_or_default();
        self.rest = self.rest.strip_prefix(' ').unwrap_or(self.rest);
        Some(s)
    }

    /// The rest of the line as is (strings before version 3, command lines, suppressions).
    pub fn rest(&self) -> &'a str {
        self.rest
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_fields_and_sized_strings() {
        let mut f = Fields::new("i 7f50 8 c d 79");
        assert_eq!(f.hex(), Some(0x7f50));
        assert_eq!(f.index(), Some(8));
        assert_eq!(f.rest(), "c d 79");
        assert_eq!(Fields::new("t 1G 0").hex(), None);
        assert_eq!(Fields::new("t").hex(), None);
        assert_eq!(Fields::new("c 10000000000000000").hex(), None);
        let mut s = Fields::new("s a main (x y)");
        assert_eq!(s.sized_string(), Some("main (x y)"));
        assert_eq!(Fields::new("s 20 short").sized_string(), None);
    }
}
