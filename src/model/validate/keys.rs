//! Key rules 4 to 7: primary keys unique and not NA, foreign keys resolve, the compound keys
//! of `sample_values` and `sample_locations` unique, and each sample's depths `1..=n`.
//!
//! Keys resolve through an [`IdIndex`], the identity for the dense `1..=n` ids proftab writes.

use super::{Report, V2Rules};
use crate::hash::{HashMap, HashSet};

/// Maps key values to 0-based rows: the identity when the keys are exactly `1..=n` in order
/// (what proftab writes), else a hash map. NA keys map nowhere; of duplicate keys the first
/// row wins.
#[derive(Clone, Debug)]
pub(crate) enum IdIndex {
    Dense(usize),
    Sparse(HashMap<i32, usize>),
}

impl IdIndex {
    pub(crate) fn new(ids: &[Option<i32>]) -> Self {
        let dense = ids
            .iter()
            .enumerate()
            .all(|(i, id)| id.and_then(|x| usize::try_from(x).ok()) == Some(i + 1));
        if dense {
            return IdIndex::Dense(ids.len());
        }
        let mut map = HashMap::default();
        for (row, id) in ids.iter().enumerate() {
            if let Some(id) = id {
                map.entry(*id).or_insert(row);
            }
        }
        IdIndex::Sparse(map)
    }

    /// The 0-based row of key `id`.
    pub(crate) fn row(&self, id: i32) -> Option<usize> {
        match self {
            IdIndex::Dense(n) => usize::try_from(id)
                .ok()
                .and_then(|x| x.checked_sub(1))
                .filter(|r| r < n),
            IdIndex::Sparse(m) => m.get(&id).copied(),
        }
    }
}

impl V2Rules<'_, '_> {
    /// Rule 4: unique, not NA. Returns the key index of a sound table.
    pub(super) fn primary_key(&mut self, table: &str, col: &str) -> Option<IdIndex> {
        let ids = self.int(table, col)?;
        check_unique_ints(self.r, table, col, &ids, false);
        Some(IdIndex::new(&ids))
    }

    /// Rule 5.
    pub(super) fn foreign_key(
        &mut self,
        table: &str,
        col: &str,
        target: Option<&IdIndex>,
        na_ok: bool,
    ) {
        let (Some(ids), Some(target)) = (self.int(table, col), target) else {
            return;
        };
        check_foreign_key(self.r, table, col, &ids, target, na_ok);
    }

    /// Rule 6 for `sample_values`: `(sample_id, type)` unique, `type` not NA.
    pub(super) fn value_key(&mut self, samples: &IdIndex) {
        let (Some(ids), Some(types)) = (
            self.int("sample_values", "sample_id"),
            self.chr("sample_values", "type"),
        ) else {
            return;
        };
        self.r.na_cells(
            "sample_values",
            "type",
            "must not be NA (it is part of the key (sample_id, type))",
            &types,
        );
        let mut type_index: HashMap<&str, u64> = HashMap::default();
        let mut seen: HashSet<(usize, u64)> = HashSet::default();
        let mut dups = Vec::new();
        for (row, (id, ty)) in ids.iter().zip(types.iter()).enumerate() {
            let (Some(sample), Some(ty)) = (id.and_then(|id| samples.row(id)), ty) else {
                continue;
            };
            let next = u64::try_from(type_index.len()).unwrap_or(u64::MAX);
            let ty_idx = *type_index.entry(ty.as_str()).or_insert(next);
            if !seen.insert((sample, ty_idx)) {
                dups.push((row, format!("({}, {ty:?})", id.unwrap_or_default())));
            }
        }
        self.r.rule(
            "sample_values",
            "type",
            "(sample_id, type) appears more than once",
            dups,
        );
    }

