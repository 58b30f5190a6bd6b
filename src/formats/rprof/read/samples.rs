//! Sample lines: a stack text is scanned into tokens, resolved into locations (a source
//! reference belongs to the frame after it) and interned as stack nodes, then one sample row
//! gets its values.
//!
//! A stack text that parsed cleanly is cached per run by its bytes, so a repeated stack costs
//! one lookup; a damaged (cut) one is never cached. Functions are keyed by (name bytes, file)
//! and locations by (name bytes, file, line), so names are decoded once.

use super::super::tokens::{self, Cut, Damage, MemoryFields, SrcRef, Token};
use super::super::FORMAT;
use super::{column_error, line_i32, Line, Reader};
use crate::formats::ReadError;
use crate::model::{FunctionIndex, FunctionKey, LocationIndex, StackIndex, StringId};

/// What a stack text resolves to.
#[derive(Clone, Copy)]
pub(super) struct Resolved {
    pub(super) stack: Option<StackIndex>,
    pub(super) toplevel: Option<(StringId, i32)>,
}

impl<'a> Reader<'a> {
    pub(super) fn sample_line(&mut self, line: Line<'a>) -> Result<(), ReadError> {
        let n = line.number;
        let (memory, offset) = tokens::memory_prefix(line.text).map_err(|f| column_error(n, f))?;
        let body = line.text.get(offset..).unwrap_or_default();
        self.check_memory_announced(memory.is_some(), n);
        let resolved = match self.stacks.get(body) {
            Some(r) => *r,
            None => match self.parse_stack(body, offset + 1, n)? {
                Some(r) => r,
                None => return Ok(()),
            },
        };
        self.push_sample(resolved, memory, n)
    }

    /// Parses a stack text. `None` when the line is dropped (cut before its first frame).
    pub(super) fn parse_stack(
        &mut self,
        body: &'a [u8],
        column0: usize,
        n: usize,
    ) -> Result<Option<Resolved>, ReadError> {
        let mut toks = std::mem::take(&mut self.tokens);
        let damage = tokens::scan(body, column0, &mut toks).map_err(|f| column_error(n, f))?;
        let result = self.resolve_tokens(&toks, damage.is_some(), n);
        self.tokens = toks;
        let resolved = result?;
        match damage {
            None => {
                self.stacks.insert(body, resolved);
                Ok(Some(resolved))
            }
            Some(d) => Ok(self.damaged(d, resolved, n)),
        }
    }

    pub(super) fn damaged(&mut self, d: Damage, resolved: Resolved, n: usize) -> Option<Resolved> {
        let (what, kind) = match d.cut {
            Cut::Name => ("a function name without its closing quote", "cut-name"),
            Cut::SrcRef => ("a source reference without its line number", "cut-srcref"),
        };
        if resolved.stack.is_none() {
            self.warnings.add(FORMAT, &format!("{kind}-empty"), || {
                format!(
                    "line {n}: the line ends in {what} at column {} and has no complete frame \
                     before it; line dropped",
                    d.column
                )
            });
            return None;
        }
        self.warnings.add(FORMAT, kind, || {
            format!(
                "line {n}: the line ends in {what} at column {} (cut while being written?); \
                 the sample keeps the complete frames before it",
                d.column
            )
        });
        Some(resolved)
    }

