//! The counts behind each loss warning: what the profile has of one kind, or `None` when it
//! has none (so an absent kind never warns). Each check names the target format and counts
//! the rows affected.

use std::collections::BTreeSet;

use crate::formats::Warning;
use crate::hash::{HashMap, HashSet};
use crate::model::{ext, Cell, ColumnData, Profile, ValueTypeIndex, INT_NA, SAMPLE_TIME};

/// Cells of `data` that hold a value (not NA, not NaN).
pub(crate) fn present_cells(data: &ColumnData) -> usize {
    match data {
        ColumnData::Int(v) => v.iter().filter(|&&x| x != INT_NA).count(),
        ColumnData::Dbl(v) => v.iter().filter(|x| !x.is_nan()).count(),
        ColumnData::Chr(v) => v.iter().filter(|x| !x.is_na()).count(),
        ColumnData::Lgl(v) => v.iter().filter(|x| x.is_some()).count(),
        ColumnData::U64(v) => v.iter().filter(|x| x.is_some()).count(),
    }
}

/// "1 sample" / "3 samples", "1 entry" / "2 entries".
pub(crate) fn plural(n: usize, what: &str) -> String {
    match (n, what.strip_suffix('y')) {
        (1, _) => format!("{n} {what}"),
        (_, Some(stem)) => format!("{n} {stem}ies"),
        (_, None) => format!("{n} {what}s"),
    }
}

/// Value types besides the chosen one (and its pair), with the number of values each holds.
pub(super) fn other_value_types(
    f: &'static str,
    p: &Profile,
    chosen: Option<ValueTypeIndex>,
    paired: Option<(&str, &str)>,
) -> Option<Warning> {
    let chosen = chosen?;
    let (chosen_type, chosen_unit) = p.value_type_names(chosen);
    let also = paired.and_then(|(a, b)| (a == chosen_type).then_some(b));
    let mut dropped = Vec::new();
    let mut values = 0;
    for vt in (0..p.values.len()).filter_map(ValueTypeIndex::from_usize) {
        let (t, u) = p.value_type_names(vt);
        if vt == chosen || Some(t) == also {
            continue;
        }
        let n = p.value_column(vt).map_or(0, |c| {
            (0..p.num_samples()).filter(|&s| c.get(s).is_some()).count()
        });
        values += n;
        dropped.push(format!("{t}/{u} ({})", plural(n, "value")));
    }
    (!dropped.is_empty()).then(|| {
        Warning::new(
            f,
            format!(
                "holds one value type: wrote {chosen_type}/{chosen_unit}, dropped {}",
                dropped.join(", ")
            ),
            values,
        )
    })
}

/// Sample labels: the samples that have them and their keys.
pub(super) fn labels(f: &'static str, p: &Profile) -> Option<Warning> {
    let t = p.ext_table(ext::tables::SAMPLE_LABELS)?;
    let ids = t.columns.int("sample_id").unwrap_or(&[]);
    let samples: HashSet<i32> = ids.iter().copied().collect();
    let keys: BTreeSet<&str> = t
        .columns
        .chr("key")
        .unwrap_or(&[])
        .iter()
        .map(|&k| p.str(k))
        .collect();
    let rows = t.len();
    (rows > 0).then(|| {
        let keys: Vec<&str> = keys.into_iter().collect();
        Warning::new(
            f,
            format!(
                "cannot hold sample labels: dropped {} on {} of {} (keys: {})",
                plural(rows, "label"),
                plural(samples.len(), "sample"),
                p.num_samples(),
                keys.join(", ")
            ),
            samples.len(),
        )
    })
}

/// Line numbers of locations and start lines of functions.
pub(super) fn lines(f: &'static str, p: &Profile) -> Option<Warning> {
    let locs = p.locations.line.iter().filter(|&&l| l > 0).count();
    let funcs = p.functions.start_line.iter().filter(|&&l| l > 0).count();
    let mut parts = Vec::new();
    if locs > 0 {
        parts.push(format!("the lines of {}", plural(locs, "location")));
    }
    if funcs > 0 {
        parts.push(format!("the start lines of {}", plural(funcs, "function")));
    }
    (!parts.is_empty()).then(|| {
        Warning::new(
            f,
            format!("cannot hold line numbers: dropped {}", parts.join(" and ")),
            locs + funcs,
        )
    })
}

/// Column numbers of locations.
pub(super) fn columns(f: &'static str, p: &Profile) -> Option<Warning> {
    location_column(f, p, ext::locations::COLUMN, "column numbers", "columns")
}

