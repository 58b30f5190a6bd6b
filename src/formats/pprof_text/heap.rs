//! Heap profiles: Go's `heap profile: A: B [C: D] @ heap/2R` (heap and allocs with `debug=1`)
//! and C++'s heapz, growthz and fragmentationz text (`parseHeap`, `parseHeapHeader`,
//! `parseHeapSample` and `scaleHeapSample` of `google/pprof:profile/legacy_profile.go`).
//!
//! Records are `INUSE_OBJECTS: INUSE_BYTES [ALLOC_OBJECTS: ALLOC_BYTES] @ 0x… 0x…`.

use std::iter::Peekable;

use super::collect::{Adjust, Collector};
use super::lines::{Cursor, Line, Lines};
use super::{err, read_records, read_trailer, FORMAT};
use crate::formats::ReadError;

/// How a heap profile's values were sampled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sampling {
    /// Not sampled (or at an unknown rate): values are read as they are.
    None,
    /// Poisson sampling every `rate` bytes on average: values are unsampled.
    Poisson(i64),
}

/// What the header says.
struct Header {
    sampling: Sampling,
    period: i64,
    /// True when the records' allocation counts are read (four value types).
    has_alloc: bool,
}

/// The header's counts: in-use objects and bytes, then allocated objects and bytes.
struct Totals([i64; 4]);

/// Reads a heap profile after its header line.
pub(super) fn read<'a>(
    lines: &mut Peekable<Lines<'a>>,
    header: Line<'a>,
    c: &mut Collector<'a>,
) -> Result<(), ReadError> {
    let h = parse_header(header, c)?;
    c.period("space", "bytes", h.period);
    if h.has_alloc {
        c.sample_types(&[
            ("alloc_objects", "count"),
            ("alloc_space", "bytes"),
            ("inuse_objects", "count"),
            ("inuse_space", "bytes"),
        ]);
    } else {
        c.sample_types(&[("objects", "count"), ("space", "bytes")]);
    }
    let mut raw = Vec::new();
    let end = read_records(lines, c, false, |line, c| {
        record(line, &h, &mut raw, c).map_err(|m| err(line.number, format!("heap record: {m}")))
    })?;
    read_trailer(lines, c, end)
}

fn parse_header(header: Line<'_>, c: &mut Collector<'_>) -> Result<Header, ReadError> {
    let bad = |m: String| {
        err(
            header.number,
            format!("heap profile header: {m} (expected `heap profile: A: B [C: D] @ heap/RATE`)"),
        )
    };
    let mut cur = Cursor::new(header.text.trim());
    cur.expect("heap profile:", "the start").map_err(bad)?;
    let totals = counts(&mut cur, false).map_err(bad)?;
    cur.expect("@", "`]`").map_err(bad)?;
    let kind = cur.name();
    let rate = if cur.eat("/") {
        Some(cur.integer("the sampling rate", false).map_err(bad)?)
    } else {
        None
    };
    if !cur.at_end() {
        return Err(bad(format!("unexpected {} at the end", cur.found())));
    }
    let [inuse_objects, inuse_bytes, alloc_objects, alloc_bytes] = totals.0;
    // pprof reads allocation counts when the header's allocation totals differ from the in-use
    // ones and are not zero.
    let has_alloc = (alloc_objects != inuse_objects && alloc_objects != 0)
        || (alloc_bytes != inuse_bytes && alloc_bytes != 0);
    let (sampling, period, has_alloc) = match kind {
        "heap" | "heap_v2" | "heapz_v2" => {
            // Go writes twice its MemProfileRate after `heap/` (as early C++ profilers did).
            let period = match (kind, rate) {
                ("heap", Some(r)) => r / 2,
                (_, Some(r)) => r,
                (_, None) => {
                    c.warnings.add(FORMAT, "no-rate", || {
                        format!(
                            "line {}: the header gives no sampling rate; values are read \
                             unscaled, as go tool pprof does",
                            header.number
                        )
                    });
                    0
                }
            };
            (Sampling::Poisson(period), period, has_alloc)
        }
        "heapprofile" => (Sampling::None, 1, has_alloc),
        "growthz" | "growth" | "fragmentationz" | "fragmentation" => (Sampling::None, 1, false),
        other => {
            return Err(bad(format!(
                "unknown kind {:?} after `@` (pprof knows heap, heap_v2, heapz_v2, \
                 heapprofile, growthz and fragmentationz)",
                super::lines::shorten(other)
            )))
        }
    };
    if rate.is_some() && sampling == Sampling::None {
        c.warnings.add(FORMAT, "ignored-rate", || {
            format!(
                "line {}: a `{kind}` profile is not sampled; the rate after `/` is ignored, as \
                 go tool pprof does",
                header.number
            )
        });
    }
    Ok(Header {
        sampling,
        period,
        has_alloc,
    })
}

