//! The viewer's files read as they arrive: the worker gives each file's chunks to a
//! [`ParseSession`] as `File.stream()` yields them, so no file is held in JavaScript and in
//! wasm at once, a gzip file is inflated chunk by chunk (its compressed bytes never whole),
//! and folded stacks are read line by line (their text never whole). Each call does one
//! chunk's work, so the worker reports real progress between calls and a cancel (the page
//! terminates the worker) takes effect at once. A pprof profile, whose samples can only be read
//! once its bytes are all there, is then parsed in steps (`step`), a budget of samples per
//! call, with the samples read as progress. A large gzipped pprof file begun `again` is read
//! twice rather than held inflated: its samples are read as it is fed the second time. See
//! [`crate::formats::stream`].
//!
//! ```js
//! const session = new ParseSession();
//! session.begin(file.name, file.size, lastFourBytes, true); // per file; true: a File
//! for await (const chunk of file.stream()) session.feed(chunk);
//! if (session.wantsAgain()) for await (const chunk of file.stream()) session.feed(chunk);
//! while (!session.step(budget)) report(session.samplesRead(), session.samplesTotal());
//! session.end();
//! const loaded = LoadedFiles.readSession(session, binaries); // consumes the session
//! ```

use wasm_bindgen::prelude::*;

use crate::formats::stream::StreamRead;
use crate::wasm::{read_options, Profile};
use crate::wasm_load::{FileRead, LoadedFiles};
use crate::wasm_symbols::binaries_of;

/// The files of one load, read as they are fed: see the module doc.
#[wasm_bindgen]
#[derive(Default)]
pub struct ParseSession {
    /// The files ended, in order, with what their readers gave.
    done: Vec<FileRead>,
    /// The file being fed: its label and reader.
    current: Option<(String, StreamRead)>,
}

#[wasm_bindgen]
impl ParseSession {
    #[wasm_bindgen(constructor)]
    pub fn new() -> ParseSession {
        ParseSession::default()
    }

    /// Starts the next file, `name` (its `source_uri`), of `size` bytes; `tail`: its last four
    /// bytes as a little-endian number (a gzip file's ISIZE, which sizes the inflated buffer),
    /// when known; `again`: the caller can feed the file a second time (a `File`, not a
    /// download), so a gzipped pprof file of [`READ_TWICE_FROM`] bytes or more is read twice
    /// (see `wantsAgain`). A file still open is ended first.
    pub fn begin(&mut self, name: String, size: f64, tail: Option<u32>, again: Option<bool>) {
        self.end();
        let reader = StreamRead::new(
            read_options(Some(name.clone()), None),
            buffer_size(size),
            tail,
        );
        let reader = match again {
            Some(true) => reader.read_twice_from(READ_TWICE_FROM),
            _ => reader,
        };
        self.current = Some((name, reader));
    }

    /// The next bytes of the file begun. Never fails: a reader's error is kept for `end`.
    pub fn feed(&mut self, chunk: &[u8]) {
        if let Some((_, reader)) = &mut self.current {
            reader.feed(chunk);
        }
    }

    /// Bytes fed to the file begun.
    pub fn fed(&self) -> f64 {
        self.current.as_ref().map_or(0.0, |(_, r)| r.fed() as f64)
    }

    /// Once every byte of the file begun is fed: true when it must be fed again, from its first
    /// byte, before `step` (a file begun `again`, read twice).
    #[wasm_bindgen(js_name = wantsAgain)]
    pub fn wants_again(&mut self) -> bool {
        self.current.as_mut().is_some_and(|(_, r)| r.wants_again())
    }

    /// How the file begun is read: "pending", "whole", "gunzip", "lines", "again" (fed the
    /// second time) or "failed".
    pub fn mode(&self) -> String {
        self.current
            .as_ref()
            .map_or("none", |(_, r)| r.mode())
            .to_owned()
    }

    /// Parses the next `budget` samples (at least one) of the file begun, once all its bytes
    /// are fed (no `feed` may follow): a pprof profile is read in steps, its tables at the
    /// first call and then `budget` samples a call; any other file whole at the first call.
    /// True when only `end` is left. Errors are kept for `end`.
    pub fn step(&mut self, budget: u32) -> bool {
        self.current
            .as_mut()
            .is_none_or(|(_, r)| r.step(budget as usize))
    }

