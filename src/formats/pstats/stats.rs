//! The shape of a pstats file, checked on the decoded marshal object:
//! `{(file, line, funcname): (cc, nc, tt, ct, {(caller key): (nc, cc, tt, ct)})}`. cProfile
//! writes the caller tuples in that order (`nc` first, unlike the function's own tuple); the
//! pure-Python `profile` module writes a bare call count per caller instead.

use std::rc::Rc;

use super::marshal::Obj;
use super::NAME;
use crate::formats::error::{Place, ReadError, Warnings};
use crate::hash::HashMap;

/// A function as pstats names it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FuncKey {
    /// File name (`~` for built-ins).
    pub file: Rc<str>,
    /// Line of the `def` (0 for built-ins).
    pub line: i64,
    /// Function name.
    pub name: Rc<str>,
}

/// Counts and times of a function, or of a function for one caller.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stat {
    /// Primitive (non-recursive) calls.
    pub cc: f64,
    /// All calls.
    pub nc: f64,
    /// Time in the function itself, seconds.
    pub tt: f64,
    /// Time in the function and its callees, seconds.
    pub ct: f64,
}

/// What a function's callers dict holds for one caller.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Caller {
    /// cProfile: counts and times of the calls from this caller.
    Full(Stat),
    /// The `profile` module: the number of calls from this caller only.
    Count(f64),
}

/// One function of the stats dict.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The function.
    pub key: FuncKey,
    /// Its own totals.
    pub own: Stat,
    /// Its callers, in file order.
    pub callers: Vec<(FuncKey, Caller)>,
}

/// The entries of the stats dict `top`, decoded from `input_len` bytes, in file order. A key
/// given twice keeps its first place and its last value, as `marshal.load` builds the dict
/// (counted in a warning). More caller pairs than input bytes are refused: written by a
/// profiler, every pair takes bytes of its own, and only references that share one callers
/// dict among many functions (a file made to multiply the work) reach that many.
pub fn entries(
    top: &Obj,
    input_len: usize,
    warnings: &mut Warnings,
) -> Result<Vec<Entry>, ReadError> {
    let Obj::Dict(pairs) = top else {
        return Err(ReadError::whole(
            NAME,
            format!(
                "the file holds {}, not the dict of a pstats dump",
                top.kind()
            ),
        ));
    };
    let mut out: Vec<Entry> = Vec::with_capacity(pairs.len());
    let mut seen: HashMap<FuncKey, usize> = HashMap::default();
    let mut budget = input_len;
    for (i, (k, v)) in pairs.iter().enumerate() {
        let place = || format!("stats entry {}", i + 1);
        let key = func_key(k).map_err(|m| shape_error(place(), "key", m))?;
        budget = budget.checked_sub(callers_len(v)).ok_or_else(|| {
            shape_error(
                place(),
                "value",
                format!(
                    "the callers dicts hold more pairs than the file's {input_len} bytes \
                         (dicts shared by reference)"
                ),
            )
        })?;
        let (own, callers) = value(v).map_err(|m| shape_error(place(), "value", m))?;
        let callers = dedup_callers(callers, warnings);
        let entry = Entry { key, own, callers };
        match seen.get(&entry.key) {
            Some(&at) => {
                duplicate_warning(warnings, "duplicate", "functions", &entry.key);
                out[at] = entry;
            }
            None => {
                seen.insert(entry.key.clone(), out.len());
                out.push(entry);
            }
        }
    }
    Ok(out)
}

fn shape_error(place: String, part: &str, message: String) -> ReadError {
    ReadError::new(NAME, Place::Path(place), format!("{part}: {message}"))
}

fn duplicate_warning(warnings: &mut Warnings, kind: &str, what: &str, key: &FuncKey) {
    warnings.add(NAME, kind, || {
        format!(
            "{what} listed twice in one dict (first {}:{}({})); the last one is kept, as \
             marshal.load does",
            key.file, key.line, key.name
        )
    });
}

