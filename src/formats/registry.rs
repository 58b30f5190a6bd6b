//! The registry: every format with its detector, reader and writer, in detection order, and
//! what is built on it (detect by content, read any input, write as a format, the names). It
//! stands above the format modules (it names each one's functions); they, and the types they
//! share, stand below it in `formats/mod.rs`.

use super::*;

impl Format {
    /// The registry entry of this format, if it is implemented.
    pub fn spec(self) -> Option<&'static FormatSpec> {
        registry().iter().find(|s| s.format == self)
    }

    /// True when proftab can read this format.
    pub fn can_read(self) -> bool {
        self.spec().is_some_and(|s| s.read.is_some())
    }

    /// True when proftab can write this format.
    pub fn can_write(self) -> bool {
        self.spec().is_some_and(|s| s.write.is_some())
    }
}

/// The registered formats, in detection order: the most specific sniffers first.
pub fn registry() -> &'static [FormatSpec] {
    REGISTRY
}

/// One registry row.
const fn spec(
    format: Format,
    detect: Option<DetectFn>,
    read: Option<ReadFn>,
    write: Option<WriteFn>,
) -> FormatSpec {
    FormatSpec {
        format,
        detect,
        read,
        write,
    }
}

/// The rows of [`registry`].
const REGISTRY: &[FormatSpec] = &[
    spec(Format::Jfr, Some(jfr::detect), Some(jfr::read), None),
    // Binary with an 8-byte magic and a header size: claims nothing else.
    spec(
        Format::PerfData,
        Some(perf_data::detect),
        Some(perf_data::read),
        None,
    ),
    spec(
        Format::TablesJson,
        Some(tables_json::detect),
        Some(tables_json::read),
        Some(tables_json::write),
    ),
    spec(
        Format::TablesJsonV1,
        None,
        None,
        Some(tables_json::write_v1),
    ),
    spec(
        Format::Firefox,
        Some(firefox::detect),
        Some(firefox::read),
        Some(firefox::write),
    ),
    spec(
        Format::Speedscope,
        Some(speedscope::detect),
        Some(speedscope::read),
        Some(speedscope::write),
    ),
    spec(
        Format::Cpuprofile,
        Some(cpuprofile::detect),
        Some(cpuprofile::read),
        None,
    ),
    spec(
        Format::Heapprofile,
        Some(heapprofile::detect),
        Some(heapprofile::read),
        None,
    ),
    spec(
        Format::TraceEvent,
        Some(trace_event::detect),
        Some(trace_event::read),
        None,
    ),
    spec(Format::Dhat, Some(dhat::detect), Some(dhat::read), None),
    spec(
        Format::Stackprof,
        Some(stackprof::detect),
        Some(stackprof::read),
        None,
    ),
    spec(
        Format::V8Prof,
        Some(v8_prof::detect),
        Some(v8_prof::read),
        None,
    ),
    spec(
        Format::Safari,
        Some(safari::detect),
        Some(safari::read),
        None,
    ),
    spec(
        Format::GhcProf,
        Some(ghc_prof::detect),
        Some(ghc_prof::read),
        None,
    ),
    spec(
        Format::Pstats,
        Some(pstats::detect),
        Some(pstats::read),
        None,
    ),
    spec(
        Format::PprofLegacyCpu,
        Some(pprof_text::legacy_cpu::detect),
        Some(pprof_text::legacy_cpu::read),
        None,
    ),
    spec(
        Format::Pprof,
        Some(pprof::detect),
        Some(pprof::read),
        Some(pprof::write),
    ),
    spec(
        Format::Otlp,
        Some(otlp::detect),
        Some(otlp::read),
        Some(otlp::write),
    ),
    spec(Format::OtlpJson, None, None, Some(otlp::write_json)),
    spec(
        Format::Rprof,
        Some(rprof::detect),
        Some(rprof::read),
        Some(rprof::write),
    ),
    spec(
        Format::PprofText,
        Some(pprof_text::detect),
        Some(pprof_text::read),
        None,
    ),
    spec(
        Format::Massif,
        Some(massif::detect),
        Some(massif::read),
        None,
    ),
    spec(
        Format::Instruments,
        Some(instruments::detect),
        Some(instruments::read),
        None,
    ),
    spec(
        Format::Pmcstat,
        Some(pmcstat::detect),
        Some(pmcstat::read),
        None,
    ),
    spec(
        Format::Papyrus,
        Some(papyrus::detect),
        Some(papyrus::read),
        None,
    ),
    spec(
        Format::GoroutineDump,
        Some(goroutine_dump::detect),
        Some(goroutine_dump::read),
        None,
    ),
    spec(
        Format::PerfScript,
        Some(perf_script::detect),
        Some(perf_script::read),
        None,
    ),
    spec(
        Format::Heaptrack,
        Some(heaptrack::detect),
        Some(heaptrack::read),
        None,
    ),
    spec(
        Format::Callgrind,
        Some(callgrind::detect),
        Some(callgrind::read),
        None,
    ),
    spec(
        Format::Collapsed,
        Some(collapsed::detect),
        Some(collapsed::read),
        Some(collapsed::write),
    ),
];

