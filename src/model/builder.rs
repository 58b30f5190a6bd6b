//! [`ProfileBuilder`]: what every reader uses to fill a [`Profile`].
//!
//! It interns strings, functions, locations and stacks, so identical ones are stored once,
//! and [`ProfileBuilder::build`] checks every physical invariant before handing the profile out.

use std::hash::{BuildHasher as _, Hasher as _};

use super::columns::{Cell, ColumnKind, ExtTable};
use super::ids::*;
pub use super::invariants::{check_invariants, ModelError};
use super::invariants::{check_invariants_given, prefix_before};
use super::profile::*;
use super::stack_index::StackNodeIndex;
use super::strings::StringTable;
use crate::hash::{BuildHasher, HashMap};
use crate::memory::make_room;

/// Bytes of a stack node's prefix reserved ahead: a flag and a rank, an eighth of a byte, and
/// room for the prefixes that are listed (see [`super::Prefixes`]). Its location takes
/// [`super::StackLocations::cell_bytes`].
const STACK_PREFIX_BYTES: usize = 1;
/// Bytes of a sample row's own columns (`source`, `stack`).
const SAMPLE_ROW_BYTES: usize = size_of::<SourceIndex>() + size_of::<u32>();
/// Bytes of a sample's cell in a value column: the value and its presence flag.
const VALUE_CELL_BYTES: usize = size_of::<f64>() + size_of::<bool>();

/// The content of a `functions` row, used as its interning key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FunctionKey {
    /// `name`.
    pub name: StringId,
    /// `system_name`.
    pub system_name: StringId,
    /// `filename`.
    pub filename: StringId,
    /// `start_line` ([`INT_NA`] for NA).
    pub start_line: i32,
}

/// Builds a [`Profile`] row by row.
#[derive(Default)]
pub struct ProfileBuilder {
    p: Profile,
    function_ids: HashMap<FunctionKey, FunctionIndex>,
    location_ids: HashMap<(u32, i32), LocationIndex>,
    stack_ids: StackNodeIndex,
    /// Whole-stack cache: [`Self::stack_hash`] of a stack's frames to its innermost node. A
    /// hit is verified against the stack table and a colliding stack overwrites the entry, so
    /// a collision costs only a miss.
    stack_memo: HashMap<u64, StackIndex>,
    /// The seeded hasher of [`Self::stack_hash`], one per builder so equal stacks hash alike.
    stack_hasher: BuildHasher,
    /// The last stack interned, outermost frame first, and the node of each of its prefixes
    /// (`last_nodes[i]` is the node of `last_stack[..=i]`): consecutive samples often share
    /// most of their frames (timelines, sorted collapsed files), and the shared part then
    /// costs no lookups.
    last_stack: Vec<LocationIndex>,
    last_nodes: Vec<StackIndex>,
    value_presence: Vec<Vec<bool>>,
    frame_scratch: Vec<LocationIndex>,
    /// What the stack nodes pushed so far need to be sound, kept as they are pushed so that
    /// [`Self::build`] need not read the stack table again.
    pushed: PushedNodes,
}

/// A summary of every stack node pushed (the stack table changes only by
/// [`ProfileBuilder::push_stack_node`] and [`ProfileBuilder::push_stack_run`]): the nodes are
/// sound when no prefix was at or past its own row and every location is below
/// `location_bound`'s row count.
#[derive(Default)]
struct PushedNodes {
    /// Some node's prefix was not an earlier node.
    bad_prefix: bool,
    /// One more than the largest location index pushed (0 when none).
    location_bound: usize,
}

impl ProfileBuilder {
    /// An empty builder with meta `version = "2.0"`.
    pub fn new() -> Self {
        let mut b = ProfileBuilder::default();
        b.set_meta(META_VERSION, "2.0");
        b
    }

    /// The string table, for readers that intern on their own.
    pub fn strings(&mut self) -> &mut StringTable {
        &mut self.p.strings
    }

    /// Interns a string.
    pub fn intern(&mut self, s: &str) -> StringId {
        self.p.strings.intern(s)
    }

    /// The profile under construction (read-only).
    pub fn profile(&self) -> &Profile {
        &self.p
    }

    /// Sets a meta key, replacing every earlier row of that key.
    pub fn set_meta(&mut self, key: &str, value: &str) {
        let k = self.intern(key);
        let v = self.intern(value);
        let meta = &mut self.p.meta;
        if let Some(pos) = meta.key.iter().position(|&x| x == k) {
            meta.value[pos] = v;
            let mut i = pos + 1;
            while i < meta.key.len() {
                if meta.key[i] == k {
                    meta.key.remove(i);
                    meta.value.remove(i);
                } else {
                    i += 1;
                }
            }
        } else {
            meta.key.push(k);
            meta.value.push(v);
        }
    }

