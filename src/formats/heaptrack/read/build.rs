//! The profile: a location per frame of each used ip, a stack node per used trace node, and a
//! sample per row of the event replay; the run's facts as meta.

use super::events::{Events, Row};
use super::records::{Ip, Tables};
use super::RunMeta;
use crate::formats::error::{Place, ReadError, Warnings};
use crate::formats::heaptrack::NAME;
use crate::formats::read_common::check_sample_limit;
use crate::formats::{Format, ReadOptions, Warning};
use crate::model::{
    ext, Cell, ColumnKind, LocationIndex, ProfileBuilder, StackIndex, ValueTypeIndex,
    META_DEFAULT_TYPE,
};

/// The value types, in order, and their units.
const VALUE_TYPES: [(&str, &str); 5] = [
    ("allocations", "count"),
    ("temporary", "count"),
    ("allocated", "bytes"),
    ("peak", "bytes"),
    ("leaked", "bytes"),
];

/// Fills a builder from the tables and the replayed events.
pub(super) fn build(
    tables: &Tables,
    events: &Events,
    meta: &RunMeta,
    options: &ReadOptions,
    warnings: &mut Warnings,
) -> Result<ProfileBuilder, ReadError> {
    let mut s = Stacks {
        b: ProfileBuilder::new(),
        tables,
        ip_locations: vec![Vec::new(); tables.ips.len()],
        trace_stacks: vec![None; tables.traces.len()],
        max_depth: options.limits.max_stack_depth,
    };
    set_meta(&mut s.b, meta);
    let types: Vec<ValueTypeIndex> = VALUE_TYPES
        .iter()
        .map(|(t, u)| s.b.value_type(t, u))
        .collect();
    s.b.set_meta(META_DEFAULT_TYPE, VALUE_TYPES[0].0);
    s.b.declare_sample_column(ext::samples::TIME, ColumnKind::Dbl);
    let source = s.b.add_source(NAME, options.source_uri.as_deref(), None);
    for row in &events.rows {
        check_sample_limit(&s.b, Format::Heaptrack, options.limits.max_samples)?;
        let info = tables.infos[row.info as usize];
        let stack = s.trace_stack(info.trace)?;
        let sample = s.b.add_sample(source, stack);
        for (vt, v) in types.iter().zip(values(row, info.size)) {
            s.b.set_value(sample, *vt, v);
        }
        let secs = row.time_ms as f64 / 1000.0;
        s.b.set_sample_ext(sample, ext::samples::TIME, Cell::Dbl(secs));
    }
    if tables.folded > 0 {
        warnings.push(Warning::new(
            NAME,
            "trace nodes in `operator new` were folded into their callers, as heaptrack does",
            tables.folded,
        ));
    }
    Ok(s.b)
}

/// The values of a row, in [`VALUE_TYPES`] order.
fn values(row: &Row, size: u64) -> [f64; 5] {
    let bytes = |n: u64| n as f64 * size as f64;
    [
        row.calls as f64,
        row.temporary as f64,
        bytes(row.calls),
        bytes(row.at_peak),
        bytes(row.live),
    ]
}

/// The run's facts as `heaptrack.*` meta.
fn set_meta(b: &mut ProfileBuilder, meta: &RunMeta) {
    if let Some(v) = meta.version {
        let text = format!("{}.{}.{}", v >> 16, (v >> 8) & 0xff, v & 0xff);
        b.set_meta("heaptrack.version", &text);
    }
    b.set_meta("heaptrack.file_version", &meta.file_version.to_string());
    if let Some(c) = &meta.command {
        b.set_meta("heaptrack.command", c);
    }
    if let Some(p) = meta.page_size {
        b.set_meta("heaptrack.page_size", &p.to_string());
        let rss = meta.peak_rss_pages.saturating_mul(p);
        b.set_meta("heaptrack.peak_rss", &rss.to_string());
    }
    if let Some(p) = meta.pages {
        b.set_meta("heaptrack.pages", &p.to_string());
    }
    b.set_meta("heaptrack.total_time_ms", &meta.total_time_ms.to_string());
    if meta.attached {
        b.set_meta("heaptrack.attached", "true");
    }
    for s in &meta.suppressions {
        b.add_meta("heaptrack.suppression", s);
    }
}

