// The Call tree tab (#calltree-pane): the call tree of the chosen options as a virtualised
// treegrid (treegrid.js), top-down or inverted (S.bottomUp, shared with the flame graph's
// Bottom-up), with base / new / Δ columns of the Compare mode's sources (S.treeCompare) in
// either direction.
// Rows come from the worker (worker-tree.js) as columns; children are loaded on expand.
// Selecting a row selects its call path everywhere (state.js's selectFrame with a path).
// Owns #calltree-pane, #calltree, #tree-invert, #tree-compare and #tree-status.
import { change, formatDelta, formatRelative } from "../compare.js";
import { perViewer } from "../context.js";
import { $, onKeydown } from "../dom.js";
import { formatValue, percent } from "../format.js";
import { openMenu } from "../menu.js";
import { canCompare, frameLabel, on, S, selectFrame, toggleBottomUp, toggleTreeCompare, unit } from "../state.js";
import { TreeGrid } from "../treegrid.js";
import { call } from "../worker-client.js";

/** Most search matches opened at once. */
const MATCH_CAP = 200;

/** 0 top-down, 1 inverted, 2 comparison, 3 comparison inverted (worker-tree.js's modes). */
export function treeMode() {
  const inverted = S.bottomUp ? 1 : 0;
  return S.treeCompare && canCompare() ? 2 + inverted : inverted;
}

/** The tree of `mode` is bottom-up. */
const isInverted = (mode) => mode === 1 || mode === 3;
/** The tree of `mode` has both sides' columns. */
const isCompared = (mode) => mode >= 2;

/** The current viewer's tab: the columns' grand totals, the answers' generation, stale rows. */
const my = perViewer(() => ({ grand: [0, 0], generation: 0, dirty: true }));

/** Records of the worker's row columns. */
function records(r) {
  const out = [];
  for (let i = 0; i < r.node.length; i++) {
    out.push({
      node: r.node[i],
      parent: r.parent[i],
      depth: r.depth[i],
      frame: r.frame[i],
      kids: r.children[i],
      self: r.self[i],
      total: r.total[i],
      baseSelf: r.baseSelf ? r.baseSelf[i] : 0,
      baseTotal: r.baseTotal ? r.baseTotal[i] : 0,
    });
  }
  return out;
}

function columns(mode) {
  const u = unit();
  const name = { label: isInverted(mode) ? "Function (callers below)" : "Function", cls: "name" };
  if (isCompared(mode)) {
    const [base, next] = my.grand;
    return [
      {
        label: "Baseline",
        cls: "num",
        title: "Total in the baseline",
        text: (r) => formatValue(r.baseTotal, u),
        bar: (r) => r.baseTotal / (base || 1),
      },
      {
        label: "Comparison",
        cls: "num",
        title: "Total in the comparison",
        text: (r) => formatValue(r.total, u),
        bar: (r) => r.total / (next || base || 1),
      },
      { label: "Δ", cls: "num delta", title: "Change of the total", text: (r) => formatDelta(change(r.baseTotal, r.total), u) },
      { label: "Δ %", cls: "pct", title: "Change relative to the baseline", text: (r) => formatRelative(r.baseTotal, r.total) },
      name,
    ];
  }
  const g = my.grand[0];
  return [
    { label: "Total", cls: "num", text: (r) => formatValue(r.total, u) },
    { label: "%", cls: "pct", title: "Share of the total", text: (r) => percent(r.total, g), bar: (r) => r.total / (g || 1) },
    { label: "Self", cls: "num", text: (r) => formatValue(r.self, u) },
    { label: "%", cls: "pct", title: "Self as a share of the total", text: (r) => percent(r.self, g) },
    name,
  ];
}

const grid = perViewer(
  () =>
    new TreeGrid($("calltree"), {
      columns: [],
      label: (r) => frameLabel(r.frame),
      load: async (nodes) => records(await call("treeChildren", { mode: treeMode(), nodes })),
      onSelect: async (r) => {
        const mode = treeMode();
        const { frames } = await call("treePath", { mode, node: r.node });
        selectFrame(r.frame, "tree", { frames: Array.from(frames), inverted: isInverted(mode) });
      },
      onContext: (r, e) => openMenu({ node: r.node, frame: r.frame }, e),
      onExpandAll: expandAll,
    }),
);

function status(text) {
  $("tree-status").textContent = text;
}

