//! Step 0: PERF_RECORD_COMPRESSED(2) records (`perf record -z`) replaced by the records they
//! hold, so that `linux-perf-data` (built without its C zstd) sees an uncompressed recording.
//! The bodies of all compressed records form one zstd stream (perf flushes its frame at each
//! record without ending it), decoded by `ruzstd`; the records it holds are put where the first
//! compressed record was (records are sorted by time afterwards, so moving them before the
//! FINISHED_ROUND markers that followed them only widens the first round).
//!
//! File mode: the expanded data section is appended after the original bytes, followed by a
//! copy of the feature-section index (perf reads it right after the data section), and the
//! header points at it. Pipe mode: the stream is rewritten with the records expanded in place.

use std::io::Read;

use super::super::{FILE_HEADER_SIZE, FORMAT, PIPE_HEADER_SIZE};
use crate::formats::{Place, ReadError, Warnings};

/// PERF_RECORD_COMPRESSED: the body is zstd data.
const RECORD_COMPRESSED: u32 = 81;
/// PERF_RECORD_COMPRESSED2: the body is a u64 size, then that many bytes of zstd data.
const RECORD_COMPRESSED2: u32 = 83;
/// Appended to the zstd stream: a last, empty raw block, then 4 bytes for a checksum.
const FRAME_END: [u8; 7] = [1, 0, 0, 0, 0, 0, 0];
/// Size of `struct perf_event_header` (type u32, misc u16, size u16).
const RECORD_HEADER_SIZE: usize = 8;
/// Offsets in the file header of the data section's offset and size.
const DATA_OFFSET_AT: usize = 40;
/// Offset in the file header of the feature bitmap (4 × u64).
const FEATURES_AT: usize = 72;
/// Size of one feature-section index entry (offset u64, size u64).
const FEATURE_ENTRY_SIZE: usize = 16;

/// The byte order of the file.
#[derive(Clone, Copy)]
pub(super) struct Endian {
    pub big: bool,
}

impl Endian {
    /// As `linux-perf-data` names it.
    pub(super) fn of(self) -> linux_perf_data::Endianness {
        if self.big {
            linux_perf_data::Endianness::BigEndian
        } else {
            linux_perf_data::Endianness::LittleEndian
        }
    }

    pub(super) fn u16(self, b: &[u8]) -> u16 {
        let a = [b[0], b[1]];
        if self.big {
            u16::from_be_bytes(a)
        } else {
            u16::from_le_bytes(a)
        }
    }

    pub(super) fn u32(self, b: &[u8]) -> u32 {
        let a = [b[0], b[1], b[2], b[3]];
        if self.big {
            u32::from_be_bytes(a)
        } else {
            u32::from_le_bytes(a)
        }
    }

    pub(super) fn u64(self, b: &[u8]) -> u64 {
        let mut a = [0u8; 8];
        a.copy_from_slice(&b[..8]);
        if self.big {
            u64::from_be_bytes(a)
        } else {
            u64::from_le_bytes(a)
        }
    }

    fn put_u64(self, v: u64) -> [u8; 8] {
        if self.big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    }
}

fn err(offset: usize, message: impl Into<String>) -> ReadError {
    ReadError::new(FORMAT, Place::Byte(offset as u64), message)
}

/// The recording with its compressed records expanded, or `None` when it has none.
pub(super) fn expand(
    bytes: &[u8],
    pipe: bool,
    endian: Endian,
    max_bytes: usize,
    warnings: &mut Warnings,
) -> Result<Option<Vec<u8>>, ReadError> {
    let (start, end) = if pipe {
        (PIPE_HEADER_SIZE as usize, bytes.len())
    } else {
        data_section(bytes, endian)?
    };
    if !has_compressed(bytes, start, end, endian) {
        return Ok(None);
    }
    let mut ex = Expander {
        endian,
        out: Vec::new(),
        insert_at: None,
        stream: Vec::new(),
        tail: 0,
        max_bytes,
    };
    ex.records(bytes, start, end)?;
    if ex.tail > 0 {
        let n = ex.tail;
        warnings.add(FORMAT, "compressed-tail", || {
            format!("{n} bytes at the end of the compressed records are not a whole record")
        });
    }
    if pipe {
        let mut out = bytes[..start].to_vec();
        out.extend_from_slice(&ex.out);
        return Ok(Some(out));
    }
    Ok(Some(relocate(bytes, end, &ex.out, endian)))
}

/// The data section `[offset, offset + size)` of a file-mode recording, checked.
pub(super) fn data_section(bytes: &[u8], endian: Endian) -> Result<(usize, usize), ReadError> {
    if bytes.len() < FILE_HEADER_SIZE as usize {
        return Err(err(0, "the file header is cut short"));
    }
    let offset = endian.u64(&bytes[DATA_OFFSET_AT..]);
    let size = endian.u64(&bytes[DATA_OFFSET_AT + 8..]);
    match offset.checked_add(size) {
        Some(end) if end <= bytes.len() as u64 => Ok((offset as usize, end as usize)),
        _ => Err(err(
            DATA_OFFSET_AT,
            format!(
                "the data section ({size} bytes at {offset}) goes past the end of the file \
                 ({} bytes)",
                bytes.len()
            ),
        )),
    }
}

