//! Reading tables-JSON: the streaming parse (`parse`) gives logical tables, which become a
//! profile through the v2 or v1 model conversion (by the `meta` version); the sample and depth
//! limits of [`ReadOptions`] are checked on the way.

use super::{parse, FORMAT, MAX_LISTED_VIOLATIONS};
use crate::formats::{Format, Parsed, Place, ReadError, ReadOptions, Warning, Warnings};
use crate::model::{
    convert::unkept_parts, profile_from_tables, profile_from_v1, Profile, Tables, Violation,
};

/// Parses a document into logical tables without validating it. Fails only on JSON that is
/// not an object of tables of column arrays (with line and column).
pub fn parse_document(bytes: &[u8]) -> Result<Tables, ReadError> {
    parse_with_notes(bytes).map(|(t, _)| t)
}

pub(super) fn parse_with_notes(bytes: &[u8]) -> Result<(Tables, Vec<String>), ReadError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ReadError::whole(FORMAT, "the document is empty"));
    }
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    parse::parse(bytes).map_err(json_error)
}

fn json_error(e: serde_json::Error) -> ReadError {
    let message = crate::formats::json_scan::json_problem(&e);
    ReadError::new(
        FORMAT,
        Place::Line(e.line()),
        format!("column {}: {message}", e.column()),
    )
}

/// A [`ReadError`] listing the violations of a document.
pub fn violations_error(version: &str, violations: &[Violation]) -> ReadError {
    let mut message = format!(
        "the document breaks {} rule{} of the {version} tables:",
        violations.len(),
        if violations.len() == 1 { "" } else { "s" }
    );
    for v in violations.iter().take(MAX_LISTED_VIOLATIONS) {
        message.push_str("\n  ");
        message.push_str(&v.to_string());
    }
    if violations.len() > MAX_LISTED_VIOLATIONS {
        let more = violations.len() - MAX_LISTED_VIOLATIONS;
        message.push_str(&format!("\n  … and {more} more"));
    }
    ReadError::whole(FORMAT, message)
}

/// Reads a v2 or v1 document (by `meta` version) into a profile.
pub fn read(bytes: &[u8], options: &ReadOptions) -> Result<Parsed, ReadError> {
    let (tables, not_tables) = parse_with_notes(bytes)?;
    let mut warnings = Warnings::default();
    for name in not_tables {
        warnings.push(Warning::new(
            FORMAT,
            format!("component {name} is not a table of columns; only its name was kept"),
            1,
        ));
    }
    let unkept = unkept_parts(&tables);
    if !unkept.is_empty() {
        warnings.push(Warning::new(
            FORMAT,
            format!(
                "not kept (no place in the profile model): {}",
                unkept.join(", ")
            ),
            unkept.len(),
        ));
    }
    let profile = if tables.version() == Some("2.0") {
        check_sample_limit(&tables, options)?;
        profile_from_tables(&tables).map_err(|v| violations_error("v2", &v))?
    } else {
        let mut p = profile_from_v1(&tables, options.limits.max_samples)
            .map_err(|v| violations_error("v1", &v))?;
        if let Some(uri) = &options.source_uri {
            let id = p.strings.intern(uri);
            p.sources.source_uri.iter_mut().for_each(|u| *u = id);
        }
        p
    };
    check_depth_limit(&profile, options)?;
    Ok(Parsed {
        format: Format::TablesJson,
        profile,
        warnings: warnings.into_vec(),
    })
}

fn check_sample_limit(t: &Tables, options: &ReadOptions) -> Result<(), ReadError> {
    let n = t.table("samples").map_or(0, |s| s.nrow());
    check_limit("samples", n, options.limits.max_samples, || {
        format!("{n} samples")
    })
}

fn check_depth_limit(p: &Profile, options: &ReadOptions) -> Result<(), ReadError> {
    let max = p.stack_depths().into_iter().max().unwrap_or(0) as usize;
    check_limit(
        "sample_locations.depth",
        max,
        options.limits.max_stack_depth,
        || format!("a stack of {max} frames"),
    )
}

/// An error at `path` when `n` exceeds `limit`, saying `what` went over it.
fn check_limit(
    path: &str,
    n: usize,
    limit: usize,
    what: impl FnOnce() -> String,
) -> Result<(), ReadError> {
    if n <= limit {
        return Ok(());
    }
    Err(ReadError::new(
        FORMAT,
        Place::Path(path.to_owned()),
        format!("{}, more than the limit of {limit}", what()),
    ))
}
