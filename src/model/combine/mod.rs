//! [`combine`]: several profiles into one, as the model's `combine_profiles()` asks (docs/model.md) ("remap ids
//! to avoid conflicts, preserve provenance").
//!
//! What the combined profile holds, input by input in order:
//!
//! - `sources`: every input's sources, concatenated and renumbered (with their extension columns).
//! - `samples`: every sample, renumbered in input order; each keeps exactly the values it had
//!   (a type another input adds is absent for it, not zero) and its extension cells.
//! - value types: the union by type name, in order of first appearance. The same type name with
//!   two different units is an error, since adding such values would be wrong.
//! - `functions` and `locations`: a row of a later input that equals a row of an earlier input
//!   in content (function: name, system name, filename, start line and every extension cell;
//!   location: function, line and every extension cell) becomes that row, so the same function
//!   read from two files is one function. Rows of one input are never merged with each other, so
//!   combining one profile gives that profile back.
//! - extension columns: the union by name; a column an input lacks is NA for its rows. The same
//!   name with kinds `int` and `dbl` becomes `dbl`; any other kind clash becomes `chr` (cells
//!   written as text).
//! - extension tables: merged by name, every row kept, columns unioned as above.
//! - meta: see [`META_SOURCE_PREFIX`].
//!
//! **Id columns.** An extension column (of an extension table, or a dotted column of a v2 table)
//! whose name, without its leading dot, is `sample_id`, `location_id`, `function_id` or
//! `source_id` holds logical ids (row number + 1) of that table and is remapped to the combined
//! profile's ids; an id that names no row of its input is an error. An extension table `T…s`
//! with a column `T…_id` (e.g. `mappings` with `mapping_id`) defines its own id space: the
//! values of `T…_id` in every table, and of `.T…_id` columns anywhere, are shifted by the
//! largest id of that space in the earlier inputs, so ids of different inputs cannot collide.
//! Ids of an own id space should be positive integers; id columns of kind `chr` are copied as is.
//!
//! The steps live one per file: [`plan`] decides the schemas, value types and id spaces before
//! any row is copied; [`cells`] copies extension cells (re-interning strings, remapping ids,
//! converting kinds); [`meta`] merges the meta rows. This file copies the v2 tables.

mod cells;
mod meta;
mod plan;

use crate::hash::HashMap;

use super::builder::{FunctionKey, ModelError, ProfileBuilder};
use super::columns::{ExtColumns, ExtTable};
use super::ids::*;
use super::profile::Profile;
use cells::{append_columns, push_row, CellKey};
use meta::merge_meta;
use plan::Plan;

/// Meta rows keyed `source.<source_id>.<key>` belong to one source.
///
/// A key whose rows (its list of values, in order) are identical in every input stays one set
/// of plain rows. Otherwise each source gets the rows that applied to it, keyed
/// `source.<id>.<key>` with its combined source id: a plain row of an input applies to each of
/// its sources that has no `source.<id>.<key>` rows of its own. Inputs' `source.<id>.<key>` rows
/// are renumbered likewise. So no row is lost, and combining is associative. A conflicting
/// `default_sample_type` thus becomes per-source rows, and the combined default is the last
/// value type. An input without sources (and so without samples) keeps a conflicting key as
/// [`META_UNSOURCED_PREFIX`]`<key>`.
pub const META_SOURCE_PREFIX: &str = "source.";
/// Prefix of meta rows of an input without sources whose key conflicts with another input.
pub const META_UNSOURCED_PREFIX: &str = "unsourced.";

/// Combines owned `profiles`: one profile is returned as it is (no copy), several are
/// [`combine`]d; `None` when there are none. What the CLI and the viewer do with their inputs.
pub fn combine_owned(mut profiles: Vec<Profile>) -> Option<Result<Profile, ModelError>> {
    match profiles.len() {
        0 => None,
        1 => profiles.pop().map(Ok),
        _ => Some(combine(&profiles)),
    }
}

