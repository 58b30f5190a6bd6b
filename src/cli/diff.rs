//! `proftab diff BASE NEW [--type T] [--absolute] [--limit N] [--json]`: the functions whose
//! self value changed most between two profiles.
//!
//! BASE and NEW are combined into one profile; the sources of BASE (one, or several when it is
//! a combined file) are the baseline, those of NEW the comparison. Rows are sorted by the
//! change of the self value (as `go tool pprof -top -diff_base` sorts by flat), largest
//! regression first. By default the comparison is scaled so that both totals are equal;
//! `--absolute` compares the values as recorded.

use serde_json::{json, Value};

use crate::analysis::diff::{diff_functions, Comparison, FunctionDiff, Normalization};
use crate::formats::pprof::prune::Expressions;
use crate::model::combine::combine;
use crate::model::{Profile, SourceIndex};

use crate::cli::args::{Files, Matches, Opt, Verb, JSON, LIMIT};
use crate::cli::input::{display_name, load_warning, pruned_as_pprof, Stacks};
use crate::cli::output::{emit, num, print_json, CliResult, Failure};
use crate::cli::units::{report_unit_of, scaled_label};

/// The command line of `proftab diff`.
pub const VERB: Verb = Verb {
    name: "diff",
    synopsis: "BASE NEW [--type TYPE] [--absolute] [--limit N] [--json]",
    about: "functions by change of self value from BASE to NEW, largest regression first;
NEW is scaled to BASE's total unless --absolute; a combined file counts as one group",
    options: &[
        Opt {
            name: "--type",
            value: Some("TYPE"),
            help: "the value type compared, one both files have (default: BASE's default type)",
        },
        Opt {
            name: "--absolute",
            value: None,
            help: "compare the values as recorded instead of scaling NEW to BASE's total",
        },
        LIMIT,
        JSON,
    ],
    files: Files::Read,
};

/// Runs `proftab diff`.
pub fn run(args: &Matches) -> CliResult {
    let [base_path, new_path] = args.operands.as_slice() else {
        return Err(Failure::usage(format!(
            "diff needs two files, BASE and NEW; got {}",
            args.operands.len()
        )));
    };
    let limit = args.limit()?;
    let base = load_warning(base_path, Stacks::Raw)?;
    let new = load_warning(new_path, Stacks::Raw)?;
    let type_name = compared_type(
        (base_path, &base.profile),
        (new_path, &new.profile),
        args.value("--type"),
    )?;
    let base_sources = base.profile.sources.source_type.len();
    let new_sources = new.profile.sources.source_type.len();
    // `go tool pprof -diff_base` merges NEW and BASE, then prunes with NEW's expressions.
    let expressions = Expressions::of(&new.profile);
    let p = combine(&[base.profile, new.profile])
        .map_err(|e| Failure::failed(format!("cannot combine BASE and NEW: {e}")))?;
    let p = pruned_as_pprof(p, &expressions, new_path);
    let value_type = p
        .value_type_index(&type_name)
        .ok_or_else(|| Failure::failed(format!("value type {type_name:?} lost in combining")))?;
    let normalization = if args.flag("--absolute") {
        Normalization::Absolute
    } else {
        Normalization::Scaled
    };
    let c = Comparison {
        value_type,
        base: source_range(0, base_sources),
        new: source_range(base_sources, new_sources),
        normalization,
    };
    let d = diff_functions(&p, &c).map_err(|e| Failure::failed(e.to_string()))?;
    let shown = limit.unwrap_or(d.rows.len()).min(d.rows.len());
    if args.flag(JSON.name) {
        print_json(&diff_json(&p, &d, shown))
    } else {
        let names = [display_name(base_path), display_name(new_path)];
        emit(&diff_text(&p, &d, shown, names))
    }
}

/// Sources `first .. first + count` of the combined profile.
fn source_range(first: usize, count: usize) -> Vec<SourceIndex> {
    (first..first + count)
        .filter_map(SourceIndex::from_usize)
        .collect()
}

/// The value type compared: `--type`, else BASE's default; it must be a value type of both.
fn compared_type(
    base: (&str, &Profile),
    new: (&str, &Profile),
    asked: Option<&str>,
) -> Result<String, Failure> {
    let name = match asked {
        Some(t) => t.to_owned(),
        None => {
            let vt = base.1.default_value_type().ok_or_else(|| {
                Failure::failed(format!("{}: the profile has no value types", base.0))
            })?;
            base.1.value_type_names(vt).0.to_owned()
        }
    };
    for (path, p) in [base, new] {
        if p.value_type_index(&name).is_none() {
            let known: Vec<&str> = p.values.iter().map(|c| p.str(c.value_type)).collect();
            let how = if asked.is_some() {
                "--type"
            } else {
                "the default value type of BASE"
            };
            return Err(Failure::failed(format!(
                "{}: no value type {name:?} ({how}); it has: {}; choose a type both files \
                 have with --type",
                display_name(path),
                known.join(", ")
            )));
        }
    }
    Ok(name)
}