    /// Turns tokens into a stack: a source reference belongs to the frame after it; one after
    /// the last frame is the top-level line. With `cut`, a source reference before the cut
    /// belonged to the lost frame and is dropped.
    pub(super) fn resolve_tokens(
        &mut self,
        toks: &[Token<'a>],
        cut: bool,
        n: usize,
    ) -> Result<Resolved, ReadError> {
        let mut frames = std::mem::take(&mut self.frames);
        frames.clear();
        let mut pending: Option<SrcRef> = None;
        for tok in toks {
            match *tok {
                Token::SrcRef(r) => {
                    if let Some(first) = pending.replace(r) {
                        self.frames = frames;
                        return Err(Self::error(
                            n,
                            format!(
                                "two source references in a row ({}#{} {}#{}): each belongs to \
                                 the frame after it",
                                first.file, first.line, r.file, r.line
                            ),
                        ));
                    }
                }
                Token::Frame(name) => {
                    let loc = match self.frame_location(name, pending.take(), n) {
                        Ok(loc) => loc,
                        Err(e) => {
                            self.frames = frames;
                            return Err(e);
                        }
                    };
                    frames.push(loc);
                }
            }
        }
        if frames.len() > self.limits.max_stack_depth {
            self.frames = frames;
            return Err(Self::error(
                n,
                format!(
                    "the sample has more than {} frames (limit max_stack_depth)",
                    self.limits.max_stack_depth
                ),
            ));
        }
        let toplevel = match pending.filter(|_| !cut) {
            Some(r) => {
                let file = self.resolve_file(r, n)?;
                Some((file, line_i32(r.line)))
            }
            None => None,
        };
        let stack = self.stack(&frames);
        self.frames = frames;
        Ok(Resolved { stack, toplevel })
    }

    pub(super) fn frame_location(
        &mut self,
        name: &'a [u8],
        srcref: Option<SrcRef>,
        n: usize,
    ) -> Result<LocationIndex, ReadError> {
        let (filename, line) = match srcref {
            Some(r) => (self.resolve_file(r, n)?, line_i32(r.line)),
            None => (StringId::NA, 0),
        };
        if let Some(&loc) = self.locations.get(&(name, filename, line)) {
            return Ok(loc);
        }
        let f = self.function(name, filename, n);
        if let Some(start) = self.b.functions_mut().start_line.get_mut(f.idx()) {
            if line > 0 && (*start == 0 || line < *start) {
                *start = line;
            }
        }
        let loc = self.b.location(Some(f), line);
        self.locations.insert((name, filename, line), loc);
        Ok(loc)
    }

    /// The stack node of `frames` (innermost first). Rprof stacks are interned here, with a
    /// fast hash, and appended to the builder's table without its own lookup (this reader is
    /// the only one adding nodes to its builder, so `nodes` knows every node). Whole repeated
    /// stacks never get here: the line table caches them.
    pub(super) fn stack(&mut self, frames: &[LocationIndex]) -> Option<StackIndex> {
        let mut prefix: Option<StackIndex> = None;
        for &loc in frames.iter().rev() {
            let key = (prefix.map_or(u32::MAX, |p| p.0), loc.0);
            let node = match self.nodes.get(&key) {
                Some(&node) => node,
                None => {
                    let node = self.b.push_stack_node(prefix, loc);
                    self.nodes.insert(key, node);
                    node
                }
            };
            prefix = Some(node);
        }
        prefix
    }

    pub(super) fn function(
        &mut self,
        name: &'a [u8],
        filename: StringId,
        n: usize,
    ) -> FunctionIndex {
        if let Some(&f) = self.functions.get(&(name, filename)) {
            return f;
        }
        let text = self.text_to_string(name, n, "function name");
        let id = self.b.intern(&text);
        let f = self.b.add_function(FunctionKey {
            name: id,
            system_name: id,
            filename,
            start_line: 0,
        });
        self.functions.insert((name, filename), f);
        f
    }

    pub(super) fn push_sample(
        &mut self,
        resolved: Resolved,
        memory: Option<MemoryFields>,
        n: usize,
    ) -> Result<(), ReadError> {
        if self.b.num_samples() >= self.limits.max_samples {
            return Err(Self::error(
                n,
                format!(
                    "more than {} samples (limit max_samples)",
                    self.limits.max_samples
                ),
            ));
        }
        let interval = self.header.interval_us as f64;
        let s = self.b.add_sample(self.source, resolved.stack);
        self.b.set_value(s, self.vt_samples, 1.0);
        self.b.set_value(s, self.vt_time, interval * 1000.0);
        if let Some(m) = memory {
            self.set_memory(s, m);
        }
        if let Some((file, line)) = resolved.toplevel {
            self.toplevel.push((s, file, line));
        }
        // The timer fires at the end of each interval: sample k is taken at k × interval, as
        // R's own `summaryRprof(memory = "tseries")` labels it.
        self.elapsed_us += interval;
        self.times.push(self.elapsed_us / 1e6);
        self.run_of_sample
            .push(i32::try_from(self.runs).unwrap_or(i32::MAX));
        Ok(())
    }
}
