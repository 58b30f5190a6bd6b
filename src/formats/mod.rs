//! Readers and writers, one module per format, registered in [`registry`].
//!
//! Every module exposes `detect(&[u8]) -> bool` (content sniffing on a bounded prefix, never the
//! file name), `read(&[u8], &ReadOptions) -> Result<Parsed, ReadError>` and, where the format
//! can be written, `write(&Profile, &WriteOptions) -> Result<Written, WriteError>`. Adding a
//! format means adding its module and one [`FormatSpec`] line to [`registry`]; the CLI, the wasm
//! API and the viewer's export menu pick it up from there.

pub mod bz2;
pub mod callgrind;
pub mod collapsed;
#[cfg(feature = "columnar")]
pub mod columnar;
pub mod cpuprofile;
pub mod demangle;
pub mod dhat;
pub mod error;
pub mod firefox;
pub mod ghc_prof;
pub mod goroutine_dump;
pub mod gzip;
pub mod gzip_stream;
pub mod heapprofile;
pub mod heaptrack;
mod inflate;
pub mod inline;
pub mod instruments;
pub mod jfr;
pub(crate) mod json_scan;
pub mod loss;
pub mod massif;
pub mod otlp;
pub mod papyrus;
pub mod perf_data;
pub mod perf_script;
pub mod pmcstat;
pub mod pprof;
pub mod pprof_text;
pub(crate) mod protowire;
pub mod pstats;
pub(crate) mod read_common;
mod registry;
pub mod rprof;
pub mod safari;
pub mod sniff;
pub mod speedscope;
pub mod stackprof;
pub mod stream;
pub mod tables_json;
#[cfg(test)]
pub(crate) mod test_corpus;
pub mod trace_event;
pub mod unwritten;
pub mod v8_prof;
pub(crate) mod write_common;
pub mod zip;
pub mod zstd;

use crate::model::Profile;
pub use error::{Place, ReadError, Warning, Warnings, WriteError};
pub use json_scan::MAX_JSON_DEPTH;
pub use registry::{
    decompress, decompressed_as, detect, detect_through_compression, read_any, read_as,
    readable_names, registry, writable_names, write_as, SNIFF_DECOMPRESSED_BYTES,
};

/// Every format proftab knows, readable or writable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// proftab's own lossless JSON of the v2 tables.
    TablesJson,
    /// tables-JSON of the legacy v1 format (docs/model.md).
    TablesJsonV1,
    /// pprof `profile.proto`, gzipped or raw.
    Pprof,
    /// pprof's legacy text formats (Go's `debug=1` profiles, C++ and Java text profiles).
    PprofText,
    /// pprof's legacy binary CPU profile (gperftools' `ProfilerStart`, Go before 1.9).
    PprofLegacyCpu,
    /// R's `Rprof` output.
    Rprof,
    /// Brendan Gregg's collapsed / folded stacks.
    Collapsed,
    /// Firefox Profiler processed JSON.
    Firefox,
    /// speedscope JSON.
    Speedscope,
    /// OpenTelemetry OTLP profiles (protobuf).
    Otlp,
    /// OTLP/JSON (written under this name; read as [`Format::Otlp`], whose detector knows it).
    OtlpJson,
    /// Chrome / Node `.cpuprofile` (and Chrome traces wrapping one).
    Cpuprofile,
    /// Go goroutine stack dumps (`?debug=2`, SIGQUIT / panic tracebacks).
    GoroutineDump,
    /// Linux `perf script` text output.
    PerfScript,
    /// Linux `perf.data` (what `perf record` writes).
    PerfData,
    /// Node / Chrome `.heapprofile` (V8 sampling heap profiler).
    Heapprofile,
    /// Chrome trace event format: duration (`B`/`E`) and complete (`X`) events.
    TraceEvent,
    /// valgrind's callgrind (also xdebug, php-spx).
    Callgrind,
    /// valgrind DHAT JSON (`valgrind --tool=dhat`).
    Dhat,
    /// Apple Instruments deep-copy text (call tree with weights).
    Instruments,
    /// Ruby stackprof JSON.
    Stackprof,
    /// FreeBSD `pmcstat -G` call graphs.
    Pmcstat,
    /// Papyrus (Skyrim / Fallout 4) script and stack profiling logs.
    Papyrus,
    /// GHC's JSON cost-centre profile (`+RTS -pj`).
    GhcProf,
    /// V8's `--prof` tick log, preprocessed to JSON (`node --prof-process --preprocess`).
    V8Prof,
    /// Python's cProfile / profile statistics (`marshal` dump read by `pstats`).
    Pstats,
    /// heaptrack's data files (`heaptrack.APP.PID.zst`/`.gz`, after `heaptrack_interpret`).
    Heaptrack,
    /// valgrind massif output (`valgrind --tool=massif`).
    Massif,
    /// Safari Web Inspector timeline recording (JSON export with sampled JavaScript stacks).
    Safari,
    /// Java Flight Recorder recordings (`.jfr`).
    Jfr,
}