    /// Rules 6 and 7 for `sample_locations`: depth not NA, `(sample_id, depth)` unique, and the
    /// depths of each sample exactly `1..=n`. Checked per sample with one bit per row.
    pub(super) fn depth_key(&mut self, samples: &IdIndex) {
        let (Some(ids), Some(depths)) = (
            self.int("sample_locations", "sample_id"),
            self.int("sample_locations", "depth"),
        ) else {
            return;
        };
        let sample_of = |row: usize| {
            ids.get(row)
                .copied()
                .flatten()
                .and_then(|id| samples.row(id))
        };
        let n_samples = (0..ids.len())
            .filter_map(sample_of)
            .max()
            .map_or(0, |m| m + 1);
        let mut count = vec![0usize; n_samples];
        for s in (0..ids.len()).filter_map(sample_of) {
            if let Some(c) = count.get_mut(s) {
                *c += 1;
            }
        }
        let mut offset = Vec::with_capacity(n_samples);
        let mut acc = 0usize;
        for c in &count {
            offset.push(acc);
            acc += c;
        }
        let mut taken = vec![false; acc];
        let mut issues = Vec::new();
        for (row, depth) in depths.iter().enumerate() {
            let Some(s) = sample_of(row) else { continue };
            let id = ids.get(row).copied().flatten().unwrap_or_default();
            let n = count.get(s).copied().unwrap_or(0);
            let Some(d) = *depth else {
                issues.push((row, "NA".to_owned(), "must not be NA".to_owned()));
                continue;
            };
            let slot = usize::try_from(d)
                .ok()
                .filter(|d| (1..=n).contains(d))
                .and_then(|d| taken.get_mut(offset.get(s)? + d - 1));
            match slot.map(|seen| std::mem::replace(seen, true)) {
                None => issues.push((
                    row,
                    d.to_string(),
                    format!(
                        "sample_id {id} has {n} rows, so its depths must run 1..{n} without gaps"
                    ),
                )),
                Some(true) => issues.push((
                    row,
                    d.to_string(),
                    format!("(sample_id, depth) = ({id}, {d}) appears more than once"),
                )),
                Some(false) => {}
            }
        }
        self.r.rule_with("sample_locations", "depth", issues);
    }
}

/// Duplicates (and NA, unless `na_ok`) in a key column. With `na_ok`, two NAs still count as
/// duplicates (R's `anyDuplicated`).
pub(crate) fn check_unique_ints(
    r: &mut Report,
    table: &str,
    col: &str,
    ids: &[Option<i32>],
    na_ok: bool,
) {
    if !na_ok {
        r.na_cells(table, col, "must not be NA", ids);
    }
    let mut seen = HashSet::default();
    let dups = ids
        .iter()
        .enumerate()
        .filter(|(_, id)| (na_ok || id.is_some()) && !seen.insert(**id))
        .map(|(i, id)| (i, id.map_or_else(|| "NA".to_owned(), |x| x.to_string())));
    let dups: Vec<_> = dups.collect();
    r.rule(table, col, "must be unique (primary key)", dups);
}

/// Rows of `ids` that do not resolve in `target` (NA allowed when `na_ok`).
pub(crate) fn check_foreign_key(
    r: &mut Report,
    table: &str,
    col: &str,
    ids: &[Option<i32>],
    target: &IdIndex,
    na_ok: bool,
) {
    let target_name = foreign_target(table, col);
    if !na_ok {
        r.na_cells(table, col, "must not be NA", ids);
    }
    let missing = ids
        .iter()
        .enumerate()
        .filter_map(|(i, id)| id.filter(|x| target.row(*x).is_none()).map(|x| (i, x)));
    r.rule(
        table,
        col,
        &format!("does not match any {target_name}"),
        missing.map(|(i, x)| (i, x.to_string())),
    );
}

fn foreign_target(table: &str, col: &str) -> String {
    match (table, col) {
        (_, "source_id") => "sources.source_id".to_owned(),
        (_, "sample_id") => "samples.sample_id".to_owned(),
        (_, "location_id") => "locations.location_id".to_owned(),
        (_, "function_id") => "functions.function_id".to_owned(),
        _ => format!("{table}.{col}"),
    }
}
