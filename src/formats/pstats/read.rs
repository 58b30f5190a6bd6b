//! Reading a pstats file: decode the marshal object, check its shape into entries, then one
//! function per key and one sample per caller → callee pair (plus the remainder without a
//! caller), and the totals pstats prints as meta.

use super::marshal;
use super::stats::{entries, Caller, Entry, FuncKey, Stat};
use super::{CUMULATIVE_TIME, NAME, PRIMITIVE_CALLS};
use crate::formats::error::{ReadError, Warnings};
use crate::formats::read_common::{check_sample_limit, finish_parsed};
use crate::formats::write_common::format_number;
use crate::formats::{Format, Parsed, ReadOptions};
use crate::hash::HashMap;
use crate::model::{
    Cell, ColumnKind, FunctionIndex, FunctionKey, LocationIndex, ProfileBuilder, SourceIndex,
    ValueTypeIndex, META_DEFAULT_TYPE,
};

/// Nanoseconds per second: pstats times are seconds, `time` is in nanoseconds.
const NS_PER_SECOND: f64 = 1e9;

/// Reads a pstats file.
pub fn read(bytes: &[u8], options: &ReadOptions) -> Result<Parsed, ReadError> {
    if bytes.is_empty() {
        return Err(ReadError::whole(NAME, "the file is empty"));
    }
    let loaded = marshal::load(bytes)?;
    let mut warnings = Warnings::default();
    if loaded.used < bytes.len() {
        let extra = bytes.len() - loaded.used;
        warnings.add(NAME, "trailing", || {
            format!(
                "{extra} bytes after the marshal object (from byte {}) were not read",
                loaded.used
            )
        });
    }
    let list = entries(&loaded.obj, bytes.len(), &mut warnings)?;
    let mut r = Reader {
        b: ProfileBuilder::new(),
        locations: HashMap::default(),
        warnings,
        max_samples: options.limits.max_samples,
        source: SourceIndex(0),
        time: ValueTypeIndex(0),
        calls: ValueTypeIndex(0),
    };
    r.source = r.b.add_source(NAME, options.source_uri.as_deref(), None);
    r.time = r.b.value_type("time", "nanoseconds");
    r.calls = r.b.value_type("calls", "count");
    r.b.set_meta(META_DEFAULT_TYPE, "time");
    r.b.declare_sample_column(PRIMITIVE_CALLS, ColumnKind::Dbl);
    r.b.declare_sample_column(CUMULATIVE_TIME, ColumnKind::Dbl);
    for e in &list {
        r.function_figures(e);
    }
    for e in &list {
        r.samples(e)?;
    }
    meta(&mut r.b, &list);
    r.warnings.add(NAME, "no stacks", || {
        "pstats keeps caller → callee pairs, not stacks: each sample is one pair [caller, \
         callee] (or [function] for time without a recorded caller); deeper call paths are \
         unknown, so a flame graph is two frames deep and only the sandwich (callers, callees) \
         view is exact"
            .to_owned()
    });
    finish_parsed(r.b, Format::Pstats, r.warnings)
}

/// What the steps share.
struct Reader {
    b: ProfileBuilder,
    locations: HashMap<FuncKey, LocationIndex>,
    warnings: Warnings,
    max_samples: usize,
    source: SourceIndex,
    time: ValueTypeIndex,
    calls: ValueTypeIndex,
}

/// Seconds to whole nanoseconds.
fn ns(seconds: f64) -> f64 {
    (seconds * NS_PER_SECOND).round()
}

impl Reader {
    /// The location of a function, made on first use.
    fn location(&mut self, key: &FuncKey) -> LocationIndex {
        if let Some(&l) = self.locations.get(key) {
            return l;
        }
        let f = self.function(key);
        let l = self.b.location(Some(f), 0);
        self.locations.insert(key.clone(), l);
        l
    }

