//! Stack traces and threads of a chunk, resolved through its constant pools once per pool
//! entry.

use super::super::{LOCATION_BYTECODE_INDEX, NAME};
use super::values::{Lookup, Value};
use super::Reader;
use crate::formats::error::ReadError;
use crate::hash::HashMap;
use crate::model::{ext, Cell, FunctionIndex, FunctionKey, LocationIndex, StackIndex, StringId};

/// Name of a method whose name the pools do not give.
const UNKNOWN_METHOD: &str = "(unknown method)";
/// The frame type description of inlined frames.
const INLINED: &str = "Inlined";

/// A thread as samples name it.
#[derive(Clone, Copy)]
pub struct Thread {
    pub name: StringId,
    pub os_tid: Option<i64>,
    pub java_tid: Option<i64>,
}

/// Caches of one chunk, keyed by constant pool index (pool indices are per chunk).
#[derive(Default)]
pub struct ChunkState {
    /// Stack trace index → stack node (`None` inside for a stack with no frames).
    stacks: HashMap<i64, Option<Option<StackIndex>>>,
    methods: HashMap<i64, FunctionIndex>,
    threads: HashMap<i64, Option<Thread>>,
}

impl Reader<'_> {
    /// The stack of an event's `stackTrace` value: `None` when it has none (a null or unknown
    /// reference), `Some(None)` for an empty one.
    pub(super) fn stack(
        &mut self,
        look: &Lookup,
        state: &mut ChunkState,
        raw: &Value,
    ) -> Result<Option<Option<StackIndex>>, ReadError> {
        let key = match raw {
            Value::Ref { index, .. } => Some(*index),
            _ => None,
        };
        if let Some(s) = key.and_then(|k| state.stacks.get(&k)) {
            if matches!(s, Some(Some(_))) {
                self.note_truncated(look, raw);
            }
            return Ok(*s);
        }
        let s = self.build_stack(look, state, raw)?;
        if let Some(k) = key {
            state.stacks.insert(k, s);
        }
        Ok(s)
    }

    fn note_truncated(&mut self, look: &Lookup, raw: &Value) {
        if look.field(raw, "truncated").and_then(Value::as_long) == Some(1) {
            self.truncated += 1;
        }
    }

    fn build_stack(
        &mut self,
        look: &Lookup,
        state: &mut ChunkState,
        raw: &Value,
    ) -> Result<Option<Option<StackIndex>>, ReadError> {
        let Some(Value::Array(frames)) = look.field(raw, "frames") else {
            return Ok(None);
        };
        let max = self.options.limits.max_stack_depth;
        if frames.len() > max {
            return Err(ReadError::whole(
                NAME,
                format!(
                    "a stack trace of {} frames is deeper than {max} (the stack depth limit)",
                    frames.len()
                ),
            ));
        }
        self.note_truncated(look, raw);
        let mut locs = self.b.take_scratch();
        locs.clear();
        for frame in frames {
            locs.push(self.location(look, state, frame));
        }
        let s = self.b.stack_leaf_first(&locs);
        self.b.return_scratch(locs);
        Ok(Some(s))
    }

    /// The location of one stack frame: method, line, bytecode index and frame type.
    fn location(&mut self, look: &Lookup, state: &mut ChunkState, frame: &Value) -> LocationIndex {
        let f = self.method(look, state, frame);
        let num = |name: &str| {
            look.field(frame, name)
                .and_then(Value::as_long)
                .and_then(|v| i32::try_from(v).ok())
        };
        let line = num("lineNumber").filter(|&l| l >= 0).unwrap_or(0);
        let bci = num("bytecodeIndex").unwrap_or(crate::model::INT_NA);
        let kind = look
            .field(frame, "type")
            .and_then(|t| look.text(t, "description"));
        let kind_id = self.b.strings().intern_opt(kind);
        if let Some(&l) = self.locations.get(&(f, line, bci, kind_id)) {
            return l;
        }
        let l = self.b.add_location(Some(f), line);
        self.b
            .set_location_ext(l, ext::locations::FRAME_TYPE, Cell::Chr(kind_id));
        self.b.set_location_ext(
            l,
            ext::locations::INLINED,
            Cell::Lgl(kind.map(|k| k == INLINED)),
        );
        self.b
            .set_location_ext(l, LOCATION_BYTECODE_INDEX, Cell::Int(bci));
        self.locations.insert((f, line, bci, kind_id), l);
        l
    }

    /// The function of a frame's method: `class.method`, system name with the descriptor.
    fn method(&mut self, look: &Lookup, state: &mut ChunkState, frame: &Value) -> FunctionIndex {
        let raw = match frame {
            Value::Object { class, fields } => look
                .types
                .get(class)
                .and_then(|c| c.field("method"))
                .and_then(|i| fields.get(i)),
            _ => None,
        };
        let key = match raw {
            Some(Value::Ref { index, .. }) => Some(*index),
            _ => None,
        };
        if let Some(f) = key.and_then(|k| state.methods.get(&k)) {
            return *f;
        }
        let method = raw.and_then(|m| look.resolve(m));
        let class = method
            .and_then(|m| look.field(m, "type"))
            .and_then(|c| look.text(c, "name"));
        let name = method.and_then(|m| look.text(m, "name"));
        let descriptor = method.and_then(|m| look.text(m, "descriptor"));
        if name.is_none() {
            self.warnings.add(NAME, "method", || {
                format!(
                    "frames whose method is not in the constant pools were named {UNKNOWN_METHOD}"
                )
            });
        }
        let mut full = match class {
            Some(c) => format!("{}.", c.replace('/', ".")),
            None => String::new(),
        };
        full.push_str(name.unwrap_or(UNKNOWN_METHOD));
        let system = format!("{full}{}", descriptor.unwrap_or(""));
        let name = self.b.intern(&full);
        let system_name = self.b.intern(&system);
        let f = self.b.function(FunctionKey {
            name,
            system_name,
            filename: StringId::NA,
            start_line: 0,
        });
        if let Some(k) = key {
            state.methods.insert(k, f);
        }
        f
    }

    /// The thread of an event's thread field, cached by pool index.
    pub(super) fn thread(
        &mut self,
        look: &Lookup,
        state: &mut ChunkState,
        raw: &Value,
    ) -> Option<Thread> {
        let key = match raw {
            Value::Ref { index, .. } => Some(*index),
            _ => None,
        };
        if let Some(t) = key.and_then(|k| state.threads.get(&k)) {
            return *t;
        }
        let t = look.resolve(raw).map(|th| {
            let java = look.text(th, "javaName").filter(|n| !n.is_empty());
            let name = java.or_else(|| look.text(th, "osName"));
            Thread {
                name: self.b.strings().intern_opt(name),
                os_tid: look.field(th, "osThreadId").and_then(Value::as_long),
                java_tid: look.field(th, "javaThreadId").and_then(Value::as_long),
            }
        });
        if let Some(k) = key {
            state.threads.insert(k, t);
        }
        t
    }
}
