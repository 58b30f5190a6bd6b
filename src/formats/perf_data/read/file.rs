//! A file-mode recording read from a seekable source (the CLI's files) without holding it:
//! the header, the attrs and the feature sections are read into a sparse image of the file
//! (a zeroed buffer of the file's size whose data section is never written, so the system
//! never backs it with memory), checked and parsed there as an input in memory is; the data
//! section's records are then read in chunks ([`super::records::Window::reader`]).
//!
//! Invariant: the result is the one [`super::read`] gives for the whole file. Whenever that
//! is not certain — not a file-mode recording, compressed records (expanded only in memory),
//! a header the checks refuse (the whole read names the problem), metadata read from inside
//! the data section — this answers `None` and the caller reads the file whole.

use std::io::{self, Cursor, Read, Seek, SeekFrom};

use linux_perf_data::PerfFileReader;

use super::decompress::Endian;
use super::records::{self, Window, CHUNK};
use super::{guard, Reader};
use crate::formats::perf_data::symbolize::BinarySource;
use crate::formats::perf_data::{header_kind, FILE_HEADER_SIZE};
use crate::formats::{Parsed, ReadError, ReadOptions, Warnings};

/// A file the reader can seek in.
pub trait Source: Read + Seek {}
impl<T: Read + Seek> Source for T {}

/// Header offsets: the event_types section, the data section, the feature bitmap.
const EVENT_TYPES_AT: usize = 56;
const DATA_AT: usize = 40;
const FEATURES_AT: usize = 72;
/// Feature bit of HEADER_COMPRESSED (`perf record -z`).
const FEATURE_COMPRESSED: usize = 27;

/// Reads the recording in `file`; `None` when it must be read whole (see the module
/// documentation), an I/O error included.
pub(super) fn read<'a>(
    file: &mut dyn Source,
    options: &'a ReadOptions,
    binaries: Option<&'a mut BinarySource<'a>>,
) -> Result<Option<Parsed>, ReadError> {
    let Ok(Some(Image {
        bytes: image,
        endian,
        data,
    })) = sparse_image(file)
    else {
        return Ok(None);
    };
    if guard::check_file(&image, endian).is_err() {
        return Ok(None);
    }
    let mut tracked = Tracked {
        inner: Cursor::new(&image[..]),
        data: data.clone(),
        touched: false,
    };
    let Ok(PerfFileReader { perf_file, .. }) = PerfFileReader::parse_file(&mut tracked) else {
        return Ok(None);
    };
    if tracked.touched || file.seek(SeekFrom::Start(data.start)).is_err() {
        return Ok(None);
    }
    drop(image);
    let Some(size) = usize::try_from(data.end - data.start).ok() else {
        return Ok(None);
    };
    let walk = records::Walk {
        limit: Some(data.end - data.start),
        big_endian: endian.big,
        first_plain: false,
        simpleperf: super::is_simpleperf(&perf_file),
        data_end: size,
        origin: data.start as usize,
    };
    let mut window = Window::reader(file, CHUNK);
    let r = Reader::new(options, Warnings::default(), endian);
    match super::read_records(r, &perf_file, binaries, &walk, &mut window) {
        Ok(parsed) => Ok(Some(parsed)),
        Err(records::Stop::Failed(e)) => Err(e),
        Err(records::Stop::Compressed) => Ok(None),
    }
}

/// A file's sparse image: every byte but the data section's read, with the byte order and
/// where the data section is.
struct Image {
    bytes: Vec<u8>,
    endian: Endian,
    data: std::ops::Range<u64>,
}

/// The file's sparse image; `None` when it is not an uncompressed file-mode recording.
fn sparse_image(file: &mut dyn Source) -> io::Result<Option<Image>> {
    let len = file.seek(SeekFrom::End(0))?;
    let mut header = [0u8; FILE_HEADER_SIZE as usize];
    file.seek(SeekFrom::Start(0))?;
    if len < FILE_HEADER_SIZE || file.read_exact(&mut header).is_err() {
        return Ok(None);
    }
    let Some((false, big)) = header_kind(&header) else {
        return Ok(None);
    };
    let e = Endian { big };
    let features = e.u64(&header[FEATURES_AT..]);
    if features & (1 << FEATURE_COMPRESSED) != 0 {
        return Ok(None);
    }
    let (start, size) = (e.u64(&header[DATA_AT..]), e.u64(&header[DATA_AT + 8..]));
    let types_at = e.u64(&header[EVENT_TYPES_AT..]);
    let types_size = e.u64(&header[EVENT_TYPES_AT + 8..]);
    let end = match start.checked_add(size) {
        Some(end) if start >= FILE_HEADER_SIZE && end <= len => end,
        _ => return Ok(None),
    };
    // The checks read the event_types section themselves: it must be outside the data.
    let types_end = types_at.saturating_add(types_size);
    if size > 0 && types_size > 0 && types_at < end && types_end > start {
        return Ok(None);
    }
    let (Ok(total), Ok(head), Ok(tail_at)) = (
        usize::try_from(len),
        usize::try_from(start),
        usize::try_from(end),
    ) else {
        return Ok(None);
    };
    let mut image = vec![0u8; total];
    file.seek(SeekFrom::Start(0))?;
    file.read_exact(&mut image[..head])?;
    file.seek(SeekFrom::Start(end))?;
    file.read_exact(&mut image[tail_at..])?;
    Ok(Some(Image {
        bytes: image,
        endian: e,
        data: start..end,
    }))
}

