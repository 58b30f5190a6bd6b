//! Java Flight Recorder recordings (`.jfr`, JFR format 1.x and 2.x; tested on JDK 17 and 21
//! recordings): one or more chunks, each a header, a metadata event describing every type,
//! constant pools (checkpoints) and events.
//!
//! Reading (a reader of its own: the `jfrs` crate loops forever on an event of size 0 and
//! allocates whatever count a file states, see docs/formats/jfr.md):
//! * One sample per event of the kinds proftab weighs, each with one value type:
//!   `jdk.ExecutionSample` → `samples`/`count`, `jdk.NativeMethodSample` →
//!   `native_samples`/`count`, `jdk.ObjectAllocationSample` (`weight`),
//!   `jdk.ObjectAllocationInNewTLAB` (`tlabSize`), `jdk.ObjectAllocationOutsideTLAB`
//!   (`allocationSize`) → `allocation_sample`, `allocation_in_new_tlab`,
//!   `allocation_outside_tlab` in bytes, `jdk.JavaMonitorEnter`, `jdk.JavaMonitorWait`,
//!   `jdk.ThreadPark` (`duration`) → `monitor_enter`, `monitor_wait`, `thread_park` in
//!   nanoseconds. Events of these kinds without a stack trace keep an empty stack (warning).
//! * Every other event type with a stack trace: one sample per event, value type = the event
//!   type's name (`jdk.ThreadStart`, …)/`count`. Events without a stack trace (GC, flags,
//!   statistics, …) are not samples: a warning counts them, and meta `jfr.events.<type>`
//!   counts every event type as `jfr summary` does.
//! * Stacks from the stack trace pool, innermost frame first: function name `class.method`
//!   (class names with dots), system name with the method descriptor; line = `lineNumber`
//!   (0 when unknown); `locations..frame_type` = the frame type's description (`Interpreted`,
//!   `JIT compiled`, `Inlined`, `Native`), `locations..inlined`, `locations..bytecode_index`.
//!   JFR records no source file names: `filename` is NA. Truncated stack traces are kept as
//!   recorded (warning).
//! * Samples: `.time` (seconds since the recording's start), `.thread_name` (Java name, else
//!   OS name), `.tid` (OS thread id), `.java_thread_id`.
//! * Meta: `jfr.version`, `jfr.chunks`, `jfr.duration_ns`, `jfr.events.<type>`,
//!   `default_sample_type` (`samples` when there are execution samples).
//! * Errors: bad magic or version, a chunk or event size that does not fit, a value running
//!   past its event, a type id missing from the metadata, counts larger than the bytes left,
//!   nesting deeper than the limits.

mod read;

pub use read::read;

/// Format name used in errors and warnings.
pub const NAME: &str = "jfr";
/// `samples` extension column: the Java thread id.
pub const SAMPLE_JAVA_THREAD_ID: &str = ".java_thread_id";
/// `locations` extension column: the bytecode index of the frame.
pub const LOCATION_BYTECODE_INDEX: &str = ".bytecode_index";

/// The magic bytes every chunk starts with.
const MAGIC: &[u8; 4] = b"FLR\0";
/// Size of a chunk header.
const HEADER_SIZE: usize = 68;

/// True for bytes that start with the chunk magic `FLR\0` and a major version 1 or 2.
pub fn detect(bytes: &[u8]) -> bool {
    bytes.len() >= 8
        && bytes.starts_with(MAGIC)
        && matches!(i16::from_be_bytes([bytes[4], bytes[5]]), 1 | 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detect_needs_magic_and_version() {
        assert!(detect(b"FLR\0\0\x02\0\x01"));
        assert!(!detect(b"FLR\0\0\x03\0\x00"));
        assert!(!detect(b"FLR\0"));
        assert!(!detect(b"FLX\0\0\x02\0\x01"));
    }
}
