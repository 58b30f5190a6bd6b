//! pprof `profile.proto` (docs/formats/pprof.md): gzipped or raw protobuf, read and written
//! losslessly.
//!
//! How a pprof `Profile` maps onto the v2 tables:
//!
//! | pprof | proftab |
//! | --- | --- |
//! | `sample_type[i]` | value type i (same order, same names; a repeated name gets a `.2` suffix, with a warning) |
//! | `Sample` | one `samples` row (never expanded or merged), its values in `sample_values` |
//! | `Sample.label` | extension table `sample_labels` (`sample_id`, `key`, `str`, `num`, `num_unit`) |
//! | `Location` with n `Line`s | n `locations` rows, innermost first, each with `.pprof_location_id` and `.pprof_line_index` (position in `Location.line`), so the writer can fold them back |
//! | `Location.address`, `mapping_id`, `is_folded`, `Line.column` | `locations..address`, `.mapping_id`, `.is_folded`, `.column` |
//! | `Location` without lines | one `locations` row with NA function |
//! | `Function` | one `functions` row with `.pprof_function_id`; an empty name becomes `<unknown>` and an empty system name the name (flagged in `.pprof_empty_name` / `.pprof_empty_system_name`), an empty file name NA |
//! | `Mapping` | extension table `mappings` (with the `has_*` flags of docs/formats/otlp.md) |
//! | `time_nanos`, `duration_nanos`, `period`, `period_type`, `comment`, `drop_frames`, `keep_frames`, `doc_url`, `default_sample_type` | `meta` rows under the `pprof.` keys below; `default_sample_type` also sets [`META_DEFAULT_TYPE`] |
//! | the file | one `sources` row: `pprof`, the URI given, `time_nanos` in seconds |
//!
//! The writer turns any profile back into pprof, merging samples with the same stack and
//! labels (the only place where samples are aggregated).
//!
//! `drop_frames`/`keep_frames` stay meta and the stacks stay raw; [`prune`] applies them as
//! `go tool pprof` does: once, after the inputs are merged, with the first input's expressions.
//! The CLI's `top`, `diff` and `list`, the viewer and the npm package's `Profile.pruned()` use it;
//! `convert` writes the raw stacks and the expressions.

mod errors;
mod ids;
pub mod prune;
mod read;
pub mod schema;
mod stacks;
mod toplevel;
mod windows;
mod write;

pub use read::{changed, FirstRead, SecondRead, SteppedRead};
pub use toplevel::PassOne;

use super::gzip;
use super::protowire;
use super::{Parsed, ReadError, ReadOptions, WriteError, WriteOptions, Written};
pub use crate::model::META_DEFAULT_TYPE;
use crate::model::{ext, Profile};

/// Format name in messages.
pub const FORMAT: &str = "pprof";

/// Meta key of `Profile.time_nanos` (decimal nanoseconds since the Unix epoch).
pub const META_TIME_NANOS: &str = "pprof.time_nanos";
/// Meta key of `Profile.duration_nanos`.
pub const META_DURATION_NANOS: &str = "pprof.duration_nanos";
/// Meta key of `Profile.period`.
pub const META_PERIOD: &str = "pprof.period";
/// Meta key of `Profile.period_type.type`.
pub const META_PERIOD_TYPE: &str = "pprof.period_type";
/// Meta key of `Profile.period_type.unit`.
pub const META_PERIOD_UNIT: &str = "pprof.period_unit";
/// Meta key of each `Profile.comment` (one row per comment, in order; the attribute name of docs/formats/otlp.md).
pub const META_COMMENT: &str = "pprof.profile.comment";
/// Meta key of `Profile.drop_frames`.
pub const META_DROP_FRAMES: &str = "pprof.profile.drop_frames";
/// Meta key of `Profile.keep_frames`.
pub const META_KEEP_FRAMES: &str = "pprof.profile.keep_frames";
/// Meta key of `Profile.doc_url`.
pub const META_DOC_URL: &str = "pprof.profile.doc_url";
/// Meta key of `Profile.default_sample_type` as written in the file.
pub const META_PPROF_DEFAULT_TYPE: &str = "pprof.default_sample_type";

/// Location extension column: `Location.address` (u64, NA when 0).
pub const LOC_ADDRESS: &str = ext::locations::ADDRESS;
/// Location extension column: `Location.mapping_id` (u64, NA when 0).
pub const LOC_MAPPING_ID: &str = ext::locations::MAPPING_ID;
/// Location extension column: `Location.is_folded` (lgl).
pub const LOC_IS_FOLDED: &str = ext::locations::IS_FOLDED;
/// Location extension column: the pprof `Location.id` this row came from (u64).
pub const LOC_PPROF_ID: &str = ext::locations::PPROF_LOCATION_ID;
/// Location extension column: position of this row's line in `Location.line` (int, 0 =
/// innermost; rows of one pprof location are consecutive, innermost first).
pub const LOC_LINE_INDEX: &str = ext::locations::PPROF_LINE_INDEX;
/// Location extension column: `Line.column` (int, NA when 0).
pub const LOC_COLUMN: &str = ext::locations::COLUMN;
/// Function extension column: the pprof `Function.id` (u64).
pub const FUNC_PPROF_ID: &str = ext::functions::PPROF_FUNCTION_ID;
/// Function extension column (lgl, only when some are true): `Function.name` was empty, and
/// the model's name is [`UNKNOWN_FUNCTION`] (names must not be empty).
pub const FUNC_EMPTY_NAME: &str = ext::functions::PPROF_EMPTY_NAME;
/// Function extension column (lgl, only when some are true): `Function.system_name` was
/// empty, and the model's system name is the name.
pub const FUNC_EMPTY_SYSTEM_NAME: &str = ext::functions::PPROF_EMPTY_SYSTEM_NAME;
/// The name of a function whose pprof name is empty (what `go tool pprof` prints for it).
pub const UNKNOWN_FUNCTION: &str = "<unknown>";

