//! Numbering for the writer: the string table (index 0 is the empty string, then strings in
//! order of first use) and pools of pprof ids that keep original ids where they are unique.

use crate::hash::{HashMap, HashSet};
use crate::model::{Profile, StringId};

/// The string table under construction.
pub(super) struct Strings<'p> {
    pub(super) list: Vec<&'p str>,
    index: HashMap<&'p str, i64>,
}

impl<'p> Strings<'p> {
    pub(super) fn new() -> Self {
        let mut index = HashMap::default();
        index.insert("", 0);
        Strings {
            list: vec![""],
            index,
        }
    }

    pub(super) fn of(&mut self, s: &'p str) -> i64 {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let i = self.list.len() as i64;
        self.list.push(s);
        self.index.insert(s, i);
        i
    }
}

/// Hands out ids not used by any preferred (original) id.
pub(super) struct IdPool {
    used: HashSet<u64>,
    next: u64,
}

impl IdPool {
    pub(super) fn new() -> Self {
        IdPool {
            used: HashSet::default(),
            next: 1,
        }
    }

    /// `preferred` when it is nonzero and free, else a fresh id.
    pub(super) fn take(&mut self, preferred: Option<u64>) -> u64 {
        if let Some(id) = preferred.filter(|&id| id != 0) {
            if self.used.insert(id) {
                return id;
            }
        }
        while self.used.contains(&self.next) {
            self.next += 1;
        }
        let id = self.next;
        self.used.insert(id);
        id
    }
}

impl<'p> Strings<'p> {
    /// String index of a model string id of `p`.
    pub(super) fn of_owned(&mut self, p: &'p Profile, id: StringId) -> i64 {
        self.of(p.str(id))
    }
}
