//! Reading `pmcstat -G` output: event headers, chains of caller rows, one sample per node with
//! samples of its own.

use super::NAME;
use crate::formats::error::{Place, ReadError, Warnings};
use crate::formats::read_common::{check_sample_limit, finish_parsed, text_input};
use crate::formats::{Format, Parsed, ReadOptions};
use crate::hash::HashMap;
use crate::model::{ext, Cell, LocationIndex, ProfileBuilder, SourceIndex, ValueTypeIndex};

/// A row: leading spaces, count, function name, object (`@ …`).
pub(super) struct Row<'t> {
    pub indent: usize,
    pub count: f64,
    pub name: &'t str,
    pub object: Option<&'t str>,
}

/// `@ EVENT [N samples]` → (event, N).
pub(super) fn event_header(line: &str) -> Option<(&str, f64)> {
    let rest = line.strip_prefix("@ ")?.strip_suffix(" samples]")?;
    let (event, n) = rest.rsplit_once(" [")?;
    Some((event.trim(), n.parse().ok()?))
}

/// Comment lines (`#`, `//`), skipped like other non-rows but not counted by the detector.
pub(super) fn is_comment(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with('#') || t.starts_with("//")
}

/// `␠␠12.5%  [123]   name @ object`.
pub(super) fn row(line: &str) -> Option<Row<'_>> {
    let body = line.trim_start_matches(' ');
    let indent = line.len() - body.len();
    let (pct, rest) = body.split_once('%')?;
    pct.parse::<f64>().ok()?;
    let rest = rest.trim_start().strip_prefix('[')?;
    let (count, rest) = rest.split_once(']')?;
    let count: u64 = count.parse().ok()?;
    let rest = rest.trim();
    let (name, object) = match rest.split_once(" @ ") {
        Some((n, o)) => (n.trim_end(), Some(o.trim())),
        None => (rest, None),
    };
    (!name.is_empty()).then_some(Row {
        indent,
        count: count as f64,
        name,
        object,
    })
}

/// Reads `pmcstat -G` output.
pub fn read(bytes: &[u8], options: &ReadOptions) -> Result<Parsed, ReadError> {
    let (text, mut warnings) = text_input(bytes, NAME)?;
    let mut r = Reader {
        b: ProfileBuilder::new(),
        options,
        event: None,
        chain: Vec::new(),
        locations: HashMap::default(),
    };
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim_end_matches('\r');
        let number = i + 1;
        if line.trim().is_empty() {
            r.end_chain()?;
        } else if let Some((event, n)) = event_header(line) {
            r.end_event(&mut warnings)?;
            r.start_event(event, n);
        } else if let Some(row) = row(line) {
            r.row(number, &row)?;
        } else {
            warnings.add(NAME, "skipped", || {
                format!("lines that are not call-graph rows were skipped (first at line {number})")
            });
        }
    }
    r.end_event(&mut warnings)?;
    if r.b.num_samples() == 0 {
        return Err(ReadError::whole(NAME, "the file has no call-graph rows"));
    }
    finish_parsed(r.b, Format::Pmcstat, warnings)
}

/// The event being read.
struct Event {
    name: String,
    header_samples: f64,
    source: SourceIndex,
    vt: ValueTypeIndex,
    /// Sum of the chains' first counts.
    total: f64,
}

/// A node of the current chain: its location, count, the sum of its callers' counts, its
/// object.
struct Node {
    loc: LocationIndex,
    count: f64,
    callers: f64,
    object: Option<String>,
}

struct Reader<'a> {
    b: ProfileBuilder,
    options: &'a ReadOptions,
    event: Option<Event>,
    /// The path from the chain's sampled function to the current row.
    chain: Vec<Node>,
    locations: HashMap<(String, Option<String>), LocationIndex>,
}

