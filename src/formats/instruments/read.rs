//! Reading a deep copy: the header's columns, each row parsed into a tree node, self weights
//! by subtraction, then one sample per node.

use super::grammar::{quantity, total_cell, unit, Columns, Kind};
use super::NAME;
use crate::formats::error::{Place, ReadError, Warnings};
use crate::formats::read_common::{check_sample_limit, finish_parsed, text_input};
use crate::formats::{Format, Parsed, ReadOptions};
use crate::hash::HashMap;
use crate::model::{LocationIndex, ProfileBuilder, StackIndex, META_DEFAULT_TYPE};

/// One row of the call tree.
struct Row<'t> {
    line: usize,
    /// Spaces before the symbol name.
    indent: usize,
    name: &'t str,
    file: Option<&'t str>,
    /// Total weight in the value type's unit.
    total: f64,
    /// Total count (allocations layout).
    count: Option<f64>,
}

/// Reads a deep copy.
pub fn read(bytes: &[u8], options: &ReadOptions) -> Result<Parsed, ReadError> {
    let (text, mut warnings) = text_input(bytes, NAME)?;
    let mut lines = text.lines().enumerate();
    let header = lines.next().map_or("", |(_, l)| l);
    let columns = Columns::from_header(header).ok_or_else(|| {
        line_error(
            1,
            "the header names no `Symbol Name` and weight (`Weight`, `Running Time`, `Bytes Used`) column",
        )
    })?;
    if !columns.unknown.is_empty() {
        let names = columns.unknown.join(", ");
        warnings.add(NAME, "columns", || format!("columns not kept: {names}"));
    }
    let mut kind = None;
    let mut rows = Vec::new();
    for (i, raw) in lines {
        let line = raw.trim_end_matches('\r');
        if line.trim().is_empty() {
            continue;
        }
        if rows.len() >= options.limits.max_samples {
            let max = options.limits.max_samples;
            return Err(line_error(
                i + 1,
                format!("more than {max} rows (the sample limit)"),
            ));
        }
        rows.push(parse_row(i + 1, line, &columns, &mut kind)?);
    }
    let kind = kind.ok_or_else(|| ReadError::whole(NAME, "the file has no call-tree rows"))?;
    build(&rows, kind, columns.count.is_some(), options, warnings)
}

/// An error at 1-based line `number`.
fn line_error(number: usize, message: impl Into<String>) -> ReadError {
    ReadError::new(NAME, Place::Line(number), message)
}

/// One row: its cells by column role, its depth relative to the first row's indentation.
fn parse_row<'t>(
    number: usize,
    line: &'t str,
    columns: &Columns,
    kind: &mut Option<Kind>,
) -> Result<Row<'t>, ReadError> {
    let cells: Vec<&str> = line.split('\t').collect();
    let cell = |i: usize, what: &str| {
        cells
            .get(i)
            .copied()
            .ok_or_else(|| line_error(number, format!("the row has no {what} cell")))
    };
    let symbol = cell(columns.symbol, "symbol name")?;
    let name = symbol.trim_start_matches(' ');
    let indent = symbol.len() - name.len();
    let name = name.trim_end();
    if name.is_empty() {
        return Err(line_error(number, "the symbol name is empty"));
    }
    let total_text = cell(columns.total, "weight")?;
    let (value, unit_text) = total_cell(total_text)
        .ok_or_else(|| line_error(number, format!("bad weight {:?}", total_text.trim())))?;
    let total = scaled(number, value, unit_text, kind)?;
    let count = match columns.count {
        None => None,
        Some(i) => {
            let text = cell(i, "count")?;
            let (v, _) = quantity(text)
                .filter(|(_, u)| u.is_none())
                .ok_or_else(|| line_error(number, format!("bad count {:?}", text.trim())))?;
            Some(v)
        }
    };
    let file = columns
        .source
        .and_then(|i| cells.get(i))
        .map(|s| s.trim())
        .filter(|s| !s.is_empty());
    Ok(Row {
        line: number,
        indent,
        name,
        file,
        total,
        count,
    })
}

