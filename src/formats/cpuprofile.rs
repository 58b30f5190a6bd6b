//! Chrome / Node `.cpuprofile` (V8's `Profiler.Profile`), the old V8 tree format, and Chrome
//! trace files that wrap CPU profiles in `Profile`/`ProfileChunk` events (formats.md §6).
//!
//! Reading:
//! * One row of `sources` per CPU profile (a trace may hold several, keyed by event `id`), with
//!   extension columns `.name` (the thread name, for traces), `.start_time` and `.end_time`
//!   (`startTime`/`endTime` in seconds on V8's monotonic clock; `source_timestamp` is NA because
//!   that clock is not the epoch).
//! * One sample per entry of `samples`. Its stack is the path from the tree's root to the sampled
//!   node; the synthetic `(root)` node at the top is left out, every other node is a frame
//!   (`(program)`, `(idle)` and `(garbage collector)` included, so no time is lost).
//! * Value types: `samples`/`count` = 1 per sample, and `time`/`nanoseconds` = the sample's
//!   `timeDeltas` entry (µs × 1000), i.e. the interval that ended with the sample (the first is
//!   measured from `startTime`). Summing `time` per node therefore equals summing `timeDeltas`
//!   per node. `.time` is the sample's time in seconds from `startTime`. Negative deltas are
//!   clamped as speedscope does: time never goes backwards, such samples get 0 (warning).
//!   `time` is the default value type when present.
//! * Profiles without `samples` (only `hitCount`s) give one row per node with a non-zero
//!   `hitCount`, valued `samples` = hitCount, without time. When `samples` exist, `hitCount` is
//!   derived data and is not kept.
//! * Functions: one row per distinct call frame; `functionName` → name and system name
//!   (anonymous functions are named `(anonymous file:line)` as speedscope does), `url` →
//!   filename, `lineNumber + 1` → `start_line`, `columnNumber + 1` →
//!   `functions..start_column`, `scriptId` → `functions..script_id`. Locations have line 0,
//!   except the innermost frame of trace samples that carry `lines`/`columns`, whose line and
//!   `locations..column` come from there. Trace `codeType: "JS"` sets
//!   `locations..frame_type = "v8js"`.
//! * Old format (`head` tree, absolute `timestamps`): when there is one more timestamp than
//!   samples, the first is the start and sample *i* is at `timestamps[i+1]` (this matches the
//!   same recording in the new format exactly); with equal counts, sample *i* is at
//!   `timestamps[i]` and the start is `startTime` (seconds).
//! * Structural faults are errors: duplicate node ids, a node with two parents, parent cycles
//!   (found by an iterative walk, never a hang), and, in a bare profile, references to nodes
//!   that do not exist or `samples`/`timeDeltas` of different lengths. Chrome traces are often
//!   trimmed, so there dangling references are skipped with a warning, as speedscope does.
//! * `positionTicks`, `deoptReason`, `bailoutReason`, unknown keys and trace events other than
//!   CPU profiles are reported in warnings.

use std::collections::{BTreeMap, HashMap};

use serde::Deserialize;

use super::error::{Place, ReadError, Warning, Warnings};
use super::json_scan::{self, Member};
use super::read_common::{check_sample_limit, finish_parsed};
use super::{Format, Parsed, ReadOptions};
use crate::model::{
    Cell, ColumnKind, FunctionIndex, FunctionKey, LocationIndex, ProfileBuilder, SourceIndex,
    StackIndex, ValueTypeIndex, META_DEFAULT_TYPE, SAMPLE_TIME,
};

/// Format name used in errors and warnings.
pub const NAME: &str = "cpuprofile";
/// `sources` extension column: thread name (traces).
pub const SOURCE_NAME: &str = ".name";
/// `sources` extension column: `startTime` in seconds (V8 monotonic clock).
pub const SOURCE_START_TIME: &str = ".start_time";
/// `sources` extension column: `endTime` in seconds (V8 monotonic clock).
pub const SOURCE_END_TIME: &str = ".end_time";
/// `functions` extension column: 1-based column of the function's start.
pub const FUNCTION_START_COLUMN: &str = ".start_column";
/// `functions` extension column: V8's `scriptId`.
pub const FUNCTION_SCRIPT_ID: &str = ".script_id";
/// `locations` extension column: 1-based column of a sampled position.
pub const LOCATION_COLUMN: &str = ".column";

const KNOWN_PROFILE_KEYS: [&str; 5] = ["nodes", "startTime", "endTime", "samples", "timeDeltas"];
const KNOWN_OLD_KEYS: [&str; 5] = ["head", "startTime", "endTime", "samples", "timestamps"];
/// Names of trace events that carry CPU profiles.
const PROFILE_EVENTS: [&str; 3] = ["Profile", "ProfileChunk", "CpuProfile"];