    /// Samples read so far of the file begun, when it is read in steps (else 0).
    #[wasm_bindgen(js_name = samplesRead)]
    pub fn samples_read(&self) -> f64 {
        self.progress().0
    }

    /// Samples in the file begun, when it is read in steps (else 0).
    #[wasm_bindgen(js_name = samplesTotal)]
    pub fn samples_total(&self) -> f64 {
        self.progress().1
    }

    fn progress(&self) -> (f64, f64) {
        self.current
            .as_ref()
            .and_then(|(_, r)| r.progress())
            .map_or((0.0, 0.0), |(read, all)| (read as f64, all as f64))
    }

    /// Ends the file begun: reads what is left of it (all of it, for a format read whole).
    pub fn end(&mut self) {
        if let Some((label, reader)) = self.current.take() {
            let index = self.done.len() as u32;
            self.done.push((index, label, reader.finish()));
        }
    }

    /// Files ended so far.
    pub fn files(&self) -> u32 {
        self.done.len() as u32
    }
}

/// One input read into a [`Profile`] in calls that return, as [`ParseSession`] reads the
/// viewer's files: `Profile.parse` of the npm package feeds its bytes in chunks and steps
/// through the samples, so no wasm call runs the whole parse (V8 runs a long call to its end
/// in the baseline code it started with; tiered-up code is used from the next call on) and
/// the input is never copied into wasm whole. `finish` gives what `Profile.parse` of the
/// whole bytes gives, except the text of some errors (see [`crate::formats::stream`]): the
/// JavaScript caller reads the whole bytes again for the error when `finish` throws.
///
/// ```js
/// const stream = new ProfileStream(fileName, bytes.length, lastFourBytes);
/// for (chunk of chunks) stream.feed(chunk);
/// while (!stream.step(budget)) {}
/// const profile = stream.finish(); // consumes the stream
/// ```
#[wasm_bindgen]
pub struct ProfileStream {
    reader: StreamRead,
}

#[wasm_bindgen]
impl ProfileStream {
    /// A stream of an input of `size` bytes whose last four bytes are `tail` (little-endian;
    /// a gzip file's ISIZE), named `file_name` (its `source_uri`).
    #[wasm_bindgen(constructor)]
    pub fn new(file_name: Option<String>, size: f64, tail: Option<u32>) -> ProfileStream {
        ProfileStream {
            reader: StreamRead::new(read_options(file_name, None), buffer_size(size), tail),
        }
    }

    /// The next bytes of the input. Never fails: a reader's error is kept for `finish`.
    pub fn feed(&mut self, chunk: &[u8]) {
        self.reader.feed(chunk);
    }

    /// Parses the next `budget` samples (at least one) once every byte is fed: see
    /// [`ParseSession::step`]. True when only `finish` is left.
    pub fn step(&mut self, budget: u32) -> bool {
        self.reader.step(budget as usize)
    }

    /// The profile (the rest of it read first). Throws the reader's error.
    pub fn finish(self) -> Result<Profile, JsError> {
        self.reader
            .finish()
            .map(Profile::from_parsed)
            .map_err(|e| JsError::new(&e.to_string()))
    }
}

/// Gzipped pprof files of this many bytes or more, begun `again`, are read twice rather than
/// held inflated: synth-500k's 13.4 MiB inflate to 43.9 MiB, more than its tables take after
/// the parse (34 MiB natively, `examples/pprof_memory`). Smaller files are inflated once (a
/// second inflate costs time, and what they hold inflated is small: synth-100k's 2.9 MiB
/// inflate to 8.7).
pub const READ_TWICE_FROM: usize = 4 << 20;

/// An input's announced size (JavaScript's number) as the size its buffers get: negative and
/// NaN give 0, and a size past usize (4 GiB on wasm32) saturates (`as` does both); it only
/// sizes buffers and is trusted for nothing else.
fn buffer_size(size: f64) -> usize {
    size as usize
}

#[wasm_bindgen]
impl LoadedFiles {
    /// The files of `session` (ended) combined, with `binaries` (`[{name, bytes}]`) for the
    /// symbols of perf.data files; as `LoadedFiles.readWith`. `failed()[i].index` is the
    /// file's position in the session.
    #[wasm_bindgen(js_name = readSession)]
    pub fn read_session(
        mut session: ParseSession,
        binaries: &JsValue,
    ) -> Result<LoadedFiles, JsError> {
        session.end();
        LoadedFiles::from_reads(session.done, &binaries_of(binaries)?)
    }
}
