//! Reader step: the message's dictionary (functions, mappings, locations, stacks, links) added
//! to the builder, each entry once, cached by its table index.
//!
//! A location becomes one `locations` row per line, innermost first; a location with several
//! lines gets `.pprof_location_id` / `.pprof_line_index` (see [`crate::formats::inline`]).

use super::{attrs, err, index, proto, AttrValue, ProfilesDictionary, Reader};
use crate::formats::otlp::*;
use crate::formats::ReadError;
use crate::model::{Cell, FunctionIndex, FunctionKey, LocationIndex, StackIndex, INT_NA};

/// A location past the end of the table (index 0 may be absent).
static NO_LOCATION: proto::Location = proto::Location {
    mapping_index: 0,
    address: 0,
    lines: Vec::new(),
    attribute_indices: Vec::new(),
};

/// A mapping past the end of the table.
static NO_MAPPING: proto::Mapping = proto::Mapping {
    memory_start: 0,
    memory_limit: 0,
    file_offset: 0,
    filename_strindex: 0,
    attribute_indices: Vec::new(),
};

/// Per-message lookups from dictionary indices to rows already added to the builder.
pub(super) struct Dict<'d> {
    pub(super) d: &'d ProfilesDictionary,
    pub(super) prefix: &'d str,
    functions: Vec<Option<Option<FunctionIndex>>>,
    /// Per location: range into `flat` of its frames, innermost first.
    locations: Vec<Option<(usize, usize)>>,
    flat: Vec<LocationIndex>,
    stacks: Vec<Option<Option<StackIndex>>>,
    mappings: Vec<Option<u64>>,
}

impl<'d> Dict<'d> {
    pub(super) fn new(d: &'d ProfilesDictionary, prefix: &'d str) -> Self {
        Dict {
            d,
            prefix,
            functions: vec![None; d.function_table.len()],
            locations: vec![None; d.location_table.len()],
            flat: Vec::new(),
            stacks: vec![None; d.stack_table.len()],
            mappings: vec![None; d.mapping_table.len()],
        }
    }

    pub(super) fn string(&self, i: i32, place: impl Fn() -> String) -> Result<&'d str, ReadError> {
        let st = &self.d.string_table;
        let u = index(i, st.len().max(1), place, "string")?;
        Ok(st.get(u).map_or("", String::as_str))
    }

    pub(super) fn attribute(
        &self,
        i: i32,
        place: impl Fn() -> String + Copy,
    ) -> Result<Option<(&'d str, AttrValue, &'d str)>, ReadError> {
        let u = index(i, self.d.attribute_table.len().max(1), place, "attribute")?;
        let Some(a) = self.d.attribute_table.get(u).filter(|_| u != 0) else {
            return Ok(None);
        };
        let key = self.string(a.key_strindex, place)?;
        let unit = self.string(a.unit_strindex, place)?;
        let lookup = |s: i32| self.string_at(s);
        Ok(Some((key, attrs::decode(a.value.as_ref(), &lookup), unit)))
    }

    /// String `s` of the table, owned (`None` when out of range), for [`attrs::decode`].
    pub(super) fn string_at(&self, s: i32) -> Option<String> {
        usize::try_from(s)
            .ok()
            .and_then(|s| self.d.string_table.get(s))
            .cloned()
    }
}

/// What was cached for table index `u`, if anything.
fn cached<T: Copy>(cache: &[Option<T>], u: usize) -> Option<T> {
    cache.get(u).copied().flatten()
}

pub(super) fn link_ids(
    dict: &Dict,
    link: i32,
    spath: &dyn Fn() -> String,
) -> Result<Option<(String, String)>, ReadError> {
    if link == 0 {
        return Ok(None);
    }
    let table = &dict.d.link_table;
    let u = index(
        link,
        table.len(),
        || format!("{}.link_index", spath()),
        "link",
    )?;
    Ok(table.get(u).map(|l| (hex(&l.trace_id), hex(&l.span_id))))
}

