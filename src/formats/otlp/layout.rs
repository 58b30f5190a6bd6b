//! Telling the wire layouts apart, and decoding `Profile` by hand.
//!
//! The payload carries no version, and two messages changed their field numbers after the
//! dictionary moved out (docs/formats/otlp.md):
//!
//! * `Profile` — v1.8 has `comment_strindices = 7`, `profile_id = 8`,
//!   `dropped_attributes_count = 9`, `original_payload_format = 10`, `original_payload = 11`,
//!   `attribute_indices = 12`; v1.9 and later drop the comments and shift the rest down by one.
//! * `Sample` — v1.8/v1.9 have `values = 2`, `attribute_indices = 3`, `link_index = 4`; v1.10+
//!   have `attribute_indices = 2`, `link_index = 3`, `values = 4`.
//!
//! Both are read off all the `Profile`s of one message:
//!
//! **Header** (v1.8 or later): v1.8 if any profile has field 12, a varint field 7 (comments),
//! a length-delimited field 8 (`profile_id`) or a varint field 9 (`dropped_attributes_count`);
//! later if any has a varint field 8 or a length-delimited field 9. Both → error; neither → the
//! fields 7–12 are absent and the layouts agree.
//!
//! **Sample** (old = v1.8/v1.9, or current):
//! 1. *Decisive:* field 3 length-delimited (packed `attribute_indices`) exists only in the old
//!    layout; field 4 length-delimited (packed `values`) only in the current one. Both → error.
//! 2. *Shape:* a sample with field 2 but neither field 4 nor field 5 is old (a current sample
//!    needs `values` or timestamps); a field-2 element that is no valid attribute index (≤ 0 or
//!    past the attribute table) is an old value; field 2 and field 5 with different element
//!    counts are current attributes (old values pair with timestamps).
//! 3. *Scalars:* field 3 as a varint is a current `link_index`; field 4 as a varint an old one.
//! 4. No evidence: old when the header is v1.8, else current (the samples then use only fields
//!    1 and 5, or field 2 in a way both layouts explain).

use super::proto::{Profile, ProfilesData, ValueType};
use crate::formats::protowire::{fields, packed_varint_count, packed_varints, Field, Value};

/// The `Profile` field layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeaderLayout {
    /// opentelemetry-proto v1.8 (with `comment_strindices = 7`).
    V18,
    /// v1.9 and later.
    Current,
}

/// The `Sample` field layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SampleLayout {
    /// v1.8 / v1.9 (`values = 2`).
    Old,
    /// v1.10 and later (`values = 4`).
    Current,
}

/// The layouts of one message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// `Profile` fields.
    pub header: HeaderLayout,
    /// `Sample` fields.
    pub sample: SampleLayout,
}

impl Layout {
    /// The opentelemetry-proto release the combination belongs to.
    pub fn name(self) -> &'static str {
        match (self.header, self.sample) {
            (HeaderLayout::V18, _) => "v1.8",
            (HeaderLayout::Current, SampleLayout::Old) => "v1.9",
            (HeaderLayout::Current, SampleLayout::Current) => "current (v1.10+)",
        }
    }
}

/// Evidence gathered from the profiles.
#[derive(Default, Debug)]
struct Evidence {
    old_decisive: bool,
    current_decisive: bool,
    old_shape: bool,
    current_shape: bool,
    old_scalar: bool,
    current_scalar: bool,
    header_v18: bool,
    header_current: bool,
}

/// What one sample's fields 2–5 look like.
#[derive(Default)]
struct SampleShape {
    field2: Option<usize>,
    field2_bad_attribute: bool,
    field4: bool,
    field5: usize,
}

/// The layouts of one decoded `ProfilesData` message, from all its (still encoded) profiles.
pub fn of_message(data: &ProfilesData) -> Result<Layout, String> {
    let attributes = data
        .dictionary
        .as_ref()
        .map_or(0, |d| d.attribute_table.len());
    let profiles = data
        .resource_profiles
        .iter()
        .flat_map(|r| &r.scope_profiles)
        .flat_map(|s| &s.profiles)
        .map(Vec::as_slice);
    detect(profiles, attributes)
}

