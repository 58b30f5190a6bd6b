//! Checks every profile a reader returns must pass, and reading a file as a given format the
//! way the format tests do (the file's path as source URI, the result checked).

use std::path::Path;

use proftab::formats::{self, Format, Parsed, ReadOptions};
use proftab::model::Profile;

/// Panics unless `p` passes the v2 validator (every `Ok` of a reader must); `what` names the
/// input. The message lists the first five violations.
pub fn assert_valid(p: &Profile, what: &str) {
    let violations = p.validate();
    assert!(
        violations.is_empty(),
        "{what}: read gave an invalid profile ({} violations): {}",
        violations.len(),
        violations
            .iter()
            .take(5)
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("; ")
    );
}

/// Options naming the source (or not).
pub fn options(name: Option<&str>) -> ReadOptions {
    ReadOptions {
        source_uri: name.map(str::to_owned),
        ..ReadOptions::default()
    }
}

/// Reads the file at `path` as `format` with its path as source URI; the read must succeed
/// with a valid profile.
pub fn read_path(format: Format, path: &Path) -> Parsed {
    let bytes = std::fs::read(path).unwrap();
    let what = path.display().to_string();
    let parsed = formats::read_as(format, &bytes, &options(Some(&what)))
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_valid(&parsed.profile, &what);
    parsed
}
