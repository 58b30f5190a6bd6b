//! Reading a `.heapprofile`: the `head` tree is flattened with an explicit stack
//! ([`flatten`]), each node gets its stack (parents come first in pre-order), then samples are
//! made from `samples` in `ordinal` order and from the `selfSize` they do not cover.

use serde::Deserialize;

use super::{KNOWN_KEYS, NAME, SAMPLE_ORDINAL};
use crate::formats::error::{Place, ReadError, Warning, Warnings};
use crate::formats::json_scan;
use crate::formats::read_common::{check_sample_limit, finish_parsed};
use crate::formats::{Format, Parsed, ReadOptions};
use crate::hash::HashMap;
use crate::model::{
    ext, Cell, ColumnKind, FunctionIndex, FunctionKey, ProfileBuilder, SourceIndex, StackIndex,
    ValueTypeIndex, META_DEFAULT_TYPE,
};

/// V8's call frame as the heap profiler writes it.
#[derive(Deserialize, Default, Clone)]
struct CallFrame {
    #[serde(rename = "functionName", default)]
    function_name: String,
    #[serde(rename = "scriptId", default)]
    script_id: Option<serde_json::Value>,
    #[serde(default)]
    url: String,
    #[serde(rename = "lineNumber", default)]
    line_number: Option<f64>,
    #[serde(rename = "columnNumber", default)]
    column_number: Option<f64>,
}

/// One node of the tree, flattened.
#[derive(Default)]
struct Node {
    frame: CallFrame,
    self_size: f64,
    id: Option<i64>,
    parent: Option<usize>,
    at: usize,
}

/// One entry of `samples`.
#[derive(Deserialize)]
struct RawSample {
    size: f64,
    #[serde(rename = "nodeId")]
    node_id: i64,
    #[serde(default)]
    ordinal: Option<f64>,
}

/// Reads a `.heapprofile`.
pub fn read(bytes: &[u8], options: &ReadOptions) -> Result<Parsed, ReadError> {
    let members = json_scan::document_members(NAME, bytes)?;
    let mut warnings = Warnings::default();
    json_scan::unknown_top_keys_warning(NAME, &members, &KNOWN_KEYS, &mut warnings);
    let head = json_scan::member(&members, "head")
        .ok_or_else(|| ReadError::whole(NAME, "the file has no `head` (the allocation tree)"))?;
    let nodes = flatten(bytes, head.value.start, &mut warnings)?;
    let mut samples: Vec<RawSample> = match json_scan::member(&members, "samples") {
        Some(m) => json_scan::parse_member(NAME, bytes, m.value.clone(), "samples")?,
        None => Vec::new(),
    };
    // Stable: samples with equal (or no) ordinals keep their file order.
    samples.sort_by(|a, b| {
        let o = |s: &RawSample| s.ordinal.unwrap_or(f64::INFINITY);
        o(a).total_cmp(&o(b))
    });
    let mut c = Converter::new(options);
    let stacks = c.node_stacks(&nodes)?;
    let index = node_index(&nodes)?;
    add_samples(&mut c, &nodes, &stacks, &index, &samples, &mut warnings)?;
    c.finish(warnings)
}