fn normalization_name(n: Normalization) -> &'static str {
    match n {
        Normalization::Scaled => "scaled",
        Normalization::Absolute => "absolute",
    }
}

/// `{"type","unit","normalization","scale","base_total","new_total","functions":[{"name",
/// "base","new","delta","relative","base_total","new_total"}]}`; `base`, `new` and `delta` are
/// self values, `new*` scaled, `relative` = delta / base or null when base is 0.
fn diff_json(p: &Profile, d: &FunctionDiff, shown: usize) -> Value {
    let s = &d.summary;
    let (ty, unit) = p.value_type_names(s.value_type);
    let functions: Vec<Value> = d.rows[..shown]
        .iter()
        .map(|r| {
            json!({
                "name": r.name,
                "base": num(r.base_self),
                "new": num(r.new_self),
                "delta": num(r.self_delta()),
                "relative": r.self_relative().map(num),
                "base_total": num(r.base_total),
                "new_total": num(r.new_total),
            })
        })
        .collect();
    json!({
        "type": ty,
        "unit": unit,
        "normalization": normalization_name(s.normalization),
        "scale": num(s.scale),
        "base_total": num(s.base_total),
        "new_total": num(s.new_total()),
        "functions": functions,
    })
}

/// A header naming both sides, then base, new, delta, relative change and name per row, every
/// value in the unit `go tool pprof` would choose for these deltas.
fn diff_text(p: &Profile, d: &FunctionDiff, shown: usize, names: [&str; 2]) -> String {
    let s = &d.summary;
    let (ty, unit) = p.value_type_names(s.value_type);
    let unit = unit.to_lowercase();
    let rows = &d.rows[..shown];
    let deltas = rows.iter().map(|r| (r.self_delta(), r.total_delta()));
    let out_unit = report_unit_of(deltas, s.base_total.max(s.new_total()), &unit);
    let label = |v: f64| scaled_label(v, &unit, &out_unit);
    let mut out = format!("Type: {ty}\n");
    out.push_str(&format!(
        "Base: {} in {} samples ({})\n",
        label(s.base_total),
        s.base_samples,
        names[0]
    ));
    out.push_str(&format!(
        "New:  {} in {} samples ({})",
        label(s.new_total_raw),
        s.new_samples,
        names[1]
    ));
    match s.normalization {
        Normalization::Scaled => {
            out.push_str(&format!(", scaled by {:.4} to the base total\n", s.scale))
        }
        Normalization::Absolute => out.push_str(", absolute values\n"),
    }
    if shown < d.rows.len() {
        out.push_str(&format!(
            "Showing top {shown} functions out of {}\n",
            d.rows.len()
        ));
    }
    out.push_str(&format!(
        "{:>10} {:>10} {:>10} {:>9}  name\n",
        "base", "new", "delta", "relative"
    ));
    for r in rows {
        let delta = r.self_delta();
        let sign = if delta > 0.0 { "+" } else { "" };
        out.push_str(&format!(
            "{:>10} {:>10} {:>10} {:>9}  {}\n",
            label(r.base_self),
            label(r.new_self),
            format!("{sign}{}", label(delta)),
            relative_text(r.self_relative(), r.new_self),
            r.name
        ));
    }
    out
}

/// `+12.5%`, or `new` for a function without a baseline value.
fn relative_text(relative: Option<f64>, new: f64) -> String {
    match relative {
        Some(r) if r > 0.0 => format!("+{:.1}%", r * 100.0),
        Some(r) => format!("{:.1}%", r * 100.0),
        None if new != 0.0 => "new".to_owned(),
        None => "-".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_changes_print_with_sign() {
        assert_eq!(relative_text(Some(0.125), 9.0), "+12.5%");
        assert_eq!(relative_text(Some(-0.5), 1.0), "-50.0%");
        assert_eq!(relative_text(Some(0.0), 1.0), "0.0%");
        assert_eq!(relative_text(None, 3.0), "new");
        assert_eq!(relative_text(None, 0.0), "-");
    }

    #[test]
    fn sources_of_each_side() {
        assert_eq!(
            source_range(2, 3),
            vec![SourceIndex(2), SourceIndex(3), SourceIndex(4)]
        );
        assert!(source_range(1, 0).is_empty());
    }
}
