//! tables-JSON: proftab's own lossless JSON of the profile tables.
//!
//! A document is one object whose keys are table names and whose values are objects of
//! equal-length column arrays, NA as `null` — what R writes with
//! `jsonlite::toJSON(x, dataframe = "columns", na = "null", digits = NA)` and reads back with
//! `jsonlite::fromJSON()`:
//!
//! ```json
//! {"meta":{"key":["version"],"value":["2.0"]},
//!  "functions":{"function_id":[1],"name":["main"], …}, …}
//! ```
//!
//! * **v2** (`meta` version `"2.0"`): the seven tables of seed 000, then any extension tables,
//!   then `column_types` and `value_types` (see [`crate::model::convert`]), which let
//!   [`read`] restore every column type and every value type exactly.
//! * **v1** (any other version): the five tables of seed 001, with `samples.locations` an
//!   array holding per sample an object `{"location_id": [...]}` (innermost first). [`read`]
//!   converts it as [`crate::model::v2_from_v1`] does (and fills `source_uri` from
//!   [`ReadOptions::source_uri`], which v1 cannot store); [`write_v1`] writes it through
//!   [`crate::model::v1_from_v2`].
//!
//! Column types by content are described in the `parse` submodule; `int` columns written as
//! numbers with a fraction are accepted when the values are integral (see
//! [`crate::model::typing`]). [`write()`] output is deterministic, and doubles round-trip exactly.

mod parse;
mod write;

use crate::model::{
    convert::unkept_parts, profile_from_tables, profile_from_v1, v1_from_v2, Profile, Tables,
    Violation, INT_NA,
};

use super::{
    Format, Parsed, Place, ReadError, ReadOptions, Warning, Warnings, WriteError, WriteOptions,
    Written,
};

/// Format name in messages.
pub const FORMAT: &str = "tables-json";
/// Format name of the v1 writer.
pub const FORMAT_V1: &str = "tables-json-v1";
/// How far into the input [`detect`] looks.
pub const DETECT_PREFIX: usize = 4096;
/// Most violations listed one by one in a [`ReadError`]; the rest are counted.
pub const MAX_LISTED_VIOLATIONS: usize = 100;

/// The first column of each table a document may start with (v2 and v1).
const FIRST_COLUMNS: [(&str, &[&str]); 8] = [
    ("meta", &["key", "value"]),
    ("sources", &["source_id"]),
    ("samples", &["sample_id", "value"]),
    ("sample_types", &["type"]),
    ("sample_values", &["sample_id"]),
    ("sample_locations", &["sample_id"]),
    ("locations", &["location_id"]),
    ("functions", &["function_id"]),
];

/// True when the bytes start like a tables-JSON document: `{"<table>":{"<its first column>"`
/// for one of the tables of v1 or v2 (e.g. `{"meta":{"key"`), so a Firefox profile, whose
/// `meta` object has other keys, is not taken for one.
pub fn detect(bytes: &[u8]) -> bool {
    let head = bytes
        .get(..bytes.len().min(DETECT_PREFIX))
        .unwrap_or_default();
    let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    let mut s = Scanner { b: head, pos: 0 };
    let found = (|| {
        s.punct(b'{')?;
        let table = s.string()?;
        s.punct(b':')?;
        s.punct(b'{')?;
        let column = s.string()?;
        Some((table, column))
    })();
    found.is_some_and(|(table, column)| {
        FIRST_COLUMNS
            .iter()
            .any(|(t, cols)| t.as_bytes() == table && cols.iter().any(|c| c.as_bytes() == column))
    })
}

/// A tiny forward scanner for [`detect`].
struct Scanner<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Scanner<'a> {
    fn skip_ws(&mut self) {
        while self
            .b
            .get(self.pos)
            .is_some_and(|c| c.is_ascii_whitespace())
        {
            self.pos += 1;
        }
    }

    fn punct(&mut self, c: u8) -> Option<()> {
        self.skip_ws();
        (self.b.get(self.pos) == Some(&c)).then(|| self.pos += 1)
    }

    /// A string without escapes (the names [`detect`] compares have none).
    fn string(&mut self) -> Option<&'a [u8]> {
        self.punct(b'"')?;
        let rest = self.b.get(self.pos..)?;
        let len = rest.iter().position(|&c| c == b'"' || c == b'\\')?;
        (rest.get(len) == Some(&b'"')).then_some(())?;
        self.pos += len + 1;
        rest.get(..len)
    }
}

