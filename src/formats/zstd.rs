//! zstd (RFC 8878) input on top of the pure-Rust `ruzstd` decoder: every frame of the stream is
//! decoded (skippable frames are stepped over), each frame's content checksum is checked when
//! it has one, and the output is capped like [`super::gzip::gunzip_capped`]: a decompression
//! bomb fails with a clear error after at most `cap` bytes of output.

use ruzstd::decoding::StreamingDecoder;
use ruzstd::io::Read;

use super::error::{Place, ReadError};

/// The four magic bytes every zstd frame starts with (0xFD2FB528, little-endian).
pub const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];
/// Skippable frames have a magic number 0x184D2A50..=0x184D2A5F (little-endian); the low four
/// bits are free, so the first byte is masked.
const SKIPPABLE_MAGIC_MASK: u32 = 0xffff_fff0;
const SKIPPABLE_MAGIC: u32 = 0x184d_2a50;
/// A skippable frame's header: magic and a 4-byte little-endian length.
const SKIPPABLE_HEADER_LEN: usize = 8;
/// Bytes read from the decoder at a time.
const CHUNK: usize = 64 * 1024;
/// Smallest output buffer reserved up front.
const MIN_INITIAL_OUTPUT: usize = 64 * 1024;
/// The first reservation is this many times the compressed size (profiles compress 3–10×).
const INITIAL_RATIO: usize = 4;

/// True when `bytes` start with the zstd frame magic `28 b5 2f fd`.
pub fn is_zstd(bytes: &[u8]) -> bool {
    bytes.starts_with(&ZSTD_MAGIC)
}

/// Decompresses every frame of the zstd stream `bytes`. Fails, naming `format` and the byte
/// offset of the frame in the compressed input, when a frame header is malformed, the data is
/// corrupt or truncated, a content checksum does not match, bytes that are not a frame follow,
/// or the output would exceed `cap` bytes (`Limits::max_decompressed_bytes`).
pub fn unzstd_capped(bytes: &[u8], cap: usize, format: &'static str) -> Result<Vec<u8>, ReadError> {
    let mut out = Vec::new();
    let first = bytes
        .len()
        .saturating_mul(INITIAL_RATIO)
        .max(MIN_INITIAL_OUTPUT)
        .min(cap);
    out.reserve_exact(first);
    let mut rest = bytes;
    while !rest.is_empty() {
        let at = (bytes.len() - rest.len()) as u64;
        let err = |msg: String| ReadError::new(format, Place::Byte(at), msg);
        if let Some(len) = skippable_len(rest) {
            rest = rest
                .get(len..)
                .ok_or_else(|| err("truncated skippable zstd frame".to_owned()))?;
            continue;
        }
        if !is_zstd(rest) {
            return Err(err(format!(
                "{} bytes of trailing data after the zstd stream (not another zstd frame)",
                rest.len()
            )));
        }
        decode_frame(&mut rest, &mut out, cap).map_err(err)?;
    }
    if out.capacity() > out.len() + out.len() / 8 {
        out.shrink_to_fit();
    }
    Ok(out)
}

/// Decompresses at most `max_len` bytes from the start of the first frame of `bytes`, without
/// checking the rest: enough to sniff what a zstd file holds. `None` when the frame header is
/// malformed or nothing could be decoded.
pub fn unzstd_prefix(bytes: &[u8], max_len: usize) -> Option<Vec<u8>> {
    if !is_zstd(bytes) {
        return None;
    }
    let mut rest = bytes;
    let mut decoder = StreamingDecoder::new(&mut rest).ok()?;
    let mut out = vec![0u8; max_len];
    let mut len = 0;
    while len < max_len {
        match decoder.read(&mut out[len..]) {
            Ok(0) | Err(_) => break,
            Ok(n) => len += n,
        }
    }
    out.truncate(len);
    (!out.is_empty()).then_some(out)
}

