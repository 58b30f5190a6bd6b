// The time-order view (#time-box): samples in recorded order, with a time axis, and the
// button (#range) that keeps only the samples of the visible time range. Owns #time-canvas.
import { perViewer } from "../context.js";
import { $ } from "../dom.js";
import { FlameView, NO_NODE } from "../flame.js";
import { formatValue } from "../format.js";
import { on, S, scheduleHash, selectFrame, setTimeDomain, setTimeRange, unit } from "../state.js";
import { showTooltip } from "../tooltip.js";
import { call } from "../worker-client.js";
import { viewOptions } from "./common.js";

export const timeView = perViewer(
  () =>
    new FlameView(
      $("time-canvas"),
      viewOptions({
        inverted: true,
        firstRow: 1,
        axis: true,
        axisLabel: (x) => formatValue(x, S.timeIsTime ? "seconds" : unit()),
        query: (vp) => call("time", vp),
        onHover: (info, ev) => showTooltip(info, ev, { duration: true }),
        onClick: (info) => info.node !== NO_NODE && selectFrame(info.frame, false),
        onZoom: () => scheduleHash(),
      }),
    ),
);

/** Asks the worker for the time domain once per options; then the view fetches its boxes. */
export async function refreshTime() {
  if (S.timeDomainKnown) return;
  const probe = await call("time", { x0: 0, x1: 0, minWidth: Number.POSITIVE_INFINITY, maxDepth: 0 });
  setTimeDomain(probe.isTime);
  timeView.setDomain(probe.xMin, probe.xMax);
}

function updateRangeButton() {
  const usable = S.loaded && S.view === "time" && S.timeIsTime && S.info.sources.length === 1;
  $("range").hidden = !usable;
}

$("range").addEventListener("click", () => setTimeRange([timeView.vx0, timeView.vx1]));

on("view", () => {
  $("time-box").hidden = S.view !== "time";
  updateRangeButton();
});
on("timeDomain", updateRangeButton);
on("analysis", () => {
  timeView.data = null;
});
