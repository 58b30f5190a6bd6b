//! Writer step: `locations` rows folded back into pprof `Location`s. Consecutive rows of one
//! original location (same `.pprof_location_id`, `.pprof_line_index` 0, 1, …) form a group and
//! are written as one location with several `Line`s; a row that a stack uses apart from its
//! group is written once more as a location of its own.

use super::{int_or_zero, schema, Writer};
use crate::formats::pprof::{
    FORMAT, LOC_ADDRESS, LOC_COLUMN, LOC_IS_FOLDED, LOC_LINE_INDEX, LOC_MAPPING_ID, LOC_PPROF_ID,
};
use crate::model::{LocationIndex, StackIndex, INT_NA, NO_INDEX};

/// One pprof location folded from consecutive `locations` rows.
#[derive(Clone, Copy)]
pub(super) struct Group {
    pub(super) first: u32,
    pub(super) len: u32,
}

impl Writer<'_> {
    /// Groups `locations` rows into pprof locations and writes them all.
    pub(super) fn locations(&mut self) {
        let p = self.p;
        let n = p.locations.line.len();
        let ext = &p.locations.ext;
        let pprof_id = ext.u64(LOC_PPROF_ID);
        let line_index = ext.int(LOC_LINE_INDEX);
        let id_of = |r: usize| pprof_id.and_then(|c| c.get(r).copied().flatten());
        let index_of = |r: usize| line_index.and_then(|c| c.get(r).copied());
        for r in 0..n {
            let continues = r > 0
                && p.locations.function[r] != NO_INDEX
                && p.locations.function[r - 1] != NO_INDEX
                && id_of(r).is_some()
                && id_of(r) == id_of(r - 1)
                && matches!((index_of(r - 1), index_of(r)), (Some(a), Some(b)) if a != INT_NA && b == a + 1);
            match self.groups.last_mut() {
                Some(g) if continues => g.len += 1,
                _ => self.groups.push(Group {
                    first: r as u32,
                    len: 1,
                }),
            }
            self.row_group.push((self.groups.len() - 1) as u32);
        }
        for g in 0..self.groups.len() {
            let group = self.groups[g];
            let id = self.location_ids.take(id_of(group.first as usize));
            self.group_ids.push(id);
            let loc = self.location(id, group);
            self.out.location.push(loc);
        }
    }

    /// The pprof location `id` made of the rows of `group`.
    fn location(&mut self, id: u64, group: Group) -> schema::Location {
        let ext = &self.p.locations.ext;
        let first = group.first as usize;
        let cell_u64 = |name: &str| ext.u64(name).and_then(|c| c.get(first).copied().flatten());
        let folded = ext
            .lgl(LOC_IS_FOLDED)
            .and_then(|c| c.get(first).copied().flatten())
            .unwrap_or(false);
        let mut loc = schema::Location {
            id,
            mapping_id: cell_u64(LOC_MAPPING_ID).unwrap_or(0),
            address: cell_u64(LOC_ADDRESS).unwrap_or(0),
            line: Vec::new(),
            is_folded: folded,
        };
        for r in first..first + group.len as usize {
            let Some(f) = self.p.location_function(LocationIndex(r as u32)) else {
                let line = self.p.locations.line[r];
                if line != 0 && line != INT_NA {
                    self.warnings.add(FORMAT, "line-no-function", || {
                        format!("locations row {}: a line without a function cannot be written; dropped", r + 1)
                    });
                }
                continue;
            };
            let column = ext
                .int(LOC_COLUMN)
                .and_then(|c| c.get(r).copied())
                .unwrap_or(INT_NA);
            loc.line.push(schema::Line {
                function_id: self.function_ids[f.idx()],
                line: int_or_zero(self.p.locations.line[r]),
                column: int_or_zero(column),
            });
        }
        loc
    }

    /// The id of a row written on its own (the row's own group when it has one row).
    fn single_location(&mut self, row: u32) -> u64 {
        let g = self.row_group[row as usize] as usize;
        if self.groups[g].len == 1 {
            return self.group_ids[g];
        }
        if let Some(&id) = self.single_ids.get(&row) {
            return id;
        }
        let id = self.location_ids.take(None);
        let loc = self.location(id, Group { first: row, len: 1 });
        self.out.location.push(loc);
        self.single_ids.insert(row, id);
        id
    }

    /// pprof location ids of the whole stack ending at `node`, innermost first (memoized).
    pub(super) fn stack_locations(
        &mut self,
        node: u32,
        scratch: &mut Vec<LocationIndex>,
    ) -> (u32, u32) {
        if let Some(Some(range)) = self.node_locations.get(node as usize) {
            return *range;
        }
        scratch.clear();
        scratch.extend(self.p.frames_leaf_first(Some(StackIndex(node))));
        let start = self.stack_ids.len() as u32;
        let mut i = 0;
        while i < scratch.len() {
            let row = scratch[i].0;
            let g = self.row_group[row as usize] as usize;
            let group = self.groups[g];
            let whole = group.first == row
                && (0..group.len as usize)
                    .all(|k| scratch.get(i + k).is_some_and(|l| l.0 == row + k as u32));
            if whole {
                self.stack_ids.push(self.group_ids[g]);
                i += group.len as usize;
            } else {
                let id = self.single_location(row);
                self.stack_ids.push(id);
                i += 1;
            }
        }
        let range = (start, self.stack_ids.len() as u32 - start);
        if let Some(slot) = self.node_locations.get_mut(node as usize) {
            *slot = Some(range);
        }
        range
    }
}