/// All formats, in the order used to list them.
pub const ALL_FORMATS: [Format; 30] = [
    Format::TablesJson,
    Format::TablesJsonV1,
    Format::Pprof,
    Format::PprofText,
    Format::PprofLegacyCpu,
    Format::Rprof,
    Format::Collapsed,
    Format::Firefox,
    Format::Speedscope,
    Format::Otlp,
    Format::OtlpJson,
    Format::Cpuprofile,
    Format::GoroutineDump,
    Format::PerfScript,
    Format::PerfData,
    Format::Heapprofile,
    Format::TraceEvent,
    Format::Callgrind,
    Format::Dhat,
    Format::Instruments,
    Format::Stackprof,
    Format::Pmcstat,
    Format::Papyrus,
    Format::GhcProf,
    Format::V8Prof,
    Format::Pstats,
    Format::Heaptrack,
    Format::Massif,
    Format::Safari,
    Format::Jfr,
];

impl Format {
    /// The name used by `--to` and in messages.
    pub fn name(self) -> &'static str {
        match self {
            Format::TablesJson => "tables-json",
            Format::TablesJsonV1 => "tables-json-v1",
            Format::Pprof => "pprof",
            Format::PprofText => "pprof-text",
            Format::PprofLegacyCpu => "pprof-legacy-cpu",
            Format::Rprof => "rprof",
            Format::Collapsed => "collapsed",
            Format::Firefox => "firefox",
            Format::Speedscope => "speedscope",
            Format::Otlp => "otlp",
            Format::OtlpJson => "otlp-json",
            Format::Cpuprofile => "cpuprofile",
            Format::GoroutineDump => "goroutine-dump",
            Format::PerfScript => "perf-script",
            Format::PerfData => "perf-data",
            Format::Heapprofile => "heapprofile",
            Format::TraceEvent => "trace-event",
            Format::Callgrind => "callgrind",
            Format::Dhat => "dhat",
            Format::Instruments => "instruments",
            Format::Stackprof => "stackprof",
            Format::Pmcstat => "pmcstat",
            Format::Papyrus => "papyrus",
            Format::GhcProf => "ghc-prof",
            Format::V8Prof => "v8-prof",
            Format::Pstats => "pstats",
            Format::Heaptrack => "heaptrack",
            Format::Massif => "massif",
            Format::Safari => "safari",
            Format::Jfr => "jfr",
        }
    }

    /// File name endings that imply this format for output (`convert -o`), longest first
    /// across formats is resolved by [`Format::from_path`].
    pub fn extensions(self) -> &'static [&'static str] {
        match self {
            Format::TablesJson => &[".json"],
            Format::TablesJsonV1 => &[],
            Format::Pprof => &[".pb.gz", ".pb", ".pprof"],
            Format::PprofText => &[],
            Format::PprofLegacyCpu => &[],
            Format::Rprof => &[".out", ".Rprof", ".rprof"],
            Format::Collapsed => &[".folded", ".collapsed"],
            Format::Firefox => &[".firefox.json"],
            Format::Speedscope => &[".speedscope.json"],
            Format::Otlp => &[".otlp"],
            Format::OtlpJson => &[".otlp.json"],
            Format::Cpuprofile => &[".cpuprofile"],
            Format::GoroutineDump => &[],
            Format::PerfScript => &[],
            Format::PerfData => &[".data"],
            Format::Heapprofile => &[".heapprofile"],
            Format::TraceEvent => &[],
            Format::Callgrind => &[],
            Format::Dhat => &[],
            Format::Instruments => &[],
            Format::Stackprof => &[],
            Format::Pmcstat => &[],
            Format::Papyrus => &[],
            Format::GhcProf => &[],
            Format::V8Prof => &[],
            Format::Pstats => &[],
            Format::Heaptrack => &[],
            Format::Massif => &[],
            Format::Safari => &[],
            Format::Jfr => &[],
        }
    }

    /// The format called `name` (as printed by [`Format::name`]).
    pub fn from_name(name: &str) -> Option<Format> {
        ALL_FORMATS.into_iter().find(|f| f.name() == name)
    }

    /// The format implied by an output path's ending; the longest matching ending wins, so
    /// `x.speedscope.json` is speedscope and `x.json` tables-JSON.
    pub fn from_path(path: &str) -> Option<Format> {
        let lower = path.to_ascii_lowercase();
        ALL_FORMATS
            .into_iter()
            .flat_map(|f| f.extensions().iter().map(move |e| (f, *e)))
            .filter(|(_, e)| lower.ends_with(&e.to_ascii_lowercase()))
            .max_by_key(|(_, e)| e.len())
            .map(|(f, _)| f)
    }
}

