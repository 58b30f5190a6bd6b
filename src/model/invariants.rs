//! The physical invariants of a [`Profile`], checked by [`check_invariants`] whenever a
//! profile is built: every string, source, function, location and stack id is in range, a
//! stack node's prefix comes before it, and the columns of each table have one length. They
//! are what makes unchecked indexing downstream safe.

use std::fmt;

use super::ids::*;
use super::profile::*;
use crate::chunks::in_chunks;

/// A broken invariant found by [`ProfileBuilder::build`](super::ProfileBuilder::build) (a reader bug or an id out of range).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelError {
    /// Which table and column.
    pub place: String,
    /// What is wrong.
    pub problem: String,
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "profile model: {}: {}", self.place, self.problem)
    }
}

impl std::error::Error for ModelError {}

fn err(place: &str, problem: String) -> ModelError {
    ModelError {
        place: place.to_owned(),
        problem,
    }
}

/// Checks the physical invariants that make unchecked indexing downstream safe.
pub fn check_invariants(p: &Profile) -> Result<(), ModelError> {
    check_invariants_given(p, false)
}

/// [`check_invariants`], skipping the pass over the stack table when `stacks_sound` (its
/// caller built every node and checked each as it was pushed: an earlier prefix, a location
/// that exists).
pub(super) fn check_invariants_given(p: &Profile, stacks_sound: bool) -> Result<(), ModelError> {
    let nstr = p.strings.len();
    let str_ok = |s: &StringId| s.idx() < nstr;
    let n_src = p.sources.source_type.len();
    let n_fun = p.functions.name.len();
    let n_loc = p.locations.line.len();
    let n_stack = p.stacks.prefix.len();
    let n = p.num_samples();
    let all_strings = p
        .meta
        .key
        .iter()
        .chain(&p.meta.value)
        .chain(&p.sources.source_type)
        .chain(&p.sources.source_uri)
        .chain(&p.functions.name)
        .chain(&p.functions.system_name)
        .chain(&p.functions.filename);
    if let Some(bad) = all_strings.clone().find(|s| !str_ok(s)) {
        return Err(err("strings", format!("string id {} out of range", bad.0)));
    }
    same_len(
        "sources",
        &[
            n_src,
            p.sources.source_uri.len(),
            p.sources.source_timestamp.len(),
        ],
    )?;
    same_len(
        "functions",
        &[
            n_fun,
            p.functions.system_name.len(),
            p.functions.filename.len(),
            p.functions.start_line.len(),
        ],
    )?;
    same_len("locations", &[n_loc, p.locations.function.len()])?;
    same_len("stacks", &[n_stack, p.stacks.location.len()])?;
    same_len("samples", &[n, p.samples.stack.len()])?;
    if let Some((i, _)) = p
        .locations
        .function
        .iter()
        .enumerate()
        .find(|(_, &f)| decode_opt(f).is_some_and(|f| f as usize >= n_fun))
    {
        return Err(err(
            "locations.function_id",
            format!("row {} refers to a missing function", i + 1),
        ));
    }
    let bad_node = (!stacks_sound)
        .then(|| first_bad_stack_node(&p.stacks, n_loc))
        .flatten();
    if let Some(i) = bad_node {
        return Err(err(
            "stacks",
            format!("node {i} breaks prefix < index or has a missing location"),
        ));
    }
    if let Some(i) = p.samples.source.iter().position(|s| s.idx() >= n_src) {
        return Err(err(
            "samples.source_id",
            format!("row {} refers to a missing source", i + 1),
        ));
    }
    if let Some(i) = p
        .samples
        .stack
        .iter()
        .position(|&s| decode_opt(s).is_some_and(|s| s as usize >= n_stack))
    {
        return Err(err(
            "samples",
            format!("row {} refers to a missing stack", i + 1),
        ));
    }
    for c in &p.values {
        if c.values.len() != n || c.present.as_ref().is_some_and(|pr| pr.len() != n) {
            return Err(err(
                "sample_values",
                format!("column {} has the wrong length", p.str(c.value_type)),
            ));
        }
    }
    Ok(())
}

/// Whether `prefix` (encoded: [`NO_INDEX`] for none) may be the prefix of stack node `i`: none,
/// or an earlier node. Branch-free: `NO_INDEX + 1` wraps to 0.
#[inline]
pub(super) fn prefix_before(i: usize, prefix: u32) -> bool {
    (prefix.wrapping_add(1) as usize) <= i
}

/// Whether stack node `i` is sound: [`prefix_before`], and its location one of `n_loc`.
/// Branch-free, so the pass over every node has no early exit to test per node.
fn stack_node_ok(i: usize, prefix: u32, location: LocationIndex, n_loc: usize) -> bool {
    prefix_before(i, prefix) & (location.idx() < n_loc)
}

