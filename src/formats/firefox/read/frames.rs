//! Stacks, frames and funcs of one table set, converted on first use and cached in [`Cache`]:
//! a stack's uncached ancestors are collected by walking `prefix`/`prefixOffset` upwards
//! (parents must come before children, which bounds the walk) and converted root first.

use super::{err, index_cell, int_cell, Cache, Reader, View, FRAME_TYPES, UNNAMED_FUNCTION};
use crate::formats::firefox::schema::{Col, Flag, FrameTable};
use crate::formats::firefox::{function_cols, location_cols, NAME};
use crate::formats::ReadError;
use crate::model::{Cell, FunctionIndex, FunctionKey, LocationIndex, StackIndex};

impl Reader<'_> {
    /// The stack node of Firefox stack `s`, converting uncached ancestors iteratively.
    pub(super) fn stack(
        &mut self,
        view: &View,
        cache: &mut Cache,
        s: usize,
    ) -> Result<Option<StackIndex>, ReadError> {
        if let Some(&done) = cache.stacks.get(&s) {
            return Ok(done);
        }
        // Walk up to the first converted ancestor; parents precede children, so this ends.
        let mut chain = vec![s];
        let mut top = None;
        let mut cur = s;
        while let Some(p) = parent(view, cur)? {
            if let Some(&done) = cache.stacks.get(&p) {
                top = done;
                break;
            }
            chain.push(p);
            cur = p;
            if chain.len() > self.options.limits.max_stack_depth {
                return Err(err(
                    format!("{}.stackTable", view.prefix),
                    format!(
                        "stack {s} is deeper than {} frames",
                        self.options.limits.max_stack_depth
                    ),
                ));
            }
        }
        let mut node = top;
        for &st in chain.iter().rev() {
            let frame = index_cell(&view.stacks.frame, st, view.frames.func.len(), || {
                format!("{}.stackTable.frame[{st}]", view.prefix)
            })?
            .ok_or_else(|| {
                err(
                    format!("{}.stackTable.frame[{st}]", view.prefix),
                    "null frame",
                )
            })?;
            let loc = self.frame(view, cache, frame)?;
            node = Some(self.b.stack_node(node, loc));
            cache.stacks.insert(st, node);
        }
        Ok(node)
    }

    pub(super) fn frame(
        &mut self,
        view: &View,
        cache: &mut Cache,
        f: usize,
    ) -> Result<LocationIndex, ReadError> {
        if let Some(&l) = cache.frames.get(&f) {
            return Ok(l);
        }
        let ft = view.frames;
        let fpath = || format!("{}.frameTable.func[{f}]", view.prefix);
        let func = index_cell(&ft.func, f, view.funcs.name.len(), fpath)?
            .ok_or_else(|| err(fpath(), "null func"))?;
        let function = self.func(view, cache, func)?;
        let line = int_cell(&ft.line, f)
            .and_then(|l| i32::try_from(l).ok())
            .unwrap_or(0);
        let loc = self.b.add_location(Some(function), line);
        if let Some(c) = int_cell(&ft.column, f).and_then(|c| i32::try_from(c).ok()) {
            self.b
                .set_location_ext(loc, location_cols::COLUMN, Cell::Int(c));
        }
        if let Some(a) = int_cell(&ft.address, f).and_then(|a| u64::try_from(a).ok()) {
            self.b
                .set_location_ext(loc, location_cols::ADDRESS, Cell::U64(Some(a)));
        }
        if int_cell(&ft.inline_depth, f).is_some_and(|d| d > 0) {
            self.b
                .set_location_ext(loc, location_cols::INLINED, Cell::Lgl(Some(true)));
        }
        self.category(ft, f, loc);
        cache.frames.insert(f, loc);
        Ok(loc)
    }

    pub(super) fn category(&mut self, ft: &FrameTable, f: usize, loc: LocationIndex) {
        let Some(c) = int_cell(&ft.category, f) else {
            return;
        };
        let Some(cat) = usize::try_from(c)
            .ok()
            .and_then(|c| self.categories.get(c))
            .cloned()
        else {
            self.w.add(NAME, "category", || {
                format!("frameTable.category {c} is not in meta.categories; not kept")
            });
            return;
        };
        let name = cat.name.unwrap_or_default();
        let id = self.b.intern(&name);
        self.b
            .set_location_ext(loc, location_cols::CATEGORY, Cell::Chr(id));
        let lower = name.to_ascii_lowercase();
        if FRAME_TYPES.contains(&lower.as_str()) {
            let id = self.b.intern(&lower);
            self.b
                .set_location_ext(loc, location_cols::FRAME_TYPE, Cell::Chr(id));
        }
        let sub = int_cell(&ft.subcategory, f)
            .and_then(|s| usize::try_from(s).ok())
            .and_then(|s| cat.subcategories.as_ref()?.get(s).cloned());
        if let Some(sub) = sub {
            let id = self.b.intern(&sub);
            self.b
                .set_location_ext(loc, location_cols::SUBCATEGORY, Cell::Chr(id));
        }
    }

    pub(super) fn func(
        &mut self,
        view: &View,
        cache: &mut Cache,
        i: usize,
    ) -> Result<FunctionIndex, ReadError> {
        if let Some(&f) = cache.funcs.get(&i) {
            return Ok(f);
        }
        let ft = view.funcs;
        let p = |col: &str| format!("{}.funcTable.{col}[{i}]", view.prefix);
        let name = string_at(view, &ft.name, i, || p("name"))?
            .filter(|n| !n.is_empty())
            .unwrap_or(UNNAMED_FUNCTION);
        let filename = match string_at(view, &ft.file_name, i, || p("fileName"))? {
            Some(f) => Some(f),
            None => match (
                view.sources,
                index_cell(&ft.source, i, usize::MAX, || p("source"))?,
            ) {
                (Some(src), Some(s)) => string_at(view, &src.filename, s, || {
                    format!("shared.sources.filename[{s}]")
                })?,
                _ => None,
            },
        };
        let start_line = int_cell(&ft.line_number, i)
            .and_then(|l| i32::try_from(l).ok())
            .unwrap_or(0);
        let name_id = self.b.intern(name);
        let key = FunctionKey {
            name: name_id,
            system_name: name_id,
            filename: self.b.strings().intern_opt(filename),
            start_line,
        };
        let f = self.b.function(key);
        let flag = |v: &Vec<Flag>| v.get(i).and_then(|f| f.0);
        let ext = &mut self.b.functions_mut().ext;
        if let Some(b) = flag(&ft.is_js) {
            let _ = ext.set(function_cols::IS_JS, f.idx(), Cell::Lgl(Some(b)));
        }
        if let Some(b) = flag(&ft.relevant_for_js) {
            let _ = ext.set(function_cols::RELEVANT_FOR_JS, f.idx(), Cell::Lgl(Some(b)));
        }
        if let (Some(res), Some(r)) = (
            view.resources,
            int_cell(&ft.resource, i).and_then(|r| usize::try_from(r).ok()),
        ) {
            if let Some(name) =
                string_at(view, &res.name, r, || format!("resourceTable.name[{r}]"))?
            {
                let id = self.b.intern(name);
                let _ =
                    self.b
                        .functions_mut()
                        .ext
                        .set(function_cols::RESOURCE, f.idx(), Cell::Chr(id));
            }
        }
        cache.funcs.insert(i, f);
        Ok(f)
    }
}

