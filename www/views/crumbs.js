// The zoom path (#crumbs) of the flame view on screen: the flame graph, or the differential
// one in Compare mode. Views with crumbs register here; each keeps its path in `view.crumbs`
// (the boxes clicked, outermost first).
import { onViewer } from "../context.js";
import { $ } from "../dom.js";
import { NO_NODE } from "../flame.js";
import { frameLabel, on, S, selectFrame } from "../state.js";

const views = {};

/** Registers the FlameView (a per-viewer one, context.js) shown with crumbs when the view is `name`. */
export function registerCrumbs(name, view) {
  views[name] = view;
  onViewer(() => {
    view.crumbs = [];
  });
}

/** The flame view with breadcrumbs on screen (the flame graph or the differential one). */
export function crumbView() {
  return S.view === "compare" ? views.compare : views.flame;
}

/** After a click on a box of a flame view with breadcrumbs: the path to it as crumbs. */
export function clickFlame(view, info) {
  if (info.node === 0) view.crumbs = [];
  else view.crumbs = [...view.ancestorsAt(info.x + info.width / 2, info.depth).filter((b) => b.node !== 0), info];
  renderCrumbs();
  // The selection is the call path of the box (of the bottom-up tree when the flame graph is).
  const path = { frames: view.crumbs.map((c) => c.frame), inverted: view === views.flame && S.bottomUp };
  if (info.node !== NO_NODE && info.node !== 0) selectFrame(info.frame, false, path);
}

/** Steps one crumb back (Escape); false when there was none. */
export function popCrumb() {
  if (S.view !== "flame" && S.view !== "compare") return false;
  const view = crumbView();
  if (!view.crumbs.length) return false;
  view.crumbs.pop();
  renderCrumbs();
  const c = view.crumbs[view.crumbs.length - 1];
  if (c) view.animateTo(c.x, c.x + c.width);
  else view.resetZoom();
  return true;
}

/** Forgets the path of `view` (its data changed) and shows the crumbs again. */
export function resetCrumbs(view) {
  view.crumbs = [];
  renderCrumbs();
}

function crumbButton(text, onClick) {
  const b = document.createElement("button");
  b.textContent = text;
  b.title = text;
  b.addEventListener("click", onClick);
  return b;
}

export function renderCrumbs() {
  const view = crumbView();
  const all = crumbButton("all", () => {
    view.crumbs = [];
    renderCrumbs();
    view.resetZoom();
  });
  all.removeAttribute("title");
  const items = [all];
  view.crumbs.forEach((c, k) => {
    const sep = document.createElement("span");
    sep.className = "sep";
    sep.textContent = "›";
    const b = crumbButton(frameLabel(c.frame), () => {
      view.crumbs = view.crumbs.slice(0, k + 1);
      renderCrumbs();
      view.animateTo(c.x, c.x + c.width);
    });
    items.push(sep, b);
  });
  $("crumbs").replaceChildren(...items);
}

on("view", () => {
  $("crumbs").hidden = S.view !== "flame" && S.view !== "compare";
  renderCrumbs();
});
