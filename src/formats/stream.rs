//! Reading one input fed chunk by chunk (the viewer's files as `File.stream()` gives them),
//! so that it is never held twice: the first MiB decides how the rest is taken.
//!
//! - gzip: inflated as it arrives ([`GunzipStream`]) into one buffer sized from the trailer;
//!   the compressed bytes are dropped chunk by chunk. Read by the format a detector claims
//!   for the compressed bytes, else the one claiming the inflated bytes, as [`read_any`]. For
//!   pprof, its pass 1 ([`PassOne`]) runs over each inflated piece while it is in cache.
//! - folded stacks (UTF-8, not differential): each complete line read at once
//!   ([`LineStream`]); the text is never held.
//! - anything else: the bytes gathered into one buffer of the size announced, then
//!   [`read_any`].
//!
//! Invariant: [`StreamRead::finish`] gives what `read_any` gives on the concatenated chunks
//! (the same profile and warnings; the same errors, except that a corrupt gzip stream no
//! detector recognizes reports the decoder's error rather than "unrecognized format").

use super::collapsed::stream::{streamable, LineStream};
use super::error::ReadError;
use super::gzip::{gunzip_prefix, is_gzip};
use super::gzip_stream::GunzipStream;
use super::pprof::{PassOne, SteppedRead};
use super::registry::{
    detect_decompressed, read_decompressed, unrecognized, SNIFF_DECOMPRESSED_BYTES,
};
use super::{detect, read_any, Format, Parsed, ReadOptions};

/// Bytes gathered before deciding how the input is read: every detector looks at a prefix of
/// at most 64 KiB, so this is as good as the whole for detection.
const HEAD_BYTES: usize = SNIFF_DECOMPRESSED_BYTES;

/// What errors call gzip input, as the registry's table of compressions does.
const GZIP_DATA: &str = "gzip-compressed data";

/// How the rest of the input is taken.
enum Stage {
    /// Not decided yet: fewer than [`HEAD_BYTES`] bytes fed.
    Head(Vec<u8>),
    /// Gathered whole, read at the end.
    Whole(Vec<u8>),
    /// Inflated as it arrives; `claimed`: the format a detector claimed the gzip bytes for;
    /// `ahead`: for pprof, its pass 1 run over the output as it is inflated.
    Gunzip {
        stream: GunzipStream,
        claimed: Option<Format>,
        ahead: Option<Box<PassOne>>,
    },
    /// Folded stacks, read line by line.
    Lines(Box<LineStream>),
    /// A line failed to read: the error `finish` returns.
    Failed(ReadError),
    /// A pprof profile, every byte fed, its samples being read in steps.
    Steps(Box<SteppedRead>),
    /// Inflated whole, to be read whole (gzip inside gzip); `claimed` as in `Gunzip`.
    Inflated(Vec<u8>, Option<Format>),
    /// Read whole at the first step (any other format): what `finish` returns.
    Done(Box<Result<Parsed, ReadError>>),
}

/// One input read as it arrives: [`StreamRead::feed`] the chunks in order, then
/// [`StreamRead::finish`].
pub struct StreamRead {
    options: ReadOptions,
    /// The input's size in bytes, as announced (sizes the buffers; not trusted for anything else).
    total: usize,
    /// The input's last four bytes, little-endian: a gzip stream's ISIZE.
    tail: Option<u32>,
    fed: u64,
    stage: Stage,
}

impl StreamRead {
    /// A reader of an input of `total` bytes whose last four bytes are `tail` (when known).
    pub fn new(options: ReadOptions, total: usize, tail: Option<u32>) -> Self {
        StreamRead {
            options,
            total,
            tail,
            fed: 0,
            stage: Stage::Head(Vec::with_capacity(total.min(HEAD_BYTES))),
        }
    }

    /// Takes the next `chunk` of the input.
    pub fn feed(&mut self, chunk: &[u8]) {
        self.fed += chunk.len() as u64;
        match &mut self.stage {
            Stage::Head(head) => {
                head.extend_from_slice(chunk);
                if head.len() >= HEAD_BYTES {
                    self.decide();
                }
            }
            Stage::Whole(all) => all.extend_from_slice(chunk),
            Stage::Gunzip { stream, ahead, .. } => stream.feed(chunk, &mut run_ahead(ahead)),
            Stage::Lines(lines) => {
                if let Err(e) = lines.feed(chunk) {
                    self.stage = Stage::Failed(e);
                }
            }
            Stage::Failed(_) | Stage::Inflated(..) | Stage::Steps(_) | Stage::Done(_) => {}
        }
    }

