//! Step 1: the header's sections checked before `linux-perf-data` reads them. That crate sizes
//! vectors by counts and lengths read from the file and divides by the attr size; a hostile
//! file could make it allocate gigabytes (which aborts a wasm instance) or divide by zero, so
//! every section, count and string length it will use is checked against the bytes first.

use super::super::{FORMAT, PIPE_HEADER_SIZE};
use super::decompress::{data_section, Endian};
use crate::formats::{Place, ReadError};

/// Smallest `perf_event_attr` (PERF_ATTR_SIZE_VER0).
const MIN_ATTR_SIZE: u64 = 64;
/// Largest `perf_event_attr` accepted (the kernel's is 136 bytes today).
const MAX_ATTR_SIZE: u64 = 4096;
/// Header offsets: attr size, attr section, data section, event_types section, features.
const ATTR_SIZE_AT: usize = 16;
const SECTIONS_AT: [usize; 3] = [24, 40, 56];
const FEATURES_AT: usize = 72;
/// Feature bit of HEADER_EVENT_DESC.
const FEATURE_EVENT_DESC: u32 = 12;
/// PERF_RECORD_HEADER_FEATURE (pipe mode).
const RECORD_HEADER_FEATURE: u32 = 80;
/// PERF_RECORD_AUXTRACE: `size` bytes of trace data (a u64 after the header) follow it.
const RECORD_AUXTRACE: u32 = 71;
/// Size of a `perf_file_section` (offset, size).
const SECTION_SIZE: u64 = 16;

fn bad(place: Place, message: impl Into<String>) -> ReadError {
    ReadError::new(FORMAT, place, message)
}

/// `[offset, offset + size)` of the section described at byte `at`, inside the input.
fn section(bytes: &[u8], at: usize, e: Endian, what: &str) -> Result<(u64, u64), ReadError> {
    let offset = e.u64(&bytes[at..]);
    let size = e.u64(&bytes[at + 8..]);
    match offset.checked_add(size) {
        Some(end) if end <= bytes.len() as u64 => Ok((offset, size)),
        _ => Err(bad(
            Place::Byte(at as u64),
            format!(
                "the {what} section ({size} bytes at {offset}) goes past the end of the input \
                 ({} bytes)",
                bytes.len()
            ),
        )),
    }
}

/// Checks a file-mode header (the caller made sure the input holds the 104 bytes).
pub(super) fn check_file(bytes: &[u8], e: Endian) -> Result<(), ReadError> {
    if bytes.len() < 104 {
        return Err(bad(Place::Whole, "the file header is cut short"));
    }
    let attr_size = e.u64(&bytes[ATTR_SIZE_AT..]);
    if !(MIN_ATTR_SIZE..=MAX_ATTR_SIZE).contains(&attr_size) {
        return Err(bad(
            Place::Byte(ATTR_SIZE_AT as u64),
            format!("attr size {attr_size} is not in {MIN_ATTR_SIZE}..={MAX_ATTR_SIZE}"),
        ));
    }
    let [attrs, data, types] = SECTIONS_AT;
    section(bytes, attrs, e, "attr")?;
    let (data_offset, data_size) = section(bytes, data, e, "data")?;
    let (types_offset, types_size) = section(bytes, types, e, "event_types")?;
    let entry = attr_size + SECTION_SIZE;
    for i in 0..types_size / entry {
        let at = types_offset + i * entry + attr_size;
        section(bytes, at as usize, e, "event_types ids")?;
    }
    // The feature-section index follows the data section.
    let mut at = data_offset + data_size;
    for bit in 0..256u32 {
        let word = e.u64(&bytes[FEATURES_AT + 8 * (bit / 64) as usize..]);
        if word & (1 << (bit % 64)) == 0 {
            continue;
        }
        if at + SECTION_SIZE > bytes.len() as u64 {
            return Err(bad(
                Place::Byte(at),
                "the feature-section index goes past the end of the file",
            ));
        }
        let (offset, size) = section(bytes, at as usize, e, "feature")?;
        if bit == FEATURE_EVENT_DESC {
            let body = &bytes[offset as usize..(offset + size) as usize];
            check_event_desc(body, e).map_err(|m| bad(Place::Byte(offset), m))?;
        }
        at += SECTION_SIZE;
    }
    Ok(())
}