/// True for a `.cpuprofile` (`nodes` plus timing keys), the old V8 format (`head` plus
/// `samples`/`timestamps`), or a Chrome trace (object with `traceEvents`, or a bare event array)
/// holding CPU profile events.
pub fn detect(bytes: &[u8]) -> bool {
    match json_scan::first_significant_byte(bytes) {
        Some(b'{') => {
            let Some(m) = json_scan::top_level_members(bytes) else {
                return false;
            };
            let has = |k: &str| json_scan::member(&m, k).is_some();
            let bare = json_scan::member_starts_with(bytes, &m, "nodes", b'[')
                && (has("samples") || has("timeDeltas") || has("startTime"));
            let old = json_scan::member_starts_with(bytes, &m, "head", b'{')
                && (has("timestamps") || has("samples"))
                && has("startTime");
            let trace = json_scan::member(&m, "traceEvents")
                .filter(|t| bytes.get(t.value.start) == Some(&b'['))
                .is_some_and(|t| {
                    has_profile_events(bytes.get(t.value.clone()).unwrap_or_default())
                });
            bare || old || trace
        }
        Some(b'[') => {
            let start = json_scan::skip_bom_and_ws(bytes);
            let first = json_scan::array_elements(bytes, start, 1).and_then(|e| e.first().cloned());
            let is_event = first
                .and_then(|r| json_scan::object_members(bytes, r.start))
                .is_some_and(|m| {
                    ["pid", "ph"]
                        .iter()
                        .all(|k| json_scan::member(&m, k).is_some())
                });
            is_event && has_profile_events(bytes)
        }
        _ => false,
    }
}

fn has_profile_events(bytes: &[u8]) -> bool {
    json_scan::contains(bytes, b"\"ProfileChunk\"") || json_scan::contains(bytes, b"\"CpuProfile\"")
}

/// A `scriptId`: a string in `.cpuprofile` files, a number in traces.
#[derive(Deserialize, Clone)]
#[serde(untagged)]
enum ScriptId {
    Text(String),
    Number(serde_json::Number),
}

impl ScriptId {
    fn text(&self) -> String {
        match self {
            ScriptId::Text(s) => s.clone(),
            ScriptId::Number(n) => n.to_string(),
        }
    }
}

#[derive(Deserialize, Default)]
struct RawCallFrame {
    #[serde(rename = "functionName", default)]
    function_name: Option<String>,
    #[serde(rename = "scriptId", default)]
    script_id: Option<ScriptId>,
    #[serde(default)]
    url: Option<String>,
    #[serde(rename = "lineNumber", default)]
    line_number: Option<f64>,
    #[serde(rename = "columnNumber", default)]
    column_number: Option<f64>,
    #[serde(rename = "codeType", default)]
    code_type: Option<String>,
    #[serde(flatten)]
    other: BTreeMap<String, serde::de::IgnoredAny>,
}

#[derive(Deserialize, Default)]
struct RawNode {
    id: i64,
    #[serde(rename = "callFrame", default)]
    call_frame: Option<RawCallFrame>,
    #[serde(rename = "hitCount", default)]
    hit_count: Option<f64>,
    #[serde(default)]
    children: Option<Vec<i64>>,
    #[serde(default)]
    parent: Option<i64>,
    #[serde(rename = "deoptReason", default)]
    deopt_reason: Option<String>,
    #[serde(rename = "positionTicks", default)]
    position_ticks: Option<Vec<serde::de::IgnoredAny>>,
    #[serde(flatten)]
    other: BTreeMap<String, serde::de::IgnoredAny>,
}

/// One CPU profile in the flat form every variant is brought to.
#[derive(Default)]
struct FlatProfile {
    nodes: Vec<RawNode>,
    samples: Option<Vec<i64>>,
    deltas: Option<Vec<f64>>,
    /// Per sample `(line, column)` of the sampled position (traces), or empty.
    positions: Vec<Option<(i64, i64)>>,
    start_time: Option<f64>,
    end_time: Option<f64>,
    name: Option<String>,
    /// Dangling references are warnings (traces) rather than errors.
    lenient: bool,
    /// Prefix of error paths (`""` for a bare profile).
    path: String,
}

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

/// Where the old-format walker is inside a node object.
#[derive(Clone, Copy, PartialEq, Eq)]
enum OldState {
    /// Between the members of the node.
    Members,
    /// Inside the node's `children` array.
    Children,
}