/// A warning for the locations that have a cell in extension column `column`: "cannot hold
/// `what`: dropped the `cells` of N locations".
fn location_column(
    f: &'static str,
    p: &Profile,
    column: &str,
    what: &str,
    cells: &str,
) -> Option<Warning> {
    let n = p.locations.ext.get(column).map_or(0, present_cells);
    (n > 0).then(|| {
        Warning::new(
            f,
            format!(
                "cannot hold {what}: dropped the {cells} of {}",
                plural(n, "location")
            ),
            n,
        )
    })
}

/// File names of functions.
pub(super) fn files(f: &'static str, p: &Profile) -> Option<Warning> {
    let n = p.functions.filename.iter().filter(|x| !x.is_na()).count();
    (n > 0).then(|| {
        Warning::new(
            f,
            format!(
                "cannot hold file names: dropped the file names of {}",
                plural(n, "function")
            ),
            n,
        )
    })
}

/// Per-sample timestamps.
pub(super) fn times(f: &'static str, p: &Profile) -> Option<Warning> {
    let n = p.samples.ext.get(SAMPLE_TIME).map_or(0, present_cells);
    (n > 0).then(|| {
        Warning::new(
            f,
            format!(
                "cannot hold sample times: dropped the timestamps of {} (time order is lost)",
                plural(n, "sample")
            ),
            n,
        )
    })
}

/// Samples summed by stack (and, `by_labels`, by label set): reported when at least two
/// samples fall into one entry.
pub(super) fn sample_rows(f: &'static str, p: &Profile, by_labels: bool) -> Option<Warning> {
    let n = p.num_samples();
    let label_sets = if by_labels {
        label_sets(p)
    } else {
        HashMap::default()
    };
    let none: Vec<String> = Vec::new();
    let entries: HashSet<(u32, &Vec<String>)> = (0..n)
        .map(|s| {
            let id = i32::try_from(s + 1).unwrap_or(i32::MAX);
            (p.samples.stack[s], label_sets.get(&id).unwrap_or(&none))
        })
        .collect();
    let what = if by_labels {
        "stack and labels"
    } else {
        "stack"
    };
    (entries.len() < n).then(|| {
        Warning::new(
            f,
            format!(
                "sums samples by {what}: {} became {} (sample order and identity are lost)",
                plural(n, "sample"),
                plural(entries.len(), "entry")
            ),
            n - entries.len(),
        )
    })
}

/// Each labelled sample's labels (by logical sample id), as sorted `key=value` texts.
fn label_sets(p: &Profile) -> HashMap<i32, Vec<String>> {
    let mut sets: HashMap<i32, Vec<String>> = HashMap::default();
    let Some(t) = p.ext_table(ext::tables::SAMPLE_LABELS) else {
        return sets;
    };
    let cell = |name: &str, row: usize| format!("{:?}", t.columns.cell(name, row));
    let ids = t.columns.int("sample_id").unwrap_or(&[]);
    for (row, &id) in ids.iter().enumerate() {
        let text = ["key", "str", "num", "num_unit"]
            .map(|c| cell(c, row))
            .join("\u{1f}");
        sets.entry(id).or_default().push(text);
    }
    for set in sets.values_mut() {
        set.sort();
    }
    sets
}

/// Several sources merged into one.
pub(super) fn sources(f: &'static str, p: &Profile) -> Option<Warning> {
    let n = p.sources.source_type.len();
    (n > 1).then(|| {
        Warning::new(
            f,
            format!(
                "holds one source: merged the samples of {n} sources ({})",
                plural(p.num_samples(), "sample")
            ),
            n,
        )
    })
}

/// Instruction addresses (and the mapping each belongs to).
pub(super) fn addresses(f: &'static str, p: &Profile) -> Option<Warning> {
    location_column(f, p, ext::locations::ADDRESS, "addresses", "addresses")
}

/// Locations marked inlined (`.inlined`, or a pprof line index above 0).
pub(super) fn inlined(f: &'static str, p: &Profile) -> Option<Warning> {
    let e = &p.locations.ext;
    let n = (0..p.locations.function.len())
        .filter(|&l| {
            matches!(e.cell(ext::locations::INLINED, l), Some(Cell::Lgl(Some(true))))
                || matches!(e.cell(ext::locations::PPROF_LINE_INDEX, l), Some(Cell::Int(i)) if i > 0 && i != INT_NA)
        })
        .count();
    (n > 0).then(|| {
        Warning::new(
            f,
            format!(
                "cannot mark inlined frames: {} written as ordinary calls",
                plural(n, "inlined frame")
            ),
            n,
        )
    })
}