/** Loads the tree of the current options (when the tab shows; else on the next show). */
async function reload() {
  if (S.view !== "calltree" || !S.loaded || !S.table) {
    my.dirty = true;
    return;
  }
  my.dirty = false;
  const g = ++my.generation;
  const mode = treeMode();
  my.grand = [S.totals[0], 0];
  try {
    if (isCompared(mode)) {
      const c = S.compare;
      const r = await call("compare", { base: c.base, compared: c.new, normalized: c.normalized, sizeByBase: false });
      my.grand = [r.summary.baseTotal, r.summary.newTotal];
    }
    const r = await call("treeOpen", { mode });
    if (g !== my.generation) return;
    const focused = grid.hasFocus();
    grid.reset();
    grid.setColumns(columns(mode));
    grid.addRows(records(r.rows));
    grid.expandNodes(Array.from(r.path).slice(0, -1));
    status(r.rows.node.length ? "" : "No samples under the current options.");
    if (focused) grid.moveTo(0);
    await revealSelection();
    await markMatches();
  } catch (e) {
    if (g === my.generation) status(e.message);
  }
}

/** Shows the selected call path's row (expanding its ancestors), when it is of this tree. */
async function revealSelection() {
  const p = S.selectedPath;
  const mode = treeMode();
  if (!p || p.inverted !== isInverted(mode)) return grid.showSelected(-1, false);
  const g = my.generation;
  const r = await call("treeReveal", { mode, frames: p.frames });
  if (g !== my.generation) return;
  if (r.node < 0) return grid.showSelected(-1, false);
  grid.addRows(records(r.rows));
  grid.expandNodes(Array.from(r.ancestors));
  grid.showSelected(r.node, grid.hasFocus());
}

/** Marks the rows the search matches and opens the tree down to the first MATCH_CAP. */
async function markMatches() {
  const flags = S.flags;
  grid.marked = flags ? (r) => flags[r.frame] === 1 : null;
  if (!flags) return grid.redraw();
  const g = my.generation;
  const r = await call("treeMatches", { mode: treeMode(), flags, cap: MATCH_CAP });
  if (g !== my.generation) return;
  grid.addRows(records(r.rows));
  grid.expandNodes(Array.from(r.ancestors));
  const n = r.nodes.length;
  status(
    n
      ? `${n}${r.more ? "+" : ""} call paths match; opened to ${r.more ? `the first ${MATCH_CAP}` : "each"}`
      : "No call path matches the search.",
  );
}

/** `*`: every row below `rec` (up to the worker's cap, which the status line then names). */
async function expandAll(rec) {
  const g = my.generation;
  const r = await call("treeExpandAll", { mode: treeMode(), node: rec.node });
  if (g !== my.generation) return;
  grid.addRows(records(r.extra));
  const rows = records(r.rows);
  grid.addRows(rows);
  grid.expandNodes([rec.node, ...rows.filter((x) => x.kids > 0).map((x) => x.node)]);
  grid.moveTo(grid.visible.indexOf(grid.recs.get(rec.node)));
  const n = rows.length.toLocaleString("en-US");
  const what = `Expanded ${n} rows below ${frameLabel(rec.frame)}`;
  status(r.rows.truncated ? `${what}: stopped at ${r.cap.toLocaleString("en-US")} rows (press * on a deeper row for more)` : `${what}.`);
}

function showControls() {
  const invert = $("tree-invert");
  invert.setAttribute("aria-pressed", String(S.bottomUp));
  const cmp = $("tree-compare");
  cmp.hidden = !canCompare();
  cmp.setAttribute("aria-pressed", String(isCompared(treeMode())));
}

$("tree-invert").addEventListener("click", () => toggleBottomUp());
$("tree-compare").addEventListener("click", () => toggleTreeCompare());

on("view", () => {
  $("calltree-pane").hidden = S.view !== "calltree";
  if (S.view !== "calltree") return;
  if (my.dirty) reload();
  else revealSelection();
});
on("profile", () => {
  grid.reset();
  my.dirty = true;
  showControls();
});
on("toggles", showControls);
on("analysis", reload);
on("bottomUp", reload);
on("treeCompare", () => {
  showControls();
  reload();
});
on("compare", () => {
  if (isCompared(treeMode())) reload();
});
on("selected", (from) => {
  if (from !== "tree" && S.view === "calltree" && !my.dirty) revealSelection();
  else if (from !== "tree") grid.showSelected(-1, false);
});
on("search", () => {
  if (S.view === "calltree" && !my.dirty) markMatches();
});

// With the tab shown and the keyboard elsewhere (say, on the tab), ↑/↓/Home/End go to the tree.
onKeydown((e) => {
  const elsewhere = !grid.hasFocus() && !["INPUT", "SELECT"].includes(e.target.tagName);
  if (S.view !== "calltree" || !S.loaded || !elsewhere || e.ctrlKey || e.metaKey || e.altKey) return;
  if (!["ArrowDown", "ArrowUp", "Home", "End"].includes(e.key)) return;
  e.preventDefault();
  grid.moveTo(grid.cursor);
});
