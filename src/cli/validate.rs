//! `proftab validate FILE`: exit 0 when FILE is a valid profile, else list every violation on
//! standard output and exit 1.
//!
//! Invariant: a tables-JSON document is checked as written (its raw tables, by the v1 or v2
//! rules of its `meta.version`, see docs/model.md), so faults a reader would repair or reject
//! are still listed; any other format is read and the resulting profile checked.

use crate::formats::{self, tables_json, Format, ReadError, ReadOptions};
use crate::model::{validate_profile, Violation};

use crate::cli::args::{Files, Matches, Verb};
use crate::cli::input::{display_name, read_bytes, read_options};
use crate::cli::output::{emit, CliResult, Failure};

/// The command line of `proftab validate`.
pub const VERB: Verb = Verb {
    name: "validate",
    synopsis: "FILE",
    about: "exit 0 when FILE is a valid profile, else list every violation and exit 1",
    options: &[],
    files: Files::Read,
};

/// Runs `proftab validate`.
pub fn run(args: &Matches) -> CliResult {
    let path = args.single_file()?;
    let bytes = read_bytes(path)?;
    let name = display_name(path);
    let (format, violations) = violations(&bytes, &read_options(path))
        .map_err(|e| Failure::failed(format!("{name}: {e}")))?;
    if violations.is_empty() {
        return emit(&format!("{name}: valid {}\n", format.name()));
    }
    let listing: String = violations.iter().map(|v| format!("{v}\n")).collect();
    emit(&listing)?;
    Err(Failure::failed(format!(
        "{name}: not a valid {} profile: {} violation{}",
        format.name(),
        violations.len(),
        if violations.len() == 1 { "" } else { "s" }
    )))
}

/// The format of `bytes` and every violation found in it.
fn violations(bytes: &[u8], options: &ReadOptions) -> Result<(Format, Vec<String>), ReadError> {
    if formats::detect(bytes) == Some(Format::TablesJson) {
        let tables = tables_json::parse_document(bytes)?;
        return Ok((Format::TablesJson, texts(&validate_profile(&tables))));
    }
    let parsed = formats::read_any(bytes, options)?;
    Ok((parsed.format, texts(&parsed.profile.validate())))
}

fn texts(violations: &[Violation]) -> Vec<String> {
    violations.iter().map(ToString::to_string).collect()
}
