//! pprof's legacy binary CPU profile (`profilez`): what gperftools' `ProfilerStart` writes and
//! Go before 1.9 served at `/debug/pprof/profile`, read as `go tool pprof` reads it
//! (`parseCPU`, `cpuProfile`, `parseCPUSamples`, `cleanupDuplicateLocations` of
//! `google/pprof:profile/legacy_profile.go`).
//!
//! Layout, in native-endian words of 32 or 64 bits (pprof tries 32-bit little-endian,
//! 32-bit big-endian, 64-bit little-endian, 64-bit big-endian, in that order): the header
//! `0, 3, 0, PERIOD_USEC, 0`, records `COUNT, DEPTH, PC…` (leaf first), the end marker
//! `0, 1, 0`, then the text of `/proc/self/maps`.
//!
//! Kept: value types `samples`/count and `cpu`/nanoseconds (COUNT × period), period type
//! `cpu`/nanoseconds with the period in nanoseconds; one location per address with
//! `locations..address` (every address but the leaf minus one, as pprof does), the memory map's
//! mappings with `locations..mapping_id`. pprof's clean-ups are applied, each counted in a
//! warning: a second frame shared by (nearly) all samples is the signal handler's and is
//! removed (twice at most), and a leaf duplicated one below (address + 1) is removed.
//!
//! Java's binary CPU profile (header `0, 3, 1, …`, `javaCPUProfile` and `parseJavaLocations` of
//! `legacy_java_profile.go`): the words after the records are ids, kept as they are, named by
//! the `0xID function (file:line)` lines that follow (`pprof-text`'s Java reader); no address
//! column, no mappings, none of the clean-ups above.

use super::collect::{Adjust, Collector};
use super::java;
use super::lines::Lines;
use super::maps;
use crate::formats::{Format, Parsed, Place, ReadError, ReadOptions};

/// Format name in messages.
pub const FORMAT: &str = "pprof-legacy-cpu";

/// pprof's "allow one different sample for this many samples with the same second frame".
const SIMILAR_SAMPLES: usize = 32;
/// How many signal-handler frames pprof removes at most.
const MAX_HANDLER_FRAMES: usize = 2;
/// Words of the header.
const HEADER_WORDS: usize = 5;

/// Word size and byte order of a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Words {
    size: usize,
    big_endian: bool,
}

/// pprof's order of trial (`cpuInts`).
const LAYOUTS: [Words; 4] = [
    Words {
        size: 4,
        big_endian: false,
    },
    Words {
        size: 4,
        big_endian: true,
    },
    Words {
        size: 8,
        big_endian: false,
    },
    Words {
        size: 8,
        big_endian: true,
    },
];

impl Words {
    /// The word at byte `at`, if the input holds it whole.
    fn get(self, bytes: &[u8], at: usize) -> Option<u64> {
        let w = bytes.get(at..at.checked_add(self.size)?)?;
        let fold = |acc: u64, &b: &u8| (acc << 8) | u64::from(b);
        Some(if self.big_endian {
            w.iter().fold(0, fold)
        } else {
            w.iter().rev().fold(0, fold)
        })
    }

    /// The period (µs) when the input starts with the header `0, 3, KIND, PERIOD, 0` in this
    /// layout (KIND 0: C++ and Go, 1: Java).
    fn header(self, bytes: &[u8], kind: u64) -> Option<u64> {
        let h: Vec<u64> = (0..HEADER_WORDS)
            .map(|i| self.get(bytes, i * self.size))
            .collect::<Option<_>>()?;
        (h[0] == 0 && h[1] == 3 && h[2] == kind && h[3] > 0 && h[4] == 0).then_some(h[3])
    }
}

/// Which profiler wrote the file (the third header word).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// 0: gperftools (C++) or Go before 1.9.
    Native,
    /// 1: Java's CPU profiler, whose "addresses" are ids named by the text after the records.
    Java,
}

/// The layout, period and kind of the header at the start of `bytes`, tried as pprof does
/// (each layout, C++ then Java).
fn header(bytes: &[u8]) -> Option<(Words, u64, Kind)> {
    LAYOUTS.into_iter().find_map(|w| {
        [(0, Kind::Native), (1, Kind::Java)]
            .into_iter()
            .find_map(|(k, kind)| w.header(bytes, k).map(|period| (w, period, kind)))
    })
}