    fn function(&mut self, key: &FuncKey) -> FunctionIndex {
        let line = match i32::try_from(key.line) {
            Ok(l) if l >= 0 => l,
            _ => {
                self.warnings.add(NAME, "line", || {
                    format!(
                        "line {} of {}({}) is not a line number; kept as 0",
                        key.line, key.file, key.name
                    )
                });
                0
            }
        };
        if &*key.file == "~" && line == 0 {
            // pstats' func_std_string: `<built-in method x>` prints as `{built-in method x}`.
            let raw = &*key.name;
            let shown = match raw.strip_prefix('<').and_then(|s| s.strip_suffix('>')) {
                Some(inner) => format!("{{{inner}}}"),
                None => raw.to_owned(),
            };
            let name = self.b.intern(&shown);
            let system_name = self.b.intern(raw);
            return self.b.function(FunctionKey {
                name,
                system_name,
                filename: crate::model::StringId::NA,
                start_line: 0,
            });
        }
        let file = Some(&*key.file).filter(|f| !f.is_empty());
        self.b.function_at(&key.name, file, line)
    }

    /// The function's own `cc` and `ct` as function columns.
    fn function_figures(&mut self, e: &Entry) {
        let l = self.location(&e.key);
        let Some(f) = self.b.profile().location_function(l) else {
            return;
        };
        let ext = &mut self.b.functions_mut().ext;
        let _ = ext.set(PRIMITIVE_CALLS, f.idx(), Cell::Dbl(e.own.cc));
        let _ = ext.set(CUMULATIVE_TIME, f.idx(), Cell::Dbl(e.own.ct));
    }

    /// One sample of `stack` (outermost first) with its time and calls, and the pair's `cc`
    /// and `ct` when known.
    fn sample(
        &mut self,
        stack: &[LocationIndex],
        time_ns: f64,
        calls: f64,
        figures: Option<&Stat>,
    ) -> Result<(), ReadError> {
        check_sample_limit(&self.b, Format::Pstats, self.max_samples)?;
        let node = self.b.stack_root_first(stack);
        let s = self.b.add_sample_with_values(
            self.source,
            node,
            &[(self.time, time_ns), (self.calls, calls)],
        );
        if let Some(st) = figures {
            self.b.set_sample_ext(s, PRIMITIVE_CALLS, Cell::Dbl(st.cc));
            self.b.set_sample_ext(s, CUMULATIVE_TIME, Cell::Dbl(st.ct));
        }
        Ok(())
    }

    /// The samples of one function: one per caller, then what the callers leave.
    fn samples(&mut self, e: &Entry) -> Result<(), ReadError> {
        let callee = self.location(&e.key);
        if e.callers.is_empty() {
            return self.sample(&[callee], ns(e.own.tt), e.own.nc, Some(&e.own));
        }
        let (mut rest_ns, mut rest_calls) = (ns(e.own.tt), e.own.nc);
        for (key, caller) in &e.callers {
            let from = self.location(key);
            match caller {
                Caller::Full(st) => {
                    rest_ns -= ns(st.tt);
                    rest_calls -= st.nc;
                    self.sample(&[from, callee], ns(st.tt), st.nc, Some(st))?;
                }
                Caller::Count(n) => {
                    rest_calls -= n;
                    self.counts_only_warning(&e.key);
                    self.sample(&[from, callee], 0.0, *n, None)?;
                }
            }
        }
        if rest_ns < 0.0 || rest_calls < 0.0 {
            self.warnings.add(NAME, "negative", || {
                format!(
                    "the callers of {}:{}({}) add up to more time or calls than the function \
                     itself; the difference is kept as a sample below zero",
                    e.key.file, e.key.line, e.key.name
                )
            });
        }
        if rest_ns != 0.0 || rest_calls != 0.0 {
            self.sample(&[callee], rest_ns, rest_calls, None)?;
        }
        Ok(())
    }

    fn counts_only_warning(&mut self, key: &FuncKey) {
        self.warnings.add(NAME, "counts only", || {
            format!(
                "callers entries hold a call count without times (the `profile` module writes \
                 them, cProfile does not; first in {}:{}({})): the calls are kept per caller, \
                 the time on the function alone",
                key.file, key.line, key.name
            )
        });
    }
}

/// `pstats.total_tt`, `pstats.total_calls`, `pstats.primitive_calls`, summed as pstats does.
fn meta(b: &mut ProfileBuilder, list: &[Entry]) {
    let (mut tt, mut nc, mut cc) = (0.0, 0.0, 0.0);
    for e in list {
        tt += e.own.tt;
        nc += e.own.nc;
        cc += e.own.cc;
    }
    b.set_meta("pstats.total_tt", &format_number(tt));
    b.set_meta("pstats.total_calls", &format_number(nc));
    b.set_meta("pstats.primitive_calls", &format_number(cc));
}
