//! `proftab`: inspect, convert, combine and validate profiles from the command line.
//!
//! ```text
//! proftab info FILE [--json]
//! proftab top FILE [--type TYPE] [--by function|line] [--limit N] [--json]
//! proftab convert IN... -o OUT [--to FORMAT] [--type TYPE] [--source ID]   (alias: combine)
//! proftab validate FILE
//! proftab diff BASE NEW [--type TYPE] [--absolute] [--limit N] [--json]
//! ```
//!
//! Input formats are always recognised by content; `-` reads standard input and `-o -` writes
//! standard output. Exit status: 0 on success, 1 when a file cannot be read, converted or is not
//! valid, 2 for a usage error. Errors and warnings go to standard error.

use std::io::{Read, Write};
use std::process::ExitCode;

use serde_json::{json, Value};

use proftab::analysis::functions::function_table;
use proftab::analysis::lines::line_table;
use proftab::formats::{self, Format, Parsed, ReadOptions, Warning, WriteOptions};
use proftab::model::combine::combine;
use proftab::model::{Profile, ValueTypeIndex};

#[path = "proftab/diff.rs"]
mod diff;

const USAGE: &str = "\
usage:
  proftab info FILE [--json]
        format, sources, samples, value types with totals, table row counts, warnings
  proftab top FILE [--type TYPE] [--by function|line] [--limit N] [--json]
        functions by self and total value, like `go tool pprof -top`; --by line gives
        source lines (file:line), like summaryRprof(lines = \"show\")$by.line: a sample's
        self goes to its innermost frame that has a line
  proftab convert IN... -o OUT [--to FORMAT] [--type TYPE] [--source ID]
        write IN (several INs are combined into one profile) as FORMAT, by default the
        format OUT's name implies; --type picks the value type of single-type formats,
        --source the one source written by single-run formats (Rprof)
  proftab combine IN... -o OUT [--to FORMAT] [--type TYPE] [--source ID]
        the same as convert
  proftab validate FILE
        exit 0 when FILE is a valid profile, else list every violation and exit 1
  proftab diff BASE NEW [--type TYPE] [--absolute] [--limit N] [--json]
        functions by change of self value from BASE to NEW, largest regression first;
        NEW is scaled to BASE's total unless --absolute; a combined file counts as one group

FILE `-` is standard input; `-o -` is standard output. Input formats are recognised by content.";

/// A failed command: what to print and the exit status.
#[derive(Debug)]
struct Failure {
    message: String,
    status: u8,
}

impl Failure {
    /// A usage error (status 2).
    fn usage(message: impl Into<String>) -> Self {
        Failure {
            message: format!("{} (see `proftab help`)", message.into()),
            status: 2,
        }
    }

    /// A failed operation (status 1).
    fn failed(message: impl Into<String>) -> Self {
        Failure {
            message: message.into(),
            status: 1,
        }
    }
}

type CliResult = Result<(), Failure>;

/// Writes `proftab: <message>` to standard error (ignoring a closed stderr rather than
/// panicking as `eprintln!` would).
fn say(message: &str) {
    let _ = writeln!(std::io::stderr().lock(), "proftab: {message}");
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            say(&f.message);
            ExitCode::from(f.status)
        }
    }
}

fn run(args: &[String]) -> CliResult {
    let Some((command, rest)) = args.split_first() else {
        return Err(Failure::usage("no command given"));
    };
    match command.as_str() {
        "info" => info(&Args::parse(rest, &["--json"], &[])?),
        "top" => top(&Args::parse(
            rest,
            &["--json"],
            &["--type", "--limit", "--by"],
        )?),
        "convert" | "combine" => {
            let valued = ["-o", "--to", "--type", "--source"];
            convert(&Args::parse(rest, &[], &valued)?)
        }
        "validate" => validate(&Args::parse(rest, &[], &[])?),
        "diff" => diff::run(&Args::parse(rest, diff::FLAGS, diff::VALUED)?),
        "help" | "--help" | "-h" => emit(&format!("{USAGE}\n")),
        "--version" | "-V" => emit(&format!("proftab {}\n", env!("CARGO_PKG_VERSION"))),
        other => Err(Failure::usage(format!("unknown command {other:?}"))),
    }
}

