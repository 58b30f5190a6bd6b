//! Meta rows of the inputs merged: a key with the same rows in every input stays plain;
//! otherwise each source gets the rows that applied to it, keyed `source.<id>.<key>` (see
//! [`META_SOURCE_PREFIX`]), so no row is lost and combining stays associative.

use super::super::profile::{Profile, META_VERSION};
use super::super::strings::StringTable;
use super::{META_SOURCE_PREFIX, META_UNSOURCED_PREFIX};
use crate::hash::{HashMap, HashSet};

/// Who a meta row belongs to.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Owner {
    /// The whole input.
    Plain,
    /// One source of the input (row index).
    Source(usize),
}

/// The meta rows of one input as `(owner, key, value)`.
fn meta_rows(p: &Profile) -> Vec<(Owner, &str, &str)> {
    let n_sources = p.sources.source_type.len();
    p.meta
        .key
        .iter()
        .zip(&p.meta.value)
        .map(|(&k, &v)| {
            let (owner, key) = split_source_key(p.str(k), n_sources);
            (owner, key, p.str(v))
        })
        .collect()
}

/// Splits `source.<id>.<key>` when `<id>` is a source of the input.
fn split_source_key(key: &str, n_sources: usize) -> (Owner, &str) {
    let split = key.strip_prefix(META_SOURCE_PREFIX).and_then(|rest| {
        let (id, inner) = rest.split_once('.')?;
        let id: usize = id.parse().ok()?;
        (id >= 1 && id <= n_sources && !inner.is_empty()).then_some((Owner::Source(id - 1), inner))
    });
    split.unwrap_or((Owner::Plain, key))
}

/// Writes the merged meta of `profiles` into `out` (see [`META_SOURCE_PREFIX`]).
pub(super) fn merge_meta(profiles: &[Profile], out: &mut Profile) {
    let rows: Vec<Vec<(Owner, &str, &str)>> = profiles.iter().map(meta_rows).collect();
    let plain_lists: Vec<HashMap<&str, Vec<&str>>> = rows
        .iter()
        .map(|r| {
            let mut m: HashMap<&str, Vec<&str>> = HashMap::default();
            for &(o, k, v) in r {
                if o == Owner::Plain {
                    m.entry(k).or_default().push(v);
                }
            }
            m
        })
        .collect();
    let agrees = |key: &str| {
        let first = plain_lists.first().and_then(|m| m.get(key));
        plain_lists.iter().all(|m| m.get(key) == first)
    };
    let mut source_offset = 0;
    let mut emitted: Vec<(String, String)> = Vec::new();
    for (input, p) in profiles.iter().enumerate() {
        let own: HashSet<(usize, &str)> = rows[input]
            .iter()
            .filter_map(|&(o, k, _)| match o {
                Owner::Source(s) => Some((s, k)),
                Owner::Plain => None,
            })
            .collect();
        let n_sources = p.sources.source_type.len();
        for &(owner, key, value) in &rows[input] {
            let source_key =
                |s: usize| format!("{META_SOURCE_PREFIX}{}.{key}", source_offset + s + 1);
            match owner {
                Owner::Source(s) => emitted.push((source_key(s), value.to_owned())),
                Owner::Plain if agrees(key) => {
                    if input == 0 {
                        emitted.push((key.to_owned(), value.to_owned()));
                    }
                }
                Owner::Plain if n_sources == 0 => {
                    emitted.push((format!("{META_UNSOURCED_PREFIX}{key}"), value.to_owned()))
                }
                Owner::Plain => {
                    for s in (0..n_sources).filter(|&s| !own.contains(&(s, key))) {
                        emitted.push((source_key(s), value.to_owned()));
                    }
                }
            }
        }
        source_offset += n_sources;
    }
    if !emitted.iter().any(|(k, _)| k == META_VERSION) {
        emitted.insert(0, (META_VERSION.to_owned(), "2.0".to_owned()));
    }
    set_meta_rows(out, emitted);
}

fn set_meta_rows(out: &mut Profile, rows: Vec<(String, String)>) {
    let strings: &mut StringTable = &mut out.strings;
    for (k, v) in rows {
        let k = strings.intern(&k);
        let v = strings.intern(&v);
        out.meta.key.push(k);
        out.meta.value.push(v);
    }
}
