//! LBR call stacks (`perf record --call-graph lbr`): the user part of the stack comes from the
//! sample's branch stack, as perf's `resolve_lbr_callchain_sample` builds it (callee order): the
//! kernel's callchain up to PERF_CONTEXT_USER, then the first entry's `to` (the leaf), then
//! every entry's `from` (the call sites, innermost first). `linux-perf-event-reader` skips the
//! branch stack, so it is found here by walking the sample's fields in their kernel order.

use linux_perf_data::linux_perf_event_reader::{
    BranchSampleFormat, PerfEventAttr, ReadFormat, SampleFormat,
};

use super::decompress::Endian;

/// The fixed-size u64 fields before a sample's READ field, in their order.
const FIXED_FIELDS: [SampleFormat; 9] = [
    SampleFormat::IDENTIFIER,
    SampleFormat::IP,
    SampleFormat::TID,
    SampleFormat::TIME,
    SampleFormat::ADDR,
    SampleFormat::ID,
    SampleFormat::STREAM_ID,
    SampleFormat::CPU,
    SampleFormat::PERIOD,
];
/// PERF_FORMAT_LOST (not in the crate's flags).
const READ_FORMAT_LOST: u64 = 16;
/// Size of one branch entry (from, to, flags).
const BRANCH_ENTRY_SIZE: usize = 24;

/// The user frames of an LBR call stack, innermost first; `None` when the sample has no
/// (readable, non-empty) branch stack.
pub(super) fn user_frames(raw: &[u8], attr: &PerfEventAttr, e: Endian) -> Option<Vec<u64>> {
    let mut at = branch_stack_at(raw, attr, e)?;
    let nr = usize::try_from(word(raw, at, e)?).ok()?;
    at += 8;
    if attr
        .branch_sample_format
        .contains(BranchSampleFormat::HW_INDEX)
    {
        at += 8;
    }
    if nr == 0 {
        return None;
    }
    let entries = raw.get(at..at.checked_add(nr.checked_mul(BRANCH_ENTRY_SIZE)?)?)?;
    let field = |i: usize, k: usize| e.u64(&entries[i * BRANCH_ENTRY_SIZE + 8 * k..]);
    let mut frames = Vec::with_capacity(nr + 1);
    frames.push(field(0, 1));
    frames.extend((0..nr).map(|i| field(i, 0)));
    Some(frames)
}

/// The offset of the branch stack in a sample's body.
fn branch_stack_at(raw: &[u8], attr: &PerfEventAttr, e: Endian) -> Option<usize> {
    let f = attr.sample_format;
    let mut at = fixed_fields_size(f);
    if f.contains(SampleFormat::READ) {
        at += read_size(raw, at, attr.read_format, e)?;
    }
    if f.contains(SampleFormat::CALLCHAIN) {
        let n = usize::try_from(word(raw, at, e)?).ok()?;
        at = at.checked_add(n.checked_mul(8)?)?.checked_add(8)?;
    }
    if f.contains(SampleFormat::RAW) {
        let n = e.u32(raw.get(at..at.checked_add(4)?)?) as usize;
        at = at.checked_add(n)?.checked_add(4)?;
    }
    f.contains(SampleFormat::BRANCH_STACK).then_some(at)
}

/// Bytes of the fixed-size u64 fields a sample of format `f` starts with.
fn fixed_fields_size(f: SampleFormat) -> usize {
    8 * FIXED_FIELDS
        .iter()
        .filter(|&&flag| f.contains(flag))
        .count()
}

/// How many of the READ field's time words (enabled, running) format `r` has.
fn time_words(r: ReadFormat) -> usize {
    [
        ReadFormat::TOTAL_TIME_ENABLED,
        ReadFormat::TOTAL_TIME_RUNNING,
    ]
    .iter()
    .filter(|&&t| r.contains(t))
    .count()
}

/// The u64 at `at`, if the body holds it.
fn word(raw: &[u8], at: usize, e: Endian) -> Option<u64> {
    raw.get(at..at.checked_add(8)?).map(|b| e.u64(b))
}

/// Size of the READ field at `at`.
fn read_size(raw: &[u8], at: usize, r: ReadFormat, e: Endian) -> Option<usize> {
    let times = time_words(r);
    let per_value =
        1 + usize::from(r.contains(ReadFormat::ID)) + usize::from(r.bits() & READ_FORMAT_LOST != 0);
    if r.contains(ReadFormat::GROUP) {
        let nr = usize::try_from(word(raw, at, e)?).ok()?;
        nr.checked_mul(per_value)?
            .checked_add(1 + times)?
            .checked_mul(8)
    } else {
        Some(8 * (times + per_value))
    }
}

/// The bytes of a sample's callchain field (its length word and its entries), located as
/// `linux-perf-event-reader` reads it (its READ layout included); empty when the event has no
/// callchain. `None` when the length does not fit in the body, so that the crate's length × 8
/// cannot overflow (a panic in a debug build).
pub(super) fn callchain_range(
    raw: &[u8],
    attr: &PerfEventAttr,
    e: Endian,
) -> Option<std::ops::Range<usize>> {
    let f = attr.sample_format;
    if !f.contains(SampleFormat::CALLCHAIN) {
        return Some(0..0);
    }
    let mut at = fixed_fields_size(f);
    if f.contains(SampleFormat::READ) {
        let r = attr.read_format;
        let times = time_words(r);
        let id = usize::from(r.contains(ReadFormat::ID));
        at += if r.contains(ReadFormat::GROUP) {
            8 * (1 + times + id)
        } else {
            let nr = usize::try_from(word(raw, at, e)?).ok()?;
            nr.checked_mul(1 + id)?
                .checked_add(1 + times)?
                .checked_mul(8)?
        };
    }
    let n = usize::try_from(word(raw, at, e)?).ok()?;
    let end = n.checked_mul(8)?.checked_add(at)?.checked_add(8)?;
    (end <= raw.len()).then_some(at..end)
}
