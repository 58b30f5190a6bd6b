//! Reading a Papyrus log: the header, each event line, the calls replayed per stack, one sample
//! per open stack between consecutive event times.

use std::collections::BTreeMap;

use super::{LOCATION_FORM, NAME};
use crate::formats::error::{Place, ReadError, Warnings};
use crate::formats::read_common::{check_sample_limit, finish_parsed, text_input};
use crate::formats::{Format, Parsed, ReadOptions};
use crate::hash::HashMap;
use crate::model::{
    ext, Cell, ColumnKind, LocationIndex, ProfileBuilder, SourceIndex, ValueTypeIndex,
    META_DEFAULT_TYPE, SAMPLE_TIME,
};

/// What an event line does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Push,
    Pop,
    Queue,
    StartStop,
}

/// One event line.
pub(super) struct Event<'t> {
    pub time: i64,
    pub kind: Kind,
    pub stack: i32,
    pub form: Option<&'t str>,
    pub function: &'t str,
}

/// `NAME log opened (PLATFORM)` → (name, platform).
pub(super) fn log_opened(line: &str) -> Option<(&str, &str)> {
    let (name, rest) = line.split_once(" log opened")?;
    let platform = rest.trim().trim_start_matches('(').trim_end_matches(')');
    Some((name.trim(), platform))
}

/// `TIME:EVENT:STACK[:DEPTH:FORM:FUNCTION]`.
pub(super) fn event(line: &str) -> Option<Event<'_>> {
    let mut parts = line.splitn(5, ':');
    let time = parts.next()?.trim().parse().ok()?;
    let kind = match parts.next()? {
        "PUSH" => Kind::Push,
        "POP" => Kind::Pop,
        "QUEUE_PUSH" | "QUEUE_POP" => Kind::Queue,
        "START" | "STOP" => Kind::StartStop,
        _ => return None,
    };
    let stack = parts.next()?.trim().parse().ok()?;
    if kind == Kind::StartStop {
        return Some(Event {
            time,
            kind,
            stack,
            form: None,
            function: "",
        });
    }
    parts.next()?.trim().parse::<i64>().ok()?;
    let (form, function) = parts.next()?.rsplit_once(':')?;
    let form = form.trim();
    let form = (!form.is_empty() && form != "None").then_some(form);
    (!function.is_empty()).then_some(Event {
        time,
        kind,
        stack,
        form,
        function,
    })
}

/// Reads a Papyrus log.
pub fn read(bytes: &[u8], options: &ReadOptions) -> Result<Parsed, ReadError> {
    let (text, mut warnings) = text_input(bytes, NAME)?;
    let mut lines = text.lines().enumerate();
    let header = lines.next().map_or("", |(_, l)| l.trim_end_matches('\r'));
    let (log, platform) = log_opened(header).ok_or_else(|| {
        ReadError::new(
            NAME,
            Place::Line(1),
            "the first line is not `NAME log opened (PLATFORM)`",
        )
    })?;
    let mut r = Replay::new(options);
    r.b.set_meta("papyrus.log", log);
    r.b.set_meta("papyrus.platform", platform);
    for (i, raw) in lines {
        let line = raw.trim_end_matches('\r');
        let number = i + 1;
        if line.trim().is_empty() || line.trim() == "Log closed" {
            continue;
        }
        let Some(e) = event(line) else {
            warnings.add(NAME, "skipped", || {
                format!("lines that are not events were skipped (first at line {number})")
            });
            continue;
        };
        r.advance(number, e.time)?;
        r.apply(number, &e, &mut warnings);
    }
    r.finish(warnings)
}

/// The replay state.
struct Replay<'a> {
    b: ProfileBuilder,
    options: &'a ReadOptions,
    source: SourceIndex,
    time_vt: ValueTypeIndex,
    /// Open calls per stack id, outermost first.
    stacks: BTreeMap<i32, Vec<LocationIndex>>,
    locations: HashMap<(String, Option<String>), LocationIndex>,
    first_time: Option<i64>,
    last_time: i64,
}

impl<'a> Replay<'a> {
    fn new(options: &'a ReadOptions) -> Self {
        let mut b = ProfileBuilder::new();
        let source = b.add_source(NAME, options.source_uri.as_deref(), None);
        let time_vt = b.value_type("time", "nanoseconds");
        b.set_meta(META_DEFAULT_TYPE, "time");
        b.declare_sample_column(SAMPLE_TIME, ColumnKind::Dbl);
        b.declare_sample_column(ext::samples::TID, ColumnKind::Int);
        Replay {
            b,
            options,
            source,
            time_vt,
            stacks: BTreeMap::new(),
            locations: HashMap::default(),
            first_time: None,
            last_time: 0,
        }
    }