/// The format of `bytes`, by content alone.
pub fn detect(bytes: &[u8]) -> Option<Format> {
    registry()
        .iter()
        .find(|s| s.detect.is_some_and(|d| d(bytes)))
        .map(|s| s.format)
}

/// Reads `bytes` in whatever format their content shows.
pub fn read_any(bytes: &[u8], options: &ReadOptions) -> Result<Parsed, ReadError> {
    if bytes.is_empty() {
        return Err(ReadError::whole("input", "the file is empty"));
    }
    if let Some(format) = detect(bytes) {
        return read_as(format, bytes, options);
    }
    // Any format may come compressed: detect on a bounded decompressed prefix, and inflate
    // the whole only for a format that claims it (a bomb of zeros is refused after 1 MiB).
    let Some(layer) = compression_of(bytes) else {
        return Err(unclaimed(bytes, options));
    };
    let head = (layer.prefix)(bytes, SNIFF_DECOMPRESSED_BYTES).unwrap_or_default();
    let Some(format) = detect_decompressed(&head) else {
        if head.len() < SNIFF_DECOMPRESSED_BYTES {
            // All of it fit in the prefix (or none decoded): the decoder's own error (corrupt,
            // truncated, bad CRC) says more than "unrecognized".
            (layer.decompress)(bytes, SNIFF_DECOMPRESSED_BYTES, layer.name)?;
        }
        return Err(unrecognized(&head, layer.description));
    };
    drop(head);
    let cap = options.limits.decompressed_cap(bytes.len());
    let inner = (layer.decompress)(bytes, cap, layer.name)?;
    read_as(format, &inner, options)
}

/// The decompressed bytes of `bytes` when they are compressed (a compression of
/// [`COMPRESSIONS`]) and what they hold is `format` (detected on a prefix, as [`read_any`]
/// does); `None` otherwise. For the callers that read a format with more than its bytes (a
/// perf.data with its binaries), so that its compressed form gets the same.
pub fn decompressed_as(
    format: Format,
    bytes: &[u8],
    options: &ReadOptions,
) -> Result<Option<Vec<u8>>, ReadError> {
    let Some(layer) = compression_of(bytes) else {
        return Ok(None);
    };
    if detect_compressed(layer, bytes) != Some(format) {
        return Ok(None);
    }
    let cap = options.limits.decompressed_cap(bytes.len());
    (layer.decompress)(bytes, cap, layer.name).map(Some)
}

/// The compression of [`COMPRESSIONS`] that `bytes` start with.
fn compression_of(bytes: &[u8]) -> Option<&'static Compression> {
    COMPRESSIONS.iter().find(|c| (c.is)(bytes))
}

/// The format of the decompressed prefix of `bytes` (compressed with `layer`).
fn detect_compressed(layer: &Compression, bytes: &[u8]) -> Option<Format> {
    detect_decompressed(&(layer.prefix)(bytes, SNIFF_DECOMPRESSED_BYTES)?)
}

/// Whether bytes begin as a format does.
type BeginsAs = fn(&[u8]) -> bool;