    /// Adds a meta row without replacing earlier rows of that key (for list-valued keys).
    pub fn add_meta(&mut self, key: &str, value: &str) {
        let k = self.intern(key);
        let v = self.intern(value);
        self.p.meta.key.push(k);
        self.p.meta.value.push(v);
    }

    /// Adds a `sources` row.
    pub fn add_source(
        &mut self,
        source_type: &str,
        uri: Option<&str>,
        timestamp: Option<f64>,
    ) -> SourceIndex {
        let t = self.intern(source_type);
        let u = self.p.strings.intern_opt(uri);
        let s = &mut self.p.sources;
        s.source_type.push(t);
        s.source_uri.push(u);
        s.source_timestamp.push(timestamp.unwrap_or(f64::NAN));
        SourceIndex(to_u32(s.source_type.len() - 1))
    }

    /// Mutable access to the sources table (for extension columns).
    pub fn sources_mut(&mut self) -> &mut SourceTable {
        &mut self.p.sources
    }

    /// The function with this content, added when new.
    pub fn function(&mut self, key: FunctionKey) -> FunctionIndex {
        if let Some(&f) = self.function_ids.get(&key) {
            return f;
        }
        let f = self.add_function(key);
        self.function_ids.insert(key, f);
        f
    }

    /// Adds a function row without looking for an identical one.
    pub fn add_function(&mut self, key: FunctionKey) -> FunctionIndex {
        let t = &mut self.p.functions;
        t.name.push(key.name);
        t.system_name.push(key.system_name);
        t.filename.push(key.filename);
        t.start_line.push(key.start_line);
        FunctionIndex(to_u32(t.name.len() - 1))
    }

    /// Convenience: the function `name` (system name = name) in `filename`, start line 0.
    pub fn function_named(&mut self, name: &str, filename: Option<&str>) -> FunctionIndex {
        self.function_at(name, filename, 0)
    }

    /// [`function_named`](Self::function_named) with a start line (0 when unknown): the system
    /// name is the name.
    pub fn function_at(
        &mut self,
        name: &str,
        filename: Option<&str>,
        start_line: i32,
    ) -> FunctionIndex {
        let name = self.intern(name);
        let filename = self.p.strings.intern_opt(filename);
        self.function(FunctionKey {
            name,
            system_name: name,
            filename,
            start_line,
        })
    }

    /// Mutable access to the functions table (extension columns, start_line updates).
    pub fn functions_mut(&mut self) -> &mut FunctionTable {
        &mut self.p.functions
    }

    /// The location `(function, line)`, added when new.
    pub fn location(&mut self, function: Option<FunctionIndex>, line: i32) -> LocationIndex {
        let key = (encode_opt(function.map(|f| f.0)), line);
        if let Some(&l) = self.location_ids.get(&key) {
            return l;
        }
        let l = self.add_location(function, line);
        self.location_ids.insert(key, l);
        l
    }

    /// Adds a location row without looking for an identical one (e.g. one per pprof address).
    pub fn add_location(&mut self, function: Option<FunctionIndex>, line: i32) -> LocationIndex {
        let t = &mut self.p.locations;
        t.function.push(encode_opt(function.map(|f| f.0)));
        t.line.push(line);
        LocationIndex(to_u32(t.line.len() - 1))
    }

    /// Sets an extension cell of a location row (e.g. `.address`).
    pub fn set_location_ext(&mut self, loc: LocationIndex, column: &str, cell: Cell) {
        let _ = self.p.locations.ext.set(column, loc.idx(), cell);
    }

    /// Mutable access to the locations table.
    pub fn locations_mut(&mut self) -> &mut LocationTable {
        &mut self.p.locations
    }

    /// The stack node for `location` called from `prefix`, added when new.
    pub fn stack_node(
        &mut self,
        prefix: Option<StackIndex>,
        location: LocationIndex,
    ) -> StackIndex {
        let p = encode_opt(prefix.map(|s| s.0));
        match self.stack_ids.find(&self.p.stacks, p, location) {
            Some(s) => s,
            None => self.new_stack_node(prefix, location),
        }
    }

