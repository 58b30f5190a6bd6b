//! The source view of functions: self and total per source line of every function whose name
//! matches a regular expression, like `go tool pprof -list REGEX`.
//!
//! The costs are those of the Lines table ([`crate::analysis::lines`]), split by function: a
//! sample's value goes, as *self* (pprof's flat), to its innermost frame at a line, so to the
//! (function, line) of that frame; *total* (pprof's cum) counts each (function, line) once per
//! sample, wherever it occurs in the stack. A function is its name and file, as pprof groups
//! them (function rows of the same name and file are one). Only frames at a line count: a
//! function never seen at a line has no listing. The function's own totals are the sum of its
//! lines' self (pprof's header flat) and the value of the samples with the function anywhere
//! in the stack, once per sample (its `top` cum; pprof's `-list` header instead sums the
//! lines' cum, which counts a sample once per line of the function it passes through).

use regex_lite::Regex;

use crate::analysis::lines::{for_each_line_group, SourceLine};
use crate::hash::HashMap;
use crate::model::{LocationIndex, Profile, StringId, ValueTypeIndex};

/// The cost of one line of a function.
#[derive(Clone, Debug, PartialEq)]
pub struct LineCost {
    /// The line number, 1-based.
    pub line: i32,
    /// Value of samples whose innermost frame at a line is this line of the function.
    pub self_value: f64,
    /// Value of samples with this line of the function anywhere in the stack (once each).
    pub total_value: f64,
}

/// One function's listing.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionSource {
    /// The function's name.
    pub name: String,
    /// Its file name as the profile gives it (`""` when unknown).
    pub file: String,
    /// The first line of the function when the profile knows it (pprof's `start_line`).
    pub start_line: Option<i32>,
    /// Sum of the lines' self.
    pub self_value: f64,
    /// Value of samples with the function at a line anywhere in the stack (once each).
    pub total_value: f64,
    /// The lines with a cost, by line number.
    pub lines: Vec<LineCost>,
}

/// The listing of every matching function.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceListing {
    /// The value type aggregated.
    pub value_type: ValueTypeIndex,
    /// Sum of the value over the chosen samples.
    pub total: f64,
    /// Matching functions with a cost, by name then file.
    pub functions: Vec<FunctionSource>,
}

/// A function being summed: its listing, the last sample group counted in its total, and per
/// line its index in `listing.lines` and the last group counted in that line's total.
struct Entry {
    listing: FunctionSource,
    last_group: usize,
    lines: HashMap<i32, (usize, usize)>,
}

impl Entry {
    /// Adds a frame at `line` of the function, in sample group `group` of value `w`.
    fn add(&mut self, line: i32, group: usize, w: f64, innermost: bool) {
        let lines = &mut self.listing.lines;
        let (i, last) = self.lines.entry(line).or_insert_with(|| {
            lines.push(LineCost {
                line,
                self_value: 0.0,
                total_value: 0.0,
            });
            (lines.len() - 1, usize::MAX)
        });
        let row = &mut lines[*i];
        if innermost {
            row.self_value += w;
            self.listing.self_value += w;
        }
        if *last != group {
            *last = group;
            row.total_value += w;
        }
        if self.last_group != group {
            self.last_group = group;
            self.listing.total_value += w;
        }
    }
}

/// The matching functions found so far, by (name, file).
struct Entries<'a> {
    p: &'a Profile,
    pattern: &'a Regex,
    by_key: HashMap<(StringId, StringId), usize>,
    /// Per function row: its entry, or `None` when its name does not match (filled lazily).
    of_function: HashMap<usize, Option<usize>>,
    entries: Vec<Entry>,
}

impl Entries<'_> {
    /// The entry of the function of `loc`, when it matches.
    fn entry_of(&mut self, loc: LocationIndex) -> Option<usize> {
        let f = self.p.location_function(loc)?.idx();
        if let Some(&e) = self.of_function.get(&f) {
            return e;
        }
        let p = self.p;
        let name = p.functions.name[f];
        let file = p.functions.filename.get(f).copied().unwrap_or(StringId::NA);
        let start = p.functions.start_line.get(f).copied().filter(|&l| l > 0);
        let e = self.pattern.is_match(p.str(name)).then(|| {
            let entries = &mut self.entries;
            let e = *self.by_key.entry((name, file)).or_insert_with(|| {
                entries.push(Entry {
                    listing: FunctionSource {
                        name: p.str(name).to_owned(),
                        file: p.str(file).to_owned(),
                        start_line: None,
                        self_value: 0.0,
                        total_value: 0.0,
                        lines: Vec::new(),
                    },
                    last_group: usize::MAX,
                    lines: HashMap::default(),
                });
                entries.len() - 1
            });
            let known = &mut entries[e].listing.start_line;
            *known = match (*known, start) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            e
        });
        self.of_function.insert(f, e);
        e
    }
}

