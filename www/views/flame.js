// The flame graph view (#main-box): the call tree of the chosen options, or its inversion
// (bottom-up), with breadcrumbs. Owns #main-canvas.
import { perViewer } from "../context.js";
import { $ } from "../dom.js";
import { FlameView } from "../flame.js";
import { flamegraphDrawn, setFlamegraphDrawn } from "../messages.js";
import { markFirstDraw, on, S, scheduleHash } from "../state.js";
import { call } from "../worker-client.js";
import { viewOptions } from "./common.js";
import { clickFlame, registerCrumbs, resetCrumbs } from "./crumbs.js";

export const mainView = perViewer(
  () =>
    new FlameView(
      $("main-canvas"),
      viewOptions({
        query: (vp) => call(S.bottomUp ? "invertedFlame" : "flame", vp),
        onClick: (info) => clickFlame(mainView, info),
        onZoom: () => scheduleHash(),
        onDrawn: () => {
          // Tests and benchmarks wait for this mark of the first drawn flame graph of a load.
          if (!flamegraphDrawn() && S.loaded) {
            setFlamegraphDrawn(true);
            markFirstDraw();
          }
        },
      }),
    ),
);
registerCrumbs("flame", mainView);

on("view", () => {
  $("main-box").hidden = S.view !== "flame" && S.view !== "source";
});
on("toggles", () => {
  mainView.inverted = S.icicle;
  mainView.requestDraw();
});
on("bottomUp", () => {
  resetCrumbs(mainView);
  if (S.loaded) mainView.setDomain(0, S.totals[0]);
});
on("analysis", () => {
  resetCrumbs(mainView);
  mainView.setDomain(0, S.totals[0], false);
});