/// The samples: each sampled allocation of a node whose samples add up to its `selfSize`, in
/// `ordinal` order; then one sample per other node with a `selfSize` (the tree is what V8,
/// DevTools and speedscope report), its number of objects unknown.
fn add_samples(
    c: &mut Converter,
    nodes: &[Node],
    stacks: &[Option<StackIndex>],
    index: &HashMap<i64, usize>,
    samples: &[RawSample],
    warnings: &mut Warnings,
) -> Result<(), ReadError> {
    let mut covered = vec![(0.0f64, 0usize); nodes.len()];
    let (mut unknown, mut unknown_bytes) = (0usize, 0.0f64);
    for s in samples {
        match index.get(&s.node_id).and_then(|&k| covered.get_mut(k)) {
            Some(cell) => *cell = (cell.0 + s.size, cell.1 + 1),
            None => (unknown, unknown_bytes) = (unknown + 1, unknown_bytes + s.size),
        }
    }
    let exact = |k: usize| covered[k].1 > 0 && covered[k].0 == nodes[k].self_size;
    for s in samples {
        if let Some(&k) = index.get(&s.node_id).filter(|&&k| exact(k)) {
            c.add_sample(stacks[k], s.size, Some(1.0), s.ordinal)?;
        }
    }
    let (mut whole, mut disagreeing, mut their_samples) = (0usize, 0usize, 0usize);
    for (k, node) in nodes.iter().enumerate() {
        if exact(k) {
            continue;
        }
        if covered[k].1 > 0 {
            disagreeing += 1;
            their_samples += covered[k].1;
        }
        if node.self_size > 0.0 {
            whole += 1;
            c.add_sample(stacks[k], node.self_size, None, None)?;
        }
    }
    let mut note = |count: usize, message: String| {
        if count > 0 {
            warnings.push(Warning::new(NAME, message, count));
        }
    };
    note(
        unknown,
        format!(
            "samples naming nodes that are not in the tree were skipped ({unknown_bytes} bytes)"
        ),
    );
    note(disagreeing, format!("nodes whose samples ({their_samples} in all) do not add up to their selfSize: the tree's selfSize was kept, as one sample per node"));
    let why = if samples.is_empty() {
        " (the file has no `samples`)"
    } else {
        ""
    };
    note(whole, format!("nodes became one sample each, valued their selfSize{why}; their number of objects is unknown (NA)"));
    Ok(())
}

/// Node ids to their index; duplicates are errors.
fn node_index(nodes: &[Node]) -> Result<HashMap<i64, usize>, ReadError> {
    let mut index = HashMap::default();
    for (k, n) in nodes.iter().enumerate() {
        if let Some(id) = n.id {
            if index.insert(id, k).is_some() {
                return Err(ReadError::new(
                    NAME,
                    Place::Byte(n.at as u64),
                    format!("node id {id} occurs twice"),
                ));
            }
        }
    }
    Ok(index)
}

/// Where the walker is inside a node object.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Members,
    Children,
}

/// Flattens the nested tree at `head` in pre-order with an explicit stack: parents come before
/// their children, every node records its parent.
fn flatten(bytes: &[u8], head: usize, warnings: &mut Warnings) -> Result<Vec<Node>, ReadError> {
    let mut nodes: Vec<Node> = Vec::new();
    let mut stack: Vec<(usize, State)> = Vec::new();
    let mut pos = open(bytes, head, &mut nodes, &mut stack)?;
    while let Some(&(index, state)) = stack.last() {
        pos = json_scan::skip_ws(bytes, pos);
        pos = match (state, bytes.get(pos).copied()) {
            (_, Some(b',')) => pos + 1,
            (State::Members, Some(b'}')) => {
                stack.pop();
                separated(bytes, pos + 1, b']')?
            }
            (State::Members, Some(b'"')) => {
                let (key, start) = member_key(bytes, pos)?;
                if key == "children" && bytes.get(start) == Some(&b'[') {
                    if let Some(top) = stack.last_mut() {
                        top.1 = State::Children;
                    }
                    start + 1
                } else {
                    let end = json_scan::value_end(bytes, start)
                        .ok_or_else(|| at(start, "malformed value"))?;
                    field(bytes, &mut nodes[index], &key, start..end, warnings)?;
                    separated(bytes, end, b'}')?
                }
            }
            (State::Children, Some(b']')) => {
                if let Some(top) = stack.last_mut() {
                    top.1 = State::Members;
                }
                pos + 1
            }
            (State::Children, Some(b'{')) => open(bytes, pos, &mut nodes, &mut stack)?,
            _ => return Err(at(pos, "malformed node tree in `head`")),
        };
    }
    Ok(nodes)
}