/// Parsed command-line arguments of one command: positionals, flags and `--opt VALUE` pairs.
#[derive(Debug, Default)]
struct Args {
    positional: Vec<String>,
    flags: Vec<&'static str>,
    options: Vec<(&'static str, String)>,
}

impl Args {
    /// Parses `args` given the flags and value options the command accepts. `--opt=VALUE` and
    /// `--opt VALUE` are both accepted; `--` ends the options; `-` is a positional.
    fn parse(
        args: &[String],
        flags: &[&'static str],
        valued: &[&'static str],
    ) -> Result<Args, Failure> {
        let mut out = Args::default();
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            if arg == "--" {
                out.positional.extend(it.by_ref().cloned());
                break;
            }
            if arg == "-" || !arg.starts_with('-') {
                out.positional.push(arg.clone());
                continue;
            }
            let (name, inline) = match arg.split_once('=') {
                Some((n, v)) => (n, Some(v.to_owned())),
                None => (arg.as_str(), None),
            };
            if let Some(&flag) = flags.iter().find(|f| **f == name) {
                if inline.is_some() {
                    return Err(Failure::usage(format!("{flag} takes no value")));
                }
                out.flags.push(flag);
            } else if let Some(&opt) = valued.iter().find(|o| **o == name) {
                let value = match inline {
                    Some(v) => v,
                    None => it
                        .next()
                        .cloned()
                        .ok_or_else(|| Failure::usage(format!("{opt} needs a value")))?,
                };
                out.options.push((opt, value));
            } else {
                return Err(Failure::usage(format!("unknown option {arg:?}")));
            }
        }
        Ok(out)
    }

    fn flag(&self, name: &str) -> bool {
        self.flags.contains(&name)
    }

    /// The last value given for option `name`.
    fn option(&self, name: &str) -> Option<&str> {
        self.options
            .iter()
            .rev()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Exactly one positional argument (the input file).
    fn single_file(&self) -> Result<&str, Failure> {
        match self.positional.as_slice() {
            [one] => Ok(one),
            [] => Err(Failure::usage("no input FILE given")),
            more => Err(Failure::usage(format!(
                "expected one FILE, got {}",
                more.len()
            ))),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Reading and writing files

/// The bytes of `path` (`-` for standard input).
fn read_bytes(path: &str) -> Result<Vec<u8>, Failure> {
    if path == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| Failure::failed(format!("cannot read standard input: {e}")))?;
        return Ok(buf);
    }
    std::fs::read(path).map_err(|e| Failure::failed(format!("cannot read {path}: {e}")))
}

/// How a file is named in messages.
fn display_name(path: &str) -> &str {
    if path == "-" {
        "<stdin>"
    } else {
        path
    }
}

/// Reads and parses `path` in whatever format its content shows.
fn load(path: &str) -> Result<Parsed, Failure> {
    let bytes = read_bytes(path)?;
    let options = ReadOptions {
        source_uri: (path != "-").then(|| path.to_owned()),
        ..ReadOptions::default()
    };
    formats::read_any(&bytes, &options)
        .map_err(|e| Failure::failed(format!("{}: {e}", display_name(path))))
}

fn print_warnings(path: &str, warnings: &[Warning]) {
    for w in warnings {
        say(&format!("warning: {}: {w}", display_name(path)));
    }
}

/// Writes `bytes` to `path` (`-` for standard output).
fn write_bytes(path: &str, bytes: &[u8]) -> CliResult {
    if path == "-" {
        return write_stdout(bytes);
    }
    std::fs::write(path, bytes).map_err(|e| Failure::failed(format!("cannot write {path}: {e}")))
}

/// Prints a JSON value on standard output.
fn print_json(v: &Value) -> CliResult {
    let text = serde_json::to_string_pretty(v)
        .map_err(|e| Failure::failed(format!("cannot encode JSON: {e}")))?;
    emit(&format!("{text}\n"))
}

/// Writes `text` to standard output.
fn emit(text: &str) -> CliResult {
    write_stdout(text.as_bytes())
}

/// Writes `bytes` to standard output. A reader that went away (`proftab top FILE | head`) is
/// not an error.
fn write_stdout(bytes: &[u8]) -> CliResult {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Failure::failed(format!(
            "cannot write to standard output: {e}"
        ))),
        _ => Ok(()),
    }
}

/// A JSON number: integers up to 2^53 print without a fraction; NaN and infinities are null.
fn num(v: f64) -> Value {
    const EXACT: f64 = 9_007_199_254_740_992.0;
    if v.is_finite() && v.fract() == 0.0 && v.abs() <= EXACT {
        json!(v as i64)
    } else {
        // serde_json maps non-finite floats to null.
        json!(v)
    }
}

// ---------------------------------------------------------------------------------------------
// info

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
    let core = [
        ("meta", p.meta.key.len()),
        ("sources", p.sources.source_type.len()),
        ("samples", p.num_samples()),
        ("sample_values", p.sample_value_rows()),
        ("sample_locations", p.sample_location_rows()),
        ("locations", p.locations.line.len()),
        ("functions", p.functions.name.len()),
    ];
    core.iter()
        .map(|(n, c)| ((*n).to_owned(), *c))
        .chain(p.ext_tables.iter().map(|t| (t.name.clone(), t.len())))
        .collect()
}

fn info_json(parsed: &Parsed) -> Value {
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
        "format": parsed.format.name(),
        "sources": sources,
        "samples": p.num_samples(),
        "value_types": value_types,
        "default_type": default_type,
        "tables": tables,
        "meta": meta,
        "warnings": parsed.warnings,
    })
}

