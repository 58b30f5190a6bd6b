// The views together: which are on screen for S.view, the layout they share (#graph-pane,
// the `comparing` class of the page), what all of them follow (selection and search
// highlights, theme, size) and the refresh of the active one after a change.
import { bound, onViewer, perViewer } from "../context.js";
import { $, frame } from "../dom.js";
import { on, refreshCompare, S, zoomFrom } from "../state.js";
import { zoomFractions, zoomRange } from "../url.js";
import { call } from "../worker-client.js";
import { compareView } from "./compare.js";
import { crumbView } from "./crumbs.js";
import "./calltree.js";
import { mainView } from "./flame.js";
import { calleesView, callersView, refreshSandwich } from "./sandwich.js";
import { refreshSource } from "./source.js";
import "./sql.js";
import "./table.js";
import { refreshTime, timeView } from "./time.js";

export const allViews = [mainView, timeView, callersView, calleesView, compareView];

/** The FlameViews of S.view (the first is the one keys, export and tests address); the
 * Source view has the flame graph under its lines. */
export function activeViews() {
  if (S.view === "time") return [timeView];
  if (S.view === "sandwich") return [callersView, calleesView];
  if (S.view === "compare") return [compareView];
  return [mainView];
}

/** Zooms the flame view on screen to fractions `[a, b]` of its domain (from the URL hash). */
export function zoomTo(fractions) {
  if (!fractions) return;
  const view = crumbView();
  view.setView(...zoomRange(fractions, view.domain));
}

async function refreshActive() {
  if (S.view === "time") await refreshTime();
  else if (S.view === "sandwich") refreshSandwich();
  else if (S.view === "compare" && S.table) await refreshCompare();
  else if (S.view === "source") await refreshSource();
}

onViewer(() => {
  new ResizeObserver(
    bound(() => {
      for (const v of allViews) v.resize();
    }),
  ).observe($("graph-pane"));
});

zoomFrom(() => {
  const view = crumbView();
  return zoomFractions(view.domain, view.vx0, view.vx1);
});

on("view", () => {
  frame().classList.toggle("comparing", S.view === "compare");
  for (const v of allViews) v.resize();
});
on("refresh", refreshActive);
on("selected", () => {
  for (const v of allViews) v.setHighlight({ selected: S.selected });
});

const my = perViewer(() => ({ outlineGeneration: 0 }));
/** Outlines the box of the selected call path in the flame graph (every box of the selected
 * function when the selection is no path of the tree the flame graph shows). */
async function outlineSelectedPath() {
  const g = ++my.outlineGeneration;
  const p = S.selectedPath;
  let node = -1;
  if (p && S.loaded && S.table && p.inverted === S.bottomUp) {
    node = (await call("treeNodeOfPath", { mode: S.bottomUp ? 1 : 0, frames: p.frames }).catch(() => ({ node: -1 }))).node;
  }
  if (g === my.outlineGeneration) mainView.setHighlight({ selectedNode: node });
}
on("selected", outlineSelectedPath);
on("analysis", outlineSelectedPath);
on("bottomUp", outlineSelectedPath);
on("search", () => {
  for (const v of allViews) v.setHighlight({ flags: S.flags });
});
on("theme", () => {
  for (const v of allViews) v.themeChanged();
});
