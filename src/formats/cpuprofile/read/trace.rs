//! Chrome traces: `Profile`/`CpuProfile` events open a profile (keyed by `id`, else
//! `pid:tid`) and `ProfileChunk` events append nodes, samples, deltas and positions to it, in
//! `ts` order; thread names come from `thread_name` events.

use std::collections::BTreeMap;

use crate::formats::cpuprofile::schema::{ChunkData, FlatProfile, Timing, TraceEvent};
use crate::formats::cpuprofile::{NAME, PROFILE_EVENTS};
use crate::formats::error::{Place, ReadError, Warning, Warnings};
use crate::hash::HashMap;

pub(super) fn value_key(v: Option<&serde_json::Value>) -> String {
    match v {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

/// Collects the CPU profiles of a trace: events sorted by `ts` (stably), `Profile` or
/// `CpuProfile` events open a profile keyed by `id` (else `pid:tid`), `ProfileChunk` events
/// append nodes, samples and deltas to it.
pub(super) fn trace_profiles(
    events: Vec<TraceEvent>,
    warnings: &mut Warnings,
) -> Result<Vec<FlatProfile>, ReadError> {
    let mut order: Vec<usize> = (0..events.len()).collect();
    order.sort_by(|&a, &b| {
        let ts = |i: usize| events.get(i).and_then(|e| e.ts).unwrap_or(0.0);
        ts(a).total_cmp(&ts(b))
    });
    let threads = thread_names(&events);
    let mut keys: Vec<String> = Vec::new();
    let mut profiles: HashMap<String, FlatProfile> = HashMap::default();
    let mut ignored: BTreeMap<String, usize> = BTreeMap::new();
    for k in order {
        let Some(ev) = events.get(k) else { continue };
        let name = ev.name.as_deref().unwrap_or("");
        if !PROFILE_EVENTS.contains(&name) {
            if name != "thread_name" {
                *ignored.entry(name.to_owned()).or_insert(0) += 1;
            }
            continue;
        }
        let pid_tid = format!(
            "{}:{}",
            value_key(ev.pid.as_ref()),
            value_key(ev.tid.as_ref())
        );
        let key = ev
            .id
            .as_ref()
            .map_or_else(|| pid_tid.clone(), |id| value_key(Some(id)));
        let data = ev.args.as_ref().and_then(|a| a.get("data")).cloned();
        let path = format!("traceEvents[{k}].args.data");
        let data: Option<ChunkData> = match data {
            Some(d) => Some(
                serde_json::from_value(d)
                    .map_err(|e| ReadError::new(NAME, Place::Path(path.clone()), e.to_string()))?,
            ),
            None => None,
        };
        if name == "ProfileChunk" {
            let Some(profile) = profiles.get_mut(&key) else {
                warnings.add(NAME, "orphan-chunk", || {
                    format!("ProfileChunk events for undeclared profiles were skipped (first: id {key})")
                });
                continue;
            };
            if let Some(d) = data {
                append_chunk(profile, d, &path, warnings);
            }
            continue;
        }
        // A repeated Profile/CpuProfile event for the same id adds to the profile it names.
        if !profiles.contains_key(&key) {
            keys.push(key.clone());
        }
        let profile = profiles.entry(key.clone()).or_insert_with(|| FlatProfile {
            name: threads.get(&pid_tid).cloned(),
            lenient: true,
            path: format!("profile {key}: "),
            ..FlatProfile::default()
        });
        if let Some(d) = data {
            append_chunk(profile, d, &path, warnings);
        }
    }
    if !ignored.is_empty() {
        let list: Vec<String> = ignored.iter().map(|(n, c)| format!("{n} ×{c}")).collect();
        warnings.push(Warning::new(
            NAME,
            format!(
                "trace events other than CPU profiles were not kept: {}",
                list.join(", ")
            ),
            1,
        ));
    }
    if keys.is_empty() {
        return Err(ReadError::whole(
            NAME,
            "the trace has no CPU profile (no Profile, ProfileChunk or CpuProfile events)",
        ));
    }
    Ok(keys
        .into_iter()
        .filter_map(|k| profiles.remove(&k))
        .collect())
}

pub(super) fn thread_names(events: &[TraceEvent]) -> HashMap<String, String> {
    events
        .iter()
        .filter(|e| e.name.as_deref() == Some("thread_name"))
        .filter_map(|e| {
            let name = e.args.as_ref()?.get("name")?.as_str()?.to_owned();
            let key = format!(
                "{}:{}",
                value_key(e.pid.as_ref()),
                value_key(e.tid.as_ref())
            );
            Some((key, name))
        })
        .collect()
}

pub(super) fn append_chunk(
    profile: &mut FlatProfile,
    data: ChunkData,
    path: &str,
    warnings: &mut Warnings,
) {
    let (mut nodes, mut samples, mut inner_deltas) = (Vec::new(), Vec::new(), None);
    if let Some(cp) = data.cpu_profile {
        nodes = cp.nodes.unwrap_or_default();
        samples = cp.samples.unwrap_or_default();
        set_bounds(profile, &cp.timing);
        inner_deltas = cp.timing.time_deltas;
    }
    set_bounds(profile, &data.timing);
    let deltas = data.timing.time_deltas.or(inner_deltas);
    let positions: Vec<Option<(i64, i64)>> = match (&data.lines, &data.columns) {
        (Some(l), Some(c)) if l.len() == samples.len() && c.len() == samples.len() => {
            l.iter().zip(c).map(|(&l, &c)| Some((l, c))).collect()
        }
        (Some(l), _) if l.len() == samples.len() => l.iter().map(|&l| Some((l, 0))).collect(),
        (None, _) => vec![None; samples.len()],
        _ => {
            warnings.add(NAME, "lines-length", || {
                format!("sample positions (lines/columns) whose length differs from the samples were not kept (first: {path})")
            });
            vec![None; samples.len()]
        }
    };
    let known_before = profile.samples.as_ref().map_or(0, Vec::len);
    if profile.positions.len() < known_before {
        profile.positions.resize(known_before, None);
    }
    profile.positions.extend(positions);
    profile.nodes.extend(nodes);
    profile.samples.get_or_insert_with(Vec::new).extend(samples);
    if let Some(d) = deltas {
        profile.deltas.get_or_insert_with(Vec::new).extend(d);
    }
}

/// Takes the start and end times of `timing`, where it has them.
fn set_bounds(profile: &mut FlatProfile, timing: &Timing) {
    profile.start_time = timing.start_time.or(profile.start_time);
    profile.end_time = timing.end_time.or(profile.end_time);
}
