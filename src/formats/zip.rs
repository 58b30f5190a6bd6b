//! A small ZIP archive writer (PKWARE APPNOTE 6.3): entries stored or DEFLATE-compressed, no
//! ZIP64, no encryption, fixed timestamps. The viewer's Parquet / Arrow export puts a dataset's
//! files in one download with it.
//!
//! Invariants: equal entries give equal bytes (every timestamp is 1980-01-01 00:00); an entry
//! is compressed only when that makes it smaller; names are UTF-8 (general purpose bit 11).

use super::gzip::{crc32, GZIP_LEVEL};

/// How an entry's bytes are kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// As they are (for files already compressed, such as Parquet's pages).
    Stored,
    /// Raw DEFLATE, kept only when smaller than stored.
    Deflate,
}

/// One file of an archive: its path (`/`-separated) and bytes.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The path inside the archive.
    pub name: String,
    /// The file's bytes.
    pub bytes: Vec<u8>,
}

const LOCAL_HEADER: u32 = 0x0403_4b50;
const CENTRAL_HEADER: u32 = 0x0201_4b50;
const END_OF_CENTRAL_DIRECTORY: u32 = 0x0605_4b50;
/// Version needed to extract: 2.0 (DEFLATE, folders).
const VERSION: u16 = 20;
/// General purpose flag bit 11: the name is UTF-8.
const UTF8_NAMES: u16 = 1 << 11;
const METHOD_STORED: u16 = 0;
const METHOD_DEFLATE: u16 = 8;
/// MS-DOS date of 1980-01-01 (the earliest a ZIP can say); the time is 00:00.
const DOS_DATE: u16 = (1 << 5) | 1;

/// Why an archive cannot be written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZipError(pub String);

impl std::fmt::Display for ZipError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "zip: {}", self.0)
    }
}

/// What the central directory says of an entry written.
struct Written {
    name: String,
    method: u16,
    crc: u32,
    compressed: u32,
    size: u32,
    offset: u32,
}

fn u32_of(n: usize, what: &str) -> Result<u32, ZipError> {
    u32::try_from(n).map_err(|_| ZipError(format!("{what} is over 4 GiB (ZIP64 is not written)")))
}

/// The archive of `entries`, in their order, each kept as `method` says.
pub fn zip(entries: &[Entry], method: Method) -> Result<Vec<u8>, ZipError> {
    if entries.len() > usize::from(u16::MAX) {
        return Err(ZipError(format!(
            "{} entries, more than 65535",
            entries.len()
        )));
    }
    let mut out = Vec::new();
    let mut written = Vec::with_capacity(entries.len());
    for e in entries {
        written.push(write_local(&mut out, e, method)?);
    }
    let directory_start = u32_of(out.len(), "the archive")?;
    for w in &written {
        write_central(&mut out, w);
    }
    let directory_len = u32_of(out.len(), "the archive")? - directory_start;
    let count = written.len() as u16;
    put32(&mut out, END_OF_CENTRAL_DIRECTORY);
    for v in [0, 0, count, count] {
        put16(&mut out, v);
    }
    put32(&mut out, directory_len);
    put32(&mut out, directory_start);
    put16(&mut out, 0);
    Ok(out)
}

/// Writes the local header and data of `e`.
fn write_local(out: &mut Vec<u8>, e: &Entry, method: Method) -> Result<Written, ZipError> {
    if e.name.len() > usize::from(u16::MAX) {
        let start: String = e.name.chars().take(64).collect();
        return Err(ZipError(format!("entry name {start:?}… is too long")));
    }
    let deflated = match method {
        Method::Deflate => Some(miniz_oxide::deflate::compress_to_vec(&e.bytes, GZIP_LEVEL)),
        Method::Stored => None,
    }
    .filter(|d| d.len() < e.bytes.len());
    let (code, data) = match &deflated {
        Some(d) => (METHOD_DEFLATE, d.as_slice()),
        None => (METHOD_STORED, e.bytes.as_slice()),
    };
    let w = Written {
        name: e.name.clone(),
        method: code,
        crc: crc32(&e.bytes),
        compressed: u32_of(data.len(), &e.name)?,
        size: u32_of(e.bytes.len(), &e.name)?,
        offset: u32_of(out.len(), "the archive")?,
    };
    put32(out, LOCAL_HEADER);
    for v in [VERSION, UTF8_NAMES, w.method, 0, DOS_DATE] {
        put16(out, v);
    }
    for v in [w.crc, w.compressed, w.size] {
        put32(out, v);
    }
    put16(out, e.name.len() as u16);
    put16(out, 0);
    out.extend_from_slice(e.name.as_bytes());
    out.extend_from_slice(data);
    Ok(w)
}

