//! Go goroutine stack dumps (read only): what `/debug/pprof/goroutine?debug=2` serves
//! (`pprof.Lookup("goroutine").WriteTo(w, 2)`, `runtime.Stack(buf, true)`), what a Go program
//! prints on SIGQUIT or with `GOTRACEBACK=all`, and panic tracebacks. The grammar is the
//! runtime's traceback printer (`runtime/traceback.go`, Go 1.19–1.23): see [`grammar`].
//!
//! Model: one sample per goroutine, value type `goroutine`/`count` = 1 (the type of Go's
//! goroutine profile, so that a dump combines and diffs with `?debug=0`/`?debug=1` profiles).
//! Frames are innermost first; a function line gives `functions.name` (the Go name without its
//! argument list; `runtime.gopanic` stays `panic`, as printed), its file line the `filename`
//! and `locations.line`. Location columns: `.pc_offset` (u64, the `+0x…` offset from the
//! function's entry; NA when absent, as for inlined frames) and `.inlined` (lgl, TRUE for
//! `name(...)` frames, which Go prints for frames inlined into the next frame).
//!
//! Sample columns: `.goroutine_id` (u64), `.goroutine_state` (chr: the wait reason and any
//! status item proftab does not know, e.g. `chan receive`, `running (scan)`), `.wait_minutes`
//! (int, NA when the header has none), `.locked_to_thread` (lgl), `.m` (chr, the `m=` field of
//! Go ≥ 1.21 headers with GOTRACEBACK ≥ system, NA otherwise). The `created by` lines are not
//! frames of the goroutine (pprof's goroutine profile does not show them either): the creator
//! goes to `.created_by` (chr, function name), `.created_by_location` (int, the id of a
//! `locations` row for the `go` statement, not used by any stack) and `.creator_goroutine_id`
//! (u64, Go ≥ 1.21's `in goroutine N`).
//!
//! Meta: `go.panic` holds the panic, fatal error or signal report before the first goroutine
//! (`panic: boom [recovered]`, its nested `\tpanic:` lines, `[signal …]`), as one text;
//! `go.exit_status` the `exit status N` line `go run` appends.
//!
//! Not kept, each with one counted warning: argument values (they belong to one call, not to a
//! location), `fp=`/`sp=`/`pc=` register values and `gp=`/`mp=` pointers, the frames Go left
//! out (`...additional frames elided...`: the stack is kept as printed), ancestor tracebacks
//! (`[originating from goroutine N]:`), lines before the panic message and lines outside
//! goroutines (register dumps, program output). A goroutine whose stack is unavailable is a
//! sample with an empty stack (warned). A file that ends inside a frame drops that last
//! goroutine with a warning and keeps the complete ones.

mod grammar;
mod reader;

use super::sniff::Sniff;
use super::{Parsed, ReadError, ReadOptions};

/// Format name in messages.
pub const FORMAT: &str = "goroutine-dump";

/// Meta key of the panic / fatal error / signal text before the first goroutine.
pub const META_PANIC: &str = "go.panic";
/// Meta key of `go run`'s `exit status N` line (the number).
pub const META_EXIT_STATUS: &str = "go.exit_status";

/// Sample column: the goroutine id (u64).
pub const SAMPLE_GOROUTINE_ID: &str = ".goroutine_id";
/// Sample column: the wait reason or status (chr).
pub const SAMPLE_STATE: &str = ".goroutine_state";
/// Sample column: minutes the goroutine has been waiting (int, NA when not printed).
pub const SAMPLE_WAIT_MINUTES: &str = ".wait_minutes";
/// Sample column: `locked to thread` (lgl).
pub const SAMPLE_LOCKED: &str = ".locked_to_thread";
/// Sample column: the header's `m=` field (chr).
pub const SAMPLE_M: &str = ".m";
/// Sample column: the function whose `go` statement created the goroutine (chr).
pub const SAMPLE_CREATED_BY: &str = ".created_by";
/// Sample column: the location of that `go` statement (int, a logical `locations` id).
pub const SAMPLE_CREATED_BY_LOCATION: &str = ".created_by_location";
/// Sample column: the goroutine that ran the `go` statement (u64, Go ≥ 1.21).
pub const SAMPLE_CREATOR_ID: &str = ".creator_goroutine_id";
/// Location column: the pc's offset from the function entry (u64).
pub const LOC_PC_OFFSET: &str = ".pc_offset";

/// Bytes of the input [`detect`] looks at.
const DETECT_PREFIX_BYTES: usize = 64 * 1024;

/// True when the first line that is not blank starts like a goroutine header (`goroutine N [`
/// or `goroutine N gp=`), or a panic / fatal error / signal line followed, before any line that
/// is not part of such a message, by a goroutine header.
pub fn detect(bytes: &[u8]) -> bool {
    matches!(sniff(bytes), Sniff::Fits)
}

/// [`detect`], saying why not: a first line that starts like a header but is none, or a panic
/// message without a goroutine header after it.
pub fn sniff(bytes: &[u8]) -> Sniff {
    let head = bytes.get(..DETECT_PREFIX_BYTES).unwrap_or(bytes);
    if head.contains(&0) {
        return Sniff::Foreign;
    }
    let text = String::from_utf8_lossy(head);
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((i, first)) = lines.next() else {
        return Sniff::Foreign;
    };
    if is_header_start(first) {
        return Sniff::Fits;
    }
    if grammar::is_panic_start(first) {
        return match lines.any(|(_, l)| is_header_start(l)) {
            true => Sniff::Fits,
            false => Sniff::near(2, "a panic message with no `goroutine N [STATE]:` after it"),
        };
    }
    match first.starts_with("goroutine ") {
        true => Sniff::near(1, format!("line {} is not `goroutine N [STATE]:`", i + 1)),
        false => Sniff::Foreign,
    }
}

/// `goroutine N [` or `goroutine N gp=`: the start of a header, as [`detect`] requires it.
fn is_header_start(text: &str) -> bool {
    let Some(rest) = text.strip_prefix("goroutine ") else {
        return false;
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0
        && rest
            .get(digits..)
            .is_some_and(|r| r.starts_with(" [") || r.starts_with(" gp="))
}

/// Reads a goroutine dump.
pub fn read(bytes: &[u8], options: &ReadOptions) -> Result<Parsed, ReadError> {
    reader::read(bytes, options)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection() {
        for yes in [
            "goroutine 1 [running]:\nmain.main()\n",
            "\n\ngoroutine 1 gp=0xc0 m=0 mp=0x5 [running]:\n",
            "panic: boom\n\ngoroutine 1 [running]:\n",
            "panic: x [recovered]\n\tpanic: y\n\ngoroutine 1 [running]:\n",
            "fatal error: all goroutines are asleep - deadlock!\n\ngoroutine 1 [chan receive]:\n",
            "SIGQUIT: quit\nPC=0x46 m=0 sigcode=0\n\ngoroutine 0 [idle]:\n",
        ] {
            assert!(detect(yes.as_bytes()), "{yes:?}");
        }
        for no in [
            "goroutine profile: total 3\n",
            "panic: boom\n",
            "main;goroutine 1 [x] 3\n",
            "",
        ] {
            assert!(!detect(no.as_bytes()), "{no:?}");
        }
    }
}
