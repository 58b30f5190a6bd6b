//! Writer step: the dictionary tables. Functions and mappings are written whole, in table
//! order; locations (one per inline chain), stacks and links are interned as samples use them.

use super::{cell_value, u64_of, Writer};
use crate::formats::inline::inlined_into;
use crate::formats::otlp::proto::{Function, Line, Link, Location, Mapping, Stack};
use crate::formats::otlp::*;
use crate::model::{decode_opt, Cell, ExtTable, LocationIndex, StackIndex, StringId, INT_NA};
use attrs::AttrValue;

/// Columns of the mappings table that map to `Mapping` fields rather than attributes.
const MAPPING_FIELDS: [&str; 5] = [
    "mapping_id",
    "memory_start",
    "memory_limit",
    "file_offset",
    "filename",
];

impl Writer<'_> {
    pub(super) fn functions(&mut self) {
        let f = &self.p.functions;
        for row in 0..f.name.len() {
            let cell = |v: &Vec<StringId>| v.get(row).copied().unwrap_or(StringId::NA);
            let start = f.start_line.get(row).copied().unwrap_or(0);
            let flagged = |col: &str| matches!(f.ext.cell(col, row), Some(Cell::Lgl(Some(true))));
            let name = if flagged(function_cols::EMPTY_NAME) {
                ""
            } else {
                self.text(cell(&f.name))
            };
            let system_name = if flagged(function_cols::EMPTY_SYSTEM_NAME) {
                ""
            } else {
                self.text(cell(&f.system_name))
            };
            let function = Function {
                name_strindex: self.string(name),
                system_name_strindex: self.string(system_name),
                filename_strindex: self.string(self.text(cell(&f.filename))),
                start_line: if start == INT_NA { 0 } else { i64::from(start) },
            };
            self.functions.push(function);
        }
    }

    pub(super) fn mappings_from_table(&mut self) {
        let Some(table) = self.p.ext_table(MAPPINGS) else {
            return;
        };
        for row in 0..table.len() {
            let mapping = self.mapping_row(table, row);
            let index = i32::try_from(self.mappings.len()).unwrap_or(i32::MAX);
            if let Some(id) = u64_of(table.columns.cell("mapping_id", row)) {
                self.mapping_index.insert(id, index);
            }
            self.mappings.push(mapping);
        }
    }

    fn mapping_row(&mut self, table: &ExtTable, row: usize) -> Mapping {
        let u64_cell = |name: &str| match table.columns.cell(name, row) {
            Some(Cell::U64(Some(v))) => v,
            Some(Cell::Dbl(v)) if v.is_finite() && v >= 0.0 => v as u64,
            _ => 0,
        };
        let filename = match table.columns.cell("filename", row) {
            Some(Cell::Chr(s)) => self.text(s),
            _ => "",
        };
        let mut attribute_indices = Vec::new();
        for column in &table.columns.columns {
            if MAPPING_FIELDS.contains(&column.name.as_str()) {
                continue;
            }
            let key = match column.name.as_str() {
                "build_id" => ATTR_BUILD_ID.to_owned(),
                flag if flag.starts_with("has_") => format!("{ATTR_MAPPING_HAS}{flag}"),
                other => other.to_owned(),
            };
            if let Some(value) = cell_value(self.p, column.data.cell(row)) {
                attribute_indices.push(self.attribute(&key, &value, ""));
            }
        }
        Mapping {
            memory_start: u64_cell("memory_start"),
            memory_limit: u64_cell("memory_limit"),
            file_offset: u64_cell("file_offset"),
            filename_strindex: self.string(filename),
            attribute_indices,
        }
    }

    /// The dictionary stack of a proftab stack node (0 for a sample without frames).
    pub(super) fn stack(&mut self, node: Option<StackIndex>) -> i32 {
        let Some(node) = node else { return 0 };
        if let Some(&s) = self.node_stacks.get(&node.0) {
            return s;
        }
        let frames: Vec<LocationIndex> = self.p.frames_leaf_first(Some(node)).collect();
        let mut indices = Vec::new();
        let mut start = 0;
        while start < frames.len() {
            let mut end = start + 1;
            while end < frames.len() && inlined_into(self.p, frames[end - 1], frames[end]) {
                end += 1;
            }
            indices.push(self.location(&frames[start..end]));
            start = end;
        }
        let s = match self.stack_ids.get(&indices) {
            Some(&s) => s,
            None => {
                let s = i32::try_from(self.stacks.len()).unwrap_or(i32::MAX);
                self.stacks.push(Stack {
                    location_indices: indices.clone(),
                });
                self.stack_ids.insert(indices, s);
                s
            }
        };
        self.node_stacks.insert(node.0, s);
        s
    }

    /// The dictionary location of one inline chain (innermost first).
    fn location(&mut self, chain: &[LocationIndex]) -> i32 {
        let ext = &self.p.locations.ext;
        let Some(&outer) = chain.first() else {
            return 0;
        };
        let address = match ext.cell(location_cols::ADDRESS, outer.idx()) {
            Some(Cell::U64(Some(a))) => a,
            _ => 0,
        };
        let mapping_index = u64_of(ext.cell(location_cols::MAPPING_ID, outer.idx()))
            .and_then(|id| self.mapping_index.get(&id).copied())
            .unwrap_or(0);
        let mut attribute_indices = Vec::new();
        if let Some(Cell::Chr(ft)) = ext.cell(location_cols::FRAME_TYPE, outer.idx()) {
            if !ft.is_na() {
                let value = AttrValue::Str(self.text(ft).to_owned());
                attribute_indices.push(self.attribute(ATTR_FRAME_TYPE, &value, ""));
            }
        }
        if let Some(Cell::Lgl(Some(f))) = ext.cell(location_cols::IS_FOLDED, outer.idx()) {
            attribute_indices.push(self.attribute(ATTR_IS_FOLDED, &AttrValue::Bool(f), ""));
        }
        let lines: Vec<Line> = chain.iter().map(|&l| self.line(l)).collect();
        let bare = lines.len() == 1 && lines.first().is_some_and(|l| *l == Line::default());
        let location = Location {
            mapping_index,
            address,
            lines: if bare { Vec::new() } else { lines },
            attribute_indices,
        };
        if let Some(&i) = self.location_ids.get(&location) {
            return i;
        }
        let i = i32::try_from(self.locations.len()).unwrap_or(i32::MAX);
        self.locations.push(location.clone());
        self.location_ids.insert(location, i);
        i
    }

    fn line(&self, loc: LocationIndex) -> Line {
        let l = &self.p.locations;
        let function_index = l
            .function
            .get(loc.idx())
            .and_then(|&f| decode_opt(f))
            .map_or(0, |f| i32::try_from(f + 1).unwrap_or(0));
        let line = l.line.get(loc.idx()).copied().unwrap_or(0);
        let column = match l.ext.cell(location_cols::COLUMN, loc.idx()) {
            Some(Cell::Int(c)) if c != INT_NA => i64::from(c),
            _ => 0,
        };
        Line {
            function_index,
            line: if line == INT_NA { 0 } else { i64::from(line) },
            column,
        }
    }

    pub(super) fn link(&mut self, sample: usize) -> i32 {
        let ext = &self.p.samples.ext;
        let get = |name: &str| match ext.cell(name, sample) {
            Some(Cell::Chr(s)) if !s.is_na() => Some(self.p.str(s).to_owned()),
            _ => None,
        };
        let (Some(trace), Some(span)) = (get(sample_cols::TRACE_ID), get(sample_cols::SPAN_ID))
        else {
            return 0;
        };
        let key = (trace, span);
        if let Some(&i) = self.link_ids.get(&key) {
            return i;
        }
        let i = i32::try_from(self.links.len()).unwrap_or(i32::MAX);
        self.links.push(Link {
            trace_id: unhex(&key.0).unwrap_or_default(),
            span_id: unhex(&key.1).unwrap_or_default(),
        });
        self.link_ids.insert(key, i);
        i
    }
}
