//! One thread's duration events replayed as speedscope does: a queue of begins and a queue of
//! ends, each in time order, merged; every stretch of time with an unchanged stack is handed to
//! the sink as one interval.

use super::events::{number, Event};

/// A begin or end of one frame.
#[derive(Clone)]
pub(super) struct Edge<'e> {
    pub(super) ts: f64,
    pub(super) event: &'e Event,
    /// `name` plus `args` as JSON: two edges of one frame have equal keys.
    key: String,
}

impl<'e> Edge<'e> {
    fn new(event: &'e Event, ts: f64) -> Self {
        let mut key = event.name.clone().unwrap_or_else(|| "(unnamed)".to_owned());
        if let Some(a) = &event.args {
            key.push(' ');
            key.push_str(&a.to_string());
        }
        Edge { ts, event, key }
    }
}

/// What the replay could not follow, counted.
#[derive(Default, Clone, Copy)]
pub(super) struct Faults {
    pub(super) end_on_empty: usize,
    pub(super) end_name_mismatch: usize,
    pub(super) end_args_mismatch: usize,
    pub(super) still_open: usize,
    pub(super) x_without_dur: usize,
    pub(super) without_ts: usize,
}

/// Receives the replay: frames entered and left, and intervals of an unchanged stack.
pub(super) trait Sink {
    /// A frame was entered on top of the current stack.
    fn enter(&mut self, event: &Event);
    /// The top frame was left.
    fn leave(&mut self);
    /// The current stack lasted from `start` for `length` (µs).
    fn interval(&mut self, start: f64, length: f64);
}

/// The begin and end queues of one thread's `B`, `E` and `X` events.
pub(super) fn queues<'e>(
    events: &[&'e Event],
    faults: &mut Faults,
) -> (Vec<Edge<'e>>, Vec<Edge<'e>>) {
    let (mut begins, mut ends, mut xs) = (Vec::new(), Vec::new(), Vec::new());
    for &e in events {
        let Some(ts) = number(e.ts.as_ref()) else {
            faults.without_ts += 1;
            continue;
        };
        match e.ph.as_str() {
            "B" => begins.push(Edge::new(e, ts)),
            "E" => ends.push(Edge::new(e, ts)),
            _ => {
                let dur = number(e.dur.as_ref()).or_else(|| number(e.tdur.as_ref()));
                if dur.is_none() {
                    faults.x_without_dur += 1;
                }
                xs.push((ts, dur.unwrap_or(0.0).max(0.0), e));
            }
        }
    }
    // Equal starts: the longer one first (it must enclose the shorter), else file order.
    xs.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.total_cmp(&a.1)));
    for (ts, dur, e) in xs {
        begins.push(Edge::new(e, ts));
        ends.push(Edge::new(e, ts + dur));
    }
    begins.sort_by(|a, b| a.ts.total_cmp(&b.ts));
    ends.sort_by(|a, b| a.ts.total_cmp(&b.ts));
    (begins, ends)
}

/// Replays the queues into `sink`.
pub(super) fn replay(begins: &[Edge], ends: &mut [Edge], sink: &mut dyn Sink, faults: &mut Faults) {
    let mut stack: Vec<Edge> = Vec::new();
    let (mut b, mut e) = (0, 0);
    let mut last = begins.first().map_or(0.0, |x| x.ts);
    while b < begins.len() || e < ends.len() {
        let take_begin = match (begins.get(b), ends.get(e)) {
            (Some(x), Some(y)) => x.ts < y.ts || (x.ts == y.ts && x.key == y.key),
            (Some(_), None) => true,
            _ => false,
        };
        // Time moves only when the stack changes: an ignored end does not advance it (as in
        // speedscope, so frames left open close at the last change).
        let mut advance = |ts: f64, stack: &[Edge], sink: &mut dyn Sink| {
            if ts > last {
                if !stack.is_empty() {
                    sink.interval(last, ts - last);
                }
                last = ts;
            }
        };
        if take_begin {
            advance(begins[b].ts, &stack, sink);
            sink.enter(begins[b].event);
            stack.push(begins[b].clone());
            b += 1;
            continue;
        }
        if let Some(top) = stack.last() {
            prefer_matching_end(&mut ends[e..], top);
        }
        let end = &ends[e];
        e += 1;
        match stack.last() {
            None => faults.end_on_empty += 1,
            Some(top) if top.event.name != end.event.name => faults.end_name_mismatch += 1,
            Some(top) => {
                if top.key != end.key {
                    faults.end_args_mismatch += 1;
                }
                advance(end.ts, &stack, sink);
                stack.pop();
                sink.leave();
            }
        }
    }
    faults.still_open += stack.len();
}

/// Among the ends at the front's time, brings one that closes `top` (same key, else same
/// name) to the front.
fn prefer_matching_end(ends: &mut [Edge], top: &Edge) {
    let Some(front_ts) = ends.first().map(|x| x.ts) else {
        return;
    };
    let same_time = ends.iter().take_while(|x| x.ts <= front_ts).count();
    let pick = (1..same_time)
        .find(|&i| ends[i].key == top.key)
        .or_else(|| (1..same_time).find(|&i| ends[i].event.name == top.event.name));
    if let Some(i) = pick {
        ends.swap(0, i);
    }
}
