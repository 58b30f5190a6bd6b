//! Reading a heaptrack file: decompress when needed, walk the lines once (tables and events,
//! in file order, as heaptrack does), then build the profile.

mod build;
mod events;
mod fields;
mod records;

use super::{MAX_FILE_VERSION, NAME};
use crate::formats::error::{Place, ReadError, Warnings};
use crate::formats::read_common::{finish_parsed, shorten, text_input};
use crate::formats::{gzip, zstd, Format, Parsed, ReadOptions};
use crate::hash::HashMap;
use events::{EventProblem, Events};
use fields::Fields;
use records::{Problem, Tables};

/// Heaptrack's version that wrote file format 1 without saying so (`v 10200`).
const VERSION_WITH_IMPLICIT_FILE_FORMAT_1: u64 = 0x010200;
/// The file format version from which strings carry their length.
const SIZED_STRINGS_VERSION: u64 = 3;

/// Reads a heaptrack data file (gzip- or zstd-compressed, or plain).
pub fn read(bytes: &[u8], options: &ReadOptions) -> Result<Parsed, ReadError> {
    let cap = options.limits.max_decompressed_bytes;
    let inflated;
    let bytes = if gzip::is_gzip(bytes) {
        inflated = gzip::gunzip_capped(bytes, cap, NAME)?;
        &inflated[..]
    } else if zstd::is_zstd(bytes) {
        inflated = zstd::unzstd_capped(bytes, cap, NAME)?;
        &inflated[..]
    } else {
        bytes
    };
    let (text, warnings) = text_input(bytes, NAME)?;
    if !text.starts_with("v ") {
        return Err(ReadError::new(
            NAME,
            Place::Line(1),
            "not a heaptrack data file: the first line is not `v VERSION FILE_VERSION`",
        ));
    }
    let mut p = Parser::new(options, warnings);
    for (i, line) in text.split('\n').enumerate() {
        p.line(i + 1, line)?;
    }
    p.events.finish();
    p.meta.total_time_ms = p.events.time_ms.saturating_add(1);
    let mut warnings = p.warnings;
    p.lines_skipped.report(&mut warnings);
    let b = build::build(&p.tables, &p.events, &p.meta, options, &mut warnings)?;
    finish_parsed(b, Format::Heaptrack, warnings)
}

/// What the file says about the run (kept as meta).
#[derive(Default)]
pub(super) struct RunMeta {
    pub version: Option<u64>,
    pub file_version: u64,
    pub command: Option<String>,
    pub page_size: Option<u64>,
    pub pages: Option<u64>,
    pub peak_rss_pages: u64,
    pub total_time_ms: u64,
    pub attached: bool,
    pub suppressions: Vec<String>,
}

/// Lines skipped or only partly taken, by reason: (count, first line number, first text).
#[derive(Default)]
struct Skipped {
    by_reason: Vec<(&'static str, usize, usize, String)>,
}

impl Skipped {
    fn add(&mut self, reason: &'static str, line_no: usize, line: &str) {
        match self.by_reason.iter_mut().find(|(r, ..)| *r == reason) {
            Some((_, n, ..)) => *n += 1,
            None => self.by_reason.push((reason, 1, line_no, shorten(line))),
        }
    }

    fn report(self, warnings: &mut Warnings) {
        for (reason, n, first, text) in self.by_reason {
            warnings.push(crate::formats::Warning::new(
                NAME,
                format!("{reason} (first at line {first}: `{text}`)"),
                n,
            ));
        }
    }
}

/// The state of the walk over the lines.
struct Parser {
    tables: Tables,
    events: Events,
    meta: RunMeta,
    warnings: Warnings,
    lines_skipped: Skipped,
    /// The last allocation (an info index, or a pointer in version 0), for temporaries.
    last_alloc: Option<u64>,
    /// Version 0: the allocation info of each live pointer.
    pointers: HashMap<u64, u32>,
}

impl Parser {
    fn new(options: &ReadOptions, warnings: Warnings) -> Self {
        Parser {
            tables: Tables::default(),
            events: Events::new(options.limits.max_samples),
            meta: RunMeta::default(),
            warnings,
            lines_skipped: Skipped::default(),
            last_alloc: None,
            pointers: HashMap::default(),
        }
    }

    /// One line (`no` is 1-based).
    fn line(&mut self, no: usize, line: &str) -> Result<(), ReadError> {
        let sized = self.meta.file_version >= SIZED_STRINGS_VERSION;
        let result = match line.as_bytes().first().copied().unwrap_or(b'#') {
            b's' => self.tables.string_record(line, sized),
            b'i' => self.tables.ip_record(line),
            b't' => self.tables.trace_record(line),
            b'a' => self.tables.info_record(line),
            b'+' => return self.alloc(no, line),
            b'-' => return self.free(no, line),
            b'#' => Ok(()),
            b'c' => return self.time(no, line),
            b'v' => return self.version(no, line),
            b'X' => return self.command(no, line),
            b'x' | b'm' => {
                return Err(ReadError::new(
                    NAME,
                    Place::Line(no),
                    "this is a raw heaptrack file (with `x`/`m` records); interpret it first \
                     (`heaptrack_interpret < FILE`, or `heaptrack -i`)",
                ))
            }
            b'I' | b'R' | b'A' | b'S' => {
                self.system(line);
                Ok(())
            }
            _ => {
                self.lines_skipped.add("unknown records skipped", no, line);
                Ok(())
            }
        };
        match result {
            Err(Problem::Malformed) => self.lines_skipped.add("malformed records", no, line),
            Err(Problem::OutOfRange) => {
                self.lines_skipped
                    .add("records naming an index not defined before them", no, line);
            }
            Ok(()) => {}
        }
        Ok(())
    }