/// The string at index cell `i` of `col` (`None` for null / missing).
fn string_at<'a>(
    view: &View<'a>,
    col: &Col,
    i: usize,
    path: impl Fn() -> String,
) -> Result<Option<&'a str>, ReadError> {
    Ok(index_cell(col, i, view.strings.len(), path)?
        .and_then(|s| view.strings.get(s).map(String::as_str)))
}

/// The parent stack of `s`, checked to come before it.
fn parent(view: &View, s: usize) -> Result<Option<usize>, ReadError> {
    let st = view.stacks;
    let path = || format!("{}.stackTable", view.prefix);
    if let Some(offsets) = &st.prefix_offset {
        return match offsets.cell(s) {
            None => Err(err(format!("{}.prefixOffset[{s}]", path()), "missing")),
            Some(0.0) => Ok(None),
            Some(o) if o > 0.0 && o.fract() == 0.0 && o <= s as f64 => Ok(Some(s - o as usize)),
            Some(o) => Err(err(
                format!("{}.prefixOffset[{s}]", path()),
                format!("{o} does not point to an earlier stack"),
            )),
        };
    }
    let prefix = st
        .prefix
        .as_ref()
        .ok_or_else(|| err(path(), "neither prefix nor prefixOffset"))?;
    match prefix.cell(s) {
        None => Ok(None),
        Some(p) if p >= 0.0 && p.fract() == 0.0 && p < s as f64 => Ok(Some(p as usize)),
        Some(p) => Err(err(
            format!("{}.prefix[{s}]", path()),
            format!("{p} is not an earlier stack"),
        )),
    }
}
