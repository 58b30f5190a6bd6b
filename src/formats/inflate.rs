//! Raw DEFLATE (RFC 1951) inflation, chunk by chunk, by zlib-rs: the inflater of
//! [`super::gzip`] and [`super::gzip_stream`]. In wasm it inflates a large pprof about a fifth
//! faster than miniz_oxide did, and it keeps its own state between calls, so input may end
//! anywhere (the stream's pieces need not be joined).

use zlib_rs::{Inflate, InflateError as ZlibError, InflateFlush, Status};

use super::gzip::InflateError;

/// DEFLATE's largest window (32 KiB), which every valid stream fits.
const WINDOW_BITS: u8 = 15;

/// Where a call to [`RawInflater::inflate`] stopped.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Stop {
    /// The DEFLATE stream ended (its last block was decoded).
    Done,
    /// The output room is full; more output may follow.
    OutputFull,
    /// The input was used up before the stream ended.
    NeedsInput,
}

/// One raw DEFLATE stream being inflated (its state boxed: a few hundred bytes, moved with
/// the stream that holds it).
pub(super) struct RawInflater {
    inner: Box<Inflate>,
}

impl RawInflater {
    pub(super) fn new() -> Self {
        RawInflater {
            inner: Box::new(Inflate::new(false, WINDOW_BITS)),
        }
    }

    /// Inflates from `input` into `out[*written..]`, advancing `written` (also when the data
    /// turns out corrupt: by what was inflated before the fault); returns the input bytes used
    /// and why it stopped. Never writes past `out.len()`. `NeedsInput` means every input byte
    /// was taken (what it has not decoded yet stays in the inflater's state).
    pub(super) fn inflate(
        &mut self,
        input: &[u8],
        out: &mut [u8],
        written: &mut usize,
    ) -> Result<(usize, Stop), InflateError> {
        let room = out.get_mut(*written..).unwrap_or_default();
        let (in0, out0) = (self.inner.total_in(), self.inner.total_out());
        let status = self.inner.decompress(input, room, InflateFlush::NoFlush);
        let used = usize::try_from(self.inner.total_in() - in0).unwrap_or(usize::MAX);
        let made = usize::try_from(self.inner.total_out() - out0).unwrap_or(usize::MAX);
        // Also on an error: what came before the fault is output (a sniffed prefix keeps it).
        *written = written.saturating_add(made);
        let stop = match status.map_err(|_: ZlibError| InflateError::Corrupt)? {
            Status::StreamEnd => Stop::Done,
            _ if *written >= out.len() => Stop::OutputFull,
            _ if used >= input.len() => Stop::NeedsInput,
            // Input and room both left, yet it stopped: it cannot go on (zlib stops only when
            // one of them runs out), and the input it left must not be dropped silently.
            _ => return Err(InflateError::Corrupt),
        };
        Ok((used, stop))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deflated(data: &[u8]) -> Vec<u8> {
        miniz_oxide::deflate::compress_to_vec(data, 6)
    }

    #[test]
    fn inflates_in_any_pieces_of_input_and_output() {
        let data: Vec<u8> = (0..50_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        let z = deflated(&data);
        for (piece, room) in [(1, 7), (13, 4096), (z.len(), data.len()), (4096, 1)] {
            let mut inf = RawInflater::new();
            let mut out = vec![0u8; room];
            let (mut written, mut at) = (0, 0);
            loop {
                let end = (at + piece).min(z.len());
                let (used, stop) = inf.inflate(&z[at..end], &mut out, &mut written).unwrap();
                at += used;
                match stop {
                    Stop::Done => break,
                    Stop::OutputFull => out.resize(out.len() + room, 0),
                    Stop::NeedsInput => assert!(at < z.len(), "ran out at {at}"),
                }
            }
            assert_eq!(&out[..written], &data[..], "pieces {piece}, room {room}");
            assert_eq!(at, z.len());
        }
    }

    #[test]
    fn corrupt_and_cut_streams_are_told_apart() {
        let z = deflated(b"hello hello hello hello");
        let mut out = vec![0u8; 100];
        let mut written = 0;
        let cut = RawInflater::new().inflate(&z[..z.len() - 2], &mut out, &mut written);
        assert_eq!(cut.unwrap().1, Stop::NeedsInput);
        // Block type 3 is reserved (RFC 1951 §3.2.3).
        let bad = RawInflater::new().inflate(&[0x07, 0, 0], &mut out, &mut 0);
        assert!(matches!(bad, Err(InflateError::Corrupt)));
        // A stored block "abc" (not final), then a reserved block: "abc" stays output.
        let mut written = 0;
        let stored = [0x00, 0x03, 0x00, 0xfc, 0xff, b'a', b'b', b'c', 0x07];
        let r = RawInflater::new().inflate(&stored, &mut out, &mut written);
        assert!(matches!(r, Err(InflateError::Corrupt)));
        assert_eq!(&out[..written], b"abc");
    }
}
