//! The reader, in steps: the header checked ([`guard`]), compressed records expanded
//! ([`decompress`]), the records walked in time order ([`records`]; from a file in chunks:
//! [`file`]) while the process state ([`threads`]) is replayed, each sample read ([`sample`]
//! or the crate's parse) and its callchain turned into frames ([`frames`], [`lbr`]), then the
//! meta ([`meta`]) and the `mappings` table.

mod chains;
mod columns;
mod decompress;
mod events;
mod file;
pub use file::Source;
mod frames;
mod guard;
mod lbr;
mod meta;
mod records;
mod sample;
mod threads;
mod unwind;

use std::io::Cursor;
use std::ops::Range;

use linux_perf_data::linux_perf_event_reader::constants::PERF_RECORD_MISC_MMAP_BUILD_ID;
use linux_perf_data::linux_perf_event_reader::{
    EventRecord, RawData, RawEventRecord, RecordType, SampleRecord,
};
use linux_perf_data::{Feature, PerfFile, PerfFileReader, UserRecordType};

use super::{header_kind, FORMAT, META_FIRST_TIME};
use crate::formats::read_common::{check_sample_limit, finish_parsed};
use crate::formats::{Format, Limits, Parsed, ReadError, ReadOptions, Warnings};
use crate::model::ext::{locations as loc_cols, samples as sample_cols};
use crate::model::{
    ColumnKind, ProfileBuilder, SourceIndex, StackIndex, ValueTypeIndex, META_DEFAULT_TYPE,
};
use decompress::Endian;
use events::Event;
use frames::{Frames, Space};
use threads::{Machine, Map};
use unwind::{DwarfUnwinder, Outcome, UserState};

use crate::formats::perf_data::symbolize::BinarySource;

/// The value type every sample has: 1 per sample.
const SAMPLES_TYPE: &str = "samples";
/// Sample column: the CPU the sample was taken on (as perf-script names it).
const SAMPLE_CPU: &str = crate::model::ext::samples::CPU;
/// Sample column: the event name with its modifiers (as perf-script names it).
const SAMPLE_EVENT: &str = crate::model::ext::samples::EVENT;

fn lib_err(e: linux_perf_data::Error) -> ReadError {
    ReadError::whole(FORMAT, e.to_string())
}

/// Reads a perf.data recording (see the module documentation of [`super`]); `binaries`, when
/// given, finds the binaries that unwind `--call-graph dwarf` stacks.
pub(super) fn read<'a>(
    bytes: &[u8],
    options: &'a ReadOptions,
    binaries: Option<&'a mut BinarySource<'a>>,
) -> Result<Parsed, ReadError> {
    let (pipe, big) = header_kind(bytes).ok_or_else(|| {
        ReadError::whole(
            FORMAT,
            "not a perf.data recording (no `PERFILE2` magic with a file or pipe header size)",
        )
    })?;
    let endian = Endian { big };
    if pipe {
        guard::check_pipe(bytes, endian)?;
    } else {
        guard::check_file(bytes, endian)?;
    }
    let mut warnings = Warnings::default();
    let max = options.limits.max_decompressed_bytes;
    let expanded = decompress::expand(bytes, pipe, endian, max, &mut warnings)?;
    let stream = expanded.as_deref().unwrap_or(bytes);
    guard::check_auxtrace(stream, pipe, endian)?;
    let data = Cursor::new(stream);
    let PerfFileReader { perf_file, .. } = if pipe {
        PerfFileReader::parse_pipe(data)
    } else {
        PerfFileReader::parse_file(data)
    }
    .map_err(lib_err)?;
    let (start, mut walk) = if pipe {
        records::pipe_walk(stream, endian.big)
    } else {
        records::file_walk(stream, endian.big)
            .ok_or_else(|| ReadError::whole(FORMAT, "the data section is past the input"))?
    };
    walk.simpleperf = is_simpleperf(&perf_file);
    let mut window = records::Window::Memory(&stream[start..]);
    let r = Reader::new(options, warnings, endian);
    read_records(r, &perf_file, binaries, &walk, &mut window).map_err(|stop| match stop {
        records::Stop::Failed(e) => e,
        records::Stop::Compressed => ReadError::whole(FORMAT, "compressed records left"),
    })
}