/// Flattens the old format's nested `head` tree in one pass with an explicit stack (linear time,
/// no recursion, any depth): every node records its parent.
fn old_nodes(
    bytes: &[u8],
    head: usize,
    warnings: &mut Warnings,
) -> Result<Vec<RawNode>, ReadError> {
    let mut w = OldWalker::default();
    let mut pos = w.open(bytes, head)?;
    while let Some(&(index, state)) = w.stack.last() {
        pos = json_scan::skip_ws(bytes, pos);
        let byte = bytes.get(pos).copied();
        pos = match (state, byte) {
            (_, Some(b',')) => pos + 1,
            (OldState::Members, Some(b'}')) => {
                w.stack.pop();
                pos + 1
            }
            (OldState::Members, Some(b'"')) => w.member(bytes, pos, index, warnings)?,
            (OldState::Children, Some(b']')) => {
                if let Some(top) = w.stack.last_mut() {
                    top.1 = OldState::Members;
                }
                pos + 1
            }
            (OldState::Children, Some(b'{')) => w.open(bytes, pos)?,
            _ => return Err(old_error(pos, "malformed node tree in `head`")),
        };
    }
    w.finish()
}

/// State of [`old_nodes`].
#[derive(Default)]
struct OldWalker {
    nodes: Vec<RawNode>,
    ids: Vec<Option<i64>>,
    parents: Vec<Option<usize>>,
    starts: Vec<usize>,
    stack: Vec<(usize, OldState)>,
}

impl OldWalker {
    /// Starts the node whose `{` is at `pos`; returns the position after it.
    fn open(&mut self, bytes: &[u8], pos: usize) -> Result<usize, ReadError> {
        if bytes.get(pos) != Some(&b'{') {
            return Err(old_error(pos, "expected a node object"));
        }
        let index = self.nodes.len();
        self.nodes.push(RawNode {
            call_frame: Some(RawCallFrame::default()),
            ..RawNode::default()
        });
        self.ids.push(None);
        self.parents.push(self.stack.last().map(|&(p, _)| p));
        self.starts.push(pos);
        self.stack.push((index, OldState::Members));
        Ok(pos + 1)
    }

    /// Reads the member starting at `pos` into node `index`; returns the position after it.
    fn member(
        &mut self,
        bytes: &[u8],
        pos: usize,
        index: usize,
        warnings: &mut Warnings,
    ) -> Result<usize, ReadError> {
        let key_end =
            json_scan::string_end(bytes, pos).ok_or_else(|| old_error(pos, "unterminated key"))?;
        let key: String = json_scan::parse_member(NAME, bytes, pos..key_end, "head")?;
        let colon = json_scan::skip_ws(bytes, key_end);
        if bytes.get(colon) != Some(&b':') {
            return Err(old_error(colon, "expected `:` after a key"));
        }
        let start = json_scan::skip_ws(bytes, colon + 1);
        if key == "children" && bytes.get(start) == Some(&b'[') {
            if let Some(top) = self.stack.last_mut() {
                top.1 = OldState::Children;
            }
            return Ok(start + 1);
        }
        let end = json_scan::value_end(bytes, start)
            .ok_or_else(|| old_error(start, "malformed value"))?;
        self.field(bytes, index, &key, start..end, warnings)?;
        Ok(end)
    }

    fn field(
        &mut self,
        bytes: &[u8],
        index: usize,
        key: &str,
        span: std::ops::Range<usize>,
        warnings: &mut Warnings,
    ) -> Result<(), ReadError> {
        let path = format!("head node {key}");
        let (Some(node), Some(id)) = (self.nodes.get_mut(index), self.ids.get_mut(index)) else {
            return Ok(());
        };
        let cf = node.call_frame.get_or_insert_with(RawCallFrame::default);
        let s = span.clone();
        match key {
            "id" => *id = json_scan::parse_member(NAME, bytes, s, &path)?,
            "functionName" => cf.function_name = json_scan::parse_member(NAME, bytes, s, &path)?,
            "url" => cf.url = json_scan::parse_member(NAME, bytes, s, &path)?,
            "lineNumber" => cf.line_number = json_scan::parse_member(NAME, bytes, s, &path)?,
            "columnNumber" => cf.column_number = json_scan::parse_member(NAME, bytes, s, &path)?,
            "scriptId" => cf.script_id = json_scan::parse_member(NAME, bytes, s, &path)?,
            "hitCount" => node.hit_count = json_scan::parse_member(NAME, bytes, s, &path)?,
            "deoptReason" => node.deopt_reason = json_scan::parse_member(NAME, bytes, s, &path)?,
            "positionTicks" => {
                node.position_ticks = json_scan::parse_member(NAME, bytes, s, &path)?
            }
            _ => {
                let value: serde_json::Value = json_scan::parse_member(NAME, bytes, s, &path)?;
                note_old_node_key(key, &value, warnings);
            }
        }
        Ok(())
    }

