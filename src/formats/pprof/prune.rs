//! pprof's `drop_frames` / `keep_frames`, applied as `go tool pprof` applies them when it reads
//! a profile (`Profile.RemoveUninteresting` and `Profile.Prune` of
//! `google/pprof:profile/prune.go`, called by the driver on every profile it fetches).
//!
//! The reader keeps the raw stacks and the two expressions as meta ([`META_DROP_FRAMES`],
//! [`META_KEEP_FRAMES`]), so a writer gives them back unchanged; views that should equal `go
//! tool pprof` ask for the pruned copy: every front door (the CLI's `top`, `diff`, `list`, the
//! viewer) prunes the profile it shows with [`pruned`] (one file: [`pruned_parsed`]); like `go
//! tool pprof`, several inputs are combined first and pruned once with the first input's
//! [`Expressions`]. `convert` does not prune (raw stacks and expressions round-trip).
//!
//! Semantics, per pprof location (the consecutive rows of one `.pprof_location_id`, innermost
//! line first; a row without that column is a location of its own): its lines are scanned from
//! the outermost; at the first whose function name (simplified: a leading `.` and the argument
//! list cut off) matches `^(drop)$` and not `^(keep)$`, the location is marked. Matched on its
//! outermost line, the whole location is pruned; else its lines from the match inwards are
//! removed from every stack. Then, in every sample, from the root towards the leaf and only
//! after a first unmarked ("user") location, the first marked location cuts the stack: a
//! pruned one is removed with everything inside it, a trimmed one is kept and what is inside it
//! removed. Expressions that do not compile leave the profile as it is (`go tool pprof` ignores
//! the error); so does a profile without `drop_frames`.

use regex_lite::Regex;

use super::{FORMAT, FUNC_EMPTY_NAME, LOC_PPROF_ID, META_DROP_FRAMES, META_KEEP_FRAMES};
use crate::formats::{Parsed, Warning};
use crate::hash::HashMap;
use crate::model::{encode_opt, Cell, LocationIndex, Profile, StackIndex, NO_INDEX};

/// Names with a `(` that is not an argument list (pprof's `reservedNames`).
const RESERVED_NAMES: [&str; 2] = ["(anonymous namespace)", "operator()"];

/// What pruning does to one location.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mark {
    /// No line matched: a user frame.
    User,
    /// The outermost line matched: the whole location goes.
    Whole,
    /// A line inside matched: the rows before this one (the matched line and those inlined
    /// into it) go, the location stays.
    Trim(usize),
}

/// pprof's `drop_frames` and `keep_frames` of a profile (empty when it has none).
///
/// `go tool pprof` prunes once, after merging its inputs, with the expressions of the first
/// (`profile.Merge` keeps `srcs[0]`'s; with `-diff_base` the first is NEW): a front door that
/// combines files takes them from that input with [`Expressions::of`] before combining (the
/// combined profile keeps disagreeing meta per source only).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Expressions {
    pub drop: String,
    pub keep: String,
}

impl Expressions {
    /// The expressions kept as meta by the reader.
    pub fn of(p: &Profile) -> Expressions {
        let get = |key| p.meta_value(key).unwrap_or_default().to_owned();
        Expressions {
            drop: get(META_DROP_FRAMES),
            keep: get(META_KEEP_FRAMES),
        }
    }
}

/// The profile with its own `drop_frames` applied: [`prune_by`] with [`Expressions::of`] `p`.
pub fn prune(p: &Profile) -> Result<Option<Profile>, String> {
    prune_by(p, &Expressions::of(p))
}

