//! Reading one input fed chunk by chunk (the viewer's files as `File.stream()` gives them),
//! so that it is never held twice: the first MiB decides how the rest is taken.
//!
//! - gzip: inflated as it arrives ([`GunzipStream`]) into one buffer sized from the trailer;
//!   the compressed bytes are dropped chunk by chunk. Read by the format a detector claims
//!   for the compressed bytes, else the one claiming the inflated bytes, as [`read_any`]. For
//!   pprof, its pass 1 ([`PassOne`]) runs over each inflated piece while it is in cache.
//! - a gzipped pprof profile of [`StreamRead::read_twice_from`] bytes or more, when the caller
//!   can feed the input a second time (the viewer, from the `File`): not held inflated at
//!   all, but read twice ([`FirstRead`], [`SecondRead`]): pass 1 over the pieces as they are
//!   inflated, then, once [`StreamRead::wants_again`] says so, the samples as the input is
//!   fed and inflated again.
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
use super::pprof::{self, FirstRead, PassOne, SecondRead, SteppedRead};
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
    /// A pprof profile's first read of two: inflated piece by piece, none kept.
    Scan {
        stream: GunzipStream,
        first: Box<FirstRead>,
    },
    /// A pprof profile's second read, its first MiB gathered (as the first read's was) so that
    /// the gzip header is whole.
    Again(Vec<u8>, Box<SecondRead>),
    /// A pprof profile's second read: its samples read as it is inflated again.
    Rescan {
        stream: GunzipStream,
        second: Box<SecondRead>,
    },
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
    /// Inputs of this many bytes or more are read twice (see the module doc); `usize::MAX`:
    /// none is.
    twice_from: usize,
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
            twice_from: usize::MAX,
        }
    }

    /// Reads a gzipped pprof input of `bytes` or more twice rather than holding it inflated:
    /// the caller feeds it again when [`Self::wants_again`] says so.
    pub fn read_twice_from(mut self, bytes: usize) -> Self {
        self.twice_from = bytes;
        self
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
            Stage::Scan { stream, first } => stream.feed(chunk, &mut |p, at| first.take(p, at)),
            Stage::Again(head, _) => {
                head.extend_from_slice(chunk);
                if head.len() >= HEAD_BYTES {
                    let again = std::mem::replace(&mut self.stage, Stage::Head(Vec::new()));
                    self.stage = self.rescan(again);
                }
            }
            Stage::Rescan { stream, second } => stream.feed(chunk, &mut |p, at| second.take(p, at)),
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
    /// "failed", "again" (fed a second time), then, once stepping began, "steps" (a pprof
    /// profile) or "done".
    pub fn mode(&self) -> &'static str {
        match self.stage {
            Stage::Head(_) => "pending",
            Stage::Whole(_) => "whole",
            Stage::Gunzip { .. } | Stage::Scan { .. } => "gunzip",
            Stage::Again(..) | Stage::Rescan { .. } => "again",
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
            if claimed == Some(Format::Pprof) && self.total >= self.twice_from {
                let mut first = Box::<FirstRead>::default();
                let take = &mut |p: &[u8], at| first.take(p, at);
                if let Some(stream) = GunzipStream::start_windowed(&head, cap, name, take) {
                    return Stage::Scan { stream, first };
                }
            }
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

    /// Once every byte has been fed: true when the input must now be fed again, from its
    /// first byte (then stepped as usual). A first read of two (see the module doc) ends here;
    /// when it was not plain, the second read is an ordinary one of the whole input.
    pub fn wants_again(&mut self) -> bool {
        self.decide();
        match std::mem::replace(&mut self.stage, Stage::Head(Vec::new())) {
            Stage::Scan { stream, first } => {
                let inflated = stream.finish_windowed().ok().flatten();
                self.fed = 0;
                self.stage = match first.plan(inflated, &self.options) {
                    Some(Ok(second)) => Stage::Again(Vec::new(), Box::new(second)),
                    Some(Err(e)) => Stage::Failed(e),
                    None => {
                        self.twice_from = usize::MAX;
                        Stage::Head(Vec::with_capacity(self.total.min(HEAD_BYTES)))
                    }
                };
                !matches!(self.stage, Stage::Failed(_))
            }
            stage => {
                let again = matches!(stage, Stage::Again(ref head, _) if head.is_empty());
                self.stage = stage;
                again
            }
        }
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
            second @ (Stage::Again(..) | Stage::Rescan { .. }) => {
                return Stage::Done(Box::new(self.read(second)))
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
            Stage::Rescan { second, .. } => Some((second.samples_read(), second.num_samples())),
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
            Stage::Scan { .. } => Err(ReadError::whole(
                pprof::FORMAT,
                "the input was read once, but it is read twice: feed it again",
            )),
            again @ Stage::Again(..) => self.read(self.rescan(again)),
            Stage::Rescan { stream, second } => second.finish(stream.finish_windowed()),
        }
    }

    /// The second read of `stage` (`Again`) started on the bytes gathered: its gzip stream
    /// begun (the read fails as [`pprof::changed`] when its header no longer
    /// parses). Any other stage is returned as it is.
    fn rescan(&self, stage: Stage) -> Stage {
        let Stage::Again(head, mut second) = stage else {
            return stage;
        };
        let cap = self.options.limits.decompressed_cap(self.total);
        let take = &mut |p: &[u8], at| second.take(p, at);
        match GunzipStream::start_windowed(&head, cap, pprof::FORMAT, take) {
            Some(stream) => Stage::Rescan { stream, second },
            None => Stage::Failed(pprof::changed()),
        }
    }
}

/// The observer of a gzip stream's output: pass 1 of a pprof profile, run over each inflated
/// piece (`ahead`); nothing for other formats.
fn run_ahead(ahead: &mut Option<Box<PassOne>>) -> impl FnMut(&[u8], usize) + '_ {
    move |out, _| {
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
#[path = "stream_tests.rs"]
mod tests;
