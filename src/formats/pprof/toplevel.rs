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
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Scalar {
    pub(super) value: i64,
    pub(super) offset: usize,
}

/// Everything of the top level except the samples, which are only counted.
#[derive(Debug, Default)]
pub(super) struct TopLevel {
    pub(super) sample_types: Vec<(ValueType, usize)>,
    pub(super) mappings: Vec<(Mapping, usize)>,
    pub(super) locations: Vec<(Location, usize)>,
    pub(super) functions: Vec<(Function, usize)>,
    /// Byte range of each `string_table` entry in the input, or in `string_bytes`.
    pub(super) strings: Vec<Range<usize>>,
    /// The strings' bytes, when pass 1 keeps them (the input is not kept: [`PassOne::windowed`]).
    pub(super) string_bytes: Option<Vec<u8>>,
    pub(super) num_samples: usize,
    /// Bytes of the input the samples take, keys and lengths included: what the samples' part
    /// of the model is planned from.
    pub(super) sample_bytes: usize,
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

/// Pass 1 run ahead over an input as it arrives (a gzip file being inflated): it takes the
/// fields that lie wholly inside what has arrived, while those bytes are still in cache, so
/// that the pass over the whole input resumes where this one stopped instead of walking half
/// a million samples again from memory.
///
/// Invariant: `PassOne::finish` on the whole input gives what `PassOne::default().finish`
/// gives (pass 1 over the whole input at once), whatever prefixes [`PassOne::advance`] saw: a
/// field it could not take (cut by the end of what had arrived, malformed, refused) stops it,
/// and `finish` meets that field again and reports it as the whole pass does.
///
/// A windowed pass ([`PassOne::windowed`]) is shown the input piece by piece, not as prefixes
/// (through [`super::windows::FieldWindows`]), and keeps the string table's bytes itself.
#[derive(Default)]
pub struct PassOne {
    top: TopLevel,
    /// Where the next field starts: every field before it has been taken.
    pos: usize,
    /// A field it could not take for a reason other than the end of the bytes shown: it
    /// takes nothing more (`finish` reports that field).
    broken: bool,
}

impl PassOne {
    /// A pass shown the input in windows rather than prefixes: see the type's doc.
    pub(super) fn windowed() -> Self {
        let mut pass = PassOne::default();
        pass.top.string_bytes = Some(Vec::new());
        pass
    }

    /// Takes the fields of `prefix`, the input so far (a prefix of what later calls and
    /// `finish` get), from where the last call stopped.
    pub fn advance(&mut self, prefix: &[u8]) {
        self.advance_window(prefix, 0);
    }

    /// Takes the fields that lie wholly in `window`, the input's bytes from offset `start`
    /// on (`start` at most where the last call stopped, and the window reaching it); returns
    /// the offset where it stopped, as a [`super::windows::Walk`] does (the window's end once
    /// broken: it wants nothing more).
    pub(super) fn advance_window(&mut self, window: &[u8], start: usize) -> usize {
        let end = start.saturating_add(window.len());
        if self.broken {
            return end;
        }
        let rest = window
            .get(self.pos.saturating_sub(start)..)
            .unwrap_or_default();
        let mut fields = Fields::new(rest, self.pos);
        loop {
            count_samples(&mut fields, &mut self.top);
            self.pos = fields.position();
            let taken = match fields.next() {
                None => return self.pos,
                Some(Ok(f)) => self.top.check_and_take(f).is_ok(),
                Some(Err(e)) if e.truncated => return self.pos,
                Some(Err(_)) => false,
            };
            if !taken {
                self.broken = true;
                return end;
            }
            self.pos = fields.position();
        }
    }

    /// True when a field stopped the pass for a reason other than the end of its bytes.
    pub(super) fn is_broken(&self) -> bool {
        self.broken
    }

    /// The rest of pass 1 over `data`, the whole input (all of pass 1, from a default
    /// `PassOne`).
    pub(super) fn finish(self, data: &[u8]) -> Result<TopLevel, ReadError> {
        let rest = data.get(self.pos..).unwrap_or_default();
        self.finish_from(rest)
    }

