//! gzip inflated as the compressed bytes arrive, into one output buffer sized from the
//! trailer's ISIZE (given up front: the viewer reads a file's last four bytes first), so the
//! compressed input is never held whole. The output and its checks are those of
//! [`gzip::gunzip_capped`](super::gzip::gunzip_capped): capped, CRC-32 and ISIZE checked,
//! further members decoded (those, rare, are kept compressed until [`GunzipStream::finish`]).
//!
//! A stream started by [`GunzipStream::start_windowed`] keeps no output: each piece is shown
//! to the observer and then overwritten by the next, so a reader that takes its input piece
//! by piece (the pprof reader that reads a file twice, [`super::stream`]) never holds the
//! inflated bytes whole; [`GunzipStream::finish_windowed`] checks the trailer the same way.

use super::error::{Place, ReadError};
use super::gzip::{
    check_trailer_of, crc32_update, gunzip_members, is_gzip, parse_header, resize_exact,
    trailing_data, trusted_size, InflateError, MIN_INITIAL_OUTPUT, TRAILER_LEN,
};
use super::inflate::{RawInflater, Stop};

/// Most bytes inflated in one call of the inflater: a piece that stays in cache for its CRC
/// and for [`GunzipStream::feed`]'s observer.
const PIECE: usize = 256 << 10;

/// A windowed stream's output, by which two reads of one stream are compared: its length and
/// CRC-32.
pub type Inflated = (usize, u32);

/// The inflation of one gzip stream fed chunk by chunk.
pub struct GunzipStream {
    /// The name errors carry (the format the stream was taken for, or "gzip").
    format: &'static str,
    cap: usize,
    inflater: RawInflater,
    /// The output so far: `out[..written]` (the rest is room); in a windowed stream, the
    /// output from byte `base` on.
    out: Vec<u8>,
    written: usize,
    /// Output bytes before `out[0]`: 0 unless the stream is windowed.
    base: usize,
    /// `out` is one piece, reused: see the module doc.
    windowed: bool,
    /// CRC-32 of the output so far, computed piece by piece as it is inflated (while the
    /// piece is in cache, and in many calls rather than one long one over the whole output).
    crc: u32,
    /// Offset of the first member's DEFLATE data in the stream.
    body_start: usize,
    /// Compressed bytes fed so far.
    fed: usize,
    /// Offset of the first member's trailer, once its DEFLATE data ended.
    trailer_at: usize,
    /// The stream bytes after the first member's DEFLATE data (its trailer, further members),
    /// once that data ended.
    after: Option<Vec<u8>>,
    /// The first error, reported by `finish`; later chunks are ignored.
    error: Option<ReadError>,
}

impl GunzipStream {
    /// A stream whose first bytes are `head` (holding the whole member header), of `total`
    /// compressed bytes whose last four are `isize`; `cap` bounds the output. `None` when the
    /// header cannot be parsed from `head` (the caller then reads the whole input at once, so
    /// the error is the usual one). What `head` inflates to is observed as [`Self::feed`]
    /// says.
    pub fn start(
        head: &[u8],
        total: usize,
        isize: Option<u32>,
        cap: usize,
        format: &'static str,
        observe: &mut dyn FnMut(&[u8], usize),
    ) -> Option<Self> {
        let body_start = parse_header(head, 0, format).ok()?;
        let hint = trusted_size(isize, total.saturating_sub(body_start));
        let initial = match hint {
            0 => total.saturating_mul(4).max(MIN_INITIAL_OUTPUT),
            h => h.saturating_add(1), // a full buffer reads as "more output"
        };
        Some(Self::begin(
            head,
            body_start,
            initial.min(cap),
            false,
            cap,
            format,
            observe,
        ))
    }

    /// As [`Self::start`], but the output is not kept: `observe` sees each piece once (see
    /// [`Self::feed`]), and [`Self::finish_windowed`] ends the stream.
    pub fn start_windowed(
        head: &[u8],
        cap: usize,
        format: &'static str,
        observe: &mut dyn FnMut(&[u8], usize),
    ) -> Option<Self> {
        let body_start = parse_header(head, 0, format).ok()?;
        Some(Self::begin(
            head, body_start, PIECE, true, cap, format, observe,
        ))
    }

