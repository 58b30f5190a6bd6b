//! The viewer's reading step: the files of one load read one by one, those that fail set
//! aside with the reader's message, the others combined into one profile ([`LoadedFiles`],
//! then `Viewer.analyse`). A bad file among good ones never stops the good ones: the load
//! fails only when no file could be read.

use js_sys::{Array, Object, Uint8Array};
use wasm_bindgen::prelude::*;

use crate::formats::error::ReadError;
use crate::formats::perf_data::binaries::{read_with_files, symbolize_with_files};
use crate::formats::perf_data::symbolize::Report;
use crate::formats::pprof::prune::{pruned, Expressions};
use crate::formats::{Parsed, ReadOptions};
use crate::model::Profile;
use crate::wasm_symbols::Symbols;
use crate::wasm_view::set;

/// A file of a load that could not be read: its name and the reader's message (format, place
/// and problem).
struct Failure {
    /// The file's index among the files given.
    index: u32,
    name: String,
    message: String,
}

/// What reading the files of one load gave: the profiles read (with their names, in the
/// order given), their formats and warnings, and the files that failed.
#[derive(Default)]
struct Read {
    profiles: Vec<Profile>,
    labels: Vec<String>,
    formats: Vec<String>,
    warnings: Vec<String>,
    failed: Vec<Failure>,
}

/// One file's reading: its index among the files given, its label and what its reader gave.
pub(crate) type FileRead = (u32, String, Result<Parsed, ReadError>);

/// A file's reading with what the binaries did to it (a perf.data's symbols and unwinding).
type SymbolisedRead = (u32, String, Result<(Parsed, Option<Report>), ReadError>);

/// Reads every file, each with its file name as `source_uri`; a file that fails is kept in
/// `failed` and the others are still read. One file's bytes are in wasm memory at a time.
fn read_each(
    files: &Array,
    names: &Array,
    symbols: &mut Symbols,
    binaries: &[(String, Vec<u8>)],
) -> Read {
    let results = files.iter().enumerate().map(|(i, file)| {
        let bytes = Uint8Array::new(&file).to_vec();
        let name = names.get(i as u32).as_string();
        let options = ReadOptions {
            source_uri: name.clone(),
            ..ReadOptions::default()
        };
        let label = name.unwrap_or_else(|| format!("file {}", i + 1));
        (i as u32, label, read_with_files(&bytes, &options, binaries))
    });
    gather(results, symbols)
}

/// What the readers gave, in the order given: the profiles (symbolised by the binaries) with
/// their formats and warnings, and the files that failed.
fn gather(results: impl Iterator<Item = SymbolisedRead>, symbols: &mut Symbols) -> Read {
    let mut read = Read::default();
    for (index, label, result) in results {
        match result {
            Ok((parsed, report)) => {
                if let Some(r) = report {
                    symbols.add(r);
                }
                read.formats.push(parsed.format.name().to_owned());
                let warnings = parsed.warnings.iter().map(|w| format!("{label}: {w}"));
                read.warnings.extend(warnings);
                read.profiles.push(parsed.profile);
                read.labels.push(label);
            }
            Err(e) => read.failed.push(Failure {
                index,
                name: label,
                message: e.to_string(),
            }),
        }
    }
    read
}

/// The files read and combined, then pruned as `go tool pprof` does (the stacks the CLI's
/// views show: merged, then pruned once with the first file's drop_frames/keep_frames).
/// Fails with every file's message (`name: message`, one a line) when none could be read.
fn read_files(
    files: &Array,
    names: &Array,
    binaries: &[(String, Vec<u8>)],
) -> Result<LoadedFiles, JsError> {
    let mut symbols = Symbols::new(binaries);
    let read = read_each(files, names, &mut symbols, binaries);
    loaded(read, symbols)
}

/// The profiles of `read` combined and pruned, with what `read` says; fails with every file's
/// message when none could be read.
fn loaded(mut read: Read, symbols: Symbols) -> Result<LoadedFiles, JsError> {
    if read.profiles.is_empty() && !read.failed.is_empty() {
        let lines: Vec<String> = read
            .failed
            .iter()
            .map(|f| format!("{}: {}", f.name, f.message))
            .collect();
        return Err(JsError::new(&lines.join("\n")));
    }
    let expressions = read
        .profiles
        .first()
        .map(Expressions::of)
        .unwrap_or_default();
    let (profile, warning) = pruned(combine(read.profiles)?, &expressions);
    if let (Some(w), Some(first)) = (warning, read.labels.first()) {
        read.warnings.push(format!("{first}: {w}"));
    }
    Ok(LoadedFiles {
        profile,
        formats: read.formats,
        warnings: read.warnings,
        symbols,
        failed: read.failed,
    })
}

fn combine(profiles: Vec<Profile>) -> Result<Profile, JsError> {
    crate::model::combine::combine_owned(profiles)
        .ok_or_else(|| JsError::new("no file given"))?
        .map_err(|e| JsError::new(&e.to_string()))
}

/// Files read and combined into one profile, before any analysis (a separate step so the page
/// can show "parsing" and "analysing" as two phases), and the files that could not be read.
#[wasm_bindgen]
pub struct LoadedFiles {
    profile: Profile,
    formats: Vec<String>,
    warnings: Vec<String>,
    symbols: Symbols,
    failed: Vec<Failure>,
}

impl LoadedFiles {
    /// [`LoadedFiles::read`] with binaries that symbolise the perf.data files.
    pub(crate) fn read_all(
        files: &Array,
        names: &Array,
        binaries: &[(String, Vec<u8>)],
    ) -> Result<LoadedFiles, JsError> {
        read_files(files, names, binaries)
    }

    /// [`LoadedFiles::read_all`] of files already read (by a parse session, `crate::wasm_stream`).
    pub(crate) fn from_reads(
        reads: Vec<FileRead>,
        binaries: &[(String, Vec<u8>)],
    ) -> Result<LoadedFiles, JsError> {
        let mut symbols = Symbols::new(binaries);
        let symbolised = reads.into_iter().map(|(index, label, result)| {
            let result = result.map(|mut parsed| {
                let report = symbolize_with_files(&mut parsed, binaries);
                (parsed, report)
            });
            (index, label, result)
        });
        let read = gather(symbolised, &mut symbols);
        loaded(read, symbols)
    }

    /// The profile, the formats read, the readers' warnings and what the binaries did.
    pub(crate) fn into_parts(self) -> (Profile, Vec<String>, Vec<String>, Symbols) {
        (self.profile, self.formats, self.warnings, self.symbols)
    }
}

#[wasm_bindgen]
impl LoadedFiles {
    /// Reads `files` (an array of `Uint8Array`) named `names` (one source each) and combines
    /// those that could be read (see `failed`). Fails with the readers' messages, each naming
    /// its file, when none could be read.
    pub fn read(files: &Array, names: &Array) -> Result<LoadedFiles, JsError> {
        Self::read_all(files, names, &[])
    }

    /// The files that could not be read, `[{index, name, message}]` in the order given
    /// (`index` among the files given; the message names the format, the place and the
    /// problem).
    pub fn failed(&self) -> Array {
        self.failed
            .iter()
            .map(|f| {
                let o = Object::new();
                set(&o, "index", f.index);
                set(&o, "name", f.name.as_str());
                set(&o, "message", f.message.as_str());
                JsValue::from(o)
            })
            .collect()
    }
}
