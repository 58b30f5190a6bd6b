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