    /// A stream whose output buffer is `room` bytes, fed `head` past its header.
    fn begin(
        head: &[u8],
        body_start: usize,
        room: usize,
        windowed: bool,
        cap: usize,
        format: &'static str,
        observe: &mut dyn FnMut(&[u8], usize),
    ) -> Self {
        let mut out = Vec::new();
        resize_exact(&mut out, room);
        let mut s = GunzipStream {
            format,
            cap,
            inflater: RawInflater::new(),
            out,
            written: 0,
            base: 0,
            windowed,
            crc: 0,
            body_start,
            fed: body_start,
            trailer_at: 0,
            after: None,
            error: None,
        };
        s.feed(head.get(body_start..).unwrap_or_default(), observe);
        s
    }

    /// Inflates `chunk`, the next bytes of the stream, calling `observe(bytes, start)` after
    /// each piece of at most `PIECE` bytes (256 KiB) is inflated, while that piece is still in
    /// cache: `bytes` is the output from byte `start` on, the whole output so far
    /// ([`Self::output`], start 0), or in a windowed stream the new piece alone.
    pub fn feed(&mut self, chunk: &[u8], observe: &mut dyn FnMut(&[u8], usize)) {
        self.fed += chunk.len();
        if self.error.is_some() {
            return;
        }
        if let Some(after) = &mut self.after {
            after.extend_from_slice(chunk);
            return;
        }
        if let Err(e) = self.inflate(chunk, observe) {
            let place = Place::Byte(self.body_start as u64);
            self.error = Some(ReadError::new(self.format, place, e.message(self.cap)));
        }
    }

    /// Compressed bytes fed so far.
    pub fn fed(&self) -> usize {
        self.fed
    }

    /// Inflated bytes so far.
    pub fn inflated(&self) -> usize {
        self.base.saturating_add(self.written)
    }

    /// The output so far (of a windowed stream, the last piece): a prefix of what
    /// [`Self::finish`] returns when it succeeds.
    pub fn output(&self) -> &[u8] {
        self.out.get(..self.written).unwrap_or_default()
    }

    /// Runs the inflater over `input` (it keeps what it has not decoded yet in its own state)
    /// a piece at a time; keeps what follows the DEFLATE data in `after`.
    fn inflate(
        &mut self,
        input: &[u8],
        observe: &mut dyn FnMut(&[u8], usize),
    ) -> Result<(), InflateError> {
        let mut used = 0usize;
        loop {
            let rest = input.get(used..).unwrap_or_default();
            if self.windowed && self.written == self.out.len() {
                self.base = self.base.saturating_add(self.written);
                self.written = 0;
            }
            let before = self.written;
            let end = self.out.len().min(before.saturating_add(PIECE));
            let room = self.out.get_mut(..end).unwrap_or_default();
            let (n, stop) = self.inflater.inflate(rest, room, &mut self.written)?;
            used = used.saturating_add(n);
            let piece = self.out.get(before..self.written).unwrap_or_default();
            self.crc = crc32_update(self.crc, piece);
            match self.windowed {
                true => observe(piece, self.base.saturating_add(before)),
                false => observe(self.output(), 0),
            }
            match stop {
                // The piece is full, not the buffer.
                Stop::OutputFull if end < self.out.len() => {}
                Stop::OutputFull if self.windowed && self.inflated() >= self.cap => {
                    return Err(InflateError::OverCap)
                }
                // A windowed stream's next piece overwrites this one.
                Stop::OutputFull if self.windowed => {}
                Stop::Done => {
                    let rest = input.get(used..).unwrap_or_default();
                    self.trailer_at = self.fed - rest.len();
                    self.after = Some(rest.to_vec());
                    return Ok(());
                }
                Stop::OutputFull => self.grow()?,
                Stop::NeedsInput => return Ok(()),
            }
        }
    }

    /// Doubles the output room, up to the cap.
    fn grow(&mut self) -> Result<(), InflateError> {
        if self.out.len() >= self.cap {
            return Err(InflateError::OverCap);
        }
        let grown = self
            .out
            .len()
            .saturating_mul(2)
            .max(MIN_INITIAL_OUTPUT)
            .min(self.cap);
        resize_exact(&mut self.out, grown);
        Ok(())
    }

