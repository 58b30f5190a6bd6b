//! Writer step: the columns of pprof's own extension tables (`mappings`, `sample_labels`) that
//! pprof has no field for. Every other extension item, the meta keys and the sources beyond
//! the first are reported by the shared loss report ([`crate::formats::loss`]).

use super::Writer;
use crate::formats::pprof::*;
use crate::formats::Warning;
use crate::model::ExtTable;

impl Writer<'_> {
    /// Warns about the columns of the mappings and labels tables that pprof has no field for.
    pub(super) fn report_unwritten(&mut self) {
        let p = self.p;
        let mut lost: Vec<String> = Vec::new();
        for t in &p.ext_tables {
            match t.name.as_str() {
                MAPPINGS_TABLE => lost.extend(unwritten_table_columns(t, &MAPPING_COLUMNS)),
                LABELS_TABLE => lost.extend(unwritten_table_columns(t, &LABEL_COLUMNS)),
                _ => {}
            }
        }
        if !lost.is_empty() {
            self.warnings.push(Warning::new(
                FORMAT,
                format!("pprof cannot hold these; not written: {}", lost.join(", ")),
                lost.len(),
            ));
        }
    }
}

fn unwritten_table_columns<'a>(
    t: &'a ExtTable,
    written: &'a [&str],
) -> impl Iterator<Item = String> + 'a {
    t.columns
        .columns
        .iter()
        .filter(move |c| !written.contains(&c.name.as_str()))
        .map(move |c| format!("{}.{}", t.name, c.name))
}
