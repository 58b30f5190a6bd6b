//! The `samples` + `stackFrames` form (Hermes, Chrome's sampled traces): each sample names a
//! stack frame (`sf`), whose `parent` chain is its stack; per thread, a sample weighs the time to
//! the next one (the last weighs 0), as speedscope reads them.

use serde::Deserialize;

use super::build::Converter;
use super::events::{id_text, number, Names};
use super::thread_cells;
use crate::formats::error::{Place, ReadError, Warning, Warnings};
use crate::formats::json_scan::{self, Member};
use crate::formats::trace_event::NAME;
use crate::formats::{Parsed, ReadOptions};
use crate::hash::HashMap;
use crate::model::StackIndex;

#[derive(Deserialize)]
struct Sample {
    #[serde(default)]
    pid: Option<serde_json::Value>,
    #[serde(default)]
    tid: Option<serde_json::Value>,
    #[serde(default)]
    ts: Option<serde_json::Value>,
    #[serde(default)]
    sf: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct StackFrame {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    parent: Option<serde_json::Value>,
}

pub(super) fn read_sampled(
    bytes: &[u8],
    members: &[Member],
    names: &Names,
    options: &ReadOptions,
    mut warnings: Warnings,
) -> Result<Parsed, ReadError> {
    let get = |k: &str| {
        json_scan::member(members, k)
            .map(|m| m.value.clone())
            .unwrap_or(0..0)
    };
    let samples: Vec<Sample> = json_scan::parse_member(NAME, bytes, get("samples"), "samples")?;
    let frames: HashMap<String, StackFrame> =
        json_scan::parse_member(NAME, bytes, get("stackFrames"), "stackFrames")?;
    let origin = samples
        .iter()
        .filter_map(|s| number(s.ts.as_ref()))
        .fold(f64::INFINITY, f64::min);
    let mut c = Converter::new(options, if origin.is_finite() { origin } else { 0.0 });
    let mut stacks: HashMap<String, Option<StackIndex>> = HashMap::default();
    let mut threads: Vec<(String, String, Vec<usize>)> = Vec::new();
    let mut index: HashMap<(String, String), usize> = HashMap::default();
    for (i, s) in samples.iter().enumerate() {
        let key = (id_text(s.pid.as_ref()), id_text(s.tid.as_ref()));
        let k = *index.entry(key.clone()).or_insert_with(|| {
            threads.push((key.0, key.1, Vec::new()));
            threads.len() - 1
        });
        threads[k].2.push(i);
    }
    let mut missing = 0usize;
    for (pid, tid, list) in &threads {
        let cells = thread_cells(&mut c, names, pid, tid);
        for (j, &i) in list.iter().enumerate() {
            let s = &samples[i];
            let ts = number(s.ts.as_ref()).unwrap_or(0.0);
            let next = list
                .get(j + 1)
                .and_then(|&n| number(samples[n].ts.as_ref()));
            let length = next.map_or(0.0, |n| (n - ts).max(0.0));
            let Some(stack) =
                frame_stack(&mut c, &frames, &mut stacks, &id_text(s.sf.as_ref()), i)?
            else {
                missing += 1;
                continue;
            };
            c.sample(stack, ts, length, cells);
        }
    }
    if missing > 0 {
        warnings.push(Warning::new(
            NAME,
            "samples whose stack frame (`sf`) is not in `stackFrames` were skipped",
            missing,
        ));
    }
    c.finish(warnings)
}

/// The stack of frame `sf` (root first through `parent`), memoized; `None` when a frame of the
/// chain is missing.
fn frame_stack(
    c: &mut Converter,
    frames: &HashMap<String, StackFrame>,
    memo: &mut HashMap<String, Option<StackIndex>>,
    sf: &str,
    at: usize,
) -> Result<Option<Option<StackIndex>>, ReadError> {
    let mut chain: Vec<String> = Vec::new();
    let mut cur = sf.to_owned();
    let mut prefix: Option<StackIndex> = None;
    while !cur.is_empty() {
        if let Some(&s) = memo.get(&cur) {
            prefix = s;
            break;
        }
        let Some(f) = frames.get(&cur) else {
            return Ok(None);
        };
        if chain.len() >= c.max_depth() {
            return Err(ReadError::new(
                NAME,
                Place::Path(format!("samples[{at}]")),
                "the stack frame's parent chain is a cycle or deeper than the stack depth limit",
            ));
        }
        chain.push(cur.clone());
        cur = id_text(f.parent.as_ref());
    }
    for id in chain.iter().rev() {
        let name = frames
            .get(id)
            .and_then(|f| f.name.clone())
            .unwrap_or_else(|| "(unnamed)".to_owned());
        let loc = c.frame(&name, None);
        let node = c.b.stack_node(prefix, loc);
        prefix = Some(node);
        memo.insert(id.clone(), prefix);
    }
    Ok(Some(prefix))
}
