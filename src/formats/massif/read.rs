//! Reading massif output: the header, then snapshot after snapshot (fields, then the tree of a
//! detailed or peak one), one sample per snapshot and one per tree node with bytes of its own.

use super::grammar::{self, Frame, NodeLine, TreeKind, SEPARATOR};
use super::{
    HEAP, MEM_HEAP, MEM_HEAP_EXTRA, MEM_STACKS, NAME, PEAK_HEAP, SAMPLE_SNAPSHOT,
    SAMPLE_SNAPSHOT_TIME,
};
use crate::formats::error::{Place, ReadError, Warnings};
use crate::formats::read_common::{check_sample_limit, finish_parsed, shorten, text_input};
use crate::formats::{Format, Parsed, ReadOptions};
use crate::hash::HashMap;
use crate::model::{
    ext, Cell, ColumnKind, LocationIndex, ProfileBuilder, SourceIndex, StackIndex, ValueTypeIndex,
    META_DEFAULT_TYPE,
};

/// The snapshot fields after `snapshot=N`, in the order massif writes them.
const FIELDS: [&str; 5] = [
    "time",
    "mem_heap_B",
    "mem_heap_extra_B",
    "mem_stacks_B",
    "heap_tree",
];

/// Reads massif output.
pub fn read(bytes: &[u8], options: &ReadOptions) -> Result<Parsed, ReadError> {
    let (text, mut warnings) = text_input(bytes, NAME)?;
    let mut lines = Lines {
        inner: text.lines().enumerate(),
        last: 0,
        pending: None,
    };
    let mut r = Reader::new(options);
    r.header(&mut lines, &mut warnings)?;
    while let Some(number) = lines.next_nonblank() {
        r.snapshot(number, &mut lines, &mut warnings)?;
    }
    r.finish(&mut warnings)?;
    finish_parsed(r.b, Format::Massif, warnings)
}

/// The input's lines with their 1-based numbers, `\r` trimmed.
struct Lines<'t> {
    inner: std::iter::Enumerate<std::str::Lines<'t>>,
    /// Number of the last line taken from `inner`.
    last: usize,
    /// A line looked at but not taken.
    pending: Option<(usize, &'t str)>,
}

impl<'t> Lines<'t> {
    fn next_line(&mut self) -> Option<(usize, &'t str)> {
        let (i, l) = self.inner.next()?;
        self.last = i + 1;
        Some((i + 1, l.trim_end_matches('\r')))
    }

    /// The number of the next non-blank line, left pending for [`Lines::expect`].
    fn next_nonblank(&mut self) -> Option<usize> {
        if let Some((n, _)) = self.pending {
            return Some(n);
        }
        loop {
            let (n, l) = self.next_line()?;
            if !l.trim().is_empty() {
                self.pending = Some((n, l));
                return Some(n);
            }
        }
    }

    /// The next line, which must be there: an error naming `what` was expected at the end.
    fn expect(&mut self, what: &str) -> Result<(usize, &'t str), ReadError> {
        if let Some(p) = self.pending.take() {
            return Ok(p);
        }
        self.next_line().ok_or_else(|| {
            let at = Place::Line(self.last + 1);
            ReadError::new(NAME, at, format!("the file ends where {what} was expected"))
        })
    }
}

/// An error at line `number`: `what` was expected, `line` found.
fn unexpected(number: usize, what: &str, line: &str) -> ReadError {
    let message = format!("expected {what}, found `{}`", shorten(line));
    ReadError::new(NAME, Place::Line(number), message)
}

/// The fields of one snapshot.
struct Snapshot {
    number: i32,
    time: f64,
    heap: f64,
    extra: f64,
    stacks: f64,
    kind: TreeKind,
}

/// A tree node whose children are being read.
struct Open {
    /// `None` for the root.
    loc: Option<LocationIndex>,
    leaf: bool,
    bytes: u64,
    children_left: usize,
    children_bytes: u64,
}

