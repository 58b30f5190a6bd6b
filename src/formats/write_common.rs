//! Helpers shared by the writers of formats that hold one value type (collapsed, speedscope),
//! and the int64 bound of the writers of integer values (pprof, OTLP).

use super::error::WriteError;
use super::WriteOptions;
use crate::model::{LocationIndex, Profile, StackIndex, ValueTypeIndex};

/// 2^63: an f64 of this magnitude or more does not fit an int64 (`as` saturates it).
pub(crate) const I64_LIMIT: f64 = 9_223_372_036_854_775_808.0;

/// The value type to write: the one named by [`WriteOptions::value_type`], else the profile's
/// default value type.
pub(crate) fn chosen_value_type(
    format: &'static str,
    profile: &Profile,
    options: &WriteOptions,
) -> Result<ValueTypeIndex, WriteError> {
    match &options.value_type {
        Some(name) => profile.value_type_index(name).ok_or_else(|| {
            WriteError::new(
                format,
                format!(
                    "the profile has no value type {name:?} (it has {})",
                    value_type_list(profile)
                ),
            )
        }),
        None => profile
            .default_value_type()
            .ok_or_else(|| WriteError::new(format, "the profile has no value types")),
    }
}

/// `type/unit` of every value type, comma separated.
pub(crate) fn value_type_list(profile: &Profile) -> String {
    let names: Vec<String> = (0..profile.values.len())
        .filter_map(ValueTypeIndex::from_usize)
        .map(|vt| {
            let (t, u) = profile.value_type_names(vt);
            format!("{t}/{u}")
        })
        .collect();
    if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    }
}

/// The locations of a stack from the outermost frame to the innermost.
pub(crate) fn frames_root_first(
    profile: &Profile,
    stack: Option<StackIndex>,
) -> Vec<LocationIndex> {
    let mut frames: Vec<LocationIndex> = profile.frames_leaf_first(stack).collect();
    frames.reverse();
    frames
}

/// Formats a finite value the shortest way that reads back to the same `f64`: integers without
/// a fraction (`5`, not `5.0`).
pub(crate) fn format_number(v: f64) -> String {
    if v == 0.0 {
        return "0".to_owned();
    }
    format!("{v}")
}