    /// Appends the node `(prefix, location)`, known to be new, and indexes it.
    fn new_stack_node(
        &mut self,
        prefix: Option<StackIndex>,
        location: LocationIndex,
    ) -> StackIndex {
        let s = self.push_stack_node(prefix, location);
        self.stack_ids.insert(&self.p.stacks, s);
        s
    }

    /// Room for `total` stack nodes in all (nothing when the table already has it), allocated
    /// once and exactly: a reader that can tell the final size saves the copies of doubling
    /// growth, and in wasm the old blocks too (its memory never shrinks).
    /// Room that cannot be had is not an error: the columns then grow as they would have.
    pub fn reserve_stack_nodes(&mut self, total: usize) {
        let st = &mut self.p.stacks;
        let more = total.saturating_sub(st.prefix.len());
        if more > 0 {
            // The two columns' new blocks, from one grow of wasm memory (where the reader's
            // room, if it made one, has run out).
            make_room(total.saturating_mul(STACK_PREFIX_BYTES + st.location.cell_bytes()));
        }
        let _ = st
            .prefix
            .try_reserve_exact(more)
            .and_then(|()| st.location.try_reserve_exact(more));
    }

    /// Appends a stack node without looking for an identical one: for readers that intern
    /// stacks themselves (with a key of their own, e.g. pprof location ids) and never append
    /// the same `(prefix, location)` twice. `prefix` must be an existing node, so that
    /// `prefix < index` holds, and `location` an existing location: each push notes whether
    /// they hold, and [`Self::build`] fails when one did not.
    #[inline]
    pub fn push_stack_node(
        &mut self,
        prefix: Option<StackIndex>,
        location: LocationIndex,
    ) -> StackIndex {
        let st = &mut self.p.stacks;
        let row = st.prefix.len();
        let pushed = &mut self.pushed;
        let p = encode_opt(prefix.map(|s| s.0));
        pushed.bad_prefix |= !prefix_before(row, p);
        pushed.location_bound = pushed.location_bound.max(location.idx() + 1);
        st.prefix.push(p);
        st.location.push(location);
        StackIndex(to_u32(row))
    }

    /// Appends `locations` as a chain of new stack nodes below the last node: the first's
    /// prefix is the last node, each next one's the node before it. For a reader whose walk
    /// has just made the last node, so that the rest of the walk is new: the columns grow by
    /// whole slices instead of a call per node. The last node made, or `None` for no
    /// locations; on an empty table the nodes are unsound (as [`Self::push_stack_node`]
    /// notes, [`Self::build`] then fails).
    pub fn push_stack_run(&mut self, locations: &[LocationIndex]) -> Option<StackIndex> {
        let bound = locations.iter().map(|l| l.idx() + 1).max()?;
        let st = &mut self.p.stacks;
        let row = st.prefix.len();
        self.pushed.bad_prefix |= row == 0;
        self.pushed.location_bound = self.pushed.location_bound.max(bound);
        let end = row + locations.len();
        st.prefix.push_chain(locations.len());
        st.location.extend_from_slice(locations);
        Some(StackIndex(to_u32(end - 1)))
    }

    /// The stack node of a whole stack given innermost frame first (as pprof and Rprof list
    /// frames). `None` for an empty stack.
    ///
    /// A stack seen before is found with one hash of its frames and a walk up its nodes,
    /// instead of one prefix-tree lookup per frame.
    pub fn stack_leaf_first(&mut self, frames: &[LocationIndex]) -> Option<StackIndex> {
        let hash = self.stack_hash(frames.iter().copied());
        if let Some(s) = self.memoized_stack(hash, frames.iter().copied()) {
            return Some(s);
        }
        let stack = self.intern_root_first(frames.iter().rev().copied());
        self.memoize_stack(hash, stack)
    }

    /// The stack node of a whole stack given outermost frame first (collapsed, speedscope).
    pub fn stack_root_first(&mut self, frames: &[LocationIndex]) -> Option<StackIndex> {
        let hash = self.stack_hash(frames.iter().rev().copied());
        if let Some(s) = self.memoized_stack(hash, frames.iter().rev().copied()) {
            return Some(s);
        }
        let stack = self.intern_root_first(frames.iter().copied());
        self.memoize_stack(hash, stack)
    }

