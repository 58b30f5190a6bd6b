//! The JSON shapes of CPU profiles as serde reads them: V8's nodes and call frames (with the
//! keys proftab does not know collected, so they can be reported), the flat profile every
//! variant is brought to, and the trace events that carry profiles in Chrome traces.

use std::collections::BTreeMap;

use serde::Deserialize;

/// A `scriptId`: a string in `.cpuprofile` files, a number in traces.
#[derive(Deserialize, Clone)]
#[serde(untagged)]
pub(super) enum ScriptId {
    Text(String),
    Number(serde_json::Number),
}

impl ScriptId {
    pub(super) fn text(&self) -> String {
        match self {
            ScriptId::Text(s) => s.clone(),
            ScriptId::Number(n) => n.to_string(),
        }
    }
}

#[derive(Deserialize, Default)]
pub(super) struct RawCallFrame {
    #[serde(rename = "functionName", default)]
    pub(super) function_name: Option<String>,
    #[serde(rename = "scriptId", default)]
    pub(super) script_id: Option<ScriptId>,
    #[serde(default)]
    pub(super) url: Option<String>,
    #[serde(rename = "lineNumber", default)]
    pub(super) line_number: Option<f64>,
    #[serde(rename = "columnNumber", default)]
    pub(super) column_number: Option<f64>,
    #[serde(rename = "codeType", default)]
    pub(super) code_type: Option<String>,
    #[serde(flatten)]
    pub(super) other: BTreeMap<String, serde::de::IgnoredAny>,
}

#[derive(Deserialize, Default)]
pub(super) struct RawNode {
    pub(super) id: i64,
    #[serde(rename = "callFrame", default)]
    pub(super) call_frame: Option<RawCallFrame>,
    #[serde(rename = "hitCount", default)]
    pub(super) hit_count: Option<f64>,
    #[serde(default)]
    pub(super) children: Option<Vec<i64>>,
    #[serde(default)]
    pub(super) parent: Option<i64>,
    #[serde(rename = "deoptReason", default)]
    pub(super) deopt_reason: Option<String>,
    #[serde(rename = "positionTicks", default)]
    pub(super) position_ticks: Option<Vec<serde::de::IgnoredAny>>,
    #[serde(flatten)]
    pub(super) other: BTreeMap<String, serde::de::IgnoredAny>,
}

/// One CPU profile in the flat form every variant is brought to.
#[derive(Default)]
pub(super) struct FlatProfile {
    pub(super) nodes: Vec<RawNode>,
    pub(super) samples: Option<Vec<i64>>,
    pub(super) deltas: Option<Vec<f64>>,
    /// Per sample `(line, column)` of the sampled position (traces), or empty.
    pub(super) positions: Vec<Option<(i64, i64)>>,
    pub(super) start_time: Option<f64>,
    pub(super) end_time: Option<f64>,
    pub(super) name: Option<String>,
    /// Dangling references are warnings (traces) rather than errors.
    pub(super) lenient: bool,
    /// Prefix of error paths (`""` for a bare profile).
    pub(super) path: String,
}

#[derive(Deserialize)]
pub(super) struct TraceEvent {
    #[serde(default)]
    pub(super) name: Option<String>,
    #[serde(default)]
    pub(super) pid: Option<serde_json::Value>,
    #[serde(default)]
    pub(super) tid: Option<serde_json::Value>,
    #[serde(default)]
    pub(super) id: Option<serde_json::Value>,
    #[serde(default)]
    pub(super) ts: Option<f64>,
    #[serde(default)]
    pub(super) args: Option<serde_json::Value>,
}

#[derive(Deserialize)]
pub(super) struct ChunkData {
    #[serde(rename = "cpuProfile", default)]
    pub(super) cpu_profile: Option<ChunkProfile>,
    #[serde(flatten)]
    pub(super) timing: Timing,
    #[serde(default)]
    pub(super) lines: Option<Vec<i64>>,
    #[serde(default)]
    pub(super) columns: Option<Vec<i64>>,
}

#[derive(Deserialize)]
pub(super) struct ChunkProfile {
    #[serde(default)]
    pub(super) nodes: Option<Vec<RawNode>>,
    #[serde(default)]
    pub(super) samples: Option<Vec<i64>>,
    #[serde(flatten)]
    pub(super) timing: Timing,
}

/// The timing members that a `ProfileChunk`'s data and its `cpuProfile` may both carry.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub(super) struct Timing {
    #[serde(default)]
    pub(super) time_deltas: Option<Vec<f64>>,
    #[serde(default)]
    pub(super) start_time: Option<f64>,
    #[serde(default)]
    pub(super) end_time: Option<f64>,
}