fn info_text(parsed: &Parsed) -> String {
    let p = &parsed.profile;
    let stats = source_stats(p);
    let mut out = format!(
        "format:   {}\nsamples:  {}\n",
        parsed.format.name(),
        p.num_samples()
    );
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

fn info(args: &Args) -> CliResult {
    let path = args.single_file()?;
    let parsed = load(path)?;
    if args.flag("--json") {
        print_json(&info_json(&parsed))
    } else {
        emit(&info_text(&parsed))
    }
}

// ---------------------------------------------------------------------------------------------
// top

/// The value type named by `--type`, else the profile's default.
fn chosen_value_type(p: &Profile, name: Option<&str>) -> Result<ValueTypeIndex, Failure> {
    let known = || {
        p.values
            .iter()
            .map(|c| p.str(c.value_type))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match name {
        Some(n) => p.value_type_index(n).ok_or_else(|| {
            Failure::failed(format!("no value type {n:?}; the profile has: {}", known()))
        }),
        None => p
            .default_value_type()
            .ok_or_else(|| Failure::failed("the profile has no value types")),
    }
}

fn parse_limit(args: &Args) -> Result<Option<usize>, Failure> {
    args.option("--limit")
        .map(|v| {
            v.parse::<usize>()
                .map_err(|_| Failure::usage(format!("--limit needs a whole number, got {v:?}")))
        })
        .transpose()
}

fn top(args: &Args) -> CliResult {
    let path = args.single_file()?;
    let limit = parse_limit(args)?;
    let by_line = match args.option("--by") {
        None | Some("function") => false,
        Some("line") => true,
        Some(other) => {
            return Err(Failure::usage(format!(
                "--by takes function or line, got {other:?}"
            )))
        }
    };
    let parsed = load(path)?;
    print_warnings(path, &parsed.warnings);
    let p = &parsed.profile;
    let vt = chosen_value_type(p, args.option("--type"))?;
    let report = if by_line {
        line_report(p, vt)
    } else {
        function_report(p, vt)
    };
    let shown = limit.unwrap_or(report.rows.len()).min(report.rows.len());
    if args.flag("--json") {
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

/// One unit of a family of pprof's `measurement` package.
struct Unit {
    name: &'static str,
    aliases: &'static [&'static str],
    /// Size in the family's base unit.
    factor: f64,
}

/// A family of units: the units, and the default (its position in the list).
struct UnitFamily {
    units: &'static [Unit],
    default: usize,
}

const fn unit(name: &'static str, aliases: &'static [&'static str], factor: f64) -> Unit {
    Unit {
        name,
        aliases,
        factor,
    }
}

/// The unit families of pprof's `measurement` package, with its aliases.
const UNIT_FAMILIES: [UnitFamily; 3] = [
    UnitFamily {
        units: &[
            unit("B", &["b", "byte"], 1.0),
            unit("kB", &["kb", "kbyte", "kilobyte"], 1024.0),
            unit("MB", &["mb", "mbyte", "megabyte"], 1_048_576.0),
            unit("GB", &["gb", "gbyte", "gigabyte"], 1_073_741_824.0),
            unit("TB", &["tb", "tbyte", "terabyte"], 1_099_511_627_776.0),
            unit("PB", &["pb", "pbyte", "petabyte"], 1_125_899_906_842_624.0),
        ],
        default: 0,
    },
    UnitFamily {
        units: &[
            unit("ns", &["ns", "nanosecond"], 1.0),
            unit("us", &["μs", "us", "microsecond"], 1e3),
            unit("ms", &["ms", "millisecond"], 1e6),
            unit("s", &["s", "sec", "second"], 1e9),
            unit("hrs", &["hour", "hr"], 3.6e12),
        ],
        default: 3,
    },
    UnitFamily {
        units: &[
            unit("n*GCU", &["nanogcu"], 1e-9),
            unit("u*GCU", &["microgcu"], 1e-6),
            unit("m*GCU", &["milligcu"], 1e-3),
            unit("GCU", &["gcu"], 1.0),
            unit("k*GCU", &["kilogcu"], 1e3),
            unit("M*GCU", &["megagcu"], 1e6),
            unit("G*GCU", &["gigagcu"], 1e9),
            unit("T*GCU", &["teragcu"], 1e12),
            unit("P*GCU", &["petagcu"], 1e15),
        ],
        default: 3,
    },
];

/// pprof's `sniffUnit`: lower case, a plural `s` dropped from names longer than two letters.
fn sniff<'a>(family: &'a UnitFamily, name: &str) -> Option<&'a Unit> {
    let lower = name.to_lowercase();
    let name = match lower.strip_suffix('s') {
        Some(stem) if lower.chars().count() > 2 => stem,
        _ => &lower,
    };
    family.units.iter().find(|u| u.aliases.contains(&name))
}

/// The output unit pprof's `measurement.Scale` targets.
#[derive(Clone, Copy)]
enum Target<'a> {
    /// The largest unit that keeps the value at least 1.
    Minimum,
    /// A named unit.
    Named(&'a str),
}

/// pprof's `measurement.Scale`: `value` in `from` expressed in `to`, with the unit's name.
fn scale<'a>(value: f64, from: &str, to: Target<'a>) -> (f64, &'a str) {
    if value < 0.0 {
        let (v, u) = scale(-value, from, to);
        return (-v, u);
    }
    for family in &UNIT_FAMILIES {
        let Some(from) = sniff(family, from) else {
            continue;
        };
        let base = value * from.factor;
        let default = &family.units[family.default];
        let target = match to {
            Target::Minimum => family
                .units
                .iter()
                .filter(|u| base / u.factor >= 1.0)
                .max_by(|a, b| a.factor.total_cmp(&b.factor))
                .unwrap_or(default),
            Target::Named(name) => sniff(family, name).unwrap_or(default),
        };
        return (base / target.factor, target.name);
    }
    match to {
        Target::Named(name) if !["count", "sample", "unit", "auto"].contains(&name) => {
            (value, name)
        }
        _ => (value, ""),
    }
}

/// pprof's `selectOutputUnit` for rows given as `(flat, cum)` pairs: the unit of the smallest
/// non-zero value shown, or a larger one when that is more than 100 times smaller than the
/// total; the sample unit when the unit has no family.
fn report_unit_of(rows: impl Iterator<Item = (f64, f64)>, total: f64, sample_unit: &str) -> String {
    let min = rows
        .map(|(flat, cum)| match flat.abs() {
            0.0 => cum.abs(),
            v => v,
        })
        .filter(|&v| v > 0.0)
        .min_by(f64::total_cmp)
        .unwrap_or(total);
    let (_, min_unit) = scale(min, sample_unit, Target::Minimum);
    let (_, max_unit) = scale(total, sample_unit, Target::Minimum);
    let unit = if min_unit != max_unit && min * 100.0 < total {
        scale(100.0 * min, sample_unit, Target::Minimum).1
    } else {
        min_unit
    };
    if unit.is_empty() {
        sample_unit.to_owned()
    } else {
        unit.to_owned()
    }
}

/// pprof's `measurement.ScaledLabel`: two decimals, a trailing `.00` dropped, `0` for zero.
fn scaled_label(value: f64, from: &str, to: &str) -> String {
    let (v, suffix) = scale(value, from, Target::Named(to));
    let text = format!("{v:.2}");
    let text = text.strip_suffix(".00").unwrap_or(&text);
    if text == "0" || text == "-0" {
        return "0".to_owned();
    }
    format!("{text}{suffix}")
}

/// `value` as a percentage of `total`, formatted as pprof's `measurement.Percentage`.
fn percentage(value: f64, total: f64) -> String {
    let ratio = if total == 0.0 {
        0.0
    } else {
        (value / total).abs() * 100.0
    };
    if (99.95..=100.05).contains(&ratio) {
        "  100%".to_owned()
    } else if ratio >= 1.0 {
        format!("{ratio:5.2}%")
    } else {
        format!("{:>5}%", go_g2(ratio))
    }
}

/// Go's `%.2g`: two significant digits, trailing zeros dropped, exponent form when the
/// rounded exponent is below -4 or at least 2.
fn go_g2(x: f64) -> String {
    if x == 0.0 {
        return "0".to_owned();
    }
    let sci = format!("{x:.1e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let trim = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_owned()
        } else {
            s.to_owned()
        }
    };
    if !(-4..2).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        return format!("{}e{sign}{:02}", trim(mantissa), exp.abs());
    }
    let decimals = usize::try_from(1 - exp).unwrap_or(0);
    trim(&format!("{x:.decimals$}"))
}

