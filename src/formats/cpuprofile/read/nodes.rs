//! Node links and naming: the id index, parent links from `children` and `parent` (checked: no
//! duplicates, no second parent, no self-parent), and small cell helpers.

use crate::formats::cpuprofile::schema::{FlatProfile, RawCallFrame, RawNode};
use crate::formats::cpuprofile::NAME;
use crate::formats::error::{Place, ReadError, Warnings};
use crate::hash::HashMap;

/// Node id → position in `nodes`; duplicate ids are an error.
pub(super) fn node_index(fp: &FlatProfile) -> Result<HashMap<i64, usize>, ReadError> {
    let mut index = HashMap::with_capacity_and_hasher(fp.nodes.len(), Default::default());
    for (i, node) in fp.nodes.iter().enumerate() {
        if index.insert(node.id, i).is_some() {
            return Err(ReadError::new(
                NAME,
                Place::Path(format!("{}nodes[{i}].id", fp.path)),
                format!("duplicate node id {}", node.id),
            ));
        }
    }
    Ok(index)
}

/// Parent of every node, from `children` lists and `parent` fields.
pub(super) fn parent_links(
    fp: &FlatProfile,
    index: &HashMap<i64, usize>,
    warnings: &mut Warnings,
) -> Result<Vec<Option<usize>>, ReadError> {
    let mut parents: Vec<Option<usize>> = vec![None; fp.nodes.len()];
    for (i, node) in fp.nodes.iter().enumerate() {
        for (j, &child) in node.children.iter().flatten().enumerate() {
            let at = || format!("{}nodes[{i}].children[{j}]", fp.path);
            let Some(c) = resolve(fp, index, child, &at, warnings)? else {
                continue;
            };
            link(fp, &mut parents, c, i, &at)?;
        }
        if let Some(parent) = node.parent {
            let at = || format!("{}nodes[{i}].parent", fp.path);
            if let Some(p) = resolve(fp, index, parent, &at, warnings)? {
                link(fp, &mut parents, i, p, &at)?;
            }
        }
    }
    Ok(parents)
}

/// The position of node `id`; a missing node is an error, or a warning in lenient mode.
pub(super) fn resolve(
    fp: &FlatProfile,
    index: &HashMap<i64, usize>,
    id: i64,
    at: &dyn Fn() -> String,
    warnings: &mut Warnings,
) -> Result<Option<usize>, ReadError> {
    if let Some(&k) = index.get(&id) {
        return Ok(Some(k));
    }
    if fp.lenient {
        warnings.add(NAME, "unknown-node-link", || {
            format!("links to nodes that are not in the profile were ignored; such nodes start at the top (first: {}, id {id})", at())
        });
        return Ok(None);
    }
    Err(ReadError::new(
        NAME,
        Place::Path(at()),
        format!("node id {id} is not in `nodes`"),
    ))
}

/// Records `parent` as the parent of `child`.
pub(super) fn link(
    fp: &FlatProfile,
    parents: &mut [Option<usize>],
    child: usize,
    parent: usize,
    at: &dyn Fn() -> String,
) -> Result<(), ReadError> {
    let id = |k: usize| fp.nodes.get(k).map_or(0, |n| n.id);
    if child == parent {
        return Err(ReadError::new(
            NAME,
            Place::Path(at()),
            format!("node id {} is its own parent", id(child)),
        ));
    }
    match parents.get(child).copied().flatten() {
        Some(p) if p != parent => Err(ReadError::new(
            NAME,
            Place::Path(at()),
            format!(
                "node id {} has two parents (ids {} and {})",
                id(child),
                id(p),
                id(parent)
            ),
        )),
        _ => {
            if let Some(slot) = parents.get_mut(child) {
                *slot = Some(parent);
            }
            Ok(())
        }
    }
}

pub(super) fn is_root_frame(node: &RawNode) -> bool {
    node.call_frame
        .as_ref()
        .and_then(|cf| cf.function_name.as_deref())
        == Some("(root)")
}

/// Warnings for node data proftab does not keep.
pub(super) fn note_dropped(node: &RawNode, cf: &RawCallFrame, warnings: &mut Warnings) {
    if node.position_ticks.as_ref().is_some_and(|t| !t.is_empty()) {
        warnings.add(NAME, "position-ticks", || {
            "positionTicks (per-line hit counts of nodes) were not kept: proftab attributes samples to functions".to_owned()
        });
    }
    if node.deopt_reason.as_deref().is_some_and(|r| !r.is_empty()) {
        warnings.add(NAME, "deopt", || {
            "deoptReason of nodes not kept (V8 optimization notes)".to_owned()
        });
    }
    for key in node.other.keys().chain(cf.other.keys()) {
        warnings.add(NAME, &format!("node-key-{key}"), || {
            format!("node key {key:?} not kept")
        });
    }
}

/// speedscope's name for an anonymous function: `(anonymous file:line)`.
pub(super) fn anonymous_name(url: &str, line: i64) -> String {
    if url.is_empty() {
        return "(anonymous)".to_owned();
    }
    let file = url.rsplit('/').next().unwrap_or(url);
    if line >= 0 {
        format!("(anonymous {file}:{})", line.saturating_add(1))
    } else {
        format!("(anonymous {file})")
    }
}

/// A whole number from JSON (`-1` when absent or not whole).
pub(super) fn whole(v: Option<f64>) -> i64 {
    match v {
        Some(x) if x.is_finite() && x.fract() == 0.0 && x.abs() < 9e15 => x as i64,
        _ => -1,
    }
}

pub(super) fn clamp_i32(v: i64) -> i32 {
    i32::try_from(v.clamp(0, i64::from(i32::MAX))).unwrap_or(0)
}