    fn finish(self) -> Result<Vec<RawNode>, ReadError> {
        let mut nodes = self.nodes;
        for (k, node) in nodes.iter_mut().enumerate() {
            node.id = self.ids.get(k).copied().flatten().ok_or_else(|| {
                old_error(
                    self.starts.get(k).copied().unwrap_or(0),
                    "the node has no `id`",
                )
            })?;
            node.parent = self
                .parents
                .get(k)
                .copied()
                .flatten()
                .and_then(|p| self.ids.get(p).copied().flatten());
        }
        Ok(nodes)
    }
}

fn old_error(pos: usize, message: &str) -> ReadError {
    ReadError::new(NAME, Place::Byte(pos as u64), message)
}

/// Reports old-format node data that is not kept: `bailoutReason`, `callUID`, unknown keys.
fn note_old_node_key(key: &str, value: &serde_json::Value, warnings: &mut Warnings) {
    match key {
        "bailoutReason" => {
            if value.as_str().is_some_and(|r| !r.is_empty()) {
                warnings.add(NAME, "bailout", || {
                    "bailoutReason of nodes not kept (V8 optimization notes)".to_owned()
                });
            }
        }
        "callUID" => warnings.add(NAME, "calluid", || {
            "callUID of nodes not kept (V8's internal function ids)".to_owned()
        }),
        _ => warnings.add(NAME, &format!("node-key-{key}"), || {
            format!("node key {key:?} not kept")
        }),
    }
}

/// The old format's nodes with absolute timestamps turned into deltas (see the module
/// documentation for the off-by-one rule).
fn old_profile(
    nodes: Vec<RawNode>,
    samples: Option<Vec<i64>>,
    stamps: Option<Vec<f64>>,
    start: Option<f64>,
    end: Option<f64>,
) -> Result<FlatProfile, ReadError> {
    let start_us = start.map(|s| s * 1e6);
    let (origin, deltas) = match (&samples, stamps) {
        (Some(s), Some(t)) => old_deltas(s.len(), &t, start_us)?,
        (_, _) => (start_us, None),
    };
    Ok(FlatProfile {
        nodes,
        samples,
        deltas,
        start_time: origin,
        end_time: end.map(|e| e * 1e6),
        ..FlatProfile::default()
    })
}

/// `(start µs, deltas)` from absolute timestamps.
fn old_deltas(
    n: usize,
    stamps: &[f64],
    start_us: Option<f64>,
) -> Result<(Option<f64>, Option<Vec<f64>>), ReadError> {
    let (origin, times) = if stamps.len() == n + 1 {
        (stamps.first().copied(), stamps.get(1..).unwrap_or_default())
    } else if stamps.len() == n {
        (start_us, stamps)
    } else {
        return Err(ReadError::new(
            NAME,
            Place::Path("timestamps".to_owned()),
            format!(
                "{} timestamps for {n} samples (expected {n} or {})",
                stamps.len(),
                n + 1
            ),
        ));
    };
    let mut prev = origin.or(times.first().copied()).unwrap_or(0.0);
    let deltas = times
        .iter()
        .map(|&t| {
            let d = t - prev;
            prev = t;
            d
        })
        .collect();
    Ok((Some(origin.unwrap_or(0.0)), Some(deltas)))
}