/// True when a record in `[start, end)` is compressed (a cut or broken record ends the walk:
/// the record reader reports it).
fn has_compressed(bytes: &[u8], start: usize, end: usize, endian: Endian) -> bool {
    let mut at = start;
    while at + RECORD_HEADER_SIZE <= end {
        let kind = endian.u32(&bytes[at..]);
        if kind == RECORD_COMPRESSED || kind == RECORD_COMPRESSED2 {
            return true;
        }
        let size = usize::from(endian.u16(&bytes[at + 6..]));
        if size < RECORD_HEADER_SIZE {
            return false;
        }
        at += size;
    }
    false
}

/// A copy of the file with `data` as its data section, appended after the original bytes and
/// followed by the feature-section index that followed the old data section at `old_end`.
fn relocate(bytes: &[u8], old_end: usize, data: &[u8], endian: Endian) -> Vec<u8> {
    let features: u32 = (0..4)
        .map(|i| endian.u64(&bytes[FEATURES_AT + 8 * i..]).count_ones())
        .sum();
    let index_len = features as usize * FEATURE_ENTRY_SIZE;
    let index = bytes
        .get(old_end..old_end + index_len)
        .unwrap_or(&bytes[old_end.min(bytes.len())..]);
    let mut out = Vec::with_capacity(bytes.len() + data.len() + index.len() + 8);
    out.extend_from_slice(bytes);
    out.resize(out.len().next_multiple_of(8), 0);
    let new_offset = out.len() as u64;
    out.extend_from_slice(data);
    out.extend_from_slice(index);
    out[DATA_OFFSET_AT..DATA_OFFSET_AT + 8].copy_from_slice(&endian.put_u64(new_offset));
    out[DATA_OFFSET_AT + 8..DATA_OFFSET_AT + 16]
        .copy_from_slice(&endian.put_u64(data.len() as u64));
    out
}

struct Expander {
    endian: Endian,
    /// The records before the first compressed one, then the decompressed records, then the
    /// other uncompressed records.
    out: Vec<u8>,
    /// Where the decompressed records go in `out`.
    insert_at: Option<usize>,
    /// The compressed payloads, in order: one zstd stream (perf flushes, but does not end, its
    /// frame at each record, so a block may continue in the next record).
    stream: Vec<u8>,
    /// Decompressed bytes after the last whole record.
    pub tail: usize,
    max_bytes: usize,
}

impl Expander {
    /// Copies the records of `[start, end)`, gathering the compressed payloads.
    fn records(&mut self, bytes: &[u8], start: usize, end: usize) -> Result<(), ReadError> {
        let mut at = start;
        while at + RECORD_HEADER_SIZE <= end {
            let kind = self.endian.u32(&bytes[at..]);
            let size = usize::from(self.endian.u16(&bytes[at + 6..]));
            if size < RECORD_HEADER_SIZE || at + size > end {
                break; // left for the record reader, which names the problem
            }
            let body = &bytes[at + RECORD_HEADER_SIZE..at + size];
            let payload = match kind {
                RECORD_COMPRESSED => body,
                RECORD_COMPRESSED2 => body
                    .get(8..)
                    .and_then(|rest| rest.get(..usize::try_from(self.endian.u64(body)).ok()?))
                    .ok_or_else(|| err(at, "a COMPRESSED2 record's size is past its end"))?,
                _ => {
                    self.out.extend_from_slice(&bytes[at..at + size]);
                    at += size;
                    continue;
                }
            };
            self.insert_at.get_or_insert(self.out.len());
            self.stream.extend_from_slice(payload);
            at += size;
        }
        self.out.extend_from_slice(&bytes[at..end]);
        let records = self.decompress(start)?;
        let insert_at = self.insert_at.unwrap_or(self.out.len());
        self.out.splice(insert_at..insert_at, records);
        Ok(())
    }

    /// Decodes the zstd stream (one or more frames) and keeps its whole records.
    fn decompress(&mut self, at: usize) -> Result<Vec<u8>, ReadError> {
        // perf flushes its frame but never ends it; ruzstd keeps a frame's last window until
        // the frame ends, so an empty last block ends it (and 4 bytes stand for a checksum).
        self.stream.extend_from_slice(&FRAME_END);
        let mut data = &self.stream[..];
        let mut records = Vec::new();
        while data.len() > FRAME_END.len() - 3 || data.iter().any(|&b| b != 0) {
            let room = self
                .max_bytes
                .saturating_sub(self.out.len() + records.len());
            let mut decoder = ruzstd::decoding::StreamingDecoder::new(&mut data)
                .map_err(|e| err(at, format!("compressed records: bad zstd frame: {e}")))?;
            let got = (&mut decoder)
                .take(room as u64 + 1)
                .read_to_end(&mut records)
                .map_err(|e| err(at, format!("compressed records: zstd data: {e}")))?;
            if got > room {
                return Err(err(
                    at,
                    format!(
                        "the decompressed records pass {} bytes \
                         (Limits::max_decompressed_bytes)",
                        self.max_bytes
                    ),
                ));
            }
        }
        let mut used = 0;
        while used + RECORD_HEADER_SIZE <= records.len() {
            let size = usize::from(self.endian.u16(&records[used + 6..]));
            if size < RECORD_HEADER_SIZE || used + size > records.len() {
                break;
            }
            used += size;
        }
        self.tail = records.len() - used;
        records.truncate(used);
        Ok(records)
    }
}