    /// The rest of pass 1 over `rest`, the input's bytes from where the pass stopped on.
    pub(super) fn finish_from(self, rest: &[u8]) -> Result<TopLevel, ReadError> {
        let PassOne { mut top, pos, .. } = self;
        let mut fields = Fields::new(rest, pos);
        loop {
            count_samples(&mut fields, &mut top);
            let Some(f) = fields.next() else { break };
            let f = f.map_err(|e| byte_err(e.offset, e.message))?;
            top.check_and_take(f)?;
        }
        Ok(top)
    }
}

/// Skips the run of samples at the fields' position, adding their number and bytes to `top`.
/// Samples are most of the message: they are counted without being split into fields, in
/// calls of a bounded number (wasm code tiers up between calls, not within one).
fn count_samples(fields: &mut Fields<'_>, top: &mut TopLevel) {
    let start = Fields::position(fields);
    loop {
        let skip = &mut |()| fields.skip_run(field::SAMPLE as u8, SKIP_RUN);
        let run = opaque_call(skip, ());
        top.num_samples += run;
        if run < SKIP_RUN {
            break;
        }
    }
    top.sample_bytes += Fields::position(fields).saturating_sub(start);
}

impl TopLevel {
    /// Takes a field other than a run of samples: unknown fields are skipped (as protobuf and
    /// Go do); a known one must have its wire type.
    fn check_and_take(&mut self, f: protowire::Field<'_>) -> Result<(), ReadError> {
        let Some(wires) = expected_wire_types(f.number) else {
            return Ok(());
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
        self.take(f)
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
            (field::SAMPLE, value) => {
                self.num_samples += 1;
                if let Value::Len(p, off) = value {
                    // The key and the length before the payload too, as in a run.
                    self.sample_bytes += (off + p.len()).saturating_sub(f.offset);
                }
            }
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
            (field::STRING_TABLE, Value::Len(p, off)) => {
                let range = match &mut self.string_bytes {
                    Some(kept) => {
                        kept.extend_from_slice(p);
                        kept.len() - p.len()..kept.len()
                    }
                    None => off..off + p.len(),
                };
                self.strings.push(range);
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Pass 1 over `data` at once, as text (the top level, or the error).
    fn whole(data: &[u8]) -> String {
        show(PassOne::default().finish(data))
    }

    fn show(r: Result<TopLevel, ReadError>) -> String {
        match r {
            Ok(top) => format!("{top:?}"),
            Err(e) => e.to_string(),
        }
    }

    /// Pass 1 run ahead over the prefixes of `data` ending at `cuts`, then finished; checks
    /// that it gives the whole pass's answer and returns how far the run ahead got.
    fn ahead(data: &[u8], cuts: impl Iterator<Item = usize>) -> usize {
        let mut pass = PassOne::default();
        for cut in cuts {
            pass.advance(&data[..cut.min(data.len())]);
        }
        let reached = pass.pos;
        assert_eq!(show(pass.finish(data)), whole(data));
        reached
    }

    /// The raw `Profile` of every pprof file of the shared corpus.
    fn corpus() -> Vec<Vec<u8>> {
        let files = crate::formats::test_corpus::raw_pprof();
        files.into_iter().map(|(_, raw)| raw).collect()
    }

    #[test]
    fn samples_are_counted_with_their_bytes() {
        for data in corpus() {
            let starts: Vec<(u64, usize)> = Fields::new(&data, 0)
                .map(|f| f.map(|f| (f.number, f.offset)).unwrap())
                .collect();
            let ends = starts.iter().skip(1).map(|&(_, at)| at).chain([data.len()]);
            let sample_bytes: usize = starts
                .iter()
                .zip(ends)
                .filter(|((number, _), _)| *number == field::SAMPLE)
                .map(|((_, start), end)| end - start)
                .sum();
            let top = PassOne::default().finish(&data).unwrap();
            assert_eq!(top.sample_bytes, sample_bytes);
            assert!(top.num_samples == 0 || sample_bytes >= 2 * top.num_samples);
        }
        // A sample whose key takes two bytes (0x92 0x00: field 2, length-delimited) is not
        // skipped with a run but taken alone; its key and length count as a run's do.
        let alone = [0x92, 0x00, 0x02, 0x08, 0x01];
        let in_run = [0x12, 0x02, 0x08, 0x01];
        let top = PassOne::default()
            .finish(&[&alone[..], &in_run[..]].concat())
            .unwrap();
        assert_eq!((top.num_samples, top.sample_bytes), (2, 9));
    }

    #[test]
    fn run_ahead_over_any_prefixes_gives_the_whole_pass() {
        let files = corpus();
        assert!(files.len() >= 10, "only {} corpus files", files.len());
        for data in &files {
            let n = data.len();
            // Every field taken once the whole input has arrived: finish has nothing left.
            assert_eq!(ahead(data, std::iter::once(n)), n);
            assert_eq!(ahead(data, (0..n).step_by(7).chain([n])), n);
            ahead(data, (0..=n).step_by(1 + n / 97));
            ahead(data, [n / 3, n / 3, n / 2].into_iter());
        }
    }

    #[test]
    fn a_bad_field_is_reported_as_the_whole_pass_reports_it() {
        let data = corpus().into_iter().max_by_key(Vec::len).unwrap();
        let n = data.len();
        let mut reports = std::collections::BTreeSet::new();
        for at in (0..n).step_by(1 + n / 61) {
            for (byte, cut) in [(0xff, n), (0x00, n), (data[at], at + 1)] {
                let mut bad = data[..cut].to_vec();
                bad[at] = byte;
                ahead(&bad, (0..=cut).step_by(1 + cut / 13));
                ahead(&bad, std::iter::once(cut));
                reports.insert(whole(&bad).chars().take(40).collect::<String>());
            }
        }
        // The damage gave errors of several kinds, not one.
        assert!(reports.len() >= 4, "{reports:?}");
    }
}
