//! Brendan Gregg's collapsed ("folded") stacks: one `frame;frame;… count` line per stack,
//! outermost frame first (formats.md §5).
//!
//! Reading:
//! * Each valid line becomes **one** sample (never expanded): value type `samples`/`count` holds
//!   the count, which may be an integer or a decimal (`31.23`, `6.`; kept exactly as `f64`).
//!   Identical stacks on several lines stay several samples, in file order.
//! * Differential files (`stack before after`, as `difffolded` writes them) read as two value
//!   types: `before`/`count` (first count) and `samples`/`count` (second count, the one
//!   flamegraph.pl and inferno draw). A file is differential when *every* valid line has two
//!   counts; otherwise a number before the count is part of the last frame's name (a frame such
//!   as `LazyCompile:foo node.js 387` stays intact).
//! * The count is split off from the right at the last space or tab; frames are split on `;`.
//!   Lines are trimmed (CRLF, trailing blanks). Text may be UTF-8 (a BOM is skipped) or
//!   UTF-16 LE/BE with a BOM; invalid UTF-8 is replaced and reported.
//! * Lines starting with `#` are comments (austin's `# interval: 100` metadata); they are kept
//!   in meta as `collapsed.comment` rows. Other lines that do not parse are skipped and counted
//!   in one warning; a file without any stack line is an error ("no stack counts found", as
//!   flamegraph.pl says).
//! * Empty frame names (`a;;b`) become `(anonymous)` (counted warning); frames ending in `_[k]`
//!   get `locations..frame_type = "kernel"` (the names are kept verbatim).
//!
//! Writing aggregates samples by stack (summing the chosen value type), one line per distinct
//! stack, sorted by stack text, `\n` line ends, one ASCII space before the count: the format of
//! stackcollapse-perf.pl. A `;` inside a frame name is written as `:` and line breaks as
//! spaces, as stackcollapse-perf.pl does; other control characters (which readers take for
//! binary data) become U+FFFD, and leading blanks of a root frame (which readers trim) are
//! dropped — each with a warning. When the profile has a `before` value type and
//! `samples` is written, lines carry both counts (`stack before after`), so differential files
//! round-trip.

use std::collections::BTreeMap;

use crate::hash::HashMap;

use super::error::{Place, ReadError, Warning, Warnings, WriteError};
use super::read_common::finish_parsed;
use super::write_common::{
    chosen_value_type, format_number, frames_root_first, location_name, other_types_warning,
};
use super::{Format, Parsed, ReadOptions, WriteOptions, Written};
use crate::model::{
    Cell, LocationIndex, Profile, ProfileBuilder, SourceIndex, StackIndex, ValueTypeIndex,
    META_DEFAULT_TYPE, SAMPLE_TIME,
};

/// Format name used in errors and warnings.
pub const NAME: &str = "collapsed";

/// Meta key of the comment lines (`# …`), one row per line, without the `#`.
pub const META_COMMENT: &str = "collapsed.comment";

/// Value type of the first count of a differential line.
pub const BEFORE_TYPE: &str = "before";

/// Bytes of the input examined by [`detect`] (at least; see `detect_prefix_len`).
const DETECT_PREFIX_BYTES: usize = 64 * 1024;
/// Candidate lines (not blank, not comments) examined by [`detect`].
const DETECT_MAX_LINES: usize = 100;
/// Largest integer an `f64` holds exactly; larger counts are rounded (and reported).
const MAX_EXACT_COUNT: f64 = 9_007_199_254_740_992.0;
/// Name given to empty frames.
const ANONYMOUS: &str = "(anonymous)";

/// True when the text looks like folded stacks: not JSON, not binary, not Rprof output, not
/// pprof's legacy text formats, and most (more than half) of the first lines are `stack count`
/// lines.
pub fn detect(bytes: &[u8]) -> bool {
    let head = bytes.get(..detect_prefix_len(bytes)).unwrap_or(bytes);
    let (text, _) = decode_text(head);
    let complete = if head.len() < bytes.len() {
        // Only judge complete lines of a cut prefix.
        text.rfind('\n').map_or("", |end| &text[..end])
    } else {
        &text
    };
    if complete.contains('\0')
        || looks_like_json_or_rprof(complete)
        || super::pprof_text::starts_like_legacy_text(complete)
    {
        return false;
    }
    let (mut valid, mut invalid) = (0usize, 0usize);
    for line in complete
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .take(DETECT_MAX_LINES)
    {
        if split_count(line).is_some() && !has_control_chars(line) {
            valid += 1;
        } else {
            invalid += 1;
        }
    }
    valid > invalid
}

