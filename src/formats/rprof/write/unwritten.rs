//! What the written file cannot hold: value types no line carries, function start lines
//! the reader cannot recover, and extension columns, tables and meta keys.
//!
//! Each kind is one warning, so nothing the profile holds is dropped silently.

use super::super::*;
use super::Writer;
use crate::formats::Warning;
use crate::model::{Profile, ValueTypeIndex, SAMPLE_TIME};

impl Writer<'_> {
    /// Warns about everything in the profile that no line carries.
    pub(super) fn report_unwritten(&mut self) {
        let p = self.p;
        let unused: Vec<String> = (0..p.values.len())
            .filter(|i| !self.used_types.contains(i))
            .filter_map(ValueTypeIndex::from_usize)
            .map(|vt| {
                let (t, u) = p.value_type_names(vt);
                format!("{t}/{u}")
            })
            .collect();
        if !unused.is_empty() {
            self.warnings.push(Warning::new(
                FORMAT,
                format!(
                    "value types Rprof cannot hold were left out: {}",
                    unused.join(", ")
                ),
                unused.len(),
            ));
        }
        self.report_start_lines();
        let extras = extension_names(p);
        if !extras.is_empty() {
            self.warnings.push(Warning::new(
                FORMAT,
                format!("left out (no place in Rprof): {}", extras.join(", ")),
                extras.len(),
            ));
        }
    }

    pub(super) fn report_start_lines(&mut self) {
        let p = self.p;
        for (&f, &min) in &self.min_written_line {
            if p.functions
                .start_line
                .get(f)
                .is_some_and(|&s| s > 0 && s != min)
            {
                self.lost_start_lines.insert(f);
            }
        }
        let written_without_line = p
            .functions
            .start_line
            .iter()
            .enumerate()
            .filter(|(f, &s)| s > 0 && !self.min_written_line.contains_key(f))
            .count();
        let lost = self.lost_start_lines.len() + written_without_line;
        if lost > 0 {
            self.warnings.push(Warning::new(
                FORMAT,
                format!(
                    "functions.start_line of {lost} functions is lost: Rprof has no start \
                     lines (reading it back gives the smallest line seen, else 0)"
                ),
                1,
            ));
        }
    }
}

/// Extension columns, tables and meta keys that Rprof does not carry.
fn extension_names(p: &Profile) -> Vec<String> {
    let known_sample_cols = [SAMPLE_TIME, COL_RUN, COL_TOPLEVEL_FILE, COL_TOPLEVEL_LINE];
    let mut names: Vec<String> = Vec::new();
    let cols = |table: &str, ext: &crate::model::ExtColumns, skip: &[&str]| -> Vec<String> {
        ext.columns
            .iter()
            .filter(|c| !skip.contains(&c.name.as_str()))
            .map(|c| format!("{table}.{}", c.name))
            .collect()
    };
    names.extend(cols("samples", &p.samples.ext, &known_sample_cols));
    names.extend(cols("locations", &p.locations.ext, &[]));
    names.extend(cols("functions", &p.functions.ext, &[]));
    names.extend(cols("sources", &p.sources.ext, &[]));
    names.extend(
        p.ext_tables
            .iter()
            .filter(|t| !t.is_empty())
            .map(|t| format!("table {}", t.name)),
    );
    let known_meta = [
        crate::model::META_VERSION,
        crate::model::META_DEFAULT_TYPE,
        META_HEADER,
    ];
    let mut meta: Vec<String> = p
        .meta
        .key
        .iter()
        .map(|&k| p.str(k))
        .filter(|k| !known_meta.contains(k))
        .map(|k| format!("meta {k}"))
        .collect();
    meta.dedup();
    names.extend(meta);
    names
}
