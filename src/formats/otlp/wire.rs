//! The wire shape of an OTLP message, read with the shared walker
//! [`crate::formats::protowire`]: a `ProfilesData` / `ExportProfilesServiceRequest` has only
//! the length-delimited top-level fields 1 and 2, which is how [`super::detect`] tells it from
//! a pprof `Profile` (whose string table, field 6, is mandatory).

use crate::formats::protowire::{fields, read_varint, Field, Value};

/// True when `buf` is a well-formed message whose fields are all numbered 1 or 2 with wire
/// type 2, and there is at least one: the shape of `ProfilesData` /
/// `ExportProfilesServiceRequest`. (A pprof `Profile` always has field 6, its string table.)
pub fn is_profiles_data_shape(buf: &[u8]) -> bool {
    let mut any = false;
    for f in fields(buf) {
        match f {
            Ok(Field {
                number: 1 | 2,
                value: Value::Len(..),
                ..
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
    fn profiles_data_shape() {
        assert!(is_profiles_data_shape(&[0x0a, 0x00, 0x12, 0x00]));
        assert!(!is_profiles_data_shape(&[0x0a, 0x00, 0x32, 0x00]));
        assert!(!is_profiles_data_shape(&[0x0a, 0x05, 0x00]));
        assert!(!is_profiles_data_shape(&[]));
        assert!(is_profiles_data_prefix(&[0x0a, 0x09, 0x01]));
        assert!(!is_profiles_data_prefix(&[0x32, 0x09, 0x01]));
    }
}