/// Bytes [`detect`] examines: [`DETECT_PREFIX_BYTES`], or up to the end of the first line
/// when that is longer (deep stacks of long names make lines of hundreds of KiB).
fn detect_prefix_len(bytes: &[u8]) -> usize {
    let prefix = bytes.len().min(DETECT_PREFIX_BYTES);
    if bytes
        .get(..prefix)
        .is_some_and(|h| memchr::memchr(b'\n', h).is_some())
    {
        return prefix;
    }
    memchr::memchr(b'\n', bytes).map_or(bytes.len(), |end| end + 1)
}

fn looks_like_json_or_rprof(text: &str) -> bool {
    let first = text.trim_start();
    if first.starts_with('{') || first.starts_with('[') {
        return true;
    }
    let first_line = first.lines().next().unwrap_or("");
    first_line.starts_with("sample.interval=")
        || ["memory profiling:", "line profiling:", "GC profiling:"]
            .iter()
            .any(|h| first_line.starts_with(h))
}

fn has_control_chars(line: &str) -> bool {
    line.chars().any(|c| c.is_control() && c != '\t')
}

/// Control characters the writer cannot put in a frame name: all but tab and the line
/// breaks (which [`WriteState::escape`] turns into spaces).
fn is_unwritable_control(c: char) -> bool {
    c.is_control() && !matches!(c, '\t' | '\n' | '\r')
}

/// Decodes text: UTF-16 LE/BE when a BOM says so, else UTF-8 (BOM skipped). The flag is true
/// when invalid sequences were replaced.
pub(crate) fn decode_text(bytes: &[u8]) -> (std::borrow::Cow<'_, str>, bool) {
    if let Some(rest) = bytes.strip_prefix(b"\xFF\xFE") {
        return decode_utf16(rest, u16::from_le_bytes);
    }
    if let Some(rest) = bytes.strip_prefix(b"\xFE\xFF") {
        return decode_utf16(rest, u16::from_be_bytes);
    }
    let rest = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = String::from_utf8_lossy(rest);
    let lossy = matches!(text, std::borrow::Cow::Owned(_));
    (text, lossy)
}

fn decode_utf16(bytes: &[u8], unit: fn([u8; 2]) -> u16) -> (std::borrow::Cow<'static, str>, bool) {
    let units = bytes
        .chunks_exact(2)
        .map(|c| unit(<[u8; 2]>::try_from(c).unwrap_or([0, 0])));
    let mut lossy = bytes.len() % 2 != 0;
    let text: String = char::decode_utf16(units)
        .map(|r| {
            r.unwrap_or_else(|_| {
                lossy = true;
                char::REPLACEMENT_CHARACTER
            })
        })
        .collect();
    (std::borrow::Cow::Owned(text), lossy)
}

/// True for `DIGITS [ "." DIGITS* ]` (flamegraph.pl's count grammar).
fn is_count(token: &str) -> bool {
    let (int, frac) = token.split_once('.').unwrap_or((token, ""));
    !int.is_empty()
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.bytes().all(|b| b.is_ascii_digit())
}

/// Splits a trimmed line into (stack, count text) at the last space or tab.
fn split_count(line: &str) -> Option<(&str, &str)> {
    let sep = line.rfind([' ', '\t'])?;
    let (stack, count) = (&line[..sep], &line[sep + 1..]);
    (is_count(count) && !stack.is_empty()).then_some((stack, count))
}

/// What one line is.
enum Line<'a> {
    Blank,
    Comment(&'a str),
    Invalid,
    /// `stack count`; `diff` holds the stack and first count when the stack itself ends in a
    /// count (a possible differential line).
    Stack {
        stack: &'a str,
        count: &'a str,
        diff: Option<(&'a str, &'a str)>,
    },
}

fn classify(raw: &str) -> Line<'_> {
    let line = raw.trim();
    if line.is_empty() {
        return Line::Blank;
    }
    if let Some(comment) = line.strip_prefix('#') {
        return Line::Comment(comment.trim());
    }
    match split_count(line) {
        Some((stack, count)) if !line.contains('\0') => Line::Stack {
            stack,
            count,
            diff: split_count(stack),
        },
        _ => Line::Invalid,
    }
}