// ---------------------------------------------------------------------------------------------
// convert

/// The output format: `--to`, else from OUT's file name.
fn output_format(args: &Args, out: &str) -> Result<Format, Failure> {
    let writable = || formats::writable_names().join(", ");
    if let Some(name) = args.option("--to") {
        return Format::from_name(name).ok_or_else(|| {
            Failure::usage(format!(
                "unknown format {name:?} for --to; proftab writes: {}",
                writable()
            ))
        });
    }
    Format::from_path(out).ok_or_else(|| {
        Failure::usage(format!(
            "cannot tell the output format from {:?}; name it with --to (one of: {})",
            display_name(out),
            writable()
        ))
    })
}

fn convert(args: &Args) -> CliResult {
    let out = args
        .option("-o")
        .ok_or_else(|| Failure::usage("convert needs -o OUT"))?;
    if args.positional.is_empty() {
        return Err(Failure::usage("convert needs at least one input file"));
    }
    let format = output_format(args, out)?;
    if !format.can_write() {
        return Err(Failure::failed(format!(
            "cannot write {}: not supported yet; proftab writes: {}",
            format.name(),
            formats::writable_names().join(", ")
        )));
    }
    let profile = load_combined(&args.positional)?;
    let value_type = args.option("--type").map(str::to_owned);
    if let Some(t) = value_type.as_deref() {
        chosen_value_type(&profile, Some(t))?;
    }
    let options = WriteOptions {
        value_type,
        source_id: parse_source(args, &profile)?,
    };
    let written = formats::write_as(format, &profile, &options)
        .map_err(|e| Failure::failed(e.to_string()))?;
    print_warnings(out, &written.warnings);
    write_bytes(out, &written.bytes)
}

