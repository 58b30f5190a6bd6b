//! The Source view's costs: per source file and per line, self and total of every value type
//! at once (time, memory allocated, freed… side by side, as profvis shows them).
//!
//! The costs are those of the Lines table ([`crate::analysis::lines`]): a sample's value goes,
//! as *self*, to its innermost line; *total* counts each line once per sample, wherever it is
//! in the stack. A file's self is the sum of its lines' self; its total counts each sample
//! with any of its lines once. Samples without any line are in no file.

use crate::analysis::lines::{for_each_line_group, KeptFrames, SourceLine};
use crate::hash::HashMap;
use crate::model::{LocationIndex, Profile, StringId, ValueTypeIndex};

/// One line of a file.
#[derive(Clone, Debug, PartialEq)]
pub struct LineCosts {
    /// The line number, 1-based.
    pub line: i32,
    /// Per value type: the value of samples whose innermost line is this one.
    pub self_value: Vec<f64>,
    /// Per value type: the value of samples with this line anywhere in the stack (once each).
    pub total_value: Vec<f64>,
    /// The locations of the frames seen at this line, in order of first appearance (none for
    /// an Rprof top-level line).
    pub locations: Vec<LocationIndex>,
}

/// One source file and its lines with a cost.
#[derive(Clone, Debug, PartialEq)]
pub struct FileCosts {
    /// The file's string id (NA when unknown).
    pub file: StringId,
    /// Its name as the profile gives it (`""` when unknown).
    pub name: String,
    /// Per value type: the sum of the lines' self.
    pub self_value: Vec<f64>,
    /// Per value type: the value of samples with a line of this file in the stack (once each).
    pub total_value: Vec<f64>,
    /// The lines, by line number.
    pub lines: Vec<LineCosts>,
}

/// Every file with lines in the chosen samples.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SourceFiles {
    /// Per value type: the value of the chosen samples.
    pub totals: Vec<f64>,
    /// Files by total of the value type asked for, heaviest first, then by name.
    pub files: Vec<FileCosts>,
}

/// The files and lines being summed, and which sample group last added to each total.
struct Sums {
    types: usize,
    files: Vec<FileCosts>,
    file_of: HashMap<StringId, usize>,
    line_of: HashMap<SourceLine, (usize, usize)>,
    last_file: Vec<usize>,
    last_line: HashMap<SourceLine, usize>,
}

impl Sums {
    /// The (file, line) indices of `at`, added when new.
    fn line(&mut self, p: &Profile, at: SourceLine) -> (usize, usize) {
        if let Some(&i) = self.line_of.get(&at) {
            return i;
        }
        let n = self.types;
        let f = *self.file_of.entry(at.file).or_insert_with(|| {
            self.files.push(FileCosts {
                file: at.file,
                name: p.str(at.file).to_owned(),
                self_value: vec![0.0; n],
                total_value: vec![0.0; n],
                lines: Vec::new(),
            });
            self.last_file.push(usize::MAX);
            self.files.len() - 1
        });
        let lines = &mut self.files[f].lines;
        lines.push(LineCosts {
            line: at.line,
            self_value: vec![0.0; n],
            total_value: vec![0.0; n],
            locations: Vec::new(),
        });
        let i = (f, lines.len() - 1);
        self.line_of.insert(at, i);
        i
    }

    /// Adds `w` of value type `vt` to the total of `at` (seen at `loc`) and of its file, once
    /// per `group`.
    fn add(
        &mut self,
        p: &Profile,
        at: SourceLine,
        loc: Option<LocationIndex>,
        vt: usize,
        group: usize,
        w: f64,
    ) {
        let (f, l) = self.line(p, at);
        let row = &mut self.files[f].lines[l];
        if let Some(loc) = loc.filter(|loc| !row.locations.contains(loc)) {
            row.locations.push(loc);
        }
        let last = self.last_line.entry(at).or_insert(usize::MAX);
        if *last != group {
            *last = group;
            row.total_value[vt] += w;
        }
        if self.last_file[f] != group {
            self.last_file[f] = group;
            self.files[f].total_value[vt] += w;
        }
    }
}

