//! What the written file cannot hold that depends on the plan: value types no line carries,
//! function start lines the reader cannot recover. Extension columns, tables and meta keys
//! are reported by the shared loss report ([`crate::formats::loss`]).
//!
//! Each kind is one warning, so nothing the profile holds is dropped silently.

use super::super::*;
use super::Writer;
use crate::formats::Warning;
use crate::model::ValueTypeIndex;

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
