//! The physical v2 profile: the seven tables of docs/model.md stored struct-of-arrays.
//!
//! | logical table (docs/model.md) | physical storage |
//! | --- | --- |
//! | `meta` | [`MetaTable`] |
//! | `sources` | [`SourceTable`] |
//! | `samples` | [`SampleTable`] (one row per raw sample, never aggregated) |
//! | `sample_values` | [`ValueColumn`]s: one dense column per value type, long form on export |
//! | `sample_locations` | [`SampleTable::stack`] into the [`StackTable`] prefix tree |
//! | `locations` | [`LocationTable`] |
//! | `functions` | [`FunctionTable`] |
//!
//! Logical ids are row index + 1. Text cells are [`StringId`]s into the one [`StringTable`].

use super::columns::{ExtColumns, ExtTable};
use super::ids::*;
use super::prefixes::Prefixes;
use super::stack_locations::StackLocations;
use super::strings::StringTable;
use crate::chunks::in_chunks;

/// Meta key holding the format version (`"2.0"` for v2).
pub const META_VERSION: &str = "version";
/// Meta key naming the default value type (as pprof's `default_sample_type`).
pub const META_DEFAULT_TYPE: &str = "default_sample_type";
/// Name of the per-sample timestamp extension column (seconds from the start of the source).
pub const SAMPLE_TIME: &str = super::ext::samples::TIME;

/// `meta`: key/value rows in order. Keys may repeat only when a reader keeps a list (e.g.
/// `pprof.profile.comment`).
#[derive(Clone, Debug, Default)]
pub struct MetaTable {
    /// `key` column.
    pub key: Vec<StringId>,
    /// `value` column.
    pub value: Vec<StringId>,
}

/// `sources`: where samples came from.
#[derive(Clone, Debug, Default)]
pub struct SourceTable {
    /// `source_type` column (`"rprof"`, `"pprof"`, …).
    pub source_type: Vec<StringId>,
    /// `source_uri` column (file name or URL; NA if unknown).
    pub source_uri: Vec<StringId>,
    /// `source_timestamp` column: seconds since the Unix epoch, NaN if unknown.
    pub source_timestamp: Vec<f64>,
    /// Dotted extension columns.
    pub ext: ExtColumns,
}

/// `functions`.
#[derive(Clone, Debug, Default)]
pub struct FunctionTable {
    /// `name` (demangled).
    pub name: Vec<StringId>,
    /// `system_name` (mangled / raw).
    pub system_name: Vec<StringId>,
    /// `filename`.
    pub filename: Vec<StringId>,
    /// `start_line` (0 unknown, [`INT_NA`] NA).
    pub start_line: Vec<i32>,
    /// Dotted extension columns.
    pub ext: ExtColumns,
}

/// `locations`.
#[derive(Clone, Debug, Default)]
pub struct LocationTable {
    /// `function_id` as a row of [`FunctionTable`]; [`NO_INDEX`] for NA.
    pub function: Vec<u32>,
    /// `line` (0 unknown, [`INT_NA`] NA).
    pub line: Vec<i32>,
    /// Dotted extension columns (`.address`, `.frame_type`, …).
    pub ext: ExtColumns,
}

/// The call-path prefix tree. Invariant: `prefix[i] < i` or [`NO_INDEX`] (a root frame), so
/// parents come before children and walks always terminate. A node's depth is not stored: one
/// forward pass gives every node's ([`Profile::stack_depths`]), a walk one node's.
#[derive(Clone, Debug, Default)]
pub struct StackTable {
    /// The caller's stack node, or [`NO_INDEX`] for an outermost frame (held in about a bit
    /// a node: see [`Prefixes`]).
    pub prefix: Prefixes,
    /// The frame of this node (two bytes a node while the profile has fewer than 65,536
    /// locations: see [`StackLocations`]).
    pub location: StackLocations,
}

/// `samples`: one row per raw sample.
#[derive(Clone, Debug, Default)]
pub struct SampleTable {
    /// `source_id` as a row of [`SourceTable`].
    pub source: Vec<SourceIndex>,
    /// Innermost frame's stack node; [`NO_INDEX`] for a sample without frames.
    pub stack: Vec<u32>,
    /// Dotted extension columns ([`SAMPLE_TIME`], …).
    pub ext: ExtColumns,
}

