//! Step 2: the records of the data section, walked in place and handed out in time order.
//!
//! `linux-perf-data` reads the header, the attrs and the feature sections; this walk replaces
//! its record iterator, which copied every record into a buffer of its own and sorted those
//! buffers round by round. Here a record is an 8-byte header (type, misc, size) and a body
//! borrowed from the [`Window`]: the whole input when it is in memory (wasm, Node, a
//! compressed recording once expanded), or a reused buffer filled from a reader in chunks
//! (the CLI's files) that keeps only the records not yet handed out.
//!
//! Order, as the crate gives it (so that a recording reads the same): each record's key is
//! (timestamp, offset in the stream), user records without a timestamp first; at a
//! FINISHED_ROUND the records whose key is at most the largest key of the rounds before the
//! one just finished are handed out in key order (perf's promise: round N + 2 starts after
//! round N ends); at the end the rest. Only the small keys are sorted, never the records.
//!
//! Invariants: no body is read outside the window's bytes; a size under 8 is an error; a
//! record cut by the end of the input is an error in file mode and the end of the stream in
//! pipe mode (as the crate reads them); an AUXTRACE record's trace data must fit in what
//! follows it (the crate would reserve it).

use std::io::{self, Read};

use byteorder::{BigEndian, ByteOrder, LittleEndian};
use linux_perf_data::linux_perf_event_reader::{
    get_record_id, get_record_identifier, get_record_timestamp, AttrFlags, Endianness, RawData,
    RecordIdParseInfo, RecordParseInfo, RecordType,
};
use linux_perf_data::{AttributeDescription, Auxtrace, Error as LibError, ReadError as LibRead};

use super::super::FORMAT;
use crate::formats::{Place, ReadError};

/// Size of `struct perf_event_header`.
const HEADER_SIZE: usize = 8;
/// The first user record type (records perf itself writes).
const USER_TYPE_START: u32 = 64;
/// PERF_RECORD_HEADER_ATTR and PERF_RECORD_HEADER_FEATURE: pipe mode's metadata records.
const HEADER_ATTR: u32 = 64;
const HEADER_FEATURE: u32 = 80;
/// PERF_RECORD_FINISHED_ROUND.
const FINISHED_ROUND: u32 = 68;
/// PERF_RECORD_AUXTRACE: its trace data follows the record.
const AUXTRACE: u32 = 71;
/// PERF_RECORD_COMPRESSED and PERF_RECORD_COMPRESSED2 (expanded before the walk).
const COMPRESSED: [u32; 2] = [81, 83];
/// Bytes read from a reader at a time.
pub(super) const CHUNK: usize = 2 << 20;
/// simpleperf writes no FINISHED_ROUND: a round every this many records (as the crate does).
const SIMPLEPERF_ROUND: usize = 1024;

/// One record handed out: its type, `misc`, body, and for a kernel record its event with
/// how the event's records are parsed (`None` for a user record).
pub(super) struct Record<'b> {
    pub kind: RecordType,
    pub misc: u16,
    pub body: &'b [u8],
    pub attr: Option<(usize, RecordParseInfo)>,
}

/// Why a walk stopped early.
pub(super) enum Stop {
    /// A bad or cut record, or the handler's error.
    Failed(ReadError),
    /// A compressed record in a stream read from a reader: read the input whole instead.
    Compressed,
}

impl From<ReadError> for Stop {
    fn from(e: ReadError) -> Self {
        Stop::Failed(e)
    }
}

fn lib(e: LibError) -> Stop {
    Stop::Failed(ReadError::whole(FORMAT, e.to_string()))
}

/// The error the crate gives for a record header cut by the end of a file: `read_exact`'s.
fn cut_header() -> Stop {
    let mut none: &[u8] = &[];
    let e = match none.read_exact(&mut [0u8; 1]) {
        Err(e) => e,
        Ok(()) => io::ErrorKind::UnexpectedEof.into(),
    };
    lib(LibError::IoError(e))
}