/// The error for input without a CPU profile header.
fn no_header() -> ReadError {
    ReadError::whole(
        FORMAT,
        "the input does not start with the header words 0, 3, 0 (or 1, Java), PERIOD, 0 (32- or \
         64-bit, either byte order)",
    )
}

/// True when `bytes` start with the header words `0, 3, 0, PERIOD, 0` (or `0, 3, 1, …`: Java)
/// in one of the layouts.
pub fn detect(bytes: &[u8]) -> bool {
    header(bytes).is_some()
}

fn err(at: usize, message: impl Into<String>) -> ReadError {
    ReadError::new(FORMAT, Place::Byte(at as u64), message)
}

/// The records: stacks (adjusted addresses, leaf first) and counts.
#[derive(Default)]
struct Samples {
    counts: Vec<u64>,
    stacks: Vec<Vec<u64>>,
}

/// Reads a legacy binary CPU profile.
pub fn read(bytes: &[u8], options: &ReadOptions) -> Result<Parsed, ReadError> {
    let (words, period_usec, kind) = header(bytes).ok_or_else(no_header)?;
    let mut c = Collector::new(options);
    c.set_format(Format::PprofLegacyCpu);
    let adjust = kind == Kind::Native;
    let (mut samples, trailer_at) = read_records(bytes, words, adjust, options, &mut c)?;
    if kind == Kind::Native {
        remove_handler_frames(&mut samples, &mut c);
        remove_duplicate_leaves(&mut samples, &mut c);
    }
    let period = i64::try_from(period_usec)
        .unwrap_or(i64::MAX)
        .saturating_mul(1000);
    c.period("cpu", "nanoseconds", period);
    c.sample_types(&[("samples", "count"), ("cpu", "nanoseconds")]);
    for (i, (count, stack)) in samples.counts.iter().zip(&samples.stacks).enumerate() {
        // pprof computes `int64(count) * period`.
        let n = *count as i64;
        c.record(
            i + 1,
            &[n as f64, n.wrapping_mul(period) as f64],
            stack,
            Adjust::None,
        )?;
    }
    let text = String::from_utf8_lossy(bytes.get(trailer_at..).unwrap_or(&[]));
    let mut lines = Lines::new(&text).peekable();
    match kind {
        Kind::Native => {
            let mappings = maps::read(&mut lines, &mut c.warnings);
            c.mappings(mappings);
        }
        Kind::Java => {
            c.keys_are_identifiers();
            java::read_locations(&mut lines, &mut c)?;
        }
    }
    c.finish()
}

/// Reads the records after the header up to the end marker; returns them and the byte offset
/// of the memory map.
fn read_records(
    bytes: &[u8],
    w: Words,
    adjust: bool,
    options: &ReadOptions,
    c: &mut Collector<'_>,
) -> Result<(Samples, usize), ReadError> {
    let mut samples = Samples::default();
    let mut at = HEADER_WORDS * w.size;
    while at < bytes.len() {
        let start = at;
        let (Some(count), Some(depth)) = (w.get(bytes, at), w.get(bytes, at + w.size)) else {
            return Err(err(
                start,
                format!(
                    "a record is cut short: {} bytes remain, a record starts with two {}-byte \
                     words (count, depth)",
                    bytes.len() - start,
                    w.size
                ),
            ));
        };
        at += 2 * w.size;
        let remaining = (bytes.len() - at) / w.size;
        if depth > remaining as u64 {
            return Err(err(
                start,
                format!(
                    "the record's depth {depth} is more than the {remaining} words that remain"
                ),
            ));
        }
        let depth = depth as usize;
        if count == 0 && depth == 1 && w.get(bytes, at) == Some(0) {
            return Ok((samples, at + w.size));
        }
        check_limits(start, depth, samples.counts.len(), options)?;
        let stack = (0..depth)
            .map(|i| {
                let a = w.get(bytes, at + i * w.size).unwrap_or(0);
                if adjust && i > 0 {
                    a.wrapping_sub(1)
                } else {
                    a
                }
            })
            .collect();
        at += depth * w.size;
        samples.counts.push(count);
        samples.stacks.push(stack);
    }
    c.warnings.add(FORMAT, "no-end", || {
        format!(
            "byte {at}: the records end without the end marker 0, 1, 0, so there is no memory \
             map; read as go tool pprof reads it"
        )
    });
    Ok((samples, at))
}