/// The total length of the skippable frame at the start of `bytes`, if it is one.
fn skippable_len(bytes: &[u8]) -> Option<usize> {
    let word = |at: usize| -> Option<u32> {
        let b: [u8; 4] = bytes.get(at..at + 4)?.try_into().ok()?;
        Some(u32::from_le_bytes(b))
    };
    let magic = word(0)?;
    if magic & SKIPPABLE_MAGIC_MASK != SKIPPABLE_MAGIC {
        return None;
    }
    let len = word(4).map_or(usize::MAX, |l| l as usize);
    Some(SKIPPABLE_HEADER_LEN.saturating_add(len))
}

/// Decodes the frame at the start of `rest` (advancing it past the frame) onto `out`.
fn decode_frame(rest: &mut &[u8], out: &mut Vec<u8>, cap: usize) -> Result<(), String> {
    let mut decoder = StreamingDecoder::new(&mut *rest)
        .map_err(|e| format!("malformed zstd frame header: {e}"))?;
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = decoder
            .read(&mut buf)
            .map_err(|e| format!("corrupt or truncated zstd data: {e}"))?;
        if n == 0 {
            break;
        }
        if out.len().saturating_add(n) > cap {
            return Err(super::over_cap_message(cap));
        }
        if out.capacity() - out.len() < n {
            let grown = out.capacity().saturating_mul(2).max(out.len() + n).min(cap);
            out.reserve_exact(grown - out.len());
        }
        out.extend_from_slice(&buf[..n]);
    }
    let frame = &decoder.decoder;
    if !frame.is_finished() {
        return Err("the zstd stream is truncated".to_owned());
    }
    if let (Some(want), Some(got)) = (
        frame.get_checksum_from_data(),
        frame.get_calculated_checksum(),
    ) {
        if want != got {
            return Err(format!(
                "zstd content checksum mismatch (frame says {want:08x}, data has {got:08x})"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `zstd -c` of "hello zstd\n" (one frame with a content checksum).
    const HELLO: [u8; 24] = [
        0x28, 0xb5, 0x2f, 0xfd, 0x04, 0x58, 0x59, 0x00, 0x00, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x20,
        0x7a, 0x73, 0x74, 0x64, 0x0a, 0x6c, 0x57, 0xf9, 0x51,
    ];

    #[test]
    fn frames_skippable_frames_and_cap() {
        assert_eq!(
            unzstd_capped(&HELLO, 1 << 20, "t").unwrap(),
            b"hello zstd\n"
        );
        let mut two = HELLO.to_vec();
        two.extend_from_slice(&[0x50, 0x2a, 0x4d, 0x18, 2, 0, 0, 0, 9, 9]);
        two.extend_from_slice(&HELLO);
        assert_eq!(
            unzstd_capped(&two, 1 << 20, "t").unwrap(),
            b"hello zstd\nhello zstd\n"
        );
        let e = unzstd_capped(&HELLO, 5, "t").unwrap_err();
        assert!(e.message.contains("exceeds the limit of 5 bytes"), "{e}");
        assert_eq!(unzstd_prefix(&HELLO, 5).unwrap(), b"hello");
        assert_eq!(unzstd_prefix(&HELLO[..10], 5), None);
    }

    #[test]
    fn corrupt_and_trailing_data_are_errors() {
        let e = unzstd_capped(&HELLO[..15], 1 << 20, "t").unwrap_err();
        assert!(e.message.contains("zstd"), "{e}");
        let mut bad = HELLO.to_vec();
        bad[12] ^= 0xff;
        let e = unzstd_capped(&bad, 1 << 20, "t").unwrap_err();
        assert!(e.message.contains("checksum"), "{e}");
        let mut trailing = HELLO.to_vec();
        trailing.extend_from_slice(b"junk");
        let e = unzstd_capped(&trailing, 1 << 20, "t").unwrap_err();
        assert!(e.message.contains("trailing data"), "{e}");
    }
}