/// Parses a document into logical tables without validating it. Fails only on JSON that is
/// not an object of tables of column arrays (with line and column).
pub fn parse_document(bytes: &[u8]) -> Result<Tables, ReadError> {
    parse_with_notes(bytes).map(|(t, _)| t)
}

fn parse_with_notes(bytes: &[u8]) -> Result<(Tables, Vec<String>), ReadError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ReadError::whole(FORMAT, "the document is empty"));
    }
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    parse::parse(bytes).map_err(json_error)
}

fn json_error(e: serde_json::Error) -> ReadError {
    let text = e.to_string();
    let message = text
        .rfind(" at line ")
        .and_then(|i| text.get(..i))
        .unwrap_or(&text);
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
    if n > options.limits.max_samples {
        return Err(ReadError::new(
            FORMAT,
            Place::Path("samples".to_owned()),
            format!(
                "{n} samples, more than the limit of {}",
                options.limits.max_samples
            ),
        ));
    }
    Ok(())
}

fn check_depth_limit(p: &Profile, options: &ReadOptions) -> Result<(), ReadError> {
    let max = p.stacks.depth.iter().copied().max().unwrap_or(0) as usize;
    if max > options.limits.max_stack_depth {
        return Err(ReadError::new(
            FORMAT,
            Place::Path("sample_locations.depth".to_owned()),
            format!(
                "a stack of {max} frames, more than the limit of {}",
                options.limits.max_stack_depth
            ),
        ));
    }
    Ok(())
}

fn infinite_warning(format: &'static str, n: usize) -> Vec<Warning> {
    if n == 0 {
        return Vec::new();
    }
    vec![Warning::new(
        format,
        "infinite values written as null (JSON has no infinity)",
        n,
    )]
}

/// Writes a profile as a v2 document (deterministic bytes).
pub fn write(p: &Profile, _options: &WriteOptions) -> Result<Written, WriteError> {
    let (bytes, infinite) = write::write_profile(p);
    Ok(Written {
        bytes,
        warnings: infinite_warning(FORMAT, infinite),
    })
}

/// Writes logical tables as a document (v1 or v2, as given, without validating them).
pub fn write_document(t: &Tables) -> Vec<u8> {
    write::write_tables(t).0
}

/// Writes a profile as a v1 document (see [`v1_from_v2`]), warning about everything v1
/// cannot hold.
pub fn write_v1(p: &Profile, _options: &WriteOptions) -> Result<Written, WriteError> {
    let tables = v1_from_v2(p).map_err(|m| WriteError::new(FORMAT_V1, m))?;
    let (bytes, infinite) = write::write_tables(&tables);
    let mut warnings = v1_losses(p);
    warnings.extend(infinite_warning(FORMAT_V1, infinite));
    Ok(Written { bytes, warnings })
}

/// What a v1 document cannot hold of `p`.
fn v1_losses(p: &Profile) -> Vec<Warning> {
    let mut lost = Vec::new();
    let meta = p.meta.key.len().saturating_sub(1);
    if meta > 0 {
        lost.push(format!("{meta} meta rows besides version"));
    }
    if !p.sources.source_type.is_empty() {
        lost.push(format!(
            "the sources table ({} rows)",
            p.sources.source_type.len()
        ));
    }
    for c in &p.values {
        let (t, u) = (p.str(c.value_type), p.str(c.unit));
        if (t, u) != ("samples", "count") {
            lost.push(format!("value type {t}/{u}"));
        }
    }
    let na_starts = p
        .functions
        .start_line
        .iter()
        .filter(|&&s| s == INT_NA)
        .count();
    if na_starts > 0 {
        lost.push(format!(
            "NA start_line of {na_starts} functions (written as 0, v1's unknown)"
        ));
    }
    for c in &p.samples.ext.columns {
        lost.push(format!("samples.{}", c.name));
    }
    for t in &p.ext_tables {
        lost.push(format!("extension table {}", t.name));
    }
    if p.num_samples() > 0 {
        lost.push("the identity and order of single samples (v1 aggregates stacks)".to_owned());
    }
    lost.into_iter()
        .map(|what| Warning::new(FORMAT_V1, format!("not written: {what}"), 1))
        .collect()
}