/// `pos` after checking that a `,` or `close` follows (the end of input after the head too).
fn separated(bytes: &[u8], pos: usize, close: u8) -> Result<usize, ReadError> {
    let next = json_scan::skip_ws(bytes, pos);
    match bytes.get(next) {
        Some(&b) if b == b',' || b == close => Ok(next),
        None => Ok(next),
        Some(_) if close == b']' => Ok(next),
        _ => Err(at(next, "expected `,` or the end of the object")),
    }
}

/// Starts the node whose `{` is at `pos`; returns the position after it.
fn open(
    bytes: &[u8],
    pos: usize,
    nodes: &mut Vec<Node>,
    stack: &mut Vec<(usize, State)>,
) -> Result<usize, ReadError> {
    if bytes.get(pos) != Some(&b'{') {
        return Err(at(pos, "expected a node object"));
    }
    nodes.push(Node {
        parent: stack.last().map(|&(p, _)| p),
        at: pos,
        ..Node::default()
    });
    stack.push((nodes.len() - 1, State::Members));
    Ok(pos + 1)
}

/// The key at `pos` and the position of its value.
fn member_key(bytes: &[u8], pos: usize) -> Result<(String, usize), ReadError> {
    let key_end = json_scan::string_end(bytes, pos).ok_or_else(|| at(pos, "unterminated key"))?;
    let key: String = json_scan::parse_member(NAME, bytes, pos..key_end, "head")?;
    let colon = json_scan::skip_ws(bytes, key_end);
    if bytes.get(colon) != Some(&b':') {
        return Err(at(colon, "expected `:` after a key"));
    }
    Ok((key, json_scan::skip_ws(bytes, colon + 1)))
}

fn field(
    bytes: &[u8],
    node: &mut Node,
    key: &str,
    span: std::ops::Range<usize>,
    warnings: &mut Warnings,
) -> Result<(), ReadError> {
    let path = format!("head node {key}");
    match key {
        "callFrame" => node.frame = json_scan::parse_member(NAME, bytes, span, &path)?,
        "selfSize" => node.self_size = json_scan::parse_member(NAME, bytes, span, &path)?,
        "id" => node.id = json_scan::parse_member(NAME, bytes, span, &path)?,
        _ => warnings.add(NAME, &format!("node-key-{key}"), || {
            format!("node key {key:?} not kept")
        }),
    }
    Ok(())
}

fn at(pos: usize, message: &str) -> ReadError {
    ReadError::new(NAME, Place::Byte(pos as u64), message)
}

/// A whole number from JSON, or `None`.
fn whole(v: Option<f64>) -> Option<i32> {
    v.filter(|x| x.is_finite() && x.fract() == 0.0 && *x >= 0.0 && *x < i32::MAX as f64)
        .map(|x| x as i32)
}

/// Identity of a call frame: name, script id, url, line, column.
type FrameKey = (String, String, String, Option<i32>, Option<i32>);

/// Fills the builder.
struct Converter<'o> {
    options: &'o ReadOptions,
    b: ProfileBuilder,
    source: SourceIndex,
    space: ValueTypeIndex,
    objects: ValueTypeIndex,
    functions: HashMap<FrameKey, FunctionIndex>,
}

impl<'o> Converter<'o> {
    fn new(options: &'o ReadOptions) -> Self {
        let mut b = ProfileBuilder::new();
        let source = b.add_source(NAME, options.source_uri.as_deref(), None);
        let objects = b.value_type("objects", "count");
        let space = b.value_type("space", "bytes");
        b.declare_sample_column(SAMPLE_ORDINAL, ColumnKind::Dbl);
        Converter {
            options,
            b,
            source,
            space,
            objects,
            functions: HashMap::default(),
        }
    }

