//! Flat profiles into the builder's tables: one `sources` row each, stacks computed per node
//! iteratively (parents first, cycles are errors), then samples from `samples`/`timeDeltas`
//! (with a clock that never goes backwards) or, without samples, from `hitCount`s.

use super::nodes::{
    anonymous_name, clamp_i32, is_root_frame, node_index, note_dropped, parent_links, whole,
};
use crate::formats::cpuprofile::schema::{FlatProfile, RawCallFrame, RawNode, ScriptId};
use crate::formats::cpuprofile::{
    FUNCTION_SCRIPT_ID, FUNCTION_START_COLUMN, LOCATION_COLUMN, NAME, SOURCE_END_TIME, SOURCE_NAME,
    SOURCE_START_TIME,
};
use crate::formats::error::{Place, ReadError, Warnings};
use crate::formats::read_common::{check_sample_limit, finish_parsed};
use crate::formats::{Format, Parsed, ReadOptions};
use crate::hash::HashMap;
use crate::model::{
    ext, Cell, ColumnKind, FunctionIndex, FunctionKey, LocationIndex, ProfileBuilder, SourceIndex,
    StackIndex, ValueTypeIndex, META_DEFAULT_TYPE, SAMPLE_TIME,
};

/// Walk state of a node while computing stacks.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Walk {
    New,
    OnPath,
    Done,
}

/// Identity of a call frame.
pub(super) type FrameKey = (String, String, String, i64, i64);

/// Turns flat profiles into the builder's tables.
pub(super) struct Converter<'o> {
    options: &'o ReadOptions,
    b: ProfileBuilder,
    functions: HashMap<FrameKey, FunctionIndex>,
    locations: HashMap<(u32, i32, i32), LocationIndex>,
    samples_vt: ValueTypeIndex,
    time_vt: Option<ValueTypeIndex>,
}

impl<'o> Converter<'o> {
    pub(super) fn new(options: &'o ReadOptions) -> Self {
        let mut b = ProfileBuilder::new();
        let samples_vt = b.value_type("samples", "count");
        Converter {
            options,
            b,
            functions: HashMap::default(),
            locations: HashMap::default(),
            samples_vt,
            time_vt: None,
        }
    }

    pub(super) fn add_profile(
        &mut self,
        fp: FlatProfile,
        warnings: &mut Warnings,
    ) -> Result<(), ReadError> {
        let source = self.source(&fp);
        let index = node_index(&fp)?;
        let parents = parent_links(&fp, &index, warnings)?;
        let stacks = self.node_stacks(&fp, &parents, warnings)?;
        let has_samples = fp.samples.as_ref().is_some_and(|s| !s.is_empty()) || fp.deltas.is_some();
        if has_samples {
            self.timed_samples(&fp, source, &index, &parents, &stacks, warnings)
        } else {
            self.hit_count_samples(&fp, source, &stacks)
        }
    }

    fn source(&mut self, fp: &FlatProfile) -> SourceIndex {
        let uri = self.options.source_uri.clone();
        let source = self.b.add_source(NAME, uri.as_deref(), None);
        let name = self.b.strings().intern_opt(fp.name.as_deref());
        let row = source.idx();
        let ext = &mut self.b.sources_mut().ext;
        let _ = ext.set(SOURCE_NAME, row, Cell::Chr(name));
        let seconds = |us: Option<f64>| us.map_or(f64::NAN, |v| v / 1e6);
        let _ = ext.set(SOURCE_START_TIME, row, Cell::Dbl(seconds(fp.start_time)));
        let _ = ext.set(SOURCE_END_TIME, row, Cell::Dbl(seconds(fp.end_time)));
        source
    }

    /// The stack of every node (`None` for the skipped `(root)`), parents first, iteratively.
    fn node_stacks(
        &mut self,
        fp: &FlatProfile,
        parents: &[Option<usize>],
        warnings: &mut Warnings,
    ) -> Result<Vec<Option<StackIndex>>, ReadError> {
        let n = fp.nodes.len();
        let mut state = vec![Walk::New; n];
        let mut stacks: Vec<Option<StackIndex>> = vec![None; n];
        let mut depth: Vec<usize> = vec![0; n];
        let mut path: Vec<usize> = Vec::new();
        for start in 0..n {
            path.clear();
            let mut cur = start;
            while state.get(cur) == Some(&Walk::New) {
                state[cur] = Walk::OnPath;
                path.push(cur);
                match parents.get(cur).copied().flatten() {
                    Some(p) => cur = p,
                    None => break,
                }
            }
            if state.get(cur) == Some(&Walk::OnPath)
                && parents.get(cur).copied().flatten().is_some()
            {
                return Err(ReadError::new(
                    NAME,
                    Place::Path(format!("{}nodes[{cur}]", fp.path)),
                    format!(
                        "the parent links of node id {} form a cycle",
                        fp.nodes.get(cur).map_or(0, |x| x.id)
                    ),
                ));
            }
            for &k in path.iter().rev() {
                let parent = parents.get(k).copied().flatten();
                let (prefix, parent_depth) = parent.map_or((None, 0), |p| (stacks[p], depth[p]));
                let node = &fp.nodes[k];
                if parent.is_none() && is_root_frame(node) {
                    stacks[k] = None;
                    depth[k] = 0;
                } else {
                    if parent_depth >= self.options.limits.max_stack_depth {
                        return Err(ReadError::new(
                            NAME,
                            Place::Path(format!("{}nodes[{k}]", fp.path)),
                            format!(
                                "the stack is deeper than {} frames (the stack depth limit)",
                                self.options.limits.max_stack_depth
                            ),
                        ));
                    }
                    let loc = self.node_location(node, None, warnings);
                    stacks[k] = Some(self.b.stack_node(prefix, loc));
                    depth[k] = parent_depth + 1;
                }
                state[k] = Walk::Done;
            }
        }
        Ok(stacks)
    }

