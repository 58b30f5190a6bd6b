//! Linux `perf.data` (read only): what `perf record` writes, in file mode (`PERFILE2` header of
//! 104 bytes and its sections) and pipe mode (`perf record -o -`, a 16-byte header and a record
//! stream), either byte order, with PERF_RECORD_COMPRESSED(2) records (`perf record -z`)
//! decoded by the pure-Rust `ruzstd`. `linux-perf-data` (mstange) parses the header, attrs and
//! feature sections; the data section's records are walked in place (`read/records.rs`) and
//! handed out in the crate's time order, their fields parsed by `linux-perf-event-reader` (or
//! in one pass for the common sample format, `read/sample.rs`). Nothing here opens files: it
//! builds for wasm32; [`read_file_with_binaries`] reads a file the caller opened, in chunks.
//!
//! Model, as [`perf_script`](super::perf_script) names the same recording, so that the two
//! mix: one sample per PERF_RECORD_SAMPLE, value types `samples`/`count` = 1 (the default) and
//! one type per event (`cycles`, `cpu-clock`, … without perf's modifier suffix such as `:u`),
//! valued by the sample's period (the attr's fixed period when the sample has none); the
//! software clocks' unit is `nanoseconds`, others `count`. A sample has a value only for its
//! own event.
//!
//! Sample columns: `.thread_name` (the thread's `comm` at the sample's time), `.pid`, `.tid`,
//! `.cpu` (when recorded), `.time` (seconds from the first sample; the first timestamp as perf
//! script prints it is meta `perf.first_sample_time`), `.event` (the event name with its
//! modifiers). Samples are in time order.
//!
//! Frames: the callchain, innermost first, with its context markers (kernel / user / guest)
//! deciding where each address is looked up; the leaf is the sample's IP (perf's own choice
//! for self time). LBR call stacks (`--call-graph lbr`) give the user part from the branch
//! stack as perf does. Frames are not symbolised here: a frame in a mapped binary is named
//! `DSO+0xOFFSET` (the file's base name, the offset in the file), its function's `filename`
//! the DSO as perf prints it, its location keeps `.address`, `.mapping_id` and `.frame_type`
//! (`kernel` or `native`); a frame outside every mapping is `[unknown]`. The `mappings`
//! extension table has one row per mapped range (MMAP / MMAP2), with the build-id of the
//! build-id header feature (or of MMAP2 itself). `go tool pprof` can symbolise the pprof that
//! `proftab convert` writes from these; the CLI's symboliser does so too.
//!
//! Meta: `perf.hostname`, `perf.os_release`, `perf.version`, `perf.arch`, `perf.cpu_desc`,
//! `perf.cmdline`, `perf.event` (one row per event, as named in the file).
//!
//! `--call-graph dwarf` samples: with binaries ([`read_with_binaries`]) the user stack copy is
//! unwound with framehop (`read/unwind.rs`); without, or when the IP is in no binary given,
//! the sample keeps its leaf and the kernel's chain. Source lines and inlined frames come with
//! the symbols ([`symbolize`], [`lines`]).
//!
//! Warned: unsymbolised frames (counted), lost samples (PERF_RECORD_LOST), DWARF stacks not
//! unwound and those unwound only part of the way (counted), records that could not be parsed
//! (skipped, counted), a compressed stream cut short.

pub mod binaries;
pub mod kallsyms;
pub mod lines;
mod read;
pub mod symbolize;
mod symbols;

use super::{Parsed, ReadError, ReadOptions};

/// Format name in messages.
pub const FORMAT: &str = "perf-data";

/// Meta key: the first sample's timestamp as `perf script` prints it (seconds, perf's clock).
pub const META_FIRST_TIME: &str = "perf.first_sample_time";
/// Meta key: an event of the recording, as the file names it (repeated).
pub const META_EVENT: &str = "perf.event";
/// Meta keys of the header features kept, with the feature they come from.
pub const META_HOSTNAME: &str = "perf.hostname";
/// Meta key: `uname -r` of the recording machine.
pub const META_OS_RELEASE: &str = "perf.os_release";
/// Meta key: the version of perf that recorded.
pub const META_VERSION: &str = "perf.version";
/// Meta key: the machine architecture.
pub const META_ARCH: &str = "perf.arch";
/// Meta key: the CPU description.
pub const META_CPU_DESC: &str = "perf.cpu_desc";
/// Meta key: the `perf record` command line.
pub const META_CMDLINE: &str = "perf.cmdline";