/// Reads a file-mode recording from `file` in chunks; `None` when it must be read whole
/// (see [`file`]).
pub(super) fn read_file<'a>(
    file: &mut dyn file::Source,
    options: &'a ReadOptions,
    binaries: Option<&'a mut BinarySource<'a>>,
) -> Result<Option<Parsed>, ReadError> {
    file::read(file, options, binaries)
}

/// simpleperf writes no FINISHED_ROUND records (the walk makes rounds of its own).
fn is_simpleperf(file: &PerfFile) -> bool {
    file.features().has_feature(Feature::SIMPLEPERF_META_INFO)
}

/// The records of `window` read by `r` (events and meta from `file`), then the profile.
fn read_records<'a>(
    mut r: Reader<'a>,
    file: &PerfFile,
    binaries: Option<&'a mut BinarySource<'a>>,
    walk: &records::Walk,
    window: &mut records::Window<'_>,
) -> Result<Parsed, records::Stop> {
    r.start(file, binaries);
    let attrs = records::Attrs::new(file.event_attributes(), r.endian.of());
    r.walk(walk, window, &attrs)?;
    Ok(r.finish()?)
}

struct Reader<'a> {
    b: ProfileBuilder,
    warnings: Warnings,
    endian: Endian,
    limits: &'a Limits,
    source: SourceIndex,
    samples_type: ValueTypeIndex,
    events: Vec<Event>,
    build_ids: meta::BuildIds,
    machine: Machine,
    frames: Frames,
    chains: chains::ChainCache,
    columns: columns::SampleColumns,
    first_time: Option<u64>,
    /// Scratch: the addresses of the sample being read.
    addrs: Vec<(u64, Space)>,
    /// Scratch: the user frames unwound for the sample being read (`--call-graph dwarf`).
    user: Vec<u64>,
    /// `--call-graph dwarf`: the unwinder, when the caller gives binaries.
    unwinder: Option<DwarfUnwinder<'a>>,
    lost: u64,
    unparsed: usize,
    /// `--call-graph dwarf` stacks: not unwound, unwound part of the way, unwound whole.
    not_unwound: usize,
    partly_unwound: usize,
    unwound: usize,
}

impl<'a> Reader<'a> {
    fn new(options: &'a ReadOptions, warnings: Warnings, endian: Endian) -> Self {
        let mut b = ProfileBuilder::new();
        let source = b.add_source(FORMAT, options.source_uri.as_deref(), None);
        let samples_type = b.value_type(SAMPLES_TYPE, "count");
        b.set_meta(META_DEFAULT_TYPE, SAMPLES_TYPE);
        for (column, kind) in [
            (sample_cols::THREAD_NAME, ColumnKind::Chr),
            (sample_cols::PID, ColumnKind::Int),
            (sample_cols::TID, ColumnKind::Int),
            (SAMPLE_EVENT, ColumnKind::Chr),
        ] {
            b.declare_sample_column(column, kind);
        }
        let ext = &mut b.locations_mut().ext;
        ext.get_or_create(loc_cols::ADDRESS, ColumnKind::U64);
        ext.get_or_create(loc_cols::FRAME_TYPE, ColumnKind::Chr);
        ext.get_or_create(loc_cols::MAPPING_ID, ColumnKind::U64);
        Reader {
            b,
            warnings,
            endian,
            limits: &options.limits,
            source,
            samples_type,
            events: Vec::new(),
            build_ids: Default::default(),
            machine: Machine::default(),
            frames: Frames::default(),
            chains: Default::default(),
            columns: Default::default(),
            first_time: None,
            addrs: Vec::new(),
            user: Vec::new(),
            unwinder: None,
            lost: 0,
            unparsed: 0,
            not_unwound: 0,
            partly_unwound: 0,
            unwound: 0,
        }
    }

    /// The events, build-ids, meta and unwinder of the recording `file`.
    fn start(&mut self, file: &PerfFile, binaries: Option<&'a mut BinarySource<'a>>) {
        self.events = events::events(&mut self.b, file);
        self.build_ids = meta::build_ids(file);
        meta::header_meta(&mut self.b, file, self.endian);
        let arch = unwind::Arch::of(meta::arch(file, self.endian).as_deref());
        self.unwinder = binaries
            .zip(arch)
            .map(|(source, arch)| DwarfUnwinder::new(source, arch));
    }

