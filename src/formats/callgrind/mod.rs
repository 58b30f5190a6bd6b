//! callgrind profiles (valgrind's `--tool=callgrind`, also written by xdebug, php-spx and
//! converters), read only; the grammar is valgrind's "Callgrind Format Specification".
//!
//! Reading:
//! * Each event of `events:` (`Ir`, `Dr`, …) is a value type with unit `count`; the first is
//!   the default type. Header lines (`creator:`, `cmd:`, `desc:`, `positions:`, `totals:`, …)
//!   are kept in meta as `callgrind.<key>`, one row per line.
//! * A function is (name, file) as callgrind_annotate counts it (`fi=`/`fe=` inline files
//!   included); recursion-level suffixes (`fact'2`) are stripped, so all levels are one
//!   function. Its object (`ob=`) is `functions..callgrind_object`; instruction addresses
//!   (`positions: instr line`) are `locations..address`.
//! * callgrind has no stacks, only self cost per (function, position) and inclusive costs of
//!   caller → callee calls. The stacks are reconstructed from the call edges (see
//!   `read/tree.rs`) and a warning says so; self costs per function and position stay exact,
//!   so function tables and totals equal callgrind_annotate's. Call counts are not kept.
//!
//! Detection claims text whose examined lines all fit the grammar, given the magic first line
//! `# callgrind format` or an `events:` header followed by `fn=` lines.

mod grammar;
mod read;

use super::sniff::Sniff;
use grammar::{classify, Line};
pub use read::read;

/// Format name used in errors and warnings.
pub const NAME: &str = "callgrind";

/// Prefix of the meta keys of header lines (`callgrind.creator`, `callgrind.cmd`, …).
pub const META_PREFIX: &str = "callgrind.";

/// `functions..callgrind_object`: the object file (`ob=`) of the function.
pub const FUNCTION_OBJECT: &str = ".callgrind_object";

/// Bytes of the input examined by [`detect`].
const DETECT_PREFIX_BYTES: usize = 64 * 1024;
/// Lines (blank and comments included) examined by [`detect`].
const DETECT_MAX_LINES: usize = 400;
/// The magic first line valgrind writes.
const MAGIC: &str = "# callgrind format";

/// True when the examined complete lines of the prefix all fit the callgrind grammar and
/// either the first line is the magic `# callgrind format` or an `events:` header comes
/// before the first `fn=` line.
pub fn detect(bytes: &[u8]) -> bool {
    matches!(sniff(bytes), Sniff::Fits)
}

/// [`detect`], saying why not once some line fitted (or the magic line was there).
pub fn sniff(bytes: &[u8]) -> Sniff {
    let prefix = bytes.get(..DETECT_PREFIX_BYTES).unwrap_or(bytes);
    let head = prefix.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(prefix);
    // Judge the valid UTF-8 part (a cut may split a character; file names may be Latin-1).
    let (text, cut) = match std::str::from_utf8(head) {
        Ok(text) => (text, prefix.len() < bytes.len()),
        Err(e) => (
            std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or_default(),
            true,
        ),
    };
    // Only complete lines of a cut prefix.
    let complete = if cut {
        text.rfind('\n').map_or("", |end| &text[..end])
    } else {
        text
    };
    if complete.contains('\0') {
        return Sniff::Foreign;
    }
    let magic = complete
        .lines()
        .next()
        .is_some_and(|l| l.trim_end() == MAGIC);
    let (mut events, mut functions, mut seen) = (false, false, 0usize);
    for (i, line) in complete.lines().take(DETECT_MAX_LINES).enumerate() {
        let why = match classify(line) {
            None => format!("line {} is no callgrind line", i + 1),
            Some(Line::Cost(_)) if !events && !magic => {
                format!("line {} is a cost line before any `events:`", i + 1)
            }
            Some(line) => {
                seen += usize::from(!matches!(line, Line::Skip));
                match line {
                    Line::Header("events", v) if !v.is_empty() => events = true,
                    Line::Assign("fn", _) => functions |= events,
                    _ => {}
                }
                continue;
            }
        };
        return match magic || seen > 0 {
            true => Sniff::near(seen, why),
            false => Sniff::Foreign,
        };
    }
    match (magic || (events && functions), events) {
        (true, _) => Sniff::Fits,
        (false, true) => Sniff::near(seen, "no `fn=` line after `events:`"),
        (false, false) if seen > 0 => Sniff::near(seen, "no `events:` line"),
        _ => Sniff::Foreign,
    }
}

#[cfg(test)]
mod tests {
    use super::detect;

    #[test]
    fn detection() {
        assert!(detect(b"# callgrind format\nevents: Ir\nfn=main\n1 2\n"));
        assert!(detect(
            b"version: 1\ncreator: xdebug\nevents: Time\n\nfl=(1) a.php\nfn=(1) main\n1 2\n"
        ));
        assert!(!detect(b"main;foo 12\nmain 3\n"));
        assert!(!detect(b"events: Ir\n"));
        assert!(!detect(b"{\"a\": 1}"));
        assert!(!detect(b"16 20\n17 30\n"));
    }
}