/// Adds every function, mapping and location of the dictionary in table order, so that
/// entries no sample uses are kept too and a written file reads back in the same order.
pub(super) fn load_tables(r: &mut Reader, dict: &mut Dict) -> Result<(), ReadError> {
    let prefix = dict.prefix;
    for i in 1..dict.d.function_table.len() {
        let i = i32::try_from(i).unwrap_or(i32::MAX);
        dict_function(r, dict, i, &|| {
            format!("{prefix}dictionary.function_table[{i}]")
        })?;
    }
    for i in 1..dict.d.mapping_table.len() {
        let i = i32::try_from(i).unwrap_or(i32::MAX);
        dict_mapping(
            r,
            dict,
            i,
            &format!("{prefix}dictionary.mapping_table[{i}]"),
        )?;
    }
    for i in 1..dict.d.location_table.len() {
        let i = i32::try_from(i).unwrap_or(i32::MAX);
        dict_location(r, dict, i, &|| {
            format!("{prefix}dictionary.location_table[{i}]")
        })?;
    }
    Ok(())
}

/// The stack node of a dictionary stack, cached.
pub(super) fn dict_stack(
    r: &mut Reader,
    dict: &mut Dict,
    i: i32,
    spath: &dyn Fn() -> String,
) -> Result<Option<StackIndex>, ReadError> {
    let place = || format!("{}.stack_index", spath());
    let u = index(i, dict.d.stack_table.len().max(1), place, "stack")?;
    if let Some(node) = cached(&dict.stacks, u) {
        return Ok(node);
    }
    let d = dict.d;
    let prefix = dict.prefix;
    let Some(stack) = d.stack_table.get(u) else {
        return Ok(None);
    };
    let mut frames = r.b.take_scratch();
    for (n, &li) in stack.location_indices.iter().enumerate() {
        let lplace = || format!("{prefix}dictionary.stack_table[{u}].location_indices[{n}]");
        let (start, len) = dict_location(r, dict, li, &lplace)?;
        frames.extend(dict.flat.get(start..start + len).unwrap_or(&[]));
        if frames.len() > r.options.limits.max_stack_depth {
            return Err(err(
                lplace(),
                format!(
                    "stack deeper than {} frames",
                    r.options.limits.max_stack_depth
                ),
            ));
        }
    }
    let node = r.b.stack_leaf_first(&frames);
    r.b.return_scratch(frames);
    if let Some(slot) = dict.stacks.get_mut(u) {
        *slot = Some(node);
    }
    Ok(node)
}

/// The frames of a dictionary location (one per line, innermost first), added when new.
fn dict_location(
    r: &mut Reader,
    dict: &mut Dict,
    i: i32,
    place: &dyn Fn() -> String,
) -> Result<(usize, usize), ReadError> {
    let u = index(i, dict.d.location_table.len().max(1), place, "location")?;
    if let Some(range) = cached(&dict.locations, u) {
        return Ok(range);
    }
    let d = dict.d;
    let loc = d.location_table.get(u).unwrap_or(&NO_LOCATION);
    let lpath = format!("{}dictionary.location_table[{u}]", dict.prefix);
    let mapping_id = if loc.mapping_index == 0 {
        None
    } else {
        Some(dict_mapping(r, dict, loc.mapping_index, &lpath)?)
    };
    let kept = LocationFacts {
        address: loc.address,
        mapping_id,
        ..location_attributes(r, dict, loc, &lpath)?
    };
    let start = dict.flat.len();
    let n_lines = loc.lines.len().max(1);
    let location_id = r.next_location_id;
    r.next_location_id += 1;
    for k in 0..n_lines {
        let line = loc.lines.get(k);
        let function = match line {
            Some(l) if l.function_index != 0 => dict_function(r, dict, l.function_index, &|| {
                format!("{lpath}.lines[{k}].function_index")
            })?,
            _ => None,
        };
        let line_no = line.map_or(0, |l| clamp_line(r, l.line, &lpath));
        let li = r.b.add_location(function, line_no);
        let column = line.map(|l| l.column).filter(|&c| c != 0);
        let chain = (n_lines > 1).then(|| (location_id, i32::try_from(k).unwrap_or(i32::MAX)));
        kept.set_columns(r, li, column, chain);
        dict.flat.push(li);
    }
    let range = (start, n_lines);
    if let Some(slot) = dict.locations.get_mut(u) {
        *slot = Some(range);
    }
    Ok(range)
}