/// The profile with `e` applied, `Ok(None)` when `e` has no `drop_frames` (or nothing changes),
/// `Err` with a message when an expression does not compile (pprof then prunes nothing).
pub fn prune_by(p: &Profile, e: &Expressions) -> Result<Option<Profile>, String> {
    if e.drop.is_empty() {
        return Ok(None);
    }
    let compile = |what: &str, rx: &str| {
        Regex::new(&format!("^({rx})$"))
            .map_err(|e| format!("pprof's {what} {rx:?} is not a regular expression: {e}"))
    };
    let drop = compile("drop_frames", &e.drop)?;
    let keep = match e.keep.as_str() {
        "" => None,
        k => Some(compile("keep_frames", k)?),
    };
    let mut pruner = Pruner {
        p,
        drop,
        keep,
        names: HashMap::default(),
        marks: HashMap::default(),
    };
    let mut out = p.clone();
    let mut nodes: HashMap<(u32, u32), u32> = HashMap::default();
    for (i, (prefix, loc)) in p.stacks.prefix.iter().zip(&p.stacks.location).enumerate() {
        nodes.entry((prefix, loc.0)).or_insert(i as u32);
    }
    let mut changed = false;
    let mut groups: Vec<(usize, usize)> = Vec::new();
    for s in 0..p.samples.stack.len() {
        let stack = crate::model::decode_opt(p.samples.stack[s]).map(StackIndex);
        let frames: Vec<LocationIndex> = p.frames_leaf_first(stack).collect();
        location_groups(p, &frames, &mut groups);
        let kept = pruner.pruned_rows(&frames, &groups);
        if kept.len() == frames.len() {
            continue;
        }
        changed = true;
        let mut node = NO_INDEX;
        for &loc in kept.iter().rev() {
            node = intern(&mut out, &mut nodes, node, loc);
        }
        out.samples.stack[s] = node;
    }
    Ok(changed.then_some(out))
}

/// The profile as `go tool pprof` shows it: `e` applied ([`prune_by`]), `p` itself when
/// nothing is pruned, and a warning when an expression does not compile (then nothing is
/// pruned, as in pprof).
pub fn pruned(p: Profile, e: &Expressions) -> (Profile, Option<Warning>) {
    match prune_by(&p, e) {
        Ok(Some(out)) => (out, None),
        Ok(None) => (p, None),
        Err(e) => (
            p,
            Some(Warning::new(FORMAT, format!("{e}; frames not pruned"), 1)),
        ),
    }
}

/// [`pruned`] with the profile's own expressions, applied to what a reader returned; its
/// warning joins the reader's.
pub fn pruned_parsed(mut parsed: Parsed) -> Parsed {
    let e = Expressions::of(&parsed.profile);
    let (profile, warning) = pruned(parsed.profile, &e);
    parsed.profile = profile;
    parsed.warnings.extend(warning);
    parsed
}

/// The node `(prefix, loc)` of `out`'s stack table, appended when new.
fn intern(
    out: &mut Profile,
    nodes: &mut HashMap<(u32, u32), u32>,
    prefix: u32,
    loc: LocationIndex,
) -> u32 {
    *nodes.entry((prefix, loc.0)).or_insert_with(|| {
        let st = &mut out.stacks;
        st.prefix.push(prefix);
        st.location.push(loc);
        encode_opt(Some(st.prefix.len() as u32 - 1))
    })
}

/// Splits a leaf-first stack into pprof locations: `(first, len)` runs of `frames` with one
/// `.pprof_location_id` (a row without one is a run of its own).
fn location_groups(p: &Profile, frames: &[LocationIndex], groups: &mut Vec<(usize, usize)>) {
    groups.clear();
    let id = |l: LocationIndex| match p.locations.ext.cell(LOC_PPROF_ID, l.idx()) {
        Some(Cell::U64(v)) => v,
        _ => None,
    };
    let mut i = 0;
    while i < frames.len() {
        let first = id(frames[i]);
        let mut n = 1;
        while first.is_some() && frames.get(i + n).is_some_and(|&f| id(f) == first) {
            n += 1;
        }
        groups.push((i, n));
        i += n;
    }
}

