//! The old V8 format: a nested `head` tree flattened in one pass with an explicit stack (any
//! depth, linear time, no recursion), and absolute `timestamps` turned into deltas.

use crate::formats::cpuprofile::schema::{FlatProfile, RawCallFrame, RawNode};
use crate::formats::cpuprofile::NAME;
use crate::formats::error::{Place, ReadError, Warnings};
use crate::formats::json_scan;

/// Where the old-format walker is inside a node object.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum OldState {
    /// Between the members of the node.
    Members,
    /// Inside the node's `children` array.
    Children,
}

/// Flattens the old format's nested `head` tree in one pass with an explicit stack (linear time,
/// no recursion, any depth): every node records its parent.
pub(super) fn old_nodes(
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
pub(super) struct OldWalker {
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

pub(super) fn old_error(pos: usize, message: &str) -> ReadError {
    ReadError::new(NAME, Place::Byte(pos as u64), message)
}

/// Reports old-format node data that is not kept: `bailoutReason`, `callUID`, unknown keys.
pub(super) fn note_old_node_key(key: &str, value: &serde_json::Value, warnings: &mut Warnings) {
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
pub(super) fn old_profile(
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
pub(super) fn old_deltas(
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
