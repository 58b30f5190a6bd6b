//! Reading: the input (a bare `.cpuprofile`, the old `head` tree, or a Chrome trace as an
//! object or a bare event array) is brought to [`FlatProfile`]s (`old`, `trace`), whose node
//! links are checked (`nodes`) before `convert` turns each into a `sources` row and its samples.
//! Only the members proftab knows are deserialized, one at a time ([`json_scan`]).

mod convert;
mod nodes;
mod old;
mod trace;

use super::schema::{FlatProfile, TraceEvent};
use super::{KNOWN_OLD_KEYS, KNOWN_PROFILE_KEYS, NAME};
use crate::formats::error::{ReadError, Warnings};
use crate::formats::json_scan::{self, Member};
use crate::formats::{Parsed, ReadOptions};
use convert::Converter;
use old::{old_nodes, old_profile};
use trace::trace_profiles;

/// Reads a `.cpuprofile`, an old-format V8 profile or a Chrome trace.
pub fn read(bytes: &[u8], options: &ReadOptions) -> Result<Parsed, ReadError> {
    if bytes.is_empty() {
        return Err(ReadError::whole(NAME, "the file is empty"));
    }
    let mut warnings = Warnings::default();
    let profiles = if json_scan::first_significant_byte(bytes) == Some(b'[') {
        let start = json_scan::skip_bom_and_ws(bytes);
        let events: Vec<TraceEvent> = json_scan::parse_member(NAME, bytes, start..bytes.len(), "")?;
        trace_profiles(events, &mut warnings)?
    } else {
        let members = json_scan::document_members(NAME, bytes)?;
        document_profiles(bytes, &members, &mut warnings)?
    };
    let mut c = Converter::new(options);
    for profile in profiles {
        c.add_profile(profile, &mut warnings)?;
    }
    c.finish(warnings)
}

fn document_profiles(
    bytes: &[u8],
    members: &[Member],
    warnings: &mut Warnings,
) -> Result<Vec<FlatProfile>, ReadError> {
    let get = |k: &str| json_scan::member(members, k).map(|m| m.value.clone());
    if let Some(events) = get("traceEvents") {
        json_scan::unknown_top_keys_warning(NAME, members, &["traceEvents"], warnings);
        let events: Vec<TraceEvent> = json_scan::parse_member(NAME, bytes, events, "traceEvents")?;
        return trace_profiles(events, warnings);
    }
    if let Some(head) = get("head") {
        json_scan::unknown_top_keys_warning(NAME, members, &KNOWN_OLD_KEYS, warnings);
        let nodes = old_nodes(bytes, head.start, warnings)?;
        let samples: Option<Vec<i64>> = opt_member(bytes, members, "samples")?;
        let stamps: Option<Vec<f64>> = opt_member(bytes, members, "timestamps")?;
        let start: Option<f64> = opt_member(bytes, members, "startTime")?;
        let end: Option<f64> = opt_member(bytes, members, "endTime")?;
        return Ok(vec![old_profile(nodes, samples, stamps, start, end)?]);
    }
    let nodes = get("nodes").ok_or_else(|| {
        ReadError::whole(
            NAME,
            "the file has neither `nodes` (a .cpuprofile), `head` (the old V8 format) nor `traceEvents` (a Chrome trace)",
        )
    })?;
    json_scan::unknown_top_keys_warning(NAME, members, &KNOWN_PROFILE_KEYS, warnings);
    Ok(vec![FlatProfile {
        nodes: json_scan::parse_member(NAME, bytes, nodes, "nodes")?,
        samples: opt_member(bytes, members, "samples")?,
        deltas: opt_member(bytes, members, "timeDeltas")?,
        start_time: opt_member(bytes, members, "startTime")?,
        end_time: opt_member(bytes, members, "endTime")?,
        ..FlatProfile::default()
    }])
}

fn opt_member<T: serde::de::DeserializeOwned>(
    bytes: &[u8],
    members: &[Member],
    key: &str,
) -> Result<Option<T>, ReadError> {
    opt_member_at(bytes, members, "", key)
}

/// Member `key` of an object at `path` (`path.key` in messages), when present.
fn opt_member_at<T: serde::de::DeserializeOwned>(
    bytes: &[u8],
    members: &[Member],
    path: &str,
    key: &str,
) -> Result<Option<T>, ReadError> {
    match json_scan::member(members, key) {
        Some(m) => {
            let at = if path.is_empty() {
                key.to_owned()
            } else {
                format!("{path}.{key}")
            };
            json_scan::parse_member(NAME, bytes, m.value.clone(), &at)
        }
        None => Ok(None),
    }
}