/// Combines `profiles` into one profile; see the module documentation for the rules.
/// Combining no profiles gives an empty profile.
pub fn combine(profiles: &[Profile]) -> Result<Profile, ModelError> {
    let plan = Plan::new(profiles)?;
    let mut c = Combiner::new(&plan);
    for (input, p) in profiles.iter().enumerate() {
        c.add_input(input, p)?;
    }
    let mut out = c.finish()?;
    out.meta = super::profile::MetaTable::default();
    merge_meta(profiles, &mut out);
    Ok(out)
}

/// How the rows of one input map onto the combined profile.
struct InputMap {
    input: usize,
    /// Input string id → combined string id (`None` until first seen).
    strings: Vec<Option<StringId>>,
    sources: Vec<SourceIndex>,
    functions: Vec<FunctionIndex>,
    locations: Vec<LocationIndex>,
    /// Input stack node → combined stack node.
    stacks: Vec<StackIndex>,
    /// Number of samples of the earlier inputs.
    sample_offset: usize,
    num_samples: usize,
}

/// Copies inputs into a [`ProfileBuilder`] one after another.
struct Combiner<'a> {
    plan: &'a Plan,
    b: ProfileBuilder,
    value_types: Vec<ValueTypeIndex>,
    function_ids: HashMap<(FunctionKey, Vec<CellKey>), FunctionIndex>,
    location_ids: HashMap<(u32, i32, Vec<CellKey>), LocationIndex>,
    sources_ext: ExtColumns,
    samples_ext: ExtColumns,
    functions_ext: ExtColumns,
    locations_ext: ExtColumns,
    tables: Vec<ExtTable>,
}

impl<'a> Combiner<'a> {
    fn new(plan: &'a Plan) -> Self {
        let mut b = ProfileBuilder::new();
        let value_types = plan
            .value_types
            .iter()
            .map(|(t, u)| b.value_type(t, u))
            .collect();
        Combiner {
            plan,
            b,
            value_types,
            function_ids: HashMap::default(),
            location_ids: HashMap::default(),
            sources_ext: plan.sources.empty_columns(),
            samples_ext: plan.samples.empty_columns(),
            functions_ext: plan.functions.empty_columns(),
            locations_ext: plan.locations.empty_columns(),
            tables: plan
                .tables
                .iter()
                .map(|(name, schema)| ExtTable {
                    name: name.clone(),
                    columns: schema.empty_columns(),
                })
                .collect(),
        }
    }

    fn add_input(&mut self, input: usize, p: &Profile) -> Result<(), ModelError> {
        let mut m = InputMap {
            input,
            strings: vec![None; p.strings.len()],
            sources: Vec::with_capacity(p.sources.source_type.len()),
            functions: Vec::with_capacity(p.functions.name.len()),
            locations: Vec::with_capacity(p.locations.line.len()),
            stacks: Vec::with_capacity(p.stacks.prefix.len()),
            sample_offset: self.b.num_samples(),
            num_samples: p.num_samples(),
        };
        self.add_sources(p, &mut m)?;
        self.add_functions(p, &mut m)?;
        self.add_locations(p, &mut m)?;
        self.add_stacks(p, &mut m);
        self.add_samples(p, &mut m)?;
        self.add_ext_tables(p, &mut m)
    }

    fn add_sources(&mut self, p: &Profile, m: &mut InputMap) -> Result<(), ModelError> {
        let s = &p.sources;
        for row in 0..s.source_type.len() {
            let t = p.str(s.source_type[row]);
            let uri = p.strings.get(s.source_uri[row]);
            let ts = s.source_timestamp[row];
            let out = self.b.add_source(t, uri, (!ts.is_nan()).then_some(ts));
            // Keep NA text cells NA (add_source takes text).
            let source_type = self.map_str(p, m, s.source_type[row]);
            self.b.sources_mut().source_type[out.idx()] = source_type;
            m.sources.push(out);
        }
        let plan = self.plan;
        let rows = 0..s.source_type.len();
        let cols = self.copy_ext_rows(p, m, &s.ext, &plan.sources, rows, "sources")?;
        append_columns(&mut self.sources_ext, cols);
        Ok(())
    }