    /// Bytes fed so far.
    pub fn fed(&self) -> u64 {
        self.fed
    }

    /// How the input is being read: "pending" (first MiB), "whole", "gunzip", "lines",
    /// "failed", then, once stepping began, "steps" (a pprof profile) or "done".
    pub fn mode(&self) -> &'static str {
        match self.stage {
            Stage::Head(_) => "pending",
            Stage::Whole(_) => "whole",
            Stage::Gunzip { .. } => "gunzip",
            Stage::Lines(_) => "lines",
            Stage::Failed(_) => "failed",
            Stage::Inflated(..) => "inflated",
            Stage::Steps(_) => "steps",
            Stage::Done(_) => "done",
        }
    }

    /// Chooses the stage from the first bytes (all of them when the input is shorter).
    fn decide(&mut self) {
        if let Stage::Head(head) = &mut self.stage {
            let head = std::mem::take(head);
            self.stage = self.stage_for(head);
        }
    }

    fn stage_for(&self, head: Vec<u8>) -> Stage {
        if is_gzip(&head) {
            let claimed = detect(&head);
            if let Some(refused) = claimed
                .is_none()
                .then(|| self.unclaimed_gzip(&head))
                .flatten()
            {
                return Stage::Failed(refused);
            }
            let name = claimed.map_or("gzip", Format::name);
            let cap = self.options.limits.decompressed_cap(self.total);
            let mut ahead = (claimed == Some(Format::Pprof)).then(Box::<PassOne>::default);
            let mut observe = run_ahead(&mut ahead);
            let started =
                GunzipStream::start(&head, self.total, self.tail, cap, name, &mut observe);
            drop(observe); // its borrow of `ahead` ends here
            if let Some(stream) = started {
                return Stage::Gunzip {
                    stream,
                    claimed,
                    ahead,
                };
            }
        } else if streamable(&head) {
            let mut lines = LineStream::new(&self.options);
            return match lines.feed(&head) {
                Ok(()) => Stage::Lines(Box::new(lines)),
                Err(e) => Stage::Failed(e),
            };
        }
        let mut all = head;
        all.reserve_exact(self.total.saturating_sub(all.len()));
        Stage::Whole(all)
    }

    /// [`read_any`]'s refusal of gzip input whose first decompressed MiB no format claims, when
    /// `head` already holds that MiB: a bomb is refused before it is inflated, with the message
    /// the whole file would get. `None` when a format claims it or `head` inflates to less. The prefix is inflated once.
    fn unclaimed_gzip(&self, head: &[u8]) -> Option<ReadError> {
        let prefix = gunzip_prefix(head, SNIFF_DECOMPRESSED_BYTES)?;
        if prefix.len() < SNIFF_DECOMPRESSED_BYTES || detect_decompressed(&prefix).is_some() {
            return None;
        }
        Some(unrecognized(&prefix, GZIP_DATA))
    }

    /// Reads the next `budget` samples (at least one) once every byte has been fed: no
    /// [`Self::feed`] may follow the first call. A pprof profile is read in steps (pass 1 and
    /// its tables at the first call, then `budget` samples a call); any other input is read
    /// whole at the first call. True when nothing is left but [`Self::finish`], which then
    /// only builds the profile.
    pub fn step(&mut self, budget: usize) -> bool {
        if !matches!(
            self.stage,
            Stage::Steps(_) | Stage::Done(_) | Stage::Failed(_)
        ) {
            self.decide();
            let stage = std::mem::replace(&mut self.stage, Stage::Head(Vec::new()));
            self.stage = self.stepped(stage);
        }
        let Stage::Steps(steps) = &mut self.stage else {
            return true;
        };
        match steps.step(budget) {
            Ok(done) => done,
            Err(e) => {
                self.stage = Stage::Failed(e);
                true
            }
        }
    }

    /// The stage once every byte is fed: a pprof profile started in steps, else read whole.
    fn stepped(&self, stage: Stage) -> Stage {
        let pprof = Some(Format::Pprof);
        let (raw, ahead) = match stage {
            Stage::Gunzip {
                stream,
                claimed,
                ahead,
            } if claimed == pprof => match stream.finish() {
                Ok(inner) if !is_gzip(&inner) => (inner, ahead.map(|a| *a).unwrap_or_default()),
                Ok(inner) => return self.read_whole(Stage::Inflated(inner, claimed)),
                Err(e) => return Stage::Failed(e),
            },
            Stage::Whole(bytes) if !is_gzip(&bytes) && detect(&bytes) == pprof => {
                (bytes, PassOne::default())
            }
            other => return self.read_whole(other),
        };
        match SteppedRead::start_after(raw, ahead, &self.options) {
            Ok(steps) => Stage::Steps(Box::new(steps)),
            Err(e) => Stage::Failed(e),
        }
    }

    /// Samples read and samples in all, for a pprof profile being read in steps.
    pub fn progress(&self) -> Option<(usize, usize)> {
        match &self.stage {
            Stage::Steps(s) => Some((s.samples_read(), s.num_samples())),
            _ => None,
        }
    }

    /// The profile read from everything fed.
    pub fn finish(mut self) -> Result<Parsed, ReadError> {
        self.decide();
        let stage = std::mem::replace(&mut self.stage, Stage::Head(Vec::new()));
        self.read(stage)
    }

    /// What `finish` gives for `stage`, kept for `finish`.
    fn read_whole(&self, stage: Stage) -> Stage {
        Stage::Done(Box::new(self.read(stage)))
    }

    /// The profile of `stage` (the rest of its samples, for a stepped one).
    fn read(&self, stage: Stage) -> Result<Parsed, ReadError> {
        match stage {
            Stage::Head(bytes) | Stage::Whole(bytes) => read_any(&bytes, &self.options),
            Stage::Gunzip {
                stream, claimed, ..
            } => {
                let inner = stream.finish()?;
                read_decompressed(claimed, &inner, GZIP_DATA, &self.options)
            }
            Stage::Inflated(inner, claimed) => {
                read_decompressed(claimed, &inner, GZIP_DATA, &self.options)
            }
            Stage::Lines(lines) => lines.finish(),
            Stage::Failed(e) => Err(e),
            Stage::Steps(steps) => steps.finish(),
            Stage::Done(result) => *result,
        }
    }
}

