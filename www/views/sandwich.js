// The sandwich view (#sandwich-pane): the callers and the callees of the selected function,
// each an inverted flame graph. Owns #callers-canvas, #callees-canvas and their titles.
import { perViewer } from "../context.js";
import { $ } from "../dom.js";
import { FlameView, NO_NODE } from "../flame.js";
import { frameLabel, on, S, selectFrame } from "../state.js";
import { call } from "../worker-client.js";
import { viewOptions } from "./common.js";

function sandwichView(canvas, side) {
  return new FlameView(
    canvas,
    viewOptions({
      inverted: true,
      firstRow: 1,
      query: (vp) => call("sandwich", { frame: S.selected, side, ...vp }),
      onClick: (info) => info.node !== NO_NODE && info.depth > 1 && selectFrame(info.frame, true),
    }),
  );
}

export const callersView = perViewer(() => sandwichView($("callers-canvas"), 0));
export const calleesView = perViewer(() => sandwichView($("callees-canvas"), 1));

/** Shows the callers and callees of the selected function (or asks for a selection). */
export function refreshSandwich() {
  const f = S.selected;
  const has = f >= 0 && S.table && S.table.total[f] > 0;
  $("callers-title").textContent = has ? `Callers of ${frameLabel(f)}` : "Callers — select a function in the table or a graph";
  $("callees-title").textContent = has ? `Callees of ${frameLabel(f)}` : "Callees";
  for (const v of [callersView, calleesView]) {
    if (has) v.setDomain(0, S.table.total[f]);
    else {
      v.data = null;
      v.requestDraw();
    }
  }
}

on("view", () => {
  $("sandwich-pane").hidden = S.view !== "sandwich";
});
on("selected", (from) => {
  if (S.view === "sandwich" || from === "sandwich") refreshSandwich();
});