/// Checks the HEADER_FEATURE records of a pipe-mode stream that the crate reads up front.
pub(super) fn check_pipe(bytes: &[u8], e: Endian) -> Result<(), ReadError> {
    let mut at = PIPE_HEADER_SIZE as usize;
    while at + 8 <= bytes.len() {
        let kind = e.u32(&bytes[at..]);
        let size = usize::from(e.u16(&bytes[at + 6..]));
        if size < 8 || at + size > bytes.len() {
            return Ok(()); // the record reader names the problem
        }
        if kind == RECORD_HEADER_FEATURE && size >= 16 {
            // linux-perf-data keeps the low 32 bits of the u64 feature id (`as u32`), so a
            // feature 2^32 + 12 is EVENT_DESC to it: compare what it will see.
            let feature = e.u64(&bytes[at + 8..]) as u32;
            if feature == FEATURE_EVENT_DESC {
                check_event_desc(&bytes[at + 16..at + size], e)
                    .map_err(|m| bad(Place::Byte(at as u64), m))?;
            }
        }
        at += size;
    }
    Ok(())
}

/// Walks HEADER_EVENT_DESC: `nr`, `attr_size`, then per event the attr, `nr_ids`, a string
/// (u32 length and bytes) and the ids; every count must fit in the section.
fn check_event_desc(body: &[u8], e: Endian) -> Result<(), String> {
    let u32_at = |at: usize| body.get(at..at + 4).map(|b| u64::from(e.u32(b)));
    let too_short = || "the event description section is cut short".to_owned();
    let nr = u32_at(0).ok_or_else(too_short)?;
    let attr_size = u32_at(4).ok_or_else(too_short)?;
    if !(MIN_ATTR_SIZE..=MAX_ATTR_SIZE).contains(&attr_size) {
        return Err(format!(
            "event description: attr size {attr_size} is out of range"
        ));
    }
    let mut at = 8u64;
    for i in 0..nr {
        at += attr_size;
        let nr_ids = u32_at(at as usize).ok_or_else(too_short)?;
        let len = u32_at(at as usize + 4).ok_or_else(too_short)?;
        at += 8 + len + 8 * nr_ids;
        if at > body.len() as u64 {
            return Err(format!(
                "event description {i} of {nr} goes past the end of its section"
            ));
        }
    }
    Ok(())
}

/// Checks the AUXTRACE records of the stream linux-perf-data will read (`stream`: the input, or
/// it with its compressed records expanded): the trace data each announces must fit in what
/// follows, since the crate reserves that many bytes before reading them.
pub(super) fn check_auxtrace(stream: &[u8], pipe: bool, e: Endian) -> Result<(), ReadError> {
    let (mut at, end) = match pipe {
        true => (PIPE_HEADER_SIZE as usize, stream.len()),
        false => data_section(stream, e)?,
    };
    while at + 16 <= end {
        let kind = e.u32(&stream[at..]);
        let size = usize::from(e.u16(&stream[at + 6..]));
        if size < 8 {
            return Ok(()); // the record reader names the problem
        }
        let mut next = at + size;
        if kind == RECORD_AUXTRACE {
            let payload = e.u64(&stream[at + 8..]);
            let left = end.saturating_sub(next) as u64;
            if payload > left {
                return Err(bad(
                    Place::Byte(at as u64),
                    format!(
                        "an AUXTRACE record announces {payload} bytes of trace data; {left} follow"
                    ),
                ));
            }
            next += payload as usize;
        }
        at = next;
    }
    Ok(())
}
