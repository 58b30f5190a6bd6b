//! Reading folded stacks: one sample per valid line (never expanded), frames interned by
//! name, comments kept in meta, unparsable lines skipped and counted in one warning.
//!
//! Counts are kept exactly as `f64`; a file without any stack line is an error, as
//! flamegraph.pl says.

use super::grammar::{classify, is_differential, Line};
use super::{BEFORE_TYPE, META_COMMENT, NAME};
use crate::formats::error::{Place, ReadError, Warnings};
use crate::formats::read_common::decode_text;
use crate::formats::read_common::finish_parsed;
use crate::formats::{Format, Limits, Parsed, ReadOptions};
use crate::hash::HashMap;
use crate::model::ext;
use crate::model::{
    Cell, LocationIndex, ProfileBuilder, SourceIndex, StackIndex, ValueTypeIndex, META_DEFAULT_TYPE,
};

/// Largest integer an `f64` holds exactly; larger counts are rounded (and reported).
const MAX_EXACT_COUNT: f64 = 9_007_199_254_740_992.0;
/// Name given to empty frames.
const ANONYMOUS: &str = "(anonymous)";

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

/// Reader state: the builder and the interned frames. Fed one line at a time, so the whole
/// text need not be in memory ([`super::stream::LineStream`]).
pub(super) struct Reader {
    limits: Limits,
    b: ProfileBuilder,
    source: SourceIndex,
    samples: ValueTypeIndex,
    before: Option<ValueTypeIndex>,
    locations: HashMap<String, LocationIndex>,
    stack_lines: usize,
}

impl Reader {
    pub(super) fn new(options: &ReadOptions, differential: bool) -> Self {
        let mut b = ProfileBuilder::new();
        let source = b.add_source(NAME, options.source_uri.as_deref(), None);
        let before = differential.then(|| b.value_type(BEFORE_TYPE, "count"));
        let samples = b.value_type("samples", "count");
        b.set_meta(META_DEFAULT_TYPE, "samples");
        Reader {
            limits: options.limits.clone(),
            b,
            source,
            samples,
            before,
            locations: HashMap::default(),
            stack_lines: 0,
        }
    }

    pub(super) fn line(
        &mut self,
        number: usize,
        raw: &str,
        warnings: &mut Warnings,
    ) -> Result<(), ReadError> {
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
        if self.stack_lines >= self.limits.max_samples {
            let max = self.limits.max_samples;
            return Err(line_error(
                number,
                format!("more than {max} stack lines (the sample limit)"),
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
        if stack.is_empty() {
            // ` 108`: samples of the root alone (see `grammar::root_only`).
            return Ok(node);
        }
        for (depth, frame) in stack.split(';').enumerate() {
            if depth >= self.limits.max_stack_depth {
                let max = self.limits.max_stack_depth;
                return Err(line_error(
                    number,
                    format!("the stack is deeper than {max} frames (the stack depth limit)"),
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
                .set_location_ext(loc, ext::locations::FRAME_TYPE, Cell::Chr(kernel));
        }
        self.locations.insert(name.to_owned(), loc);
        loc
    }

    pub(super) fn finish(self, warnings: Warnings) -> Result<Parsed, ReadError> {
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
        .map_err(|_| line_error(number, format!("bad count {text:?}")))?;
    if !value.is_finite() {
        return Err(line_error(
            number,
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

/// An error at line `number` of the input.
fn line_error(number: usize, message: String) -> ReadError {
    ReadError::new(NAME, Place::Line(number), message)
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
