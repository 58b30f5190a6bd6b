//! Parsing: the lines of a callgrind file into a [`Graph`], following the specification and,
//! where it is vague, callgrind_annotate (the reference reader):
//!
//! * a function is `file:name`, where the file is the last `fl=`, `fi=` or `fe=` (inlined code
//!   counts for the function in the inline file, as callgrind_annotate shows it);
//! * `cfi=`/`cfl=` name the callee's file for the next `cfn=` only (else the current file);
//! * name compression ids are per kind: objects (`ob`, `cob`), files (`fl`, `fi`, `fe`,
//!   `cfi`, `cfl`, `jfi`) and functions (`fn`, `cfn`, `jfn`), kept across parts;
//! * subposition compression is relative to the previous cost line (the target of `calls=`
//!   does not move it);
//! * the line after `calls=COUNT TARGET` is the call's cost line: its position is the call
//!   site and its costs are the inclusive costs of those calls.

use super::graph::{Graph, Pos};
use crate::formats::callgrind::grammar::{self, classify, Line, Name};
use crate::formats::callgrind::{META_PREFIX, NAME};
use crate::formats::error::{Place, ReadError, Warnings};
use crate::formats::read_common::shorten;
use crate::hash::HashMap;

/// Most events of `events:`. Every event is a value type, and every sample holds a value of
/// each (the profile's value columns are dense), so a file naming thousands of events in a few
/// kilobytes would cost events × samples cells; valgrind's tools write at most about 20 events
/// and KCachegrind refuses more than 20 (`MaxRealIndexValue`).
pub(super) const MAX_EVENTS: usize = 256;

/// Name compression tables, one per kind of name.
#[derive(Clone, Copy)]
enum Kind {
    Object = 0,
    File = 1,
    Function = 2,
}

/// What the header says, and what the body did, beside the graph.
#[derive(Default)]
pub(super) struct Parsed {
    pub graph: Graph,
    pub events: Vec<String>,
    pub has_line: bool,
    pub has_instr: bool,
    /// `key: value` header lines, in order.
    pub headers: Vec<(String, String)>,
    /// Sum of the `totals:` (else `summary:`) lines, per event up to the last one given.
    pub totals: Option<Vec<i64>>,
    pub summary: Option<Vec<i64>>,
    pub cost_lines: usize,
    pub negative_costs: usize,
    /// Costs written relative to the previous cost line (`*`, `+N`, `-N`).
    pub relative_costs: usize,
}

#[derive(Default)]
struct State {
    out: Parsed,
    events_seen: bool,
    names: [HashMap<u64, String>; 3],
    object: Option<String>,
    file: Option<String>,
    /// The last `fl=` file (`file` also follows `fi=`/`fe=`).
    fl_file: Option<String>,
    func_name: Option<String>,
    func: Option<usize>,
    callee_object: Option<String>,
    callee_file: Option<String>,
    callee: Option<usize>,
    /// `calls=` count waiting for its cost line, and the line number of the `calls=`.
    pending_calls: Option<(u64, usize)>,
    last: [i64; 2],
    last_costs: Vec<i64>,
}

/// Parses the text into the graph; unknown or ignored lines are counted in `warnings`.
pub(super) fn parse(text: &str, warnings: &mut Warnings) -> Result<Parsed, ReadError> {
    let mut st = State {
        out: Parsed {
            has_line: true,
            ..Parsed::default()
        },
        ..State::default()
    };
    for (index, raw) in text.lines().enumerate() {
        let number = index + 1;
        match classify(raw) {
            Some(Line::Skip) => continue,
            Some(Line::Header(key, value)) => st.header(number, key, value)?,
            Some(Line::Assign(key, value)) => st.assign(number, key, value, warnings)?,
            Some(Line::Cost(line)) => st.cost_line(number, line)?,
            None => {
                st.expect_no_call(number)?;
                warnings.add(NAME, "unknown-line", || {
                    format!(
                        "ignored lines that fit no callgrind form (first at line {number}: {:?})",
                        shorten(raw.trim())
                    )
                });
            }
        }
    }
    if let Some((_, at)) = st.pending_calls {
        return Err(line_error(at, "`calls=` is not followed by its cost line"));
    }
    if !st.events_seen {
        return Err(ReadError::whole(
            NAME,
            "no `events:` line (which names the costs)",
        ));
    }
    Ok(st.out)
}

impl State {
    fn header(&mut self, number: usize, key: &str, value: &str) -> Result<(), ReadError> {
        self.expect_no_call(number)?;
        match key {
            "events" => self.events(number, value)?,
            "positions" => self.positions(number, value)?,
            "totals" | "summary" => {
                let costs = self.costs(number, value.split_ascii_whitespace())?;
                let slot = if key == "totals" {
                    &mut self.out.totals
                } else {
                    &mut self.out.summary
                };
                let sum = slot.get_or_insert_with(Vec::new);
                if sum.len() < costs.len() {
                    sum.resize(costs.len(), 0);
                }
                for (s, c) in sum.iter_mut().zip(&costs) {
                    *s = s.saturating_add(*c);
                }
            }
            _ => {}
        }
        self.out
            .headers
            .push((format!("{META_PREFIX}{key}"), value.to_owned()));
        Ok(())
    }