/// What every row of one dictionary location carries.
#[derive(Default)]
struct LocationFacts {
    address: u64,
    mapping_id: Option<u64>,
    frame_type: Option<String>,
    is_folded: Option<bool>,
}

impl LocationFacts {
    /// Sets the location extension columns of row `li`, with the line's `column` and its
    /// place in the inline `chain` (location id, line index) when there is one. The order of
    /// the calls is the order of the columns in the table.
    fn set_columns(
        &self,
        r: &mut Reader,
        li: LocationIndex,
        column: Option<i64>,
        chain: Option<(u64, i32)>,
    ) {
        if self.address != 0 {
            r.b.set_location_ext(li, location_cols::ADDRESS, Cell::U64(Some(self.address)));
        }
        if let Some(m) = self.mapping_id {
            r.b.set_location_ext(li, location_cols::MAPPING_ID, Cell::U64(Some(m)));
        }
        if let Some(c) = column {
            let c = i32::try_from(c).unwrap_or(INT_NA);
            r.b.set_location_ext(li, location_cols::COLUMN, Cell::Int(c));
        }
        if let Some((id, k)) = chain {
            r.b.set_location_ext(li, location_cols::PPROF_LOCATION_ID, Cell::U64(Some(id)));
            r.b.set_location_ext(li, location_cols::PPROF_LINE_INDEX, Cell::Int(k));
        }
        if let Some(ft) = &self.frame_type {
            let id = r.b.intern(ft);
            r.b.set_location_ext(li, location_cols::FRAME_TYPE, Cell::Chr(id));
        }
        if let Some(f) = self.is_folded {
            r.b.set_location_ext(li, location_cols::IS_FOLDED, Cell::Lgl(Some(f)));
        }
    }
}

/// The frame type and `is_folded` attributes of a location; others are reported, not kept.
fn location_attributes(
    r: &mut Reader,
    dict: &Dict,
    loc: &proto::Location,
    lpath: &str,
) -> Result<LocationFacts, ReadError> {
    let mut facts = LocationFacts::default();
    for (a, &ai) in loc.attribute_indices.iter().enumerate() {
        let apath = || format!("{lpath}.attribute_indices[{a}]");
        match dict.attribute(ai, apath)? {
            Some((ATTR_FRAME_TYPE, AttrValue::Str(s), _)) => facts.frame_type = Some(s),
            Some((ATTR_IS_FOLDED, AttrValue::Bool(b), _)) => facts.is_folded = Some(b),
            Some((key, _, _)) => r.w.add(NAME, "location_attr", || {
                format!("{}: location attribute {key} is not kept", apath())
            }),
            None => {}
        }
    }
    Ok(facts)
}

fn clamp_line(r: &mut Reader, line: i64, lpath: &str) -> i32 {
    i32::try_from(line).unwrap_or_else(|_| {
        r.w.add(NAME, "line_range", || {
            format!("{lpath}: line {line} does not fit 32 bits; kept as NA")
        });
        INT_NA
    })
}

