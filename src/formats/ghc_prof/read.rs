//! Reading `-pj` JSON: meta, the cost centres, then the tree walked with an explicit stack.

use serde::Deserialize;

use super::{FUNCTION_IS_CAF, NAME};
use crate::formats::error::{Place, ReadError, Warnings};
use crate::formats::json_scan;
use crate::formats::read_common::{check_sample_limit, finish_parsed};
use crate::formats::write_common::format_number;
use crate::formats::{Format, Parsed, ReadOptions};
use crate::hash::HashMap;
use crate::model::{Cell, LocationIndex, ProfileBuilder, StackIndex, META_DEFAULT_TYPE};

/// Top-level keys read (the others are named in a warning).
const KNOWN_TOP_KEYS: [&str; 11] = [
    "program",
    "arguments",
    "rts_arguments",
    "end_time",
    "initial_capabilities",
    "total_time",
    "total_ticks",
    "tick_interval",
    "total_alloc",
    "cost_centres",
    "profile",
];

#[derive(Deserialize)]
struct Doc {
    program: Option<String>,
    #[serde(default)]
    arguments: Vec<String>,
    #[serde(default)]
    rts_arguments: Vec<String>,
    end_time: Option<String>,
    initial_capabilities: Option<f64>,
    total_time: Option<f64>,
    total_ticks: Option<f64>,
    tick_interval: Option<f64>,
    total_alloc: Option<f64>,
    cost_centres: Vec<CostCentre>,
    profile: Node,
}

#[derive(Deserialize)]
struct CostCentre {
    id: u64,
    label: String,
    module: String,
    src_loc: Option<String>,
    #[serde(default)]
    is_caf: bool,
}

#[derive(Deserialize)]
struct Node {
    id: u64,
    #[serde(default)]
    entries: f64,
    #[serde(default)]
    alloc: f64,
    #[serde(default)]
    ticks: f64,
    #[serde(default)]
    children: Vec<Node>,
}

/// Reads a `-pj` profile.
pub fn read(bytes: &[u8], options: &ReadOptions) -> Result<Parsed, ReadError> {
    if bytes.is_empty() {
        return Err(ReadError::whole(NAME, "the file is empty"));
    }
    let start = json_scan::skip_bom_and_ws(bytes);
    let body = bytes.get(start..).unwrap_or_default();
    let doc: Doc = serde_json::from_slice(body)
        .map_err(|e| json_scan::serde_error(NAME, body, start, "", &e))?;
    let mut warnings = Warnings::default();
    if let Some(members) = json_scan::top_level_members(bytes) {
        json_scan::unknown_top_keys_warning(NAME, &members, &KNOWN_TOP_KEYS, &mut warnings);
    }
    let mut b = ProfileBuilder::new();
    meta(&mut b, &doc);
    let locations = cost_centres(&mut b, &doc.cost_centres);
    let source = b.add_source(NAME, options.source_uri.as_deref(), None);
    let ticks = b.value_type("ticks", "count");
    let alloc = b.value_type("alloc", "bytes");
    let entries = b.value_type("entries", "count");
    let time = b.value_type("time", "nanoseconds");
    b.set_meta(META_DEFAULT_TYPE, "time");
    let tick_ns = doc.tick_interval.unwrap_or(0.0) * 1000.0;
    // Depth-first with an explicit stack: (node, its parent's stack node, depth).
    let mut todo: Vec<(&Node, Option<StackIndex>, usize)> = vec![(&doc.profile, None, 1)];
    while let Some((node, parent, depth)) = todo.pop() {
        let loc = *locations.get(&node.id).ok_or_else(|| {
            ReadError::new(
                NAME,
                Place::Path("profile".to_owned()),
                format!(
                    "a node names cost centre {}, which `cost_centres` lacks",
                    node.id
                ),
            )
        })?;
        if depth > options.limits.max_stack_depth {
            let max = options.limits.max_stack_depth;
            return Err(ReadError::whole(
                NAME,
                format!("the stack is deeper than {max} frames (the stack depth limit)"),
            ));
        }
        let here = b.stack_node(parent, loc);
        if node.ticks != 0.0 || node.alloc != 0.0 || node.entries != 0.0 {
            check_sample_limit(&b, Format::GhcProf, options.limits.max_samples)?;
            let s = b.add_sample(source, Some(here));
            b.set_value(s, ticks, node.ticks);
            b.set_value(s, alloc, node.alloc);
            b.set_value(s, entries, node.entries);
            b.set_value(s, time, node.ticks * tick_ns);
        }
        todo.extend(
            node.children
                .iter()
                .rev()
                .map(|c| (c, Some(here), depth + 1)),
        );
    }
    finish_parsed(b, Format::GhcProf, warnings)
}

fn meta(b: &mut ProfileBuilder, doc: &Doc) {
    if let Some(p) = &doc.program {
        b.set_meta("ghc.program", p);
    }
    for a in &doc.arguments {
        b.add_meta("ghc.arguments", a);
    }
    for a in &doc.rts_arguments {
        b.add_meta("ghc.rts_arguments", a);
    }
    if let Some(t) = &doc.end_time {
        b.set_meta("ghc.end_time", t);
    }
    for (key, value) in [
        ("ghc.initial_capabilities", doc.initial_capabilities),
        ("ghc.total_time", doc.total_time),
        ("ghc.total_ticks", doc.total_ticks),
        ("ghc.tick_interval", doc.tick_interval),
        ("ghc.total_alloc", doc.total_alloc),
    ] {
        if let Some(v) = value {
            b.set_meta(key, &format_number(v));
        }
    }
}

/// One function and location per cost centre, by id.
fn cost_centres(b: &mut ProfileBuilder, centres: &[CostCentre]) -> HashMap<u64, LocationIndex> {
    let mut out = HashMap::default();
    for cc in centres {
        let (file, line) = cc.src_loc.as_deref().map_or((None, 0), src_loc);
        let f = b.function_at(&format!("{}.{}", cc.module, cc.label), file, line);
        let _ = b
            .functions_mut()
            .ext
            .set(FUNCTION_IS_CAF, f.idx(), Cell::Lgl(Some(cc.is_caf)));
        let loc = b.location(Some(f), 0);
        out.insert(cc.id, loc);
    }
    out
}

/// `src/Main.hs:17:1-4` or `src/Main.hs:(21,1)-(38,42)` → (file, start line); `<…>` → none.
fn src_loc(text: &str) -> (Option<&str>, i32) {
    if text.starts_with('<') {
        return (None, 0);
    }
    let Some((file, rest)) = text.split_once(':') else {
        return (Some(text), 0);
    };
    let digits: String = rest
        .trim_start_matches('(')
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    (Some(file), digits.parse().unwrap_or(0))
}