struct Pruner<'a> {
    p: &'a Profile,
    drop: Regex,
    keep: Option<Regex>,
    /// Whether a function name prunes (pprof's `pruneCache`).
    names: HashMap<u32, bool>,
    /// The mark of each location, by its innermost row.
    marks: HashMap<u32, Mark>,
}

impl Pruner<'_> {
    /// The rows of a leaf-first stack that remain, leaf first.
    fn pruned_rows(
        &mut self,
        frames: &[LocationIndex],
        groups: &[(usize, usize)],
    ) -> Vec<LocationIndex> {
        let marks: Vec<Mark> = groups
            .iter()
            .map(|&(i, n)| self.mark(&frames[i..i + n]))
            .collect();
        // From the root: the first marked location after a user one cuts the stack.
        let mut found_user = false;
        let mut first_kept = 0;
        for (g, mark) in marks.iter().enumerate().rev() {
            match mark {
                Mark::User => found_user = true,
                _ if !found_user => {}
                Mark::Whole => {
                    first_kept = g + 1;
                    break;
                }
                Mark::Trim(_) => {
                    first_kept = g;
                    break;
                }
            }
        }
        let mut kept = Vec::with_capacity(frames.len());
        for (&(i, n), mark) in groups.iter().zip(&marks).skip(first_kept) {
            let from = match *mark {
                Mark::Trim(k) => k,
                _ => 0,
            };
            kept.extend_from_slice(&frames[i + from..i + n]);
        }
        kept
    }

    /// The mark of the location whose rows (innermost first) are `rows`.
    fn mark(&mut self, rows: &[LocationIndex]) -> Mark {
        if let Some(&m) = self.marks.get(&rows[0].0) {
            return m;
        }
        let mut m = Mark::User;
        for i in (0..rows.len()).rev() {
            if self.prunes(rows[i]) {
                m = if i == rows.len() - 1 {
                    Mark::Whole
                } else {
                    Mark::Trim(i + 1)
                };
                break;
            }
        }
        self.marks.insert(rows[0].0, m);
        m
    }

    /// True when the function of row `loc` matches drop_frames and not keep_frames.
    fn prunes(&mut self, loc: LocationIndex) -> bool {
        let p = self.p;
        let Some(f) = p.location_function(loc) else {
            return false;
        };
        if matches!(
            p.functions.ext.cell(FUNC_EMPTY_NAME, f.idx()),
            Some(Cell::Lgl(Some(true)))
        ) {
            return false;
        }
        let name_id = p.functions.name[f.idx()];
        if let Some(&r) = self.names.get(&name_id.0) {
            return r;
        }
        let name = simplify(p.str(name_id));
        let r = self.drop.is_match(name) && !self.keep.as_ref().is_some_and(|k| k.is_match(name));
        self.names.insert(name_id.0, r);
        r
    }
}

/// pprof's `simplifyFunc`: without a leading `.` (PPC ELF v1) and cut at the first `(` that does
/// not start a reserved name.
fn simplify(name: &str) -> &str {
    let name = name.strip_prefix('.').unwrap_or(name);
    let mut at = 0;
    while let Some(off) = name.get(at..).and_then(|rest| rest.find(['(', 'o'])) {
        let pos = at + off;
        let rest = &name[pos..];
        if let Some(r) = RESERVED_NAMES.iter().find(|r| rest.starts_with(**r)) {
            at = pos + r.len();
        } else if rest.starts_with('(') {
            return &name[..pos];
        } else {
            at = pos + 1;
        }
    }
    name
}

#[cfg(test)]
mod tests {
    use super::simplify;

    #[test]
    fn simplified_names() {
        assert_eq!(simplify(".foo(int)"), "foo");
        assert_eq!(
            simplify("a::(anonymous namespace)::b(int)"),
            "a::(anonymous namespace)::b"
        );
        assert_eq!(simplify("X::operator()(int)"), "X::operator()");
        assert_eq!(simplify("main.main"), "main.main");
        assert_eq!(simplify("cooperator(x)"), "cooperator");
    }
}
