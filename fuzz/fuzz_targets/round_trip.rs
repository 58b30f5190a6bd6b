//! Round trip: bytes → `read_any` → every writable format → read back → the same total per
//! value type, as far as the target format holds value types: all of them (tables-JSON, pprof,
//! OTLP), or the one it writes (firefox, speedscope, collapsed: the default type; tables-JSON
//! v1: `samples`; Rprof: none, see [`compared_totals`]). A
//! writer's error on a valid profile is a finding unless it is a documented refusal
//! ([`documented_refusal`]); a changed total is a finding unless the values are not integers
//! and the writer warned that it lost something (e.g. rounding to pprof's integers).
#![no_main]

mod support;

use proftab::formats::{
    read_any, read_as, registry, write_as, Format, Limits, ReadOptions, WriteError, WriteOptions,
    Written,
};
use proftab::model::Profile;
use support::{fuzz_options, integral, type_total};

/// The most samples the read-back of an expanding writer's output (tables-JSON v1, Rprof) may
/// hold (see [`round_trip`]).
const EXPANDED_READ_BACK_MAX_SAMPLES: usize = 1_000_000;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(parsed) = read_any(data, &fuzz_options()) else {
        return;
    };
    let p = &parsed.profile;
    let violations = p.validate();
    assert!(violations.is_empty(), "invalid profile: {violations:?}");
    for spec in registry().iter().filter(|s| s.write.is_some()) {
        round_trip(p, spec.format);
    }
});

/// The most bytes the Rprof writer may write here: 4 MiB instead of its default 512 MiB, whose
/// outputs (20 million lines from an 8 KiB input) took seconds and a gigabyte each and held
/// the fifth pass at 72 executions a second. Past it the writer refuses, as documented.
const MAX_OUTPUT_BYTES: usize = 4 << 20;

/// The writers' options: the defaults, with the output bound above.
fn write_options() -> WriteOptions {
    WriteOptions {
        max_output_bytes: Some(MAX_OUTPUT_BYTES),
        ..WriteOptions::default()
    }
}

/// `p` written as `format` and read back keeps its totals (see the file's documentation).
fn round_trip(p: &Profile, format: Format) {
    let name = format.name();
    let written = match write_as(format, p, &write_options()) {
        Ok(w) => w,
        Err(e) => {
            assert!(
                documented_refusal(format, p, &e),
                "{name}: a valid profile: {e}"
            );
            return;
        }
    };
    // Read back with the default limits: a writer may legitimately expand (Rprof writes one
    // line per tick), and its output is bounded by the writer's own limits. Tables-JSON v1 is
    // the exception: it aggregates, and reading it repeats each stack `value` times (its
    // semantics, bounded by `max_samples`), so 52 fuzzed pprof-legacy rows of 8.9 million
    // samples became 8.9 million samples: 0.14 s in a release build, over the 1 s timeout in
    // this instrumented one. Rprof is the other: one line per tick, up to the writer's 512 MiB,
    // so an 8 KiB input can write 20 million lines, whose read-back took 924 MB (a fifth-pass
    // run climbed to 997 MB of its 1 GB limit). Their read-backs are capped at a million
    // samples; past that the refusal is accepted below, so their totals are compared whenever
    // the expansion fits.
    let max_samples = match format {
        Format::TablesJsonV1 | Format::Rprof => EXPANDED_READ_BACK_MAX_SAMPLES,
        _ => Limits::default().max_samples,
    };
    let options = ReadOptions {
        source_uri: None,
        limits: Limits {
            max_samples,
            ..Limits::default()
        },
    };
    let back = match format.can_read() {
        true => read_as(format, &written.bytes, &options),
        false => read_any(&written.bytes, &options),
    };
    let back = match back {
        Ok(b) => b.profile,
        Err(e) => {
            // tables-json-v1 and otlp-json have no reader of their own; a collapsed file of no
            // lines (no samples, or all dropped with a warning) is empty, which no reader takes;
            // an Rprof file past the read-back's cap of samples is refused as such.
            let nothing =
                written.bytes.is_empty() && (p.num_samples() == 0 || !written.warnings.is_empty());
            let past_cap = format == Format::Rprof && e.to_string().contains("(limit max_samples)");
            assert!(
                !format.can_read() || nothing || past_cap,
                "{name}: proftab's output does not read back: {e}"
            );
            return;
        }
    };
    for (type_name, before) in compared_totals(p, format) {
        let dropped = format!("value type {type_name}/");
        if written
            .warnings
            .iter()
            .any(|w| w.message.contains(&dropped))
        {
            continue; // "not written: value type NAME/UNIT": a loss the writer states
        }
        let after = type_total_or_default(&back, &type_name, format);
        let before = if drops_negative_samples(&written) {
            positive_total(p, &type_name)
        } else {
            before
        };
        check_total(p, &written, &type_name, before, after);
    }
}

