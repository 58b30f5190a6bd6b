//! Writer step: one warning that lists what the profile holds and pprof has no place for
//! (meta keys, extension columns and tables, sources beyond the first).

use super::Writer;
use crate::formats::pprof::*;
use crate::formats::Warning;
use crate::model::{ExtColumns, ExtTable, META_VERSION};

impl Writer<'_> {
    /// Warns about what the profile holds that pprof has no place for.
    pub(super) fn report_unwritten(&mut self) {
        let p = self.p;
        let mut lost: Vec<String> = Vec::new();
        let mut meta_keys: Vec<&str> = p
            .meta
            .key
            .iter()
            .map(|&k| p.str(k))
            .filter(|k| !is_written_meta(k))
            .collect();
        meta_keys.dedup();
        lost.extend(meta_keys.iter().map(|k| format!("meta {k}")));
        let written_loc = [
            LOC_ADDRESS,
            LOC_MAPPING_ID,
            LOC_IS_FOLDED,
            LOC_PPROF_ID,
            LOC_LINE_INDEX,
            LOC_COLUMN,
        ];
        lost.extend(unwritten_columns(
            "locations",
            &p.locations.ext,
            &written_loc,
        ));
        lost.extend(unwritten_columns(
            "functions",
            &p.functions.ext,
            &[FUNC_PPROF_ID],
        ));
        lost.extend(unwritten_columns("samples", &p.samples.ext, &[]));
        lost.extend(unwritten_columns("sources", &p.sources.ext, &[]));
        for t in &p.ext_tables {
            match t.name.as_str() {
                MAPPINGS_TABLE => lost.extend(unwritten_table_columns(t, &MAPPING_COLUMNS)),
                LABELS_TABLE => lost.extend(unwritten_table_columns(t, &LABEL_COLUMNS)),
                other => lost.push(format!("table {other}")),
            }
        }
        if p.sources.source_type.len() > 1 {
            lost.push(format!(
                "sources rows 2..{} (pprof has one source; samples were merged)",
                p.sources.source_type.len()
            ));
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

fn is_written_meta(key: &str) -> bool {
    matches!(
        key,
        META_VERSION
            | META_DEFAULT_TYPE
            | META_TIME_NANOS
            | META_DURATION_NANOS
            | META_PERIOD
            | META_PERIOD_TYPE
            | META_PERIOD_UNIT
            | META_COMMENT
            | META_DROP_FRAMES
            | META_KEEP_FRAMES
            | META_DOC_URL
            | META_PPROF_DEFAULT_TYPE
    )
}

fn unwritten_columns<'a>(
    table: &'a str,
    ext: &'a ExtColumns,
    written: &'a [&str],
) -> impl Iterator<Item = String> + 'a {
    ext.columns
        .iter()
        .filter(move |c| !written.contains(&c.name.as_str()))
        .map(move |c| format!("{table}.{}", c.name))
}

fn unwritten_table_columns<'a>(
    t: &'a ExtTable,
    written: &'a [&str],
) -> impl Iterator<Item = String> + 'a {
    unwritten_columns(&t.name, &t.columns, written)
}