/// Limits that keep hostile input from exhausting memory. Every limit is checked while reading.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Largest decompressed size of a gzip or zstd stream, in bytes.
    pub max_decompressed_bytes: usize,
    /// Largest expansion of compressed input, as decompressed bytes per compressed byte, once
    /// the output passes [`EXPANSION_FLOOR_BYTES`] (see [`Limits::decompressed_cap`]).
    pub max_expansion_ratio: usize,
    /// Largest number of samples.
    pub max_samples: usize,
    /// Largest stack depth of one sample.
    pub max_stack_depth: usize,
}

/// Default for [`Limits::max_decompressed_bytes`]: 1 GiB.
pub const DEFAULT_MAX_DECOMPRESSED_BYTES: usize = 1 << 30;
/// Default for [`Limits::max_expansion_ratio`]: 300. Measured on the corpus (184 files; every
/// file over 1 KB compressed with `gzip -9`, `bzip2 -9` and `zstd -19`, and the 15 compressed
/// files as found): the largest ratio is 223 (`zstd -19` of an Rprof file of repeated lines,
/// 120 with gzip), real `.pb.gz`/`.zst`/`.bz2` files 2–36; a gzip bomb of zeros reaches 1030.
pub const DEFAULT_MAX_EXPANSION_RATIO: usize = 300;

/// The message of a decompressor whose output passed `cap`: names the ways to raise it.
pub fn over_cap_message(cap: usize) -> String {
    format!(
        "the decompressed data exceeds the limit of {cap} bytes (Limits::max_decompressed_bytes \
         and max_expansion_ratio; raise it with --max-decompressed SIZE in the CLI or the \
         maxDecompressedBytes option of Profile.parseWith)"
    )
}

/// Output size below which [`Limits::max_expansion_ratio`] is not applied: 64 MiB (small inputs
/// are never refused for their ratio).
pub const EXPANSION_FLOOR_BYTES: usize = 64 << 20;
/// Default for [`Limits::max_samples`]: 50 million.
pub const DEFAULT_MAX_SAMPLES: usize = 50_000_000;
/// Default for [`Limits::max_stack_depth`]: 100,000 frames.
pub const DEFAULT_MAX_STACK_DEPTH: usize = 100_000;