/// The JSON formats whose detectors need the whole top level, told by how their first
/// [`BEGINS_AS_BYTES`] begin instead where those cannot be whole: in a compressed file's first
/// MiB ([`detect_decompressed`]) and in a file cut short ([`unclaimed`]).
const BEGINS_AS: [(Format, BeginsAs); 3] = [
    (Format::Cpuprofile, cpuprofile::begins_as),
    (Format::Speedscope, speedscope::begins_as),
    (Format::TraceEvent, trace_event::begins_as),
];

/// The format the first [`SNIFF_DECOMPRESSED_BYTES`] of decompressed input show: [`detect`],
/// or, when `head` is that long (the input may go on), a JSON format whose detector needs the
/// whole top level, by how it begins (a `.cpuprofile`'s `nodes` hold most of the file, so its
/// other members lie past any prefix of a large one).
pub fn detect_decompressed(head: &[u8]) -> Option<Format> {
    detect(head).or_else(|| {
        let cut = head.len() >= SNIFF_DECOMPRESSED_BYTES && !sniff::looks_binary(head);
        cut.then(|| json_begun_as(head).next())?
    })
}

/// How many bytes the [`BEGINS_AS`] rules look at.
const BEGINS_AS_BYTES: usize = 4096;

/// The formats of [`BEGINS_AS`] whose start `bytes` have, in order.
fn json_begun_as(bytes: &[u8]) -> impl Iterator<Item = Format> + '_ {
    let head = json_scan::prefix(bytes, BEGINS_AS_BYTES);
    BEGINS_AS
        .iter()
        .filter(move |(_, begins_as)| begins_as(head))
        .map(|(format, _)| *format)
}

/// The format of `bytes` by content, looking through a compression of [`COMPRESSIONS`] when
/// no format claims the compressed bytes (on a decompressed prefix; `bytes` may be cut short).
pub fn detect_through_compression(bytes: &[u8]) -> Option<Format> {
    detect(bytes).or_else(|| {
        let layer = compression_of(bytes)?;
        detect_compressed(layer, bytes)
    })
}

/// Reads `inner`, the decompressed bytes of a compressed input, as [`read_any`] reads that
/// input: as `claimed` when a detector claimed the compressed bytes, else as the format the
/// decompressed bytes show; `description` names them in the "unrecognized format" message.
pub fn read_decompressed(
    claimed: Option<Format>,
    inner: &[u8],
    description: &str,
    options: &ReadOptions,
) -> Result<Parsed, ReadError> {
    let head = inner.get(..SNIFF_DECOMPRESSED_BYTES).unwrap_or(inner);
    match claimed.or_else(|| detect_decompressed(head)) {
        Some(format) => read_as(format, inner, options),
        None => Err(unrecognized(head, description)),
    }
}

/// How many decompressed bytes [`read_any`] examines to detect the format of compressed input
/// (every detector looks at a prefix of at most 64 KiB; the rest is margin).
pub const SNIFF_DECOMPRESSED_BYTES: usize = 1 << 20;