#[derive(Deserialize)]
struct TraceEvent {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    pid: Option<serde_json::Value>,
    #[serde(default)]
    tid: Option<serde_json::Value>,
    #[serde(default)]
    id: Option<serde_json::Value>,
    #[serde(default)]
    ts: Option<f64>,
    #[serde(default)]
    args: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct ChunkData {
    #[serde(rename = "cpuProfile", default)]
    cpu_profile: Option<ChunkProfile>,
    #[serde(rename = "timeDeltas", default)]
    time_deltas: Option<Vec<f64>>,
    #[serde(rename = "startTime", default)]
    start_time: Option<f64>,
    #[serde(rename = "endTime", default)]
    end_time: Option<f64>,
    #[serde(default)]
    lines: Option<Vec<i64>>,
    #[serde(default)]
    columns: Option<Vec<i64>>,
}

#[derive(Deserialize)]
struct ChunkProfile {
    #[serde(default)]
    nodes: Option<Vec<RawNode>>,
    #[serde(default)]
    samples: Option<Vec<i64>>,
    #[serde(rename = "timeDeltas", default)]
    time_deltas: Option<Vec<f64>>,
    #[serde(rename = "startTime", default)]
    start_time: Option<f64>,
    #[serde(rename = "endTime", default)]
    end_time: Option<f64>,
}

fn value_key(v: Option<&serde_json::Value>) -> String {
    match v {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

/// Collects the CPU profiles of a trace: events sorted by `ts` (stably), `Profile` or
/// `CpuProfile` events open a profile keyed by `id` (else `pid:tid`), `ProfileChunk` events
/// append nodes, samples and deltas to it.
fn trace_profiles(
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
    let mut profiles: HashMap<String, FlatProfile> = HashMap::new();
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

fn thread_names(events: &[TraceEvent]) -> HashMap<String, String> {
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

fn append_chunk(profile: &mut FlatProfile, data: ChunkData, path: &str, warnings: &mut Warnings) {
    let (mut nodes, mut samples, mut inner_deltas) = (Vec::new(), Vec::new(), None);
    if let Some(cp) = data.cpu_profile {
        nodes = cp.nodes.unwrap_or_default();
        samples = cp.samples.unwrap_or_default();
        inner_deltas = cp.time_deltas;
        profile.start_time = cp.start_time.or(profile.start_time);
        profile.end_time = cp.end_time.or(profile.end_time);
    }
    profile.start_time = data.start_time.or(profile.start_time);
    profile.end_time = data.end_time.or(profile.end_time);
    let deltas = data.time_deltas.or(inner_deltas);
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

/// Walk state of a node while computing stacks.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Walk {
    New,
    OnPath,
    Done,
}

/// Identity of a call frame.
type FrameKey = (String, String, String, i64, i64);

/// Turns flat profiles into the builder's tables.
struct Converter<'o> {
    options: &'o ReadOptions,
    b: ProfileBuilder,
    functions: HashMap<FrameKey, FunctionIndex>,
    locations: HashMap<(u32, i32, i32), LocationIndex>,
    samples_vt: ValueTypeIndex,
    time_vt: Option<ValueTypeIndex>,
}

impl<'o> Converter<'o> {
    fn new(options: &'o ReadOptions) -> Self {
        let mut b = ProfileBuilder::new();
        let samples_vt = b.value_type("samples", "count");
        Converter {
            options,
            b,
            functions: HashMap::new(),
            locations: HashMap::new(),
            samples_vt,
            time_vt: None,
        }
    }

    fn add_profile(&mut self, fp: FlatProfile, warnings: &mut Warnings) -> Result<(), ReadError> {
        let source = self.source(&fp);
        let index = node_index(&fp)?;
        let parents = parent_links(&fp, &index, warnings)?;
        let stacks = self.node_stacks(&fp, &parents, warnings)?;
        let has_samples = fp.samples.as_ref().is_some_and(|s| !s.is_empty()) || fp.deltas.is_some();
        if has_samples {
            self.timed_samples(&fp, source, &index, &parents, &stacks, warnings)
        } else {
            self.hit_count_samples(&fp, source, &stacks)
        }
    }

    fn source(&mut self, fp: &FlatProfile) -> SourceIndex {
        let uri = self.options.source_uri.clone();
        let source = self.b.add_source(NAME, uri.as_deref(), None);
        let name = self.b.strings().intern_opt(fp.name.as_deref());
        let row = source.idx();
        let ext = &mut self.b.sources_mut().ext;
        let _ = ext.set(SOURCE_NAME, row, Cell::Chr(name));
        let seconds = |us: Option<f64>| us.map_or(f64::NAN, |v| v / 1e6);
        let _ = ext.set(SOURCE_START_TIME, row, Cell::Dbl(seconds(fp.start_time)));
        let _ = ext.set(SOURCE_END_TIME, row, Cell::Dbl(seconds(fp.end_time)));
        source
    }

    /// The stack of every node (`None` for the skipped `(root)`), parents first, iteratively.
    fn node_stacks(
        &mut self,
        fp: &FlatProfile,
        parents: &[Option<usize>],
        warnings: &mut Warnings,
    ) -> Result<Vec<Option<StackIndex>>, ReadError> {
        let n = fp.nodes.len();
        let mut state = vec![Walk::New; n];
        let mut stacks: Vec<Option<StackIndex>> = vec![None; n];
        let mut depth: Vec<usize> = vec![0; n];
        let mut path: Vec<usize> = Vec::new();
        for start in 0..n {
            path.clear();
            let mut cur = start;
            while state.get(cur) == Some(&Walk::New) {
                state[cur] = Walk::OnPath;
                path.push(cur);
                match parents.get(cur).copied().flatten() {
                    Some(p) => cur = p,
                    None => break,
                }
            }
            if state.get(cur) == Some(&Walk::OnPath)
                && parents.get(cur).copied().flatten().is_some()
            {
                return Err(ReadError::new(
                    NAME,
                    Place::Path(format!("{}nodes[{cur}]", fp.path)),
                    format!(
                        "the parent links of node id {} form a cycle",
                        fp.nodes.get(cur).map_or(0, |x| x.id)
                    ),
                ));
            }
            for &k in path.iter().rev() {
                let parent = parents.get(k).copied().flatten();
                let (prefix, parent_depth) = parent.map_or((None, 0), |p| (stacks[p], depth[p]));
                let node = &fp.nodes[k];
                if parent.is_none() && is_root_frame(node) {
                    stacks[k] = None;
                    depth[k] = 0;
                } else {
                    if parent_depth >= self.options.limits.max_stack_depth {
                        return Err(ReadError::new(
                            NAME,
                            Place::Path(format!("{}nodes[{k}]", fp.path)),
                            format!(
                                "the stack is deeper than {} frames (the stack depth limit)",
                                self.options.limits.max_stack_depth
                            ),
                        ));
                    }
                    let loc = self.node_location(node, None, warnings);
                    stacks[k] = Some(self.b.stack_node(prefix, loc));
                    depth[k] = parent_depth + 1;
                }
                state[k] = Walk::Done;
            }
        }
        Ok(stacks)
    }

    fn node_location(
        &mut self,
        node: &RawNode,
        position: Option<(i64, i64)>,
        warnings: &mut Warnings,
    ) -> LocationIndex {
        let empty = RawCallFrame::default();
        let cf = node.call_frame.as_ref().unwrap_or(&empty);
        if position.is_none() {
            note_dropped(node, cf, warnings);
        }
        let f = self.function(cf);
        let (line, col) = position.map_or((0, crate::model::INT_NA), |(l, c)| {
            (
                clamp_i32(l),
                if c > 0 {
                    clamp_i32(c)
                } else {
                    crate::model::INT_NA
                },
            )
        });
        let key = (f.0, line, col);
        if let Some(&loc) = self.locations.get(&key) {
            return loc;
        }
        let loc = self.b.add_location(Some(f), line);
        if col != crate::model::INT_NA {
            self.b
                .set_location_ext(loc, LOCATION_COLUMN, Cell::Int(col));
        }
        if cf.code_type.as_deref() == Some("JS") {
            let v8js = self.b.intern("v8js");
            self.b.set_location_ext(loc, ".frame_type", Cell::Chr(v8js));
        }
        self.locations.insert(key, loc);
        loc
    }

    fn function(&mut self, cf: &RawCallFrame) -> FunctionIndex {
        let raw = cf.function_name.clone().unwrap_or_default();
        let script = cf
            .script_id
            .as_ref()
            .map(ScriptId::text)
            .unwrap_or_default();
        let url = cf.url.clone().unwrap_or_default();
        let line = whole(cf.line_number);
        let col = whole(cf.column_number);
        let key = (raw, script, url, line, col);
        if let Some(&f) = self.functions.get(&key) {
            return f;
        }
        let (raw, script, url, line, col) = &key;
        let shown = if raw.is_empty() {
            anonymous_name(url, *line)
        } else {
            raw.clone()
        };
        let name = self.b.intern(&shown);
        let filename = self
            .b
            .strings()
            .intern_opt(Some(url.as_str()).filter(|u| !u.is_empty()));
        let start_line = if *line >= 0 {
            clamp_i32(line.saturating_add(1))
        } else {
            0
        };
        let f = self.b.add_function(FunctionKey {
            name,
            system_name: name,
            filename,
            start_line,
        });
        if *col >= 0 {
            let _ = self.b.functions_mut().ext.set(
                FUNCTION_START_COLUMN,
                f.idx(),
                Cell::Int(clamp_i32(col.saturating_add(1))),
            );
        }
        if !script.is_empty() && script != "0" {
            let id = self.b.intern(script);
            let _ = self
                .b
                .functions_mut()
                .ext
                .set(FUNCTION_SCRIPT_ID, f.idx(), Cell::Chr(id));
        }
        self.functions.insert(key, f);
        f
    }

    #[allow(clippy::too_many_arguments)]
    fn timed_samples(
        &mut self,
        fp: &FlatProfile,
        source: SourceIndex,
        index: &HashMap<i64, usize>,
        parents: &[Option<usize>],
        stacks: &[Option<StackIndex>],
        warnings: &mut Warnings,
    ) -> Result<(), ReadError> {
        let samples = fp.samples.as_deref().unwrap_or_default();
        let deltas = self.checked_deltas(fp, samples.len(), warnings)?;
        if deltas.is_some() && self.time_vt.is_none() {
            self.time_vt = Some(self.b.value_type("time", "nanoseconds"));
            self.b.declare_sample_column(SAMPLE_TIME, ColumnKind::Dbl);
        }
        let mut clock = Clock::default();
        for (i, &id) in samples.iter().enumerate() {
            let delta = deltas.and_then(|d| d.get(i)).copied();
            let (time, weight) = clock.advance(delta.unwrap_or(0.0), warnings);
            let Some(&k) = index.get(&id) else {
                if fp.lenient {
                    warnings.add(NAME, "unknown-sample-node", || {
                        format!("samples of nodes that are not in the profile were skipped (first: {}samples[{i}], id {id})", fp.path)
                    });
                    continue;
                }
                return Err(ReadError::new(
                    NAME,
                    Place::Path(format!("samples[{i}]")),
                    format!("the sample refers to node id {id}, which is not in `nodes`"),
                ));
            };
            let position = fp.positions.get(i).copied().flatten();
            let stack = self.sample_stack(fp, k, position, parents, stacks, warnings);
            self.add_sample(source, stack, delta.map(|_| (time, weight)))?;
        }
        Ok(())
    }

    /// `timeDeltas` when present, checked against the number of samples.
    fn checked_deltas<'f>(
        &self,
        fp: &'f FlatProfile,
        n: usize,
        warnings: &mut Warnings,
    ) -> Result<Option<&'f [f64]>, ReadError> {
        let Some(d) = fp.deltas.as_deref() else {
            return Ok(None);
        };
        if fp.samples.is_none() {
            return Err(ReadError::whole(NAME, "`timeDeltas` without `samples`"));
        }
        if d.len() != n {
            if !fp.lenient {
                return Err(ReadError::whole(
                    NAME,
                    format!("`samples` has {n} entries but `timeDeltas` has {}", d.len()),
                ));
            }
            warnings.add(NAME, "delta-count", || {
                format!("{}samples and timeDeltas differ in length ({n} and {}); samples without a delta have no time", fp.path, d.len())
            });
        }
        Ok(Some(d))
    }

    fn sample_stack(
        &mut self,
        fp: &FlatProfile,
        k: usize,
        position: Option<(i64, i64)>,
        parents: &[Option<usize>],
        stacks: &[Option<StackIndex>],
        warnings: &mut Warnings,
    ) -> Option<StackIndex> {
        let base = stacks.get(k).copied().flatten();
        match position.filter(|&(line, _)| line > 0) {
            Some(pos) if base.is_some() => {
                let prefix = parents.get(k).copied().flatten().and_then(|p| stacks[p]);
                let node = fp.nodes.get(k)?;
                let loc = self.node_location(node, Some(pos), warnings);
                Some(self.b.stack_node(prefix, loc))
            }
            _ => base,
        }
    }

    fn add_sample(
        &mut self,
        source: SourceIndex,
        stack: Option<StackIndex>,
        timing: Option<(f64, f64)>,
    ) -> Result<(), ReadError> {
        check_sample_limit(&self.b, Format::Cpuprofile, self.options.limits.max_samples)?;
        let s = self.b.add_sample(source, stack);
        self.b.set_value(s, self.samples_vt, 1.0);
        if let (Some(vt), Some((time, weight))) = (self.time_vt, timing) {
            self.b.set_value(s, vt, weight * 1000.0);
            self.b.set_sample_ext(s, SAMPLE_TIME, Cell::Dbl(time / 1e6));
        }
        Ok(())
    }

    fn hit_count_samples(
        &mut self,
        fp: &FlatProfile,
        source: SourceIndex,
        stacks: &[Option<StackIndex>],
    ) -> Result<(), ReadError> {
        for (k, node) in fp.nodes.iter().enumerate() {
            let hits = node.hit_count.unwrap_or(0.0);
            if hits > 0.0 {
                if self.b.num_samples() >= self.options.limits.max_samples {
                    return Err(ReadError::whole(
                        NAME,
                        "too many nodes with hitCount (the sample limit)",
                    ));
                }
                let s = self.b.add_sample(source, stacks.get(k).copied().flatten());
                self.b.set_value(s, self.samples_vt, hits);
            }
        }
        Ok(())
    }

    fn finish(mut self, warnings: Warnings) -> Result<Parsed, ReadError> {
        let default = if self.time_vt.is_some() {
            "time"
        } else {
            "samples"
        };
        self.b.set_meta(META_DEFAULT_TYPE, default);
        finish_parsed(self.b, Format::Cpuprofile, warnings)
    }
}

/// Sample times from deltas, clamped so time never goes backwards (µs from `startTime`).
#[derive(Default)]
struct Clock {
    raw: f64,
    time: f64,
}

impl Clock {
    /// Advances by `delta`; returns the sample's time and weight (both µs).
    fn advance(&mut self, delta: f64, warnings: &mut Warnings) -> (f64, f64) {
        self.raw += if delta.is_finite() { delta } else { 0.0 };
        if self.raw < self.time {
            warnings.add(NAME, "negative-delta", || {
                "negative timeDeltas were clamped (time never goes backwards; such samples weigh 0)"
                    .to_owned()
            });
            return (self.time, 0.0);
        }
        let weight = self.raw - self.time;
        self.time = self.raw;
        (self.time, weight)
    }
}

/// Node id → position in `nodes`; duplicate ids are an error.
fn node_index(fp: &FlatProfile) -> Result<HashMap<i64, usize>, ReadError> {
    let mut index = HashMap::with_capacity(fp.nodes.len());
    for (i, node) in fp.nodes.iter().enumerate() {
        if index.insert(node.id, i).is_some() {
            return Err(ReadError::new(
                NAME,
                Place::Path(format!("{}nodes[{i}].id", fp.path)),
                format!("duplicate node id {}", node.id),
            ));
        }
    }
    Ok(index)
}

/// Parent of every node, from `children` lists and `parent` fields.
fn parent_links(
    fp: &FlatProfile,
    index: &HashMap<i64, usize>,
    warnings: &mut Warnings,
) -> Result<Vec<Option<usize>>, ReadError> {
    let mut parents: Vec<Option<usize>> = vec![None; fp.nodes.len()];
    for (i, node) in fp.nodes.iter().enumerate() {
        for (j, &child) in node.children.iter().flatten().enumerate() {
            let at = || format!("{}nodes[{i}].children[{j}]", fp.path);
            let Some(c) = resolve(fp, index, child, &at, warnings)? else {
                continue;
            };
            link(fp, &mut parents, c, i, &at)?;
        }
        if let Some(parent) = node.parent {
            let at = || format!("{}nodes[{i}].parent", fp.path);
            if let Some(p) = resolve(fp, index, parent, &at, warnings)? {
                link(fp, &mut parents, i, p, &at)?;
            }
        }
    }
    Ok(parents)
}

/// The position of node `id`; a missing node is an error, or a warning in lenient mode.
fn resolve(
    fp: &FlatProfile,
    index: &HashMap<i64, usize>,
    id: i64,
    at: &dyn Fn() -> String,
    warnings: &mut Warnings,
) -> Result<Option<usize>, ReadError> {
    if let Some(&k) = index.get(&id) {
        return Ok(Some(k));
    }
    if fp.lenient {
        warnings.add(NAME, "unknown-node-link", || {
            format!("links to nodes that are not in the profile were ignored; such nodes start at the top (first: {}, id {id})", at())
        });
        return Ok(None);
    }
    Err(ReadError::new(
        NAME,
        Place::Path(at()),
        format!("node id {id} is not in `nodes`"),
    ))
}

/// Records `parent` as the parent of `child`.
fn link(
    fp: &FlatProfile,
    parents: &mut [Option<usize>],
    child: usize,
    parent: usize,
    at: &dyn Fn() -> String,
) -> Result<(), ReadError> {
    let id = |k: usize| fp.nodes.get(k).map_or(0, |n| n.id);
    if child == parent {
        return Err(ReadError::new(
            NAME,
            Place::Path(at()),
            format!("node id {} is its own parent", id(child)),
        ));
    }
    match parents.get(child).copied().flatten() {
        Some(p) if p != parent => Err(ReadError::new(
            NAME,
            Place::Path(at()),
            format!(
                "node id {} has two parents (ids {} and {})",
                id(child),
                id(p),
                id(parent)
            ),
        )),
        _ => {
            if let Some(slot) = parents.get_mut(child) {
                *slot = Some(parent);
            }
            Ok(())
        }
    }
}

fn is_root_frame(node: &RawNode) -> bool {
    node.call_frame
        .as_ref()
        .and_then(|cf| cf.function_name.as_deref())
        == Some("(root)")
}

/// Warnings for node data proftab does not keep.
fn note_dropped(node: &RawNode, cf: &RawCallFrame, warnings: &mut Warnings) {
    if node.position_ticks.as_ref().is_some_and(|t| !t.is_empty()) {
        warnings.add(NAME, "position-ticks", || {
            "positionTicks (per-line hit counts of nodes) were not kept: proftab attributes samples to functions".to_owned()
        });
    }
    if node.deopt_reason.as_deref().is_some_and(|r| !r.is_empty()) {
        warnings.add(NAME, "deopt", || {
            "deoptReason of nodes not kept (V8 optimization notes)".to_owned()
        });
    }
    for key in node.other.keys().chain(cf.other.keys()) {
        warnings.add(NAME, &format!("node-key-{key}"), || {
            format!("node key {key:?} not kept")
        });
    }
}

/// speedscope's name for an anonymous function: `(anonymous file:line)`.
fn anonymous_name(url: &str, line: i64) -> String {
    if url.is_empty() {
        return "(anonymous)".to_owned();
    }
    let file = url.rsplit('/').next().unwrap_or(url);
    if line >= 0 {
        format!("(anonymous {file}:{})", line.saturating_add(1))
    } else {
        format!("(anonymous {file})")
    }
}

/// A whole number from JSON (`-1` when absent or not whole).
fn whole(v: Option<f64>) -> i64 {
    match v {
        Some(x) if x.is_finite() && x.fract() == 0.0 && x.abs() < 9e15 => x as i64,
        _ => -1,
    }
}

fn clamp_i32(v: i64) -> i32 {
    i32::try_from(v.clamp(0, i64::from(i32::MAX))).unwrap_or(0)
}