/// Extension table of `Profile.mapping`.
pub const MAPPINGS_TABLE: &str = ext::tables::MAPPINGS;
/// Extension table of `Sample.label`.
pub const LABELS_TABLE: &str = ext::tables::SAMPLE_LABELS;

/// Column names of the [`MAPPINGS_TABLE`] extension table, in order.
pub const MAPPING_COLUMNS: [&str; 10] = [
    "mapping_id",
    "memory_start",
    "memory_limit",
    "file_offset",
    "filename",
    "build_id",
    "has_functions",
    "has_filenames",
    "has_line_numbers",
    "has_inline_frames",
];
/// Column names of the [`LABELS_TABLE`] extension table, in order.
pub const LABEL_COLUMNS: [&str; 5] = ["sample_id", "key", "str", "num", "num_unit"];

/// How many inflated bytes of a gzip file [`detect`] looks at.
const DETECT_PREFIX_BYTES: usize = 64 * 1024;

/// True when `bytes` look like a pprof profile: a gzip stream whose inflated prefix has the
/// shape of a `Profile`, or raw protobuf with the `Profile` top level. A `Profile` always has
/// top-level fields beyond 1 and 2 (`string_table` = 6 is mandatory), an OTLP message only
/// fields 1 and 2; every top-level field must carry the wire type pprof gives that number.
pub fn detect(bytes: &[u8]) -> bool {
    if gzip::is_gzip(bytes) {
        return gzip::gunzip_prefix(bytes, DETECT_PREFIX_BYTES)
            .is_some_and(|prefix| looks_like_profile(&prefix, true));
    }
    looks_like_profile(bytes, false)
}

/// The pprof reader's error for raw `bytes` (not compressed: `registry::unclaimed`) that [`detect`] does not claim but
/// that begin as a pprof `Profile` does, with a `sample_type` that is a `ValueType`: a message
/// cut short or damaged further on. Raw protobuf has no magic number, so detection must see
/// the whole message sound; this says where and how it is not, instead of "unrecognized
/// format". `None` for other bytes, and when the reader takes them after all.
pub(crate) fn damaged(bytes: &[u8], options: &ReadOptions) -> Option<ReadError> {
    let first = protowire::Fields::new(bytes, 0).next()?.ok()?;
    let begins_as_profile = matches!(
        (first.number, first.value),
        (1, protowire::Value::Len(payload, _)) if !payload.is_empty() && is_value_type(payload)
    );
    begins_as_profile.then(|| read(bytes, options).err())?
}

/// Walks the top-level fields of `buf`. When `is_prefix`, the walk may end inside a field,
/// and then a first `sample_type` that decodes as a `ValueType` also counts as evidence.
fn looks_like_profile(buf: &[u8], is_prefix: bool) -> bool {
    let mut beyond_samples = false;
    let mut first_value_type: Option<bool> = None;
    for field in protowire::Fields::new(buf, 0) {
        let field = match field {
            Ok(f) => f,
            Err(e) => {
                return is_prefix
                    && e.truncated
                    && (beyond_samples || first_value_type == Some(true))
            }
        };
        if toplevel::expected_wire_types(field.number)
            .is_none_or(|w| !w.contains(&field.value.wire_type()))
        {
            return false;
        }
        beyond_samples |= field.number > 2;
        if let (1, None, protowire::Value::Len(payload, _)) =
            (field.number, first_value_type, field.value)
        {
            first_value_type = Some(is_value_type(payload));
        }
    }
    beyond_samples
}

/// True when `payload` holds only varint fields 1 and 2 (a `ValueType`).
fn is_value_type(payload: &[u8]) -> bool {
    protowire::Fields::new(payload, 0).all(|f| {
        f.is_ok_and(|f| matches!(f.number, 1 | 2) && f.value.wire_type() == protowire::WIRE_VARINT)
    })
}

/// Reads a pprof profile (gzipped or raw protobuf).
pub fn read(bytes: &[u8], options: &ReadOptions) -> Result<Parsed, ReadError> {
    read::read(bytes, options)
}

/// Writes `profile` as gzipped pprof.
pub fn write(profile: &Profile, options: &WriteOptions) -> Result<Written, WriteError> {
    let (bytes, warnings) = write::encode(profile, options)?;
    Ok(Written {
        bytes: gzip::gzip(&bytes),
        warnings,
    })
}

/// Writes `profile` as an uncompressed pprof protobuf (what `WriteUncompressed` gives in Go).
pub fn write_uncompressed(
    profile: &Profile,
    options: &WriteOptions,
) -> Result<Written, WriteError> {
    let (bytes, warnings) = write::encode(profile, options)?;
    Ok(Written { bytes, warnings })
}
