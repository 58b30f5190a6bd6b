//! gzip (RFC 1952) on top of raw DEFLATE (zlib-rs to inflate, [`super::inflate`]; miniz_oxide
//! to compress): the header and trailer are parsed and written here, checked with zlib-rs's
//! CRC-32.
//!
//! Reading is capped: [`gunzip_capped`] inflates incrementally into a buffer that grows by
//! doubling up to the cap and never past it, so a decompression bomb fails with a clear error
//! after allocating at most `cap` bytes. Every member of a multi-member stream is decoded (as
//! Go's `gzip.Reader` does), and each member's CRC-32 and ISIZE are checked.

use super::error::{Place, ReadError};
use super::inflate::{RawInflater, Stop};

/// The two magic bytes every gzip member starts with.
pub const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
/// Compression method "deflate", the only one RFC 1952 defines.
const METHOD_DEFLATE: u8 = 8;
/// Length of the fixed part of a member header.
const FIXED_HEADER_LEN: usize = 10;
/// Length of a member trailer (CRC-32 and ISIZE).
pub(super) const TRAILER_LEN: usize = 8;
/// Header flag bits (RFC 1952 §2.3.1).
const FLAG_HCRC: u8 = 0x02;
const FLAG_EXTRA: u8 = 0x04;
const FLAG_NAME: u8 = 0x08;
const FLAG_COMMENT: u8 = 0x10;
const FLAG_RESERVED: u8 = 0xe0;
/// Smallest output buffer allocated up front when inflating (grown by doubling from there).
pub(super) const MIN_INITIAL_OUTPUT: usize = 64 * 1024;
/// The DEFLATE level used by [`gzip`] (zlib's default).
pub const GZIP_LEVEL: u8 = 6;
/// The OS byte written by [`gzip`]: 255 = unknown, so output does not depend on the machine.
const OS_UNKNOWN: u8 = 255;

/// True when `bytes` start with the gzip magic `1f 8b` (the test `go tool pprof` uses).
pub fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&GZIP_MAGIC)
}

/// Decompresses every member of the gzip stream `bytes`. Fails, naming `format` and the byte
/// offset in the compressed input, when a header is malformed, the DEFLATE data is corrupt or
/// truncated, a CRC-32 or ISIZE does not match, bytes that are not a gzip member follow the
/// stream, or the output would exceed `cap` bytes (`Limits::max_decompressed_bytes`).
pub fn gunzip_capped(bytes: &[u8], cap: usize, format: &'static str) -> Result<Vec<u8>, ReadError> {
    gunzip_members(bytes, 0, Vec::new(), cap, format)
}

/// Decodes the members of `bytes` from offset `pos` on, appending to `out` (which may hold
/// earlier members' output: see [`super::gzip_stream`]); the rest as [`gunzip_capped`].
pub(super) fn gunzip_members(
    bytes: &[u8],
    mut pos: usize,
    mut out: Vec<u8>,
    cap: usize,
    format: &'static str,
) -> Result<Vec<u8>, ReadError> {
    loop {
        pos = gunzip_member(bytes, pos, &mut out, cap, format)?;
        let rest = bytes.get(pos..).unwrap_or_default();
        if rest.is_empty() {
            if out.capacity() > out.len() + out.len() / 8 {
                out.shrink_to_fit();
            }
            return Ok(out);
        }
        if !is_gzip(rest) {
            return Err(trailing_data(rest.len(), pos as u64, format));
        }
    }
}

/// The error for `len` bytes at offset `at` after a member that do not start another member.
pub(super) fn trailing_data(len: usize, at: u64, format: &'static str) -> ReadError {
    ReadError::new(
        format,
        Place::Byte(at),
        format!("{len} bytes of trailing data after the gzip stream (not another gzip member)"),
    )
}

