//! The physical invariants of a [`Profile`], checked by [`check_invariants`] whenever a
//! profile is built: every string, source, function, location and stack id is in range, a
//! stack node's prefix comes before it, and the columns of each table have one length. They
//! are what makes unchecked indexing downstream safe.

use std::fmt;

use super::ids::*;
use super::profile::*;

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
    for i in 0..n_stack {
        let prefix_ok = decode_opt(p.stacks.prefix[i]).is_none_or(|q| (q as usize) < i);
        if !prefix_ok || p.stacks.location[i].idx() >= n_loc {
            return Err(err(
                "stacks",
                format!("node {i} breaks prefix < index or has a missing location"),
            ));
        }
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

fn same_len(table: &str, lens: &[usize]) -> Result<(), ModelError> {
    if lens.windows(2).any(|w| w[0] != w[1]) {
        return Err(err(
            table,
            format!("columns have different lengths {lens:?}"),
        ));
    }
    Ok(())
}