    /// Reads the records of `window` in time order.
    fn walk(
        &mut self,
        walk: &records::Walk,
        window: &mut records::Window<'_>,
        attrs: &records::Attrs,
    ) -> Result<(), records::Stop> {
        records::walk(walk, window, attrs, &mut |rec| self.raw_record(rec))
    }

    /// One record as the walk hands it out.
    fn raw_record(&mut self, rec: records::Record<'_>) -> Result<(), ReadError> {
        let Some((attr_index, parse_info)) = rec.attr else {
            if UserRecordType::try_from(rec.kind) == Some(UserRecordType::PERF_HEADER_BUILD_ID) {
                self.build_ids.add_record(rec.misc, rec.body);
            }
            return Ok(());
        };
        let sample = rec.kind == RecordType::SAMPLE;
        if sample && sample::is_fast(&parse_info) {
            // Used where it is (a sample record is large: moving it out costs a copy).
            let parsed = sample::parse(rec.body, rec.misc, &parse_info, self.endian.big);
            let Some((s, chain)) = &parsed else {
                self.unparsed += 1;
                return Ok(());
            };
            return self.sample(attr_index, s, rec.body, chain.clone());
        }
        let attr = self.events.get(attr_index).map(|e| &e.attr);
        let chain = match attr.filter(|_| sample) {
            Some(a) => lbr::callchain_range(rec.body, a, self.endian),
            None => Some(0..0),
        };
        let Some(chain) = chain else {
            self.unparsed += 1;
            return Ok(());
        };
        if mmap2_build_id_too_long(rec.kind, rec.misc, rec.body) {
            self.unparsed += 1;
            return Ok(());
        }
        let raw = RawEventRecord {
            record_type: rec.kind,
            misc: rec.misc,
            data: RawData::Single(rec.body),
            parse_info,
        };
        match raw.parse() {
            Ok(parsed) => self.record(attr_index, parsed, (rec.body, chain)),
            Err(_) => {
                self.unparsed += 1;
                Ok(())
            }
        }
    }

    /// One kernel record of event `attr`; `raw` is its body (for the branch stack), `chain`
    /// where a sample's callchain is in it.
    fn record(
        &mut self,
        attr: usize,
        record: EventRecord<'_>,
        (raw, chain): (&[u8], Range<usize>),
    ) -> Result<(), ReadError> {
        match record {
            EventRecord::Sample(s) => self.sample(attr, &s, raw, chain)?,
            EventRecord::Comm(c) => {
                let name = self.b.intern(&String::from_utf8_lossy(&c.name.as_slice()));
                self.machine.set_comm(c.tid, name);
            }
            EventRecord::Fork(f) => self.machine.fork(f.pid, f.ppid, f.tid, f.ptid),
            EventRecord::Mmap(m) => {
                let path = String::from_utf8_lossy(&m.path.as_slice()).into_owned();
                let kernel = m.pid == -1 || frames::space_of(m.cpu_mode) == Space::Kernel;
                self.mmap(
                    m.pid,
                    kernel,
                    (m.address, m.length, m.page_offset),
                    &path,
                    None,
                );
            }
            EventRecord::Mmap2(m) => {
                let path = String::from_utf8_lossy(&m.path.as_slice()).into_owned();
                let kernel = m.pid == -1 || frames::space_of(m.cpu_mode) == Space::Kernel;
                let build_id = meta::mmap2_build_id(&m.file_id);
                self.mmap(
                    m.pid,
                    kernel,
                    (m.address, m.length, m.page_offset),
                    &path,
                    build_id,
                );
            }
            EventRecord::Lost(l) => self.lost += l.count,
            _ => {}
        }
        Ok(())
    }

