// Compare mode's numbers as text: changes, the function-table columns and the tooltip rows
// of a comparison. Pure (no DOM): the worker computes everything, views/compare.js shows it.
import { formatValue, percent } from "./format.js";

/** `+1.20 ms`, `-3.00 ms`, `0`. */
export function formatDelta(v, unit) {
  if (v === 0) return "0";
  return (v > 0 ? "+" : "") + formatValue(v, unit);
}

/**
 * `next - base`, or 0 when that is below the rounding noise of normalization (a billionth of
 * the values): a comparison scaled to the baseline's total must show no change for the root.
 */
export function change(base, next) {
  const d = next - base;
  return Math.abs(d) <= 1e-9 * Math.max(Math.abs(base), Math.abs(next)) ? 0 : d;
}

/** Change from `base` to `next` relative to `base`: `+36.7%`, `new`, `gone`, `–` when both are 0. */
export function formatRelative(base, next) {
  if (base === 0 && next === 0) return "–";
  if (base === 0) return "new";
  if (next === 0) return "gone";
  const p = (100 * change(base, next)) / base;
  if (p === 0) return "0%";
  return `${p > 0 ? "+" : ""}${p.toFixed(Math.abs(p) >= 10 ? 1 : 2)}%`;
}

/** `change` per frame id. */
function deltas(base, next) {
  return next.map((v, i) => change(base[i], v));
}

/** Relative change per frame id for sorting: something new sorts above any finite change. */
function relatives(base, next) {
  return next.map((v, i) => (base[i] ? change(base[i], v) / base[i] : v ? Infinity : 0));
}

/** The column sorted by when a comparison's table first shows: Δ self, largest regression first. */
export const COMPARE_SORT = "deltaSelf";

/**
 * Columns (see table.js) of a comparison's function table `t` = {baseSelf, baseTotal, newSelf,
 * newTotal}, Float64Arrays per frame id. Δ self and Δ total sort as `proftab diff` does.
 */
export function compareColumns(t, unit) {
  const dSelf = deltas(t.baseSelf, t.newSelf);
  const dTotal = deltas(t.baseTotal, t.newTotal);
  const relSelf = relatives(t.baseSelf, t.newSelf);
  const value = (col) => (i) => formatValue(col[i], unit);
  const delta = (col) => (i) => formatDelta(col[i], unit);
  const col = (key, label, title, cls, text, sort) => ({ key, label, title, cls, text, sort });
  return [
    col("baseSelf", "Base self", "Self value in the baseline", "num", value(t.baseSelf), [t.baseSelf, t.baseTotal]),
    col("newSelf", "New self", "Self value in the comparison", "num", value(t.newSelf), [t.newSelf, t.newTotal]),
    col("deltaSelf", "Δ self", "Change of the self value (comparison − baseline)", "num", delta(dSelf), [dSelf, dTotal]),
    col("relSelf", "Δ%", "Δ self relative to the baseline", "pct", (i) => formatRelative(t.baseSelf[i], t.newSelf[i]), [relSelf, dSelf]),
    col("baseTotal", "Base total", "Total value in the baseline", "num", value(t.baseTotal), [t.baseTotal, t.baseSelf]),
    col("newTotal", "New total", "Total value in the comparison", "num", value(t.newTotal), [t.newTotal, t.newSelf]),
    col("deltaTotal", "Δ total", "Change of the total value (comparison − baseline)", "num", delta(dTotal), [dTotal, dSelf]),
    { key: "name", label: "Function", cls: "name" },
  ];
}

/** Whether frame `i` has a row in a comparison's table `t`. */
export function compareInclude(t) {
  return (i) => t.baseTotal[i] !== 0 || t.newTotal[i] !== 0 || t.baseSelf[i] !== 0 || t.newSelf[i] !== 0;
}

/**
 * Tooltip rows `[label, value, note]` for a box of the differential flame graph with totals
 * `base` and `next`, and for its function when `t` (the table) and `frame` are given.
 */
export function compareTooltipRows({ base, next, summary, unit, t, frame }) {
  const scaled = summary.scale !== 1 ? ` (×${summary.scale.toPrecision(4)})` : "";
  const rows = [
    ["Baseline", formatValue(base, unit), percent(base, summary.baseTotal)],
    ["Comparison", formatValue(next, unit), `${percent(next, summary.newTotal)}${scaled}`],
    ["Change", formatDelta(change(base, next), unit), formatRelative(base, next)],
  ];
  if (t && frame >= 0) {
    for (const [label, b, n] of [
      ["self", t.baseSelf, t.newSelf],
      ["total", t.baseTotal, t.newTotal],
    ]) {
      const text = `${formatValue(b[frame], unit)} → ${formatValue(n[frame], unit)}`;
      rows.push([`Function ${label}`, text, formatRelative(b[frame], n[frame])]);
    }
  }
  return rows;
}
