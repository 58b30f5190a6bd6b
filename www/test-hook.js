// Read-only hooks for the browser tests and benchmarks: `window.__proftab`. Only the test build
// (dist-test/, made by scripts/build.sh) loads this module; the production dist/ has neither
// this file nor the global. It holds the timings of the last load (state.js's `timings`, so
// `optionsMs` etc. stay live), the state object and views of the active view's boxes, and
// `fault(mode)`, which makes the worker fail (worker-faults.js, also only in dist-test/).
import { NO_NODE } from "./flame.js";
import { frameLabel, S, timings } from "./state.js";
import { activeViews } from "./views/index.js";
import { call } from "./worker-client.js";

const active = () => activeViews()[0];

window.__proftab = Object.assign(timings, {
  state: S,
  // Forces a worker fault ("panic", "oom" or "error", see worker-faults.js); resolves to the
  // error the call failed with ("" when it did not fail).
  fault: (mode) =>
    call("fault", { mode }).then(
      () => "",
      (e) => e.message,
    ),
  drawTimes: () => active().drawTimes.slice(),
  visibleFrames: () => [...active().visibleFrames()].map(frameLabel).sort(),
  viewRange: () => [active().vx0, active().vx1],
  // The active view's highlight: {flags, selected (frame), selectedNode (-1: none)}.
  highlight: () => ({ ...active().highlight }),
  // [name, width] of the boxes at `depth` of the active view's data, widest first.
  rowFrames: (depth) => {
    const d = active().data;
    if (!d || depth > d.maxDepth) return [];
    const out = [];
    for (let i = d.rowStart[depth]; i < d.rowStart[depth + 1]; i++) {
      if (d.b.node[i] !== NO_NODE) out.push([frameLabel(d.b.frame[i]), d.b.width[i]]);
    }
    return out.sort((a, b) => b[1] - a[1]);
  },
});