    fn node_location(
        &mut self,
        node: &RawNode,
        position: Option<(i64, i64)>,
        warnings: &mut Warnings,
    ) -> LocationIndex {
        let empty = RawCallFrame::default();
        let cf = node.call_frame.as_ref().unwrap_or(&empty);
        if position.is_none() {
            note_dropped(node, cf, warnings);
        }
        let f = self.function(cf);
        let (line, col) = position.map_or((0, crate::model::INT_NA), |(l, c)| {
            (
                clamp_i32(l),
                if c > 0 {
                    clamp_i32(c)
                } else {
                    crate::model::INT_NA
                },
            )
        });
        let key = (f.0, line, col);
        if let Some(&loc) = self.locations.get(&key) {
            return loc;
        }
        let loc = self.b.add_location(Some(f), line);
        if col != crate::model::INT_NA {
            self.b
                .set_location_ext(loc, LOCATION_COLUMN, Cell::Int(col));
        }
        if cf.code_type.as_deref() == Some("JS") {
            let v8js = self.b.intern("v8js");
            self.b
                .set_location_ext(loc, ext::locations::FRAME_TYPE, Cell::Chr(v8js));
        }
        self.locations.insert(key, loc);
        loc
    }

    fn function(&mut self, cf: &RawCallFrame) -> FunctionIndex {
        let raw = cf.function_name.clone().unwrap_or_default();
        let script = cf
            .script_id
            .as_ref()
            .map(ScriptId::text)
            .unwrap_or_default();
        let url = cf.url.clone().unwrap_or_default();
        let line = whole(cf.line_number);
        let col = whole(cf.column_number);
        let key = (raw, script, url, line, col);
        if let Some(&f) = self.functions.get(&key) {
            return f;
        }
        let (raw, script, url, line, col) = &key;
        let shown = if raw.is_empty() {
            anonymous_name(url, *line)
        } else {
            raw.clone()
        };
        let name = self.b.intern(&shown);
        let filename = self
            .b
            .strings()
            .intern_opt(Some(url.as_str()).filter(|u| !u.is_empty()));
        let start_line = if *line >= 0 {
            clamp_i32(line.saturating_add(1))
        } else {
            0
        };
        let f = self.b.add_function(FunctionKey {
            name,
            system_name: name,
            filename,
            start_line,
        });
        if *col >= 0 {
            let _ = self.b.functions_mut().ext.set(
                FUNCTION_START_COLUMN,
                f.idx(),
                Cell::Int(clamp_i32(col.saturating_add(1))),
            );
        }
        if !script.is_empty() && script != "0" {
            let id = self.b.intern(script);
            let _ = self
                .b
                .functions_mut()
                .ext
                .set(FUNCTION_SCRIPT_ID, f.idx(), Cell::Chr(id));
        }
        self.functions.insert(key, f);
        f
    }

    #[allow(clippy::too_many_arguments)]
    fn timed_samples(
        &mut self,
        fp: &FlatProfile,
        source: SourceIndex,
        index: &HashMap<i64, usize>,
        parents: &[Option<usize>],
        stacks: &[Option<StackIndex>],
        warnings: &mut Warnings,
    ) -> Result<(), ReadError> {
        let samples = fp.samples.as_deref().unwrap_or_default();
        let deltas = self.checked_deltas(fp, samples.len(), warnings)?;
        if deltas.is_some() && self.time_vt.is_none() {
            self.time_vt = Some(self.b.value_type("time", "nanoseconds"));
            self.b.declare_sample_column(SAMPLE_TIME, ColumnKind::Dbl);
        }
        let mut clock = Clock::default();
        for (i, &id) in samples.iter().enumerate() {
            let delta = deltas.and_then(|d| d.get(i)).copied();
            let (time, weight) = clock.advance(delta.unwrap_or(0.0), warnings);
            let Some(&k) = index.get(&id) else {
                if fp.lenient {
                    warnings.add(NAME, "unknown-sample-node", || {
                        format!("samples of nodes that are not in the profile were skipped (first: {}samples[{i}], id {id})", fp.path)
                    });
                    continue;
                }
                return Err(ReadError::new(
                    NAME,
                    Place::Path(format!("samples[{i}]")),
                    format!("the sample refers to node id {id}, which is not in `nodes`"),
                ));
            };
            let position = fp.positions.get(i).copied().flatten();
            let stack = self.sample_stack(fp, k, position, parents, stacks, warnings);
            self.add_sample(source, stack, delta.map(|_| (time, weight)))?;
        }
        Ok(())
    }

