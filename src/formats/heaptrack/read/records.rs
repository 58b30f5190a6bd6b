//! The tables a heaptrack file defines before its events use them: strings (`s`), instruction
//! pointers with their frames (`i`), the trace tree (`t`) and allocation infos (`a`). Indices
//! are heaptrack's: strings, ips and traces 1-based (0 = none), allocation infos 0-based.

use super::fields::Fields;
use crate::hash::{HashMap, HashSet};

/// The names whose ips heaptrack folds into their callers (`operator new` as the C++ runtime
/// calls malloc), 64- and 32-bit.
const OPERATOR_NEW: [&str; 4] = [
    "operator new(unsigned long)",
    "operator new[](unsigned long)",
    "operator new(unsigned int)",
    "operator new[](unsigned int)",
];

/// One frame of an ip: function, file (string indices, 0 = none) and line.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Frame {
    pub function: u32,
    pub file: u32,
    pub line: u32,
}

/// An instruction pointer: its address, module and frames, innermost (inlined) first; the
/// last frame is the function the others were inlined into.
#[derive(Clone, Debug, Default)]
pub(super) struct Ip {
    pub address: u64,
    pub module: u32,
    pub frames: Vec<Frame>,
}

/// A node of the trace tree: its ip and its caller's trace (0 = none).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Trace {
    pub ip: u32,
    pub parent: u32,
}

/// An allocation info: one size allocated from one trace.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Info {
    pub size: u64,
    pub trace: u32,
}

/// Why a record line was not (fully) taken.
pub(super) enum Problem {
    /// The fields do not parse.
    Malformed,
    /// An index names a row that does not exist (yet).
    OutOfRange,
}

/// The tables of a file.
#[derive(Default)]
pub(super) struct Tables {
    pub strings: Vec<String>,
    pub ips: Vec<Ip>,
    pub traces: Vec<Trace>,
    pub infos: Vec<Info>,
    /// String indices of the `operator new` names (the first string of each name).
    op_new_strings: Vec<u32>,
    op_new_names_seen: Vec<&'static str>,
    /// Ip indices whose function is `operator new`.
    op_new_ips: HashSet<u32>,
    /// Trace nodes folded into their caller.
    pub folded: usize,
    /// Version 0: the allocation info of each (size, trace).
    info_ids: HashMap<(u64, u32), u32>,
}

impl Tables {
    /// The string with 1-based index `index` (`None` for 0 or out of range).
    pub fn string(&self, index: u32) -> Option<&str> {
        let i = usize::try_from(index).ok()?.checked_sub(1)?;
        self.strings.get(i).map(String::as_str)
    }

    /// An `s` record; `sized` for file version 3. A malformed sized string is still added
    /// (empty), so that later indices stay right, as heaptrack does.
    pub fn string_record(&mut self, line: &str, sized: bool) -> Result<(), Problem> {
        let mut f = Fields::new(line);
        let s = if sized {
            f.sized_string()
        } else {
            Some(f.rest())
        };
        self.strings.push(s.unwrap_or_default().to_owned());
        let text = self.strings.last().map(String::as_str).unwrap_or_default();
        if let Some(&name) = OPERATOR_NEW.iter().find(|n| **n == text) {
            if !self.op_new_names_seen.contains(&name) {
                self.op_new_names_seen.push(name);
                self.op_new_strings.push(len_u32(self.strings.len()));
            }
        }
        s.map(|_| ()).ok_or(Problem::Malformed)
    }

    /// An `i` record. A malformed one is added as an ip without frames.
    pub fn ip_record(&mut self, line: &str) -> Result<(), Problem> {
        let mut f = Fields::new(line);
        let (Some(address), Some(module)) = (f.hex(), f.index()) else {
            self.ips.push(Ip::default());
            return Err(Problem::Malformed);
        };
        let mut ip = Ip {
            address,
            module,
            frames: Vec::new(),
        };
        // The outer frame may stop after its function (no file): heaptrack keeps what it read.
        if let Some(function) = f.index() {
            let mut frame = Frame {
                function,
                ..Frame::default()
            };
            if let (Some(file), Some(line)) = (f.index(), f.index()) {
                frame.file = file;
                frame.line = line;
            }
            ip.frames.push(frame);
            while let (Some(function), Some(file), Some(line)) = (f.index(), f.index(), f.index()) {
                ip.frames.push(Frame {
                    function,
                    file,
                    line,
                });
            }
        }
        let malformed = !f.rest().is_empty();
        let known = len_u32(self.strings.len());
        let out_of_range = module > known
            || ip
                .frames
                .iter()
                .any(|fr| fr.function > known || fr.file > known);
        let is_op_new = ip
            .frames
            .first()
            .is_some_and(|fr| self.op_new_strings.contains(&fr.function));
        self.ips.push(ip);
        if is_op_new {
            self.op_new_ips.insert(len_u32(self.ips.len()));
        }
        match (malformed, out_of_range) {
            (true, _) => Err(Problem::Malformed),
            (_, true) => Err(Problem::OutOfRange),
            _ => Ok(()),
        }
    }

    /// A `t` record. Nodes in `operator new` become their caller's node, as in heaptrack; a
    /// parent that is not an earlier node, or an unknown ip, makes a node without them.
    pub fn trace_record(&mut self, line: &str) -> Result<(), Problem> {
        let mut f = Fields::new(line);
        let (Some(ip), Some(parent)) = (f.index(), f.index()) else {
            self.traces.push(Trace::default());
            return Err(Problem::Malformed);
        };
        let own = len_u32(self.traces.len() + 1);
        let mut node = Trace { ip, parent };
        let mut result = Ok(());
        if parent >= own || ip > len_u32(self.ips.len()) {
            node = Trace::default();
            result = Err(Problem::OutOfRange);
        } else if self.op_new_ips.contains(&ip) {
            node = self.trace(parent);
            self.folded += 1;
        }
        self.traces.push(node);
        result
    }

    /// The trace node with 1-based index `index` (the empty node for 0 or out of range).
    pub fn trace(&self, index: u32) -> Trace {
        index
            .checked_sub(1)
            .and_then(|i| self.traces.get(i as usize))
            .copied()
            .unwrap_or_default()
    }

    /// An `a` record. A malformed one is added as an empty info, so later indices stay right.
    pub fn info_record(&mut self, line: &str) -> Result<(), Problem> {
        let mut f = Fields::new(line);
        let (Some(size), Some(trace)) = (f.hex(), f.index()) else {
            self.infos.push(Info::default());
            return Err(Problem::Malformed);
        };
        if trace > len_u32(self.traces.len()) {
            self.infos.push(Info { size, trace: 0 });
            return Err(Problem::OutOfRange);
        }
        self.infos.push(Info { size, trace });
        Ok(())
    }

    /// Version 0: the allocation info of `size` bytes from `trace`, added when new.
    pub fn info_for(&mut self, size: u64, trace: u32) -> u32 {
        let next = len_u32(self.infos.len());
        let id = *self.info_ids.entry((size, trace)).or_insert(next);
        if id == next {
            self.infos.push(Info { size, trace });
        }
        id
    }
}

/// A table length as a heaptrack index (the tables are bounded by the input's line count).
pub(super) fn len_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
