//! `proftab list REGEX FILE... [--source-dir DIR] [--type TYPE] [--json]`: the source lines of
//! every function whose name matches REGEX with their self and total, like `go tool pprof
//! -list REGEX`.
//!
//! Invariants, as `go tool pprof -list` (its `printSource` / `getSourceFromFile`) does it:
//! - functions by name, then file; a header (`ROUTINE`, the function's flat and cum and the
//!   cum's share of the total), then its lines with values scaled one by one to the largest
//!   unit that keeps them at least 1, `.` for zero;
//! - the lines shown run from the function's start line (when the profile has one, else
//!   5 lines before its first line with a cost) to 5 lines after its last line with a cost,
//!   ending early where the source file ends; every line with a cost is shown, also when no
//!   source file is found (then without text, and a warning names the file);
//! - the source of a file is looked up under `--source-dir DIR` by the longest suffix of the
//!   profile's path that exists there (Go module paths, absolute paths of another machine),
//!   else at the profile's path as it is.
//!
//! The header's cum is the function's own total, once per sample (`top`'s cum); pprof's sums
//! its lines' cum instead.

use std::path::{Path, PathBuf};

use regex_lite::Regex;
use serde_json::{json, Value};

use crate::analysis::source::{source_listing, FunctionSource};
use crate::hash::HashMap;
use crate::model::{Profile, ValueTypeIndex};

use crate::cli::args::{chosen_value_type, Files, Matches, Opt, Verb, JSON};
use crate::cli::host::{self, Kind};
use crate::cli::input::{load_combined, Stacks};
use crate::cli::output::{emit, num, print_json, say, CliResult, Failure};
use crate::cli::units::{minimum_label, percentage};

/// Lines shown before the first and after the last line with a cost (pprof's `margin`).
const MARGIN: i32 = 5;

/// Largest source file read; a larger one is treated as not found.
const MAX_SOURCE_BYTES: u64 = 64 << 20;

/// `--source-dir DIR`.
const SOURCE_DIR: Opt = Opt {
    name: "--source-dir",
    value: Some("DIR"),
    help: "where to look for source files: the longest suffix of a profile path under DIR",
};

/// The command line of `proftab list`.
pub const VERB: Verb = Verb {
    name: "list",
    synopsis: "REGEX FILE... [--source-dir DIR] [--type TYPE] [--json]",
    about: "the source lines of the functions whose name matches REGEX with their self (flat)
and total (cum), like `go tool pprof -list`: lines from 5 before the first line
with a cost to 5 after the last; several FILEs are combined into one profile",
    options: &[
        SOURCE_DIR,
        Opt {
            name: "--type",
            value: Some("TYPE"),
            help: "the value type reported (default: the profile's default type)",
        },
        JSON,
    ],
    files: Files::Read,
};

/// One line shown: number, self, total and the source text when found.
struct Shown {
    line: i32,
    self_value: f64,
    total_value: f64,
    text: Option<String>,
}

/// Runs `proftab list`.
pub fn run(args: &Matches) -> CliResult {
    let (pattern, files) = match args.operands.split_first() {
        Some((pattern, files)) if !files.is_empty() => (pattern, files),
        _ => return Err(Failure::usage("list needs a REGEX and at least one FILE")),
    };
    let regex = Regex::new(pattern)
        .map_err(|e| Failure::usage(format!("invalid REGEX {pattern:?}: {e}")))?;
    let source_dir = args.value(SOURCE_DIR.name).map(PathBuf::from);
    if let Some(dir) = &source_dir {
        if host::kind(dir) != Kind::Dir {
            return Err(Failure::failed(format!(
                "--source-dir {}: no such directory",
                dir.display()
            )));
        }
    }
    let p = load_combined(files, Stacks::AsPprof)?;
    let vt = chosen_value_type(&p, args.value("--type"))?;
    let listing = source_listing(&p, vt, &regex, None);
    if listing.functions.is_empty() {
        return Err(Failure::failed(format!(
            "no function with a source line matches {pattern:?}"
        )));
    }
    let mut sources = Sources {
        dir: source_dir,
        files: HashMap::default(),
    };
    let shown: Vec<Vec<Shown>> = listing
        .functions
        .iter()
        .map(|f| shown_lines(f, sources.lines(&f.file)))
        .collect();
    let (ty, unit) = p.value_type_names(vt);
    if args.flag(JSON.name) {
        print_json(&list_json(
            ty,
            unit,
            listing.total,
            &listing.functions,
            &shown,
        ))
    } else {
        emit(&list_text(
            &p,
            vt,
            listing.total,
            &listing.functions,
            &shown,
        ))
    }
}

/// The source files read so far, by the profile's file name (`None`: not found).
struct Sources {
    dir: Option<PathBuf>,
    files: HashMap<String, Option<Vec<String>>>,
}

