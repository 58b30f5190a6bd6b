//! Firefox Profiler processed profile JSON (`docs/formats/firefox.md`; the struct-of-arrays
//! layout it shares with the v2 tables: `docs/model.md`).
//!
//! **Reading** accepts every processed version from 0 (no `preprocessedProfileVersion`, threads
//! with `stringArray`) to [`PROCESSED_PROFILE_VERSION`]: per-thread tables (≤ v59) or shared ones
//! (v60+), `prefix` (≤ v65) or `prefixOffset`, per-thread or shared `stringArray`, `fileName`
//! (≤ v57) or `source`, `time` or `timeDeltas`, with or without `weight`. Raw Gecko profiles
//! (what Firefox hands the profiler before processing) are converted by [`gecko`] and read the
//! same way. Newer versions fail with the profiler's own `ProfileVersionError` wording.
//!
//! | Firefox | proftab |
//! | --- | --- |
//! | thread | one `sources` row (`.thread_name`, `.process_name`, `.process_type`, `.pid`, `.tid`, `.is_main_thread`); `source_timestamp` = `meta.startTime` |
//! | sample | one row; `samples..time` = time / 1000 (seconds from `meta.startTime`) |
//! | `weightType: samples` | `samples`/`count` = weight (1 without weights) — the default type |
//! | `weightType: tracing-ms` | `samples`/`count` = 1 and `time`/`nanoseconds` = weight × 10⁶ (default) |
//! | `weightType: bytes` | `samples`/`count` = 1 and `bytes`/`bytes` = weight (default) |
//! | frame | one `locations` row: `line`, `.column`, `.address` (lib-relative, when ≥ 0), `.inlined` (inlineDepth > 0), `.category`/`.subcategory` names, `.frame_type` when the category is an OpenTelemetry frame type (`docs/formats/otlp.md`) |
//! | func | `functions` row: `name` (= `system_name`), `filename` (`fileName` or `sources.filename`), `start_line` = `lineNumber`; `.is_js`, `.relevant_for_js`, `.resource` |
//!
//! **Writing** produces version [`PROCESSED_PROFILE_VERSION`] with shared tables, one thread
//! per source, and one value type (the default, or
//! [`crate::formats::WriteOptions::value_type`]) as `weight`/`weightType`; categories come from
//! `.category`, else `.frame_type`, else "Other".

mod gecko;
mod read;
mod schema;
mod write;

pub(crate) use write::KNOWN as WRITE_KNOWN;

use super::{json_scan, Place, ReadError};

pub use read::read;
pub use write::write;

/// Format name used in errors and warnings.
pub const NAME: &str = "firefox";

/// A read error at `path` of the document (the processed and the Gecko reader alike).
fn err(path: impl Into<String>, message: impl Into<String>) -> ReadError {
    ReadError::new(NAME, Place::Path(path.into()), message)
}

/// The newest processed-profile version read, and the one written.
pub const PROCESSED_PROFILE_VERSION: u32 = 70;
/// Bytes searched by [`detect`] for the top-level keys.
const SNIFF_BYTES: usize = 256 * 1024;
/// Milliseconds per second.
const MS_PER_SECOND: f64 = 1000.0;

/// Meta keys written by the reader and read by the writer.
pub mod meta_keys {
    /// `meta.product`.
    pub const PRODUCT: &str = "firefox.product";
    /// `meta.interval` (ms).
    pub const INTERVAL_MS: &str = "firefox.interval_ms";
    /// `meta.preprocessedProfileVersion` of a processed profile read.
    pub const PROCESSED_VERSION: &str = "firefox.preprocessed_profile_version";
    /// `meta.version` of a raw Gecko profile read.
    pub const GECKO_VERSION: &str = "firefox.gecko_version";
}

/// `sources` extension columns (one row per thread); thread name, pid and tid are the shared
/// names of [`crate::model::ext::samples`].
pub mod source_cols {
    use crate::model::ext;
    /// Thread name.
    pub const THREAD_NAME: &str = ext::samples::THREAD_NAME;
    /// Process id (text).
    pub const PID: &str = ext::samples::PID;
    /// Thread id (text).
    pub const TID: &str = ext::samples::TID;
    /// Process name.
    pub const PROCESS_NAME: &str = ".process_name";
    /// Process type (`default`, `tab`, …).
    pub const PROCESS_TYPE: &str = ".process_type";
    /// Main thread flag.
    pub const IS_MAIN_THREAD: &str = ".is_main_thread";
}

/// `locations` extension columns: the category names are Firefox's own, the rest the shared
/// names of [`crate::model::ext::locations`].
pub mod location_cols {
    /// Category name.
    pub const CATEGORY: &str = ".category";
    /// Subcategory name.
    pub const SUBCATEGORY: &str = ".subcategory";
    /// OpenTelemetry frame type (`docs/formats/otlp.md`); address (lib-relative in Firefox
    /// files); column; inlined flag.
    pub use crate::model::ext::locations::{ADDRESS, COLUMN, FRAME_TYPE, INLINED};
}

/// `functions` extension columns.
pub mod function_cols {
    /// `isJS`.
    pub const IS_JS: &str = ".is_js";
    /// `relevantForJS`.
    pub const RELEVANT_FOR_JS: &str = ".relevant_for_js";
    /// Resource (library, URL, …) name.
    pub const RESOURCE: &str = ".resource";
}

/// True for a JSON object whose first bytes hold a `"meta"` key and `"threads"` or
/// `"preprocessedProfileVersion"` (processed and Gecko profiles alike). A byte-order mark is
/// not skipped (serde_json, which reads the whole file, refuses one).
pub fn detect(bytes: &[u8]) -> bool {
    let head = json_scan::prefix(bytes, SNIFF_BYTES);
    let has = |key: &[u8]| json_scan::contains(head, key);
    json_scan::opens_object(head)
        && has(b"\"meta\"")
        && (has(b"\"threads\"") || has(b"\"preprocessedProfileVersion\""))
}
