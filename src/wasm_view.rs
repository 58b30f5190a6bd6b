//! The viewer's wasm API: one [`Viewer`] per loaded set of files, living in the page's Web
//! Worker. Everything crossing to JavaScript is either a small JSON-like object (info, totals)
//! or typed-array columns (frames, function table, layout boxes); no per-box objects.

use js_sys::{Array, Float64Array, Int32Array, Object, Reflect, Uint32Array, Uint8Array};
use wasm_bindgen::prelude::*;

use crate::analysis::children::Order;
use crate::analysis::diff::{diff_tree_with_frames, Comparison, Normalization};
use crate::analysis::diff_view::{DiffView, SizeBy};
use crate::analysis::facets::{facet_mask, facets, Facet};
use crate::analysis::filter::{mask_of_ids, SampleFilter};
use crate::analysis::flame::{Boxes, Viewport};
use crate::analysis::timeorder::sample_times;
use crate::analysis::transform::Transform;
use crate::analysis::view::{SandwichSide, View, ViewOptions};
use crate::formats;
use crate::model::{SourceIndex, ValueTypeIndex};
pub use crate::wasm_load::LoadedFiles;
use crate::wasm_symbols::Symbols;

/// A loaded profile (several files combined, one source each) and its analysis state.
#[wasm_bindgen]
pub struct Viewer {
    pub(crate) view: View,
    formats: Vec<String>,
    warnings: Vec<String>,
    /// The comparison of [`Viewer::compare`], if one was asked for.
    compare: Option<CompareState>,
    /// What samples can be filtered by, found once.
    facets: Vec<Facet>,
    /// The facet value whose mask the view's filter holds, so that other option changes
    /// reuse the mask instead of scanning the labels again.
    facet_choice: Option<(usize, String)>,
    /// What the binaries given did for the perf.data files read.
    symbols: Symbols,
    /// The samples a query chose ([`Viewer::set_chosen_samples`]), as a mask of sample rows.
    chosen: Option<Vec<bool>>,
}

/// A comparison asked for and its result under the current options: `view` is `None` after
/// the options changed, until the next query computes it again.
struct CompareState {
    base: Vec<SourceIndex>,
    new: Vec<SourceIndex>,
    normalization: Normalization,
    size_by: SizeBy,
    view: Option<DiffView>,
}

impl CompareState {
    /// The comparison of the view's current value type, transforms and order.
    fn compute(&self, view: &View) -> Result<DiffView, JsError> {
        let o = view.options();
        let c = Comparison {
            value_type: o.value_type,
            base: self.base.clone(),
            new: self.new.clone(),
            normalization: self.normalization,
        };
        let frames = view.frames();
        let diff = diff_tree_with_frames(view.profile(), &c, &frames.of_location)
            .map_err(|e| JsError::new(&e.to_string()))?;
        let (order, ranks) = (o.order, &frames.name_rank);
        Ok(DiffView::new(
            &diff,
            &o.transforms,
            order,
            ranks,
            self.size_by,
        ))
    }
}

/// Sets `obj[key] = value` (for the small objects handed to JavaScript).
pub(crate) fn set(obj: &Object, key: &str, value: impl Into<JsValue>) {
    let _ = Reflect::set(obj, &JsValue::from_str(key), &value.into());
}

fn strings<'a>(items: impl IntoIterator<Item = &'a str>) -> Array {
    items.into_iter().map(JsValue::from_str).collect()
}

fn boxes_to_js(b: &Boxes) -> Object {
    let o = Object::new();
    set(&o, "node", Uint32Array::from(&b.node[..]));
    set(&o, "frame", Uint32Array::from(&b.frame[..]));
    set(&o, "depth", Uint32Array::from(&b.depth[..]));
    set(&o, "x", Float64Array::from(&b.x[..]));
    set(&o, "width", Float64Array::from(&b.width[..]));
    set(&o, "self", Float64Array::from(&b.self_w[..]));
    set(&o, "count", Uint32Array::from(&b.count[..]));
    o
}