/// `A: B [C: D]`: in-use objects and bytes (negative allowed in records), then allocated.
fn counts(cur: &mut Cursor<'_>, signed_inuse: bool) -> Result<Totals, String> {
    let inuse_objects = cur.integer("the in-use object count", signed_inuse)?;
    cur.expect(":", "the in-use object count")?;
    let inuse_bytes = cur.integer("the in-use byte count", signed_inuse)?;
    cur.expect("[", "the in-use byte count")?;
    let alloc_objects = cur.integer("the allocated object count", false)?;
    cur.expect(":", "the allocated object count")?;
    let alloc_bytes = cur.integer("the allocated byte count", false)?;
    cur.expect("]", "the allocated byte count")?;
    Ok(Totals([
        inuse_objects,
        inuse_bytes,
        alloc_objects,
        alloc_bytes,
    ]))
}

/// One record line.
fn record(
    line: Line<'_>,
    h: &Header,
    raw: &mut Vec<u64>,
    c: &mut Collector<'_>,
) -> Result<(), String> {
    let mut cur = Cursor::new(line.text.trim());
    let totals = counts(&mut cur, true)?;
    cur.expect("@", "`]` (a record ends in `@` and its stack addresses)")?;
    let [inuse_objects, inuse_bytes, alloc_objects, alloc_bytes] = totals.0;
    let mut values = Vec::with_capacity(4);
    let mut block_size = 0i64;
    if h.has_alloc {
        values.extend(unsample(
            alloc_objects,
            alloc_bytes,
            "allocation",
            h.sampling,
            &mut block_size,
        )?);
    } else if (alloc_objects, alloc_bytes) != (inuse_objects, inuse_bytes)
        && (alloc_objects, alloc_bytes) != (0, 0)
    {
        c.warnings.add(FORMAT, "alloc-dropped", || {
            format!(
                "line {}: the record's allocation counts differ from its in-use counts, but \
                 the header's totals say the profile has in-use counts only; allocation \
                 counts are not read, as go tool pprof does",
                line.number
            )
        });
    }
    values.extend(unsample(
        inuse_objects,
        inuse_bytes,
        "in-use",
        h.sampling,
        &mut block_size,
    )?);
    c.record_addresses(line.number, &values, cur.rest(), raw, Adjust::All)?;
    c.num_label("bytes", block_size as f64);
    Ok(())
}

/// The values of one (count, bytes) pair, unsampled; sets `block_size` (bytes per object,
/// before unsampling) when the count is not zero.
fn unsample(
    count: i64,
    bytes: i64,
    what: &str,
    sampling: Sampling,
    block_size: &mut i64,
) -> Result<[f64; 2], String> {
    if count == 0 && bytes != 0 {
        return Err(format!("{what} count was 0 but {what} bytes was {bytes}"));
    }
    if count == 0 {
        return Ok([0.0, 0.0]);
    }
    *block_size = bytes.wrapping_div(count);
    Ok(match sampling {
        Sampling::Poisson(rate) => scale_heap_sample(count, bytes, rate),
        Sampling::None => [count as f64, bytes as f64],
    })
}

/// pprof's `scaleHeapSample`: a sample of average size S drawn by a Poisson process of mean
/// rate R appears with probability `1 - exp(-S/R)`; dividing by it estimates the unsampled
/// values (truncated toward zero, as Go's `int64(float64)` conversion).
pub(super) fn scale_heap_sample(count: i64, size: i64, rate: i64) -> [f64; 2] {
    if count == 0 || size == 0 {
        return [0.0, 0.0];
    }
    if rate <= 1 {
        return [count as f64, size as f64];
    }
    let avg_size = size as f64 / count as f64;
    let scale = 1.0 / (1.0 - (-avg_size / rate as f64).exp());
    [
        (count as f64 * scale).trunc(),
        (size as f64 * scale).trunc(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaling_matches_go() {
        // runtime/pprof's protobuf of the same record (tests/fixtures/pprof-text/heap.pb.gz):
        // 63 objects of 64 bytes sampled every 4096 bytes → 4063 objects, 260069 bytes.
        assert_eq!(scale_heap_sample(63, 4032, 4096), [4063.0, 260_069.0]);
        assert_eq!(scale_heap_sample(5, 0, 4096), [0.0, 0.0]);
        assert_eq!(scale_heap_sample(5, 10, 1), [5.0, 10.0]);
    }
}
