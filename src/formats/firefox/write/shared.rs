//! The shared tables under construction: strings, categories, sources, resources, funcs,
//! frames and stacks, each row added once (looked up in a hash map) in order of first use, so
//! the output is deterministic. A proftab location becomes one frame per inline depth.

use serde_json::{json, Value};

use super::category_color;
use crate::formats::firefox::{function_cols, location_cols};
use crate::hash::HashMap;
use crate::model::{Cell, LocationIndex, Profile, StackIndex, StringId, INT_NA};

/// The shared tables under construction.
pub(super) struct Shared<'p> {
    pub(super) p: &'p Profile,
    pub(super) strings: Vec<String>,
    pub(super) string_ids: HashMap<String, usize>,
    pub(super) categories: Vec<(String, Vec<String>)>,
    /// Function row → funcTable index (same order).
    pub(super) func_source: Vec<Option<usize>>,
    pub(super) source_files: Vec<usize>,
    pub(super) source_ids: HashMap<usize, usize>,
    pub(super) resources: Vec<usize>,
    pub(super) resource_ids: HashMap<usize, usize>,
    pub(super) func_resource: Vec<i64>,
    pub(super) frames: Vec<FrameRow>,
    /// Names (string indices) of funcs made up for locations without a function; their
    /// funcTable index is the number of functions plus their position here.
    pub(super) extra_funcs: Vec<usize>,
    pub(super) frame_ids: HashMap<(u32, u32), usize>,
    pub(super) stack_frame: Vec<usize>,
    pub(super) stack_prefix: Vec<Option<usize>>,
    pub(super) stack_ids: HashMap<(Option<usize>, usize), usize>,
    pub(super) node_stacks: HashMap<u32, Option<usize>>,
}

pub(super) struct FrameRow {
    pub(super) location: LocationIndex,
    pub(super) func: usize,
    pub(super) inline_depth: u32,
    pub(super) category: usize,
    pub(super) subcategory: usize,
}

impl<'p> Shared<'p> {
    pub(super) fn new(p: &'p Profile) -> Self {
        let mut s = Shared {
            p,
            strings: Vec::new(),
            string_ids: HashMap::default(),
            categories: vec![("Other".to_owned(), vec!["Other".to_owned()])],
            func_source: Vec::new(),
            source_files: Vec::new(),
            source_ids: HashMap::default(),
            resources: Vec::new(),
            resource_ids: HashMap::default(),
            func_resource: Vec::new(),
            frames: Vec::new(),
            extra_funcs: Vec::new(),
            frame_ids: HashMap::default(),
            stack_frame: Vec::new(),
            stack_prefix: Vec::new(),
            stack_ids: HashMap::default(),
            node_stacks: HashMap::default(),
        };
        s.functions();
        s
    }

    pub(super) fn string(&mut self, text: &str) -> usize {
        if let Some(&i) = self.string_ids.get(text) {
            return i;
        }
        let i = self.strings.len();
        self.strings.push(text.to_owned());
        self.string_ids.insert(text.to_owned(), i);
        i
    }

    pub(super) fn functions(&mut self) {
        let f = &self.p.functions;
        for row in 0..f.name.len() {
            let file = f.filename.get(row).copied().unwrap_or(StringId::NA);
            let source = (!file.is_na()).then(|| {
                let s = self.string(self.p.str(file));
                let next = self.source_files.len();
                *self.source_ids.entry(s).or_insert_with(|| {
                    self.source_files.push(s);
                    next
                })
            });
            self.func_source.push(source);
            let resource = match f.ext.cell(function_cols::RESOURCE, row) {
                Some(Cell::Chr(r)) if !r.is_na() => {
                    let s = self.string(self.p.str(r));
                    let next = self.resources.len();
                    let idx = *self.resource_ids.entry(s).or_insert_with(|| {
                        self.resources.push(s);
                        next
                    });
                    idx as i64
                }
                _ => -1,
            };
            self.func_resource.push(resource);
        }
    }