/// True when the writer says it left out the samples with negative values (speedscope weights
/// and collapsed counts cannot be negative): then only the positive values are compared.
fn drops_negative_samples(written: &Written) -> bool {
    written.warnings.iter().any(|w| {
        w.message
            .contains("samples with negative values were not written")
    })
}

/// The sum of the positive values of value type `name` in `p`.
fn positive_total(p: &Profile, name: &str) -> f64 {
    p.value_type_index(name)
        .and_then(|vt| p.value_column(vt))
        .map_or(0.0, |c| {
            (0..c.values.len())
                .filter_map(|s| c.get(s))
                .filter(|v| *v > 0.0)
                .sum()
        })
}

/// True when `format` holds every value type (else only the written one).
fn holds_all_types(format: Format) -> bool {
    matches!(
        format,
        Format::TablesJson | Format::TablesJsonV1 | Format::Pprof | Format::Otlp | Format::OtlpJson
    )
}

/// `(value type, total)` of `p` that `format` holds. None for Rprof: its writer turns the
/// values into timer ticks (a count into lines, a time into rounded ticks, each with a
/// warning), so its output is checked to read back, and the rprof target checks its fixpoint.
fn compared_totals(p: &Profile, format: Format) -> Vec<(String, f64)> {
    if format == Format::Rprof {
        return Vec::new();
    }
    if format == Format::TablesJsonV1 {
        return vec![("samples".to_owned(), type_total(p, "samples"))];
    }
    if holds_all_types(format) {
        return p
            .values
            .iter()
            .map(|c| (p.str(c.value_type).to_owned(), c.total()))
            .collect();
    }
    p.default_value_type()
        .and_then(|vt| p.value_column(vt))
        .map(|c| vec![(p.str(c.value_type).to_owned(), c.total())])
        .unwrap_or_default()
}

/// The total of `name` in `back`; single-type formats may rename their one type (speedscope
/// and firefox name it by unit), so there the default type stands for it.
fn type_total_or_default(back: &Profile, name: &str, format: Format) -> f64 {
    if back.value_type_index(name).is_some() || holds_all_types(format) {
        return type_total(back, name);
    }
    back.default_value_type()
        .and_then(|vt| back.value_column(vt))
        .map_or(0.0, |c| c.total())
}

/// True when the writer says it clamped values to its integer range (pprof and OTLP hold
/// int64): then a total beyond that range changes, as stated.
fn clamped(written: &Written) -> bool {
    written.warnings.iter().any(|w| {
        w.message.contains("beyond the int64 range clamped")
            || (w.message.contains("pprof values are integers")
                && !w.message.contains(" 0 clamped"))
    })
}

/// A total kept: equal (NaN to NaN, or within the rounding of decimal text, 1e-9 relative);
/// else only for non-integral values of which the writer warned.
fn check_total(p: &Profile, written: &Written, name: &str, before: f64, after: f64) {
    let close = before == after
        || (before.is_nan() && after.is_nan())
        || (before - after).abs() <= 1e-9 * before.abs().max(after.abs());
    if close || (!integral(p) && !written.warnings.is_empty()) || clamped(written) {
        return;
    }
    panic!(
        "total of {name}: {before} before, {after} after; warnings: {:?}",
        written.warnings
    );
}

/// Refusals the writers document: no value type to write; tables-JSON v1 holds only
/// `samples/count`, in counts from 0 to R's `.Machine$integer.max`; Rprof's need for a count or a time
/// per sample, one interval, and a bounded output.
fn documented_refusal(format: Format, p: &Profile, e: &WriteError) -> bool {
    let message = e.to_string();
    if p.values.is_empty() && message.contains("no value types") {
        return true;
    }
    if format == Format::TablesJsonV1 {
        return message.contains("v1 holds only the value type samples/count")
            || message.contains("v1 counts must be integers from 0 to");
    }
    format == Format::Rprof
        && [
            "Rprof lines are timer ticks",
            "one sampling interval",
            "would make the Rprof file larger",
        ]
        .iter()
        .any(|m| message.contains(m))
}
