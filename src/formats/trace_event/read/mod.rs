//! Reading: the events are parsed (`events`), grouped by `pid`/`tid` in order of first
//! appearance, each thread's `B`/`E`/`X` events replayed (`replay`) into samples (`build`);
//! traces with `samples` and `stackFrames` are read from those (`sampled`).

mod build;
mod events;
mod replay;
mod sampled;

use build::{Converter, ThreadCells, ThreadSink};
use events::{id_text, number, parse_events, Event, Names};
use replay::{queues, replay, Faults};

use super::NAME;
use crate::formats::error::{ReadError, Warning, Warnings};
use crate::formats::json_scan;
use crate::formats::{Parsed, ReadOptions};
use crate::hash::HashMap;

pub(crate) use events::first_element;

/// Reads a Chrome trace (array or object form, possibly cut short).
pub fn read(bytes: &[u8], options: &ReadOptions) -> Result<Parsed, ReadError> {
    let mut warnings = Warnings::default();
    let (events, members) = if json_scan::first_significant_byte(bytes) == Some(b'[') {
        let open = json_scan::skip_bom_and_ws(bytes);
        (parse_events(bytes, open, &mut warnings)?, Vec::new())
    } else {
        let members = json_scan::document_members(NAME, bytes)?;
        let open = json_scan::member(&members, "traceEvents")
            .map(|m| m.value.start)
            .ok_or_else(|| ReadError::whole(NAME, "the object has no `traceEvents`"))?;
        json_scan::unknown_top_keys_warning(
            NAME,
            &members,
            &[
                "traceEvents",
                "samples",
                "stackFrames",
                "displayTimeUnit",
                "otherData",
                "metadata",
            ],
            &mut warnings,
        );
        (parse_events(bytes, open, &mut warnings)?, members)
    };
    let names = Names::from_events(&events);
    let has = |k: &str| json_scan::member(&members, k).is_some();
    if has("samples") && has("stackFrames") {
        let durations = events.iter().filter(|e| is_duration(e)).count();
        if durations > 0 {
            warnings.push(Warning::new(
                NAME,
                "duration events (B/E/X) were not read: the trace has `samples`, which are (as in speedscope)",
                durations,
            ));
        }
        return sampled::read_sampled(bytes, &members, &names, options, warnings);
    }
    read_durations(&events, &names, options, warnings)
}

fn is_duration(e: &Event) -> bool {
    matches!(e.ph.as_str(), "B" | "E" | "X")
}

/// The cells of thread `pid:tid`.
fn thread_cells(c: &mut Converter, names: &Names, pid: &str, tid: &str) -> ThreadCells {
    let thread = names
        .threads
        .get(&format!("{pid}:{tid}"))
        .map(String::as_str);
    let process = names.processes.get(pid).map(String::as_str);
    let s = c.b.strings();
    ThreadCells {
        pid: s.intern_opt(Some(pid).filter(|p| !p.is_empty())),
        tid: s.intern_opt(Some(tid).filter(|t| !t.is_empty())),
        thread: s.intern_opt(thread),
        process: s.intern_opt(process),
    }
}

fn read_durations(
    events: &[Event],
    names: &Names,
    options: &ReadOptions,
    mut warnings: Warnings,
) -> Result<Parsed, ReadError> {
    let mut threads: Vec<(String, String, Vec<&Event>)> = Vec::new();
    let mut index: HashMap<(String, String), usize> = HashMap::default();
    let mut other: usize = 0;
    for e in events {
        if !is_duration(e) {
            other += usize::from(e.ph != "M");
            continue;
        }
        let key = (id_text(e.pid.as_ref()), id_text(e.tid.as_ref()));
        let k = *index.entry(key.clone()).or_insert_with(|| {
            threads.push((key.0, key.1, Vec::new()));
            threads.len() - 1
        });
        threads[k].2.push(e);
    }
    if threads.is_empty() {
        return Err(ReadError::whole(
            NAME,
            "the trace has no duration events (B, E or X) and no samples",
        ));
    }
    let origin = events
        .iter()
        .filter(|e| is_duration(e))
        .filter_map(|e| number(e.ts.as_ref()))
        .fold(f64::INFINITY, f64::min);
    let mut c = Converter::new(options, if origin.is_finite() { origin } else { 0.0 });
    let mut faults = Faults::default();
    let mut too_deep = 0;
    for (pid, tid, list) in &threads {
        let cells = thread_cells(&mut c, names, pid, tid);
        let (begins, mut ends) = queues(list, &mut faults);
        let mut sink = ThreadSink {
            c: &mut c,
            cells,
            stack: Vec::new(),
            too_deep: 0,
        };
        replay(&begins, &mut ends, &mut sink, &mut faults);
        too_deep += sink.too_deep;
    }
    report(&faults, other, too_deep, &mut warnings);
    c.finish(warnings)
}

/// One warning per kind of fault, with its count.
fn report(f: &Faults, other: usize, too_deep: usize, warnings: &mut Warnings) {
    let kinds = [
        (
            f.end_on_empty,
            "end (E) events with no frame open were ignored",
        ),
        (
            f.end_name_mismatch,
            "end (E) events whose name differs from the frame on top of the stack were ignored",
        ),
        (
            f.end_args_mismatch,
            "end (E) events whose args differ from the frame on top closed it anyway",
        ),
        (
            f.still_open,
            "frames still open at the end of their thread were closed at its last change of stack",
        ),
        (
            f.x_without_dur,
            "complete (X) events without `dur` or `tdur` were read as lasting 0",
        ),
        (
            f.without_ts,
            "duration events without a numeric `ts` were skipped",
        ),
        (
            too_deep,
            "frames past the stack depth limit were left out of their stacks",
        ),
        (
            other,
            "events other than B, E, X and M (instant, async, counter, flow…) were not kept",
        ),
    ];
    for (n, message) in kinds {
        if n > 0 {
            warnings.push(Warning::new(NAME, message, n));
        }
    }
}