/// One value type of `sample_values` and its cells for every sample.
#[derive(Clone, Debug)]
pub struct ValueColumn {
    /// `type` (e.g. `samples`, `cpu`, `alloc_space`).
    pub value_type: StringId,
    /// `unit` (e.g. `count`, `nanoseconds`, `bytes`).
    pub unit: StringId,
    /// One cell per sample.
    pub values: Vec<f64>,
    /// `None` when every sample has a row for this type; else `present[s]` says whether
    /// sample `s` has one (absent cells hold NaN in `values`).
    pub present: Option<Vec<bool>>,
}

impl ValueColumn {
    /// The value of sample `s` for this type, if the sample has one.
    #[inline]
    pub fn get(&self, s: usize) -> Option<f64> {
        let v = *self.values.get(s)?;
        match &self.present {
            Some(p) if !p.get(s).copied().unwrap_or(false) => None,
            _ => Some(v),
        }
    }

    /// Sum over the samples that have a value (absent cells count 0).
    pub fn total(&self) -> f64 {
        (0..self.values.len()).filter_map(|s| self.get(s)).sum()
    }

    /// Number of `sample_values` rows of this type.
    pub fn row_count(&self) -> usize {
        match &self.present {
            None => self.values.len(),
            Some(p) => p.iter().filter(|&&b| b).count(),
        }
    }
}

/// A complete v2 profile in physical form. Built by [`crate::model::ProfileBuilder`], whose
/// `build` checks every invariant documented on the tables, so code downstream may index
/// without further checks.
#[derive(Clone, Debug, Default)]
pub struct Profile {
    /// The one string table.
    pub strings: StringTable,
    /// `meta`.
    pub meta: MetaTable,
    /// `sources`.
    pub sources: SourceTable,
    /// `samples`.
    pub samples: SampleTable,
    /// `sample_values`, one column per value type.
    pub values: Vec<ValueColumn>,
    /// Call-path prefix tree referenced by `samples.stack`.
    pub stacks: StackTable,
    /// `locations`.
    pub locations: LocationTable,
    /// `functions`.
    pub functions: FunctionTable,
    /// Extension tables (e.g. `mappings`, `sample_labels`).
    pub ext_tables: Vec<ExtTable>,
}

impl Profile {
    /// Number of samples.
    pub fn num_samples(&self) -> usize {
        self.samples.source.len()
    }

    /// The text of a string id (`""` for NA).
    pub fn str(&self, id: StringId) -> &str {
        self.strings.text(id)
    }