/// A capped decoder: input, output cap in bytes, the name its errors carry.
type DecompressFn = fn(&[u8], usize, &'static str) -> Result<Vec<u8>, ReadError>;

/// A decoder of at most the given number of bytes from the start, for sniffing.
type PrefixFn = fn(&[u8], usize) -> Option<Vec<u8>>;

/// A compression any format may arrive in: its magic test, its prefix and capped decoders.
struct Compression {
    /// The name errors of the decoder carry.
    name: &'static str,
    /// What the "unrecognized format" message calls the decompressed bytes.
    description: &'static str,
    is: fn(&[u8]) -> bool,
    prefix: PrefixFn,
    decompress: DecompressFn,
}

/// The compressions [`read_any`] undoes: gzip (pprof and most `.gz` files), zstd (heaptrack's
/// `.zst`), bzip2 (massif files are often kept as `.bz2`).
const COMPRESSIONS: &[Compression] = &[
    Compression {
        name: "gzip",
        description: "gzip-compressed data",
        is: gzip::is_gzip,
        prefix: gzip::gunzip_prefix,
        decompress: gzip::gunzip_capped,
    },
    Compression {
        name: "zstd",
        description: "zstd-compressed data",
        is: zstd::is_zstd,
        prefix: zstd::unzstd_prefix,
        decompress: zstd::unzstd_capped,
    },
    Compression {
        name: "bzip2",
        description: "bzip2-compressed data",
        is: bz2::is_bzip2,
        prefix: bz2::bunzip2_prefix,
        decompress: bz2::bunzip2_capped,
    },
];

/// `bytes` decompressed, with what the "unrecognized format" message calls them, when they
/// start with the magic of a compression in [`COMPRESSIONS`]; `None` when they do not. The
/// output is capped at `cap` bytes (an error past it).
pub fn decompress(bytes: &[u8], cap: usize) -> Result<Option<(Vec<u8>, &'static str)>, ReadError> {
    let Some(layer) = compression_of(bytes) else {
        return Ok(None);
    };
    let inner = (layer.decompress)(bytes, cap, layer.name)?;
    Ok(Some((inner, layer.description)))
}

/// The error for uncompressed `bytes` no detector claimed. Some formats are claimed only when
/// their top level is whole: the binary ones without a magic number (raw pprof, binary OTLP)
/// and the JSON ones whose detector reads the top-level members (`.cpuprofile`, speedscope,
/// trace events in the JSON Object Format).
/// Bytes that begin as one of them, cut short or broken further on, get its reader's error,
/// which says where and how; anything else is [`unrecognized`], which names text's near misses.
fn unclaimed(bytes: &[u8], options: &ReadOptions) -> ReadError {
    let damaged = match sniff::looks_binary(bytes) {
        true => pprof::damaged(bytes, options).or_else(|| otlp::damaged(bytes, options)),
        false => json_begun_as(bytes).find_map(|format| read_as(format, bytes, options).err()),
    };
    damaged.unwrap_or_else(|| unrecognized(bytes, "input"))
}

/// The error for input no registered format recognizes; `what` names it in the message.
/// The readers that resembled it say what they found wrong, the most plausible first.
pub(crate) fn unrecognized(bytes: &[u8], what: &str) -> ReadError {
    let refusals = sniff::likely_refusals(bytes);
    let closest = match refusals.is_empty() {
        true => String::new(),
        false => format!("; {}", refusals.join("; ")),
    };
    ReadError::whole(
        "input",
        format!(
            "unrecognized format ({what} starts with {}){closest}; proftab reads {}",
            describe_prefix(bytes),
            readable_names().join(", ")
        ),
    )
}

/// Reads `bytes` as `format`.
pub fn read_as(format: Format, bytes: &[u8], options: &ReadOptions) -> Result<Parsed, ReadError> {
    let read = format
        .spec()
        .and_then(|s| s.read)
        .ok_or_else(|| ReadError::whole(format.name(), "proftab cannot read this format"))?;
    read(bytes, options)
}

/// Writes `profile` as `format`; the warnings end with what `format` cannot hold of the
/// profile ([`loss::report`]).
pub fn write_as(
    format: Format,
    profile: &Profile,
    options: &WriteOptions,
) -> Result<Written, WriteError> {
    let write = format
        .spec()
        .and_then(|s| s.write)
        .ok_or_else(|| WriteError::new(format.name(), "proftab cannot write this format"))?;
    let mut written = write(profile, options)?;
    written
        .warnings
        .extend(loss::report(format, profile, options));
    Ok(written)
}

/// Names of the readable formats.
pub fn readable_names() -> Vec<&'static str> {
    registry()
        .iter()
        .filter(|s| s.read.is_some())
        .map(|s| s.format.name())
        .collect()
}

/// Names of the writable formats.
pub fn writable_names() -> Vec<&'static str> {
    registry()
        .iter()
        .filter(|s| s.write.is_some())
        .map(|s| s.format.name())
        .collect()
}

/// A short, printable description of the first bytes, for "unrecognized format" messages.
fn describe_prefix(bytes: &[u8]) -> String {
    let head = &bytes[..bytes.len().min(8)];
    let hex: Vec<String> = head.iter().map(|b| format!("{b:02x}")).collect();
    format!("bytes {}", hex.join(" "))
}