    pub(super) fn category(&mut self, loc: LocationIndex) -> (usize, usize) {
        let ext = &self.p.locations.ext;
        let text = |col: &str| match ext.cell(col, loc.idx()) {
            Some(Cell::Chr(s)) if !s.is_na() => Some(self.p.str(s).to_owned()),
            _ => None,
        };
        let Some(name) = text(location_cols::CATEGORY).or_else(|| text(location_cols::FRAME_TYPE))
        else {
            return (0, 0);
        };
        let sub = text(location_cols::SUBCATEGORY);
        let c = match self.categories.iter().position(|(n, _)| *n == name) {
            Some(c) => c,
            None => {
                self.categories.push((name, vec!["Other".to_owned()]));
                self.categories.len() - 1
            }
        };
        let Some(sub) = sub else { return (c, 0) };
        let Some((_, subs)) = self.categories.get_mut(c) else {
            return (c, 0);
        };
        let s = subs.iter().position(|x| *x == sub).unwrap_or_else(|| {
            subs.push(sub);
            subs.len() - 1
        });
        (c, s)
    }

    /// The frame of `loc` at `inline_depth`, added when new.
    pub(super) fn frame(&mut self, loc: LocationIndex, inline_depth: u32) -> usize {
        if let Some(&f) = self.frame_ids.get(&(loc.0, inline_depth)) {
            return f;
        }
        let (category, subcategory) = self.category(loc);
        let func = self.frame_func(loc);
        let f = self.frames.len();
        self.frames.push(FrameRow {
            location: loc,
            func,
            inline_depth,
            category,
            subcategory,
        });
        self.frame_ids.insert((loc.0, inline_depth), f);
        f
    }

    /// The funcTable row of a location: its function, or a made-up one named by its address.
    pub(super) fn frame_func(&mut self, loc: LocationIndex) -> usize {
        let nf = self.p.functions.name.len();
        if let Some(f) = self.p.location_function(loc) {
            return f.idx();
        }
        let name = match self.p.locations.ext.cell(location_cols::ADDRESS, loc.idx()) {
            Some(Cell::U64(Some(a))) => format!("0x{a:x}"),
            _ => "(unknown)".to_owned(),
        };
        let s = self.string(&name);
        self.extra_funcs.push(s);
        nf + self.extra_funcs.len() - 1
    }

    /// The Firefox stack of a proftab stack node, built root first.
    pub(super) fn stack(&mut self, node: Option<StackIndex>) -> Option<usize> {
        let node = node?;
        if let Some(&s) = self.node_stacks.get(&node.0) {
            return s;
        }
        let mut frames: Vec<LocationIndex> = self.p.frames_leaf_first(Some(node)).collect();
        frames.reverse();
        let mut prefix = None;
        let mut depth = 0u32;
        let mut caller: Option<LocationIndex> = None;
        for loc in frames {
            let inlined =
                caller.is_some_and(|c| crate::formats::inline::inlined_into(self.p, loc, c));
            depth = if inlined { depth + 1 } else { 0 };
            caller = Some(loc);
            let frame = self.frame(loc, depth);
            let next = self.stack_frame.len();
            let s = *self.stack_ids.entry((prefix, frame)).or_insert(next);
            if s == next {
                self.stack_frame.push(frame);
                self.stack_prefix.push(prefix);
            }
            prefix = Some(s);
        }
        self.node_stacks.insert(node.0, prefix);
        prefix
    }

    pub(super) fn categories_json(&self) -> Value {
        let list: Vec<Value> = self
            .categories
            .iter()
            .enumerate()
            .map(|(i, (name, subs))| {
                json!({"name": name, "color": category_color(i, name), "subcategories": subs})
            })
            .collect();
        Value::Array(list)
    }

