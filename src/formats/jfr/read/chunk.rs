//! One chunk: its header, the walk over its event frames, its metadata and constant pools.

use super::super::{HEADER_SIZE, MAGIC};
use super::bytes::Bytes;
use super::metadata::{read_metadata, Types};
use super::values::{read_pool_event, Pools};
use crate::formats::error::{Place, ReadError};

/// Event type id of the metadata event.
const EVENT_METADATA: i64 = 0;
/// Event type id of constant pool (checkpoint) events.
const EVENT_CONSTANT_POOL: i64 = 1;
/// Feature flag: integers are LEB128-compressed.
const FEATURE_COMPRESSED_INTS: i32 = 1;

/// The chunk header fields proftab uses.
#[derive(Clone, Copy, Debug)]
pub struct Header {
    pub major: i16,
    pub minor: i16,
    pub size: usize,
    pub start_nanos: i64,
    pub duration_nanos: i64,
    pub start_ticks: i64,
    pub ticks_per_second: i64,
    pub compressed: bool,
}

/// An event frame: its position in the chunk, size and type id.
#[derive(Clone, Copy, Debug)]
pub struct Frame {
    pub offset: usize,
    pub size: usize,
    pub type_id: i64,
}

/// A chunk with its metadata and pools decoded and its other events still to read.
pub struct Chunk<'a> {
    pub header: Header,
    /// File offset of the chunk.
    pub base: usize,
    pub data: &'a [u8],
    pub types: Types,
    pub pools: Pools,
    pub events: Vec<Frame>,
}

impl<'a> Chunk<'a> {
    /// A cursor over the body of `frame` (after its size and type id), so decoding cannot run
    /// past the event.
    pub fn body(&self, frame: &Frame) -> Result<Bytes<'a>, ReadError> {
        let end = frame.offset + frame.size;
        let mut b = Bytes::new(&self.data[..end], self.base, self.header.compressed);
        b.seek(frame.offset)?;
        b.set_budget(frame.size);
        b.int()?;
        b.long()?;
        Ok(b)
    }

    /// Nanoseconds from the epoch time `t0_nanos` to a tick count of this chunk's clock
    /// (integer differences first: epoch nanoseconds exceed f64's exact range).
    pub fn nanos_since(&self, t0_nanos: i64, ticks: i64) -> f64 {
        let chunk = self.header.start_nanos.wrapping_sub(t0_nanos) as f64;
        chunk + self.span_nanos(ticks.wrapping_sub(self.header.start_ticks))
    }

    /// Nanoseconds of a span of ticks.
    pub fn span_nanos(&self, ticks: i64) -> f64 {
        ticks as f64 * 1e9 / self.header.ticks_per_second as f64
    }
}

/// Reads the header of the chunk at file offset `base` of `file`.
pub fn header(file: &[u8], base: usize) -> Result<Header, ReadError> {
    let rest = &file[base..];
    let err = |at: usize, m: String| ReadError::new(super::super::NAME, Place::Byte(at as u64), m);
    if rest.len() < HEADER_SIZE {
        return Err(err(
            base,
            format!(
                "the chunk header is cut short ({} of {HEADER_SIZE} bytes)",
                rest.len()
            ),
        ));
    }
    let mut b = Bytes::new(rest, base, false);
    if b.take(4)? != MAGIC {
        return Err(err(base, "a chunk does not start with `FLR\\0`".to_owned()));
    }
    let major = b.raw_i16()?;
    let minor = b.raw_i16()?;
    if !(1..=2).contains(&major) {
        return Err(err(
            base + 4,
            format!("unsupported JFR version {major}.{minor}"),
        ));
    }
    let size = b.raw_i64()?;
    let _constant_pool_offset = b.raw_i64()?;
    let _metadata_offset = b.raw_i64()?;
    let start_nanos = b.raw_i64()?;
    let duration_nanos = b.raw_i64()?;
    let start_ticks = b.raw_i64()?;
    let ticks_per_second = b.raw_i64()?;
    let features = b.raw_i32()?;
    let size = usize::try_from(size)
        .ok()
        .filter(|&s| s >= HEADER_SIZE && s <= rest.len())
        .ok_or_else(|| {
            err(
                base + 8,
                format!(
                    "the chunk size {size} does not fit the {} bytes left in the file \
                     (truncated file, or a recording still being written?)",
                    rest.len()
                ),
            )
        })?;
    if ticks_per_second <= 0 {
        return Err(err(
            base + 56,
            format!("the tick frequency {ticks_per_second} is not positive"),
        ));
    }
    Ok(Header {
        major,
        minor,
        size,
        start_nanos,
        duration_nanos,
        start_ticks,
        ticks_per_second,
        compressed: features & FEATURE_COMPRESSED_INTS != 0,
    })
}

/// Reads the chunk at `base`: header, event frames, metadata, constant pools.
pub fn open(file: &[u8], base: usize) -> Result<Chunk<'_>, ReadError> {
    let header = header(file, base)?;
    let data = &file[base..base + header.size];
    let mut b = Bytes::new(data, base, header.compressed);
    b.seek(HEADER_SIZE)?;
    let mut frames = Vec::new();
    while b.remaining() > 0 {
        let offset = b.pos();
        let size = b.int()?;
        let type_id = b.long()?;
        let size = usize::try_from(size)
            .ok()
            .filter(|&s| s >= b.pos() - offset && s <= data.len() - offset)
            .ok_or_else(|| {
                ReadError::new(
                    super::super::NAME,
                    Place::Byte((base + offset) as u64),
                    format!("an event size ({size}) that does not fit the chunk"),
                )
            })?;
        frames.push(Frame {
            offset,
            size,
            type_id,
        });
        b.seek(offset + size)?;
    }
    let mut chunk = Chunk {
        header,
        base,
        data,
        types: Types::default(),
        pools: Pools::default(),
        events: Vec::new(),
    };
    let meta = frames
        .iter()
        .rfind(|f| f.type_id == EVENT_METADATA)
        .ok_or_else(|| {
            ReadError::new(
                super::super::NAME,
                Place::Byte(base as u64),
                "the chunk has no metadata event",
            )
        })?;
    chunk.types = read_metadata(&mut chunk.body(meta)?)?;
    let mut pools = Pools::default();
    for f in frames.iter().filter(|f| f.type_id == EVENT_CONSTANT_POOL) {
        read_pool_event(&mut chunk.body(f)?, &chunk.types, &mut pools)?;
    }
    chunk.pools = pools;
    chunk.events = frames
        .into_iter()
        .filter(|f| f.type_id != EVENT_METADATA && f.type_id != EVENT_CONSTANT_POOL)
        .collect();
    Ok(chunk)
}
