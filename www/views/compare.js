// Compare mode (#compare-box, #compare-bar): the differential flame graph (widths from one
// side, colour from the change of each box) and the bar of its controls — the sources of each
// side, normalization, widths, palette — with the colour legend and the summary line. Owns
// #compare-canvas and everything in #compare-bar; the choices themselves live in S.compare
// and change through state.js's setCompare.
import { DIFF_PALETTES, DIFF_SATURATION, DIFF_STEPS, diffColorIndex, diffColors } from "../colors.js";
import { compareTooltipRows, formatRelative } from "../compare.js";
import { perViewer } from "../context.js";
import { $, $$ } from "../dom.js";
import { FlameView, NO_NODE } from "../flame.js";
import { formatValue } from "../format.js";
import { on, S, scheduleHash, setCompare, unit } from "../state.js";
import { hideTooltip, placeTooltip } from "../tooltip.js";
import { call } from "../worker-client.js";
import { viewOptions } from "./common.js";
import { clickFlame, registerCrumbs, resetCrumbs } from "./crumbs.js";

export const compareView = perViewer(
  () =>
    new FlameView(
      $("compare-canvas"),
      viewOptions({
        query: (vp) => call("compareFlame", vp),
        boxColor: (b, i) => S.diffColors[diffColorIndex(b.base[i], b.new[i])],
        onHover: showCompareTooltip,
        onClick: (info) => clickFlame(compareView, info),
        onZoom: () => scheduleHash(),
      }),
    ),
);
registerCrumbs("compare", compareView);

/** The tooltip of a box of the differential flame graph: both sides and the change. */
function showCompareTooltip(info, ev) {
  const r = S.compare.result;
  const b = compareView.data?.b;
  if (!info || !ev || !r || !b) return hideTooltip();
  const isFrame = info.node !== NO_NODE && info.node !== 0;
  const rows = compareTooltipRows({
    base: b.base[info.index],
    next: b.new[info.index],
    summary: r.summary,
    unit: unit(),
    t: isFrame ? r : null,
    frame: info.frame,
  });
  placeTooltip(info, rows, ev);
}

// ---------------------------------------------------------------- the compare bar

for (const [id, what] of [
  ["compare-norm", "normalized"],
  ["compare-size", "size"],
  ["compare-palette", "palette"],
]) {
  $(id).addEventListener("click", () => setCompare(what));
}

/** Builds one checkbox per source on each side. */
function setSources(sources) {
  for (const side of ["base", "new"]) {
    const boxes = sources.map((s, i) => {
      const label = document.createElement("label");
      const input = document.createElement("input");
      input.type = "checkbox";
      input.value = String(i);
      input.dataset.side = side;
      input.addEventListener("change", () => {
        const picked = [...$(`compare-${side}`).querySelectorAll("input:checked")].map((x) => Number(x.value));
        setCompare("sources", { side, picked });
      });
      const name = document.createElement("span");
      name.textContent = s.uri || `source ${i + 1}`;
      label.title = name.textContent;
      label.append(input, name);
      return label;
    });
    $(`compare-${side}`).replaceChildren(...boxes);
  }
  sync();
}

/** Shows S.compare in the controls. */
function sync() {
  const s = S.compare;
  for (const input of $$("#compare-bar input[type=checkbox]")) {
    input.checked = s[input.dataset.side].includes(Number(input.value));
  }
  $("compare-norm").textContent = s.normalized ? "Normalized" : "Absolute";
  $("compare-size").textContent = s.sizeByBase ? "Width: baseline" : "Width: comparison";
  $("compare-palette").textContent = (DIFF_PALETTES[s.palette] || DIFF_PALETTES.rb).label;
  drawLegend();
}

/**
 * The totals of both sides and the scale applied, as a line of text; under a focus or hides,
 * first what they leave of each side (values, the comparison scaled, and samples) and its change.
 */
function showSummary(summary, unit) {
  const side = (total, samples) => `${formatValue(total, unit)} in ${samples.toLocaleString("en-US")} samples`;
  let text = `Baseline ${side(summary.baseTotal, summary.baseSamples)} · comparison ${side(summary.newTotalRaw, summary.newSamples)}`;
  if (summary.scale !== 1) text += `, scaled ×${summary.scale.toPrecision(4)}`;
  else if (summary.baseTotal) text += ` (${formatRelative(summary.baseTotal, summary.newTotalRaw)})`;
  const changed =
    summary.baseShown !== summary.baseTotal ||
    summary.newShown !== summary.newTotal ||
    summary.baseShownSamples !== summary.baseSamples ||
    summary.newShownSamples !== summary.newSamples;
  if (S.transforms.length && changed) {
    const shown = `Shown: baseline ${side(summary.baseShown, summary.baseShownSamples)} · comparison ${side(summary.newShown, summary.newShownSamples)}`;
    text = `${shown} (${formatRelative(summary.baseShown, summary.newShown)}) — of ${text}`;
  }
  $("compare-summary").textContent = text;
}

/** One cell per colour step, faster on the left. */
function drawLegend() {
  const c = $("compare-legend");
  const colors = diffColors(S.compare.palette, S.dark);
  const dpr = window.devicePixelRatio || 1;
  const cell = 8;
  const w = colors.length * cell;
  const h = 12;
  c.width = w * dpr;
  c.height = h * dpr;
  c.style.width = `${w}px`;
  c.style.height = `${h}px`;
  const ctx = c.getContext("2d");
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  colors.forEach((color, k) => {
    ctx.fillStyle = color;
    ctx.fillRect(k * cell, 0, cell, h);
  });
  const bound = `${Math.round(DIFF_SATURATION * 100)}%`;
  $("compare-faster").textContent = `faster −${bound}`;
  $("compare-slower").textContent = `+${bound} slower`;
  $("compare-legend-box").title =
    `Colour: change of each call path relative to the baseline, in ${DIFF_STEPS} steps per side, ` +
    `full from ±${bound}. New call paths have the full "slower" colour; gone ones have no ` +
    'width in the comparison: use "Width: baseline" to see them (full "faster" colour), or the table.';
}

// ---------------------------------------------------------------- what it depends on

on("profile", () => setSources(S.info.sources));
on("view", () => {
  $("compare-box").hidden = S.view !== "compare";
  $("compare-bar").hidden = S.view !== "compare";
});
on("toggles", () => {
  compareView.inverted = S.icicle;
  compareView.requestDraw();
});
on("theme", drawLegend);
on("compare", sync);
on("palette", () => compareView.requestDraw());
on("compareResult", (error) => {
  const r = S.compare.result;
  if (error) {
    compareView.data = null;
    compareView.requestDraw();
    $("compare-summary").textContent = "";
    return;
  }
  showSummary(r.summary, unit());
  resetCrumbs(compareView);
  compareView.setDomain(0, r.summary.width, false);
});
