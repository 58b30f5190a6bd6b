//! Process state replayed from the records, as perf keeps it: the command name of each thread
//! (COMM, inherited on FORK) and the mapped binaries of each process (MMAP / MMAP2, copied
//! to a forked process) and of the kernel (pid -1), with a generation number per address
//! space that changes whenever its mappings do.

use crate::hash::HashMap;
use crate::model::StringId;

/// One mapped range of a binary.
#[derive(Clone, Debug)]
pub(super) struct Map {
    pub start: u64,
    /// One past the last address.
    pub end: u64,
    /// Offset in the file of `start`.
    pub pgoff: u64,
    /// Row of the `mappings` table (0-based).
    pub row: u32,
}

/// Mapped ranges of one address space, sorted by start, not overlapping.
#[derive(Clone, Debug, Default)]
pub(super) struct Maps {
    list: Vec<Map>,
}

impl Maps {
    /// Adds a range; the parts of older ranges it covers are dropped (a new mapping replaces
    /// what was there, as the kernel does).
    pub fn insert(&mut self, map: Map) {
        let mut kept = Vec::with_capacity(self.list.len() + 2);
        for m in self.list.drain(..) {
            if m.end <= map.start || m.start >= map.end {
                kept.push(m);
                continue;
            }
            if m.start < map.start {
                kept.push(Map {
                    end: map.start,
                    ..m.clone()
                });
            }
            if m.end > map.end {
                let cut = map.end - m.start;
                kept.push(Map {
                    start: map.end,
                    pgoff: m.pgoff.wrapping_add(cut),
                    ..m
                });
            }
        }
        let at = kept.partition_point(|m| m.start < map.start);
        kept.insert(at, map);
        self.list = kept;
    }

    /// Every range, by start.
    pub fn list(&self) -> &[Map] {
        &self.list
    }

    /// The range holding `addr`.
    pub fn find(&self, addr: u64) -> Option<&Map> {
        let i = self.list.partition_point(|m| m.start <= addr);
        let m = self.list.get(i.checked_sub(1)?)?;
        (addr < m.end).then_some(m)
    }
}

/// Threads' names and processes' mappings.
#[derive(Default)]
pub(super) struct Machine {
    comm: HashMap<i32, StringId>,
    process_maps: HashMap<i32, Maps>,
    pub kernel: Maps,
    /// The generation of each process's mappings (0 before any) and of the kernel's.
    generations: HashMap<i32, u64>,
    kernel_generation: u64,
    /// The last generation given out: every change of mappings takes the next one.
    last_generation: u64,
}

impl Machine {
    pub fn set_comm(&mut self, tid: i32, name: StringId) {
        self.comm.insert(tid, name);
    }

    /// A thread's command name (interned), when a COMM record named it.
    pub fn comm(&self, tid: i32) -> Option<StringId> {
        self.comm.get(&tid).copied()
    }

    /// FORK: the new thread takes its parent's name; a new process a copy of its maps.
    pub fn fork(&mut self, pid: i32, ppid: i32, tid: i32, ptid: i32) {
        if let Some(&name) = self.comm.get(&ptid) {
            self.comm.entry(tid).or_insert(name);
        }
        if pid != ppid && !self.process_maps.contains_key(&pid) {
            if let Some(maps) = self.process_maps.get(&ppid).cloned() {
                self.process_maps.insert(pid, maps);
                self.bump(Some(pid));
            }
        }
    }

    /// An MMAP of process `pid`, or of the kernel.
    pub fn mmap(&mut self, pid: i32, kernel: bool, map: Map) {
        if kernel {
            self.kernel.insert(map);
            self.bump(None);
        } else {
            self.process_maps.entry(pid).or_default().insert(map);
            self.bump(Some(pid));
        }
    }

    /// A new generation for the mappings of `pid` (`None`: the kernel's).
    fn bump(&mut self, pid: Option<i32>) {
        self.last_generation += 1;
        match pid {
            Some(pid) => {
                self.generations.insert(pid, self.last_generation);
            }
            None => self.kernel_generation = self.last_generation,
        }
    }

    /// The generations of the mappings a sample of `pid` is looked up in: its process's and
    /// the kernel's. Equal generations mean the same mappings.
    pub fn generation(&self, pid: i32) -> [u64; 2] {
        let own = self.generations.get(&pid).copied().unwrap_or(0);
        [own, self.kernel_generation]
    }

    /// The mapped ranges of process `pid`, by start.
    pub fn user_maps(&self, pid: i32) -> &[Map] {
        self.process_maps.get(&pid).map_or(&[], Maps::list)
    }

    /// The mapping of a user address of process `pid`.
    pub fn find_user(&self, pid: i32, addr: u64) -> Option<&Map> {
        self.process_maps.get(&pid)?.find(addr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(start: u64, end: u64, row: u32) -> Map {
        Map {
            start,
            end,
            pgoff: 0,
            row,
        }
    }

    #[test]
    fn later_maps_replace_what_they_cover() {
        let mut m = Maps::default();
        m.insert(map(0x1000, 0x5000, 0));
        m.insert(map(0x2000, 0x3000, 1));
        assert_eq!(m.find(0x1800).map(|m| m.row), Some(0));
        assert_eq!(m.find(0x2800).map(|m| m.row), Some(1));
        let tail = m.find(0x4000).unwrap();
        assert_eq!((tail.row, tail.pgoff), (0, 0x2000));
        assert!(m.find(0x5000).is_none() && m.find(0x10).is_none());
    }

    #[test]
    fn generations_change_with_the_mappings_they_stand_for() {
        let mut m = Machine::default();
        let start = m.generation(7);
        m.mmap(7, false, map(0x1000, 0x2000, 0));
        let own = m.generation(7);
        assert_ne!(own, start);
        assert_eq!(m.generation(8), [0, 0], "another process is untouched");
        m.mmap(-1, true, map(0xffff_0000, 0xffff_1000, 1));
        assert_eq!(m.generation(7)[0], own[0]);
        assert_ne!(m.generation(7)[1], own[1], "the kernel's changed");
        m.fork(9, 7, 9, 7);
        assert_ne!(
            m.generation(9)[0],
            0,
            "a forked process has its parent's maps"
        );
        assert_eq!(m.find_user(9, 0x1800).map(|m| m.row), Some(0));
    }
}