/// `value` in `unit` as a whole number of the value type's unit; every weight of a file must be
/// of one kind.
fn scaled(
    number: usize,
    value: f64,
    unit_text: Option<&str>,
    kind: &mut Option<Kind>,
) -> Result<f64, ReadError> {
    let unit_text = unit_text.ok_or_else(|| line_error(number, "a weight has no unit"))?;
    let (k, factor) =
        unit(unit_text).ok_or_else(|| line_error(number, format!("unknown unit {unit_text:?}")))?;
    match kind {
        Some(known) if *known != k => {
            return Err(line_error(
                number,
                format!("weights in {unit_text:?} among weights of another kind"),
            ))
        }
        _ => *kind = Some(k),
    }
    Ok((value * factor).round())
}

/// The parent row of every row (`None` for outermost rows), from the indentation: a row is one
/// level below its parent, never deeper, never shallower than the first row.
fn parents(rows: &[Row<'_>], max_depth: usize) -> Result<Vec<Option<usize>>, ReadError> {
    let base = rows.first().map_or(0, |r| r.indent);
    let mut path: Vec<usize> = Vec::new();
    let mut out = Vec::with_capacity(rows.len());
    for (i, row) in rows.iter().enumerate() {
        let depth = row
            .indent
            .checked_sub(base)
            .ok_or_else(|| line_error(row.line, "the row is indented less than the first row"))?;
        if depth > path.len() {
            return Err(line_error(
                row.line,
                format!(
                    "the row is {} levels below its parent (one expected)",
                    depth - path.len()
                ),
            ));
        }
        if depth >= max_depth {
            return Err(line_error(
                row.line,
                format!("the stack is deeper than {max_depth} frames (the stack depth limit)"),
            ));
        }
        path.truncate(depth);
        out.push(path.last().copied());
        path.push(i);
    }
    Ok(out)
}

/// Self values: the total minus the children's totals (0 where the children
/// weigh more, with a warning).
fn self_values(
    rows: &[Row<'_>],
    parents: &[Option<usize>],
    total: impl Fn(&Row<'_>) -> f64,
    what: &str,
    warnings: &mut Warnings,
) -> Vec<f64> {
    let mut values: Vec<f64> = rows.iter().map(&total).collect();
    for (row, parent) in rows.iter().zip(parents) {
        if let Some(p) = parent {
            values[*p] -= total(row);
        }
    }
    for (row, v) in rows.iter().zip(values.iter_mut()) {
        if *v < 0.0 {
            let line = row.line;
            warnings.add(NAME, what, || {
                format!(
                    "rows whose children weigh more than the row ({what}, rounding of the \
                     displayed values) got self 0 (first at line {line})"
                )
            });
            *v = 0.0;
        }
    }
    values
}

/// One sample per row, with the self weight (and self count) as values.
fn build(
    rows: &[Row<'_>],
    kind: Kind,
    has_count: bool,
    options: &ReadOptions,
    mut warnings: Warnings,
) -> Result<Parsed, ReadError> {
    let parents = parents(rows, options.limits.max_stack_depth)?;
    let (type_name, unit_name) = kind.value_type();
    let weights = self_values(rows, &parents, |r| r.total, type_name, &mut warnings);
    let counts = has_count.then(|| {
        let (name, _) = Kind::Count.value_type();
        self_values(
            rows,
            &parents,
            |r| r.count.unwrap_or(0.0),
            name,
            &mut warnings,
        )
    });
    let mut b = ProfileBuilder::new();
    let source = b.add_source(NAME, options.source_uri.as_deref(), None);
    let vt = b.value_type(type_name, unit_name);
    let count_vt = counts.as_ref().map(|_| {
        let (name, unit) = Kind::Count.value_type();
        b.value_type(name, unit)
    });
    b.set_meta(META_DEFAULT_TYPE, type_name);
    let mut locations: HashMap<(&str, Option<&str>), LocationIndex> = HashMap::default();
    let mut nodes: Vec<StackIndex> = Vec::with_capacity(rows.len());
    for (i, row) in rows.iter().enumerate() {
        check_sample_limit(&b, Format::Instruments, options.limits.max_samples)?;
        let loc = *locations.entry((row.name, row.file)).or_insert_with(|| {
            let f = b.function_named(row.name, row.file);
            b.location(Some(f), 0)
        });
        let node = b.stack_node(parents[i].map(|p| nodes[p]), loc);
        nodes.push(node);
        let sample = b.add_sample(source, Some(node));
        b.set_value(sample, vt, weights[i]);
        if let (Some(cvt), Some(counts)) = (count_vt, &counts) {
            b.set_value(sample, cvt, counts[i]);
        }
    }
    finish_parsed(b, Format::Instruments, warnings)
}