/// Reads folded stacks.
pub fn read(bytes: &[u8], options: &ReadOptions) -> Result<Parsed, ReadError> {
    if bytes.is_empty() {
        return Err(ReadError::whole(NAME, "the file is empty"));
    }
    let (text, lossy) = decode_text(bytes);
    let mut warnings = Warnings::default();
    if lossy {
        warnings.add(NAME, "lossy", || {
            "the text is not valid UTF-8 (or UTF-16); invalid sequences were replaced by U+FFFD"
                .to_owned()
        });
    }
    let differential = is_differential(&text);
    let mut reader = Reader::new(options, differential);
    for (index, raw) in text.lines().enumerate() {
        reader.line(index + 1, raw, &mut warnings)?;
    }
    reader.finish(warnings)
}

/// True when every stack line has two counts.
fn is_differential(text: &str) -> bool {
    let mut any = false;
    for line in text.lines() {
        if let Line::Stack { diff, .. } = classify(line) {
            if diff.is_none() {
                return false;
            }
            any = true;
        }
    }
    any
}

/// Reader state: the builder and the interned frames.
struct Reader<'o> {
    options: &'o ReadOptions,
    b: ProfileBuilder,
    source: SourceIndex,
    samples: ValueTypeIndex,
    before: Option<ValueTypeIndex>,
    locations: HashMap<String, LocationIndex>,
    stack_lines: usize,
}

impl<'o> Reader<'o> {
    fn new(options: &'o ReadOptions, differential: bool) -> Self {
        let mut b = ProfileBuilder::new();
        let source = b.add_source(NAME, options.source_uri.as_deref(), None);
        let before = differential.then(|| b.value_type(BEFORE_TYPE, "count"));
        let samples = b.value_type("samples", "count");
        b.set_meta(META_DEFAULT_TYPE, "samples");
        Reader {
            options,
            b,
            source,
            samples,
            before,
            locations: HashMap::default(),
            stack_lines: 0,
        }
    }

    fn line(&mut self, number: usize, raw: &str, warnings: &mut Warnings) -> Result<(), ReadError> {
        match classify(raw) {
            Line::Blank => {}
            Line::Comment(text) => self.b.add_meta(META_COMMENT, text),
            Line::Invalid => warnings.add(NAME, "invalid", || {
                format!(
                    "ignored lines that are not `stack count` (first at line {number}: {:?})",
                    shorten(raw.trim())
                )
            }),
            Line::Stack { stack, count, diff } => {
                let (stack, first) = match (self.before, diff) {
                    (Some(_), Some((stack, first))) => (stack, Some(first)),
                    _ => (stack, None),
                };
                self.stack_line(number, stack, first, count, warnings)?;
            }
        }
        Ok(())
    }

    fn stack_line(
        &mut self,
        number: usize,
        stack: &str,
        first: Option<&str>,
        count: &str,
        warnings: &mut Warnings,
    ) -> Result<(), ReadError> {
        if self.stack_lines >= self.options.limits.max_samples {
            return Err(ReadError::new(
                NAME,
                Place::Line(number),
                format!(
                    "more than {} stack lines (the sample limit)",
                    self.options.limits.max_samples
                ),
            ));
        }
        self.stack_lines += 1;
        let node = self.stack(number, stack, warnings)?;
        let sample = self.b.add_sample(self.source, node);
        let value = parse_count(number, count, warnings)?;
        self.b.set_value(sample, self.samples, value);
        if let (Some(vt), Some(first)) = (self.before, first) {
            let before = parse_count(number, first, warnings)?;
            self.b.set_value(sample, vt, before);
        }
        Ok(())
    }

    fn stack(
        &mut self,
        number: usize,
        stack: &str,
        warnings: &mut Warnings,
    ) -> Result<Option<StackIndex>, ReadError> {
        let mut node = None;
        for (depth, frame) in stack.split(';').enumerate() {
            if depth >= self.options.limits.max_stack_depth {
                return Err(ReadError::new(
                    NAME,
                    Place::Line(number),
                    format!(
                        "the stack is deeper than {} frames (the stack depth limit)",
                        self.options.limits.max_stack_depth
                    ),
                ));
            }
            let loc = self.frame(number, frame, warnings);
            node = Some(self.b.stack_node(node, loc));
        }
        Ok(node)
    }

