//! `proftab top FILE [--type TYPE] [--by function|line] [--limit N] [--json]`: functions (or
//! source lines) by self and total value, like `go tool pprof -top`.
//!
//! Invariant: rows are sorted and printed as pprof sorts and prints them (flat descending,
//! then name, then cum descending; one unit for the whole table); `--limit` only cuts the
//! rows shown, the header still counts all of them.

use serde_json::{json, Value};

use crate::analysis::functions::function_table;
use crate::analysis::lines::line_table;
use crate::model::{Profile, ValueTypeIndex};

use crate::cli::args::{chosen_value_type, Files, Matches, Opt, Verb, JSON, LIMIT};
use crate::cli::input::{load_warning, Stacks};
use crate::cli::output::{emit, num, print_json, CliResult, Failure};
use crate::cli::symbols::{set_sources, KALLSYMS, SYMBOLS};
use crate::cli::units::{percentage, report_unit_of, scaled_label};

/// The command line of `proftab top`.
pub const VERB: Verb = Verb {
    name: "top",
    synopsis: "FILE [--type TYPE] [--by function|line] [--limit N] [--json] [--symbols DIR] [--kallsyms FILE]",
    about: "functions by self and total value, like `go tool pprof -top`; --by line gives
source lines (file:line), like summaryRprof(lines = \"show\")$by.line: a sample's
self goes to its innermost frame that has a line",
    options: &[
        Opt {
            name: "--type",
            value: Some("TYPE"),
            help: "the value type reported (default: the profile's default type)",
        },
        Opt {
            name: "--by",
            value: Some("function|line"),
            help: "one row per function (the default) or per source line",
        },
        LIMIT,
        JSON,
        SYMBOLS,
        KALLSYMS,
    ],
    files: Files::Read,
};

/// Runs `proftab top`.
pub fn run(args: &Matches) -> CliResult {
    let path = args.single_file()?;
    let limit = args.limit()?;
    let by_line = match args.value("--by") {
        None | Some("function") => false,
        Some("line") => true,
        Some(other) => {
            return Err(Failure::usage(format!(
                "--by takes function or line, got {other:?}"
            )))
        }
    };
    set_sources(args)?;
    let parsed = load_warning(path, Stacks::AsPprof)?;
    let p = &parsed.profile;
    let vt = chosen_value_type(p, args.value("--type"))?;
    let report = if by_line {
        line_report(p, vt)
    } else {
        function_report(p, vt)
    };
    let shown = limit.unwrap_or(report.rows.len()).min(report.rows.len());
    if args.flag(JSON.name) {
        print_json(&top_json(p, &report, shown))
    } else {
        emit(&top_text(p, &report, shown))
    }
}

/// A `top` report: rows sorted as `go tool pprof -top` sorts them.
struct TopReport {
    value_type: ValueTypeIndex,
    total: f64,
    /// `"functions"` or `"lines"`: the key of the rows in the JSON output.
    rows_key: &'static str,
    rows: Vec<TopRow>,
}

/// One row of a [`TopReport`].
struct TopRow {
    name: String,
    flat: f64,
    cum: f64,
    /// Fields of the JSON row beyond name, self and total.
    extra: Vec<(&'static str, Value)>,
}

fn function_report(p: &Profile, vt: ValueTypeIndex) -> TopReport {
    let table = function_table(p, vt, None);
    let rows = table
        .rows
        .into_iter()
        .map(|r| TopRow {
            name: r.name,
            flat: r.self_value,
            cum: r.total_value,
            extra: Vec::new(),
        })
        .collect();
    sorted_report(vt, table.total, "functions", rows)
}

fn line_report(p: &Profile, vt: ValueTypeIndex) -> TopReport {
    let table = line_table(p, vt, None);
    let rows = table
        .rows
        .into_iter()
        .map(|r| {
            let functions = r.functions.join(", ");
            let name = match functions.as_str() {
                "" => r.label(),
                f => format!("{} {f}", r.label()),
            };
            let extra = vec![
                ("file", r.line.map_or(Value::Null, |_| json!(r.file))),
                ("line", r.line.map_or(Value::Null, |l| json!(l.line))),
                ("functions", json!(r.functions)),
            ];
            TopRow {
                name,
                flat: r.self_value,
                cum: r.total_value,
                extra,
            }
        })
        .collect();
    sorted_report(vt, table.total, "lines", rows)
}

/// Sorts rows as `go tool pprof -top` does: flat descending, then name, then cum descending.
fn sorted_report(
    value_type: ValueTypeIndex,
    total: f64,
    rows_key: &'static str,
    mut rows: Vec<TopRow>,
) -> TopReport {
    rows.sort_by(|a, b| {
        b.flat
            .abs()
            .total_cmp(&a.flat.abs())
            .then_with(|| a.name.cmp(&b.name))
            .then(b.cum.abs().total_cmp(&a.cum.abs()))
    });
    TopReport {
        value_type,
        total,
        rows_key,
        rows,
    }
}

fn top_json(p: &Profile, t: &TopReport, shown: usize) -> Value {
    let (ty, unit) = p.value_type_names(t.value_type);
    let rows: Vec<Value> = t.rows[..shown]
        .iter()
        .map(|r| {
            let mut row = serde_json::Map::new();
            row.insert("name".into(), json!(r.name));
            for (key, value) in &r.extra {
                row.insert((*key).into(), value.clone());
            }
            row.insert("self".into(), num(r.flat));
            row.insert("total".into(), num(r.cum));
            Value::Object(row)
        })
        .collect();
    json!({"type": ty, "unit": unit, "total": num(t.total), t.rows_key: rows})
}

/// The table of `go tool pprof -top`: header lines, then flat, flat%, sum%, cum, cum%, name,
/// every value in the one unit pprof would choose for the report.
fn top_text(p: &Profile, t: &TopReport, shown: usize) -> String {
    let (ty, unit) = p.value_type_names(t.value_type);
    let rows = &t.rows[..shown];
    let unit = unit.to_lowercase();
    let out_unit = report_unit_of(rows.iter().map(|r| (r.flat, r.cum)), t.total, &unit);
    let label = |v: f64| scaled_label(v, &unit, &out_unit);
    let flat_sum: f64 = rows.iter().map(|r| r.flat).sum();
    let mut out = format!("Type: {ty}\n");
    out.push_str(&format!(
        "Showing nodes accounting for {}, {} of {} total\n",
        label(flat_sum),
        percentage(flat_sum, t.total).trim(),
        label(t.total)
    ));
    if shown < t.rows.len() {
        out.push_str(&format!(
            "Showing top {shown} nodes out of {}\n",
            t.rows.len()
        ));
    }
    out.push_str(&format!(
        "{:>10} {:>5}% {:>5}% {:>10} {:>5}%\n",
        "flat", "flat", "sum", "cum", "cum"
    ));
    let mut running = 0.0;
    for r in rows {
        running += r.flat;
        out.push_str(&format!(
            "{:>10} {} {} {:>10} {}  {}\n",
            label(r.flat),
            percentage(r.flat, t.total),
            percentage(running, t.total),
            label(r.cum),
            percentage(r.cum, t.total),
            r.name
        ));
    }
    out
}