/// The observer of a gzip stream's output: pass 1 of a pprof profile, run over each inflated
/// piece (`ahead`); nothing for other formats.
fn run_ahead(ahead: &mut Option<Box<PassOne>>) -> impl FnMut(&[u8]) + '_ {
    move |out| {
        if let Some(pass) = ahead {
            pass.advance(out);
        }
    }
}

/// `profile`'s `Debug` text without the string table's lookup map (a hash map, whose order
/// differs between equal tables): what the tests compare two reads by.
#[cfg(test)]
pub(crate) fn comparable(profile: &crate::model::Profile) -> String {
    let text = format!("{profile:?}");
    let Some(start) = text.find("lookup: {") else {
        return text;
    };
    let end = text[start..]
        .find("} }")
        .map_or(text.len(), |e| start + e + 1);
    format!("{}{}", &text[..start], &text[end..])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::gzip::gzip;

    /// `bytes` fed in pieces of `size`; the stage it took and what `finish` gave, beside `read_any`.
    fn both(bytes: &[u8], size: usize) -> (&'static str, String, String) {
        let tail = bytes
            .len()
            .checked_sub(4)
            .map(|at| u32::from_le_bytes(bytes[at..].try_into().unwrap()));
        let options = ReadOptions::default();
        let mut s = StreamRead::new(options.clone(), bytes.len(), tail);
        let mut mode = "pending";
        for piece in bytes.chunks(size) {
            s.feed(piece);
            if mode == "pending" {
                mode = s.mode();
            }
        }
        let show = |r: Result<Parsed, ReadError>| match r {
            Ok(p) => format!("{:?} {} {:?}", p.format, comparable(&p.profile), p.warnings),
            Err(e) => e.to_string(),
        };
        (mode, show(s.finish()), show(read_any(bytes, &options)))
    }

    /// Folded stacks of more than a MiB even gzipped (pseudo-random names).
    fn big_collapsed() -> Vec<u8> {
        collapsed_lines(200_000)
    }

    /// `n` lines of folded stacks with pseudo-random names.
    fn collapsed_lines(n: u32) -> Vec<u8> {
        let mut x = 12345u64;
        (0..n)
            .flat_map(|i| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                format!("main;f{};g{:x};h{} {}\n", i % 31, x >> 40, i % 7, 1 + i % 5).into_bytes()
            })
            .collect()
    }

    #[test]
    fn collapsed_streams_by_line_and_reads_as_whole() {
        let text = big_collapsed();
        assert!(text.len() > HEAD_BYTES);
        let (mode, streamed, whole) = both(&text, 65536);
        assert_eq!(mode, "lines");
        assert_eq!(streamed, whole);
    }

    #[test]
    fn gzip_inflates_as_it_arrives_and_reads_as_whole() {
        let gz = gzip(&big_collapsed());
        let (mode, streamed, whole) = both(&gz, 8192);
        assert!(gz.len() > HEAD_BYTES, "{}", gz.len());
        assert_eq!(mode, "gunzip");
        assert_eq!(streamed, whole);
    }

    #[test]
    fn small_and_other_inputs_read_as_whole() {
        for file in [
            "../shared/corpus/pprof",
            "../shared/corpus/collapsed",
            "../shared/corpus/rprof",
        ] {
            let Ok(dir) = std::fs::read_dir(file) else {
                continue;
            };
            for entry in dir.flatten().take(8) {
                let bytes = std::fs::read(entry.path()).unwrap();
                let (_, streamed, whole) = both(&bytes, 4096);
                assert_eq!(streamed, whole, "{}", entry.path().display());
            }
        }
        let (_, streamed, whole) = both(b"", 10);
        assert_eq!(streamed, whole);
        let (_, streamed, whole) = both(b"not a profile at all", 3);
        assert_eq!(streamed, whole);
    }

    /// `bytes` fed in pieces of `size`, then read in steps of `budget` samples: the stage
    /// stepping took, the number of steps, and what `finish` gave, beside `read_any`.
    fn stepped(bytes: &[u8], size: usize, budget: usize) -> (&'static str, usize, String, String) {
        let options = ReadOptions::default();
        let tail = bytes
            .len()
            .checked_sub(4)
            .map(|at| u32::from_le_bytes(bytes[at..].try_into().unwrap()));
        let mut s = StreamRead::new(options.clone(), bytes.len(), tail);
        for piece in bytes.chunks(size) {
            s.feed(piece);
        }
        let mut steps = 1;
        while !s.step(budget) {
            let (read, all) = s.progress().expect("stepping");
            assert!(read <= all && read == steps * budget, "{read} of {all}");
            steps += 1;
        }
        let mode = s.mode();
        let show = |r: Result<Parsed, ReadError>| match r {
            Ok(p) => format!("{:?} {} {:?}", p.format, comparable(&p.profile), p.warnings),
            Err(e) => e.to_string(),
        };
        (
            mode,
            steps,
            show(s.finish()),
            show(read_any(bytes, &options)),
        )
    }

    #[test]
    fn pprof_reads_in_steps_as_whole_and_other_formats_in_one_step() {
        let Ok(dir) = std::fs::read_dir("../shared/corpus/pprof") else {
            return;
        };
        for entry in dir.flatten() {
            let bytes = std::fs::read(entry.path()).unwrap();
            let (mode, _, streamed, whole) = stepped(&bytes, 4096, 2);
            assert_eq!(streamed, whole, "{}", entry.path().display());
            if whole.starts_with("Pprof") {
                assert_eq!(mode, "steps", "{}", entry.path().display());
            }
        }
        let (mode, steps, streamed, whole) = stepped(&gzip(&big_collapsed()), 8192, 10);
        assert_eq!((mode, steps), ("done", 1));
        assert_eq!(streamed, whole);
    }

    #[test]
    fn a_big_gzip_pprof_inflates_as_it_arrives_then_reads_in_steps() {
        let text = big_collapsed();
        let profile = crate::formats::collapsed::read(&text, &ReadOptions::default()).unwrap();
        let gz = crate::formats::pprof::write(&profile.profile, &Default::default())
            .unwrap()
            .bytes;
        assert!(gz.len() > HEAD_BYTES, "{}", gz.len());
        let (mode, steps, streamed, whole) = stepped(&gz, 65536, 30_000);
        assert_eq!(mode, "steps");
        assert!(steps >= 200_000 / 30_000, "{steps}");
        assert_eq!(streamed, whole);
    }

    #[test]
    fn a_gzip_bomb_is_refused_on_its_first_mib_with_read_anys_message() {
        // Five gzip members of 256 MiB of zeros each: 1.25 GiB in 1.2 MiB, so the stage is
        // decided on the first MiB fed, long before the end.
        let member = gzip(&vec![0u8; 256 << 20]);
        let bomb = member.repeat(5);
        assert!(bomb.len() > HEAD_BYTES, "{}", bomb.len());
        let (mode, streamed, whole) = both(&bomb, 65536);
        assert_eq!(mode, "failed");
        assert_eq!(streamed, whole);
        assert!(whole.contains("unrecognized format"), "{whole}");
    }

    /// xorshift64: deterministic test input.
    fn next(x: &mut u64) -> u64 {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        *x
    }

    /// `data` as a gzip stream of stored (uncompressed) blocks: as large as `data`, and quick
    /// to make and to inflate in a debug build.
    fn stored_gzip(data: &[u8]) -> Vec<u8> {
        let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
        out.extend(miniz_oxide::deflate::compress_to_vec(data, 0));
        out.extend(crate::formats::gzip::crc32(data).to_le_bytes());
        out.extend((data.len() as u32).to_le_bytes());
        out
    }

    /// `raw` damaged one of three ways, chosen by `x`: a few bytes flipped, cut short, or a
    /// run of bytes overwritten.
    fn damaged(raw: &[u8], x: &mut u64) -> Vec<u8> {
        let mut out = raw.to_vec();
        let at = |x: &mut u64| next(x) as usize % raw.len();
        match next(x) % 3 {
            0 => {
                for _ in 0..1 + next(x) % 3 {
                    let i = at(x);
                    out[i] ^= 1 << (next(x) % 8);
                }
            }
            1 => out.truncate(at(x)),
            _ => {
                let start = at(x);
                let end = (start + 1 + next(x) as usize % 64).min(out.len());
                for b in &mut out[start..end] {
                    *b = next(x) as u8;
                }
            }
        }
        out
    }

    /// Damaged pprof messages fed raw and gzipped (both past the first MiB, so that the
    /// stage is chosen before the end, and the gzip inflated and pass 1 run piece by piece) in
    /// pieces and steps of varied sizes: each gives the profile and warnings, or the error,
    /// that `read_any` gives (the invariant of the module doc; the gzip streams are sound,
    /// so its exception does not apply), and the error names pprof.
    #[test]
    fn damaged_pprof_streams_as_it_reads_whole() {
        let text = collapsed_lines(32_000);
        let profile = crate::formats::collapsed::read(&text, &ReadOptions::default()).unwrap();
        let raw = crate::formats::pprof::write_uncompressed(&profile.profile, &Default::default())
            .unwrap()
            .bytes;
        assert!(raw.len() > HEAD_BYTES, "{}", raw.len());
        let mut x = 0x5eed_1234_abcd_ef01_u64;
        let mut errors = 0;
        for round in 0..12 {
            let bad = damaged(&raw, &mut x);
            let size = [1000, 7919, 65536, 100_003][round % 4];
            let budget = 1 + next(&mut x) as usize % 5000;
            for input in [stored_gzip(&bad), bad.clone()] {
                let (_, _, streamed, whole) = stepped(&input, size, budget);
                assert_eq!(streamed, whole, "round {round}, {} bytes", input.len());
                // Damaged raw messages too are named: read as pprof, not "unrecognized".
                assert!(
                    whole.starts_with("Pprof") || whole.starts_with("pprof: "),
                    "round {round}: {whole}"
                );
                errors += usize::from(whole.starts_with("pprof: "));
            }
        }
        assert!(errors >= 12, "{errors} errors");
    }
}