/// The magic of a little-endian perf.data (file or pipe mode).
const MAGIC_LE: &[u8; 8] = b"PERFILE2";
/// The magic of a big-endian perf.data.
const MAGIC_BE: &[u8; 8] = b"2ELIFREP";
/// Size of the file-mode header (`struct perf_file_header`).
pub(crate) const FILE_HEADER_SIZE: u64 = 104;
/// Size of the pipe-mode header (`struct perf_pipe_file_header`).
pub(crate) const PIPE_HEADER_SIZE: u64 = 16;

/// True when the input starts with perf's `PERFILE2` magic (either byte order) followed by the
/// size of a file-mode or pipe-mode header.
pub fn detect(bytes: &[u8]) -> bool {
    header_kind(bytes).is_some()
}

/// File or pipe mode, and whether the file is big-endian; `None` when not a perf.data header.
pub(crate) fn header_kind(bytes: &[u8]) -> Option<(bool, bool)> {
    let magic: &[u8; 8] = bytes.get(..8)?.try_into().ok()?;
    let big = match magic {
        m if m == MAGIC_LE => false,
        m if m == MAGIC_BE => true,
        _ => return None,
    };
    let size: [u8; 8] = bytes.get(8..16)?.try_into().ok()?;
    let size = if big {
        u64::from_be_bytes(size)
    } else {
        u64::from_le_bytes(size)
    };
    match size {
        FILE_HEADER_SIZE => Some((false, big)),
        PIPE_HEADER_SIZE => Some((true, big)),
        _ => None,
    }
}

/// Reads a perf.data recording; `--call-graph dwarf` stacks keep their leaf only (see
/// [`read_with_binaries`]).
pub fn read(bytes: &[u8], options: &ReadOptions) -> Result<Parsed, ReadError> {
    read::read(bytes, options, None)
}

/// Reads a perf.data recording, unwinding its `--call-graph dwarf` stacks with the binaries
/// `binaries(path, build_id)` gives (the binary and its separate debug file, as for
/// [`symbolize::symbolize`]); it is asked once per binary the recording maps.
pub fn read_with_binaries<'a>(
    bytes: &[u8],
    options: &'a ReadOptions,
    binaries: &'a mut symbolize::BinarySource<'a>,
) -> Result<Parsed, ReadError> {
    read::read(bytes, options, Some(binaries))
}

/// A seekable file for [`read_file_with_binaries`].
pub use read::Source;

/// [`read_with_binaries`] of a file-mode recording read from `file` in chunks, never held
/// whole; `None` when it has to be read whole instead (not a file-mode recording, compressed
/// records, a header the reader refuses: [`read_with_binaries`] of its bytes then gives
/// the result or the error). The result is the one of the whole file.
pub fn read_file_with_binaries<'a>(
    file: &mut dyn Source,
    options: &'a ReadOptions,
    binaries: &'a mut symbolize::BinarySource<'a>,
) -> Result<Option<Parsed>, ReadError> {
    read::read_file(file, options, Some(binaries))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection() {
        let mut file = b"PERFILE2".to_vec();
        file.extend(104u64.to_le_bytes());
        let mut pipe = b"PERFILE2".to_vec();
        pipe.extend(16u64.to_le_bytes());
        let mut be = b"2ELIFREP".to_vec();
        be.extend(104u64.to_be_bytes());
        for yes in [&file, &pipe, &be] {
            assert!(detect(yes));
        }
        let mut odd = b"PERFILE2".to_vec();
        odd.extend(99u64.to_le_bytes());
        for no in [&b"PERFILE2"[..], &odd, b"PERFFILE\x68\0\0\0\0\0\0\0", b""] {
            assert!(!detect(no));
        }
    }
}