/// Decides the layouts of the encoded `Profile`s of one message; `Err` names the conflict.
pub fn detect<'a>(
    profiles: impl Iterator<Item = &'a [u8]>,
    attribute_table_len: usize,
) -> Result<Layout, String> {
    let mut ev = Evidence::default();
    for profile in profiles {
        for field in fields(profile).flatten() {
            match (field.number, field.value) {
                (2, Value::Len(sample, _)) => scan_sample(sample, attribute_table_len, &mut ev),
                (12, _) | (7, Value::Varint(_)) | (8, Value::Len(..)) | (9, Value::Varint(_)) => {
                    ev.header_v18 = true
                }
                (8, Value::Varint(_)) | (9, Value::Len(..)) => ev.header_current = true,
                _ => {}
            }
        }
    }
    decide(&ev)
}

fn is_bad_attribute(v: u64, attribute_table_len: usize) -> bool {
    v == 0 || usize::try_from(v).map_or(true, |v| v >= attribute_table_len)
}

fn scan_sample(sample: &[u8], attribute_table_len: usize, ev: &mut Evidence) {
    let mut shape = SampleShape::default();
    for field in fields(sample).flatten() {
        match (field.number, field.value) {
            (2, Value::Len(b, _)) => {
                *shape.field2.get_or_insert(0) += packed_varint_count(b).unwrap_or(0);
                shape.field2_bad_attribute |=
                    packed_varints(b).any(|v| is_bad_attribute(v, attribute_table_len));
            }
            (2, Value::Varint(v)) => {
                *shape.field2.get_or_insert(0) += 1;
                shape.field2_bad_attribute |= is_bad_attribute(v, attribute_table_len);
            }
            (3, Value::Len(..)) => ev.old_decisive = true,
            (3, Value::Varint(_)) => ev.current_scalar = true,
            (4, Value::Len(..)) => {
                ev.current_decisive = true;
                shape.field4 = true;
            }
            (4, Value::Varint(_)) => {
                ev.old_scalar = true;
                shape.field4 = true;
            }
            (5, Value::Len(b, _)) => shape.field5 += b.len() / 8,
            (5, Value::Fixed64(_)) => shape.field5 += 1,
            _ => {}
        }
    }
    if let Some(n2) = shape.field2 {
        if (!shape.field4 && shape.field5 == 0) || shape.field2_bad_attribute {
            ev.old_shape = true;
        }
        if shape.field5 > 0 && n2 != shape.field5 {
            ev.current_shape = true;
        }
    }
}

fn decide(ev: &Evidence) -> Result<Layout, String> {
    let header = match (ev.header_v18, ev.header_current) {
        (true, true) => {
            return Err("the profiles mix the v1.8 Profile layout and the later one".to_owned())
        }
        (true, false) => HeaderLayout::V18,
        _ => HeaderLayout::Current,
    };
    let sample = sample_evidence(ev)?;
    let sample = match (header, sample) {
        (HeaderLayout::V18, Some(SampleLayout::Current)) => {
            return Err("v1.8 Profile fields with v1.10+ Sample fields".to_owned())
        }
        (HeaderLayout::V18, _) => SampleLayout::Old,
        (HeaderLayout::Current, s) => s.unwrap_or(SampleLayout::Current),
    };
    Ok(Layout { header, sample })
}

fn sample_evidence(ev: &Evidence) -> Result<Option<SampleLayout>, String> {
    match (ev.old_decisive, ev.current_decisive) {
        (true, true) => {
            return Err(
                "the samples mix the v1.9 layout (packed field 3) and the current \
                        layout (packed field 4)"
                    .to_owned(),
            )
        }
        (true, false) => return Ok(Some(SampleLayout::Old)),
        (false, true) => return Ok(Some(SampleLayout::Current)),
        (false, false) => {}
    }
    Ok(match (ev.old_shape, ev.current_shape) {
        (true, false) => Some(SampleLayout::Old),
        (false, true) => Some(SampleLayout::Current),
        _ if ev.old_scalar && !ev.current_scalar => Some(SampleLayout::Old),
        _ if ev.current_scalar && !ev.old_scalar => Some(SampleLayout::Current),
        _ => None,
    })
}