struct Reader<'a> {
    b: ProfileBuilder,
    options: &'a ReadOptions,
    source: SourceIndex,
    /// `peak_heap`, `heap`, `mem_heap`, `mem_heap_extra`, `mem_stacks`.
    types: [ValueTypeIndex; 5],
    locations: HashMap<String, LocationIndex>,
    snapshots: usize,
    peaks: Vec<i32>,
    detailed: usize,
    /// The distinct texts of the trees' roots, in order of appearance.
    alloc_fns: Vec<String>,
}

impl<'a> Reader<'a> {
    fn new(options: &'a ReadOptions) -> Self {
        let mut b = ProfileBuilder::new();
        let source = b.add_source(NAME, options.source_uri.as_deref(), None);
        let types = [PEAK_HEAP, HEAP, MEM_HEAP, MEM_HEAP_EXTRA, MEM_STACKS]
            .map(|t| b.value_type(t, "bytes"));
        b.declare_sample_column(SAMPLE_SNAPSHOT, ColumnKind::Int);
        b.declare_sample_column(SAMPLE_SNAPSHOT_TIME, ColumnKind::Dbl);
        Reader {
            b,
            options,
            source,
            types,
            locations: HashMap::default(),
            snapshots: 0,
            peaks: Vec::new(),
            detailed: 0,
            alloc_fns: Vec::new(),
        }
    }

    /// `desc:`, `cmd:`, `time_unit:` up to the first separator (left pending).
    fn header(&mut self, lines: &mut Lines<'_>, warnings: &mut Warnings) -> Result<(), ReadError> {
        while let Some(number) = lines.next_nonblank() {
            let (_, line) = lines.expect("a header line")?;
            if line == SEPARATOR {
                lines.pending = Some((number, line));
                return Ok(());
            }
            let (key, value) = line.split_once(':').unwrap_or((line, ""));
            let value = value.trim();
            match key {
                "desc" | "cmd" | "time_unit" => self.b.add_meta(&format!("massif.{key}"), value),
                _ => {
                    warnings.add(NAME, "header", || {
                        format!("header lines not understood were skipped (first at line {number})")
                    });
                    continue;
                }
            }
            if key == "cmd" {
                let id = self.b.intern(value);
                let _ = self.b.sources_mut().ext.set(
                    ext::sources::NAME,
                    self.source.idx(),
                    Cell::Chr(id),
                );
            }
        }
        Err(ReadError::whole(NAME, "the file has no snapshot"))
    }

    /// One snapshot, its first line pending: fields, the tree, the samples.
    fn snapshot(
        &mut self,
        first: usize,
        lines: &mut Lines<'_>,
        warnings: &mut Warnings,
    ) -> Result<(), ReadError> {
        let (_, line) = lines.expect(SEPARATOR)?;
        if line != SEPARATOR {
            return Err(unexpected(first, SEPARATOR, line));
        }
        let (n, line) = lines.expect("`snapshot=N`")?;
        let number = grammar::field(line, "snapshot")
            .and_then(|v| v.parse::<i32>().ok())
            .ok_or_else(|| unexpected(n, "`snapshot=N`", line))?;
        let (n, line) = lines.expect(SEPARATOR)?;
        if line != SEPARATOR {
            return Err(unexpected(n, SEPARATOR, line));
        }
        let mut values = [0.0; 4];
        for (key, v) in FIELDS.iter().zip(values.iter_mut()) {
            let (n, line) = lines.expect(&format!("`{key}=`"))?;
            *v = grammar::field(line, key)
                .and_then(|v| v.parse::<u64>().ok())
                .ok_or_else(|| unexpected(n, &format!("`{key}=` and a number"), line))?
                as f64;
        }
        let (n, line) = lines.expect("`heap_tree=`")?;
        let kind = grammar::field(line, "heap_tree")
            .and_then(grammar::tree_kind)
            .ok_or_else(|| unexpected(n, "`heap_tree=empty|detailed|peak`", line))?;
        let [time, heap, extra, stacks] = values;
        let snap = Snapshot {
            number,
            time,
            heap,
            extra,
            stacks,
            kind,
        };
        self.snapshots += 1;
        self.totals_sample(&snap)?;
        match kind {
            TreeKind::Empty => Ok(()),
            TreeKind::Peak => {
                self.peaks.push(number);
                self.tree(&snap, lines, warnings)
            }
            TreeKind::Detailed => self.tree(&snap, lines, warnings),
        }
    }