    /// The whole output, once the stream is complete: the first member's trailer checked,
    /// any further members decoded. Fails as `gunzip_capped` does.
    pub fn finish(mut self) -> Result<Vec<u8>, ReadError> {
        let after = self.end()?;
        self.out.truncate(self.written);
        if after.len() == TRAILER_LEN {
            if self.out.capacity() > self.out.len() + self.out.len() / 8 {
                self.out.shrink_to_fit();
            }
            return Ok(self.out);
        }
        let more = &after[TRAILER_LEN..];
        let at = (self.trailer_at + TRAILER_LEN) as u64;
        if !is_gzip(more) {
            return Err(trailing_data(more.len(), at, self.format));
        }
        // Offsets in `after` count from the first trailer: shift them to the stream's.
        gunzip_members(&after, TRAILER_LEN, self.out, self.cap, self.format).map_err(|mut e| {
            if let Place::Byte(b) = &mut e.place {
                *b += self.trailer_at as u64;
            }
            e
        })
    }

    /// The end of a windowed stream: the length and CRC-32 of its output, its trailer checked
    /// as [`Self::finish`] checks it. `Ok(None)` when more follows the first member (further
    /// members, or data that is not one): [`Self::finish`] of a stream that keeps its output
    /// tells which.
    pub fn finish_windowed(mut self) -> Result<Option<Inflated>, ReadError> {
        let after = self.end()?;
        Ok((after.len() == TRAILER_LEN).then_some((self.inflated(), self.crc)))
    }

    /// The bytes after the first member's DEFLATE data, its trailer checked: the first
    /// error of the stream, or a truncation when the data did not end.
    fn end(&mut self) -> Result<Vec<u8>, ReadError> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let Some(after) = self.after.take() else {
            let place = Place::Byte(self.body_start as u64);
            let message = InflateError::Truncated.message(self.cap);
            return Err(ReadError::new(self.format, place, message));
        };
        let (crc, len, origin) = (self.crc, self.inflated(), self.trailer_at as u64);
        check_trailer_of(&after, 0, crc, len, self.format, origin)?;
        Ok(after)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::gzip::{gunzip_capped, gzip};

    /// Feeds `gz` in pieces of `size` bytes (the first `head` bytes at once).
    fn streamed(gz: &[u8], head: usize, size: usize, cap: usize) -> Result<Vec<u8>, ReadError> {
        let head = head.min(gz.len());
        let isize = gz
            .len()
            .checked_sub(4)
            .map(|at| u32::from_le_bytes(gz[at..].try_into().unwrap()));
        let ignore = &mut |_: &[u8], _: usize| {};
        let mut s = GunzipStream::start(&gz[..head], gz.len(), isize, cap, "gzip", ignore).unwrap();
        for piece in gz[head..].chunks(size) {
            s.feed(piece, ignore);
        }
        s.finish()
    }

    fn sample() -> Vec<u8> {
        (0..200_000u32)
            .flat_map(|i| format!("line {} {}\n", i % 977, i * 7919 % 13).into_bytes())
            .collect()
    }

    #[test]
    fn chunked_inflate_equals_the_whole() {
        let data = sample();
        let gz = gzip(&data);
        for size in [1, 7, 4096, 65536, 1 << 20] {
            let out = streamed(&gz, 32, size, usize::MAX).unwrap();
            assert_eq!(out, data, "piece size {size}");
        }
    }

    #[test]
    fn the_observer_sees_each_piece_while_it_is_the_end_of_the_output() {
        let data = sample();
        assert!(data.len() > 4 * PIECE, "{}", data.len());
        let gz = gzip(&data);
        let isize = u32::from_le_bytes(gz[gz.len() - 4..].try_into().unwrap());
        let mut seen = vec![0];
        let mut observe = |out: &[u8], start: usize| {
            assert_eq!((out, start), (&data[..out.len()], 0));
            seen.push(out.len());
        };
        let mut s = GunzipStream::start(
            &gz[..64],
            gz.len(),
            Some(isize),
            usize::MAX,
            "gzip",
            &mut observe,
        )
        .unwrap();
        for piece in gz[64..].chunks(1 << 20) {
            s.feed(piece, &mut observe);
        }
        assert_eq!(s.finish().unwrap(), data);
        assert_eq!(seen.last(), Some(&data.len()));
        // At most a piece a call: the input's one chunk gave several calls.
        assert!(
            seen.windows(2)
                .all(|w| w[0] <= w[1] && w[1] - w[0] <= PIECE),
            "{seen:?}"
        );
        assert!(seen.len() > data.len() / PIECE, "{seen:?}");
    }