/// `--source ID`: a 1-based source id of `profile`.
fn parse_source(args: &Args, profile: &Profile) -> Result<Option<usize>, Failure> {
    let Some(v) = args.option("--source") else {
        return Ok(None);
    };
    let n = profile.sources.source_type.len();
    match v.parse::<usize>() {
        Ok(id) if (1..=n).contains(&id) => Ok(Some(id)),
        _ => Err(Failure::usage(format!(
            "--source needs a source id from 1 to {n}, got {v:?}"
        ))),
    }
}

/// Reads every input; several are combined into one profile.
fn load_combined(paths: &[String]) -> Result<Profile, Failure> {
    let mut profiles = Vec::with_capacity(paths.len());
    for path in paths {
        let parsed = load(path)?;
        print_warnings(path, &parsed.warnings);
        profiles.push(parsed.profile);
    }
    if profiles.len() == 1 {
        return profiles
            .pop()
            .ok_or_else(|| Failure::failed("no input profile"));
    }
    combine(&profiles).map_err(|e| Failure::failed(format!("cannot combine the inputs: {e}")))
}

// ---------------------------------------------------------------------------------------------
// validate

fn validate(args: &Args) -> CliResult {
    let path = args.single_file()?;
    let bytes = read_bytes(path)?;
    let name = display_name(path);
    let options = ReadOptions {
        source_uri: (path != "-").then(|| path.to_owned()),
        ..ReadOptions::default()
    };
    let (format, violations) = checks::violations(&bytes, &options)
        .map_err(|e| Failure::failed(format!("{name}: {e}")))?;
    if violations.is_empty() {
        return emit(&format!("{name}: valid {}\n", format.name()));
    }
    let listing: String = violations.iter().map(|v| format!("{v}\n")).collect();
    emit(&listing)?;
    Err(Failure::failed(format!(
        "{name}: not a valid {} profile: {} violation{}",
        format.name(),
        violations.len(),
        if violations.len() == 1 { "" } else { "s" }
    )))
}

