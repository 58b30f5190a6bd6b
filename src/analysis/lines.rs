//! The source-line table: self and total per source line (file and line number) for one value
//! type, like `summaryRprof(lines = "show")$by.line` and `go tool pprof -top -lines`.
//!
//! A frame is *at a line* when its location has a line number above 0; the file is its
//! function's `filename`. A sample's value goes, as *self*, to the innermost frame at a line:
//! time spent in code without line information (R builtins, assembly stubs) is charged to the
//! line that called it, as `summaryRprof` does and as a profvis-style code pane shows it. When
//! every frame has a line (most pprof profiles) that is the leaf, as in `go tool pprof -lines`.
//! *Total* counts each line once per sample, wherever it occurs in the stack. An Rprof sample's
//! top-level source reference (`.rprof_toplevel_file` / `.rprof_toplevel_line`, the line that
//! called the outermost function) counts as the outermost line. Samples with no line at all
//! form the row without a location (`summaryRprof`'s `<no location>`).

use crate::analysis::functions::heaviest_first;
use crate::formats::rprof::{COL_TOPLEVEL_FILE, COL_TOPLEVEL_LINE};
use crate::hash::HashMap;
use crate::model::{decode_opt, LocationIndex, Profile, StringId, ValueTypeIndex};

/// A source line: the file (a string id, NA when unknown) and the line number (≥ 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SourceLine {
    /// The file name.
    pub file: StringId,
    /// The line number, 1-based.
    pub line: i32,
}

/// One row of the table.
#[derive(Clone, Debug, PartialEq)]
pub struct LineRow {
    /// The line, or `None` for samples without any line.
    pub line: Option<SourceLine>,
    /// File name text (`""` for the row without a location or an unknown file).
    pub file: String,
    /// The functions of the frames at this line, in order of first appearance (one, unless a
    /// function is defined and called on the same line, as closures often are; none for an
    /// Rprof top-level line or the row without a location).
    pub functions: Vec<String>,
    /// The location of the first frame seen at this line (`None` for an Rprof top-level line
    /// or the row without a location).
    pub first_location: Option<LocationIndex>,
    /// Value of samples whose innermost line is this one.
    pub self_value: f64,
    /// Value of samples with this line anywhere in the stack (once per sample).
    pub total_value: f64,
}

impl LineRow {
    /// `file:line`, or `<no location>`.
    pub fn label(&self) -> String {
        match self.line {
            Some(l) if self.file.is_empty() => format!("<unknown file>:{}", l.line),
            Some(l) => format!("{}:{}", self.file, l.line),
            None => "<no location>".to_owned(),
        }
    }

    /// [`Self::label`] followed by the line's functions: `file:line  f, g`.
    pub fn label_with_functions(&self) -> String {
        if self.functions.is_empty() {
            self.label()
        } else {
            format!("{}  {}", self.label(), self.functions.join(", "))
        }
    }
}

/// The whole table for one value type.
#[derive(Clone, Debug, PartialEq)]
pub struct LineTable {
    /// The value type aggregated.
    pub value_type: ValueTypeIndex,
    /// Sum of the value over the chosen samples.
    pub total: f64,
    /// Rows sorted by self descending, then total descending, then file and line (the row
    /// without a location after the others).
    pub rows: Vec<LineRow>,
}

/// The line of a location, when it has one.
fn location_line(p: &Profile, loc: LocationIndex) -> Option<SourceLine> {
    let line = *p.locations.line.get(loc.idx())?;
    if line <= 0 {
        return None;
    }
    let file = p
        .location_function(loc)
        .and_then(|f| p.functions.filename.get(f.idx()).copied())
        .unwrap_or(StringId::NA);
    Some(SourceLine { file, line })
}

/// The top-level source reference of each sample (Rprof), when the profile has them.
fn toplevel_lines(p: &Profile) -> Option<Vec<Option<SourceLine>>> {
    let files = p.samples.ext.chr(COL_TOPLEVEL_FILE)?;
    let lines = p.samples.ext.int(COL_TOPLEVEL_LINE)?;
    let at = |(&file, &line): (&StringId, &i32)| (line > 0).then_some(SourceLine { file, line });
    Some(files.iter().zip(lines).map(at).collect())
}

/// The value of the chosen samples summed per (stack node, top-level line).
fn weights_by_stack_and_toplevel(
    p: &Profile,
    vt: ValueTypeIndex,
    keep: Option<&dyn Fn(usize) -> bool>,
) -> HashMap<(u32, Option<SourceLine>), f64> {
    let mut weights = HashMap::default();
    let Some(col) = p.value_column(vt) else {
        return weights;
    };
    let toplevel = toplevel_lines(p);
    for (s, &stack) in p.samples.stack.iter().enumerate() {
        if keep.is_some_and(|k| !k(s)) {
            continue;
        }
        let Some(v) = col.get(s) else { continue };
        let top = toplevel.as_ref().and_then(|t| t.get(s).copied().flatten());
        *weights.entry((stack, top)).or_insert(0.0) += v;
    }
    weights
}