/// Decompresses at most `max_len` bytes from the start of the first member of `bytes`, without
/// checking the trailer: enough to sniff what a gzip file holds. `None` when the header is
/// malformed or nothing could be inflated.
pub fn gunzip_prefix(bytes: &[u8], max_len: usize) -> Option<Vec<u8>> {
    let body_start = parse_header(bytes, 0, "gzip").ok()?;
    let body = bytes.get(body_start..)?;
    let mut out = vec![0u8; max_len];
    let mut written = 0;
    // A corrupt stream still gives what it inflated before the fault.
    let _ = RawInflater::new().inflate(body, &mut out, &mut written);
    out.truncate(written);
    (!out.is_empty()).then_some(out)
}

/// Decodes the member starting at `start`, appending its output to `out`; returns the offset
/// just past its trailer.
fn gunzip_member(
    bytes: &[u8],
    start: usize,
    out: &mut Vec<u8>,
    cap: usize,
    format: &'static str,
) -> Result<usize, ReadError> {
    let body_start = parse_header(bytes, start, format)?;
    let body = bytes.get(body_start..).unwrap_or_default();
    let out_start = out.len();
    let hint = if out_start == 0 {
        size_hint(bytes, body.len())
    } else {
        0
    };
    let consumed = inflate_capped(body, out, cap, hint)
        .map_err(|e| ReadError::new(format, Place::Byte(body_start as u64), e.message(cap)))?;
    let trailer_at = body_start.saturating_add(consumed);
    check_trailer(
        bytes,
        trailer_at,
        out.get(out_start..).unwrap_or_default(),
        format,
    )?;
    Ok(trailer_at + TRAILER_LEN)
}

/// The size the output will probably have: the ISIZE of the stream's last trailer (exact for
/// a single member under 4 GiB), when it is plausible for `body_len` compressed bytes; else 0.
fn size_hint(bytes: &[u8], body_len: usize) -> usize {
    let isize = bytes
        .len()
        .checked_sub(4)
        .and_then(|at| read_u32_le(bytes, at));
    trusted_size(isize, body_len)
}

/// The output size `isize` (a trailer's ISIZE) claims when it is plausible for `body_len`
/// compressed bytes; else 0.
pub(super) fn trusted_size(isize: Option<u32>, body_len: usize) -> usize {
    let isize = isize.map_or(0, |v| v as usize);
    if isize <= body_len.saturating_mul(MAX_HINT_RATIO) {
        isize
    } else {
        0
    }
}

/// Largest expansion ratio for which the ISIZE hint is trusted to size the first allocation
/// (profiles compress 2–10×; a bomb's claim is not believed, the buffer then grows by doubling).
const MAX_HINT_RATIO: usize = 16;

/// Checks the CRC-32 and ISIZE of the trailer at `at` against the member's output `data`.
pub(super) fn check_trailer(
    bytes: &[u8],
    at: usize,
    data: &[u8],
    format: &'static str,
) -> Result<(), ReadError> {
    check_trailer_of(bytes, at, crc32(data), data.len(), format, at as u64)
}

/// Checks the CRC-32 and ISIZE of the trailer at `at` against a member's output of `len`
/// bytes whose CRC-32 is `data_crc`; errors are placed at byte `origin` of the whole stream.
pub(super) fn check_trailer_of(
    bytes: &[u8],
    at: usize,
    data_crc: u32,
    len: usize,
    format: &'static str,
    origin: u64,
) -> Result<(), ReadError> {
    let place = Place::Byte(origin);
    let (Some(crc), Some(isize)) = (read_u32_le(bytes, at), read_u32_le(bytes, at + 4)) else {
        return Err(ReadError::new(
            format,
            place,
            "the gzip stream is truncated (missing the CRC-32/size trailer)",
        ));
    };
    if crc != data_crc {
        return Err(ReadError::new(
            format,
            place,
            format!("gzip CRC-32 mismatch (trailer says {crc:08x}, data has {data_crc:08x})"),
        ));
    }
    // ISIZE is the size modulo 2^32 (RFC 1952 §2.3.1); truncation is intended.
    let size_mod = (len as u64 & 0xffff_ffff) as u32;
    if isize != size_mod {
        return Err(ReadError::new(
            format,
            place,
            format!("gzip size mismatch (trailer says {isize} bytes, data has {size_mod})"),
        ));
    }
    Ok(())
}