/// A decoded `Profile` plus the v1.8 comments; its samples stay encoded (borrowed from the
/// input) until the reader needs them, so that a scope's samples are never all decoded at once.
#[derive(Clone, Debug, Default)]
pub struct DecodedProfile<'a> {
    /// The fields of the v1.9+ layout (its `samples` are left empty).
    pub profile: Profile,
    /// The encoded `Sample` messages.
    pub samples: Vec<&'a [u8]>,
    /// v1.8 `comment_strindices`.
    pub comment_strindices: Vec<i32>,
}

/// Decodes one `Profile` in `header` layout.
pub fn decode_profile(buf: &[u8], header: HeaderLayout) -> Result<DecodedProfile<'_>, String> {
    let mut out = DecodedProfile::default();
    for field in fields(buf) {
        let field = field.map_err(|e| {
            format!(
                "malformed protobuf field at byte {} of the Profile",
                e.field_offset
            )
        })?;
        set_field(&mut out, field, header)?;
    }
    Ok(out)
}

/// Names of the `Profile` fields 1–10 (v1.9+ numbering), for error messages.
const PROFILE_FIELD_NAMES: [&str; 10] = [
    "sample_type",
    "samples",
    "time_unix_nano",
    "duration_nano",
    "period_type",
    "period",
    "profile_id",
    "dropped_attributes_count",
    "original_payload_format",
    "original_payload",
];

fn set_field<'a>(
    out: &mut DecodedProfile<'a>,
    field: Field<'a>,
    header: HeaderLayout,
) -> Result<(), String> {
    let p = &mut out.profile;
    // Renumber v1.8 fields 8–12 onto the later 7–11; v1.8 field 7 holds the comments.
    let number = match (header, field.number) {
        (HeaderLayout::V18, 7) => {
            return int32s(field, &mut out.comment_strindices, "comment_strindices")
        }
        (HeaderLayout::V18, n @ 8..=12) => n - 1,
        (_, n) => n,
    };
    match (number, field.value) {
        (1, Value::Len(b, _)) => p.sample_type = Some(value_type(b)?),
        (2, Value::Len(b, _)) => out.samples.push(b),
        (3, Value::Fixed64(v)) => p.time_unix_nano = v,
        (4, Value::Varint(v)) => p.duration_nano = v,
        (5, Value::Len(b, _)) => p.period_type = Some(value_type(b)?),
        (6, Value::Varint(v)) => p.period = v as i64,
        (7, Value::Len(b, _)) => p.profile_id = b.to_vec(),
        (8, Value::Varint(v)) => p.dropped_attributes_count = v as u32,
        (9, Value::Len(b, _)) => {
            p.original_payload_format = String::from_utf8(b.to_vec())
                .map_err(|_| "Profile.original_payload_format is not UTF-8".to_owned())?
        }
        (10, Value::Len(b, _)) => p.original_payload = b.to_vec(),
        (11, _) => return int32s(field, &mut p.attribute_indices, "attribute_indices"),
        (n @ 1..=10, _) => {
            let name = PROFILE_FIELD_NAMES[(n - 1) as usize];
            return Err(format!("Profile.{name} has the wrong wire type"));
        }
        _ => {}
    }
    Ok(())
}

fn value_type(b: &[u8]) -> Result<ValueType, String> {
    <ValueType as prost::Message>::decode(b).map_err(|e| format!("malformed ValueType: {e}"))
}