    pub(super) fn shared_json(&mut self) -> Value {
        let p = self.p;
        let np = p.functions.name.len();
        let nf = np + self.extra_funcs.len();
        let mut func_name = Vec::with_capacity(nf);
        let mut func_line = Vec::with_capacity(nf);
        let mut is_js = Vec::with_capacity(nf);
        let mut relevant = Vec::with_capacity(nf);
        for row in 0..np {
            let name = p.functions.name.get(row).map_or("", |&n| p.str(n));
            func_name.push(self.string(name));
            let line = p.functions.start_line.get(row).copied().unwrap_or(0);
            func_line.push((line != INT_NA && line != 0).then_some(line));
            let flag =
                |col: &str| matches!(p.functions.ext.cell(col, row), Some(Cell::Lgl(Some(true))));
            is_js.push(flag(function_cols::IS_JS));
            relevant.push(flag(function_cols::RELEVANT_FOR_JS));
        }
        func_name.extend(self.extra_funcs.iter().copied());
        func_line.resize(nf, None);
        is_js.resize(nf, false);
        relevant.resize(nf, false);
        let mut func_resource = self.func_resource.clone();
        func_resource.resize(nf, -1);
        let mut func_source = self.func_source.clone();
        func_source.resize(nf, None);
        let frames = self.frames_json();
        let ns = self.source_files.len();
        let nr = self.resources.len();
        json!({
            "stackTable": {
                "length": self.stack_frame.len(),
                "frame": self.stack_frame,
                "prefixOffset": self.stack_prefix.iter().enumerate().map(|(i, p)| p.map_or(0, |p| i - p)).collect::<Vec<_>>(),
            },
            "frameTable": frames,
            "funcTable": {
                "length": nf,
                "name": func_name,
                "isJS": is_js,
                "relevantForJS": relevant,
                "resource": func_resource,
                "source": func_source,
                "lineNumber": func_line,
                "columnNumber": vec![Value::Null; nf],
                "originalLocation": vec![Value::Null; nf],
            },
            "resourceTable": {"length": nr, "name": self.resources, "host": vec![Value::Null; nr], "type": vec![0; nr]},
            "nativeSymbols": {"length": 0, "libIndex": [], "address": [], "name": [], "functionSize": []},
            "sources": {
                "length": ns,
                "id": vec![Value::Null; ns],
                "filename": self.source_files,
                "startLine": vec![1; ns],
                "startColumn": vec![1; ns],
                "sourceMapURL": vec![Value::Null; ns],
                "content": vec![Value::Null; ns],
            },
            "sourceLocationTable": {"length": 0, "source": [], "line": [], "column": []},
            "stringArray": self.strings,
        })
    }

    pub(super) fn frames_json(&self) -> Value {
        let p = self.p;
        let n = self.frames.len();
        let mut func = Vec::with_capacity(n);
        let mut line = Vec::with_capacity(n);
        let mut column = Vec::with_capacity(n);
        let mut address = Vec::with_capacity(n);
        for f in &self.frames {
            let l = f.location.idx();
            func.push(f.func);
            let ln = p.locations.line.get(l).copied().unwrap_or(0);
            line.push((ln != INT_NA && ln != 0).then_some(ln));
            column.push(match p.locations.ext.cell(location_cols::COLUMN, l) {
                Some(Cell::Int(c)) if c != INT_NA => Some(c),
                _ => None,
            });
            address.push(match p.locations.ext.cell(location_cols::ADDRESS, l) {
                Some(Cell::U64(Some(a))) => i64::try_from(a).unwrap_or(-1),
                _ => -1,
            });
        }
        json!({
            "length": n,
            "address": address,
            "lib": vec![-1; n],
            "inlineDepth": self.frames.iter().map(|f| f.inline_depth).collect::<Vec<_>>(),
            "category": self.frames.iter().map(|f| f.category).collect::<Vec<_>>(),
            "subcategory": self.frames.iter().map(|f| f.subcategory).collect::<Vec<_>>(),
            "func": func,
            "nativeSymbol": vec![Value::Null; n],
            "innerWindowID": vec![0; n],
            "line": line,
            "column": column,
            "originalLocation": vec![Value::Null; n],
        })
    }
}