/// The files and lines of every value type over the samples `keep` selects (all when `None`),
/// of the frames `kept` keeps (all when `None`); files ordered by the total of `order_by`.
pub fn source_files(
    p: &Profile,
    keep: Option<&dyn Fn(usize) -> bool>,
    kept: Option<&KeptFrames>,
    order_by: ValueTypeIndex,
) -> SourceFiles {
    let types = p.values.len();
    let mut sums = Sums {
        types,
        files: Vec::new(),
        file_of: HashMap::default(),
        line_of: HashMap::default(),
        last_file: Vec::new(),
        last_line: HashMap::default(),
    };
    let mut totals = vec![0.0; types];
    for (vt, total) in totals.iter_mut().enumerate() {
        sums.last_line.clear();
        sums.last_file.iter_mut().for_each(|g| *g = usize::MAX);
        let index = ValueTypeIndex(vt as u32);
        for_each_line_group(p, index, keep, kept, |group, g| {
            let w = g.value;
            *total += w;
            for &(loc, line) in g.frames {
                sums.add(p, line, Some(loc), vt, group, w);
            }
            if let Some(line) = g.toplevel {
                sums.add(p, line, None, vt, group, w);
            }
            if let Some(at) = g.innermost() {
                let (f, l) = sums.line(p, at);
                sums.files[f].lines[l].self_value[vt] += w;
                sums.files[f].self_value[vt] += w;
            }
        });
    }
    let mut files = sums.files;
    for f in &mut files {
        f.lines.sort_by_key(|l| l.line);
    }
    let o = order_by.0 as usize;
    let weight = |f: &FileCosts| f.total_value.get(o).copied().unwrap_or(0.0);
    files.sort_by(|a, b| {
        weight(b)
            .total_cmp(&weight(a))
            .then_with(|| a.name.cmp(&b.name))
    });
    SourceFiles { totals, files }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::fixtures::rprof_profile as read;
    use crate::analysis::lines::line_table;

    const TEXT: &str = concat!(
        "memory profiling: line profiling: sample.interval=10000\n",
        "#File 1: w.R\n",
        "#File 2: u.R\n",
        ":100:2000:0:0:\"rnorm\" 1#5 \"sim\" 1#26 \"main\" \n",
        ":100:4000:0:0:\"c\" 1#5 \"sim\" 1#26 \"main\" \n",
        ":100:4000:0:0:2#3 \"f\" 2#3 \"f\" 1#27 \"main\" \n",
        ":100:4000:0:0:\"g\" \"h\" \n",
    );

    /// Every line's costs equal the Lines table's, for every value type; the file totals count
    /// a sample once.
    #[test]
    fn lines_of_every_type_equal_the_line_table() {
        let p = read(TEXT);
        let s = source_files(&p, None, None, ValueTypeIndex(0));
        assert!(p.values.len() >= 2);
        for vt in 0..p.values.len() {
            let t = line_table(&p, ValueTypeIndex(vt as u32), None);
            assert_eq!(s.totals[vt], t.total);
            let mut seen = 0;
            for row in t.rows.iter().filter(|r| r.line.is_some()) {
                let f = s.files.iter().find(|f| f.name == row.file).unwrap();
                let line = row.line.unwrap().line;
                let l = f.lines.iter().find(|l| l.line == line).unwrap();
                assert_eq!(
                    (l.self_value[vt], l.total_value[vt]),
                    (row.self_value, row.total_value)
                );
                seen += 1;
            }
            assert_eq!(seen, s.files.iter().map(|f| f.lines.len()).sum::<usize>());
        }
        let samples = p.value_type_index("samples").unwrap().0 as usize;
        let names: Vec<&str> = s.files.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["w.R", "u.R"]);
        // w.R: three samples touch it; its lines' self: 2 at line 5 (u.R's line 3 has the third).
        assert_eq!(
            (
                s.files[0].self_value[samples],
                s.files[0].total_value[samples]
            ),
            (2.0, 3.0)
        );
        assert_eq!(
            (
                s.files[1].self_value[samples],
                s.files[1].total_value[samples]
            ),
            (1.0, 1.0)
        );
        let lines: Vec<i32> = s.files[0].lines.iter().map(|l| l.line).collect();
        assert_eq!(lines, [5, 26, 27]);
        // Line 5 is where `sim` runs; two frames of `f` at u.R:3 are one location each.
        assert_eq!(s.files[0].lines[0].locations.len(), 1);
        assert!(!s.files[1].lines[0].locations.is_empty());
    }

    #[test]
    fn filter_and_kept_frames_apply() {
        let p = read(TEXT);
        let samples = p.value_type_index("samples").unwrap();
        let s = source_files(&p, Some(&|s| s == 2), None, samples);
        assert_eq!(s.files[0].name, "u.R");
        assert_eq!(s.totals[samples.0 as usize], 1.0);
        // Keeping no frame leaves no line.
        let none = KeptFrames {
            stack: vec![false; p.stacks.prefix.len()],
            toplevel: false,
        };
        assert!(source_files(&p, None, Some(&none), samples)
            .files
            .is_empty());
    }
}