/// Rows by line, built up sample group by sample group.
#[derive(Default)]
struct Rows {
    index: HashMap<Option<SourceLine>, usize>,
    rows: Vec<LineRow>,
    /// The group that last added to each row's total (so a line counts once per group).
    last_group: Vec<usize>,
}

impl Rows {
    fn row(&mut self, p: &Profile, line: Option<SourceLine>) -> usize {
        *self.index.entry(line).or_insert_with(|| {
            self.rows.push(LineRow {
                line,
                file: line.map_or(String::new(), |l| p.str(l.file).to_owned()),
                functions: Vec::new(),
                first_location: None,
                self_value: 0.0,
                total_value: 0.0,
            });
            self.last_group.push(usize::MAX);
            self.rows.len() - 1
        })
    }

    /// Adds `w` to the total of `line` (seen at `loc`), once per `group`.
    fn add(
        &mut self,
        p: &Profile,
        line: Option<SourceLine>,
        loc: Option<LocationIndex>,
        group: usize,
        w: f64,
    ) {
        let row = self.row(p, line);
        let first = &mut self.rows[row].first_location;
        *first = first.or(loc);
        let function = loc
            .and_then(|l| p.location_function(l))
            .map_or("", |f| p.str(p.functions.name[f.idx()]));
        let functions = &mut self.rows[row].functions;
        if !function.is_empty() && !functions.iter().any(|f| f == function) {
            functions.push(function.to_owned());
        }
        if self.last_group[row] != group {
            self.last_group[row] = group;
            self.rows[row].total_value += w;
        }
    }
}

/// Which frames of the profile's stacks still count after a view's transforms (see
/// [`crate::analysis::view::View::kept_frames`]): a transformed stack is a subsequence of the
/// original, so the lines of the kept frames are the lines of the transformed profile.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KeptFrames {
    /// Per stack node: whether its frame stays in the transformed stacks.
    pub stack: Vec<bool>,
    /// Whether an Rprof sample's top-level line still counts (a focus re-roots the stacks
    /// below it, so it does not).
    pub toplevel: bool,
}

impl KeptFrames {
    fn keeps(kept: Option<&KeptFrames>, stack_node: usize) -> bool {
        kept.is_none_or(|k| k.stack.get(stack_node).copied().unwrap_or(true))
    }
}

/// Samples of the same stack and top-level line, as [`for_each_line_group`] visits them.
pub(crate) struct LineGroup<'a> {
    /// The frames at a line, leaf first, with their lines.
    pub frames: &'a [(LocationIndex, SourceLine)],
    /// The Rprof top-level line (the outermost line), when the samples have one.
    pub toplevel: Option<SourceLine>,
    /// The summed value of the samples.
    pub value: f64,
}

impl LineGroup<'_> {
    /// The line a group's value goes to as self: its innermost frame at a line, else its
    /// top-level line.
    pub fn innermost(&self) -> Option<SourceLine> {
        self.frames.first().map(|&(_, line)| line).or(self.toplevel)
    }
}