/// A cursor over the sparse image that notes a read inside the data section (whose bytes
/// the image does not hold).
struct Tracked<'b> {
    inner: Cursor<&'b [u8]>,
    data: std::ops::Range<u64>,
    touched: bool,
}

impl Read for Tracked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let at = self.inner.position();
        let n = self.inner.read(buf)?;
        if n > 0 && at < self.data.end && at + n as u64 > self.data.start {
            self.touched = true;
        }
        Ok(n)
    }
}

impl Seek for Tracked<'_> {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.inner.seek(pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::tables_json;

    /// The tables-JSON text and warnings of a read, or its error.
    fn outcome(read: Result<Parsed, ReadError>) -> Result<(Vec<u8>, String), String> {
        let parsed = read.map_err(|e| e.to_string())?;
        let options = Default::default();
        let written = tables_json::write(&parsed.profile, &options).map_err(|e| e.to_string())?;
        Ok((written.bytes, format!("{:?}", parsed.warnings)))
    }

    fn fixture(name: &str) -> Vec<u8> {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/perf-data/");
        std::fs::read(format!("{dir}{name}")).unwrap_or_default()
    }

    #[test]
    fn a_file_read_in_chunks_reads_as_the_whole_file() {
        let options = ReadOptions::default();
        let names = ["fp.data", "multi.data", "dwarf.data", "kernel/kernel.data"];
        for name in names {
            let bytes = fixture(name);
            assert!(!bytes.is_empty(), "{name}");
            let whole = outcome(super::super::read(&bytes, &options, None));
            let chunked = read(&mut Cursor::new(&bytes[..]), &options, None);
            let chunked = chunked.transpose().map(outcome);
            assert!(chunked == Some(whole), "{name}");
        }
    }

    #[test]
    fn what_cannot_be_read_in_chunks_is_left_to_the_whole_read() {
        let options = ReadOptions::default();
        let pipe = fixture("pipe.data");
        let fp = fixture("fp.data");
        let mut bad_attr_size = fp.clone();
        bad_attr_size[16..24].copy_from_slice(&0u64.to_le_bytes());
        for bytes in [
            &pipe[..],
            &fp[..50],
            &fp[..3000],
            &bad_attr_size[..],
            b"PERFILE2",
        ] {
            let got = read(&mut Cursor::new(bytes), &options, None);
            assert!(matches!(got, Ok(None)), "{} bytes", bytes.len());
        }
    }

    #[test]
    fn a_data_section_of_another_size_reads_as_the_whole_file_or_is_left_to_it() {
        let options = ReadOptions::default();
        let fp = fixture("fp.data");
        let (_, walk) = records::file_walk(&fp, false).expect("data section");
        // The data section claims more or less than it has (so the feature index, which
        // follows it, moves too): whatever the whole read says, the read in chunks says it
        // too or leaves the file to the whole read, which then refuses it.
        for delta in [-4096i64, -8, -1, 1, 8, 16, 4096] {
            let mut changed = fp.clone();
            let size = (walk.data_end as i64 + delta) as u64;
            changed[DATA_AT + 8..DATA_AT + 16].copy_from_slice(&size.to_le_bytes());
            let whole = outcome(super::super::read(&changed, &options, None));
            let chunked = read(&mut Cursor::new(&changed[..]), &options, None);
            match chunked.transpose().map(outcome) {
                Some(chunked) => assert!(chunked == whole, "data size {delta:+}"),
                None => assert!(
                    whole.is_err(),
                    "data size {delta:+}: only refusals go whole"
                ),
            }
        }
    }
}
