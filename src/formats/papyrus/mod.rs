//! Papyrus profiling logs (Skyrim / Fallout 4 `StartScriptProfiling`, `StartStackProfiling`):
//! a `NAME log opened (PLATFORM)` line, then one event a line,
//! `TIME:EVENT:STACK:DEPTH:FORM:SCRIPT..FUNCTION` (time in milliseconds; `PUSH`, `POP`,
//! `QUEUE_PUSH`, `QUEUE_POP`, `START`, `STOP`), and `Log closed`.
//!
//! Reading:
//! * The calls are replayed per VM stack (the `STACK` field): `PUSH` enters the function, `POP`
//!   leaves it. Between two consecutive event times every stack with an open call gets one
//!   sample: its call stack, `time`/`nanoseconds` = the interval, `samples..time` = the
//!   interval's start (seconds from the first event), `samples..tid` = the stack id. Calls that
//!   start and end at the same millisecond take no time and leave no sample.
//! * The form a call ran on (`abcQuest (24021278)`, `None` left out) is `locations..form`:
//!   one location per function and form.
//! * Meta: `papyrus.log` (the name before `log opened`), `papyrus.platform`.
//! * Warnings: `POP`s of calls not open on their stack (entered before the log began) are
//!   skipped, `POP`s of a call below the top close the calls above it, `QUEUE_PUSH` /
//!   `QUEUE_POP` (events queued for a stack) are not kept, calls still open at the end are
//!   closed at the last event, unreadable lines are skipped; each counted. Errors: times that
//!   go backwards.

mod read;

use super::sniff::Sniff;
pub use read::read;

/// Format name used in errors and warnings.
pub const NAME: &str = "papyrus";
/// `locations` extension column: the form (object instance) a call ran on.
pub const LOCATION_FORM: &str = ".form";

/// Bytes [`detect`] examines.
const DETECT_PREFIX_BYTES: usize = 4096;

/// True when the log fits Papyrus' grammar: see [`sniff`].
pub fn detect(bytes: &[u8]) -> bool {
    matches!(sniff(bytes), Sniff::Fits)
}

/// The log fits when the first line is `NAME log opened (PLATFORM)` and the next non-blank line
/// an event line.
pub fn sniff(bytes: &[u8]) -> Sniff {
    let mut lines = super::read_common::numbered_prefix_lines(bytes, DETECT_PREFIX_BYTES);
    let Some((_, first)) = lines.next() else {
        return Sniff::Foreign;
    };
    if read::log_opened(first).is_none() {
        return match first.contains(" log opened") {
            true => Sniff::near(1, "line 1 is not `NAME log opened (PLATFORM)`"),
            false => Sniff::Foreign,
        };
    }
    match lines.find(|(_, l)| !l.trim().is_empty()) {
        Some((_, l)) if read::event(l).is_some() => Sniff::Fits,
        Some((m, _)) => Sniff::near(
            2,
            format!("line {m} is not an event `TIME:EVENT:STACK:DEPTH:FORM:SCRIPT..FUNCTION`"),
        ),
        None => Sniff::near(2, "the `log opened` line is followed by no event"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detect_needs_header_and_event() {
        assert!(detect(b"Stack_1 log opened (PC)\n5:PUSH:1:0:None:a..b\n"));
        assert!(!detect(b"Stack_1 log opened (PC)\nhello\n"));
        assert!(!detect(b"5:PUSH:1:0:None:a..b\n"));
    }
}