/// Calls `visit(group_number, group)` for every group of the samples of `vt` selected by
/// `keep` (all when `None`) that share a stack and a top-level line, in a fixed order: what a
/// line counts "once per sample" it counts once per group. With `kept`, only the frames it
/// keeps are the group's frames.
pub(crate) fn for_each_line_group(
    p: &Profile,
    vt: ValueTypeIndex,
    keep: Option<&dyn Fn(usize) -> bool>,
    kept: Option<&KeptFrames>,
    mut visit: impl FnMut(usize, &LineGroup<'_>),
) {
    let weights = weights_by_stack_and_toplevel(p, vt, keep);
    let mut groups: Vec<_> = weights.into_iter().collect();
    groups.sort_by_key(|&(key, _)| key);
    let mut frames = Vec::new();
    for (group, &((stack, toplevel), value)) in groups.iter().enumerate() {
        frames.clear();
        let mut node = decode_opt(stack);
        while let Some(s) = node.map(|s| s as usize) {
            let loc = p.stacks.location.at(s);
            if KeptFrames::keeps(kept, s) {
                frames.extend(location_line(p, loc).map(|line| (loc, line)));
            }
            // prefix < s (a model invariant) ends the walk.
            node = decode_opt(p.stacks.prefix.at(s)).filter(|&q| (q as usize) < s);
        }
        let g = LineGroup {
            frames: &frames,
            toplevel: toplevel.filter(|_| kept.is_none_or(|k| k.toplevel)),
            value,
        };
        visit(group, &g);
    }
}

/// Computes the line table of `vt` over the samples selected by `keep` (all when `None`).
pub fn line_table(
    p: &Profile,
    vt: ValueTypeIndex,
    keep: Option<&dyn Fn(usize) -> bool>,
) -> LineTable {
    line_table_kept(p, vt, keep, None)
}

/// [`line_table`] of the frames `kept` keeps (the lines of a transformed view; all frames
/// when `None`).
pub fn line_table_kept(
    p: &Profile,
    vt: ValueTypeIndex,
    keep: Option<&dyn Fn(usize) -> bool>,
    kept: Option<&KeptFrames>,
) -> LineTable {
    let mut rows = Rows::default();
    let mut total = 0.0;
    for_each_line_group(p, vt, keep, kept, |group, g| {
        let w = g.value;
        total += w;
        for &(loc, line) in g.frames {
            rows.add(p, Some(line), Some(loc), group, w);
        }
        if let Some(line) = g.toplevel {
            rows.add(p, Some(line), None, group, w);
        }
        let innermost = g.innermost();
        if innermost.is_none() {
            rows.add(p, None, None, group, w);
        }
        let row = rows.row(p, innermost);
        rows.rows[row].self_value += w;
    });
    let mut rows = rows.rows;
    sort_rows(&mut rows);
    LineTable {
        value_type: vt,
        total,
        rows,
    }
}

fn sort_rows(rows: &mut [LineRow]) {
    rows.sort_by(|a, b| {
        heaviest_first((a.self_value, a.total_value), (b.self_value, b.total_value))
            .then(a.line.is_none().cmp(&b.line.is_none()))
            .then_with(|| a.file.cmp(&b.file))
            .then(a.line.map(|l| l.line).cmp(&b.line.map(|l| l.line)))
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::fixtures::rprof_profile as read;

    /// The line table of the `samples` type (one tick per Rprof line).
    fn ticks(rprof_text: &str) -> LineTable {
        let p = read(rprof_text);
        line_table(&p, p.value_type_index("samples").unwrap(), None)
    }

    /// (self, total) of the row labelled `label`.
    fn at(t: &LineTable, label: &str) -> (f64, f64) {
        let r = t.rows.iter().find(|r| r.label() == label).unwrap();
        (r.self_value, r.total_value)
    }

    /// Counted by hand from the Rprof lines below (one tick each, 10 ms).
    #[test]
    fn self_goes_to_the_innermost_line_and_total_counts_once() {
        let t = ticks(concat!(
            "line profiling: sample.interval=10000\n",
            "#File 1: w.R\n",
            "\"rnorm\" 1#5 \"sim\" 1#26 \"main\" \n",
            "\"c\" 1#5 \"sim\" 1#26 \"main\" \n",
            "1#9 \"f\" 1#9 \"f\" 1#27 \"main\" \n",
            "\"g\" \"h\" \n",
        ));
        assert_eq!(t.total, 4.0);
        assert_eq!(at(&t, "w.R:5"), (2.0, 2.0));
        assert_eq!(t.rows[0].functions, ["sim"]);
        assert_eq!(at(&t, "w.R:26"), (0.0, 2.0));
        // Recursion at one line counts once in total.
        assert_eq!(at(&t, "w.R:9"), (1.0, 1.0));
        assert_eq!(at(&t, "<no location>"), (1.0, 1.0));
        assert_eq!(t.rows[0].label(), "w.R:5");
    }

    #[test]
    fn toplevel_reference_is_the_outermost_line() {
        let t = ticks(concat!(
            "line profiling: sample.interval=10000\n",
            "#File 1: w.R\n",
            "\"rnorm\" \"sim\" 1#3 \n",
            "\"rnorm\" 1#7 \"sim\" 1#3 \n",
        ));
        assert_eq!(at(&t, "w.R:3"), (1.0, 2.0));
        assert_eq!(at(&t, "w.R:7"), (1.0, 1.0));
        assert!(t.rows.iter().all(|r| r.line.is_some()));
    }

    #[test]
    fn filter_selects_samples() {
        let p = read(concat!(
            "line profiling: sample.interval=10000\n",
            "#File 1: w.R\n",
            "\"a\" 1#1 \"m\" \n",
            "\"b\" 1#2 \"m\" \n",
        ));
        let vt = p.value_type_index("samples").unwrap();
        let t = line_table(&p, vt, Some(&|s| s == 1));
        assert_eq!(t.total, 1.0);
        assert_eq!(t.rows.len(), 1);
        assert_eq!(t.rows[0].label(), "w.R:2");
    }
}