    /// Moves the clock to `time`: every stack with open calls gets a sample for the interval.
    fn advance(&mut self, number: usize, time: i64) -> Result<(), ReadError> {
        let Some(first) = self.first_time else {
            self.first_time = Some(time);
            self.last_time = time;
            return Ok(());
        };
        if time < self.last_time {
            let last = self.last_time;
            return Err(ReadError::new(
                NAME,
                Place::Line(number),
                format!("the time {time} is before the previous event's {last}"),
            ));
        }
        if time == self.last_time {
            return Ok(());
        }
        let (start, ms) = (self.last_time, time - self.last_time);
        let open: Vec<(i32, Vec<LocationIndex>)> = self
            .stacks
            .iter()
            .filter(|(_, calls)| !calls.is_empty())
            .map(|(id, calls)| (*id, calls.clone()))
            .collect();
        for (id, calls) in open {
            check_sample_limit(&self.b, Format::Papyrus, self.options.limits.max_samples)?;
            let node = self.b.stack_root_first(&calls);
            let s = self.b.add_sample(self.source, node);
            self.b.set_value(s, self.time_vt, ms as f64 * 1e6);
            let seconds = (start - first) as f64 / 1e3;
            self.b.set_sample_ext(s, SAMPLE_TIME, Cell::Dbl(seconds));
            self.b.set_sample_ext(s, ext::samples::TID, Cell::Int(id));
        }
        self.last_time = time;
        Ok(())
    }

    /// Applies a call event to its stack.
    fn apply(&mut self, number: usize, e: &Event<'_>, warnings: &mut Warnings) {
        match e.kind {
            Kind::StartStop => {}
            Kind::Queue => warnings.add(NAME, "queue", || {
                format!("QUEUE_PUSH / QUEUE_POP events were not kept (first at line {number})")
            }),
            Kind::Push => {
                let loc = self.location(e.function, e.form);
                let calls = self.stacks.entry(e.stack).or_default();
                if calls.len() < self.options.limits.max_stack_depth {
                    calls.push(loc);
                } else {
                    warnings.add(NAME, "depth", || {
                        format!("calls beyond the stack depth limit were not kept (first at line {number})")
                    });
                }
            }
            Kind::Pop => self.pop(number, e, warnings),
        }
    }

    fn pop(&mut self, number: usize, e: &Event<'_>, warnings: &mut Warnings) {
        let key = (e.function.to_owned(), e.form.map(str::to_owned));
        let loc = self.locations.get(&key).copied();
        let calls = self.stacks.entry(e.stack).or_default();
        match loc.and_then(|l| calls.iter().rposition(|&c| c == l)) {
            Some(at) => {
                if at + 1 != calls.len() {
                    warnings.add(NAME, "pop-below", || {
                        format!("a POP left a call below the top; the calls above it were closed too (first at line {number})")
                    });
                }
                calls.truncate(at);
            }
            None => warnings.add(NAME, "pop-unknown", || {
                format!("POPs of calls not open on their stack (entered before the log began) were skipped (first at line {number})")
            }),
        }
    }

    fn location(&mut self, function: &str, form: Option<&str>) -> LocationIndex {
        let key = (function.to_owned(), form.map(str::to_owned));
        if let Some(&l) = self.locations.get(&key) {
            return l;
        }
        let f = self.b.function_named(function, None);
        let l = self.b.add_location(Some(f), 0);
        if let Some(form) = form {
            let id = self.b.intern(form);
            self.b.set_location_ext(l, LOCATION_FORM, Cell::Chr(id));
        }
        self.locations.insert(key, l);
        l
    }

    fn finish(self, mut warnings: Warnings) -> Result<Parsed, ReadError> {
        if self.first_time.is_none() {
            return Err(ReadError::whole(NAME, "the log has no events"));
        }
        let open: usize = self.stacks.values().map(Vec::len).sum();
        if open > 0 {
            warnings.add(NAME, "open", || {
                format!("{open} calls were still open at the end; they end at the last event")
            });
        }
        finish_parsed(self.b, Format::Papyrus, warnings)
    }
}
