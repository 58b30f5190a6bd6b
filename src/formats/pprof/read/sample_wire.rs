//! A `Sample` decoded without prost when it is plain: only location ids (field 1) and values
//! (field 2), packed or not, every varint well formed. That is every sample of a CPU or heap
//! profile without labels, and prost's generic merge (a call per field and per varint, each
//! bounds-checked) was about 30% of a large pprof's parse. Anything else — labels, unknown
//! fields, other wire types, malformed varints or lengths — is left to prost, so what is
//! accepted, what it decodes to and the error texts stay prost's.

use crate::formats::pprof::schema::Sample;
use crate::formats::protowire::{read_varint, MAX_VARINT_LEN};

/// Decodes `payload` into `sample` (cleared first) when it is plain (see the module doc) and
/// returns true; false, with `sample` in any state, when prost must decode it.
pub(super) fn decode_plain(payload: &[u8], sample: &mut Sample) -> bool {
    sample.location_id.clear();
    sample.value.clear();
    sample.label.clear();
    let mut pos = 0;
    while pos < payload.len() {
        let Some(key) = varint(payload, &mut pos) else {
            return false;
        };
        let ok = match key {
            // Field 1, varint / length-delimited (packed).
            0x08 => varint(payload, &mut pos).map(|v| sample.location_id.push(v)),
            0x0a => packed(payload, &mut pos, &mut sample.location_id, |v| v),
            // Field 2 (int64: the varint's bits as two's complement).
            0x10 => varint(payload, &mut pos).map(|v| sample.value.push(v as i64)),
            0x12 => packed(payload, &mut pos, &mut sample.value, |v| v as i64),
            _ => None,
        };
        if ok.is_none() {
            return false;
        }
    }
    true
}

/// The packed varints of the length-delimited payload at `*pos`, appended to `out`.
fn packed<T>(
    buf: &[u8],
    pos: &mut usize,
    out: &mut Vec<T>,
    convert: impl Fn(u64) -> T,
) -> Option<()> {
    let len = usize::try_from(varint(buf, pos)?).ok()?;
    let end = pos.checked_add(len).filter(|&e| e <= buf.len())?;
    let body = &buf[*pos..end];
    let mut at = 0;
    while let Some(&b0) = body.get(at) {
        // Ids and small values take one or two bytes: decoded inline, the rest by `varint`.
        if b0 < 0x80 {
            out.push(convert(u64::from(b0)));
            at += 1;
            continue;
        }
        match body.get(at + 1) {
            Some(&b1) if b1 < 0x80 => {
                out.push(convert(u64::from(b0 & 0x7f) | u64::from(b1) << 7));
                at += 2;
            }
            _ => out.push(convert(varint(body, &mut at)?)),
        }
    }
    *pos = end;
    Some(())
}

/// The varint at `*pos`, advancing past it ([`read_varint`]); `None` also when its 10th byte
/// holds more than the top bit of a u64, which prost refuses and `read_varint` drops.
#[inline]
fn varint(buf: &[u8], pos: &mut usize) -> Option<u64> {
    let start = *pos;
    let value = read_varint(buf, pos)?;
    if *pos - start == MAX_VARINT_LEN && buf[start + MAX_VARINT_LEN - 1] > 1 {
        return None;
    }
    Some(value)
}

#[cfg(test)]
mod tests {
    use prost::Message;

    use super::*;
    use crate::formats::pprof::schema::Label;

    /// What prost makes of `payload`: the sample, or its error text.
    fn by_prost(payload: &[u8]) -> Result<Sample, String> {
        Sample::decode(payload).map_err(|e| e.to_string())
    }

    /// The fast path agrees with prost wherever it answers.
    fn check(payload: &[u8]) -> bool {
        let mut sample = Sample::default();
        let plain = decode_plain(payload, &mut sample);
        if plain {
            assert_eq!(Ok(sample), by_prost(payload), "{payload:02x?}");
        }
        plain
    }

    #[test]
    fn plain_samples_decode_as_prost_decodes_them() {
        let s = Sample {
            location_id: vec![1, 300, u64::MAX, 0],
            value: vec![-1, 0, i64::MAX, i64::MIN, 7],
            label: vec![],
        };
        assert!(check(&s.encode_to_vec()));
        // Unpacked and mixed encodings append, as protobuf merges them.
        let unpacked = [0x08, 0x05, 0x10, 0x7f, 0x0a, 0x02, 0x01, 0x02, 0x08, 0x03];
        assert!(check(&unpacked));
        assert!(check(&[]));
        assert!(check(&[0x0a, 0x00, 0x12, 0x00]));
    }

    #[test]
    fn anything_else_is_left_to_prost() {
        let labelled = Sample {
            location_id: vec![1],
            value: vec![2],
            label: vec![Label {
                key: 1,
                str: 2,
                ..Label::default()
            }],
        };
        let cases: [&[u8]; 9] = [
            &labelled.encode_to_vec(),
            &[0x18, 0x01],                   // unknown field 3 as a varint
            &[0x20, 0x01],                   // unknown field 4
            &[0x09, 0, 0, 0, 0, 0, 0, 0, 0], // field 1 as fixed64
            &[0x08],                         // the varint missing
            &[0x0a, 0x05, 0x01],             // a length past the end
            &[0x0a, 0x01, 0x81],             // a varint cut by its packed length
            &[
                0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02,
            ], // overflow
            &[
                0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00,
            ], // 11 bytes
        ];
        for case in cases {
            assert!(!check(case), "{case:02x?}");
        }
        // The 10-byte encoding of u64::MAX is plain.
        let max = [
            0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
        ];
        assert!(check(&max));
    }
}