/// Locations and stack nodes, made when a sample first needs them.
struct Stacks<'t> {
    b: ProfileBuilder,
    tables: &'t Tables,
    /// Per ip: its locations, innermost first (empty until made).
    ip_locations: Vec<Vec<LocationIndex>>,
    /// Per trace node: its stack and that stack's depth (outer `None` until made; inner `None`
    /// for an empty stack).
    trace_stacks: Vec<Option<(Option<StackIndex>, usize)>>,
    max_depth: usize,
}

impl Stacks<'_> {
    /// The stack of trace node `trace` (1-based; 0 is the empty stack).
    fn trace_stack(&mut self, trace: u32) -> Result<Option<StackIndex>, ReadError> {
        // Walk up to a node already made (or the root), then make the nodes below it.
        let mut chain = Vec::new();
        let mut t = trace;
        let (mut stack, mut depth) = (None, 0);
        while t != 0 {
            if let Some(made) = self.trace_stacks[(t - 1) as usize] {
                (stack, depth) = made;
                break;
            }
            chain.push(t);
            t = self.tables.trace(t).parent;
        }
        for &t in chain.iter().rev() {
            let ip = self.tables.trace(t).ip;
            for loc in self.ip_locations(ip).into_iter().rev() {
                stack = Some(self.b.stack_node(stack, loc));
                depth += 1;
            }
            // A depth over 0 means a stack: the limit is checked at every trace node.
            if depth > self.max_depth {
                return Err(ReadError::new(
                    NAME,
                    Place::Path(format!("trace {t:x}")),
                    format!(
                        "the stack is deeper than {} frames (the stack depth limit)",
                        self.max_depth
                    ),
                ));
            }
            self.trace_stacks[(t - 1) as usize] = Some((stack, depth));
        }
        Ok(stack)
    }

    /// The locations of ip `ip` (1-based; 0 has none), innermost first.
    fn ip_locations(&mut self, ip: u32) -> Vec<LocationIndex> {
        let Some(i) = ip.checked_sub(1).map(|i| i as usize) else {
            return Vec::new();
        };
        if self.ip_locations[i].is_empty() {
            let ip = &self.tables.ips[i];
            self.ip_locations[i] = make_locations(&mut self.b, self.tables, ip);
        }
        self.ip_locations[i].clone()
    }
}

/// One location per frame of `ip` (at least one: an ip without frames is its address).
fn make_locations(b: &mut ProfileBuilder, tables: &Tables, ip: &Ip) -> Vec<LocationIndex> {
    let address_name = || format!("0x{:x}", ip.address);
    let module = tables.string(ip.module).filter(|m| !m.is_empty());
    let frames = if ip.frames.is_empty() {
        vec![Default::default()]
    } else {
        ip.frames.clone()
    };
    let last = frames.len() - 1;
    frames
        .iter()
        .enumerate()
        .map(|(k, frame)| {
            let name = tables
                .string(frame.function)
                .filter(|n| !n.is_empty())
                .map_or_else(address_name, str::to_owned);
            let file = tables.string(frame.file).filter(|f| !f.is_empty());
            let f = b.function_named(&name, file);
            let line = i32::try_from(frame.line).unwrap_or(i32::MAX);
            let loc = b.add_location(Some(f), line);
            b.set_location_ext(loc, ext::locations::ADDRESS, Cell::U64(Some(ip.address)));
            b.set_location_ext(loc, ext::locations::INLINED, Cell::Lgl(Some(k < last)));
            if let Some(m) = module {
                let id = b.intern(m);
                b.set_location_ext(loc, ext::locations::OBJECT, Cell::Chr(id));
            }
            loc
        })
        .collect()
}
