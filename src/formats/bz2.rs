//! bzip2 input (massif-visualizer opens `massif.out.*.bz2` as it opens `.gz`), decoded by the
//! `bzip2` crate on its pure-Rust backend (`libbz2-rs-sys`, a port of libbzip2 1.0.8 that
//! builds for wasm32).
//!
//! Reading is capped like [`super::gzip::gunzip_capped`]: the output buffer grows by doubling
//! up to the cap and never past it, so a decompression bomb fails with a clear error after
//! allocating at most `cap` bytes. Every stream of a multi-stream file (`pbzip2`, `cat a.bz2
//! b.bz2`) is decoded, as `bzip2 -d` does; libbzip2 checks each block's and each stream's CRC.

use ::bzip2::{Decompress, Error, Status};

use super::error::{Place, ReadError};

/// The magic every bzip2 stream starts with: `BZh` and the block size digit `1`–`9`.
pub const BZIP2_MAGIC: &[u8; 3] = b"BZh";
/// Smallest output buffer allocated up front (grown by doubling from there).
const MIN_INITIAL_OUTPUT: usize = 64 * 1024;
/// First guess of the expansion ratio, to size the first allocation (text compresses 5–40×
/// with bzip2; the buffer doubles when the guess is short).
const INITIAL_RATIO: usize = 8;

/// True when `bytes` start with a bzip2 stream header (`BZh1`…`BZh9`) followed by the magic
/// of a block or of the end of the stream.
pub fn is_bzip2(bytes: &[u8]) -> bool {
    const BLOCK_MAGIC: [u8; 6] = [0x31, 0x41, 0x59, 0x26, 0x53, 0x59];
    const END_MAGIC: [u8; 6] = [0x17, 0x72, 0x45, 0x38, 0x50, 0x90];
    bytes.starts_with(BZIP2_MAGIC)
        && bytes.get(3).is_some_and(|d| (b'1'..=b'9').contains(d))
        && bytes
            .get(4..10)
            .is_some_and(|m| m == BLOCK_MAGIC || m == END_MAGIC)
}

/// Decompresses every stream of the bzip2 data `bytes`. Fails, naming `format` and the byte
/// offset in the compressed input where the failing stream starts, when the data is corrupt
/// (a CRC does not match) or truncated, bytes that are not a bzip2 stream follow, or the
/// output would exceed `cap` bytes (`Limits::max_decompressed_bytes`).
pub fn bunzip2_capped(
    bytes: &[u8],
    cap: usize,
    format: &'static str,
) -> Result<Vec<u8>, ReadError> {
    let guess = bytes
        .len()
        .saturating_mul(INITIAL_RATIO)
        .max(MIN_INITIAL_OUTPUT)
        .min(cap);
    let mut out = Vec::with_capacity(guess);
    let mut pos = 0usize;
    loop {
        let rest = bytes.get(pos..).unwrap_or_default();
        if pos > 0 && rest.is_empty() {
            return Ok(out);
        }
        if !rest.starts_with(BZIP2_MAGIC) {
            let message = if pos == 0 {
                "not a bzip2 stream (no BZh magic)".to_owned()
            } else {
                format!(
                    "{} bytes of trailing data after the bzip2 stream (not another bzip2 stream)",
                    rest.len()
                )
            };
            return Err(ReadError::new(format, Place::Byte(pos as u64), message));
        }
        let used = bunzip2_stream(rest, &mut out, cap).map_err(|e| {
            let message = match e {
                StreamError::OverCap => super::over_cap_message(cap),
                StreamError::Truncated => "the bzip2 stream is truncated".to_owned(),
                StreamError::Corrupt => {
                    "corrupt bzip2 data (bad block, or a CRC does not match)".to_owned()
                }
            };
            ReadError::new(format, Place::Byte(pos as u64), message)
        })?;
        pos = pos.saturating_add(used.max(1));
    }
}

/// Decompresses at most `max_len` bytes from the start of the first stream of `bytes`, without
/// checking the rest: enough to sniff what a bzip2 file holds. `None` when nothing could be
/// decoded.
pub fn bunzip2_prefix(bytes: &[u8], max_len: usize) -> Option<Vec<u8>> {
    if !is_bzip2(bytes) {
        return None;
    }
    let mut d = Decompress::new(false);
    let mut out = Vec::with_capacity(max_len);
    while out.len() < max_len {
        let consumed = usize::try_from(d.total_in()).ok()?;
        let before = (d.total_in(), d.total_out());
        match d.decompress_vec(bytes.get(consumed..)?, &mut out) {
            Ok(Status::StreamEnd) | Err(_) => break,
            Ok(_) if (d.total_in(), d.total_out()) == before => break,
            Ok(_) => {}
        }
    }
    (!out.is_empty()).then_some(out)
}