impl Reader<'_> {
    fn start_event(&mut self, name: &str, header_samples: f64) {
        let source = self
            .b
            .add_source(NAME, self.options.source_uri.as_deref(), None);
        let id = self.b.intern(name);
        let _ = self
            .b
            .sources_mut()
            .ext
            .set(ext::sources::NAME, source.idx(), Cell::Chr(id));
        let vt = self.b.value_type(name, "count");
        self.event = Some(Event {
            name: name.to_owned(),
            header_samples,
            source,
            vt,
            total: 0.0,
        });
    }

    fn end_event(&mut self, warnings: &mut Warnings) -> Result<(), ReadError> {
        self.end_chain()?;
        if let Some(e) = self.event.take() {
            if e.total != e.header_samples {
                warnings.add(NAME, "sum", || {
                    format!(
                        "event {}: the chains hold {} of the {} samples its header names",
                        e.name, e.total, e.header_samples
                    )
                });
            }
        }
        Ok(())
    }

    fn row(&mut self, number: usize, row: &Row<'_>) -> Result<(), ReadError> {
        let at = Place::Line(number);
        let Some(event) = &mut self.event else {
            return Err(ReadError::new(
                NAME,
                at,
                "a row before any `@ EVENT` header",
            ));
        };
        let depth = row.indent;
        if depth == 0 {
            event.total += row.count;
        } else if self.chain.is_empty() {
            return Err(ReadError::new(
                NAME,
                at,
                "the first row of a chain is indented",
            ));
        } else if depth > self.chain.len() {
            let levels = depth - self.chain.len() + 1;
            let message = format!("the row is {levels} levels below the row above (one expected)");
            return Err(ReadError::new(NAME, at, message));
        }
        if depth >= self.options.limits.max_stack_depth {
            let max = self.options.limits.max_stack_depth;
            let message = format!("the stack is deeper than {max} frames (the stack depth limit)");
            return Err(ReadError::new(NAME, at, message));
        }
        self.close_to(depth)?;
        let object = row
            .object
            .map(str::to_owned)
            .or_else(|| self.chain.last().and_then(|n| n.object.clone()));
        if let Some(parent) = self.chain.last_mut() {
            parent.callers += row.count;
        }
        let loc = self.location(row.name, object.as_deref());
        self.chain.push(Node {
            loc,
            count: row.count,
            callers: 0.0,
            object,
        });
        Ok(())
    }

    /// Closes the nodes deeper than `depth` - 1, emitting their own samples.
    fn close_to(&mut self, depth: usize) -> Result<(), ReadError> {
        while self.chain.len() > depth {
            let node = self
                .chain
                .last()
                .map(|n| n.count - n.callers)
                .unwrap_or(0.0);
            if node > 0.0 {
                self.emit(node)?;
            }
            self.chain.pop();
        }
        Ok(())
    }

    fn end_chain(&mut self) -> Result<(), ReadError> {
        self.close_to(0)
    }

    /// A sample for the current chain path with `value`.
    fn emit(&mut self, value: f64) -> Result<(), ReadError> {
        check_sample_limit(&self.b, Format::Pmcstat, self.options.limits.max_samples)?;
        let Some(event) = &self.event else {
            return Ok(());
        };
        let (source, vt) = (event.source, event.vt);
        let frames: Vec<LocationIndex> = self.chain.iter().map(|n| n.loc).collect();
        let stack = self.b.stack_leaf_first(&frames);
        let s = self.b.add_sample(source, stack);
        self.b.set_value(s, vt, value);
        Ok(())
    }

    fn location(&mut self, name: &str, object: Option<&str>) -> LocationIndex {
        let key = (name.to_owned(), object.map(str::to_owned));
        if let Some(&l) = self.locations.get(&key) {
            return l;
        }
        let f = self.b.function_named(name, None);
        let l = self.b.add_location(Some(f), 0);
        if let Some(o) = object {
            let id = self.b.intern(o);
            self.b
                .set_location_ext(l, ext::locations::OBJECT, Cell::Chr(id));
        }
        self.locations.insert(key, l);
        l
    }
}
