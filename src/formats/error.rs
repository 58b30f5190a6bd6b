//! Errors and warnings of the format readers and writers.

use std::fmt;

/// Where in an input a problem was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// The input as a whole.
    Whole,
    /// A byte offset into the (decompressed, where the format is compressed) input.
    Byte(u64),
    /// A 1-based line number of a text format.
    Line(usize),
    /// A path inside a structured document, e.g. `nodes[3].callFrame` or `functions.name[7]`.
    Path(String),
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::Whole => Ok(()),
            Place::Byte(b) => write!(f, "at byte {b}: "),
            Place::Line(l) => write!(f, "line {l}: "),
            Place::Path(p) => write!(f, "{p}: "),
        }
    }
}

/// A file that could not be read: names the format, the place and the problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadError {
    /// Format name as in [`crate::formats::Format::name`] (`"pprof"`, `"rprof"`, …), or
    /// `"input"` when no format was recognized.
    pub format: &'static str,
    /// Where the problem is.
    pub place: Place,
    /// What is wrong.
    pub message: String,
}

impl ReadError {
    /// An error at `place`.
    pub fn new(format: &'static str, place: Place, message: impl Into<String>) -> Self {
        ReadError {
            format,
            place,
            message: message.into(),
        }
    }

    /// An error about the input as a whole.
    pub fn whole(format: &'static str, message: impl Into<String>) -> Self {
        Self::new(format, Place::Whole, message)
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}{}", self.format, self.place, self.message)
    }
}

impl std::error::Error for ReadError {}

/// A profile that could not be written in a format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteError {
    /// Target format name.
    pub format: &'static str,
    /// What prevents writing.
    pub message: String,
}

impl WriteError {
    /// A write error.
    pub fn new(format: &'static str, message: impl Into<String>) -> Self {
        WriteError {
            format,
            message: message.into(),
        }
    }
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot write {}: {}", self.format, self.message)
    }
}

impl std::error::Error for WriteError {}

/// A recoverable oddity: the data was kept (or the loss is stated here), and `count` says how
/// often it happened. Returned, never logged.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Warning {
    /// Format name.
    pub format: &'static str,
    /// What happened, with the first place it happened.
    pub message: String,
    /// Number of occurrences.
    pub count: usize,
}

impl Warning {
    /// A warning that happened `count` times.
    pub fn new(format: &'static str, message: impl Into<String>, count: usize) -> Self {
        Warning {
            format,
            message: message.into(),
            count,
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.count > 1 {
            write!(
                f,
                "{}: {} ({} times)",
                self.format, self.message, self.count
            )
        } else {
            write!(f, "{}: {}", self.format, self.message)
        }
    }
}

/// Collects warnings, merging repeats of the same kind into one entry with a count.
#[derive(Clone, Debug, Default)]
pub struct Warnings {
    list: Vec<(String, Warning)>,
}

impl Warnings {
    /// Records one occurrence of warning kind `kind`; the message of the first occurrence is
    /// kept (so it can name the first place).
    pub fn add(&mut self, format: &'static str, kind: &str, message: impl FnOnce() -> String) {
        if let Some((_, w)) = self.list.iter_mut().find(|(k, _)| k == kind) {
            w.count += 1;
        } else {
            self.list
                .push((kind.to_owned(), Warning::new(format, message(), 1)));
        }
    }

    /// Adds a finished warning as is.
    pub fn push(&mut self, w: Warning) {
        self.list.push((String::new(), w));
    }

    /// The collected warnings.
    pub fn into_vec(self) -> Vec<Warning> {
        self.list.into_iter().map(|(_, w)| w).collect()
    }

    /// True when nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}
