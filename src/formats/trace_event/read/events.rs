//! The events of a trace: the array's elements (a cut-short array is accepted), each
//! deserialized into [`Event`], and the names of processes and threads from `M` events.

use std::ops::Range;

use serde::Deserialize;

use crate::formats::error::{Place, ReadError, Warnings};
use crate::formats::json_scan;
use crate::formats::trace_event::{MAX_EVENTS, NAME};
use crate::hash::HashMap;

/// One trace event, with only the members proftab uses.
#[derive(Deserialize, Default, Clone)]
pub(super) struct Event {
    #[serde(default)]
    pub(super) ph: String,
    #[serde(default)]
    pub(super) name: Option<String>,
    #[serde(default)]
    pub(super) pid: Option<serde_json::Value>,
    #[serde(default)]
    pub(super) tid: Option<serde_json::Value>,
    #[serde(default)]
    pub(super) ts: Option<serde_json::Value>,
    #[serde(default)]
    pub(super) dur: Option<serde_json::Value>,
    #[serde(default)]
    pub(super) tdur: Option<serde_json::Value>,
    #[serde(default)]
    pub(super) args: Option<serde_json::Value>,
}

/// A number written as a JSON number or a numeric string (Hermes writes `"ts": "1155"`).
pub(super) fn number(v: Option<&serde_json::Value>) -> Option<f64> {
    match v? {
        serde_json::Value::Number(n) => n.as_f64(),
        serde_json::Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
    .filter(|x: &f64| x.is_finite())
}

/// An id (`pid`, `tid`) as text: numbers as written, strings as they are.
pub(super) fn id_text(v: Option<&serde_json::Value>) -> String {
    match v {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(serde_json::Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

/// The range of the first element of the array at `open` (complete or not).
pub(crate) fn first_element(bytes: &[u8], open: usize) -> Option<Range<usize>> {
    if bytes.get(open) != Some(&b'[') {
        return None;
    }
    let pos = json_scan::skip_ws(bytes, open + 1);
    let end = json_scan::value_end(bytes, pos)?;
    Some(pos..end)
}

/// The events of the array at `open`. The array may end early (end of input before `]`,
/// after a trailing comma or inside the last event, which is then skipped with a warning).
pub(super) fn parse_events(
    bytes: &[u8],
    open: usize,
    warnings: &mut Warnings,
) -> Result<Vec<Event>, ReadError> {
    if bytes.get(open) != Some(&b'[') {
        return Err(ReadError::new(
            NAME,
            Place::Byte(open as u64),
            "expected an array of events",
        ));
    }
    let mut events = Vec::new();
    let mut pos = json_scan::skip_ws(bytes, open + 1);
    loop {
        match bytes.get(pos) {
            None => {
                warnings.add(NAME, "unterminated", || {
                    "the event array has no closing `]` (a trace cut short, as the format allows)"
                        .to_owned()
                });
                return Ok(events);
            }
            Some(b']') => return Ok(events),
            Some(b',') => pos = json_scan::skip_ws(bytes, pos + 1),
            Some(_) => {
                let Some(end) = json_scan::value_end(bytes, pos) else {
                    warnings.add(NAME, "cut-event", || {
                        format!("the last event is cut short and was skipped (at byte {pos})")
                    });
                    return Ok(events);
                };
                if events.len() >= MAX_EVENTS {
                    return Err(ReadError::whole(
                        NAME,
                        format!("more than {MAX_EVENTS} events (the event limit)"),
                    ));
                }
                let path = format!("event {}", events.len());
                events.push(json_scan::parse_member(NAME, bytes, pos..end, &path)?);
                pos = json_scan::skip_ws(bytes, end);
                match bytes.get(pos) {
                    Some(b',' | b']') | None => {}
                    Some(_) => return Err(syntax(pos, "expected `,` or `]` after an event")),
                }
            }
        }
    }
}

fn syntax(pos: usize, message: &str) -> ReadError {
    ReadError::new(NAME, Place::Byte(pos as u64), message)
}

/// Names from `M` events: processes by pid, threads by `pid:tid`.
#[derive(Default)]
pub(super) struct Names {
    pub(super) processes: HashMap<String, String>,
    pub(super) threads: HashMap<String, String>,
}

impl Names {
    pub(super) fn from_events(events: &[Event]) -> Names {
        let mut names = Names::default();
        for e in events.iter().filter(|e| e.ph == "M") {
            let Some(n) = e
                .args
                .as_ref()
                .and_then(|a| a.get("name"))
                .and_then(|n| n.as_str())
            else {
                continue;
            };
            let pid = id_text(e.pid.as_ref());
            match e.name.as_deref() {
                Some("process_name") => {
                    names.processes.insert(pid, n.to_owned());
                }
                Some("thread_name") => {
                    let key = format!("{pid}:{}", id_text(e.tid.as_ref()));
                    names.threads.insert(key, n.to_owned());
                }
                _ => {}
            }
        }
        names
    }
}