    /// `+ info` (version 0: `+ size trace pointer`).
    fn alloc(&mut self, no: usize, line: &str) -> Result<(), ReadError> {
        let mut f = Fields::new(line);
        let (info, tag) = if self.meta.file_version >= 1 {
            let Some(info) = f
                .index()
                .filter(|&i| (i as usize) < self.tables.infos.len())
            else {
                self.lines_skipped.add(
                    "allocations of an unknown allocation info skipped",
                    no,
                    line,
                );
                return Ok(());
            };
            (info, u64::from(info))
        } else {
            let (Some(size), Some(trace), Some(ptr)) = (f.hex(), f.index(), f.hex()) else {
                self.lines_skipped.add("malformed records", no, line);
                return Ok(());
            };
            let trace = if (trace as usize) <= self.tables.traces.len() {
                trace
            } else {
                self.lines_skipped
                    .add("records naming an index not defined before them", no, line);
                0
            };
            let info = self.tables.info_for(size, trace);
            self.pointers.insert(ptr, info);
            (info, ptr)
        };
        let size = self.tables.infos[info as usize].size;
        self.last_alloc = Some(tag);
        match self.events.alloc(info, size) {
            Err(EventProblem::TooManyRows) => Err(ReadError::new(
                NAME,
                Place::Line(no),
                "more allocation samples than the sample limit (Limits::max_samples)",
            )),
            _ => Ok(()),
        }
    }

    /// `- info` (version 0: `- pointer`).
    fn free(&mut self, no: usize, line: &str) -> Result<(), ReadError> {
        let mut f = Fields::new(line);
        let Some(tag) = f.hex() else {
            self.lines_skipped.add("malformed records", no, line);
            return Ok(());
        };
        let info = if self.meta.file_version >= 1 {
            u32::try_from(tag).ok()
        } else {
            self.pointers.remove(&tag)
        };
        let temporary = self.last_alloc == Some(tag);
        self.last_alloc = None;
        let Some((info, size)) =
            info.and_then(|i| Some((i, self.tables.infos.get(i as usize)?.size)))
        else {
            self.lines_skipped.add(
                "frees of a block that was never allocated skipped",
                no,
                line,
            );
            return Ok(());
        };
        if self.events.free(info, size, temporary).is_err() {
            self.lines_skipped.add(
                "frees of a block that was never allocated skipped",
                no,
                line,
            );
        }
        Ok(())
    }

    /// `c ms`: a time stamp; one going back is skipped, as heaptrack does.
    fn time(&mut self, no: usize, line: &str) -> Result<(), ReadError> {
        match Fields::new(line).hex() {
            Some(ms) if ms >= self.events.time_ms => self.events.time(ms),
            Some(_) => {
                self.lines_skipped
                    .add("time stamps earlier than the one before skipped", no, line)
            }
            None => self.lines_skipped.add("malformed records", no, line),
        }
        Ok(())
    }

    /// `v HEAPTRACK_VERSION [FILE_VERSION]`.
    fn version(&mut self, no: usize, line: &str) -> Result<(), ReadError> {
        let mut f = Fields::new(line);
        let version = f.hex();
        let file_version = match (version, f.hex()) {
            (_, Some(v)) => v,
            (Some(VERSION_WITH_IMPLICIT_FILE_FORMAT_1), None) => 1,
            _ => 0,
        };
        if file_version > MAX_FILE_VERSION {
            return Err(ReadError::new(
                NAME,
                Place::Line(no),
                format!(
                    "file format version {file_version} is newer than the versions this reader \
                     knows (up to {MAX_FILE_VERSION})"
                ),
            ));
        }
        self.meta.version = version;
        self.meta.file_version = file_version;
        Ok(())
    }

    /// `X command line`; a second one means a corrupt file (heaptrack refuses it too).
    fn command(&mut self, no: usize, line: &str) -> Result<(), ReadError> {
        if self.meta.command.is_some() {
            return Err(ReadError::new(
                NAME,
                Place::Line(no),
                "a second debuggee (`X`) line: the file is corrupt or two files were joined",
            ));
        }
        self.meta.command = Some(Fields::new(line).rest().to_owned());
        Ok(())
    }

    /// `I pagesize pages`, `R rss`, `A`, `S suppression`.
    fn system(&mut self, line: &str) {
        let mut f = Fields::new(line);
        match line.as_bytes().first() {
            Some(b'I') => {
                self.meta.page_size = f.hex();
                self.meta.pages = f.hex();
            }
            Some(b'R') => {
                let rss = f.hex().unwrap_or(0);
                self.meta.peak_rss_pages = self.meta.peak_rss_pages.max(rss);
            }
            Some(b'A') => {
                self.meta.attached = true;
                self.events.attached();
            }
            _ => self.meta.suppressions.push(f.rest().to_owned()),
        }
    }
}