impl Sources {
    /// The lines of the source of `file`, read once; a warning when it is not found.
    fn lines(&mut self, file: &str) -> Option<&[String]> {
        if !self.files.contains_key(file) {
            let found = find_source(self.dir.as_deref(), file).and_then(|path| read_lines(&path));
            if found.is_none() && !file.is_empty() {
                let under = self
                    .dir
                    .as_ref()
                    .map_or(String::new(), |d| format!(" (nor under {})", d.display()));
                say(&format!(
                    "warning: source file {file} not found{under}; lines shown without text"
                ));
            }
            self.files.insert(file.to_owned(), found);
        }
        self.files.get(file).and_then(|f| f.as_deref())
    }
}

/// Where the source of `file` is: the longest suffix of its path that exists under `dir`,
/// else `file` itself when it exists.
fn find_source(dir: Option<&Path>, file: &str) -> Option<PathBuf> {
    if file.is_empty() {
        return None;
    }
    if let Some(dir) = dir {
        let parts: Vec<&str> = file
            .split(['/', '\\'])
            .filter(|c| !c.is_empty() && *c != "." && *c != "..")
            .collect();
        for start in 0..parts.len() {
            let candidate = parts[start..]
                .iter()
                .fold(dir.to_path_buf(), |p, c| p.join(c));
            if host::kind(&candidate) == Kind::File {
                return Some(candidate);
            }
        }
    }
    let as_is = Path::new(file);
    (host::kind(as_is) == Kind::File).then(|| as_is.to_path_buf())
}

/// The lines of a text file (invalid UTF-8 replaced); `None` when it cannot be read or is
/// larger than [`MAX_SOURCE_BYTES`].
fn read_lines(path: &Path) -> Option<Vec<String>> {
    if host::with(|h| h.stat(path)).ok()?.1 > MAX_SOURCE_BYTES {
        return None;
    }
    let bytes = host::with(|h| h.read(path)).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    Some(
        text.lines()
            .map(|l| l.strip_suffix('\r').unwrap_or(l).to_owned())
            .collect(),
    )
}

/// The lines of `f` to show: with a source, from its start (or [`MARGIN`] lines before its
/// first line with a cost) to [`MARGIN`] lines after its last, as far as the source goes;
/// every line with a cost in any case.
fn shown_lines(f: &FunctionSource, source: Option<&[String]>) -> Vec<Shown> {
    let costs: HashMap<i32, (f64, f64)> = f
        .lines
        .iter()
        .map(|l| (l.line, (l.self_value, l.total_value)))
        .collect();
    let (Some(first), Some(last)) = (f.lines.first(), f.lines.last()) else {
        return Vec::new();
    };
    let start = f
        .start_line
        .filter(|&s| s <= first.line)
        .unwrap_or(first.line.saturating_sub(MARGIN))
        .max(1);
    let end = last.line.saturating_add(MARGIN);
    let text_of = |line: i32| {
        let i = usize::try_from(line).ok()?.checked_sub(1)?;
        source.and_then(|s| s.get(i)).cloned()
    };
    (start..=end)
        .filter_map(|line| {
            let text = text_of(line);
            let cost = costs.get(&line).copied();
            if text.is_none() && cost.is_none() {
                return None;
            }
            let (self_value, total_value) = cost.unwrap_or((0.0, 0.0));
            Some(Shown {
                line,
                self_value,
                total_value,
                text,
            })
        })
        .collect()
}

/// The report of `go tool pprof -list`.
fn list_text(
    p: &Profile,
    vt: ValueTypeIndex,
    total: f64,
    functions: &[FunctionSource],
    shown: &[Vec<Shown>],
) -> String {
    let unit = p.value_type_names(vt).1.to_lowercase();
    let label = |v: f64| minimum_label(v, &unit);
    let value_or_dot = |v: f64| if v == 0.0 { ".".to_owned() } else { label(v) };
    let mut out = format!("Total: {}\n", label(total));
    for (f, lines) in functions.iter().zip(shown) {
        out.push_str(&format!(
            "ROUTINE ======================== {} in {}\n",
            f.name, f.file
        ));
        out.push_str(&format!(
            "{:>10} {:>10} (flat, cum) {} of Total\n",
            label(f.self_value),
            label(f.total_value),
            percentage(f.total_value, total)
        ));
        for l in lines {
            out.push_str(&format!(
                "{:>10} {:>10} {:>6}:{}\n",
                value_or_dot(l.self_value),
                value_or_dot(l.total_value),
                l.line,
                l.text.as_deref().unwrap_or("")
            ));
        }
    }
    out
}

/// `{"type","unit","total","functions":[{"name","file","self","total","lines":[…]}]}`.
fn list_json(
    ty: &str,
    unit: &str,
    total: f64,
    functions: &[FunctionSource],
    shown: &[Vec<Shown>],
) -> Value {
    let functions: Vec<Value> = functions
        .iter()
        .zip(shown)
        .map(|(f, lines)| {
            let lines: Vec<Value> = lines
                .iter()
                .map(|l| {
                    json!({"line": l.line, "self": num(l.self_value),
                           "total": num(l.total_value), "text": l.text})
                })
                .collect();
            json!({"name": f.name, "file": f.file, "self": num(f.self_value),
                   "total": num(f.total_value), "lines": lines})
        })
        .collect();
    json!({"type": ty, "unit": unit, "total": num(total), "functions": functions})
}