    /// An MMAP / MMAP2 of `(start, length, pgoff)`.
    fn mmap(
        &mut self,
        pid: i32,
        kernel: bool,
        (start, len, pgoff): (u64, u64, u64),
        path: &str,
        build_id: Option<String>,
    ) {
        let build_id = build_id.or_else(|| self.build_ids.find(path, kernel));
        let end = start.saturating_add(len);
        let row = self.frames.mapping_row(start, end, pgoff, path, build_id);
        self.machine.mmap(
            pid,
            kernel,
            Map {
                start,
                end,
                pgoff,
                row,
            },
        );
    }

    /// A sample: its frames, values and columns; `raw` is its body, `chain` where its
    /// callchain is in it.
    fn sample(
        &mut self,
        attr: usize,
        s: &SampleRecord<'_>,
        raw: &[u8],
        chain: Range<usize>,
    ) -> Result<(), ReadError> {
        check_sample_limit(&self.b, Format::PerfData, self.limits.max_samples)?;
        let Some(event) = self.events.get(attr) else {
            self.unparsed += 1;
            return Ok(());
        };
        let (value_type, name, lbr) = (event.value_type, event.name, event.lbr);
        let period = s.period.or(event.fixed_period).unwrap_or(1);
        self.user.clear();
        let unwound = event.dwarf && self.unwind_user(s);
        let stack = if lbr || unwound {
            self.stack_of_frames(if lbr { attr } else { usize::MAX }, s, raw)?
        } else {
            self.cached_stack(s, raw.get(chain).unwrap_or_default())?
        };
        let values = [(self.samples_type, 1.0), (value_type, period as f64)];
        self.b.add_sample_with_values(self.source, stack, &values);
        self.columns(s, name);
        Ok(())
    }

    /// `--call-graph dwarf`: unwinds the user stack copied with the sample into `self.user`
    /// (counted); false when there was no copy or it was not unwound.
    fn unwind_user(&mut self, s: &SampleRecord<'_>) -> bool {
        let Some((stack, dynamic_size)) = &s.user_stack else {
            return false;
        };
        let stack = stack.as_slice();
        if stack.is_empty() {
            return false;
        }
        let (Some(unwinder), Some(regs)) = (&mut self.unwinder, &s.user_regs) else {
            self.not_unwound += 1;
            return false;
        };
        // The kernel fills `dynamic_size` bytes of the copy; the rest is not the stack.
        let filled = usize::try_from(*dynamic_size).map_or(stack.len(), |n| n.min(stack.len()));
        let state = UserState {
            regs,
            stack: &stack[..filled],
            big_endian: self.endian.big,
        };
        let pid = s.pid.unwrap_or(-1);
        let max = self.limits.max_stack_depth.saturating_add(1);
        let found = (&self.machine, &self.frames);
        match unwinder.unwind(found, pid, &state, max, &mut self.user) {
            Outcome::NotUnwound => {
                self.not_unwound += 1;
                self.user.clear();
                return false;
            }
            Outcome::Partial => self.partly_unwound += 1,
            Outcome::Complete => self.unwound += 1,
        }
        true
    }

    /// The stack of a sample without LBR frames: the one of its raw chain (`chain`, the
    /// callchain's bytes) when seen before (see [`chains`]), else built from its frames and
    /// remembered.
    fn cached_stack(
        &mut self,
        s: &SampleRecord<'_>,
        chain: &[u8],
    ) -> Result<Option<StackIndex>, ReadError> {
        let pid = s.pid.unwrap_or(-1);
        let [own, kernel] = self.machine.generation(pid);
        let space = frames::space_of(s.cpu_mode) as u64;
        let context = space | u64::from(s.ip.is_some()) << 1;
        // Key words: everything the frames depend on (pid as its bits).
        let head = [pid as u64, own, kernel, context, s.ip.unwrap_or(0)];
        let key = self.chains.key(&head, chain);
        if let Some(stack) = self.chains.get(&key) {
            return Ok(stack);
        }
        let stack = self.stack_of_frames(usize::MAX, s, &[])?;
        self.chains.insert(&key, stack);
        Ok(stack)
    }