fn viewport(x0: f64, x1: f64, min_width: f64, max_depth: u32) -> Viewport {
    Viewport {
        x0,
        x1,
        min_width,
        max_depth,
    }
}

/// One side of a comparison: the source rows sorted, without repeats; fails when empty.
fn selection(sources: &[u32], side: &str) -> Result<Vec<SourceIndex>, JsError> {
    if sources.is_empty() {
        return Err(JsError::new(&format!(
            "the {side} has no sources: choose at least one"
        )));
    }
    let mut rows: Vec<u32> = sources.to_vec();
    rows.sort_unstable();
    rows.dedup();
    Ok(rows.into_iter().map(SourceIndex).collect())
}

fn summary_to_js(dv: &DiffView) -> Object {
    let (s, (base_shown, new_shown)) = (dv.summary(), dv.shown_totals());
    let (base_samples, new_samples) = dv.shown_samples();
    let o = Object::new();
    set(&o, "baseShown", base_shown);
    set(&o, "newShown", new_shown);
    set(&o, "baseShownSamples", base_samples);
    set(&o, "newShownSamples", new_samples);
    set(&o, "baseTotal", s.base_total);
    set(&o, "newTotal", s.new_total());
    set(&o, "newTotalRaw", s.new_total_raw);
    set(&o, "scale", s.scale);
    set(&o, "baseSamples", s.base_samples as f64);
    set(&o, "newSamples", s.new_samples as f64);
    set(&o, "width", dv.width());
    o
}

impl Viewer {
    /// The sample mask of value `value` of facet `index` (`None` for a negative index); the
    /// view's current mask when that is the same choice.
    fn facet_mask(&mut self, index: i32, value: &str) -> Result<Option<Vec<bool>>, JsError> {
        let Ok(i) = usize::try_from(index) else {
            self.facet_choice = None;
            return Ok(None);
        };
        let f = self
            .facets
            .get(i)
            .ok_or_else(|| JsError::new(&format!("no facet {index}")))?;
        let current = &self.view.options().filter.samples;
        if let (Some((j, v)), Some(mask)) = (&self.facet_choice, current) {
            if *j == i && v == value {
                return Ok(Some(mask.clone()));
            }
        }
        let mask = facet_mask(self.view.profile(), &f.source, value);
        self.facet_choice = Some((i, value.to_owned()));
        Ok(Some(mask))
    }
}

#[wasm_bindgen]
impl Viewer {
    /// Builds the call tree and the view of the default value type of loaded files.
    pub fn analyse(files: LoadedFiles) -> Viewer {
        let (profile, formats, warnings, symbols) = files.into_parts();
        let facets = facets(&profile);
        Viewer {
            view: View::new(profile),
            formats,
            warnings,
            compare: None,
            facets,
            facet_choice: None,
            symbols,
            chosen: None,
        }
    }

    /// `{formats, warnings, samples, valueTypes: [{type, unit}], defaultValueType, sources:
    /// [{uri, type}], hasTime, frames, nodes, maxDepth, symbols}` (`symbols`: what binaries
    /// did for perf.data files, see `LoadedFiles.readWith`; null without perf.data).
    pub fn info(&self) -> Object {
        let p = self.view.profile();
        let o = Object::new();
        set(
            &o,
            "formats",
            strings(self.formats.iter().map(String::as_str)),
        );
        set(
            &o,
            "warnings",
            strings(self.warnings.iter().map(String::as_str)),
        );
        set(&o, "symbols", self.symbols.to_js());
        set(&o, "samples", p.num_samples() as f64);
        let types = Array::new();
        for (i, c) in p.values.iter().enumerate() {
            let t = Object::new();
            set(&t, "type", p.str(c.value_type));
            set(&t, "unit", p.str(c.unit));
            set(&t, "index", i as u32);
            types.push(&t);
        }
        set(&o, "valueTypes", types);
        set(
            &o,
            "defaultValueType",
            p.default_value_type().map_or(0, |v| v.0),
        );
        let sources = Array::new();
        for i in 0..p.sources.source_type.len() {
            let s = Object::new();
            set(&s, "uri", p.str(p.sources.source_uri[i]));
            set(&s, "type", p.str(p.sources.source_type[i]));
            sources.push(&s);
        }
        set(&o, "sources", sources);
        set(&o, "hasTime", sample_times(p).is_some());
        set(&o, "frames", self.view.frames().len() as u32);
        set(&o, "nodes", self.view.tree().len() as u32);
        set(&o, "maxDepth", self.view.max_depth());
        o
    }