    fn frame(&mut self, number: usize, name: &str, warnings: &mut Warnings) -> LocationIndex {
        if let Some(&loc) = self.locations.get(name) {
            return loc;
        }
        let shown = if name.is_empty() {
            warnings.add(NAME, "empty-frame", || {
                format!("empty frame names were named {ANONYMOUS} (first at line {number})")
            });
            ANONYMOUS
        } else {
            name
        };
        let f = self.b.function_named(shown, None);
        let loc = self.b.location(Some(f), 0);
        if name.ends_with("_[k]") {
            let kernel = self.b.intern("kernel");
            self.b
                .set_location_ext(loc, ".frame_type", Cell::Chr(kernel));
        }
        self.locations.insert(name.to_owned(), loc);
        loc
    }

    fn finish(self, warnings: Warnings) -> Result<Parsed, ReadError> {
        if self.stack_lines == 0 {
            return Err(ReadError::whole(
                NAME,
                "no stack counts found (no line of the form `frame;frame;… count`)",
            ));
        }
        finish_parsed(self.b, Format::Collapsed, warnings)
    }
}

fn parse_count(number: usize, text: &str, warnings: &mut Warnings) -> Result<f64, ReadError> {
    let value: f64 = text
        .parse()
        .map_err(|_| ReadError::new(NAME, Place::Line(number), format!("bad count {text:?}")))?;
    if !value.is_finite() {
        return Err(ReadError::new(
            NAME,
            Place::Line(number),
            format!("count {:?} is too large", shorten(text)),
        ));
    }
    if value > MAX_EXACT_COUNT && !text.contains('.') {
        warnings.add(NAME, "precision", || {
            format!("counts above 2^53 were rounded to the nearest double (first at line {number})")
        });
    }
    Ok(value)
}

fn shorten(s: &str) -> String {
    const MAX: usize = 80;
    if s.chars().count() <= MAX {
        s.to_owned()
    } else {
        let cut: String = s.chars().take(MAX).collect();
        format!("{cut}…")
    }
}

/// Writes folded stacks of the chosen value type (see the module documentation).
pub fn write(profile: &Profile, options: &WriteOptions) -> Result<Written, WriteError> {
    let vt = chosen_value_type(NAME, profile, options)?;
    let before = profile
        .value_type_index(BEFORE_TYPE)
        .filter(|&b| b != vt && profile.value_type_names(vt).0 == "samples");
    let mut w = WriteState::new(profile);
    w.aggregate(vt, before);
    let bytes = w.render(before.is_some());
    let mut warnings = w.warnings.into_vec();
    let skip: &[&str] = if before.is_some() {
        &[BEFORE_TYPE]
    } else {
        &[]
    };
    warnings.extend(other_types_warning(NAME, profile, vt, skip));
    warnings.extend(lost_detail_warnings(profile));
    Ok(Written { bytes, warnings })
}

/// Sums per stack text: (value, before).
struct WriteState<'p> {
    profile: &'p Profile,
    lines: BTreeMap<String, (f64, f64)>,
    stack_text: HashMap<u32, String>,
    warnings: Warnings,
}

impl<'p> WriteState<'p> {
    fn new(profile: &'p Profile) -> Self {
        WriteState {
            profile,
            lines: BTreeMap::new(),
            stack_text: HashMap::default(),
            warnings: Warnings::default(),
        }
    }

    fn aggregate(&mut self, vt: ValueTypeIndex, before: Option<ValueTypeIndex>) {
        let p = self.profile;
        let Some(col) = p.value_column(vt) else {
            return;
        };
        let before_col = before.and_then(|b| p.value_column(b));
        for s in 0..p.num_samples() {
            let Some(value) = col.get(s) else { continue };
            let prior = before_col.and_then(|c| c.get(s)).unwrap_or(0.0);
            if value < 0.0 || prior < 0.0 {
                self.warnings.add(NAME, "negative", || {
                    "samples with negative values were not written (collapsed counts are non-negative)"
                        .to_owned()
                });
                continue;
            }
            let Some(stack) =
                crate::model::SampleIndex::from_usize(s).and_then(|si| p.sample_stack(si))
            else {
                self.warnings.add(NAME, "no-frames", || {
                    "samples without frames were not written (a collapsed line needs a stack)"
                        .to_owned()
                });
                continue;
            };
            let text = self.text_of(stack);
            let entry = self.lines.entry(text).or_insert((0.0, 0.0));
            entry.0 += value;
            entry.1 += prior;
        }
    }

