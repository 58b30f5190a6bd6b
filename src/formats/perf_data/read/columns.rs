//! The samples' extension columns, kept in typed vectors while reading and handed to the
//! builder once at the end: setting a cell by column name costs a name search per cell, which
//! on millions of samples was a tenth of the read.
//!
//! Invariant: every vector has one cell per sample added so far (NA where the sample has no
//! value); the optional columns (`.cpu`, `.time`) exist from the first sample that has them
//! and are declared to the builder then, so the columns keep the order they had when set one
//! cell at a time.

use crate::model::ext::samples as sample_cols;
use crate::model::{ColumnData, ColumnKind, ProfileBuilder, StringId, INT_NA};

/// The cells of one sample.
pub(super) struct Row {
    /// `(thread name, pid, tid)`, when the sample has a pid and a tid.
    pub thread: Option<(StringId, i32, i32)>,
    pub event: StringId,
    pub cpu: Option<i32>,
    /// Seconds from the first sample.
    pub time: Option<f64>,
}

/// The column cells of the samples read so far.
#[derive(Default)]
pub(super) struct SampleColumns {
    thread: Vec<StringId>,
    pid: Vec<i32>,
    tid: Vec<i32>,
    event: Vec<StringId>,
    cpu: Option<Vec<i32>>,
    time: Option<Vec<f64>>,
}

impl SampleColumns {
    /// Appends the cells of the next sample.
    pub fn push(&mut self, b: &mut ProfileBuilder, row: Row) {
        let n = self.event.len();
        let (thread, pid, tid) = row.thread.unwrap_or((StringId::NA, INT_NA, INT_NA));
        self.thread.push(thread);
        self.pid.push(pid);
        self.tid.push(tid);
        self.event.push(row.event);
        if let Some(cpu) = row.cpu {
            optional(
                &mut self.cpu,
                b,
                (super::SAMPLE_CPU, ColumnKind::Int),
                n,
                INT_NA,
            )
            .push(cpu);
        } else if let Some(cells) = &mut self.cpu {
            cells.push(INT_NA);
        }
        if let Some(t) = row.time {
            optional(
                &mut self.time,
                b,
                (sample_cols::TIME, ColumnKind::Dbl),
                n,
                f64::NAN,
            )
            .push(t);
        } else if let Some(cells) = &mut self.time {
            cells.push(f64::NAN);
        }
    }

    /// Hands the columns to the builder (declared before, in their order).
    pub fn finish(self, b: &mut ProfileBuilder) {
        let columns = [
            (sample_cols::THREAD_NAME, Some(ColumnData::Chr(self.thread))),
            (sample_cols::PID, Some(ColumnData::Int(self.pid))),
            (sample_cols::TID, Some(ColumnData::Int(self.tid))),
            (super::SAMPLE_EVENT, Some(ColumnData::Chr(self.event))),
            (super::SAMPLE_CPU, self.cpu.map(ColumnData::Int)),
            (sample_cols::TIME, self.time.map(ColumnData::Dbl)),
        ];
        for (name, data) in columns {
            if let Some(data) = data {
                let kind = data.kind();
                *b.samples_mut().ext.get_or_create(name, kind) = data;
            }
        }
    }
}

/// The cells of an optional column, created (NA for the `n` samples before) and declared to
/// the builder when it is first needed.
fn optional<'a, T: Copy>(
    cells: &'a mut Option<Vec<T>>,
    b: &mut ProfileBuilder,
    (name, kind): (&str, ColumnKind),
    n: usize,
    na: T,
) -> &'a mut Vec<T> {
    cells.get_or_insert_with(|| {
        b.declare_sample_column(name, kind);
        vec![na; n]
    })
}