/// The validators behind `proftab validate`.
mod checks {
    use proftab::formats::{self, tables_json, Format, ReadError, ReadOptions};
    use proftab::model::{validate_profile, Violation};

    /// The format of `bytes` and every violation found in it. A tables-JSON document is
    /// checked as written (raw tables, v1 or v2 rules by its `meta.version`); any other format
    /// is read and the resulting profile checked.
    pub fn violations(
        bytes: &[u8],
        options: &ReadOptions,
    ) -> Result<(Format, Vec<String>), ReadError> {
        if formats::detect(bytes) == Some(Format::TablesJson) {
            let tables = tables_json::parse_document(bytes)?;
            return Ok((Format::TablesJson, texts(&validate_profile(&tables))));
        }
        let parsed = formats::read_any(bytes, options)?;
        Ok((parsed.format, texts(&parsed.profile.validate())))
    }

    fn texts(violations: &[Violation]) -> Vec<String> {
        violations.iter().map(ToString::to_string).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaled_labels_match_pprof() {
        // Expected strings hand-derived from pprof's measurement.ScaledLabel rules.
        let min = |v: f64, unit: &str| {
            let (_, to) = scale(v, unit, Target::Minimum);
            scaled_label(v, unit, if to.is_empty() { unit } else { to })
        };
        assert_eq!(min(1_500_000_000.0, "nanoseconds"), "1.50s");
        assert_eq!(min(10_000_000.0, "nanoseconds"), "10ms");
        assert_eq!(min(0.0, "nanoseconds"), "0");
        assert_eq!(min(2048.0, "bytes"), "2kB");
        assert_eq!(min(1536.0, "bytes"), "1.50kB");
        assert_eq!(min(7.0, "count"), "7");
        assert_eq!(min(2.5, "count"), "2.50");
        assert_eq!(min(90.0, "microseconds"), "90us");
        assert_eq!(scaled_label(430e6, "nanoseconds", "s"), "0.43s");
        assert_eq!(scaled_label(5.0, "objects", "objects"), "5objects");
        assert_eq!(scaled_label(-2048.0, "bytes", "kB"), "-2kB");
    }

    #[test]
    fn percentages_match_pprof() {
        assert_eq!(percentage(1.0, 1.0), "  100%");
        assert_eq!(percentage(1.0, 3.0), "33.33%");
        assert_eq!(percentage(1.0, 200.0), "  0.5%");
        assert_eq!(percentage(1.0, 30.0), " 3.33%");
        assert_eq!(percentage(0.0, 30.0), "    0%");
        // Expected strings printed by Go's fmt with "%5.2g%%".
        assert_eq!(percentage(1.0, 1234.0), "0.081%");
        assert_eq!(percentage(0.0000999, 1.0), " 0.01%");
        assert_eq!(percentage(1.234e-7, 1.0), "1.2e-05%");
        assert_eq!(percentage(0.99e-2, 1.0), " 0.99%");
        assert_eq!(percentage(1.0, 0.0), "    0%");
    }

    #[test]
    fn arguments_parse() {
        let v = |s: &[&str]| s.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
        let a = Args::parse(
            &v(&["a", "--to=pprof", "-o", "out", "-", "--", "--x"]),
            &[],
            &["-o", "--to"],
        )
        .unwrap();
        assert_eq!(a.positional, ["a", "-", "--x"]);
        assert_eq!(a.option("--to"), Some("pprof"));
        assert_eq!(a.option("-o"), Some("out"));
        assert!(Args::parse(&v(&["--bogus"]), &[], &[]).is_err());
        assert!(Args::parse(&v(&["-o"]), &[], &["-o"]).is_err());
        assert!(Args::parse(&v(&["--json=1"]), &["--json"], &[]).is_err());
    }
}