/// Why decoding one stream stopped.
enum StreamError {
    OverCap,
    Truncated,
    Corrupt,
}

/// Decodes the stream at the start of `input`, appending to `out` (never past `cap` bytes in
/// total); returns the number of input bytes the stream used.
fn bunzip2_stream(input: &[u8], out: &mut Vec<u8>, cap: usize) -> Result<usize, StreamError> {
    let mut d = Decompress::new(false);
    loop {
        if out.len() == out.capacity() {
            if out.len() >= cap {
                return Err(StreamError::OverCap);
            }
            let grown = out.len().saturating_mul(2).max(MIN_INITIAL_OUTPUT).min(cap);
            out.reserve_exact(grown - out.len());
        }
        let consumed = usize::try_from(d.total_in()).unwrap_or(usize::MAX);
        let rest = input.get(consumed..).unwrap_or_default();
        let before = (d.total_in(), d.total_out());
        match d.decompress_vec(rest, out) {
            Ok(Status::StreamEnd) => {
                return Ok(usize::try_from(d.total_in()).unwrap_or(usize::MAX));
            }
            Ok(_) => {
                let stalled = (d.total_in(), d.total_out()) == before;
                if stalled && out.len() < out.capacity() {
                    return Err(StreamError::Truncated);
                }
            }
            Err(Error::Data | Error::DataMagic) => return Err(StreamError::Corrupt),
            Err(Error::Sequence | Error::Param) => return Err(StreamError::Truncated),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `printf 'hello world\n' | bzip2 -9`.
    const HELLO: &[u8] = &[
        0x42, 0x5a, 0x68, 0x39, 0x31, 0x41, 0x59, 0x26, 0x53, 0x59, 0x4e, 0xec, 0xe8, 0x36, 0x00,
        0x00, 0x02, 0x51, 0x80, 0x00, 0x10, 0x40, 0x00, 0x06, 0x44, 0x90, 0x80, 0x20, 0x00, 0x31,
        0x06, 0x4c, 0x41, 0x01, 0xa7, 0xa9, 0xa5, 0x80, 0xbb, 0x94, 0x31, 0xf8, 0xbb, 0x92, 0x29,
        0xc2, 0x84, 0x82, 0x77, 0x67, 0x41, 0xb0,
    ];

    #[test]
    fn decodes_single_and_multi_stream() {
        assert!(is_bzip2(HELLO));
        assert_eq!(
            bunzip2_capped(HELLO, 1 << 20, "t").unwrap(),
            b"hello world\n"
        );
        let mut two = HELLO.to_vec();
        two.extend_from_slice(HELLO);
        assert_eq!(
            bunzip2_capped(&two, 1 << 20, "t").unwrap(),
            b"hello world\nhello world\n"
        );
    }

    #[test]
    fn a_prefix_is_decoded_without_the_rest() {
        assert_eq!(bunzip2_prefix(HELLO, 5).unwrap(), b"hello");
        assert_eq!(bunzip2_prefix(HELLO, 1 << 20).unwrap(), b"hello world\n");
        assert_eq!(bunzip2_prefix(&HELLO[..20], 5), None);
        assert_eq!(bunzip2_prefix(b"plain text", 5), None);
    }

    #[test]
    fn errors_name_the_problem() {
        let e = bunzip2_capped(&HELLO[..30], 1 << 20, "t").unwrap_err();
        assert!(e.message.contains("truncated"), "{e}");
        let mut bad = HELLO.to_vec();
        bad[20] ^= 0xff;
        let e = bunzip2_capped(&bad, 1 << 20, "t").unwrap_err();
        assert!(e.message.contains("corrupt"), "{e}");
        let e = bunzip2_capped(HELLO, 4, "t").unwrap_err();
        assert!(e.message.contains("exceeds the limit of 4 bytes"), "{e}");
        let mut trailing = HELLO.to_vec();
        trailing.extend_from_slice(b"xyz");
        let e = bunzip2_capped(&trailing, 1 << 20, "t").unwrap_err();
        assert!(e.message.contains("3 bytes of trailing data"), "{e}");
        assert!(!is_bzip2(b"BZh9 not really"));
    }
}