    /// The stack of a sample from its addresses, each looked up in the mappings; `attr` is
    /// the event when it has LBR call stacks (with `raw`, the sample's body), else
    /// `usize::MAX`.
    fn stack_of_frames(
        &mut self,
        attr: usize,
        s: &SampleRecord<'_>,
        raw: &[u8],
    ) -> Result<Option<StackIndex>, ReadError> {
        let space = frames::space_of(s.cpu_mode);
        let mut addrs = std::mem::take(&mut self.addrs);
        addrs.clear();
        if let Some(chain) = &s.callchain {
            let entries = (0..chain.len()).filter_map(|i| chain.get(i));
            let lbr = self
                .events
                .get(attr)
                .and_then(|e| {
                    Some((
                        entries
                            .clone()
                            .position(|a| a == frames::PERF_CONTEXT_USER)?,
                        e,
                    ))
                })
                .and_then(|(user, e)| Some((user, lbr::user_frames(raw, &e.attr, self.endian)?)));
            match lbr {
                Some((user, lbr)) => {
                    frames::callchain(entries.take(user), space, &mut addrs);
                    addrs.extend(lbr.into_iter().map(|a| (a, Space::User)));
                }
                None => frames::callchain(entries, space, &mut addrs),
            }
        }
        // The leaf is the sample's IP (perf's self time); the chain's first entry is where the
        // interrupt hit, which a precise event corrects.
        if let Some(ip) = s.ip {
            match addrs.first_mut() {
                Some(first) => *first = (ip, space),
                None => addrs.push((ip, space)),
            }
        }
        // Unwound user frames (`--call-graph dwarf`) follow the kernel's chain; a sample taken
        // in user mode already has their first, the user IP, as its leaf.
        let skip = usize::from(
            space == Space::User
                && addrs.last() == self.user.first().map(|&a| (a, Space::User)).as_ref(),
        );
        addrs.extend(self.user.iter().skip(skip).map(|&a| (a, Space::User)));
        if addrs.len() > self.limits.max_stack_depth {
            return Err(ReadError::whole(
                FORMAT,
                format!(
                    "sample {} has more than {} frames (Limits::max_stack_depth)",
                    self.b.num_samples() + 1,
                    self.limits.max_stack_depth
                ),
            ));
        }
        let pid = s.pid.unwrap_or(-1);
        let mut locs = self.b.take_scratch();
        for &a in &addrs {
            locs.push(self.frames.location(&mut self.b, &self.machine, pid, a));
        }
        self.addrs = addrs;
        let stack = self.b.stack_leaf_first(&locs);
        self.b.return_scratch(locs);
        Ok(stack)
    }

    /// The sample's column cells.
    fn columns(&mut self, s: &SampleRecord<'_>, event: crate::model::StringId) {
        let b = &mut self.b;
        let thread = match (s.pid, s.tid) {
            (Some(pid), Some(tid)) => {
                let comm = match self.machine.comm(tid) {
                    Some(comm) => comm,
                    // perf's name of a thread no COMM record named.
                    None => b.intern(&format!(":{tid}")),
                };
                Some((comm, pid, tid))
            }
            _ => None,
        };
        let time = s.timestamp.map(|t| {
            let first = *self.first_time.get_or_insert_with(|| {
                let text = format!("{}.{:06}", t / 1_000_000_000, t % 1_000_000_000 / 1000);
                b.set_meta(META_FIRST_TIME, &text);
                t
            });
            t.wrapping_sub(first) as i64 as f64 / 1e9
        });
        let row = columns::Row {
            thread,
            event,
            cpu: s.cpu.and_then(|c| i32::try_from(c).ok()),
            time,
        };
        self.columns.push(b, row);
    }

    fn finish(mut self) -> Result<Parsed, ReadError> {
        if self.b.num_samples() == 0 {
            return Err(ReadError::whole(
                FORMAT,
                "no sample (PERF_RECORD_SAMPLE) in the recording",
            ));
        }
        self.warn();
        self.columns.finish(&mut self.b);
        let build_ids = &self.build_ids;
        self.frames
            .fill_build_ids(|file| build_ids.find(file, file.starts_with(frames::KERNEL_DSO)));
        self.frames.finish(&mut self.b);
        finish_parsed(self.b, Format::PerfData, self.warnings)
    }

