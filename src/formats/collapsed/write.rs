//! Writing folded stacks: samples aggregated by stack (the chosen value type summed), one
//! line per distinct stack, sorted by stack text, in stackcollapse-perf.pl's layout.
//!
//! Names are made safe for one line (`;` → `:`, line breaks → spaces, other control
//! characters → U+FFFD) with a warning for each kind; with a `before` value type beside
//! `samples`, lines carry both counts so differential files round-trip.

use std::collections::BTreeMap;

use super::grammar::is_differential;
use super::{BEFORE_TYPE, NAME};
use crate::formats::error::{Warnings, WriteError};
use crate::formats::write_common::{chosen_value_type, format_number, frames_root_first};
use crate::formats::{WriteOptions, Written};
use crate::hash::HashMap;
use crate::model::{Profile, SampleIndex, StackIndex, ValueTypeIndex};

/// Name given to empty frames.
const ANONYMOUS: &str = "(anonymous)";

/// Control characters the writer cannot put in a frame name: all but tab and the line
/// breaks (which [`WriteState::escape`] turns into spaces).
fn is_unwritable_control(c: char) -> bool {
    c.is_control() && !matches!(c, '\t' | '\n' | '\r')
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
    Ok(Written {
        bytes,
        warnings: w.warnings.into_vec(),
    })
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
            // A sample without frames is the line ` N` (the root alone), as readers take it.
            let text = match SampleIndex::from_usize(s).and_then(|si| p.sample_stack(si)) {
                Some(stack) => self.text_of(stack),
                None => String::new(),
            };
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
            .map(|loc| self.escape(self.profile.frame_display_name(loc)))
            .collect();
        let mut text = names.join(";");
        if text.starts_with(char::is_whitespace) {
            // Readers trim lines, so the root frame's leading blanks would vanish unnoticed.
            self.warnings.add(NAME, "leading-blank", || {
                "leading blanks of root frame names were dropped (readers trim lines)".to_owned()
            });
            text = text.trim_start().to_owned();
        }
        if let Some(rest) = text.strip_prefix('\u{feff}') {
            // At the start of the file it is a byte-order mark to readers, and it is invisible.
            self.warnings.add(NAME, "leading-bom", || {
                "a leading U+FEFF of root frame names was dropped (readers skip it as a \
                 byte-order mark)"
                    .to_owned()
            });
            text = rest.to_owned();
        }
        if let Some(rest) = text.strip_prefix('#') {
            // A line starting with `#` is a comment to readers: the stack would vanish.
            self.warnings.add(NAME, "leading-hash", || {
                "root frame names starting with `#` were written with `＃` (U+FF03): a line \
                 starting with `#` is a comment"
                    .to_owned()
            });
            text = format!("\u{ff03}{rest}");
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
