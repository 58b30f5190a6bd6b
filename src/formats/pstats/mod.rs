//! Python's cProfile / profile statistics (`python -m cProfile -o out.prof`,
//! `pstats.Stats.dump_stats`): the `marshal` dump of
//! `{(file, line, funcname): (cc, nc, tt, ct, {(caller key): (nc, cc, tt, ct)})}`, written by
//! Python 2 or 3.
//!
//! Reading:
//! * A pstats file has no stacks, only caller → callee pairs with what the callee spent for
//!   that caller. One sample per pair, stack `[caller, callee]`, with the pair's `tt` as
//!   `time`/`nanoseconds` (seconds × 10⁹, rounded to whole nanoseconds) and its `nc` as
//!   `calls`/`count`; a function without callers (the profiler's root) is one sample
//!   `[function]` with its own figures. Where the callers' figures add up to less than the
//!   function's (calls made before a caller was on the profiler's stack), the rest is one more
//!   sample `[function]`. So each function's self time is pstats' `tottime`, its self calls
//!   `ncalls`, and the total the file's `total_tt`. Deeper stacks are never invented; a
//!   warning says so. `time` is the default type.
//! * Primitive calls and cumulative time do not add up over callers (recursion), so they are
//!   columns, not value types: `samples..primitive_calls` and `samples..cumulative_time`
//!   (seconds) for a pair's `cc` and `ct` (NA on a remainder sample), and the same columns on
//!   `functions` for each function's own `cc` and `ct`.
//! * Functions: name = funcname, filename = file, start line = line; built-ins (`~`, line 0)
//!   are named as pstats prints them (`{built-in method builtins.exec}`), system name as
//!   written, no file; the `profile` module's built-ins (file `""`) have no file either.
//! * Meta `pstats.total_tt` (seconds), `pstats.total_calls`, `pstats.primitive_calls`.
//! * Warnings: the missing stacks (always), a remainder below zero (callers that add up to more
//!   than the function), callers with call counts only (the `profile` module: their time stays
//!   on the function alone), keys given twice, bytes after the marshal object.
//! * Errors: another marshal type than dict, tuple, list, int, long, float, string (a type code
//!   with its byte offset), data cut short, references to objects not read, nesting deeper
//!   than [`marshal::MAX_NESTING`], a dict entry not of the pstats shape (its position named),
//!   more caller pairs than input bytes (callers dicts shared by reference).

mod marshal;
mod read;
mod stats;

pub use read::read;

/// Format name used in errors and warnings.
pub const NAME: &str = "pstats";
/// `samples` and `functions` extension column: primitive (non-recursive) calls, `cc` (dbl).
pub const PRIMITIVE_CALLS: &str = ".primitive_calls";
/// `samples` and `functions` extension column: cumulative time `ct`, seconds (dbl).
pub const CUMULATIVE_TIME: &str = ".cumulative_time";

/// Bytes of the input the detector decodes at most.
const DETECT_PREFIX: usize = 64 * 1024;

/// True for the marshal dump of a dict whose first entry has the pstats shape: a key
/// `(str, int, str)` and a value tuple of five items, four numbers then a dict. An empty dict
/// is claimed only when it is the whole input.
pub fn detect(bytes: &[u8]) -> bool {
    let head = bytes.get(..DETECT_PREFIX).unwrap_or(bytes);
    if matches!(head, [b'{' | 0xfb, b'0']) {
        return true;
    }
    let mut d = marshal::Decoder::new(head);
    if !d.open_dict() {
        return false;
    }
    d.object(1).is_ok_and(|k| stats::func_key(&k).is_ok())
        && d.open_tuple() == Some(5)
        && (0..4).all(|_| d.object(2).is_ok_and(|n| n.as_f64().is_some()))
        && d.open_dict()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detect_needs_the_first_entry() {
        let entry: &[u8] = b"\xfb)\x03\xda\x01~\xe9\x00\x00\x00\x00\xda\x01f)\x05\xe9\x01\x00\x00\x00r\x02\x00\x00\x00g\x00\x00\x00\x00\x00\x00\x00\x00g\x00\x00\x00\x00\x00\x00\x00\x00{00";
        assert!(detect(entry));
        assert!(detect(b"{0"));
        // A value tuple stored for references takes a slot before its items.
        let flagged = b"{)\x03\xfa\x01ai\x01\x00\x00\x00z\x01f\xa9\x05\xe9\x01\x00\x00\x00r\x02\x00\x00\x00g\x00\x00\x00\x00\x00\x00\x00\x00g\x00\x00\x00\x00\x00\x00\x00\x00{00";
        assert!(detect(flagged));
        assert!(!detect(b"{0 "));
        assert!(!detect(&entry[..entry.len() - 3]));
        assert!(!detect(br#"{"a": 1}"#));
        assert!(!detect(
            b"{(\x03\x00\x00\x00s\x01\x00\x00\x00ai\x01\x00\x00\x00s\x01\x00\x00\x00b)\x04"
        ));
    }
}