fn read_u32_le(bytes: &[u8], at: usize) -> Option<u32> {
    let b: [u8; 4] = bytes.get(at..at.checked_add(4)?)?.try_into().ok()?;
    Some(u32::from_le_bytes(b))
}

/// Parses the member header starting at `start`; returns the offset of the DEFLATE body.
pub(super) fn parse_header(
    bytes: &[u8],
    start: usize,
    format: &'static str,
) -> Result<usize, ReadError> {
    let err = |at: usize, msg: &str| ReadError::new(format, Place::Byte(at as u64), msg.to_owned());
    let fixed = bytes
        .get(start..start.saturating_add(FIXED_HEADER_LEN))
        .ok_or_else(|| err(start, "truncated gzip header"))?;
    if fixed[..2] != GZIP_MAGIC {
        return Err(err(start, "not a gzip member (no 1f 8b magic)"));
    }
    if fixed[2] != METHOD_DEFLATE {
        return Err(err(
            start + 2,
            "unsupported gzip compression method (not deflate)",
        ));
    }
    let flags = fixed[3];
    if flags & FLAG_RESERVED != 0 {
        return Err(err(start + 3, "reserved gzip header flags are set"));
    }
    let mut pos = start + FIXED_HEADER_LEN;
    if flags & FLAG_EXTRA != 0 {
        let xlen = bytes
            .get(pos..pos + 2)
            .map(|b| usize::from(u16::from_le_bytes([b[0], b[1]])))
            .ok_or_else(|| err(pos, "truncated gzip extra field"))?;
        pos += 2 + xlen;
    }
    for flag in [FLAG_NAME, FLAG_COMMENT] {
        if flags & flag != 0 {
            let zero = bytes
                .get(pos..)
                .and_then(|rest| rest.iter().position(|&b| b == 0))
                .ok_or_else(|| err(pos, "truncated gzip header (unterminated name or comment)"))?;
            pos += zero + 1;
        }
    }
    if flags & FLAG_HCRC != 0 {
        let want = bytes
            .get(pos..pos + 2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
            .ok_or_else(|| err(pos, "truncated gzip header CRC"))?;
        let header = bytes.get(start..pos).unwrap_or_default();
        // The header CRC is the low 16 bits of the CRC-32 of the header (RFC 1952 §2.3.1).
        if want != (crc32(header) & 0xffff) as u16 {
            return Err(err(pos, "gzip header CRC mismatch"));
        }
        pos += 2;
    }
    if pos > bytes.len() {
        return Err(err(bytes.len(), "truncated gzip header"));
    }
    Ok(pos)
}

/// Why raw inflation stopped.
#[derive(Debug)]
pub(super) enum InflateError {
    /// The output would exceed the cap.
    OverCap,
    /// The DEFLATE stream ended early.
    Truncated,
    /// The DEFLATE stream is invalid.
    Corrupt,
}

impl InflateError {
    /// What the error says, for an output capped at `cap` bytes.
    pub(super) fn message(&self, cap: usize) -> String {
        match self {
            InflateError::OverCap => super::over_cap_message(cap),
            InflateError::Truncated => "the gzip stream is truncated".to_owned(),
            InflateError::Corrupt => "corrupt DEFLATE data in the gzip stream".to_owned(),
        }
    }
}

/// Inflates the raw DEFLATE stream at the start of `input`, appending to `out`, which never
/// grows past `cap` bytes in total; `hint` (0 = none) is the expected output size. Returns the
/// number of input bytes the stream used.
fn inflate_capped(
    input: &[u8],
    out: &mut Vec<u8>,
    cap: usize,
    hint: usize,
) -> Result<usize, InflateError> {
    let mut inflater = RawInflater::new();
    let mut written = out.len();
    let mut consumed = 0usize;
    let guess = if hint > 0 {
        hint.saturating_add(1) // one spare byte: a full buffer reads as "more output"
    } else {
        input.len().saturating_mul(4).max(MIN_INITIAL_OUTPUT)
    };
    let initial = written.saturating_add(guess).min(cap);
    resize_exact(out, initial.max(written));
    let result = loop {
        let rest = input.get(consumed..).unwrap_or_default();
        let (used, stop) = match inflater.inflate(rest, out, &mut written) {
            Ok(step) => step,
            Err(e) => break Err(e),
        };
        consumed = consumed.saturating_add(used);
        match stop {
            Stop::Done => break Ok(consumed),
            Stop::OutputFull if out.len() >= cap => break Err(InflateError::OverCap),
            Stop::OutputFull => {
                let grown = out.len().saturating_mul(2).max(MIN_INITIAL_OUTPUT).min(cap);
                resize_exact(out, grown);
            }
            Stop::NeedsInput => break Err(InflateError::Truncated),
        }
    };
    out.truncate(written);
    result
}

/// Resizes `out` to `len` (zero-filled), allocating exactly that much: `Vec::resize` alone
/// may round the capacity up to twice the old one, i.e. up to twice the cap. A buffer not yet
/// allocated is allocated zeroed (`calloc`), which fresh memory needs no pass for: the
/// inflated output is written only once (6% of a large pprof's parse in wasm was this fill).
pub(super) fn resize_exact(out: &mut Vec<u8>, len: usize) {
    if out.capacity() == 0 {
        *out = vec![0; len];
        return;
    }
    out.reserve_exact(len.saturating_sub(out.len()));
    out.resize(len, 0);
}

/// Compresses `data` into a single-member gzip stream: DEFLATE level [`GZIP_LEVEL`], no file
/// name, modification time 0 and OS "unknown", so equal input gives equal bytes.
pub fn gzip(data: &[u8]) -> Vec<u8> {
    let body = miniz_oxide::deflate::compress_to_vec(data, GZIP_LEVEL);
    let mut out = Vec::with_capacity(body.len() + FIXED_HEADER_LEN + TRAILER_LEN);
    out.extend_from_slice(&GZIP_MAGIC);
    out.extend_from_slice(&[METHOD_DEFLATE, 0, 0, 0, 0, 0, 0, OS_UNKNOWN]);
    out.extend_from_slice(&body);
    out.extend_from_slice(&crc32(data).to_le_bytes());
    out.extend_from_slice(&((data.len() as u64 & 0xffff_ffff) as u32).to_le_bytes());
    out
}

/// CRC-32 (ISO 3309, as in gzip) of `data`.
pub fn crc32(data: &[u8]) -> u32 {
    crc32_update(0, data)
}

/// The CRC-32 of some bytes followed by `data`, from `crc`, the CRC-32 of those bytes (0 for
/// none): `crc32_update(crc32(a), b) == crc32(a ++ b)`.
pub fn crc32_update(crc: u32, data: &[u8]) -> u32 {
    zlib_rs::crc32::crc32(crc, data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_check_value() {
        // The standard check value of CRC-32/ISO-HDLC (as used by gzip).
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
        assert_eq!(crc32(b""), 0);
    }

    #[test]
    fn crc32_continues_across_pieces() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 7 + i / 13) as u8).collect();
        for cut in [0, 1, 7, 8, 9, 500, 999, 1000] {
            let (a, b) = data.split_at(cut);
            assert_eq!(crc32_update(crc32(a), b), crc32(&data), "cut at {cut}");
        }
    }

    #[test]
    fn gzip_round_trip_and_multi_member() {
        let a = gzip(b"hello ");
        let b = gzip(b"world");
        let mut both = a.clone();
        both.extend_from_slice(&b);
        assert_eq!(gunzip_capped(&a, 1 << 20, "t").unwrap(), b"hello ");
        assert_eq!(gunzip_capped(&both, 1 << 20, "t").unwrap(), b"hello world");
    }

    #[test]
    fn cap_is_enforced() {
        let data = vec![0u8; 1 << 20];
        let z = gzip(&data);
        let e = gunzip_capped(&z, 1000, "t").unwrap_err();
        assert!(e.message.contains("exceeds the limit of 1000 bytes"), "{e}");
        assert_eq!(gunzip_capped(&z, 1 << 20, "t").unwrap().len(), 1 << 20);
    }
}