    /// The stack of every node, parents first (`None` for the `(root)` node).
    fn node_stacks(&mut self, nodes: &[Node]) -> Result<Vec<Option<StackIndex>>, ReadError> {
        let mut stacks: Vec<Option<StackIndex>> = Vec::with_capacity(nodes.len());
        let mut depth: Vec<usize> = Vec::with_capacity(nodes.len());
        for node in nodes {
            let (prefix, d) = node.parent.map_or((None, 0), |p| (stacks[p], depth[p]));
            if node.parent.is_none() && node.frame.function_name == "(root)" {
                stacks.push(None);
                depth.push(0);
                continue;
            }
            if d >= self.options.limits.max_stack_depth {
                return Err(at(
                    node.at,
                    "the stack is deeper than the stack depth limit",
                ));
            }
            let f = self.function(&node.frame);
            let loc = self.b.location(Some(f), 0);
            stacks.push(Some(self.b.stack_node(prefix, loc)));
            depth.push(d + 1);
        }
        Ok(stacks)
    }

    fn function(&mut self, cf: &CallFrame) -> FunctionIndex {
        let script = match &cf.script_id {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(v) if !v.is_null() => v.to_string(),
            _ => String::new(),
        };
        let (line, col) = (whole(cf.line_number), whole(cf.column_number));
        let key = (cf.function_name.clone(), script, cf.url.clone(), line, col);
        if let Some(&f) = self.functions.get(&key) {
            return f;
        }
        let shown = if cf.function_name.is_empty() {
            anonymous_name(&cf.url, line)
        } else {
            cf.function_name.clone()
        };
        let name = self.b.intern(&shown);
        let filename = self
            .b
            .strings()
            .intern_opt(Some(cf.url.as_str()).filter(|u| !u.is_empty()));
        let f = self.b.add_function(FunctionKey {
            name,
            system_name: name,
            filename,
            start_line: line.map_or(0, |l| l.saturating_add(1)),
        });
        let ext = &mut self.b.functions_mut().ext;
        if let Some(c) = col {
            let _ = ext.set(
                ext::functions::START_COLUMN,
                f.idx(),
                Cell::Int(c.saturating_add(1)),
            );
        }
        if !key.1.is_empty() && key.1 != "0" {
            let id = self.b.intern(&key.1);
            let _ =
                self.b
                    .functions_mut()
                    .ext
                    .set(ext::functions::SCRIPT_ID, f.idx(), Cell::Chr(id));
        }
        self.functions.insert(key, f);
        f
    }

    fn add_sample(
        &mut self,
        stack: Option<StackIndex>,
        bytes: f64,
        objects: Option<f64>,
        ordinal: Option<f64>,
    ) -> Result<(), ReadError> {
        check_sample_limit(
            &self.b,
            Format::Heapprofile,
            self.options.limits.max_samples,
        )?;
        let s = self.b.add_sample(self.source, stack);
        self.b.set_value(s, self.space, bytes);
        if let Some(n) = objects {
            self.b.set_value(s, self.objects, n);
        }
        self.b
            .set_sample_ext(s, SAMPLE_ORDINAL, Cell::Dbl(ordinal.unwrap_or(f64::NAN)));
        Ok(())
    }

    fn finish(mut self, warnings: Warnings) -> Result<Parsed, ReadError> {
        self.b.set_meta(META_DEFAULT_TYPE, "space");
        finish_parsed(self.b, Format::Heapprofile, warnings)
    }
}

/// speedscope's and cpuprofile's name for an anonymous function: `(anonymous file:line)`.
fn anonymous_name(url: &str, line: Option<i32>) -> String {
    if url.is_empty() {
        return "(anonymous)".to_owned();
    }
    let file = url.rsplit('/').next().unwrap_or(url);
    match line {
        Some(l) => format!("(anonymous {file}:{})", l.saturating_add(1)),
        None => format!("(anonymous {file})"),
    }
}
