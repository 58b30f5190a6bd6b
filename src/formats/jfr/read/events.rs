//! One event: its kind (which value type it weighs), stack, thread and time.

use super::super::{NAME, SAMPLE_JAVA_THREAD_ID};
use super::chunk::{Chunk, Frame};
use super::stacks::ChunkState;
use super::values::{value, Lookup, Value};
use super::Reader;
use crate::formats::error::{Place, ReadError};
use crate::formats::read_common::check_sample_limit;
use crate::formats::Format;
use crate::model::{ext, Cell, INT_NA};

/// Where an event's weight comes from.
#[derive(Clone, Copy)]
pub enum Weight {
    /// Each event counts 1.
    One,
    /// A field in bytes.
    Bytes(&'static str),
    /// The event's `duration` in ticks, as nanoseconds.
    Duration,
}

/// An event type proftab weighs, and its value type.
pub struct Kind {
    pub event: &'static str,
    pub value_type: &'static str,
    pub unit: &'static str,
    pub weight: Weight,
}

const fn kind(
    event: &'static str,
    value_type: &'static str,
    unit: &'static str,
    weight: Weight,
) -> Kind {
    Kind {
        event,
        value_type,
        unit,
        weight,
    }
}

/// The weighed event types, in the order the default value type is picked.
pub const KINDS: [Kind; 8] = [
    kind("jdk.ExecutionSample", "samples", "count", Weight::One),
    kind(
        "jdk.NativeMethodSample",
        "native_samples",
        "count",
        Weight::One,
    ),
    kind(
        "jdk.ObjectAllocationSample",
        "allocation_sample",
        "bytes",
        Weight::Bytes("weight"),
    ),
    kind(
        "jdk.ObjectAllocationInNewTLAB",
        "allocation_in_new_tlab",
        "bytes",
        Weight::Bytes("tlabSize"),
    ),
    kind(
        "jdk.ObjectAllocationOutsideTLAB",
        "allocation_outside_tlab",
        "bytes",
        Weight::Bytes("allocationSize"),
    ),
    kind(
        "jdk.JavaMonitorEnter",
        "monitor_enter",
        "nanoseconds",
        Weight::Duration,
    ),
    kind(
        "jdk.JavaMonitorWait",
        "monitor_wait",
        "nanoseconds",
        Weight::Duration,
    ),
    kind(
        "jdk.ThreadPark",
        "thread_park",
        "nanoseconds",
        Weight::Duration,
    ),
];

/// The thread fields of events, most specific first.
const THREAD_FIELDS: [&str; 2] = ["sampledThread", "eventThread"];

impl Reader<'_> {
    /// Reads one event; keeps it as a sample when it is weighed or has a stack.
    pub(super) fn event(
        &mut self,
        chunk: &Chunk,
        state: &mut ChunkState,
        frame: &Frame,
    ) -> Result<(), ReadError> {
        let Some(class) = chunk.types.get(&frame.type_id) else {
            return Err(ReadError::new(
                NAME,
                Place::Byte((chunk.base + frame.offset) as u64),
                format!(
                    "event type id {} is not in the chunk's metadata",
                    frame.type_id
                ),
            ));
        };
        *self.counts.entry(class.name.clone()).or_default() += 1;
        let kind = KINDS.iter().find(|k| k.event == class.name);
        let Some(stack_field) = class.field("stackTrace") else {
            if kind.is_none() {
                *self.dropped.entry(class.name.clone()).or_default() += 1;
                return Ok(());
            }
            return self.sample(chunk, state, frame, kind, None);
        };
        self.sample(chunk, state, frame, kind, Some(stack_field))
    }

    fn sample(
        &mut self,
        chunk: &Chunk,
        state: &mut ChunkState,
        frame: &Frame,
        kind: Option<&Kind>,
        stack_field: Option<usize>,
    ) -> Result<(), ReadError> {
        let v = value(&mut chunk.body(frame)?, &chunk.types, frame.type_id, 0)?;
        let look = Lookup {
            types: &chunk.types,
            pools: &chunk.pools,
        };
        let name = chunk
            .types
            .get(&frame.type_id)
            .map_or("", |c| c.name.as_str());
        let raw_stack = match (&v, stack_field) {
            (Value::Object { fields, .. }, Some(i)) => fields.get(i),
            _ => None,
        };
        let stack = match raw_stack {
            Some(raw) => self.stack(&look, state, raw)?,
            None => None,
        };
        if stack.is_none() {
            let into = if kind.is_some() {
                &mut self.stackless
            } else {
                &mut self.dropped
            };
            *into.entry(name.to_owned()).or_default() += 1;
            if kind.is_none() {
                return Ok(());
            }
        }
        check_sample_limit(&self.b, Format::Jfr, self.options.limits.max_samples)?;
        let (value_type, unit, weight) = match kind {
            Some(k) => (k.value_type, k.unit, self.weight(chunk, &look, &v, k)),
            None => (name, "count", 1.0),
        };
        let vt = match self.value_types.get(value_type) {
            Some(&vt) => vt,
            None => {
                let vt = self.b.value_type(value_type, unit);
                self.value_types.insert(value_type.to_owned(), vt);
                vt
            }
        };
        let s = self.b.add_sample(self.source, stack.flatten());
        self.b.set_value(s, vt, weight);
        if let Some(t) = look.field(&v, "startTime").and_then(Value::as_long) {
            let secs = chunk.nanos_since(self.t0_nanos, t) / 1e9;
            self.b
                .set_sample_ext(s, ext::samples::TIME, Cell::Dbl(secs));
        }
        let raw_thread = THREAD_FIELDS.iter().find_map(|f| raw_field(&look, &v, f));
        if let Some(th) = raw_thread.and_then(|t| self.thread(&look, state, t)) {
            self.b
                .set_sample_ext(s, ext::samples::THREAD_NAME, Cell::Chr(th.name));
            let int = |v: Option<i64>| v.and_then(|v| i32::try_from(v).ok()).unwrap_or(INT_NA);
            self.b
                .set_sample_ext(s, ext::samples::TID, Cell::Int(int(th.os_tid)));
            self.b
                .set_sample_ext(s, SAMPLE_JAVA_THREAD_ID, Cell::Int(int(th.java_tid)));
        }
        Ok(())
    }

    /// The weight of a weighed event (0 with a warning when its field is missing).
    fn weight(&mut self, chunk: &Chunk, look: &Lookup, v: &Value, k: &Kind) -> f64 {
        let field = match k.weight {
            Weight::One => return 1.0,
            Weight::Bytes(f) => f,
            Weight::Duration => "duration",
        };
        let Some(x) = look.field(v, field).and_then(Value::as_f64) else {
            self.warnings.add(NAME, "weight", || {
                format!("{} events without `{field}` were weighed 0", k.event)
            });
            return 0.0;
        };
        match k.weight {
            Weight::Duration => chunk.span_nanos(x as i64),
            _ => x,
        }
    }
}

/// The field `name` of an event object, not resolved (a pool reference stays one, so it can
/// key a cache).
pub fn raw_field<'v>(look: &Lookup, v: &'v Value, name: &str) -> Option<&'v Value> {
    match v {
        Value::Object { class, fields } => fields.get(look.types.get(class)?.field(name)?),
        _ => None,
    }
}