/// The first unsound stack node (see [`stack_node_ok`]), if any. The common case, every node
/// sound, is one branch-free pass; only a failure searches for the node to name.
fn first_bad_stack_node(stacks: &StackTable, n_loc: usize) -> Option<usize> {
    let (prefix, location) = (&stacks.prefix, &stacks.location);
    let all_ok = in_chunks(0..prefix.len().min(location.len()), |nodes| {
        let rows = prefix
            .range(nodes.clone())
            .zip(location.range(nodes.clone()));
        let at = nodes.start;
        (at..)
            .zip(rows)
            .fold(true, |ok, (i, (q, l))| ok & stack_node_ok(i, q, l, n_loc))
    });
    if all_ok {
        return None;
    }
    let mut rows = prefix.iter().zip(location).enumerate();
    rows.position(|(i, (q, l))| !stack_node_ok(i, q, l, n_loc))
}

fn same_len(table: &str, lens: &[usize]) -> Result<(), ModelError> {
    if lens.windows(2).any(|w| w[0] != w[1]) {
        return Err(err(
            table,
            format!("columns have different lengths {lens:?}"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A profile of `locations` frameless locations and the stack nodes `(prefix, location)`.
    fn with_stacks(locations: usize, nodes: &[(u32, u32)]) -> Profile {
        let mut p = Profile::default();
        p.locations.function = vec![NO_INDEX; locations];
        p.locations.line = vec![0; locations];
        p.stacks.prefix = nodes.iter().map(|n| n.0).collect();
        p.stacks.location = nodes.iter().map(|n| LocationIndex(n.1)).collect();
        p
    }

    fn stack_error(p: &Profile) -> Option<String> {
        check_invariants(p).err().map(|e| e.to_string())
    }

    #[test]
    fn sound_stack_tables_pass() {
        assert_eq!(stack_error(&with_stacks(0, &[])), None);
        let tree = [(NO_INDEX, 0), (0, 1), (1, 1), (0, 0), (NO_INDEX, 1), (4, 0)];
        assert_eq!(stack_error(&with_stacks(2, &tree)), None);
    }

    /// Every kind of unsound node is found, and the first one is named.
    #[test]
    fn the_first_unsound_stack_node_is_named() {
        let cases: [(&[(u32, u32)], usize); 5] = [
            (&[(NO_INDEX, 0), (1, 0)], 1),                 // its own prefix
            (&[(NO_INDEX, 0), (2, 0), (NO_INDEX, 0)], 1),  // a later prefix
            (&[(NO_INDEX, 0), (0, 0), (0, 2)], 2),         // a missing location
            (&[(NO_INDEX, 0), (NO_INDEX - 1, 0)], 1),      // a prefix past the table
            (&[(NO_INDEX, 5), (0, 0), (7, 1), (9, 9)], 0), // several: the first
        ];
        for (nodes, bad) in cases {
            let message = stack_error(&with_stacks(2, nodes));
            let want = format!(
                "profile model: stacks: node {bad} breaks prefix < index or has a missing location"
            );
            assert_eq!(message.as_deref(), Some(want.as_str()), "{nodes:?}");
        }
    }

    /// A builder's pushed nodes are checked as they are pushed, not read again by `build`:
    /// every kind of unsound push still fails the build, naming the first unsound node.
    #[test]
    fn a_builders_unsound_pushes_fail_its_build() {
        use crate::model::ProfileBuilder;
        let build = |nodes: &[(Option<u32>, u32)], keep_locations: usize| {
            let mut b = ProfileBuilder::new();
            for _ in 0..3 {
                b.add_location(None, 0);
            }
            for &(prefix, loc) in nodes {
                b.push_stack_node(prefix.map(StackIndex), LocationIndex(loc));
            }
            b.locations_mut().function.truncate(keep_locations);
            b.locations_mut().line.truncate(keep_locations);
            b.build().err().map(|e| e.to_string())
        };
        let bad = |i: usize| {
            Some(format!(
                "profile model: stacks: node {i} breaks prefix < index or has a missing location"
            ))
        };
        let sound = [(None, 0), (Some(0), 1), (Some(1), 2), (Some(0), 2)];
        assert_eq!(build(&sound, 3), None);
        assert_eq!(build(&[(None, 0), (Some(1), 1)], 3), bad(1)); // its own prefix
        assert_eq!(build(&[(None, 0), (Some(0), 1), (Some(7), 0)], 3), bad(2)); // a later one
        assert_eq!(build(&[(None, 0), (Some(0), 3)], 3), bad(1)); // a missing location
        assert_eq!(build(&sound, 2), bad(2)); // a location removed after the push
    }
}
