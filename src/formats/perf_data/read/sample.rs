//! The common SAMPLE record — fixed-size fields and a callchain, nothing after it (what
//! `perf record [-g]` writes) — read in one pass over its body: the same fields, the same
//! refusals (a body too short for a field) as `linux-perf-event-reader`'s
//! `SampleRecord::parse`, plus where the callchain field is (for the chain cache), which that
//! parse does not say and [`super::lbr::callchain_range`] finds with a second walk. Samples
//! of other formats go through the crate.

use std::ops::Range;

use byteorder::{BigEndian, ByteOrder, LittleEndian};
use linux_perf_data::linux_perf_event_reader::{
    CpuMode, RawData, RawDataU64, RecordParseInfo, SampleFormat, SampleRecord,
};

/// The sample formats read here: the fixed-size fields before READ, and CALLCHAIN.
const FAST: SampleFormat = SampleFormat::IDENTIFIER
    .union(SampleFormat::IP)
    .union(SampleFormat::TID)
    .union(SampleFormat::TIME)
    .union(SampleFormat::ADDR)
    .union(SampleFormat::ID)
    .union(SampleFormat::STREAM_ID)
    .union(SampleFormat::CPU)
    .union(SampleFormat::PERIOD)
    .union(SampleFormat::CALLCHAIN);

/// True when samples of `info` are read by [`parse`].
pub(super) fn is_fast(info: &RecordParseInfo) -> bool {
    FAST.contains(info.sample_format)
}

#[inline]
/// A sample of a format [`is_fast`] accepts, with the range of its callchain field (length
/// word and entries; empty without CALLCHAIN); `None` where the crate's parse fails.
pub(super) fn parse<'b>(
    body: &'b [u8],
    misc: u16,
    info: &RecordParseInfo,
    big_endian: bool,
) -> Option<(SampleRecord<'b>, Range<usize>)> {
    if big_endian {
        parse_as::<BigEndian>(body, misc, info.sample_format)
    } else {
        parse_as::<LittleEndian>(body, misc, info.sample_format)
    }
}

/// Reads the body's fields in order, each only when the format has it.
struct Fields<'b, T> {
    body: &'b [u8],
    at: usize,
    format: SampleFormat,
    order: std::marker::PhantomData<T>,
}

impl<'b, T: ByteOrder> Fields<'b, T> {
    fn take(&mut self, n: usize) -> Option<&'b [u8]> {
        let bytes = self.body.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(bytes)
    }

    /// The u64 field `flag`: `Some(None)` when the format lacks it, `None` when cut.
    fn u64(&mut self, flag: SampleFormat) -> Option<Option<u64>> {
        if !self.format.contains(flag) {
            return Some(None);
        }
        self.take(8).map(|b| Some(T::read_u64(b)))
    }

    /// The two u32 halves of the field `flag`.
    fn pair(&mut self, flag: SampleFormat) -> Option<Option<(u32, u32)>> {
        if !self.format.contains(flag) {
            return Some(None);
        }
        self.take(8)
            .map(|b| Some((T::read_u32(b), T::read_u32(&b[4..]))))
    }
}

#[inline(always)]
fn parse_as<T: ByteOrder>(
    body: &[u8],
    misc: u16,
    format: SampleFormat,
) -> Option<(SampleRecord<'_>, Range<usize>)> {
    let mut f = Fields::<T> {
        body,
        at: 0,
        format,
        order: std::marker::PhantomData,
    };
    let identifier = f.u64(SampleFormat::IDENTIFIER)?;
    let ip = f.u64(SampleFormat::IP)?;
    let tid = f.pair(SampleFormat::TID)?;
    let timestamp = f.u64(SampleFormat::TIME)?;
    let addr = f.u64(SampleFormat::ADDR)?;
    let id = f.u64(SampleFormat::ID)?;
    let stream_id = f.u64(SampleFormat::STREAM_ID)?;
    let cpu = f.pair(SampleFormat::CPU)?;
    let period = f.u64(SampleFormat::PERIOD)?;
    let chain_at = f.at;
    let callchain = match format.contains(SampleFormat::CALLCHAIN) {
        false => None,
        true => {
            let n = usize::try_from(T::read_u64(f.take(8)?)).ok()?;
            let entries = f.take(n.checked_mul(8)?)?;
            Some(RawDataU64::from_raw_data::<T>(RawData::Single(entries)))
        }
    };
    let chain = match callchain {
        Some(_) => chain_at..f.at,
        None => 0..0,
    };
    let sample = SampleRecord {
        id: identifier.or(id),
        addr,
        stream_id,
        raw: None,
        ip,
        timestamp,
        pid: tid.map(|(pid, _)| pid as i32),
        tid: tid.map(|(_, tid)| tid as i32),
        cpu: cpu.map(|(cpu, _)| cpu),
        period,
        user_regs: None,
        user_stack: None,
        callchain,
        phys_addr: None,
        data_page_size: None,
        code_page_size: None,
        intr_regs: None,
        cpu_mode: CpuMode::from_misc(misc),
    };
    Some((sample, chain))
}