impl Limits {
    /// Small limits for fuzzing, so that a limit hit is an error rather than an out-of-memory
    /// report (anchors-style-reliability.md C3): 16 MiB decompressed, 100,000 samples,
    /// 10,000 frames per stack.
    pub fn fuzzing() -> Self {
        Limits {
            max_decompressed_bytes: 16 << 20,
            max_expansion_ratio: DEFAULT_MAX_EXPANSION_RATIO,
            max_samples: 100_000,
            max_stack_depth: 10_000,
        }
    }
}

impl Limits {
    /// The decompressed size allowed for `compressed_len` compressed bytes: the absolute
    /// [`Limits::max_decompressed_bytes`], and past [`EXPANSION_FLOOR_BYTES`] at most
    /// [`Limits::max_expansion_ratio`] times the input.
    pub fn decompressed_cap(&self, compressed_len: usize) -> usize {
        let by_ratio = compressed_len
            .saturating_mul(self.max_expansion_ratio)
            .max(EXPANSION_FLOOR_BYTES);
        self.max_decompressed_bytes.min(by_ratio)
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_decompressed_bytes: DEFAULT_MAX_DECOMPRESSED_BYTES,
            max_expansion_ratio: DEFAULT_MAX_EXPANSION_RATIO,
            max_samples: DEFAULT_MAX_SAMPLES,
            max_stack_depth: DEFAULT_MAX_STACK_DEPTH,
        }
    }
}

/// Options for reading.
#[derive(Clone, Debug, Default)]
pub struct ReadOptions {
    /// What goes into `sources.source_uri` (usually the file name given).
    pub source_uri: Option<String>,
    /// Resource limits.
    pub limits: Limits,
}

/// Options for writing.
#[derive(Clone, Debug, Default)]
pub struct WriteOptions {
    /// The value type to write, for formats that hold one (collapsed, Firefox, speedscope);
    /// default: the profile's default value type.
    pub value_type: Option<String>,
    /// For formats that hold one profiling run (Rprof): write only the samples of this
    /// 1-based `source_id`, e.g. when the sources were sampled at different intervals.
    pub source_id: Option<usize>,
    /// The most bytes a writer that expands weights into lines (Rprof: one line per tick) may
    /// write; a profile past it is refused with a message that says so. Default (`None`):
    /// [`rprof::MAX_OUTPUT_BYTES`] (512 MiB).
    pub max_output_bytes: Option<usize>,
}

/// A profile read from bytes, with what the reader had to say about it.
#[derive(Clone, Debug)]
pub struct Parsed {
    /// The format that was read.
    pub format: Format,
    /// The profile.
    pub profile: Profile,
    /// Recoverable problems, and anything the format carried that could not be kept.
    pub warnings: Vec<Warning>,
}

/// Bytes written in a format, with what could not be expressed in it.
#[derive(Clone, Debug)]
pub struct Written {
    /// The file content.
    pub bytes: Vec<u8>,
    /// What the format could not hold.
    pub warnings: Vec<Warning>,
}

/// Content sniffer: true when the bytes look like the format.
pub type DetectFn = fn(&[u8]) -> bool;
/// Reader.
pub type ReadFn = fn(&[u8], &ReadOptions) -> Result<Parsed, ReadError>;
/// Writer.
pub type WriteFn = fn(&Profile, &WriteOptions) -> Result<Written, WriteError>;

/// One registered format.
#[derive(Clone, Copy, Debug)]
pub struct FormatSpec {
    /// Which format.
    pub format: Format,
    /// Content sniffer (`None` for write-only formats).
    pub detect: Option<DetectFn>,
    /// Reader.
    pub read: Option<ReadFn>,
    /// Writer.
    pub write: Option<WriteFn>,
}
