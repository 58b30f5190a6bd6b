//! A gzipped pprof profile read twice instead of held inflated (the viewer's large files,
//! which it can read again from the `File`): the first read runs pass 1 over the inflated
//! pieces as they come and keeps only what pass 1 takes (the tables and the string table's
//! bytes: about 1.3 MiB of synth-500k's 44 MiB); the second inflates the file again and
//! reads the samples from the pieces the same way. Neither holds more of the inflated input
//! than a piece and the one field cut by its end ([`super::super::windows`]).
//!
//! Invariants: a profile read twice gives what [`super::read`] gives on the same bytes (the
//! same profile, warnings and errors), when the second read's bytes are the first's. When they
//! are not (the file changed in between), the read fails with [`changed`]: the two reads'
//! inflated length and CRC-32 are compared at the end, and a field that pass 1 took whole but
//! the second read finds malformed fails at once. A first read that is not plain (the gzip
//! stream corrupt, or of several members; a field pass 1 could not take) plans nothing: the
//! caller reads the input again whole, for the whole read's error.

use std::borrow::Cow;

use super::super::toplevel::{PassOne, TopLevel};
use super::super::windows::FieldWindows;
use super::{lossy_strings, make_reader_room, Reader, SamplePosition, Window, FORMAT};
use crate::formats::gzip_stream::Inflated;
use crate::formats::{Parsed, ReadError, ReadOptions, Warnings};

/// The first read: pass 1 over the inflated pieces.
pub struct FirstRead {
    pass: PassOne,
    windows: FieldWindows,
}

impl Default for FirstRead {
    fn default() -> Self {
        FirstRead {
            pass: PassOne::windowed(),
            windows: FieldWindows::default(),
        }
    }
}

impl FirstRead {
    /// Takes `piece`, the inflated input from offset `start` on (where the last piece ended).
    pub fn take(&mut self, piece: &[u8], start: usize) {
        let pass = &mut self.pass;
        self.windows
            .push(piece, start, &mut |w, at| pass.advance_window(w, at));
    }

    /// The second read after a first whose inflated input was `inflated` (`None`: the gzip
    /// stream was not plain): the steps before the samples done, or their error; `None` when
    /// the input must be read again whole (see the module doc).
    pub fn plan(
        self,
        inflated: Option<Inflated>,
        options: &ReadOptions,
    ) -> Option<Result<SecondRead, ReadError>> {
        let inflated = inflated.filter(|&(len, _)| len > 0)?;
        let plain = !self.pass.is_broken() && self.windows.carried().is_empty();
        if !plain {
            return None;
        }
        // Nothing is left for the pass (it took every field), so it cannot fail here.
        let top = self.pass.finish_from(&[]).ok()?;
        Some(SecondRead::start(top, inflated, options))
    }
}

/// The second read: the samples of the inflated pieces.
pub struct SecondRead {
    top: TopLevel,
    reader: Reader<'static>,
    at: SamplePosition,
    windows: FieldWindows,
    /// The first read's inflated input.
    inflated: Inflated,
    /// The first error met: the read takes nothing after it.
    error: Option<ReadError>,
}

impl SecondRead {
    /// The steps before the samples (as [`super::before_samples`] takes them, with the string
    /// table's bytes that pass 1 kept).
    fn start(
        mut top: TopLevel,
        inflated: Inflated,
        options: &ReadOptions,
    ) -> Result<SecondRead, ReadError> {
        make_reader_room(&top, inflated.0);
        let bytes = top.string_bytes.take().unwrap_or_default();
        let mut warnings = Warnings::default();
        let strings = lossy_strings(&bytes, &top, &mut warnings)
            .into_iter()
            .map(|s| Cow::Owned(s.into_owned()))
            .collect();
        drop(bytes);
        let reader = Reader::before_samples(&top, strings, warnings, options)?;
        Ok(SecondRead {
            top,
            reader,
            at: SamplePosition::default(),
            windows: FieldWindows::default(),
            inflated,
            error: None,
        })
    }

    /// Reads the samples of `piece`, the inflated input from offset `start` on (where the
    /// last piece ended).
    pub fn take(&mut self, piece: &[u8], start: usize) {
        let SecondRead {
            reader,
            at,
            windows,
            inflated,
            error,
            ..
        } = self;
        windows.push(piece, start, &mut |bytes, start| {
            let end = start.saturating_add(bytes.len());
            if error.is_some() {
                return end;
            }
            let window = Window {
                bytes,
                start,
                input_len: inflated.0,
            };
            match reader.samples_in(window, at, usize::MAX) {
                Ok(_) => at.offset(),
                Err(e) => {
                    *error = Some(e);
                    end
                }
            }
        });
    }

    /// Samples read so far.
    pub fn samples_read(&self) -> usize {
        self.at.samples_read()
    }

    /// Samples in the profile (counted by the first read).
    pub fn num_samples(&self) -> usize {
        self.top.num_samples
    }

    /// The profile, once the second read's gzip stream has ended with `inflated` (as
    /// [`FirstRead::plan`] takes it; an error when the stream failed).
    pub fn finish(
        self,
        inflated: Result<Option<Inflated>, ReadError>,
    ) -> Result<Parsed, ReadError> {
        let same = matches!(inflated, Ok(Some(i)) if i == self.inflated);
        if !same || !self.windows.carried().is_empty() {
            return Err(changed());
        }
        if let Some(e) = self.error {
            return Err(e);
        }
        self.reader.after_samples(&self.top)
    }
}

/// The error of an input read twice whose second read differs from the first.
pub fn changed() -> ReadError {
    ReadError::whole(
        FORMAT,
        "the file changed while it was read (proftab reads a large gzip file twice, and the \
         second read differs from the first); load it again",
    )
}