    /// `{names, files, lines, types}`: per frame id its display name, file, line and
    /// `locations..frame_type` ("" when none).
    pub fn frames(&self) -> Object {
        let p = self.view.profile();
        let f = self.view.frames();
        let o = Object::new();
        set(&o, "names", strings(f.name.iter().map(String::as_str)));
        set(&o, "files", strings(f.file.iter().map(|&s| p.str(s))));
        set(&o, "lines", Int32Array::from(&f.line[..]));
        set(&o, "types", strings(f.frame_type.iter().map(|&s| p.str(s))));
        o
    }

    /// Sets the options. `order`: 0 widest first, 1 alphabetical. `sources`: one byte per
    /// source (1 = keep), empty for all. `t0`/`t1`: time range, NaN for none. `transforms`:
    /// pairs `(kind, frame)` with kind 0 focus, 1 hide, 2 collapse recursion, 3 collapse
    /// direct recursion. `facet`: an index into `facets()` (negative for none) whose value
    /// `facet_value` samples must have.
    #[allow(clippy::too_many_arguments)]
    pub fn set_options(
        &mut self,
        value_type: u32,
        order: u8,
        sources: &[u8],
        t0: f64,
        t1: f64,
        transforms: &[u32],
        facet: i32,
        facet_value: &str,
    ) -> Result<(), JsError> {
        let n_types = self.view.profile().values.len() as u32;
        if value_type >= n_types.max(1) {
            return Err(JsError::new("no such value type"));
        }
        let transforms = transforms
            .chunks_exact(2)
            .map(|c| match c[0] {
                0 => Ok(Transform::Focus(c[1])),
                1 => Ok(Transform::Hide(c[1])),
                2 => Ok(Transform::CollapseRecursion(c[1])),
                3 => Ok(Transform::CollapseDirectRecursion(c[1])),
                k => Err(JsError::new(&format!("unknown transform kind {k}"))),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let filter = SampleFilter {
            sources: (!sources.is_empty()).then(|| sources.iter().map(|&b| b != 0).collect()),
            time_range: (t0.is_finite() && t1.is_finite()).then_some((t0, t1)),
            samples: self.facet_mask(facet, facet_value)?,
            chosen: self.chosen.clone(),
        };
        if let Some(c) = &mut self.compare {
            c.view = None;
        }
        self.view.set_options(ViewOptions {
            value_type: ValueTypeIndex(value_type),
            filter,
            transforms,
            order: if order == 1 {
                Order::Alphabetical
            } else {
                Order::WidestFirst
            },
        });
        Ok(())
    }

    /// Keeps only the samples whose `sample_id` (row + 1, as in the tables) is in `ids`, from
    /// the next `set_options` on (on top of the other filters; the SQL tab's "show as flame
    /// graph"); `undefined` keeps all. Fails, keeping the previous choice, on an id that is no
    /// sample's.
    pub fn set_chosen_samples(&mut self, ids: Option<Vec<u32>>) -> Result<(), JsError> {
        let n = self.view.profile().num_samples();
        self.chosen = ids
            .map(|ids| mask_of_ids(&ids, n))
            .transpose()
            .map_err(|e| JsError::new(&e))?;
        Ok(())
    }

    /// The facets samples can be filtered by: `[{name, values: [..], samples: Uint32Array}]`,
    /// values most frequent first (see `analysis::facets`).
    pub fn facets(&self) -> Array {
        self.facets
            .iter()
            .map(|f| {
                let o = Object::new();
                set(&o, "name", f.name.as_str());
                set(
                    &o,
                    "values",
                    strings(f.values.iter().map(|(v, _)| v.as_str())),
                );
                let counts: Vec<u32> = f
                    .values
                    .iter()
                    .map(|&(_, n)| u32::try_from(n).unwrap_or(u32::MAX))
                    .collect();
                set(&o, "samples", Uint32Array::from(&counts[..]));
                JsValue::from(o)
            })
            .collect()
    }

    /// `[shown, kept, all]` totals of the current value type.
    pub fn totals(&self) -> Float64Array {
        let t = self.view.totals();
        Float64Array::from(&[t.shown, t.kept, t.all][..])
    }

    /// `{self, total}` per frame id (the function table), for the current options.
    pub fn function_table(&self) -> Object {
        let t = self.view.frame_totals();
        let o = Object::new();
        set(&o, "self", Float64Array::from(&t.self_w[..]));
        set(&o, "total", Float64Array::from(&t.total[..]));
        o
    }

    /// The source-line table for the current value type and sample filter: `{labels:
    /// ["file:line functions"…], frame: Uint32Array (frame id of the line's first function,
    /// NO_INDEX for none), self, total: Float64Array}`, rows sorted by self.
    pub fn line_table(&self) -> Object {
        let t = self.view.line_table();
        let frames = self.view.frames();
        let frame: Vec<u32> = t.rows.iter().map(|r| frames.of(r.first_location)).collect();
        let labels = t
            .rows
            .iter()
            .map(|r| JsValue::from_str(&r.label_with_functions()));
        let self_w: Vec<f64> = t.rows.iter().map(|r| r.self_value).collect();
        let total: Vec<f64> = t.rows.iter().map(|r| r.total_value).collect();
        let o = Object::new();
        set(&o, "labels", labels.collect::<Array>());
        set(&o, "frame", Uint32Array::from(&frame[..]));
        set(&o, "self", Float64Array::from(&self_w[..]));
        set(&o, "total", Float64Array::from(&total[..]));
        o
    }

    /// Flame-graph boxes for the x range `[x0, x1)` (value units).
    pub fn flame(&self, x0: f64, x1: f64, min_width: f64, max_depth: u32) -> Object {
        boxes_to_js(&self.view.flame(&viewport(x0, x1, min_width, max_depth)))
    }

    /// Bottom-up flame-graph boxes for `[x0, x1)`: innermost frames at the root, callers
    /// above (the tree is built on the first call after an option change).
    pub fn inverted_flame(&mut self, x0: f64, x1: f64, min_width: f64, max_depth: u32) -> Object {
        boxes_to_js(
            &self
                .view
                .inverted_flame(&viewport(x0, x1, min_width, max_depth)),
        )
    }

    /// Time-order boxes for `[x0, x1)`; `{..., xMin, xMax, isTime}` describe the axis.
    pub fn time_order(&mut self, x0: f64, x1: f64, min_width: f64, max_depth: u32) -> Object {
        let o = boxes_to_js(
            &self
                .view
                .time_order(&viewport(x0, x1, min_width, max_depth)),
        );
        let l = self.view.time_layout();
        set(&o, "xMin", l.x_min);
        set(&o, "xMax", l.x_max);
        set(&o, "isTime", l.is_time);
        o
    }

    /// One side of the sandwich of `frame`: `side` 0 callers, 1 callees.
    pub fn sandwich(
        &mut self,
        frame: u32,
        side: u8,
        x0: f64,
        x1: f64,
        min_width: f64,
        max_depth: u32,
    ) -> Object {
        let side = if side == 0 {
            SandwichSide::Callers
        } else {
            SandwichSide::Callees
        };
        boxes_to_js(
            &self
                .view
                .sandwich(frame, side, &viewport(x0, x1, min_width, max_depth)),
        )
    }

    /// `{flags: Uint8Array per frame id, matched}` for a search; fails on a bad pattern.
    pub fn search(&self, query: &str) -> Result<Object, JsError> {
        let (flags, matched) = self.view.search(query).map_err(|e| JsError::new(&e))?;
        let o = Object::new();
        set(&o, "flags", Uint8Array::from(&flags[..]));
        set(&o, "matched", matched);
        Ok(o)
    }

    /// Frame ids from the outermost down to `node` of the current tree.
    pub fn path(&self, node: u32) -> Uint32Array {
        Uint32Array::from(&self.view.path(node)[..])
    }

    /// Compares the sources `base_sources` (baseline) with `new_sources` (comparison), rows of
    /// `info().sources`, on the current value type with the current transforms and order.
    /// [`Viewer::compare_flame`] and [`Viewer::compare_table`] answer for it from then on,
    /// under whatever options are set later. `normalized`: scale the comparison to the
    /// baseline's total. `size_by_base`: box widths from the baseline instead of the
    /// comparison. Returns `{baseTotal, newTotal, newTotalRaw, scale, baseSamples, newSamples,
    /// width, baseShown, newShown, baseShownSamples, newShownSamples}` (`width`: the root box's
    /// width after transforms; `baseShown`, `newShown`: both sides' totals after transforms,
    /// the comparison scaled; `…ShownSamples`: the samples of each side the transforms keep).
    /// Fails on an empty selection,
    /// an unknown source, identical selections, or a side without values of the type.
    pub fn compare(
        &mut self,
        base_sources: &[u32],
        new_sources: &[u32],
        normalized: bool,
        size_by_base: bool,
    ) -> Result<Object, JsError> {
        self.compare = None;
        let mut state = CompareState {
            base: selection(base_sources, "baseline")?,
            new: selection(new_sources, "comparison")?,
            normalization: if normalized {
                Normalization::Scaled
            } else {
                Normalization::Absolute
            },
            size_by: if size_by_base {
                SizeBy::Base
            } else {
                SizeBy::New
            },
            view: None,
        };
        if state.base == state.new {
            return Err(JsError::new(
                "the baseline and the comparison are the same sources: choose different ones",
            ));
        }
        let dv = state.compute(&self.view)?;
        let summary = summary_to_js(&dv);
        state.view = Some(dv);
        self.compare = Some(state);
        Ok(summary)
    }

    /// Boxes of the differential flame graph for `[x0, x1)`: the columns of
    /// [`Viewer::flame`] (widths of the sized side) plus `base` and `new`, both sides' totals per
    /// box (sums for a merged box). Fails when no comparison was asked for, or when it cannot
    /// be computed under the current options.
    pub fn compare_flame(
        &mut self,
        x0: f64,
        x1: f64,
        min_width: f64,
        max_depth: u32,
    ) -> Result<Object, JsError> {
        let d = self
            .comparison()?
            .boxes(&viewport(x0, x1, min_width, max_depth));
        let o = boxes_to_js(&d.boxes);
        set(&o, "base", Float64Array::from(&d.base[..]));
        set(&o, "new", Float64Array::from(&d.new[..]));
        Ok(o)
    }

    /// The comparison's function table: `{baseSelf, baseTotal, newSelf, newTotal}` per frame
    /// id (comparison values scaled). Fails as [`Viewer::compare_flame`] does.
    pub fn compare_table(&mut self) -> Result<Object, JsError> {
        let t = self.comparison()?.frame_totals();
        let o = Object::new();
        set(&o, "baseSelf", Float64Array::from(&t.base.self_w[..]));
        set(&o, "baseTotal", Float64Array::from(&t.base.total[..]));
        set(&o, "newSelf", Float64Array::from(&t.new.self_w[..]));
        set(&o, "newTotal", Float64Array::from(&t.new.total[..]));
        Ok(o)
    }

    /// Names of the formats proftab can write.
    pub fn writable_formats() -> Array {
        strings(formats::writable_names())
    }

    /// The comparison under the current options, computed again after they changed.
    pub(crate) fn comparison(&mut self) -> Result<&DiffView, JsError> {
        let state = self
            .compare
            .as_mut()
            .ok_or_else(|| JsError::new("no comparison: call compare() first"))?;
        if state.view.is_none() {
            state.view = Some(state.compute(&self.view)?);
        }
        state
            .view
            .as_ref()
            .ok_or_else(|| JsError::new("no comparison: call compare() first"))
    }
}