/// Callers keep their first place and last value when a caller key repeats.
fn dedup_callers(
    callers: Vec<(FuncKey, Caller)>,
    warnings: &mut Warnings,
) -> Vec<(FuncKey, Caller)> {
    let mut out: Vec<(FuncKey, Caller)> = Vec::with_capacity(callers.len());
    let mut seen: HashMap<FuncKey, usize> = HashMap::default();
    for (k, c) in callers {
        match seen.get(&k) {
            Some(&at) => {
                duplicate_warning(warnings, "duplicate caller", "callers", &k);
                out[at].1 = c;
            }
            None => {
                seen.insert(k.clone(), out.len());
                out.push((k, c));
            }
        }
    }
    out
}

/// The number of callers in a value `(cc, nc, tt, ct, callers)`, 0 when it has another shape
/// (which [`value`] then reports).
fn callers_len(v: &Obj) -> usize {
    match v {
        Obj::Tuple(t) => match t.get(4) {
            Some(Obj::Dict(d)) => d.len(),
            _ => 0,
        },
        _ => 0,
    }
}

/// `(file, line, funcname)`.
pub fn func_key(obj: &Obj) -> Result<FuncKey, String> {
    let items = tuple(obj, 3, "(file, line, funcname)")?;
    let (Obj::Str(file), Obj::Str(name)) = (&items[0], &items[2]) else {
        return Err(format!(
            "(file, line, funcname) holds {} and {} where strings belong",
            items[0].kind(),
            items[2].kind()
        ));
    };
    let Obj::Int(line) = items[1] else {
        return Err(format!(
            "the line of {file}({name}) is {}, not an int",
            items[1].kind()
        ));
    };
    Ok(FuncKey {
        file: file.clone(),
        line,
        name: name.clone(),
    })
}

fn tuple<'o>(obj: &'o Obj, len: usize, what: &str) -> Result<&'o [Obj], String> {
    match obj {
        Obj::Tuple(t) if t.len() == len => Ok(t),
        Obj::Tuple(t) => Err(format!("a tuple of {} items where {what} belongs", t.len())),
        other => Err(format!("{} where the tuple {what} belongs", other.kind())),
    }
}

/// Four finite numbers.
fn numbers(items: &[Obj], what: &str) -> Result<[f64; 4], String> {
    let mut out = [0.0; 4];
    for (slot, item) in out.iter_mut().zip(items) {
        *slot = item
            .as_f64()
            .filter(|v| v.is_finite())
            .ok_or_else(|| format!("{what} holds {} where a number belongs", item.kind()))?;
    }
    Ok(out)
}

/// `(cc, nc, tt, ct, callers)`.
fn value(obj: &Obj) -> Result<(Stat, Vec<(FuncKey, Caller)>), String> {
    let items = tuple(obj, 5, "(cc, nc, tt, ct, callers)")?;
    let [cc, nc, tt, ct] = numbers(&items[..4], "(cc, nc, tt, ct, callers)")?;
    let Obj::Dict(pairs) = &items[4] else {
        return Err(format!("the callers are {}, not a dict", items[4].kind()));
    };
    let mut callers = Vec::with_capacity(pairs.len());
    for (k, v) in pairs.iter() {
        let key = func_key(k).map_err(|m| format!("a caller's key: {m}"))?;
        let caller = match v {
            Obj::Tuple(_) => {
                let items = tuple(v, 4, "(nc, cc, tt, ct)")?;
                let [nc, cc, tt, ct] = numbers(items, "a caller's (nc, cc, tt, ct)")?;
                Caller::Full(Stat { cc, nc, tt, ct })
            }
            other => Caller::Count(
                other
                    .as_f64()
                    .filter(|v| v.is_finite())
                    .ok_or_else(|| format!("a caller's value is {}", other.kind()))?,
            ),
        };
        callers.push((key, caller));
    }
    Ok((Stat { cc, nc, tt, ct }, callers))
}
