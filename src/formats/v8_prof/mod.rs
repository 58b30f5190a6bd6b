//! V8's `--prof` tick log after `node --prof-process --preprocess` (`isolate*.log` → JSON):
//! `{"code": [...], "functions": [...], "ticks": [...]}`.
//!
//! Reading:
//! * One sample per entry of `ticks`, in file order: `samples`/`count` = 1 (the unit of the
//!   tick processor's own report). No time value type: speedscope weighs a tick by the µs since
//!   the previous one, which charges gaps (GC pauses of the sampler, startup) to whatever tick
//!   follows; ticks are taken at a fixed interval, so the count is the faithful weight.
//! * `.time` = `tm` (µs since the log started) in seconds. `.vm_state` = V8's `StateTag` name
//!   of `vm` (`JS`, `GC`, `PARSER`, `BYTECODE_COMPILER`, `COMPILER`, `OTHER`, `EXTERNAL`,
//!   `ATOMICS_WAIT`, `IDLE`, `LOGGING`; another number is kept as its digits, warning).
//! * Stacks: `s` holds pairs, innermost frame first: `[code index, pc offset]` for a pc inside
//!   a `code` entry, `[-1, raw address]` for a pc the tick processor could not resolve. A
//!   resolved pair becomes the location of its code entry; an unresolved one a location named
//!   `0x…` with `locations..address`. The pc offsets are not kept (one warning).
//! * Code entries: `JS` names `"name file:line:col"` → function name (anonymous ones named
//!   `(anonymous file:line)`), filename, start line, `functions..start_column`; `CPP`,
//!   `SHARED_LIB` and `CODE` names are the function names as written. One location per
//!   function and code kind, so optimized and interpreted code of a function stay apart.
//!   `locations..frame_type`: `v8js` for `JS`, `native` for `CPP` and `SHARED_LIB`, NA for
//!   V8's own `CODE` (builtins, bytecode handlers, stubs, IC handlers). `.code_kind`: `kind`
//!   when given (`Opt`, `Unopt`, `Sparkplug`, `Builtin`, `BytecodeHandler`, …), else `type`.
//! * `functions` (JS function ids), `tm` and `source` of code entries are not read.
//! * Errors: a code index outside `code`, a pair cut in half, a stack deeper than the limit.

mod read;

use super::json_scan;

pub use read::read;

/// Format name used in errors and warnings.
pub const NAME: &str = "v8-prof";
/// `samples` extension column: V8's VM state of the tick (`JS`, `GC`, …).
pub const SAMPLE_VM_STATE: &str = ".vm_state";
/// `locations` extension column: the code entry's `kind`, else its `type`.
pub const LOCATION_CODE_KIND: &str = ".code_kind";

/// The `type` values of code entries the tick processor writes.
const CODE_TYPES: [&str; 4] = ["CODE", "CPP", "JS", "SHARED_LIB"];

/// True for a JSON object whose `code` and `ticks` are arrays, whose first `code` entry (if
/// any) has `name` and a known `type`, and whose first tick (if any) has `tm`, `vm` and `s`.
pub fn detect(bytes: &[u8]) -> bool {
    let Some(m) = json_scan::top_level_members(bytes) else {
        return false;
    };
    let (Some(code), Some(ticks)) = (
        json_scan::member(&m, "code"),
        json_scan::member(&m, "ticks"),
    ) else {
        return false;
    };
    let code_ok = match first_object(bytes, code.value.start) {
        Some(None) => true,
        Some(Some(c)) => {
            json_scan::member(&c, "name").is_some()
                && json_scan::member_str(bytes, &c, "type")
                    .is_some_and(|t| CODE_TYPES.contains(&t.as_str()))
        }
        None => false,
    };
    let ticks_ok = match first_object(bytes, ticks.value.start) {
        Some(None) => true,
        Some(Some(t)) => ["tm", "vm", "s"]
            .iter()
            .all(|k| json_scan::member(&t, k).is_some()),
        None => false,
    };
    code_ok && ticks_ok
}

/// The members of the first element of the array at `open`: `Some(None)` for an empty array,
/// `None` when it is not an array or its first element is not an object.
fn first_object(bytes: &[u8], open: usize) -> Option<Option<Vec<json_scan::Member>>> {
    let elements = json_scan::array_elements(bytes, open, 1)?;
    match elements.first() {
        None => Some(None),
        Some(r) if bytes.get(r.start) == Some(&b'{') => {
            json_scan::object_members(bytes, r.start).map(Some)
        }
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detect_needs_code_and_ticks() {
        assert!(detect(
            br#"{"code":[{"name":"a","type":"JS"}],"functions":[],"ticks":[{"tm":1,"vm":0,"s":[0,1]}]}"#
        ));
        assert!(detect(br#"{"code":[],"ticks":[]}"#));
        assert!(!detect(br#"{"code":[{"name":"a","type":"X"}],"ticks":[]}"#));
        assert!(!detect(br#"{"code":[],"ticks":[{"tm":1}]}"#));
        assert!(!detect(br#"{"code":{},"ticks":[]}"#));
        assert!(!detect(b"[]"));
    }
}
