//! The reader in steps, for a caller that must return between them (the viewer's worker): pass
//! 1 and the steps before the samples at [`SteppedRead::start`], then the samples a budget at a
//! time ([`SteppedRead::step`]), then the rest at [`SteppedRead::finish`]. It owns the input,
//! so it holds byte offsets into it and its string table as owned text, never borrows.
//!
//! Invariant: any sequence of steps gives what [`super::read`] gives on the same bytes (the same
//! profile, warnings and errors).

use std::borrow::Cow;

use super::{before_samples, PassOne, Reader, SamplePosition, TopLevel};
use crate::formats::{Parsed, ReadError, ReadOptions};

/// A pprof profile being read in steps: see the module doc.
pub struct SteppedRead {
    /// The raw (inflated) `Profile` message.
    data: Vec<u8>,
    top: TopLevel,
    reader: Reader<'static>,
    at: SamplePosition,
    /// Every sample has been read.
    done: bool,
}

impl SteppedRead {
    /// Starts reading `data`, a raw (not gzipped) pprof `Profile`: pass 1 and everything
    /// before the samples.
    pub fn start(data: Vec<u8>, options: &ReadOptions) -> Result<Self, ReadError> {
        Self::start_after(data, PassOne::default(), options)
    }

    /// As [`Self::start`], where `ahead` ran pass 1 over prefixes of `data` as it arrived.
    pub fn start_after(
        data: Vec<u8>,
        ahead: PassOne,
        options: &ReadOptions,
    ) -> Result<Self, ReadError> {
        let own = |s: Cow<'_, str>| Cow::Owned(s.into_owned());
        let (top, reader) = before_samples(&data, ahead, options, own)?;
        Ok(SteppedRead {
            data,
            top,
            reader,
            at: SamplePosition::default(),
            done: false,
        })
    }

    /// Reads the next `budget` samples (at least one). True when every sample has been read.
    /// After an error the read is over: call nothing but drop.
    pub fn step(&mut self, budget: usize) -> Result<bool, ReadError> {
        if !self.done {
            self.done = self.reader.samples(&self.data, &mut self.at, budget)?;
        }
        Ok(self.done)
    }

    /// Samples read so far.
    pub fn samples_read(&self) -> usize {
        self.at.samples_read()
    }

    /// Samples in the profile (counted by pass 1).
    pub fn num_samples(&self) -> usize {
        self.top.num_samples
    }

    /// Reads the samples left, frees the input, and builds the profile.
    pub fn finish(mut self) -> Result<Parsed, ReadError> {
        self.step(usize::MAX)?;
        let SteppedRead {
            data, top, reader, ..
        } = self;
        drop(data);
        reader.after_samples(&top)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::stream::comparable;
    use crate::formats::{collapsed, pprof, WriteOptions};

    /// What a read gave, as text: the format, the profile and the warnings, or the error.
    fn show(result: Result<Parsed, ReadError>) -> String {
        match result {
            Ok(p) => format!("{:?} {} {:?}", p.format, comparable(&p.profile), p.warnings),
            Err(e) => e.to_string(),
        }
    }

    /// `raw` read in steps of `budget` samples, with the progress checked at every step.
    fn stepped(raw: &[u8], budget: usize) -> String {
        let options = ReadOptions::default();
        let mut steps = match SteppedRead::start(raw.to_vec(), &options) {
            Ok(s) => s,
            Err(e) => return e.to_string(),
        };
        let mut calls = 0;
        loop {
            let before = steps.samples_read();
            match steps.step(budget) {
                Ok(true) => break,
                Ok(false) => {
                    assert_eq!(steps.samples_read(), before + budget.max(1));
                    calls += 1;
                }
                Err(e) => return e.to_string(),
            }
        }
        assert_eq!(steps.samples_read(), steps.num_samples());
        assert!(calls >= (steps.num_samples() / budget.max(1)).saturating_sub(1));
        show(steps.finish())
    }

    #[test]
    fn corpus_files_read_in_steps_as_whole() {
        let mut read = 0;
        for (path, raw) in crate::formats::test_corpus::raw_pprof() {
            let whole = show(pprof::read(&raw, &ReadOptions::default()));
            for budget in [0, 1, 3, 1000] {
                assert_eq!(
                    stepped(&raw, budget),
                    whole,
                    "{} in steps of {budget}",
                    path.display()
                );
            }
            read += 1;
        }
        assert!(read >= 10, "only {read} corpus files");
    }

    /// A pprof profile of many samples with shared and distinct stacks, and one of its
    /// samples with labels: written by proftab from folded stacks.
    fn synthetic() -> Vec<u8> {
        let mut x = 7u64;
        let text: String = (0..5000u32)
            .map(|i| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                format!(
                    "main;f{};g{};h{} {}\n",
                    i % 17,
                    (x >> 33) % 211,
                    i % 5,
                    1 + i % 9
                )
            })
            .collect();
        let parsed = collapsed::read(text.as_bytes(), &ReadOptions::default()).unwrap();
        pprof::write_uncompressed(&parsed.profile, &WriteOptions::default())
            .unwrap()
            .bytes
    }

    #[test]
    fn a_synthetic_profile_reads_in_tiny_steps_as_whole() {
        let raw = synthetic();
        let whole = show(pprof::read(&raw, &ReadOptions::default()));
        assert!(whole.starts_with("Pprof"), "{whole}");
        for budget in [1, 2, 7, 64, 4999, 5000, 5001] {
            assert_eq!(stepped(&raw, budget), whole, "steps of {budget}");
        }
    }

    #[test]
    fn a_bad_sample_fails_the_step_that_reads_it_with_the_whole_reads_error() {
        let mut raw = synthetic();
        // A location id no location has, in the last sample: every step before it succeeds.
        let options = ReadOptions::default();
        let whole = pprof::read(&raw, &options).unwrap();
        let n = whole.profile.num_samples();
        let last = last_sample_location(&raw);
        raw[last] = 0; // location id 0: never defined
        let want = show(pprof::read(&raw, &options));
        assert!(want.contains("location id 0 is not defined"), "{want}");
        let mut steps = SteppedRead::start(raw, &options).unwrap();
        assert_eq!(steps.step(n - 1).ok(), Some(false));
        let got = steps.step(1).map(|_| ()).unwrap_err().to_string();
        assert_eq!(got, want);
    }

    /// The offset of the first location-id byte of the last sample of `raw`.
    fn last_sample_location(raw: &[u8]) -> usize {
        use crate::formats::protowire::{Fields, Value};
        let mut last = None;
        for f in Fields::new(raw, 0).flatten() {
            if let (2, Value::Len(payload, off)) = (f.number, f.value) {
                last = Some((payload, off));
            }
        }
        let (payload, off) = last.unwrap();
        // Sample.location_id (field 1) is packed: key 0x0a, length, then the varints.
        assert_eq!(payload[0], 0x0a);
        off + 2
    }
}
