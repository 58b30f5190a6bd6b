//! The call tree tab's wasm API: more methods of [`Viewer`], answering for the tree of the
//! current options as typed-array columns (see [`crate::analysis::calltree`]).
//!
//! Every method takes a `mode`: 0 the top-down tree (node ids those of [`Viewer::flame`]), 1
//! the bottom-up tree (those of [`Viewer::inverted_flame`]), 2 the comparison of the last
//! [`Viewer::compare`] (those of [`Viewer::compare_flame`]; rows carry both sides), 3 its
//! bottom-up tree (both sides, innermost functions at the top). Node ids hold until the
//! options change.

use js_sys::{Float64Array, Object, Uint32Array};
use wasm_bindgen::prelude::*;

use crate::analysis::calltree::{TreeRows, TreeSource};
use crate::wasm_view::{set, Viewer};

/// Most rows [`Viewer::tree_expand_all`] returns, whatever the cap asked for.
pub const MAX_EXPAND_ROWS: u32 = 200_000;

fn rows_to_js(r: &TreeRows) -> Object {
    let o = Object::new();
    set(&o, "node", Uint32Array::from(&r.node[..]));
    set(&o, "parent", Uint32Array::from(&r.parent[..]));
    set(&o, "depth", Uint32Array::from(&r.depth[..]));
    set(&o, "frame", Uint32Array::from(&r.frame[..]));
    set(&o, "children", Uint32Array::from(&r.children[..]));
    let keys = [("self", "total"), ("baseSelf", "baseTotal")];
    for ((s, t), (self_w, total)) in keys.iter().zip(r.self_w.iter().zip(&r.total)) {
        set(&o, s, Float64Array::from(&self_w[..]));
        set(&o, t, Float64Array::from(&total[..]));
    }
    set(&o, "truncated", r.truncated);
    o
}

impl Viewer {
    /// Runs `f` on the tree of `mode`.
    fn with_tree<T>(
        &mut self,
        mode: u8,
        f: impl FnOnce(&TreeSource<'_>) -> T,
    ) -> Result<T, JsError> {
        match mode {
            0 | 1 => Ok(f(&self.view.tree_source(mode == 1))),
            2 => Ok(f(&self.comparison()?.tree_source())),
            3 => Ok(f(&self.comparison()?.inverted_tree_source())),
            m => Err(JsError::new(&format!("unknown call tree mode {m}"))),
        }
    }
}

#[wasm_bindgen]
impl Viewer {
    /// Rows of the shown children of each of `nodes` (0 is the root, so `[0]` gives the
    /// top-level rows), heaviest first under the current order: `{node, parent, depth, frame,
    /// children (how many each would show), self, total: Float64Array, truncated}`, plus
    /// `baseSelf` and `baseTotal` in modes 2 and 3 (`self`/`total` are then the comparison's,
    /// scaled). In modes 1 and 3 a top-level row's self is its total and deeper rows have none.
    pub fn tree_children(&mut self, mode: u8, nodes: &[u32]) -> Result<Object, JsError> {
        self.with_tree(mode, |t| rows_to_js(&t.children_rows(nodes)))
    }

    /// Rows of every shown node below `node` in display order (depth first), at most
    /// `min(cap, MAX_EXPAND_ROWS)`; `truncated` is true when some were left out.
    pub fn tree_expand_all(&mut self, mode: u8, node: u32, cap: u32) -> Result<Object, JsError> {
        let cap = cap.min(MAX_EXPAND_ROWS) as usize;
        self.with_tree(mode, |t| rows_to_js(&t.subtree_rows(node, cap)))
    }

    /// The nodes of the heaviest path from the root (first children down to a leaf).
    pub fn tree_heaviest_path(&mut self, mode: u8) -> Result<Uint32Array, JsError> {
        self.with_tree(mode, |t| Uint32Array::from(&t.heaviest_path()[..]))
    }

    /// The node whose call path is `frames` (frame ids from the top-level row down; in modes 1 and 3
    /// innermost first), or -1 when the tree has no such shown path.
    pub fn tree_node_of_path(&mut self, mode: u8, frames: &[u32]) -> Result<i32, JsError> {
        self.with_tree(mode, |t| {
            t.node_of_path(frames)
                .and_then(|n| i32::try_from(n).ok())
                .unwrap_or(-1)
        })
    }

    /// The ancestors of `node` from the top-level row down, `node` left out.
    pub fn tree_ancestors(&mut self, mode: u8, node: u32) -> Result<Uint32Array, JsError> {
        self.with_tree(mode, |t| Uint32Array::from(&t.ancestors(node)[..]))
    }

    /// The frame ids of the call path of `node` (from the top-level row down).
    pub fn tree_path(&mut self, mode: u8, node: u32) -> Result<Uint32Array, JsError> {
        self.with_tree(mode, |t| Uint32Array::from(&t.tree.path(node)[..]))
    }

    /// The shown nodes whose frame `flags` (one byte per frame id, as `search` returns)
    /// marks, in display order: `{nodes: Uint32Array, more: bool}` (at most `cap` nodes).
    pub fn tree_matches(&mut self, mode: u8, flags: &[u8], cap: u32) -> Result<Object, JsError> {
        self.with_tree(mode, |t| {
            let (nodes, more) = t.matching(flags, cap as usize);
            let o = Object::new();
            set(&o, "nodes", Uint32Array::from(&nodes[..]));
            set(&o, "more", more);
            o
        })
    }
}