    fn events(&mut self, number: usize, value: &str) -> Result<(), ReadError> {
        let events: Vec<String> = value.split_ascii_whitespace().map(str::to_owned).collect();
        if events.is_empty() {
            return Err(line_error(number, "`events:` names no event"));
        }
        if events.len() > MAX_EVENTS {
            return Err(line_error(
                number,
                format!(
                    "`events:` names {} events, more than the limit of {MAX_EVENTS} (the event \
                     limit; valgrind writes at most about 20, KCachegrind reads at most 20)",
                    events.len()
                ),
            ));
        }
        if self.events_seen && events != self.out.events {
            return Err(line_error(
                number,
                format!(
                    "`events: {value}` differs from the earlier `events: {}`",
                    self.out.events.join(" ")
                ),
            ));
        }
        let mut seen = crate::hash::HashSet::default();
        if let Some(dup) = events.iter().find(|e| !seen.insert(e.as_str())) {
            return Err(line_error(number, format!("event {dup:?} is named twice")));
        }
        self.out.events = events;
        self.events_seen = true;
        Ok(())
    }

    fn positions(&mut self, number: usize, value: &str) -> Result<(), ReadError> {
        let (mut line, mut instr) = (false, false);
        for p in value.split_ascii_whitespace() {
            match p {
                "line" => line = true,
                "instr" => instr = true,
                _ => {
                    return Err(line_error(
                        number,
                        format!("unknown position kind {p:?} (callgrind knows `line` and `instr`)"),
                    ))
                }
            }
        }
        if !line && !instr {
            return Err(line_error(number, "`positions:` names no position"));
        }
        self.out.has_line = line;
        self.out.has_instr = instr;
        Ok(())
    }

    fn assign(
        &mut self,
        number: usize,
        key: &str,
        value: &str,
        warnings: &mut Warnings,
    ) -> Result<(), ReadError> {
        self.expect_no_call(number)?;
        match key {
            "ob" => self.object = self.name(number, Kind::Object, value)?,
            "fl" => {
                self.file = self.name(number, Kind::File, value)?;
                self.fl_file.clone_from(&self.file);
            }
            "fi" | "fe" => {
                self.file = self.name(number, Kind::File, value)?;
                self.refresh_func();
            }
            "fn" => {
                self.func_name = self.name(number, Kind::Function, value)?;
                self.refresh_func();
            }
            "cob" => self.callee_object = self.name(number, Kind::Object, value)?,
            "cfi" | "cfl" => self.callee_file = self.name(number, Kind::File, value)?,
            "cfn" => self.cfn(number, value)?,
            "calls" => self.calls(number, value)?,
            "jfi" => drop(self.name(number, Kind::File, value)?),
            "jfn" => drop(self.name(number, Kind::Function, value)?),
            _ => warnings.add(NAME, "ignored-assignment", || {
                format!("ignored `{key}=` lines (jump information and unknown keys; first at line {number})")
            }),
        }
        Ok(())
    }

    /// The function of the current `fn=` in the current file.
    /// Code of an inline file (`fi=`/`fe=`) is the function in that file, hosted by the
    /// function in the `fl=` file: one invocation for the reconstructed stacks.
    fn refresh_func(&mut self) {
        self.func = self.func_name.clone().map(|name| {
            let name = grammar::strip_recursion_level(&name);
            let object = self.object.as_deref();
            let graph = &mut self.out.graph;
            let func = graph.func(name, self.file.as_deref(), object);
            if self.fl_file != self.file {
                let host = graph.func(name, self.fl_file.as_deref(), object);
                graph.set_host(func, host);
            }
            func
        });
    }

    fn cfn(&mut self, number: usize, value: &str) -> Result<(), ReadError> {
        let Some(name) = self.name(number, Kind::Function, value)? else {
            return Err(line_error(number, "`cfn=` without a name"));
        };
        let file = self.callee_file.take().or_else(|| self.file.clone());
        let object = self.callee_object.take().or_else(|| self.object.clone());
        let name = grammar::strip_recursion_level(&name);
        self.callee = Some(
            self.out
                .graph
                .func(name, file.as_deref(), object.as_deref()),
        );
        Ok(())
    }

    fn calls(&mut self, number: usize, value: &str) -> Result<(), ReadError> {
        let count = value
            .split_ascii_whitespace()
            .next()
            .and_then(grammar::parse_unsigned)
            .ok_or_else(|| line_error(number, format!("bad call count in `calls={value}`")))?;
        if self.callee.is_none() {
            return Err(line_error(number, "`calls=` before any `cfn=` (no callee)"));
        }
        self.pending_calls = Some((count, number));
        Ok(())
    }