/// Appends a repeated int32 field, packed or not.
fn int32s(field: Field<'_>, out: &mut Vec<i32>, name: &str) -> Result<(), String> {
    match field.value {
        Value::Varint(v) => out.push(v as i32),
        Value::Len(b, _) => {
            if packed_varint_count(b).is_none() {
                return Err(format!("Profile.{name}: truncated packed varints"));
            }
            out.extend(packed_varints(b).map(|v| v as i32));
        }
        _ => return Err(format!("Profile.{name} has the wrong wire type")),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::otlp::proto::{Sample, SampleV19};
    use prost::Message;

    const OLD: Layout = Layout {
        header: HeaderLayout::Current,
        sample: SampleLayout::Old,
    };
    const CURRENT: Layout = Layout {
        header: HeaderLayout::Current,
        sample: SampleLayout::Current,
    };

    fn run(samples: &[Vec<u8>]) -> Result<Layout, String> {
        let profile = Profile {
            samples: samples.to_vec(),
            ..Default::default()
        }
        .encode_to_vec();
        detect(std::iter::once(profile.as_slice()), 4)
    }

    fn old(s: SampleV19) -> Vec<u8> {
        s.encode_to_vec()
    }

    fn current(s: Sample) -> Vec<u8> {
        s.encode_to_vec()
    }

    #[test]
    fn decisive_packed_fields() {
        let a = old(SampleV19 {
            stack_index: 1,
            attribute_indices: vec![1, 2],
            timestamps_unix_nano: vec![5],
            ..Default::default()
        });
        assert_eq!(run(std::slice::from_ref(&a)), Ok(OLD));
        let b = current(Sample {
            stack_index: 1,
            values: vec![3],
            ..Default::default()
        });
        assert_eq!(run(std::slice::from_ref(&b)), Ok(CURRENT));
        assert!(run(&[a, b]).is_err());
    }

    #[test]
    fn shapes_and_scalars() {
        let values_only = old(SampleV19 {
            stack_index: 1,
            values: vec![7],
            ..Default::default()
        });
        assert_eq!(run(&[values_only]), Ok(OLD));
        let attrs_and_one_timestamp = current(Sample {
            stack_index: 1,
            attribute_indices: vec![1, 2],
            timestamps_unix_nano: vec![9],
            ..Default::default()
        });
        assert_eq!(run(&[attrs_and_one_timestamp]), Ok(CURRENT));
        let old_link = old(SampleV19 {
            stack_index: 1,
            link_index: 1,
            timestamps_unix_nano: vec![9],
            ..Default::default()
        });
        assert_eq!(run(&[old_link]), Ok(OLD));
        let current_link = current(Sample {
            stack_index: 1,
            link_index: 1,
            timestamps_unix_nano: vec![9],
            ..Default::default()
        });
        assert_eq!(run(&[current_link]), Ok(CURRENT));
        let big_value = old(SampleV19 {
            stack_index: 1,
            values: vec![100],
            timestamps_unix_nano: vec![9],
            ..Default::default()
        });
        assert_eq!(run(&[big_value]), Ok(OLD));
        let timestamps_only = current(Sample {
            stack_index: 1,
            timestamps_unix_nano: vec![9],
            ..Default::default()
        });
        assert_eq!(run(&[timestamps_only]), Ok(CURRENT));
    }

    #[test]
    fn v18_header_is_renumbered() {
        // v1.8: field 7 comments (packed), 8 profile_id, 9 dropped count, 12 attributes.
        let mut buf = vec![0x3a, 0x02, 0x01, 0x02];
        buf.extend([0x42, 0x01, 0xaa, 0x48, 0x03, 0x62, 0x01, 0x05]);
        let layout = detect(std::iter::once(buf.as_slice()), 8).unwrap();
        assert_eq!(layout.name(), "v1.8");
        let p = decode_profile(&buf, layout.header).unwrap();
        assert_eq!(p.comment_strindices, vec![1, 2]);
        assert_eq!(p.profile.profile_id, vec![0xaa]);
        assert_eq!(p.profile.dropped_attributes_count, 3);
        assert_eq!(p.profile.attribute_indices, vec![5]);
        // The same bytes read as the later layout fail on the wire type of field 8.
        assert!(decode_profile(&buf, HeaderLayout::Current).is_err());
    }
}
