//! The allocation events (`+`, `-`, `c`, `A`) replayed into rows: one row per allocation info
//! and time stamp, with its calls, temporary allocations, blocks still live at the end and
//! blocks live at the global peak of heap consumption.

use crate::hash::HashMap;

/// Marks a free in [`Events::log`] (the rest is the row).
const FREE_BIT: u32 = 1 << 31;

/// One sample to be: the allocations of one allocation info within one time stamp.
#[derive(Clone, Copy, Debug)]
pub(super) struct Row {
    pub info: u32,
    pub time_ms: u64,
    pub calls: u64,
    pub temporary: u64,
    /// Blocks of this row not freed (yet; at the end: leaked).
    pub live: u64,
    /// Blocks of this row live at the global peak (set by [`Events::finish`]).
    pub at_peak: u64,
}

/// Why an event was not taken.
pub(super) enum EventProblem {
    /// A free of an allocation info with no live block.
    NothingLive,
    /// More rows than the sample limit allows.
    TooManyRows,
}

/// The replay state.
pub(super) struct Events {
    pub rows: Vec<Row>,
    /// The row of each allocation info at the current time stamp.
    current: HashMap<u32, u32>,
    /// Per allocation info: its live blocks as runs `(row, count)`, the most recent last.
    live: Vec<Vec<(u32, u64)>>,
    /// Every taken event: an allocation's row, or a free's row with [`FREE_BIT`].
    log: Vec<u32>,
    /// Bytes live now, the peak and the log length at the peak.
    heap: u64,
    pub peak: u64,
    peak_at: usize,
    pub time_ms: u64,
    max_rows: usize,
}

impl Events {
    /// Replay state holding at most `max_rows` rows (the sample limit).
    pub fn new(max_rows: usize) -> Self {
        Events {
            rows: Vec::new(),
            current: HashMap::default(),
            live: Vec::new(),
            log: Vec::new(),
            heap: 0,
            peak: 0,
            peak_at: 0,
            time_ms: 0,
            max_rows: max_rows.min(FREE_BIT as usize - 1),
        }
    }

    /// A `c` record: a new time stamp (later than the current one).
    pub fn time(&mut self, ms: u64) {
        if ms != self.time_ms {
            self.current.clear();
        }
        self.time_ms = ms;
    }

    /// An `A` record: heaptrack attached to a running process and starts counting anew.
    pub fn attached(&mut self) {
        self.heap = 0;
        self.peak = 0;
    }

    /// One allocation of `size` bytes from allocation info `info`.
    pub fn alloc(&mut self, info: u32, size: u64) -> Result<(), EventProblem> {
        let row = match self.current.get(&info) {
            Some(&r) => r,
            None => {
                if self.rows.len() >= self.max_rows {
                    return Err(EventProblem::TooManyRows);
                }
                let r = self.rows.len() as u32;
                self.rows.push(Row {
                    info,
                    time_ms: self.time_ms,
                    calls: 0,
                    temporary: 0,
                    live: 0,
                    at_peak: 0,
                });
                self.current.insert(info, r);
                r
            }
        };
        let i = info as usize;
        if self.live.len() <= i {
            self.live.resize_with(i + 1, Vec::new);
        }
        match self.live[i].last_mut() {
            Some((r, n)) if *r == row => *n += 1,
            _ => self.live[i].push((row, 1)),
        }
        let r = &mut self.rows[row as usize];
        r.calls += 1;
        r.live += 1;
        self.log.push(row);
        self.heap = self.heap.saturating_add(size);
        if self.heap > self.peak {
            self.peak = self.heap;
            self.peak_at = self.log.len();
        }
        Ok(())
    }

    /// One free of a block of allocation info `info` (the most recent live one); `temporary`
    /// when it is counted as a temporary allocation.
    pub fn free(&mut self, info: u32, size: u64, temporary: bool) -> Result<(), EventProblem> {
        let runs = self
            .live
            .get_mut(info as usize)
            .ok_or(EventProblem::NothingLive)?;
        let (row, n) = runs.last_mut().ok_or(EventProblem::NothingLive)?;
        let row = *row;
        *n -= 1;
        if *n == 0 {
            runs.pop();
        }
        let r = &mut self.rows[row as usize];
        r.live -= 1;
        if temporary {
            r.temporary += 1;
        }
        self.log.push(row | FREE_BIT);
        self.heap = self.heap.saturating_sub(size);
        Ok(())
    }

    /// Replays the events up to the global peak to count each row's blocks live there.
    pub fn finish(&mut self) {
        for &e in self.log.get(..self.peak_at).unwrap_or_default() {
            let r = &mut self.rows[(e & !FREE_BIT) as usize];
            if e & FREE_BIT == 0 {
                r.at_peak += 1;
            } else {
                r.at_peak -= 1;
            }
        }
        self.log = Vec::new();
        self.live = Vec::new();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_peak_and_leaks() {
        let mut e = Events::new(100);
        e.alloc(0, 10).ok();
        e.alloc(0, 10).ok();
        e.free(0, 10, true).ok();
        e.time(5);
        e.alloc(1, 100).ok(); // the peak: one block of info 0 and this one
        e.free(1, 100, false).ok();
        e.alloc(0, 10).ok();
        assert!(matches!(
            e.free(2, 1, false),
            Err(EventProblem::NothingLive)
        ));
        e.finish();
        assert_eq!(e.peak, 110);
        let r: Vec<_> = e
            .rows
            .iter()
            .map(|r| (r.info, r.time_ms, r.calls, r.temporary, r.live, r.at_peak))
            .collect();
        assert_eq!(
            r,
            [(0, 0, 2, 1, 1, 1), (1, 5, 1, 0, 0, 1), (0, 5, 1, 0, 1, 0)]
        );
    }
}
