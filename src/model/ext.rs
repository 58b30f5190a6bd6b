//! The names of extension columns and extension tables that more than one part of the crate
//! uses: one home, so a reader, a writer and an analysis agree on a name by importing it.
//!
//! Extension columns start with a dot and follow the required columns of their table
//! (`locations..address`); extension tables stand beside the seven v2 tables and their columns
//! need no dot (see `docs/model.md`). A name that only one format knows stays in that format's
//! module, next to the code that writes it.

/// Extension columns of `sources`.
pub mod sources {
    /// The name a format gives the source (a speedscope profile's `name`, a trace's process).
    pub const NAME: &str = ".name";
}

/// Extension columns of `samples`.
pub mod samples {
    /// Per-sample timestamp, seconds from the start of its source.
    pub const TIME: &str = ".time";
    /// Process id of the sampled thread.
    pub const PID: &str = ".pid";
    /// Thread id of the sampled thread.
    pub const TID: &str = ".tid";
    /// Name of the sampled thread.
    pub const THREAD_NAME: &str = ".thread_name";
    /// The CPU the sample was taken on (int; perf-script, perf-data).
    pub const CPU: &str = ".cpu";
    /// The event that took the sample, as the recorder names it (chr; perf-script, perf-data).
    pub const EVENT: &str = ".event";
}

/// Extension columns of `locations`.
pub mod locations {
    /// Instruction address (u64), as pprof's `Location.address`.
    pub const ADDRESS: &str = ".address";
    /// 1-based source column (int; NA where unknown).
    pub const COLUMN: &str = ".column";
    /// OpenTelemetry `profile.frame.type` value (`go`, `native`, `kernel`, …).
    pub const FRAME_TYPE: &str = ".frame_type";
    /// Id of the binary mapping (a row of the `mappings` table) the address belongs to.
    pub const MAPPING_ID: &str = ".mapping_id";
    /// pprof's `Location.is_folded`.
    pub const IS_FOLDED: &str = ".is_folded";
    /// The binary (executable, shared object, kernel module) a frame's code is in, where a
    /// format names it without a source file (DHAT `(in /lib.so)`, pmcstat `@ /boot/kernel`).
    pub const OBJECT: &str = ".object";
    /// Whether the frame was inlined into its caller.
    pub const INLINED: &str = ".inlined";
    /// The pprof `Location.id` the row came from (one pprof location may give several rows,
    /// one per inlined `Line`).
    pub const PPROF_LOCATION_ID: &str = ".pprof_location_id";
    /// Index of the row's `Line` within its pprof location (0 = innermost).
    pub const PPROF_LINE_INDEX: &str = ".pprof_line_index";
}

/// Extension columns of `functions`.
pub mod functions {
    /// The pprof `Function.id` the row came from.
    pub const PPROF_FUNCTION_ID: &str = ".pprof_function_id";
    /// Set where pprof's `Function.name` was empty (the model stores NA-free names).
    pub const PPROF_EMPTY_NAME: &str = ".pprof_empty_name";
    /// Set where pprof's `Function.system_name` was empty.
    pub const PPROF_EMPTY_SYSTEM_NAME: &str = ".pprof_empty_system_name";
    /// 1-based column of the function's start (V8's `columnNumber + 1`).
    pub const START_COLUMN: &str = ".start_column";
    /// V8's `scriptId` of the function's script.
    pub const SCRIPT_ID: &str = ".script_id";
}

/// Extension tables.
pub mod tables {
    /// Binaries and their address ranges (pprof `Mapping`, OTLP mappings).
    pub const MAPPINGS: &str = "mappings";
    /// Key/value labels of samples (pprof `Label`, OTLP attributes).
    pub const SAMPLE_LABELS: &str = "sample_labels";
}
