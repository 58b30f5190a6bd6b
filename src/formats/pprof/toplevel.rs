//! Pass 1 of the pprof reader: the top level of a `Profile` split into fields, everything but
//! the samples decoded (with the byte offset of each message kept for error messages).

use std::ops::Range;

use prost::Message;

use super::errors::byte_err;
use super::schema::{Function, Location, Mapping, ValueType};
use crate::chunks::opaque_call;
use crate::formats::protowire::{self, Fields, Value, WIRE_LEN, WIRE_VARINT};
use crate::formats::ReadError;

/// Field numbers of `Profile`.
pub(super) mod field {
    pub const SAMPLE_TYPE: u64 = 1;
    pub const SAMPLE: u64 = 2;
    pub const MAPPING: u64 = 3;
    pub const LOCATION: u64 = 4;
    pub const FUNCTION: u64 = 5;
    pub const STRING_TABLE: u64 = 6;
    pub const DROP_FRAMES: u64 = 7;
    pub const KEEP_FRAMES: u64 = 8;
    pub const TIME_NANOS: u64 = 9;
    pub const DURATION_NANOS: u64 = 10;
    pub const PERIOD_TYPE: u64 = 11;
    pub const PERIOD: u64 = 12;
    pub const COMMENT: u64 = 13;
    pub const DEFAULT_SAMPLE_TYPE: u64 = 14;
    pub const DOC_URL: u64 = 15;
}

/// The wire types a known top-level field may have; `None` for unknown field numbers.
pub(super) fn expected_wire_types(number: u64) -> Option<&'static [u8]> {
    match number {
        1..=6 | 11 => Some(&[WIRE_LEN]),
        7..=10 | 12 | 14 | 15 => Some(&[WIRE_VARINT]),
        13 => Some(&[WIRE_VARINT, WIRE_LEN]),
        _ => None,
    }
}

/// Samples counted per call of [`Fields::skip_run`].
const SKIP_RUN: usize = 1 << 12;

/// An integer scalar of `Profile` and the offset of its field (0 when absent).
#[derive(Clone, Copy, Default)]
pub(super) struct Scalar {
    pub(super) value: i64,
    pub(super) offset: usize,
}

/// Everything of the top level except the samples, which are only counted.
#[derive(Default)]
pub(super) struct TopLevel {
    pub(super) sample_types: Vec<(ValueType, usize)>,
    pub(super) mappings: Vec<(Mapping, usize)>,
    pub(super) locations: Vec<(Location, usize)>,
    pub(super) functions: Vec<(Function, usize)>,
    /// Byte range of each `string_table` entry in the input.
    pub(super) strings: Vec<Range<usize>>,
    pub(super) num_samples: usize,
    pub(super) drop_frames: Scalar,
    pub(super) keep_frames: Scalar,
    pub(super) time_nanos: Scalar,
    pub(super) duration_nanos: Scalar,
    pub(super) period_type: Option<(ValueType, usize)>,
    pub(super) period: Scalar,
    pub(super) comments: Vec<Scalar>,
    pub(super) default_sample_type: Scalar,
    pub(super) doc_url: Scalar,
}

/// Decodes the sub-message `payload` (the `index`-th `what`, starting at byte `offset`).
fn decode<M: Message + Default>(
    payload: &[u8],
    offset: usize,
    what: &str,
    index: usize,
) -> Result<M, ReadError> {
    M::decode(payload).map_err(|e| byte_err(offset, format!("{what}[{index}]: cannot decode: {e}")))
}

impl TopLevel {
    /// Pass 1 over the top level of `data`.
    pub(super) fn scan(data: &[u8]) -> Result<Self, ReadError> {
        let mut top = TopLevel::default();
        let mut fields = Fields::new(data, 0);
        loop {
            // Samples are most of the message: count them without splitting them into fields,
            // in calls of a bounded number (wasm code tiers up between calls, not within one).
            let skip = &mut |()| fields.skip_run(field::SAMPLE as u8, SKIP_RUN);
            let run = opaque_call(skip, ());
            top.num_samples += run;
            if run == SKIP_RUN {
                continue;
            }
            let Some(f) = fields.next() else { break };
            let f = f.map_err(|e| byte_err(e.offset, e.message))?;
            let Some(wires) = expected_wire_types(f.number) else {
                continue; // unknown fields are skipped, as protobuf and Go do
            };
            if !wires.contains(&f.value.wire_type()) {
                return Err(byte_err(
                    f.offset,
                    format!(
                        "type mismatch: Profile field {} has wire type {}",
                        f.number,
                        f.value.wire_type()
                    ),
                ));
            }
            top.take(f)?;
        }
        Ok(top)
    }

    fn take(&mut self, f: protowire::Field<'_>) -> Result<(), ReadError> {
        let scalar = |v: u64| Scalar {
            // Go decodes int64 fields as the varint's bits.
            value: v as i64,
            offset: f.offset,
        };
        match (f.number, f.value) {
            (field::SAMPLE_TYPE, Value::Len(p, off)) => {
                let vt = decode(p, off, "sample_type", self.sample_types.len())?;
                self.sample_types.push((vt, off));
            }
            (field::SAMPLE, _) => self.num_samples += 1,
            (field::MAPPING, Value::Len(p, off)) => {
                let m = decode(p, off, "mapping", self.mappings.len())?;
                self.mappings.push((m, off));
            }
            (field::LOCATION, Value::Len(p, off)) => {
                let l = decode(p, off, "location", self.locations.len())?;
                self.locations.push((l, off));
            }
            (field::FUNCTION, Value::Len(p, off)) => {
                let func = decode(p, off, "function", self.functions.len())?;
                self.functions.push((func, off));
            }
            (field::STRING_TABLE, Value::Len(p, off)) => self.strings.push(off..off + p.len()),
            (field::DROP_FRAMES, Value::Varint(v)) => self.drop_frames = scalar(v),
            (field::KEEP_FRAMES, Value::Varint(v)) => self.keep_frames = scalar(v),
            (field::TIME_NANOS, Value::Varint(v)) => {
                if self.time_nanos.value != 0 {
                    return Err(byte_err(
                        f.offset,
                        "concatenated profiles detected (a second time_nanos field)",
                    ));
                }
                self.time_nanos = scalar(v);
            }
            (field::DURATION_NANOS, Value::Varint(v)) => self.duration_nanos = scalar(v),
            (field::PERIOD_TYPE, Value::Len(p, off)) => {
                self.period_type = Some((decode(p, off, "period_type", 0)?, off));
            }
            (field::PERIOD, Value::Varint(v)) => self.period = scalar(v),
            (field::COMMENT, Value::Varint(v)) => self.comments.push(scalar(v)),
            (field::COMMENT, Value::Len(p, off)) => {
                let mut values = Vec::new();
                protowire::read_packed_varints(p, &mut values)
                    .ok_or_else(|| byte_err(off, "comment: bad varint in packed field"))?;
                self.comments.extend(values.into_iter().map(scalar));
            }
            (field::DEFAULT_SAMPLE_TYPE, Value::Varint(v)) => self.default_sample_type = scalar(v),
            (field::DOC_URL, Value::Varint(v)) => self.doc_url = scalar(v),
            _ => {}
        }
        Ok(())
    }
}