    /// The counted warnings.
    fn warn(&mut self) {
        let w = &mut self.warnings;
        let n = self.frames.unsymbolised;
        if n > 0 {
            w.add(FORMAT, "unsymbolised", || {
                format!(
                    "{n} frame addresses are not symbolised: named `DSO+0xOFFSET` (or \
                     `[unknown]` outside every mapping), with their address and mapping kept \
                     for a symboliser"
                )
            });
        }
        if self.lost > 0 {
            let lost = self.lost;
            w.add(FORMAT, "lost", || {
                format!("the kernel lost {lost} events while recording (PERF_RECORD_LOST)")
            });
        }
        if self.unparsed > 0 {
            let n = self.unparsed;
            w.add(FORMAT, "unparsed", || {
                format!("{n} records could not be parsed and were skipped")
            });
        }
        if self.not_unwound > 0 {
            let n = self.not_unwound;
            let why = if self.unwinder.is_some() {
                "their user IP is in no binary given, or their user registers were not recorded"
            } else {
                "no binaries were given, or the architecture is neither x86_64 nor aarch64"
            };
            w.add(FORMAT, "dwarf", || {
                format!(
                    "{n} stacks were recorded for DWARF unwinding (`--call-graph dwarf`) and \
                     are not unwound ({why}): each keeps its leaf and the kernel's callchain"
                )
            });
        }
        if self.partly_unwound > 0 {
            let (n, whole) = (self.partly_unwound, self.unwound);
            w.add(FORMAT, "dwarf-partial", || {
                format!(
                    "{n} DWARF-unwound stacks stop before their root ({whole} reach it): at a \
                     return address in a binary not given (kept as the last frame), at the end \
                     of the copied stack bytes, or where the binary's unwind rules end"
                )
            });
        }
    }
}

/// True for an MMAP2 record that says it carries a build-id (`PERF_RECORD_MISC_MMAP_BUILD_ID`)
/// of more than 20 bytes: `linux-perf-event-reader` asserts on that length (a panic, a trap in
/// wasm), so such a record is left unparsed like any other it cannot read. The length is the
/// byte after pid, tid, address, length and page offset (32 bytes into the body). Found by the
/// round_trip fuzz target.
fn mmap2_build_id_too_long(kind: RecordType, misc: u16, body: &[u8]) -> bool {
    kind == RecordType::MMAP2
        && misc & PERF_RECORD_MISC_MMAP_BUILD_ID != 0
        && body.get(32).is_some_and(|&len| len > 20)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An MMAP2 body of `perf record --buildid-mmap`: pid, tid, address, length, page offset,
    /// the build-id's length, 3 bytes of padding, 20 bytes of build-id, protection, flags and
    /// a path.
    fn mmap2_body(build_id_len: u8) -> Vec<u8> {
        let mut body = vec![0u8; 32];
        body.push(build_id_len);
        body.extend([0u8; 3 + 20 + 8]);
        body.extend(b"/bin/true\0\0\0\0\0\0\0");
        body
    }

    #[test]
    fn mmap2_build_ids_over_20_bytes_are_not_given_to_the_crate() {
        const WITH_BUILD_ID: u16 = PERF_RECORD_MISC_MMAP_BUILD_ID;
        assert!(mmap2_build_id_too_long(
            RecordType::MMAP2,
            WITH_BUILD_ID,
            &mmap2_body(21)
        ));
        for (kind, misc, len) in [
            (RecordType::MMAP2, WITH_BUILD_ID, 20),
            (RecordType::MMAP2, 0, 200), // inode and version there, no length byte
            (RecordType::MMAP, WITH_BUILD_ID, 200),
        ] {
            assert!(!mmap2_build_id_too_long(kind, misc, &mmap2_body(len)));
        }
        assert!(!mmap2_build_id_too_long(
            RecordType::MMAP2,
            WITH_BUILD_ID,
            &[0; 32]
        ));
        // What the crate would have done with the first: its assertion, not an error.
        let body = mmap2_body(21);
        let parsed = std::panic::catch_unwind(|| {
            linux_perf_event_reader::Mmap2Record::parse::<byteorder::LittleEndian>(
                RawData::Single(&body),
                WITH_BUILD_ID,
            )
            .is_ok()
        });
        assert!(
            parsed.is_err(),
            "the crate no longer panics: the guard can go"
        );
    }
}