fn check_limits(
    at: usize,
    depth: usize,
    records: usize,
    options: &ReadOptions,
) -> Result<(), ReadError> {
    let limits = &options.limits;
    if records >= limits.max_samples {
        return Err(err(
            at,
            format!(
                "more than {} records (the sample limit, Limits::max_samples)",
                limits.max_samples
            ),
        ));
    }
    if depth > limits.max_stack_depth {
        return Err(err(
            at,
            format!(
                "the stack has {depth} addresses, more than the limit of {} \
                 (Limits::max_stack_depth)",
                limits.max_stack_depth
            ),
        ));
    }
    Ok(())
}

/// pprof's removal of the signal handler's frame: when the second frame of all samples but one
/// in [`SIMILAR_SAMPLES`] is one address, it is removed from them, at most
/// [`MAX_HANDLER_FRAMES`] times.
fn remove_handler_frames(samples: &mut Samples, c: &mut Collector<'_>) {
    let margin = samples.stacks.len() / SIMILAR_SAMPLES;
    let mut removed = Vec::new();
    for _ in 0..MAX_HANDLER_FRAMES {
        let mut seen: crate::hash::HashMap<u64, usize> = Default::default();
        for s in samples.stacks.iter().filter(|s| s.len() > 1) {
            *seen.entry(s[1]).or_default() += 1;
        }
        // At most one address can be that frequent (the margin is under half the samples).
        let Some(address) = seen
            .into_iter()
            .filter(|&(_, n)| n >= samples.stacks.len() - margin)
            .map(|(a, _)| a)
            .min()
        else {
            break;
        };
        for s in samples
            .stacks
            .iter_mut()
            .filter(|s| s.get(1) == Some(&address))
        {
            s.remove(1);
        }
        removed.push(format!("{address:#x}"));
    }
    if !removed.is_empty() {
        c.warnings.add(FORMAT, "handler-frame", || {
            format!(
                "the second frame {} of (nearly) every sample is the signal handler's; removed, \
                 as go tool pprof does",
                removed.join(" then ")
            )
        });
    }
}

/// pprof's `cleanupDuplicateLocations`: a leaf repeated below itself (address + 1, as the
/// handler sees it both in the signal context and by unwinding) is removed.
fn remove_duplicate_leaves(samples: &mut Samples, c: &mut Collector<'_>) {
    let mut n = 0usize;
    for s in samples.stacks.iter_mut() {
        if s.len() > 1 && s[0] == s[1].wrapping_add(1) {
            s.remove(1);
            n += 1;
        }
    }
    if n > 0 {
        c.warnings.add(FORMAT, "duplicate-leaf", || {
            format!(
                "{n} samples repeat their leaf one frame below it; the repeat is removed, as go \
                 tool pprof does"
            )
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words32le(w: &[u32]) -> Vec<u8> {
        w.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn headers() {
        assert!(detect(&words32le(&[0, 3, 0, 10000, 0])));
        let be64: Vec<u8> = [0u64, 3, 0, 100, 0]
            .iter()
            .flat_map(|x| x.to_be_bytes())
            .collect();
        assert_eq!(
            header(&be64).map(|(w, p, k)| (w.size, w.big_endian, p, k)),
            Some((8, true, 100, Kind::Native))
        );
        assert_eq!(
            header(&words32le(&[0, 3, 1, 10000, 0])).map(|h| h.2),
            Some(Kind::Java)
        );
        for not in [
            words32le(&[0, 3, 2, 10000, 0]),
            words32le(&[0, 3, 0, 0, 0]),
            words32le(&[0, 3, 0, 10000]),
            b"0 3 0 1 0".to_vec(),
        ] {
            assert!(!detect(&not), "{not:?}");
        }
    }
}