    fn add_functions(&mut self, p: &Profile, m: &mut InputMap) -> Result<(), ModelError> {
        let f = &p.functions;
        let plan = self.plan;
        let first_new = self.b.profile().functions.name.len();
        for row in 0..f.name.len() {
            let key = FunctionKey {
                name: self.map_str(p, m, f.name[row]),
                system_name: self.map_str(p, m, f.system_name[row]),
                filename: self.map_str(p, m, f.filename[row]),
                start_line: f.start_line[row],
            };
            let cells = self.mapped_row(p, m, &f.ext, &plan.functions, row, "functions")?;
            let dedup_key = (key, cells.iter().map(|&c| CellKey::from(c)).collect());
            match self.function_ids.get(&dedup_key) {
                Some(&out) if out.idx() < first_new => m.functions.push(out),
                _ => {
                    let out = self.b.add_function(key);
                    push_row(&mut self.functions_ext, &cells);
                    self.function_ids.entry(dedup_key).or_insert(out);
                    m.functions.push(out);
                }
            }
        }
        Ok(())
    }

    fn add_locations(&mut self, p: &Profile, m: &mut InputMap) -> Result<(), ModelError> {
        let l = &p.locations;
        let plan = self.plan;
        let first_new = self.b.profile().locations.line.len();
        for row in 0..l.line.len() {
            let function =
                decode_opt(l.function[row]).and_then(|f| m.functions.get(f as usize).copied());
            let cells = self.mapped_row(p, m, &l.ext, &plan.locations, row, "locations")?;
            let dedup_key = (
                encode_opt(function.map(|f| f.0)),
                l.line[row],
                cells.iter().map(|&c| CellKey::from(c)).collect(),
            );
            match self.location_ids.get(&dedup_key) {
                Some(&out) if out.idx() < first_new => m.locations.push(out),
                _ => {
                    let out = self.b.add_location(function, l.line[row]);
                    push_row(&mut self.locations_ext, &cells);
                    self.location_ids.entry(dedup_key).or_insert(out);
                    m.locations.push(out);
                }
            }
        }
        Ok(())
    }

    /// Re-interns every stack node; `prefix < index` makes one forward pass enough.
    fn add_stacks(&mut self, p: &Profile, m: &mut InputMap) {
        for (prefix, loc) in p.stacks.prefix.iter().zip(&p.stacks.location) {
            let prefix = decode_opt(prefix).and_then(|q| m.stacks.get(q as usize).copied());
            let loc = m.locations.get(loc.idx()).copied().unwrap_or(loc);
            let node = self.b.stack_node(prefix, loc);
            m.stacks.push(node);
        }
    }

    fn add_samples(&mut self, p: &Profile, m: &mut InputMap) -> Result<(), ModelError> {
        let vts: Vec<ValueTypeIndex> = p
            .values
            .iter()
            .filter_map(|c| {
                let t = p.str(c.value_type);
                let pos = self.plan.value_types.iter().position(|(n, _)| n == t)?;
                self.value_types.get(pos).copied()
            })
            .collect();
        for s in 0..p.num_samples() {
            let source = m.sources[p.samples.source[s].idx()];
            let stack = decode_opt(p.samples.stack[s]).and_then(|n| m.stacks.get(n as usize));
            let out = self.b.add_sample(source, stack.copied());
            for (col, &vt) in p.values.iter().zip(&vts) {
                if let Some(v) = col.get(s) {
                    self.b.set_value(out, vt, v);
                }
            }
        }
        let plan = self.plan;
        let rows = 0..p.num_samples();
        let cols = self.copy_ext_rows(p, m, &p.samples.ext, &plan.samples, rows, "samples")?;
        append_columns(&mut self.samples_ext, cols);
        Ok(())
    }

    fn finish(mut self) -> Result<Profile, ModelError> {
        self.b.sources_mut().ext = self.sources_ext;
        self.b.samples_mut().ext = self.samples_ext;
        self.b.functions_mut().ext = self.functions_ext;
        self.b.locations_mut().ext = self.locations_ext;
        for t in self.tables {
            let name = t.name.clone();
            *self.b.ext_table(&name) = t;
        }
        self.b.build()
    }
}