#[cfg(test)]
mod tests {
    use super::*;
    use linux_perf_data::linux_perf_event_reader::{EventRecord, RawEventRecord, RecordType};
    use linux_perf_data::{PerfFileReader, PerfFileRecord};
    use std::io::Cursor;

    /// The crate's parse of a sample body (`None` when it fails).
    fn crate_parse<'b>(
        body: &'b [u8],
        misc: u16,
        info: RecordParseInfo,
    ) -> Option<SampleRecord<'b>> {
        let raw = RawEventRecord {
            record_type: RecordType::SAMPLE,
            misc,
            data: RawData::Single(body),
            parse_info: info,
        };
        match raw.parse() {
            Ok(EventRecord::Sample(s)) => Some(s),
            _ => None,
        }
    }

    #[test]
    fn reads_samples_as_the_crate_does_whole_and_cut() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/perf-data/");
        let mut checked = 0;
        for name in ["fp.data", "multi.data", "pipe.data"] {
            let input = std::fs::read(format!("{dir}{name}")).expect("fixture");
            let reader = match name {
                "pipe.data" => PerfFileReader::parse_pipe(Cursor::new(&input[..])),
                _ => PerfFileReader::parse_file(Cursor::new(&input[..])),
            };
            let PerfFileReader {
                mut perf_file,
                mut record_iter,
            } = reader.expect("header");
            while let Some(r) = record_iter.next_record(&mut perf_file).expect("record") {
                let PerfFileRecord::EventRecord { record, .. } = r else {
                    continue;
                };
                if record.record_type != RecordType::SAMPLE || !is_fast(&record.parse_info) {
                    continue;
                }
                let body = record.data.as_slice();
                let (misc, info) = (record.misc, record.parse_info);
                let (ours, chain) = parse(&body, misc, &info, false).expect("a whole sample");
                assert_eq!(Some(&ours), crate_parse(&body, misc, info).as_ref());
                let entries = ours.callchain.as_ref().map_or(0, |c| c.len());
                if info.sample_format.contains(SampleFormat::CALLCHAIN) {
                    assert_eq!(chain.len(), 8 + 8 * entries);
                }
                // Cut anywhere: refused exactly when the crate refuses.
                for cut in [0, 1, 7, 8, 15, 16, chain.start + 4, body.len() - 1] {
                    let short = &body[..cut.min(body.len())];
                    let (mine, theirs) = (
                        parse(short, misc, &info, false),
                        crate_parse(short, misc, info),
                    );
                    assert_eq!(mine.map(|m| m.0), theirs, "{name}: cut at {cut}");
                }
                checked += 1;
            }
        }
        assert!(checked > 100);
    }

    #[test]
    fn a_chain_length_past_the_body_or_overflowing_is_refused() {
        let info_format = SampleFormat::IP | SampleFormat::CALLCHAIN;
        for n in [3u64, u64::MAX, 1 << 61] {
            let mut body = 7u64.to_le_bytes().to_vec();
            body.extend(n.to_le_bytes());
            body.extend(1u64.to_le_bytes());
            assert!(
                parse_as::<LittleEndian>(&body, 0, info_format).is_none(),
                "{n}"
            );
        }
    }
}
