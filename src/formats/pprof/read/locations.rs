//! Reader step: pprof `Location`s → `locations` rows, one per `Line` (innermost first) or one
//! without a function for a location without lines, plus the location extension columns that
//! let the writer fold them back ([`LOC_PPROF_ID`], [`LOC_LINE_INDEX`], …).

use super::{byte_err, IdMap, Reader};
use crate::formats::pprof::errors::{duplicate_id, reserved_id};
use crate::formats::pprof::schema::Location;
use crate::formats::pprof::toplevel::TopLevel;
use crate::formats::pprof::{
    LOC_ADDRESS, LOC_COLUMN, LOC_IS_FOLDED, LOC_LINE_INDEX, LOC_MAPPING_ID, LOC_PPROF_ID,
};
use crate::formats::ReadError;
use crate::model::{Column, ColumnData, FunctionIndex, INT_NA};

/// The model rows a pprof location expanded into: `count` consecutive locations from `first`.
#[derive(Clone, Copy)]
pub(super) struct LocationRows {
    pub(super) first: u32,
    pub(super) count: u32,
}

/// Location extension columns, filled row by row and attached at the end.
#[derive(Default)]
struct LocationExt {
    address: Vec<Option<u64>>,
    mapping_id: Vec<Option<u64>>,
    is_folded: Vec<Option<bool>>,
    pprof_id: Vec<Option<u64>>,
    line_index: Vec<i32>,
    column: Vec<i32>,
}

impl Reader<'_> {
    pub(super) fn locations(&mut self, top: &TopLevel) -> Result<(), ReadError> {
        self.location_lines =
            IdMap::for_ids(top.locations.iter().map(|(l, _)| l.id), top.locations.len());
        let mut ext = LocationExt::default();
        for (i, (loc, off)) in top.locations.iter().enumerate() {
            let off = *off;
            if loc.id == 0 {
                return Err(reserved_id(off, "location", i, "id"));
            }
            if self.location_lines.get(loc.id).is_some() {
                return Err(duplicate_id(off, "location", loc.id));
            }
            let rows = self.location_rows_of(loc, off, &mut ext)?;
            // New, and the map was sized for every id: the insert succeeds.
            self.location_lines.insert(loc.id, rows);
        }
        self.attach_location_ext(ext);
        Ok(())
    }

    /// Adds the model rows of one pprof location (one per line, or one without a function).
    fn location_rows_of(
        &mut self,
        loc: &Location,
        off: usize,
        ext: &mut LocationExt,
    ) -> Result<LocationRows, ReadError> {
        let first = self.b.profile().locations.line.len() as u32;
        let what = || format!("location id {}", loc.id);
        if loc.line.is_empty() {
            self.b.add_location(None, 0);
            ext.push(loc, 0, INT_NA);
        }
        for (k, line) in loc.line.iter().enumerate() {
            let f = self.function_rows.get(line.function_id).ok_or_else(|| {
                byte_err(
                    off,
                    format!("location id: {} has a line with nil function", loc.id),
                )
            })?;
            let number = self.line_number(line.line, &what);
            let column = self.column_number(line.column, &what);
            self.b.add_location(Some(FunctionIndex(f)), number);
            ext.push(loc, k, column);
        }
        let count = (loc.line.len() as u32).max(1);
        Ok(LocationRows { first, count })
    }

    fn column_number(&mut self, column: i64, what: &dyn Fn() -> String) -> i32 {
        if column == 0 {
            return INT_NA;
        }
        self.line_number(column, what)
    }

    fn attach_location_ext(&mut self, ext: LocationExt) {
        let cols = &mut self.b.locations_mut().ext.columns;
        let mut add = |name: &str, data: ColumnData| {
            cols.push(Column {
                name: name.to_owned(),
                data,
            })
        };
        if ext.address.iter().any(Option::is_some) {
            add(LOC_ADDRESS, ColumnData::U64(ext.address));
        }
        if ext.mapping_id.iter().any(Option::is_some) {
            add(LOC_MAPPING_ID, ColumnData::U64(ext.mapping_id));
        }
        if ext.is_folded.contains(&Some(true)) {
            add(LOC_IS_FOLDED, ColumnData::Lgl(ext.is_folded));
        }
        if !ext.pprof_id.is_empty() {
            add(LOC_PPROF_ID, ColumnData::U64(ext.pprof_id));
            add(LOC_LINE_INDEX, ColumnData::Int(ext.line_index));
        }
        if ext.column.iter().any(|&c| c != INT_NA) {
            add(LOC_COLUMN, ColumnData::Int(ext.column));
        }
    }
}

impl LocationExt {
    fn push(&mut self, loc: &Location, line_index: usize, column: i32) {
        self.address.push((loc.address != 0).then_some(loc.address));
        self.mapping_id
            .push((loc.mapping_id != 0).then_some(loc.mapping_id));
        self.is_folded.push(Some(loc.is_folded));
        self.pprof_id.push(Some(loc.id));
        self.line_index
            .push(i32::try_from(line_index).unwrap_or(i32::MAX));
        self.column.push(column);
    }
}
