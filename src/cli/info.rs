//! `proftab info FILE [--json]`: what a profile holds — its format, sources, samples, value
//! types with totals, table row counts, metadata and read warnings.
//!
//! Invariant: the read warnings are part of the report (in the text and the JSON), so `info`
//! does not also print them on standard error.

use serde_json::{json, Value};

use crate::formats::Parsed;
use crate::model::Profile;

use crate::cli::args::{Files, Matches, Verb, JSON};
use crate::cli::input::{format_name, load};
use crate::cli::output::{emit, num, print_json, CliResult};

/// The command line of `proftab info`.
pub const VERB: Verb = Verb {
    name: "info",
    synopsis: "FILE [--json]",
    about: "format, sources, samples, value types with totals, table row counts, warnings",
    options: &[JSON],
    files: Files::Read,
};

/// Runs `proftab info`.
pub fn run(args: &Matches) -> CliResult {
    let path = args.single_file()?;
    let parsed = load(path)?;
    let format = format_name(path, &parsed);
    if args.flag(JSON.name) {
        print_json(&info_json(&parsed, format))
    } else {
        emit(&info_text(&parsed, format))
    }
}

/// Per source: sample count and the total of every value type.
struct SourceStats {
    samples: Vec<usize>,
    /// `totals[source][value type]`.
    totals: Vec<Vec<f64>>,
}

fn source_stats(p: &Profile) -> SourceStats {
    let n = p.sources.source_type.len();
    let mut stats = SourceStats {
        samples: vec![0; n],
        totals: vec![vec![0.0; p.values.len()]; n],
    };
    for (s, src) in p.samples.source.iter().enumerate() {
        let src = src.idx();
        if let Some(c) = stats.samples.get_mut(src) {
            *c += 1;
        }
        for (vt, col) in p.values.iter().enumerate() {
            if let (Some(v), Some(t)) = (col.get(s), stats.totals.get_mut(src)) {
                t[vt] += v;
            }
        }
    }
    stats
}

/// Row counts of the seven v2 tables and of every extension table, in order.
fn table_counts(p: &Profile) -> Vec<(String, usize)> {
    crate::analysis::summary::tables(p)
        .into_iter()
        .map(|t| (t.name.to_owned(), t.rows))
        .collect()
}

fn info_json(parsed: &Parsed, format: &str) -> Value {
    let p = &parsed.profile;
    let stats = source_stats(p);
    let sources: Vec<Value> = (0..p.sources.source_type.len())
        .map(|i| {
            let totals: serde_json::Map<String, Value> = p
                .values
                .iter()
                .enumerate()
                .map(|(vt, c)| (p.str(c.value_type).to_owned(), num(stats.totals[i][vt])))
                .collect();
            json!({
                "source_id": i + 1,
                "source_type": p.strings.get(p.sources.source_type[i]),
                "source_uri": p.strings.get(p.sources.source_uri[i]),
                "source_timestamp": num(p.sources.source_timestamp[i]),
                "samples": stats.samples[i],
                "totals": totals,
            })
        })
        .collect();
    let value_types: Vec<Value> = p
        .values
        .iter()
        .map(|c| json!({"type": p.str(c.value_type), "unit": p.str(c.unit), "total": num(c.total())}))
        .collect();
    let tables: serde_json::Map<String, Value> = table_counts(p)
        .into_iter()
        .map(|(n, c)| (n, json!(c)))
        .collect();
    let meta: Vec<Value> = p
        .meta
        .key
        .iter()
        .zip(&p.meta.value)
        .map(|(k, v)| json!({"key": p.str(*k), "value": p.str(*v)}))
        .collect();
    let default_type = p.default_value_type().map(|vt| p.value_type_names(vt).0);
    json!({
        "format": format,
        "sources": sources,
        "samples": p.num_samples(),
        "value_types": value_types,
        "default_type": default_type,
        "tables": tables,
        "meta": meta,
        "warnings": parsed.warnings,
    })
}

fn info_text(parsed: &Parsed, format: &str) -> String {
    let p = &parsed.profile;
    let stats = source_stats(p);
    let mut out = format!("format:   {}\nsamples:  {}\n", format, p.num_samples());
    out.push_str("sources:\n");
    for i in 0..p.sources.source_type.len() {
        let ts = p.sources.source_timestamp[i];
        let totals: Vec<String> = p
            .values
            .iter()
            .enumerate()
            .map(|(vt, c)| format!("{}={}", p.str(c.value_type), stats.totals[i][vt]))
            .collect();
        out.push_str(&format!(
            "  {:>3}  {}  {}  timestamp {}  samples {}  {}\n",
            i + 1,
            p.strings.get(p.sources.source_type[i]).unwrap_or("NA"),
            p.strings.get(p.sources.source_uri[i]).unwrap_or("NA"),
            if ts.is_nan() {
                "NA".to_owned()
            } else {
                ts.to_string()
            },
            stats.samples[i],
            totals.join(" ")
        ));
    }
    let default = p.default_value_type();
    out.push_str("value types:\n");
    for (vt, c) in p.values.iter().enumerate() {
        let mark = if default.map(|d| d.idx()) == Some(vt) {
            "  (default)"
        } else {
            ""
        };
        out.push_str(&format!(
            "  {:<20} {:<14} total {}{mark}\n",
            p.str(c.value_type),
            p.str(c.unit),
            c.total()
        ));
    }
    out.push_str("tables (rows):\n");
    for (name, count) in table_counts(p) {
        out.push_str(&format!("  {name:<20} {count}\n"));
    }
    out.push_str(&format!("warnings: {}\n", parsed.warnings.len()));
    for w in &parsed.warnings {
        out.push_str(&format!("  {w}\n"));
    }
    out
}