/// Writes the central directory header of `w`.
fn write_central(out: &mut Vec<u8>, w: &Written) {
    put32(out, CENTRAL_HEADER);
    for v in [VERSION, VERSION, UTF8_NAMES, w.method, 0, DOS_DATE] {
        put16(out, v);
    }
    for v in [w.crc, w.compressed, w.size] {
        put32(out, v);
    }
    // Name length, extra length, comment length, disk number, internal attributes.
    for v in [w.name.len() as u16, 0, 0, 0, 0] {
        put16(out, v);
    }
    put32(out, 0);
    put32(out, w.offset);
    out.extend_from_slice(w.name.as_bytes());
}

fn put16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, bytes: &[u8]) -> Entry {
        Entry {
            name: name.to_owned(),
            bytes: bytes.to_vec(),
        }
    }

    fn u16_at(b: &[u8], at: usize) -> u16 {
        u16::from_le_bytes([b[at], b[at + 1]])
    }

    fn u32_at(b: &[u8], at: usize) -> u32 {
        u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
    }

    #[test]
    fn an_empty_archive_is_its_end_record() {
        let z = zip(&[], Method::Stored).unwrap();
        assert_eq!(z.len(), 22);
        assert_eq!(u32_at(&z, 0), END_OF_CENTRAL_DIRECTORY);
    }

    #[test]
    fn deflates_only_what_shrinks_and_the_directory_points_at_each_entry() {
        let text = "abc".repeat(1000);
        let es = [entry("d/a.txt", text.as_bytes()), entry("d/b.bin", &[7])];
        let z = zip(&es, Method::Deflate).unwrap();
        let end = z.len() - 22;
        assert_eq!(u32_at(&z, end), END_OF_CENTRAL_DIRECTORY);
        assert_eq!(u16_at(&z, end + 10), 2);
        let mut at = u32_at(&z, end + 16) as usize;
        let mut methods = Vec::new();
        for e in &es {
            assert_eq!(u32_at(&z, at), CENTRAL_HEADER);
            methods.push(u16_at(&z, at + 10));
            assert_eq!(u32_at(&z, at + 16), crc32(&e.bytes));
            assert_eq!(u32_at(&z, at + 24) as usize, e.bytes.len());
            let local = u32_at(&z, at + 42) as usize;
            assert_eq!(u32_at(&z, local), LOCAL_HEADER);
            let name_len = u16_at(&z, at + 28) as usize;
            assert_eq!(&z[at + 46..at + 46 + name_len], e.name.as_bytes());
            let data = local + 30 + name_len;
            let compressed = u32_at(&z, at + 20) as usize;
            let body = &z[data..data + compressed];
            let back = if methods.last() == Some(&METHOD_DEFLATE) {
                miniz_oxide::inflate::decompress_to_vec(body).unwrap()
            } else {
                body.to_vec()
            };
            assert_eq!(back, e.bytes);
            at += 46 + name_len;
        }
        assert_eq!(methods, [METHOD_DEFLATE, METHOD_STORED]);
    }

    #[test]
    fn equal_entries_give_equal_bytes() {
        let es = [entry("x", b"hello")];
        assert_eq!(
            zip(&es, Method::Stored).unwrap(),
            zip(&es, Method::Stored).unwrap()
        );
    }
}
