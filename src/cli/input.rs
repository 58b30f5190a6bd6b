//! Reading the CLI's input files: `-` is standard input, the format is recognised by content,
//! read warnings go to standard error, several inputs can be combined into one profile.
//! Views (`top`, `diff`, `list`) read [`Stacks::AsPprof`]: pprof's drop_frames/keep_frames
//! applied as `go tool pprof` applies them, once after combining, with the expressions of the
//! first input (`diff`: NEW's, see [`pruned_as_pprof`]); `convert` reads [`Stacks::Raw`] so the
//! stacks and expressions round-trip.
//!
//! Invariant: a file is named in messages as given on the command line, standard input as
//! `<stdin>`; a file that cannot be read or parsed is a failure (status 1).

use std::path::Path;
use std::sync::OnceLock;

use crate::formats::pprof::prune::{pruned, pruned_parsed, Expressions};
use crate::formats::{Limits, Parsed, ReadOptions, Warning};
use crate::model::combine::combine_owned;
use crate::model::Profile;

use crate::cli::host;
use crate::cli::output::{say, Failure};

/// The bytes of `path` (`-` for standard input).
pub fn read_bytes(path: &str) -> Result<Vec<u8>, Failure> {
    if path == "-" {
        return host::with(|h| h.read_stdin())
            .map_err(|e| Failure::failed(format!("cannot read standard input: {e}")));
    }
    host::with(|h| h.read(Path::new(path)))
        .map_err(|e| Failure::failed(format!("cannot read {path}: {e}")))
}

/// How a file is named in messages.
pub fn display_name(path: &str) -> &str {
    if path == "-" {
        "<stdin>"
    } else {
        path
    }
}

/// `--max-decompressed`, when given: set once by `main` before the verb runs.
static MAX_DECOMPRESSED: OnceLock<usize> = OnceLock::new();

/// Records `--max-decompressed` for [`read_options`].
pub fn set_max_decompressed(bytes: Option<usize>) {
    if let Some(bytes) = bytes {
        let _ = MAX_DECOMPRESSED.set(bytes);
    }
}

/// The read options for `path`: its name becomes the source URI (none for standard input);
/// `--max-decompressed` replaces the decompression limits.
pub fn read_options(path: &str) -> ReadOptions {
    let mut limits = Limits::default();
    if let Some(&bytes) = MAX_DECOMPRESSED.get() {
        limits.max_decompressed_bytes = bytes;
        limits.max_expansion_ratio = usize::MAX;
    }
    ReadOptions {
        source_uri: (path != "-").then(|| path.to_owned()),
        limits,
    }
}

/// The name of the format `path` was read in: a dataset directory's container
/// (`parquet`, `arrow`), else the format of `parsed`.
pub fn format_name(path: &str, parsed: &Parsed) -> &'static str {
    crate::cli::dataset::container_of(path).map_or(parsed.format.name(), |c| c.name())
}

/// Reads and parses `path` in whatever format its content shows; a directory holding a
/// Parquet or Arrow dataset ([`crate::cli::dataset`]) is read as one profile.
/// perf.data recordings are symbolised ([`crate::cli::symbols`]).
pub fn load(path: &str) -> Result<Parsed, Failure> {
    if let Some(c) = crate::cli::dataset::container_of(path) {
        return crate::cli::dataset::load(path, c);
    }
    let failed = |e| Failure::failed(format!("{}: {e}", display_name(path)));
    if let Some(Ok(mut file)) = (path != "-")
        .then(|| host::with(|h| h.open(Path::new(path))))
        .flatten()
    {
        let read = crate::cli::symbols::read_perf_file(file.as_mut(), &read_options(path));
        if let Some(read) = read {
            return read.map_err(failed);
        }
    }
    let bytes = read_bytes(path)?;
    crate::cli::symbols::read_profile(&bytes, &read_options(path)).map_err(failed)
}

/// The stacks a command works on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stacks {
    /// As the file has them (for writing it again).
    Raw,
    /// As `go tool pprof` sees them: pprof's drop_frames/keep_frames applied (for views).
    AsPprof,
}

/// [`load`], pruned when `stacks` asks for it, then the warnings printed on standard error.
pub fn load_warning(path: &str, stacks: Stacks) -> Result<Parsed, Failure> {
    let mut parsed = load(path)?;
    if stacks == Stacks::AsPprof {
        parsed = pruned_parsed(parsed);
    }
    print_warnings(path, &parsed.warnings);
    Ok(parsed)
}

/// Prints `warning: FILE: …` on standard error for every warning.
pub fn print_warnings(path: &str, warnings: &[Warning]) {
    for w in warnings {
        say(&format!("warning: {}: {w}", display_name(path)));
    }
}

/// Reads every input; several are combined into one profile, then pruned when `stacks` asks
/// for it with the first input's expressions (as `go tool pprof` merges, then prunes).
pub fn load_combined(paths: &[String], stacks: Stacks) -> Result<Profile, Failure> {
    let mut profiles = Vec::with_capacity(paths.len());
    for path in paths {
        profiles.push(load_warning(path, Stacks::Raw)?.profile);
    }
    let first = profiles.first().map(Expressions::of).unwrap_or_default();
    let combined = combine_owned(profiles)
        .ok_or_else(|| Failure::failed("no input profile"))?
        .map_err(|e| Failure::failed(format!("cannot combine the inputs: {e}")))?;
    Ok(match stacks {
        Stacks::Raw => combined,
        Stacks::AsPprof => pruned_as_pprof(combined, &first, &paths[0]),
    })
}

/// `combined` pruned with `e`, the expressions of input `path`; the warning (an expression that
/// does not compile) names that input.
pub fn pruned_as_pprof(combined: Profile, e: &Expressions, path: &str) -> Profile {
    let (p, warning) = pruned(combined, e);
    print_warnings(path, warning.as_slice());
    p
}