    /// Interns a stack given outermost frame first, starting below the prefix it shares with
    /// the previous stack.
    fn intern_root_first(
        &mut self,
        root_first: impl Iterator<Item = LocationIndex>,
    ) -> Option<StackIndex> {
        let mut node = None;
        let mut depth = 0;
        let mut shared = true;
        let mut fresh = false;
        for loc in root_first {
            let reused = if shared && self.last_stack.get(depth) == Some(&loc) {
                self.last_nodes.get(depth).copied()
            } else {
                None
            };
            node = match reused {
                Some(n) => Some(n),
                None => {
                    if shared {
                        shared = false;
                        self.last_stack.truncate(depth);
                        self.last_nodes.truncate(depth);
                    }
                    // Below a node created just now, every node is new.
                    let n = if fresh {
                        self.new_stack_node(node, loc)
                    } else {
                        let before = self.p.stacks.prefix.len();
                        let n = self.stack_node(node, loc);
                        fresh = self.p.stacks.prefix.len() > before;
                        n
                    };
                    self.last_stack.push(loc);
                    self.last_nodes.push(n);
                    Some(n)
                }
            };
            depth += 1;
        }
        if shared {
            self.last_stack.truncate(depth);
            self.last_nodes.truncate(depth);
        }
        node
    }

    /// The hash of a stack's frames given innermost first, with the builder's seeded hasher.
    fn stack_hash(&self, leaf_first: impl ExactSizeIterator<Item = LocationIndex>) -> u64 {
        let mut h = self.stack_hasher.build_hasher();
        h.write_usize(leaf_first.len());
        for loc in leaf_first {
            h.write_u32(loc.0);
        }
        h.finish()
    }

    /// The cached node for `hash` when its frames are exactly `leaf_first`.
    fn memoized_stack(
        &self,
        hash: u64,
        leaf_first: impl ExactSizeIterator<Item = LocationIndex>,
    ) -> Option<StackIndex> {
        let s = *self.stack_memo.get(&hash)?;
        let st = &self.p.stacks;
        let mut node = s.0;
        for loc in leaf_first {
            let i = decode_opt(node)? as usize;
            if st.location.get(i) != Some(loc) {
                return None;
            }
            node = st.prefix.get(i)?;
        }
        (node == NO_INDEX).then_some(s)
    }

    fn memoize_stack(&mut self, hash: u64, stack: Option<StackIndex>) -> Option<StackIndex> {
        if let Some(s) = stack {
            self.stack_memo.insert(hash, s);
        }
        stack
    }

    /// A reusable scratch buffer for collecting frames without allocating per sample. Take it,
    /// fill it, pass it to `stack_leaf_first`, and give it back with [`Self::return_scratch`].
    pub fn take_scratch(&mut self) -> Vec<LocationIndex> {
        let mut v = std::mem::take(&mut self.frame_scratch);
        v.clear();
        v
    }

    /// Gives back the buffer of [`Self::take_scratch`].
    pub fn return_scratch(&mut self, v: Vec<LocationIndex>) {
        self.frame_scratch = v;
    }

    /// The value type `(type, unit)`, added when new. Types are keyed by `type` alone, as
    /// `sample_values` is keyed by `(sample_id, type)`; a second unit for a known type is
    /// ignored and the first unit kept.
    pub fn value_type(&mut self, value_type: &str, unit: &str) -> ValueTypeIndex {
        let t = self.intern(value_type);
        if let Some(pos) = self.p.values.iter().position(|c| c.value_type == t) {
            return ValueTypeIndex(to_u32(pos));
        }
        let u = self.intern(unit);
        let n = self.p.num_samples();
        self.p.values.push(ValueColumn {
            value_type: t,
            unit: u,
            values: vec![f64::NAN; n],
            present: None,
        });
        self.value_presence.push(vec![false; n]);
        ValueTypeIndex(to_u32(self.p.values.len() - 1))
    }

    /// Room for `total` samples in all, in the sample table and every value column declared
    /// so far, allocated once and exactly (see [`Self::reserve_stack_nodes`]): for a reader
    /// that knows the count before it reads the samples. Room that cannot be had is not an
    /// error.
    pub fn reserve_samples(&mut self, total: usize) {
        let more = total.saturating_sub(self.p.samples.source.len());
        let s = &mut self.p.samples;
        let _ = s.source.try_reserve_exact(more);
        let _ = s.stack.try_reserve_exact(more);
        for (col, pres) in self.p.values.iter_mut().zip(&mut self.value_presence) {
            let _ = col.values.try_reserve_exact(more);
            let _ = pres.try_reserve_exact(more);
        }
    }

    /// The bytes [`Self::reserve_samples`] takes per sample with `values` value columns.
    pub fn sample_row_bytes(values: usize) -> usize {
        SAMPLE_ROW_BYTES.saturating_add(values.saturating_mul(VALUE_CELL_BYTES))
    }

