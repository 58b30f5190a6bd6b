//! Linux `perf script` output (read only): the text `perf script -i perf.data` prints, in its
//! default layout and with `-F` field lists (comm, pid/tid, cpu, time, period, event, ip, sym,
//! dso, `+srcline`), `--inline` and `--header`. The grammar is in [`grammar`].
//!
//! Model: one sample per sample header, its frames innermost first as printed. Value types:
//! `samples`/`count` = 1 for every sample (the default type, so totals compare with
//! `perf report -n`), and one type per event (`cpu-clock`, `cycles`, … without perf's
//! modifier suffix such as `:pppH`): the sample's period when printed, else 1; the software
//! clocks' unit is `nanoseconds`, others `count`. A sample has a value only for its own event.
//!
//! Sample columns: `.thread_name` (the command, `comm`), `.pid`, `.tid`, `.cpu` (int, present
//! when printed), `.time` (dbl, seconds from the first sample; the first timestamp as printed
//! is meta `perf.first_sample_time`), `.event` (chr, the event name as printed, modifiers
//! included).
//!
//! Frames: `functions.name` and `system_name` are the symbol as printed without its `+0x…`
//! offset (mangled C++/Rust names are kept as they are: perf demangles C++ itself unless asked
//! not to, and proftab does not demangle), `filename` the DSO as printed (`[kernel.kallsyms]`,
//! `/usr/lib/libc.so.6`, `/tmp/a.out (deleted)`; NA for `[unknown]`; an inlined frame, printed
//! without DSO, has the DSO of the frame it is inlined into: the next frame at its address; a
//! frame marked inlined without one is kept as not inlined and without DSO, with a warning). Location columns:
//! `.address` (u64, the printed address), `.frame_type` (`kernel` for kernel DSOs, else
//! `native`), `.inlined` (TRUE for `--inline` frames); `locations.line` is the `+srcline`
//! line, 0 when not printed.
//!
//! Meta: `perf.header`, one row per line of the `# ========` block `perf script --header`
//! prints before the first sample. Warned and not kept: `#` lines after the first sample,
//! fields after the event that are not a frame (tracepoint fields), indented lines that are
//! neither frames nor source lines, the file names of source lines.

mod grammar;

/// Used by perf-data too, so both name an event's value type alike.
pub(crate) use grammar::event_value_type;
mod read;

use super::read_common::detect_prefix_text;
use super::sniff::Sniff;
use super::{Parsed, ReadError, ReadOptions};

/// Format name in messages.
pub const FORMAT: &str = "perf-script";

/// Meta key: one line of the `perf script --header` block (repeated).
pub const META_HEADER: &str = "perf.header";
/// Meta key: the first sample's timestamp as printed (seconds, perf's clock).
pub const META_FIRST_TIME: &str = "perf.first_sample_time";
/// Sample column: the CPU the sample was taken on (int).
pub const SAMPLE_CPU: &str = ".cpu";
/// Sample column: the event name as printed (chr).
pub const SAMPLE_EVENT: &str = ".event";

/// Bytes of the input [`detect`] looks at.
const DETECT_PREFIX_BYTES: usize = 64 * 1024;

/// True when the output fits `perf script`'s grammar: see [`sniff`].
pub fn detect(bytes: &[u8]) -> bool {
    matches!(sniff(bytes), Sniff::Fits)
}

/// The output fits when the first line that is neither blank nor a `#` comment is a sample
/// header with a pid or a time (`COMM PID … TIME: …`) and the next line that is not blank is
/// an indented frame line (`ADDR SYMBOL (DSO)`), or the header itself ends with such a frame.
pub fn sniff(bytes: &[u8]) -> Sniff {
    let Some(text) = detect_prefix_text(bytes, DETECT_PREFIX_BYTES) else {
        return Sniff::Foreign;
    };
    if super::json_scan::opens_object(bytes) {
        return Sniff::Foreign;
    }
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'));
    let Some((n, first)) = lines.next() else {
        return Sniff::Foreign;
    };
    let Some(header) = grammar::parse_header(first) else {
        return Sniff::near(
            0,
            format!("line {n} is not a sample header (`COMM PID TIME: EVENT:`)"),
        );
    };
    if header.pid.is_none() && header.time.is_none() {
        return Sniff::near(
            0,
            format!("line {n} is not a sample header (no pid, no time)"),
        );
    }
    if !header.rest.is_empty() {
        return match header.time.is_some() && is_plausible_frame(header.rest) {
            true => Sniff::Fits,
            false => Sniff::near(1, format!("line {n}: the sample header ends in no frame")),
        };
    }
    match lines.next() {
        Some((_, l)) if l.starts_with(char::is_whitespace) && is_plausible_frame(l) => Sniff::Fits,
        Some((m, _)) => Sniff::near(1, format!("line {m} is not a frame (`ADDR SYMBOL (DSO)`)")),
        None => Sniff::near(1, "the sample header is followed by no frame"),
    }
}

/// A frame with an address, or with a DSO without spaces (`(primary key)` ends prose).
fn is_plausible_frame(text: &str) -> bool {
    grammar::parse_frame(text).is_some_and(|f| {
        f.address.is_some() || f.inlined || f.dso.is_some_and(|d| !d.contains(' '))
    })
}

/// Reads `perf script` output.
pub fn read(bytes: &[u8], options: &ReadOptions) -> Result<Parsed, ReadError> {
    read::read(bytes, options)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection() {
        for yes in [
            "work 1  2.5:    1001001 cpu-clock:pppH: \n\t  115e alpha+0x15 (/tmp/w)\n",
            "# ========\n# x\n#\nsh 9/9 [000] 1.000001: cpu-clock: \n\tffff f ([kernel.kallsyms])\n",
            "w 1 1.5: 3 cycles:  115e alpha+0x15 (/tmp/w)\n",
        ] {
            assert!(detect(yes.as_bytes()), "{yes:?}");
        }
        for no in [
            "main;f 3\nmain;g 4\n",
            "goroutine 1 [running]:\nmain.main()\n",
            "work 1 2.5: 1 cpu-clock:\nnext line\n",
            "",
        ] {
            assert!(!detect(no.as_bytes()), "{no:?}");
        }
    }
}