fn dict_function(
    r: &mut Reader,
    dict: &mut Dict,
    i: i32,
    place: &dyn Fn() -> String,
) -> Result<Option<FunctionIndex>, ReadError> {
    let u = index(i, dict.d.function_table.len(), place, "function")?;
    if let Some(f) = cached(&dict.functions, u) {
        return Ok(f);
    }
    let d = dict.d;
    let Some(f) = d.function_table.get(u) else {
        return Ok(None);
    };
    let fpath = format!("{}dictionary.function_table[{u}]", dict.prefix);
    let name = dict.string(f.name_strindex, || format!("{fpath}.name_strindex"))?;
    let system_name = dict.string(f.system_name_strindex, || {
        format!("{fpath}.system_name_strindex")
    })?;
    let filename = dict.string(f.filename_strindex, || format!("{fpath}.filename_strindex"))?;
    let start_line = clamp_line(r, f.start_line, &fpath);
    // The v2 tables have no empty names: as the pprof reader does, an empty name is shown as
    // `<unknown>` and an empty system name takes the name; flags remember both for writers.
    let (empty_name, empty_system_name) = (name.is_empty(), system_name.is_empty());
    let name = if empty_name {
        function_cols::UNKNOWN
    } else {
        name
    };
    let system_name = if empty_system_name { name } else { system_name };
    let filename =
        r.b.strings()
            .intern_opt((!filename.is_empty()).then_some(filename));
    let key = FunctionKey {
        name: r.b.intern(name),
        system_name: r.b.intern(system_name),
        filename,
        start_line,
    };
    let row = r.b.add_function(key);
    for (flag, column) in [
        (empty_name, function_cols::EMPTY_NAME),
        (empty_system_name, function_cols::EMPTY_SYSTEM_NAME),
    ] {
        if flag {
            let _ =
                r.b.functions_mut()
                    .ext
                    .set(column, row.idx(), Cell::Lgl(Some(true)));
        }
    }
    let fi = Some(row);
    if let Some(slot) = dict.functions.get_mut(u) {
        *slot = Some(fi);
    }
    Ok(fi)
}

/// The `mappings.mapping_id` of a dictionary mapping, adding its row when new.
fn dict_mapping(r: &mut Reader, dict: &mut Dict, i: i32, lpath: &str) -> Result<u64, ReadError> {
    let place = || format!("{lpath}.mapping_index");
    let u = index(i, dict.d.mapping_table.len(), place, "mapping")?;
    if let Some(id) = cached(&dict.mappings, u) {
        return Ok(id);
    }
    let d = dict.d;
    let m = d.mapping_table.get(u).unwrap_or(&NO_MAPPING);
    let mpath = format!("{}dictionary.mapping_table[{u}]", dict.prefix);
    let filename = dict.string(m.filename_strindex, || format!("{mpath}.filename_strindex"))?;
    let filename =
        r.b.strings()
            .intern_opt((!filename.is_empty()).then_some(filename));
    let id = r.b.profile().ext_table(MAPPINGS).map_or(0, |t| t.len()) as u64 + 1;
    let mut extra: Vec<(String, Cell)> = Vec::new();
    for (a, &ai) in m.attribute_indices.iter().enumerate() {
        let apath = || format!("{mpath}.attribute_indices[{a}]");
        let Some((key, value, _unit)) = dict.attribute(ai, apath)? else {
            continue;
        };
        let column = if key == ATTR_BUILD_ID {
            "build_id".to_owned()
        } else if let Some(flag) = key.strip_prefix(ATTR_MAPPING_HAS) {
            flag.to_owned()
        } else {
            key.to_owned()
        };
        let cell = match value {
            AttrValue::Str(s) => Cell::Chr(r.b.intern(&s)),
            AttrValue::Int(v) => Cell::Dbl(v as f64),
            AttrValue::Double(v) => Cell::Dbl(v),
            AttrValue::Bool(v) => Cell::Lgl(Some(v)),
            AttrValue::Other(kind, _) => {
                r.w.add(NAME, "mapping_attr", || {
                    format!(
                        "{}: mapping attribute {key} of kind {kind} is not kept",
                        apath()
                    )
                });
                continue;
            }
        };
        extra.push((column, cell));
    }
    let mut cells: Vec<(&str, Cell)> = vec![
        ("mapping_id", Cell::U64(Some(id))),
        ("memory_start", Cell::U64(Some(m.memory_start))),
        ("memory_limit", Cell::U64(Some(m.memory_limit))),
        ("file_offset", Cell::U64(Some(m.file_offset))),
        ("filename", Cell::Chr(filename)),
    ];
    cells.extend(extra.iter().map(|(k, c)| (k.as_str(), *c)));
    if let Err(kind) = r.b.ext_table(MAPPINGS).push_row(&cells) {
        r.w.add(NAME, "mapping_kind", || {
            format!("{mpath}: a mapping attribute clashes with an earlier {} column; row kept partially", kind.name())
        });
    }
    if let Some(slot) = dict.mappings.get_mut(u) {
        *slot = Some(id);
    }
    Ok(id)
}
