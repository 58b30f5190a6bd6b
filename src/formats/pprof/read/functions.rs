//! Reader step: pprof `Function`s → `functions` rows, with their pprof ids and the flags that
//! remember empty names (the model has none: an empty name reads [`UNKNOWN_FUNCTION`], an
//! empty system name the name).

use super::{column, IdMap, Reader};
use crate::formats::pprof::errors::{duplicate_id, reserved_id};
use crate::formats::pprof::toplevel::TopLevel;
use crate::formats::pprof::{FUNC_EMPTY_NAME, FUNC_EMPTY_SYSTEM_NAME, FUNC_PPROF_ID};
use crate::formats::ReadError;
use crate::model::{ColumnData, FunctionKey};

impl Reader<'_> {
    pub(super) fn functions(&mut self, top: &TopLevel) -> Result<(), ReadError> {
        self.function_rows =
            IdMap::for_ids(top.functions.iter().map(|(f, _)| f.id), top.functions.len());
        let mut pprof_ids = Vec::with_capacity(top.functions.len());
        let mut empty_names = Vec::with_capacity(top.functions.len());
        let mut empty_system_names = Vec::with_capacity(top.functions.len());
        for (i, (f, off)) in top.functions.iter().enumerate() {
            let off = *off;
            let what = || format!("function[{i}] (id {})", f.id);
            if f.id == 0 {
                return Err(reserved_id(off, "function", i, "ID"));
            }
            let name = self.sid(f.name, off, &what)?;
            let system_name = self.sid(f.system_name, off, &what)?;
            // The model has no empty names: an empty name is shown as pprof shows it, an
            // empty system name takes the name, and flags remember both for the writer.
            let name_empty = name.is_na();
            let name = if name_empty {
                self.unknown_name()
            } else {
                name
            };
            let key = FunctionKey {
                name,
                system_name: if system_name.is_na() {
                    name
                } else {
                    system_name
                },
                filename: self.sid(f.filename, off, &what)?,
                start_line: self.line_number(f.start_line, &what),
            };
            empty_names.push(Some(name_empty));
            empty_system_names.push(Some(system_name.is_na()));
            let row = self.b.add_function(key);
            if !self.function_rows.insert(f.id, row.0) {
                return Err(duplicate_id(off, "function", f.id));
            }
            pprof_ids.push(Some(f.id));
        }
        let ext = &mut self.b.functions_mut().ext.columns;
        if !pprof_ids.is_empty() {
            ext.push(column(FUNC_PPROF_ID, ColumnData::U64(pprof_ids)));
        }
        if empty_names.contains(&Some(true)) {
            ext.push(column(FUNC_EMPTY_NAME, ColumnData::Lgl(empty_names)));
        }
        if empty_system_names.contains(&Some(true)) {
            ext.push(column(
                FUNC_EMPTY_SYSTEM_NAME,
                ColumnData::Lgl(empty_system_names),
            ));
        }
        Ok(())
    }
}
