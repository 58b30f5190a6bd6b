// The worker's answers for the Call tree tab (views/calltree.js), built on the Viewer's
// `tree_*` methods (src/wasm_tree.rs). `mode`: 0 top-down, 1 bottom-up, 2 Compare mode's
// tree (base / new columns), 3 its bottom-up tree. Each answer that opens rows carries `rows`: the children of
// every node it opens, as the columns `tree_children` returns, so one round trip suffices.

/** Most rows one "expand all below" (`*`) loads; the view says when it stopped there. */
export const EXPAND_CAP = 50000;

/** The tree handlers of the worker; `viewer()` is the current Viewer. */
export function treeHandlers(viewer) {
  /** Rows of the children of the root and of each of `nodes`. */
  const open = (mode, nodes) => viewer().tree_children(mode, new Uint32Array([0, ...nodes]));
  return {
    /** The top-level rows and the heaviest path expanded: `{path, rows}`. */
    treeOpen({ mode }) {
      const path = Array.from(viewer().tree_heaviest_path(mode));
      return { path: new Uint32Array(path), rows: open(mode, path.slice(0, -1)) };
    },
    treeChildren({ mode, nodes }) {
      return viewer().tree_children(mode, new Uint32Array(nodes));
    },
    /** Every row below `node` (at most `EXPAND_CAP`), and the children of the nodes whose
     * list the cap cut short, so that every loaded row can be shown expanded. */
    treeExpandAll({ mode, node }) {
      const rows = viewer().tree_expand_all(mode, node, EXPAND_CAP);
      const loaded = new Map();
      for (const p of rows.parent) loaded.set(p, (loaded.get(p) || 0) + 1);
      const partial = [];
      for (let i = 0; i < rows.node.length; i++) {
        const have = loaded.get(rows.node[i]) || 0;
        if (have > 0 && have < rows.children[i]) partial.push(rows.node[i]);
      }
      const own = viewer().tree_children(mode, new Uint32Array([node]));
      if ((loaded.get(node) || 0) < own.node.length) partial.push(node);
      return { rows, cap: EXPAND_CAP, extra: viewer().tree_children(mode, new Uint32Array(partial)) };
    },
    /** The node of a call path and the rows that make it visible: `{node, ancestors, rows}`
     * (node -1 when the tree has no such path). */
    treeReveal({ mode, frames }) {
      const node = viewer().tree_node_of_path(mode, new Uint32Array(frames));
      if (node < 0) return { node };
      const ancestors = viewer().tree_ancestors(mode, node);
      return { node, ancestors, rows: open(mode, ancestors) };
    },
    /** The nodes a search matches (at most `cap`) and the rows that make them visible. */
    treeMatches({ mode, flags, cap }) {
      const m = viewer().tree_matches(mode, new Uint8Array(flags), cap);
      const ancestors = new Set();
      for (const n of m.nodes) for (const a of viewer().tree_ancestors(mode, n)) ancestors.add(a);
      const list = [...ancestors];
      return { nodes: m.nodes, more: m.more, ancestors: new Uint32Array(list), rows: open(mode, list) };
    },
    treePath({ mode, node }) {
      return { frames: viewer().tree_path(mode, node) };
    },
    treeNodeOfPath({ mode, frames }) {
      return { node: viewer().tree_node_of_path(mode, new Uint32Array(frames)) };
    },
  };
}