/// The stream's bytes, from the first record on.
pub(super) enum Window<'a> {
    /// All of them, in memory.
    Memory(&'a [u8]),
    /// Read in chunks: `buf[..filled]` holds stream bytes `base..base + filled`.
    Reader {
        reader: &'a mut dyn Read,
        buf: Vec<u8>,
        base: usize,
        filled: usize,
        /// Bytes before this stream position are no longer needed.
        keep_from: usize,
        eof: bool,
    },
}

impl<'a> Window<'a> {
    /// A window reading `reader` in chunks of [`CHUNK`] bytes.
    pub(super) fn reader(reader: &'a mut dyn Read, chunk: usize) -> Self {
        Window::Reader {
            reader,
            buf: vec![0; chunk.max(HEADER_SIZE)],
            base: 0,
            filled: 0,
            keep_from: 0,
            eof: false,
        }
    }

    /// Makes stream bytes `at..at + len` available; false when the stream ends first.
    fn ensure(&mut self, at: usize, len: usize) -> Result<bool, Stop> {
        let Some(end) = at.checked_add(len) else {
            return Ok(false);
        };
        match self {
            Window::Memory(bytes) => Ok(end <= bytes.len()),
            Window::Reader {
                reader,
                buf,
                base,
                filled,
                keep_from,
                eof,
            } => {
                while *base + *filled < end {
                    if *eof {
                        return Ok(false);
                    }
                    if *filled == buf.len() {
                        // Full: drop what is no longer needed when what is left fills at most
                        // a quarter of it (so a byte kept is moved at most once per three
                        // bytes read), else grow.
                        let dead = keep_from.saturating_sub(*base).min(*filled);
                        if *filled - dead <= buf.len() / 4 {
                            buf.copy_within(dead..*filled, 0);
                            *base += dead;
                            *filled -= dead;
                        } else {
                            let size = buf.len().saturating_mul(2);
                            buf.resize(size, 0);
                        }
                    }
                    let n = read_some(&mut **reader, &mut buf[*filled..])?;
                    *filled += n;
                    *eof = n == 0;
                }
                Ok(true)
            }
        }
    }

    /// Stream bytes `at..at + len`, made available by [`Self::ensure`].
    fn bytes(&self, at: usize, len: usize) -> &[u8] {
        match self {
            Window::Memory(bytes) => &bytes[at..at + len],
            Window::Reader { buf, base, .. } => &buf[at - base..at - base + len],
        }
    }

    /// Stream bytes before `at` are no longer needed.
    fn release(&mut self, at: usize) {
        if let Window::Reader { keep_from, .. } = self {
            *keep_from = at;
        }
    }

    fn is_chunked(&self) -> bool {
        matches!(self, Window::Reader { .. })
    }
}

