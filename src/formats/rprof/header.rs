//! The Rprof header line: `[memory profiling: ][GC profiling: ][line profiling: ]sample.interval=N`.
//!
//! R writes the three prefixes in this fixed order (`R_InitProfiling`, `src/main/eval.c`), so
//! exactly eight headers exist; `summaryRprof()` relies on the order (it tests
//! `startsWith(firstline, "memory")`). Anything else is not a header.

/// Prefix announcing the `:small:large:nodes:dups:` memory prefix on every sample line.
pub const MEMORY_PREFIX: &str = "memory profiling: ";
/// Prefix announcing `"<GC>"` pseudo-frames.
pub const GC_PREFIX: &str = "GC profiling: ";
/// Prefix announcing `F#L` source references and `#File` lines.
pub const LINE_PREFIX: &str = "line profiling: ";
/// The key of the sampling interval, in microseconds.
pub const INTERVAL_KEY: &str = "sample.interval=";
/// Largest accepted interval: one hour, in microseconds (R's is 1 ms to a few seconds).
pub const MAX_INTERVAL_US: u64 = 3_600_000_000;

/// A parsed header line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// `memory profiling:` present.
    pub memory: bool,
    /// `GC profiling:` present.
    pub gc: bool,
    /// `line profiling:` present.
    pub line: bool,
    /// `sample.interval=` value in microseconds.
    pub interval_us: u64,
}

/// Why a line that looks like a header is not a valid one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeaderProblem {
    /// Not a header at all (no `sample.interval=` after the optional prefixes).
    NotAHeader,
    /// A header whose interval is missing, not a whole number, zero or too large.
    BadInterval(String),
}

impl Header {
    /// Parses `line` (without its line end). Prefixes must come in R's order.
    pub fn parse(line: &[u8]) -> Result<Header, HeaderProblem> {
        let mut rest = line;
        let memory = strip(&mut rest, MEMORY_PREFIX);
        let gc = strip(&mut rest, GC_PREFIX);
        let line_prof = strip(&mut rest, LINE_PREFIX);
        if !strip(&mut rest, INTERVAL_KEY) {
            return Err(HeaderProblem::NotAHeader);
        }
        let interval_us = parse_interval(rest)?;
        Ok(Header {
            memory,
            gc,
            line: line_prof,
            interval_us,
        })
    }

    /// The header line as R writes it, without the line end.
    pub fn render(&self) -> String {
        let mut s = String::new();
        if self.memory {
            s.push_str(MEMORY_PREFIX);
        }
        if self.gc {
            s.push_str(GC_PREFIX);
        }
        if self.line {
            s.push_str(LINE_PREFIX);
        }
        s.push_str(INTERVAL_KEY);
        s.push_str(&self.interval_us.to_string());
        s
    }
}

fn strip(rest: &mut &[u8], prefix: &str) -> bool {
    match rest.strip_prefix(prefix.as_bytes()) {
        Some(r) => {
            *rest = r;
            true
        }
        None => false,
    }
}

/// Characters of a bad interval quoted in messages.
const SHOWN_CHARS: usize = 40;

fn parse_interval(digits: &[u8]) -> Result<u64, HeaderProblem> {
    let shown = || {
        let head = digits
            .get(..digits.len().min(SHOWN_CHARS))
            .unwrap_or(digits);
        String::from_utf8_lossy(head).into_owned()
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return Err(HeaderProblem::BadInterval(format!(
            "sample.interval must be a whole number of microseconds, found {:?}",
            shown()
        )));
    }
    let value = digits.iter().try_fold(0u64, |acc, &d| {
        acc.checked_mul(10)?.checked_add(u64::from(d - b'0'))
    });
    match value {
        Some(0) => Err(HeaderProblem::BadInterval(
            "sample.interval=0: the interval must be at least 1 microsecond".to_owned(),
        )),
        Some(v) if v <= MAX_INTERVAL_US => Ok(v),
        _ => Err(HeaderProblem::BadInterval(format!(
            "sample.interval={} is larger than the largest accepted interval ({MAX_INTERVAL_US} µs)",
            shown()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_eight_combinations_round_trip() {
        for bits in 0..8u8 {
            let h = Header {
                memory: bits & 1 != 0,
                gc: bits & 2 != 0,
                line: bits & 4 != 0,
                interval_us: 20000,
            };
            assert_eq!(Header::parse(h.render().as_bytes()), Ok(h));
        }
    }

    #[test]
    fn wrong_order_is_not_a_header() {
        assert_eq!(
            Header::parse(b"line profiling: memory profiling: sample.interval=1"),
            Err(HeaderProblem::NotAHeader)
        );
    }

    #[test]
    fn bad_intervals() {
        for bad in [
            &b"sample.interval="[..],
            b"sample.interval=2e4",
            b"sample.interval=0",
        ] {
            assert!(matches!(
                Header::parse(bad),
                Err(HeaderProblem::BadInterval(_))
            ));
        }
        assert!(Header::parse(b"sample.interval=99999999999999999999999").is_err());
    }
}
