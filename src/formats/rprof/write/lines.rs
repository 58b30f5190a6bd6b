//! The text of one line: the memory prefix, the stack's frames (leaf first, each `"name" `,
//! preceded by `F#L ` when the frame has a file and a line) and a top-level source reference.
//!
//! A stack's text is rendered once per run and cached by stack node; `#File N: path` lines are
//! written just before the first line that uses the file, numbered in order of first use.

use std::ops::Range;

use super::super::*;
use super::{close, Writer};
use crate::model::{LocationIndex, StackIndex, StringId};

impl Writer<'_> {
    /// `:small:large:nodes:dups:` when the sample has all four raw memory values.
    pub(super) fn memory_prefix(&mut self, s: usize) -> Option<String> {
        let types = self.plan.memory?;
        let mut v = [0f64; 4];
        for (slot, vt) in v.iter_mut().zip(types) {
            *slot = self.p.value_column(vt)?.get(s)?;
        }
        let fields = [v[0] / 8.0, v[1] / 8.0, v[2], v[3]];
        let mut whole = [0u64; 4];
        for (w, f) in whole.iter_mut().zip(fields) {
            if !(f.is_finite() && f >= 0.0 && close(f, f.round())) {
                self.warn("memory-fraction", || {
                    format!(
                        "sample {} has memory values Rprof cannot write exactly (vector sizes \
                         must be multiples of 8 bytes, all values whole and non-negative); \
                         rounded",
                        s + 1
                    )
                });
            }
            *w = f.round().max(0.0) as u64;
        }
        self.flags.memory = true;
        Some(format!(
            ":{}:{}:{}:{}:",
            whole[0], whole[1], whole[2], whole[3]
        ))
    }

    /// The text of a stack (frames leaf first, each followed by a space), rendered once per
    /// run; `#File` lines for files it uses first are written to `out`.
    pub(super) fn render_stack(
        &mut self,
        stack: Option<StackIndex>,
        out: &mut Vec<u8>,
    ) -> Range<usize> {
        let Some(node) = stack else {
            return 0..0;
        };
        if let Some(r) = self.stack_cache.get(&node.0) {
            return r.clone();
        }
        let start = self.stack_text.len();
        let frames: Vec<LocationIndex> = self.p.frames_leaf_first(stack).collect();
        for loc in frames {
            self.render_frame(loc);
        }
        self.declare_new_files(out);
        let range = start..self.stack_text.len();
        self.stack_cache.insert(node.0, range.clone());
        range
    }

    pub(super) fn render_frame(&mut self, loc: LocationIndex) {
        let p = self.p;
        let f = p.location_function(loc);
        let line = p.locations.line.get(loc.idx()).copied().unwrap_or(0);
        let filename = f
            .and_then(|f| p.functions.filename.get(f.idx()).copied())
            .unwrap_or(StringId::NA);
        match (filename.is_na(), line >= 1) {
            (false, true) => {
                let number = self.file_number(filename);
                self.stack_text
                    .extend_from_slice(format!("{number}#{line} ").as_bytes());
                self.flags.line = true;
                if let Some(f) = f {
                    let m = self.min_written_line.entry(f.idx()).or_insert(line);
                    *m = (*m).min(line);
                }
            }
            (false, false) => self.warn("file-no-line", || {
                format!(
                    "frames in file {:?} without a line number: Rprof names a frame's file only \
                     with `F#L`, so the file is lost",
                    p.str(filename)
                )
            }),
            (true, true) => self.warn("line-no-file", || {
                format!(
                    "frames with a line number ({line}) but no file: Rprof needs the file for \
                     `F#L`, so the line is lost"
                )
            }),
            (true, false) => {}
        }
        let name = self.frame_name(loc, f);
        if name == "<GC>" {
            self.flags.gc = true;
        }
        self.stack_text.push(b'"');
        self.stack_text.extend_from_slice(name.as_bytes());
        self.stack_text.extend_from_slice(b"\" ");
    }

    pub(super) fn file_number(&mut self, path: StringId) -> u32 {
        if let Some(&n) = self.file_numbers.get(&path) {
            return n;
        }
        let n = u32::try_from(self.file_numbers.len() + 1).unwrap_or(u32::MAX);
        self.file_numbers.insert(path, n);
        self.new_files.push(path);
        n
    }

    pub(super) fn declare_new_files(&mut self, out: &mut Vec<u8>) {
        for path in std::mem::take(&mut self.new_files) {
            let n = self.file_numbers.get(&path).copied().unwrap_or(0);
            out.extend_from_slice(format!("#File {n}: {}\n", self.p.str(path)).as_bytes());
        }
    }

    /// `F#L ` of a top-level source reference (written after the last frame).
    pub(super) fn toplevel_srcref(&mut self, s: usize, out: &mut Vec<u8>) -> String {
        let ext = &self.p.samples.ext;
        let file = ext.chr(COL_TOPLEVEL_FILE).and_then(|c| c.get(s).copied());
        let line = ext.int(COL_TOPLEVEL_LINE).and_then(|c| c.get(s).copied());
        match (file, line) {
            (Some(file), Some(line)) if !file.is_na() && line >= 1 => {
                let n = self.file_number(file);
                self.declare_new_files(out);
                self.flags.line = true;
                format!("{n}#{line} ")
            }
            _ => String::new(),
        }
    }
}