    /// The snapshot's sample of totals, its stack the frame `snapshot N`.
    fn totals_sample(&mut self, snap: &Snapshot) -> Result<(), ReadError> {
        let name = format!("snapshot {}", snap.number);
        let f = self.b.function_named(&name, None);
        let loc = self.b.location(Some(f), 0);
        let stack = self.b.stack_leaf_first(&[loc]);
        self.add_sample(snap, stack, [0.0, 0.0, snap.heap, snap.extra, snap.stacks])
    }

    fn add_sample(
        &mut self,
        snap: &Snapshot,
        stack: Option<StackIndex>,
        values: [f64; 5],
    ) -> Result<(), ReadError> {
        check_sample_limit(&self.b, Format::Massif, self.options.limits.max_samples)?;
        let pairs: Vec<(ValueTypeIndex, f64)> = self.types.into_iter().zip(values).collect();
        let s = self.b.add_sample_with_values(self.source, stack, &pairs);
        self.b
            .set_sample_ext(s, SAMPLE_SNAPSHOT, Cell::Int(snap.number));
        self.b
            .set_sample_ext(s, SAMPLE_SNAPSHOT_TIME, Cell::Dbl(snap.time));
        Ok(())
    }

    /// The tree of a detailed or peak snapshot, read by its children counts (as ms_print
    /// does; the indentation is not checked).
    fn tree(
        &mut self,
        snap: &Snapshot,
        lines: &mut Lines<'_>,
        warnings: &mut Warnings,
    ) -> Result<(), ReadError> {
        self.detailed += 1;
        let root = next_node(lines, snap.number)?;
        if !self.alloc_fns.iter().any(|t| t == root.text) {
            self.alloc_fns.push(root.text.to_owned());
        }
        if root.bytes as f64 != snap.heap {
            warnings.add(NAME, "root", || {
                format!(
                    "trees whose bytes differ from their snapshot's mem_heap_B were kept as \
                     they are (first: snapshot {}, {} bytes against {})",
                    snap.number, root.bytes, snap.heap
                )
            });
        }
        let mut open = vec![Open {
            loc: None,
            leaf: root.children == 0,
            bytes: root.bytes,
            children_left: root.children,
            children_bytes: 0,
        }];
        let mut path: Vec<LocationIndex> = Vec::new();
        let root_text = root.text.to_owned();
        while let Some(top) = open.last_mut() {
            if top.children_left > 0 {
                top.children_left -= 1;
                let node = next_node(lines, snap.number)?;
                if path.len() >= self.options.limits.max_stack_depth {
                    let max = self.options.limits.max_stack_depth;
                    return Err(ReadError::new(
                        NAME,
                        Place::Line(lines.last),
                        format!("the tree is deeper than {max} frames (the stack depth limit)"),
                    ));
                }
                let loc = self.location(node.text);
                path.push(loc);
                open.push(Open {
                    loc: Some(loc),
                    leaf: node.children == 0,
                    bytes: node.bytes,
                    children_left: node.children,
                    children_bytes: 0,
                });
                continue;
            }
            let Some(node) = open.pop() else { break };
            let own = self.own_bytes(&node, snap.number, warnings);
            let is_leaf = node.leaf && node.loc.is_some();
            if own > 0 || is_leaf {
                let stack = match node.loc {
                    Some(_) => self.b.stack_leaf_first(&path),
                    None => {
                        let loc = self.location(&root_text);
                        self.b.stack_leaf_first(&[loc])
                    }
                };
                let own = own as f64;
                let peak = if snap.kind == TreeKind::Peak {
                    own
                } else {
                    0.0
                };
                self.add_sample(snap, stack, [peak, own, 0.0, 0.0, 0.0])?;
            }
            if node.loc.is_some() {
                path.pop();
            }
            if let Some(parent) = open.last_mut() {
                parent.children_bytes = parent.children_bytes.saturating_add(node.bytes);
            }
        }
        Ok(())
    }