    #[test]
    fn several_members_and_errors_as_gunzip_capped() {
        let data = sample();
        let mut two = gzip(&data[..1000]);
        two.extend(gzip(&data[1000..]));
        assert_eq!(streamed(&two, 64, 333, usize::MAX).unwrap(), data);
        let gz = gzip(&data);
        let cut = &gz[..gz.len() - 3];
        let want = gunzip_capped(cut, usize::MAX, "gzip")
            .unwrap_err()
            .to_string();
        let got = streamed(cut, 64, 4096, usize::MAX).unwrap_err().to_string();
        assert!(got.contains("truncated"), "{got} / {want}");
        let mut bad = gz.clone();
        let n = bad.len();
        bad[n - 6] ^= 1;
        let got = streamed(&bad, 64, 4096, usize::MAX)
            .unwrap_err()
            .to_string();
        assert_eq!(
            got,
            gunzip_capped(&bad, usize::MAX, "gzip")
                .unwrap_err()
                .to_string()
        );
        let mut junk = gz.clone();
        junk.extend_from_slice(b"junk!");
        let got = streamed(&junk, 64, 4096, usize::MAX)
            .unwrap_err()
            .to_string();
        assert_eq!(
            got,
            gunzip_capped(&junk, usize::MAX, "gzip")
                .unwrap_err()
                .to_string()
        );
        let mut bad_second = gzip(&data[..1000]);
        let first_len = bad_second.len();
        bad_second.extend(gzip(&data[1000..]));
        bad_second[first_len + 20] ^= 0xff;
        let got = streamed(&bad_second, 64, 4096, usize::MAX)
            .unwrap_err()
            .to_string();
        assert_eq!(
            got,
            gunzip_capped(&bad_second, usize::MAX, "gzip")
                .unwrap_err()
                .to_string()
        );
        let over = streamed(&gz, 64, 4096, 1000).unwrap_err().to_string();
        assert_eq!(
            over,
            gunzip_capped(&gz, 1000, "gzip").unwrap_err().to_string()
        );
    }

    /// `gz` fed in pieces of `size` to a windowed stream: what the observer saw, joined, and
    /// the stream's end.
    fn windowed(
        gz: &[u8],
        size: usize,
        cap: usize,
    ) -> (Vec<u8>, Result<Option<Inflated>, ReadError>) {
        let mut seen = Vec::new();
        let mut observe = |piece: &[u8], start: usize| {
            assert_eq!(start, seen.len(), "pieces in order, none skipped");
            assert!(piece.len() <= PIECE);
            seen.extend_from_slice(piece);
        };
        let head = 64.min(gz.len());
        let mut s = GunzipStream::start_windowed(&gz[..head], cap, "gzip", &mut observe).unwrap();
        for piece in gz[head..].chunks(size) {
            s.feed(piece, &mut observe);
        }
        assert!(
            s.out.len() <= PIECE,
            "the windowed stream held {} bytes",
            s.out.len()
        );
        let end = s.finish_windowed();
        (seen, end)
    }

    #[test]
    fn a_windowed_stream_shows_each_piece_once_and_checks_the_trailer() {
        let data = sample();
        assert!(data.len() > 4 * PIECE, "{}", data.len());
        let gz = gzip(&data);
        let crc = crate::formats::gzip::crc32(&data);
        for size in [7, 4096, 1 << 20] {
            let (seen, end) = windowed(&gz, size, usize::MAX);
            assert!(seen == data, "pieces of {size}");
            assert_eq!(end.unwrap(), Some((data.len(), crc)));
        }
        // Another member after the first: not told by a windowed stream.
        let mut two = gzip(&data[..1000]);
        two.extend(gzip(&data[1000..]));
        assert_eq!(windowed(&two, 333, usize::MAX).1.unwrap(), None);
        // A corrupt trailer, a cut stream and the cap fail as `finish` fails.
        let whole = |gz: &[u8], cap: usize| streamed(gz, 64, 4096, cap).unwrap_err().to_string();
        let mut bad = gz.clone();
        let n = bad.len();
        bad[n - 6] ^= 1;
        assert_eq!(
            windowed(&bad, 4096, usize::MAX).1.unwrap_err().to_string(),
            whole(&bad, usize::MAX)
        );
        let cut = &gz[..gz.len() - 3];
        assert_eq!(
            windowed(cut, 4096, usize::MAX).1.unwrap_err().to_string(),
            whole(cut, usize::MAX)
        );
        let over = windowed(&gz, 4096, 3 * PIECE).1.unwrap_err().to_string();
        assert_eq!(over, whole(&gz, 3 * PIECE));
    }
}