    fn text_of(&mut self, stack: StackIndex) -> String {
        if let Some(t) = self.stack_text.get(&stack.0) {
            return t.clone();
        }
        let names: Vec<String> = frames_root_first(self.profile, Some(stack))
            .into_iter()
            .map(|loc| self.escape(location_name(self.profile, loc)))
            .collect();
        let mut text = names.join(";");
        if text.starts_with(char::is_whitespace) {
            // Readers trim lines, so the root frame's leading blanks would vanish unnoticed.
            self.warnings.add(NAME, "leading-blank", || {
                "leading blanks of root frame names were dropped (readers trim lines)".to_owned()
            });
            text = text.trim_start().to_owned();
        }
        self.stack_text.insert(stack.0, text.clone());
        text
    }

    fn escape(&mut self, name: String) -> String {
        let name = if name.contains(is_unwritable_control) {
            // Readers take lines with control characters for binary data (NUL: always).
            self.warnings.add(NAME, "control", || {
                "control characters in frame names were replaced by U+FFFD (readers take lines \
                 with control characters for binary data)"
                    .to_owned()
            });
            name.replace(is_unwritable_control, "\u{FFFD}")
        } else {
            name
        };
        if !name.contains([';', '\n', '\r']) && !name.is_empty() {
            return name;
        }
        self.warnings.add(NAME, "escaped", || {
            "frame names containing `;` or line breaks were altered (`;` → `:`, line break → space), as stackcollapse-perf.pl does"
                .to_owned()
        });
        if name.is_empty() {
            return ANONYMOUS.to_owned();
        }
        name.replace(';', ":").replace(['\n', '\r'], " ")
    }

    fn render(&mut self, differential: bool) -> Vec<u8> {
        let mut out = String::new();
        let mut fractional = false;
        for (stack, &(value, prior)) in &self.lines {
            fractional |= value.fract() != 0.0 || prior.fract() != 0.0;
            out.push_str(stack);
            out.push(' ');
            if differential {
                out.push_str(&format_number(prior));
                out.push(' ');
            }
            out.push_str(&format_number(value));
            out.push('\n');
        }
        if !differential && is_differential(&out) {
            self.warnings.add(NAME, "reads-as-differential", || {
                "every stack ends in a frame name ending in ` NUMBER`, so readers take the file \
                 for a differential one (`stack before after`) and that number for a count"
                    .to_owned()
            });
        }
        if fractional {
            self.warnings.add(NAME, "fractional", || {
                "some counts are fractional; flamegraph.pl and inferno read them, speedscope and the Firefox Profiler read only integer counts"
                    .to_owned()
            });
        }
        out.into_bytes()
    }
}

/// Warnings for what collapsed stacks cannot hold: sources, sample times, file names, lines.
fn lost_detail_warnings(p: &Profile) -> Vec<Warning> {
    let mut out = Vec::new();
    let sources = p.sources.source_type.len();
    if sources > 1 {
        out.push(Warning::new(
            NAME,
            format!(
                "the samples of {sources} sources were merged (collapsed stacks have no sources)"
            ),
            1,
        ));
    }
    if p.samples.ext.get(SAMPLE_TIME).is_some() {
        out.push(Warning::new(
            NAME,
            "sample times (.time) were not written: collapsed stacks are aggregated and unordered",
            1,
        ));
    }
    let has_files = p.functions.filename.iter().any(|f| !f.is_na());
    let has_lines =
        p.locations.line.iter().any(|&l| l > 0) || p.functions.start_line.iter().any(|&l| l > 0);
    if has_files || has_lines {
        out.push(Warning::new(
            NAME,
            "file names and line numbers were not written: collapsed frames are names only",
            1,
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_grammar() {
        assert!(is_count("12"));
        assert!(is_count("6."));
        assert!(is_count("31.23"));
        assert!(!is_count(".5"));
        assert!(!is_count("-1"));
        assert!(!is_count("12V.43"));
        assert_eq!("6.".parse::<f64>().ok(), Some(6.0));
    }

    #[test]
    fn split_from_the_right() {
        assert_eq!(split_count("a b;c d 3"), Some(("a b;c d", "3")));
        assert_eq!(split_count("a\t3"), Some(("a", "3")));
        assert_eq!(split_count("3"), None);
        assert_eq!(split_count("a;b"), None);
    }

    #[test]
    fn detect_rejects_rprof_and_json() {
        assert!(!detect(b"sample.interval=20000\n\"a\" \"b\" \n"));
        assert!(!detect(b"{\"a\": 1}"));
        assert!(!detect(b"\x1f\x8b\x08\x00"));
        assert!(detect(b"a;b 1\n"));
    }
}
