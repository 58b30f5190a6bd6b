//! Reader step: pprof `Mapping`s → the `mappings` extension table ([`MAPPING_COLUMNS`]).

use super::{column, IdMap, Reader};
use crate::formats::pprof::errors::{duplicate_id, reserved_id};
use crate::formats::pprof::schema::Mapping;
use crate::formats::pprof::toplevel::TopLevel;
use crate::formats::pprof::{MAPPINGS_TABLE, MAPPING_COLUMNS};
use crate::formats::ReadError;
use crate::model::{Column, ColumnData, StringId};

impl Reader<'_> {
    pub(super) fn mappings(&mut self, top: &TopLevel) -> Result<(), ReadError> {
        if top.mappings.is_empty() {
            return Ok(());
        }
        let mut ids = IdMap::for_ids(top.mappings.iter().map(|(m, _)| m.id), top.mappings.len());
        let n = top.mappings.len();
        let mut cols = MappingColumns::with_capacity(n);
        for (i, (m, off)) in top.mappings.iter().enumerate() {
            let off = *off;
            if m.id == 0 {
                return Err(reserved_id(off, "mapping", i, "ID"));
            }
            if !ids.insert(m.id, i as u32) {
                return Err(duplicate_id(off, "mapping", m.id));
            }
            let what = || format!("mapping[{i}] (id {})", m.id);
            cols.filename.push(self.sid(m.filename, off, &what)?);
            cols.build_id.push(self.sid(m.build_id, off, &what)?);
            cols.push_numbers(m);
        }
        self.b.ext_table(MAPPINGS_TABLE).columns.columns = cols.into_columns();
        Ok(())
    }
}

/// `mappings` columns, filled row by row.
struct MappingColumns {
    /// `id`, `memory_start`, `memory_limit`, `file_offset`.
    numbers: [Vec<Option<u64>>; 4],
    filename: Vec<StringId>,
    build_id: Vec<StringId>,
    /// `has_functions`, `has_filenames`, `has_line_numbers`, `has_inline_frames`.
    flags: [Vec<Option<bool>>; 4],
}

impl MappingColumns {
    fn with_capacity(n: usize) -> Self {
        MappingColumns {
            numbers: std::array::from_fn(|_| Vec::with_capacity(n)),
            filename: Vec::with_capacity(n),
            build_id: Vec::with_capacity(n),
            flags: Default::default(),
        }
    }

    fn push_numbers(&mut self, m: &Mapping) {
        let numbers = [m.id, m.memory_start, m.memory_limit, m.file_offset];
        for (col, n) in self.numbers.iter_mut().zip(numbers) {
            col.push(Some(n));
        }
        let flags = [
            m.has_functions,
            m.has_filenames,
            m.has_line_numbers,
            m.has_inline_frames,
        ];
        for (col, flag) in self.flags.iter_mut().zip(flags) {
            col.push(Some(flag));
        }
    }

    fn into_columns(self) -> Vec<Column> {
        let numbers = self.numbers.into_iter().map(ColumnData::U64);
        let strings = [self.filename, self.build_id]
            .into_iter()
            .map(ColumnData::Chr);
        let flags = self.flags.into_iter().map(ColumnData::Lgl);
        MAPPING_COLUMNS
            .iter()
            .zip(numbers.chain(strings).chain(flags))
            .map(|(name, data)| column(name, data))
            .collect()
    }
}