    /// A node's own bytes (its bytes less its children's); 0 with a warning when the children
    /// hold more.
    fn own_bytes(&self, node: &Open, snapshot: i32, warnings: &mut Warnings) -> u64 {
        node.bytes
            .checked_sub(node.children_bytes)
            .unwrap_or_else(|| {
                warnings.add(NAME, "children", || {
                    format!(
                        "nodes whose children hold more bytes than they do were taken as having \
                         none of their own (first in snapshot {snapshot})"
                    )
                });
                0
            })
    }

    /// The location of a node's text, made on first use.
    fn location(&mut self, text: &str) -> LocationIndex {
        if let Some(&l) = self.locations.get(text) {
            return l;
        }
        let loc = match grammar::frame(text) {
            Frame::Code(code) => {
                let (address, file) = (code.address, code.file);
                // `???`: a function named by the address, as the DHAT reader does (an
                // address-only location would be `<unknown>` to `go tool pprof`).
                let unknown;
                let name = match code.function {
                    Some(name) => name,
                    None => {
                        unknown = format!("{address:#x}");
                        &unknown
                    }
                };
                let f = self.b.function_named(name, file);
                let loc = self.b.add_location(Some(f), code.line.max(0));
                self.b
                    .set_location_ext(loc, ext::locations::ADDRESS, Cell::U64(Some(address)));
                if let Some(o) = code.object {
                    let id = self.b.intern(o);
                    self.b
                        .set_location_ext(loc, ext::locations::OBJECT, Cell::Chr(id));
                }
                loc
            }
            Frame::Named(name) => {
                let name = if name.is_empty() { "(no text)" } else { name };
                let f = self.b.function_named(name, None);
                self.b.add_location(Some(f), 0)
            }
        };
        self.locations.insert(text.to_owned(), loc);
        loc
    }

    /// Meta and the default type once every snapshot is read.
    fn finish(&mut self, warnings: &mut Warnings) -> Result<(), ReadError> {
        if self.snapshots == 0 {
            return Err(ReadError::whole(NAME, "the file has no snapshot"));
        }
        for text in std::mem::take(&mut self.alloc_fns) {
            self.b.add_meta("massif.alloc_fns", &text);
        }
        if self.peaks.len() > 1 {
            let peaks = self.peaks.clone();
            warnings.add(NAME, "peaks", || {
                format!("more than one peak snapshot ({peaks:?}); peak_heap holds them all")
            });
        }
        let default = match self.peaks.last() {
            Some(p) => {
                self.b.set_meta("massif.peak_snapshot", &p.to_string());
                PEAK_HEAP
            }
            None if self.detailed > 0 => HEAP,
            None => MEM_HEAP,
        };
        self.b.set_meta(META_DEFAULT_TYPE, default);
        Ok(())
    }
}

/// The next line as a tree node of snapshot `snapshot`.
fn next_node<'t>(lines: &mut Lines<'t>, snapshot: i32) -> Result<NodeLine<'t>, ReadError> {
    let what = format!("a tree node of snapshot {snapshot} (`nK: BYTES …`)");
    let (n, line) = lines.expect(&what)?;
    grammar::node_line(line).ok_or_else(|| unexpected(n, &what, line))
}