/// The listing of the functions whose name `pattern` matches, for `vt` over the samples
/// selected by `keep` (all when `None`).
pub fn source_listing(
    p: &Profile,
    vt: ValueTypeIndex,
    pattern: &Regex,
    keep: Option<&dyn Fn(usize) -> bool>,
) -> SourceListing {
    let mut entries = Entries {
        p,
        pattern,
        by_key: HashMap::default(),
        of_function: HashMap::default(),
        entries: Vec::new(),
    };
    let mut total = 0.0;
    for_each_line_group(p, vt, keep, None, |group, g| {
        total += g.value;
        if g.value == 0.0 {
            return;
        }
        // The first frame at a line is the sample's innermost line (see `LineGroup`).
        for (i, &(loc, SourceLine { line, .. })) in g.frames.iter().enumerate() {
            if let Some(e) = entries.entry_of(loc) {
                entries.entries[e].add(line, group, g.value, i == 0);
            }
        }
    });
    let mut functions: Vec<FunctionSource> = entries
        .entries
        .into_iter()
        .map(|e| {
            let mut listing = e.listing;
            listing.lines.sort_by_key(|l| l.line);
            listing
        })
        .collect();
    functions.sort_by(|a, b| a.name.cmp(&b.name).then_with(|| a.file.cmp(&b.file)));
    SourceListing {
        value_type: vt,
        total,
        functions,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::{rprof, ReadOptions};

    fn listing(rprof_text: &str, pattern: &str) -> SourceListing {
        let p = rprof::read(rprof_text.as_bytes(), &ReadOptions::default())
            .unwrap()
            .profile;
        let vt = p.value_type_index("samples").unwrap();
        source_listing(&p, vt, &Regex::new(pattern).unwrap(), None)
    }

    /// (line, self, total) of every line of a function.
    fn costs(f: &FunctionSource) -> Vec<(i32, f64, f64)> {
        f.lines
            .iter()
            .map(|l| (l.line, l.self_value, l.total_value))
            .collect()
    }

    /// Counted by hand from the Rprof lines below (one tick each).
    #[test]
    fn lines_of_matching_functions() {
        let text = concat!(
            "line profiling: sample.interval=10000\n",
            "#File 1: w.R\n",
            "\"rnorm\" 1#5 \"sim\" 1#26 \"main\" \n",
            "\"c\" 1#6 \"sim\" 1#26 \"main\" \n",
            "1#9 \"f\" 1#9 \"f\" 1#27 \"main\" \n",
            "\"g\" \"h\" \n",
        );
        let l = listing(text, "^(sim|main|f)$");
        assert_eq!(l.total, 4.0);
        let names: Vec<&str> = l.functions.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["f", "main", "sim"]);
        let [f, main, sim] = &l.functions[..] else {
            unreachable!()
        };
        // Recursion at one line counts once in total.
        assert_eq!(costs(f), [(9, 1.0, 1.0)]);
        assert_eq!((f.self_value, f.total_value), (1.0, 1.0));
        assert_eq!(costs(main), [(26, 0.0, 2.0), (27, 0.0, 1.0)]);
        assert_eq!((main.self_value, main.total_value), (0.0, 3.0));
        assert_eq!(costs(sim), [(5, 1.0, 1.0), (6, 1.0, 1.0)]);
        assert_eq!(sim.file, "w.R");
        assert!(listing(text, "^nothing$").functions.is_empty());
    }

    #[test]
    fn filter_selects_samples() {
        let text = concat!(
            "line profiling: sample.interval=10000\n",
            "#File 1: w.R\n",
            "\"a\" 1#1 \"m\" \n",
            "\"b\" 1#2 \"m\" \n",
        );
        let p = rprof::read(text.as_bytes(), &ReadOptions::default())
            .unwrap()
            .profile;
        let vt = p.value_type_index("samples").unwrap();
        let l = source_listing(&p, vt, &Regex::new("m").unwrap(), Some(&|s| s == 1));
        assert_eq!(l.total, 1.0);
        assert_eq!(costs(&l.functions[0]), [(2, 1.0, 1.0)]);
    }
}