    /// Adds a sample row; its values are set with [`Self::set_value`].
    pub fn add_sample(&mut self, source: SourceIndex, stack: Option<StackIndex>) -> SampleIndex {
        self.add_sample_in_column_order(source, stack, [])
    }

    /// Adds a sample row with the values of the value columns in column order: the row
    /// [`Self::add_sample`] and a [`Self::set_value`] per value would make, in one pass (a
    /// reader of millions of samples). Columns past the last value stay NA; values past the
    /// last column are ignored.
    pub fn add_sample_in_column_order(
        &mut self,
        source: SourceIndex,
        stack: Option<StackIndex>,
        values: impl IntoIterator<Item = f64>,
    ) -> SampleIndex {
        let s = &mut self.p.samples;
        s.source.push(source);
        s.stack.push(encode_opt(stack.map(|x| x.0)));
        let mut values = values.into_iter();
        for (col, pres) in self.p.values.iter_mut().zip(&mut self.value_presence) {
            let v = values.next();
            col.values.push(v.unwrap_or(f64::NAN));
            pres.push(v.is_some());
        }
        SampleIndex(to_u32(s.source.len() - 1))
    }

    /// Adds a sample with its values in one call.
    pub fn add_sample_with_values(
        &mut self,
        source: SourceIndex,
        stack: Option<StackIndex>,
        values: &[(ValueTypeIndex, f64)],
    ) -> SampleIndex {
        let s = self.add_sample(source, stack);
        for &(vt, v) in values {
            self.set_value(s, vt, v);
        }
        s
    }

    /// Sets the value of `sample` for `vt` (one `sample_values` row).
    pub fn set_value(&mut self, sample: SampleIndex, vt: ValueTypeIndex, value: f64) {
        if let Some(col) = self.p.values.get_mut(vt.idx()) {
            if let Some(slot) = col.values.get_mut(sample.idx()) {
                *slot = value;
            }
        }
        if let Some(pres) = self.value_presence.get_mut(vt.idx()) {
            if let Some(slot) = pres.get_mut(sample.idx()) {
                *slot = true;
            }
        }
    }

    /// Sets an extension cell of a sample row (e.g. [`SAMPLE_TIME`]).
    pub fn set_sample_ext(&mut self, sample: SampleIndex, column: &str, cell: Cell) {
        let _ = self.p.samples.ext.set(column, sample.idx(), cell);
    }

    /// Mutable access to the samples table.
    pub fn samples_mut(&mut self) -> &mut SampleTable {
        &mut self.p.samples
    }

    /// The extension table called `name`, created when missing.
    pub fn ext_table(&mut self, name: &str) -> &mut ExtTable {
        let pos = match self.p.ext_tables.iter().position(|t| t.name == name) {
            Some(p) => p,
            None => {
                self.p.ext_tables.push(ExtTable::new(name));
                self.p.ext_tables.len() - 1
            }
        };
        &mut self.p.ext_tables[pos]
    }

    /// Ensures an extension column exists on `samples` even when no cell is set.
    pub fn declare_sample_column(&mut self, column: &str, kind: ColumnKind) {
        self.p.samples.ext.get_or_create(column, kind);
    }

    /// Number of samples so far.
    pub fn num_samples(&self) -> usize {
        self.p.num_samples()
    }

    /// Finishes the profile: pads extension columns, settles value presence and checks every
    /// physical invariant.
    pub fn build(mut self) -> Result<Profile, ModelError> {
        let n = self.p.num_samples();
        for (col, pres) in self.p.values.iter_mut().zip(self.value_presence) {
            col.present = if pres.iter().all(|&b| b) {
                None
            } else {
                Some(pres)
            };
            col.values.resize(n, f64::NAN);
        }
        self.p.samples.ext.pad_to(n);
        let nl = self.p.locations.line.len();
        self.p.locations.ext.pad_to(nl);
        let nf = self.p.functions.name.len();
        self.p.functions.ext.pad_to(nf);
        let ns = self.p.sources.source_type.len();
        self.p.sources.ext.pad_to(ns);
        for t in &mut self.p.ext_tables {
            let len = t.len();
            t.columns.pad_to(len);
        }
        let pushed = &self.pushed;
        let stacks_sound =
            !pushed.bad_prefix && pushed.location_bound <= self.p.locations.line.len();
        check_invariants_given(&self.p, stacks_sound)?;
        Ok(self.p)
    }
}

fn to_u32(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX - 1)
}