    /// Every value of meta key `key`, in order.
    pub fn meta_values<'a>(&'a self, key: &str) -> impl Iterator<Item = &'a str> + 'a {
        let key = self.strings.find(key);
        self.meta
            .key
            .iter()
            .zip(&self.meta.value)
            .filter(move |(k, _)| Some(**k) == key)
            .map(|(_, v)| self.strings.text(*v))
    }

    /// The first value of meta key `key`.
    pub fn meta_value(&self, key: &str) -> Option<&str> {
        self.meta_values(key).next()
    }

    /// The value type called `name` (its `type` column).
    pub fn value_type_index(&self, name: &str) -> Option<ValueTypeIndex> {
        let pos = self
            .values
            .iter()
            .position(|c| self.strings.text(c.value_type) == name)?;
        ValueTypeIndex::from_usize(pos)
    }

    /// The default value type: meta `default_sample_type` when it names a type, else the last
    /// type (as `go tool pprof` does). `None` when the profile has no value types.
    pub fn default_value_type(&self) -> Option<ValueTypeIndex> {
        self.meta_value(META_DEFAULT_TYPE)
            .and_then(|name| self.value_type_index(name))
            .or_else(|| ValueTypeIndex::from_usize(self.values.len().checked_sub(1)?))
    }

    /// The value column of `vt`.
    pub fn value_column(&self, vt: ValueTypeIndex) -> Option<&ValueColumn> {
        self.values.get(vt.idx())
    }

    /// The `(type, unit)` text of `vt`.
    pub fn value_type_names(&self, vt: ValueTypeIndex) -> (&str, &str) {
        self.values.get(vt.idx()).map_or(("", ""), |c| {
            (self.strings.text(c.value_type), self.strings.text(c.unit))
        })
    }

    /// The stack node of sample `s`, if it has frames.
    pub fn sample_stack(&self, s: SampleIndex) -> Option<StackIndex> {
        decode_opt(*self.samples.stack.get(s.idx())?).map(StackIndex)
    }

    /// The frames of a stack node from the innermost (depth 1) outwards.
    pub fn frames_leaf_first(&self, stack: Option<StackIndex>) -> LeafFirstFrames<'_> {
        LeafFirstFrames {
            stacks: &self.stacks,
            next: stack.map_or(NO_INDEX, |s| s.0),
        }
    }

    /// Number of frames of a stack node (a walk to its root; for many nodes see
    /// [`Self::stack_depths`]).
    pub fn stack_depth(&self, stack: Option<StackIndex>) -> usize {
        self.frames_leaf_first(stack).count()
    }

    /// Number of frames from the root to each stack node, inclusive (a root frame has 1): one
    /// forward pass, parents before children, in calls of [`in_chunks`] (wasm code tiers up
    /// between calls).
    pub fn stack_depths(&self) -> Vec<u32> {
        let prefix = &self.stacks.prefix;
        let mut depth: Vec<u32> = Vec::with_capacity(prefix.len());
        in_chunks(0..prefix.len(), |rows| {
            for q in prefix.range(rows) {
                let up = decode_opt(q).and_then(|q| depth.get(q as usize).copied());
                depth.push(up.map_or(1, |d| d.saturating_add(1)));
            }
            true
        });
        depth
    }

    /// The display name of a frame: the function's name, else the location's address in hex
    /// (`0x…`), else `<unknown>`. Every writer and view names a frame this way.
    pub fn frame_display_name(&self, loc: LocationIndex) -> String {
        match self.location_function(loc) {
            Some(f) => self.str(self.functions.name[f.idx()]).to_owned(),
            None => self
                .location_address(loc)
                .map_or_else(|| "<unknown>".to_owned(), |a| format!("{a:#x}")),
        }
    }

    /// The `locations..address` cell of a location, where the profile has that column.
    pub fn location_address(&self, loc: LocationIndex) -> Option<u64> {
        self.locations
            .ext
            .u64(super::ext::locations::ADDRESS)?
            .get(loc.idx())
            .copied()
            .flatten()
    }

    /// The function row of a location (`None` for NA).
    pub fn location_function(&self, loc: LocationIndex) -> Option<FunctionIndex> {
        decode_opt(*self.locations.function.get(loc.idx())?).map(FunctionIndex)
    }

    /// The extension table called `name`.
    pub fn ext_table(&self, name: &str) -> Option<&ExtTable> {
        self.ext_tables.iter().find(|t| t.name == name)
    }

    /// Number of `sample_locations` rows (sum of stack depths), computed without materializing.
    pub fn sample_location_rows(&self) -> usize {
        let depth = self.stack_depths();
        self.samples
            .stack
            .iter()
            .map(|&s| {
                decode_opt(s)
                    .and_then(|s| depth.get(s as usize))
                    .map_or(0, |&d| d as usize)
            })
            .sum()
    }

    /// Number of `sample_values` rows.
    pub fn sample_value_rows(&self) -> usize {
        self.values.iter().map(ValueColumn::row_count).sum()
    }
}

/// Iterator over the locations of a stack, innermost first.
pub struct LeafFirstFrames<'a> {
    stacks: &'a StackTable,
    next: u32,
}

impl Iterator for LeafFirstFrames<'_> {
    type Item = LocationIndex;

    fn next(&mut self) -> Option<LocationIndex> {
        let i = decode_opt(self.next)? as usize;
        let loc = self.stacks.location.get(i)?;
        let prefix = self.stacks.prefix.at(i);
        // Invariant prefix < i guarantees termination; enforce it here too.
        self.next = if decode_opt(prefix).is_some_and(|p| (p as usize) < i) {
            prefix
        } else {
            NO_INDEX
        };
        Some(loc)
    }
}