    /// A name value through the compression table of its kind; `None` for an empty value.
    fn name(
        &mut self,
        number: usize,
        kind: Kind,
        value: &str,
    ) -> Result<Option<String>, ReadError> {
        let table = &mut self.names[kind as usize];
        let name = match grammar::name(value) {
            Name::Plain("") => return Ok(None),
            Name::Plain(name) => name.to_owned(),
            Name::Define(id, name) => {
                table.insert(id, name.to_owned());
                name.to_owned()
            }
            Name::Refer(id) => table.get(&id).cloned().ok_or_else(|| {
                line_error(number, format!("name ({id}) is used before it is defined"))
            })?,
        };
        Ok(Some(name))
    }

    fn cost_line(&mut self, number: usize, line: &str) -> Result<(), ReadError> {
        if !self.events_seen {
            return Err(line_error(number, "a cost line before the `events:` line"));
        }
        let Some(func) = self.func else {
            return Err(line_error(number, "a cost line before any `fn=`"));
        };
        let mut tokens = line.split_ascii_whitespace();
        let pos = self.position(number, &mut tokens)?;
        let costs = self.line_costs(number, tokens)?;
        self.out.cost_lines += 1;
        self.out.negative_costs += costs.iter().filter(|c| **c < 0).count();
        match (self.pending_calls.take(), self.callee) {
            (Some((calls, _)), Some(callee)) => {
                self.out.graph.add_call(func, pos, callee, calls, &costs)
            }
            _ => self.out.graph.add_self(func, pos, &costs),
        }
        Ok(())
    }

    /// The position columns of a cost line, decompressed against the previous cost line.
    fn position<'a>(
        &mut self,
        number: usize,
        tokens: &mut impl Iterator<Item = &'a str>,
    ) -> Result<Pos, ReadError> {
        let mut next = |slot: usize, what: &str| -> Result<i64, ReadError> {
            let token = tokens.next().ok_or_else(|| {
                line_error(number, format!("a cost line without its {what} position"))
            })?;
            let value = grammar::position(token, self.last[slot])
                .ok_or_else(|| line_error(number, format!("bad {what} position {token:?}")))?;
            self.last[slot] = value;
            Ok(value)
        };
        let addr = if self.out.has_instr {
            Some(next(1, "instr")?)
        } else {
            None
        };
        let line = if self.out.has_line {
            next(0, "line")?
        } else {
            0
        };
        // Addresses are unsigned; a relative one below zero is malformed.
        let addr = match addr {
            Some(a) => Some(
                u64::try_from(a)
                    .map_err(|_| line_error(number, format!("negative address {a}")))?,
            ),
            None => None,
        };
        Ok(Pos { line, addr })
    }

    /// The costs of a line, one per event up to the last one given (missing trailing costs
    /// are 0 and not stored: a line costs its own length, not the number of events).
    fn costs<'a>(
        &self,
        number: usize,
        tokens: impl Iterator<Item = &'a str>,
    ) -> Result<Vec<i64>, ReadError> {
        let mut costs = Vec::new();
        for (i, token) in tokens.enumerate() {
            self.check_cost_column(number, i)?;
            costs.push(
                grammar::cost(token)
                    .ok_or_else(|| line_error(number, format!("bad cost {token:?}")))?,
            );
        }
        Ok(costs)
    }

    /// The costs of a cost line, as [`Self::costs`]; `*`, `+N`, `-N` are relative to the
    /// previous cost line.
    fn line_costs<'a>(
        &mut self,
        number: usize,
        tokens: impl Iterator<Item = &'a str>,
    ) -> Result<Vec<i64>, ReadError> {
        let mut costs = Vec::new();
        for (i, token) in tokens.enumerate() {
            self.check_cost_column(number, i)?;
            let previous = self.last_costs.get(i).copied().unwrap_or(0);
            let (value, relative) = grammar::cost_column(token, previous)
                .ok_or_else(|| line_error(number, format!("bad cost {token:?}")))?;
            costs.push(value);
            if relative {
                self.out.relative_costs += 1;
            }
        }
        self.last_costs.clone_from(&costs);
        Ok(costs)
    }

    /// An error when cost column `i` (0-based) is past the events of `events:`.
    fn check_cost_column(&self, number: usize, i: usize) -> Result<(), ReadError> {
        let n = self.out.events.len();
        if i < n {
            return Ok(());
        }
        Err(line_error(
            number,
            format!("more costs than the {n} events of `events:`"),
        ))
    }

    /// An error when a `calls=` line waits for its cost line.
    fn expect_no_call(&self, number: usize) -> Result<(), ReadError> {
        match self.pending_calls {
            Some((_, at)) => Err(line_error(
                number,
                format!("expected the cost line of the `calls=` at line {at}"),
            )),
            None => Ok(()),
        }
    }
}

/// An error at line `number`.
pub(super) fn line_error(number: usize, message: impl Into<String>) -> ReadError {
    ReadError::new(NAME, Place::Line(number), message)
}