/// One read call, retried when interrupted; an I/O error stops the walk with its message.
fn read_some(reader: &mut dyn Read, buf: &mut [u8]) -> Result<usize, Stop> {
    loop {
        match reader.read(buf) {
            Ok(n) => return Ok(n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(lib(LibError::IoError(e))),
        }
    }
}

/// How a record's event is found (as the crate decides it from the attrs).
enum Ids {
    OnlyOne,
    Same(RecordIdParseInfo),
    /// Every attr has IDENTIFIER; whether they have SAMPLE_ID_ALL.
    PerAttr(bool),
}

/// What the walk needs from the attrs.
pub(super) struct Attrs {
    parse: Vec<RecordParseInfo>,
    ids: Ids,
    by_id: crate::hash::HashMap<u64, usize>,
}

impl Attrs {
    /// From the crate's attrs (checked by it: at least one, IDENTIFIER where needed).
    pub(super) fn new(attrs: &[AttributeDescription], endian: Endianness) -> Self {
        let parse: Vec<_> = attrs
            .iter()
            .map(|a| RecordParseInfo::new(&a.attr, endian))
            .collect();
        let ids = match parse.split_first() {
            Some((first, rest)) if !rest.is_empty() => {
                if rest.iter().all(|p| p.id_parse_info == first.id_parse_info) {
                    Ids::Same(first.id_parse_info)
                } else {
                    Ids::PerAttr(attrs[0].attr.flags.contains(AttrFlags::SAMPLE_ID_ALL))
                }
            }
            _ => Ids::OnlyOne,
        };
        let mut by_id = crate::hash::HashMap::default();
        for (i, a) in attrs.iter().enumerate() {
            for id in &a.event_ids {
                by_id.insert(*id, i);
            }
        }
        Attrs { parse, ids, by_id }
    }

    /// The event and timestamp of a kernel record.
    fn of<T: ByteOrder>(&self, kind: RecordType, body: &[u8]) -> (usize, Option<u64>) {
        let data = RawData::Single(body);
        let id = match &self.ids {
            Ids::OnlyOne => None,
            Ids::Same(info) => get_record_id::<T>(kind, data, info),
            Ids::PerAttr(all) => get_record_identifier::<T>(kind, data, *all),
        };
        let attr = id.and_then(|id| self.by_id.get(&id).copied()).unwrap_or(0);
        let time = self
            .parse
            .get(attr)
            .and_then(|p| get_record_timestamp::<T>(kind, data, p));
        (attr, time)
    }
}

/// A record waiting for its round: its key and where its body is.
#[derive(Clone, Copy)]
struct Pending {
    key: (Option<u64>, u64),
    at: usize,
    len: u32,
    kind: u32,
    misc: u16,
    /// The event, `u32::MAX` for a user record.
    attr: u32,
}

/// How the walk reads the stream.
pub(super) struct Walk {
    /// The data section's size (file mode: records are read while their offset is below it);
    /// `None` in pipe mode (to the end of the stream).
    pub limit: Option<u64>,
    pub big_endian: bool,
    /// Pipe mode: the first record is taken as is (the crate read it while looking for the
    /// end of the metadata records).
    pub first_plain: bool,
    /// simpleperf recording: a round every [`SIMPLEPERF_ROUND`] records.
    pub simpleperf: bool,
    /// Where the stream's data ends (for the AUXTRACE check), from the stream's start.
    pub data_end: usize,
    /// Where the stream starts in the input (for the places in messages).
    pub origin: usize,
}

/// Offsets in the file header of the data section's offset and size.
const DATA_SECTION_AT: usize = 40;

/// A file-mode recording's walk (`input`: the whole file, its header checked): where its
/// records start, and how they are read; `None` when the data section is not in the input.
pub(super) fn file_walk(input: &[u8], big_endian: bool) -> Option<(usize, Walk)> {
    let word = |at: usize| -> Option<u64> {
        let b: [u8; 8] = input.get(at..at + 8)?.try_into().ok()?;
        Some(if big_endian {
            u64::from_be_bytes(b)
        } else {
            u64::from_le_bytes(b)
        })
    };
    let (offset, size) = (word(DATA_SECTION_AT)?, word(DATA_SECTION_AT + 8)?);
    let start = usize::try_from(offset).ok().filter(|&s| s <= input.len())?;
    let walk = Walk {
        limit: Some(size),
        big_endian,
        first_plain: false,
        simpleperf: false,
        data_end: usize::try_from(size).ok()?,
        origin: start,
    };
    Some((start, walk))
}

/// A pipe-mode stream's walk (`input`: the whole stream): its records start after the
/// metadata records (HEADER_ATTR, HEADER_FEATURE) the crate read up front.
pub(super) fn pipe_walk(input: &[u8], big_endian: bool) -> (usize, Walk) {
    let mut at = super::super::PIPE_HEADER_SIZE as usize;
    while let Some(h) = input.get(at..at + HEADER_SIZE) {
        let (kind, size) = if big_endian {
            (
                u32::from_be_bytes([h[0], h[1], h[2], h[3]]),
                u16::from_be_bytes([h[6], h[7]]),
            )
        } else {
            (
                u32::from_le_bytes([h[0], h[1], h[2], h[3]]),
                u16::from_le_bytes([h[6], h[7]]),
            )
        };
        if (kind != HEADER_ATTR && kind != HEADER_FEATURE) || usize::from(size) < HEADER_SIZE {
            break;
        }
        at += usize::from(size);
    }
    let start = at.min(input.len());
    let walk = Walk {
        limit: None,
        big_endian,
        first_plain: true,
        simpleperf: false,
        data_end: input.len() - start,
        origin: start,
    };
    (start, walk)
}

/// Walks the stream in `window`, handing each record to `each` in time order.
pub(super) fn walk(
    walk: &Walk,
    window: &mut Window<'_>,
    attrs: &Attrs,
    each: &mut dyn FnMut(Record<'_>) -> Result<(), ReadError>,
) -> Result<(), Stop> {
    if walk.big_endian {
        Walker::<BigEndian>::new(walk, attrs).run(window, each)
    } else {
        Walker::<LittleEndian>::new(walk, attrs).run(window, each)
    }
}

struct Walker<'w, T> {
    walk: &'w Walk,
    attrs: &'w Attrs,
    pending: Vec<Pending>,
    /// Largest key of all rounds before the current one, and of all records so far.
    prev_max: Option<(Option<u64>, u64)>,
    cur_max: Option<(Option<u64>, u64)>,
    since_round: usize,
    order: std::marker::PhantomData<T>,
}

impl<'w, T: ByteOrder> Walker<'w, T> {
    fn new(walk: &'w Walk, attrs: &'w Attrs) -> Self {
        Walker {
            walk,
            attrs,
            pending: Vec::new(),
            prev_max: None,
            cur_max: None,
            since_round: 0,
            order: std::marker::PhantomData,
        }
    }

    fn run(
        mut self,
        w: &mut Window<'_>,
        each: &mut dyn FnMut(Record<'_>) -> Result<(), ReadError>,
    ) -> Result<(), Stop> {
        let pipe = self.walk.limit.is_none();
        // `at`: where the next header is; `offset`: the crate's count of bytes read, which
        // a FINISHED_ROUND longer than its header advances by its size but `at` does not.
        let (mut at, mut offset) = (0usize, 0u64);
        let mut first = self.walk.first_plain;
        while self.walk.limit.is_none_or(|limit| offset < limit) {
            if !w.ensure(at, HEADER_SIZE)? {
                if pipe {
                    break;
                }
                return Err(cut_header());
            }
            let h = w.bytes(at, HEADER_SIZE);
            let (kind, misc) = (T::read_u32(h), T::read_u16(&h[4..]));
            let size = usize::from(T::read_u16(&h[6..]));
            if size < HEADER_SIZE {
                return Err(lib(LibError::InvalidPerfEventSize));
            }
            let record_offset = offset;
            offset += size as u64;
            at += HEADER_SIZE;
            let plain = std::mem::take(&mut first);
            if kind == FINISHED_ROUND && !plain {
                self.finish_round(w, at, each)?;
                continue;
            }
            let len = size - HEADER_SIZE;
            if !w.ensure(at, len)? {
                if pipe {
                    break;
                }
                return Err(lib(LibError::Read(LibRead::PerfEventData)));
            }
            let body_at = at;
            at += len;
            if !plain && COMPRESSED.contains(&kind) {
                return Err(self.compressed(w));
            }
            if kind == AUXTRACE && !plain {
                let trace = self.auxtrace(w, body_at, len, at)?;
                at += trace;
                offset += trace as u64;
            }
            if self.insert(w, (kind, misc), (body_at, len), record_offset) && !plain {
                self.finish_round(w, at, each)?;
            }
        }
        self.pending.sort_unstable_by_key(|p| p.key);
        let all = std::mem::take(&mut self.pending);
        hand_out(w, self.attrs, &all, each)
    }

    /// A compressed record: the reader's stream is to be read whole; in memory, the
    /// crate's error (this build has no C zstd; compressed records were expanded before).
    fn compressed(&self, w: &Window<'_>) -> Stop {
        if w.is_chunked() {
            return Stop::Compressed;
        }
        lib(LibError::IoError(io::Error::new(
            io::ErrorKind::Unsupported,
            "Compression support is not enabled. Please rebuild with the 'zstd' feature flag.",
        )))
    }

    /// An AUXTRACE record's body at `body`: the size of its trace data, which must follow.
    fn auxtrace(
        &self,
        w: &mut Window<'_>,
        body: usize,
        len: usize,
        next: usize,
    ) -> Result<usize, Stop> {
        let aux = Auxtrace::parse::<T>(RawData::Single(w.bytes(body, len)))
            .map_err(|e| lib(LibError::IoError(e)))?;
        let left = self.walk.data_end.saturating_sub(next) as u64;
        let trace = usize::try_from(aux.size).ok().filter(|_| aux.size <= left);
        let Some(trace) = trace else {
            return Err(Stop::Failed(ReadError::new(
                FORMAT,
                Place::Byte((self.walk.origin + body - HEADER_SIZE) as u64),
                format!(
                    "an AUXTRACE record announces {} bytes of trace data; {left} follow",
                    aux.size
                ),
            )));
        };
        if !w.ensure(next, trace)? {
            return Err(lib(LibError::Read(LibRead::PerfEventData)));
        }
        Ok(trace)
    }

    /// A record read: waits for its round; true when a simpleperf round is due.
    fn insert(
        &mut self,
        w: &Window<'_>,
        (kind, misc): (u32, u16),
        (at, len): (usize, usize),
        offset: u64,
    ) -> bool {
        let (attr, time) = if kind < USER_TYPE_START {
            let (attr, time) = self.attrs.of::<T>(RecordType(kind), w.bytes(at, len));
            (u32::try_from(attr).unwrap_or(u32::MAX), time)
        } else {
            (u32::MAX, None)
        };
        let key = (time, offset);
        if self.cur_max.is_none_or(|max| key > max) {
            self.cur_max = Some(key);
        }
        self.pending.push(Pending {
            key,
            at,
            len: len as u32,
            kind,
            misc,
            attr,
        });
        if !self.walk.simpleperf {
            return false;
        }
        self.since_round += 1;
        let due = self.since_round >= SIMPLEPERF_ROUND;
        if due {
            self.since_round = 0;
        }
        due
    }

    /// A round ends: the records up to the largest key of the rounds before it are handed
    /// out in key order; `next` is where the next header is.
    fn finish_round(
        &mut self,
        w: &mut Window<'_>,
        next: usize,
        each: &mut dyn FnMut(Record<'_>) -> Result<(), ReadError>,
    ) -> Result<(), Stop> {
        let due = std::mem::replace(&mut self.prev_max, self.cur_max);
        let Some(threshold) = due else {
            return Ok(());
        };
        if !self.pending.is_sorted_by_key(|p| p.key) {
            self.pending.sort_unstable_by_key(|p| p.key);
        }
        let split = self.pending.partition_point(|p| p.key <= threshold);
        hand_out(w, self.attrs, &self.pending[..split], each)?;
        self.pending.drain(..split);
        let oldest = self.pending.iter().map(|p| p.at).min().unwrap_or(next);
        w.release(oldest.min(next));
        Ok(())
    }
}

/// Hands `records` (in order) to `each`.
fn hand_out(
    w: &Window<'_>,
    attrs: &Attrs,
    records: &[Pending],
    each: &mut dyn FnMut(Record<'_>) -> Result<(), ReadError>,
) -> Result<(), Stop> {
    for p in records {
        each(Record {
            kind: RecordType(p.kind),
            misc: p.misc,
            body: w.bytes(p.at, p.len as usize),
            attr: attrs
                .parse
                .get(p.attr as usize)
                .map(|info| (p.attr as usize, *info)),
        })?;
    }
    Ok(())
}

#[cfg(test)]
#[path = "records_tests.rs"]
mod tests;