    /// `timeDeltas` when present, checked against the number of samples.
    fn checked_deltas<'f>(
        &self,
        fp: &'f FlatProfile,
        n: usize,
        warnings: &mut Warnings,
    ) -> Result<Option<&'f [f64]>, ReadError> {
        let Some(d) = fp.deltas.as_deref() else {
            return Ok(None);
        };
        if fp.samples.is_none() {
            return Err(ReadError::whole(NAME, "`timeDeltas` without `samples`"));
        }
        if d.len() != n {
            if !fp.lenient {
                return Err(ReadError::whole(
                    NAME,
                    format!("`samples` has {n} entries but `timeDeltas` has {}", d.len()),
                ));
            }
            warnings.add(NAME, "delta-count", || {
                format!("{}samples and timeDeltas differ in length ({n} and {}); samples without a delta have no time", fp.path, d.len())
            });
        }
        Ok(Some(d))
    }

    fn sample_stack(
        &mut self,
        fp: &FlatProfile,
        k: usize,
        position: Option<(i64, i64)>,
        parents: &[Option<usize>],
        stacks: &[Option<StackIndex>],
        warnings: &mut Warnings,
    ) -> Option<StackIndex> {
        let base = stacks.get(k).copied().flatten();
        match position.filter(|&(line, _)| line > 0) {
            Some(pos) if base.is_some() => {
                let prefix = parents.get(k).copied().flatten().and_then(|p| stacks[p]);
                let node = fp.nodes.get(k)?;
                let loc = self.node_location(node, Some(pos), warnings);
                Some(self.b.stack_node(prefix, loc))
            }
            _ => base,
        }
    }

    fn add_sample(
        &mut self,
        source: SourceIndex,
        stack: Option<StackIndex>,
        timing: Option<(f64, f64)>,
    ) -> Result<(), ReadError> {
        check_sample_limit(&self.b, Format::Cpuprofile, self.options.limits.max_samples)?;
        let s = self.b.add_sample(source, stack);
        self.b.set_value(s, self.samples_vt, 1.0);
        if let (Some(vt), Some((time, weight))) = (self.time_vt, timing) {
            self.b.set_value(s, vt, weight * 1000.0);
            self.b.set_sample_ext(s, SAMPLE_TIME, Cell::Dbl(time / 1e6));
        }
        Ok(())
    }

    fn hit_count_samples(
        &mut self,
        fp: &FlatProfile,
        source: SourceIndex,
        stacks: &[Option<StackIndex>],
    ) -> Result<(), ReadError> {
        for (k, node) in fp.nodes.iter().enumerate() {
            let hits = node.hit_count.unwrap_or(0.0);
            if hits > 0.0 {
                if self.b.num_samples() >= self.options.limits.max_samples {
                    return Err(ReadError::whole(
                        NAME,
                        "too many nodes with hitCount (the sample limit)",
                    ));
                }
                let s = self.b.add_sample(source, stacks.get(k).copied().flatten());
                self.b.set_value(s, self.samples_vt, hits);
            }
        }
        Ok(())
    }

    pub(super) fn finish(mut self, warnings: Warnings) -> Result<Parsed, ReadError> {
        let default = if self.time_vt.is_some() {
            "time"
        } else {
            "samples"
        };
        self.b.set_meta(META_DEFAULT_TYPE, default);
        finish_parsed(self.b, Format::Cpuprofile, warnings)
    }
}

/// Sample times from deltas, clamped so time never goes backwards (µs from `startTime`).
#[derive(Default)]
pub(super) struct Clock {
    raw: f64,
    time: f64,
}

impl Clock {
    /// Advances by `delta`; returns the sample's time and weight (both µs).
    fn advance(&mut self, delta: f64, warnings: &mut Warnings) -> (f64, f64) {
        self.raw += if delta.is_finite() { delta } else { 0.0 };
        if self.raw < self.time {
            warnings.add(NAME, "negative-delta", || {
                "negative timeDeltas were clamped (time never goes backwards; such samples weigh 0)"
                    .to_owned()
            });
            return (self.time, 0.0);
        }
        let weight = self.raw - self.time;
        self.time = self.raw;
        (self.time, weight)
    }
}
