// The box tooltip (#tooltip): a box's name, its frame's file and line, and rows of
// `[label, value, note]`. Views give the rows; this module places and fills the element.
import { $ } from "./dom.js";
import { MERGED, NO_NODE } from "./flame.js";
import { formatValue, percent } from "./format.js";
import { frameLabel, S, unit } from "./state.js";

export function hideTooltip() {
  $("tooltip").hidden = true;
}

/**
 * The tooltip of a box of a flame view over the current options: its self and total (or, with
 * `duration`, its length in the time view) and its function's self and total.
 */
export function showTooltip(info, ev, { duration = false } = {}) {
  if (!info || !ev) return hideTooltip();
  const u = unit();
  const all = S.totals[0];
  // With a focus or a filter the view shows part of the profile: give shares of both.
  const whole = S.totals[2];
  const share = (v) => (whole !== all ? `${percent(v, all)} (${percent(v, whole)} of all)` : percent(v, all));
  const rows = [];
  if (info.node === NO_NODE || info.node === 0) {
    rows.push(["Total", formatValue(info.width, u), share(info.width)]);
  } else {
    if (duration) {
      rows.push(["Duration", formatValue(info.width, S.timeIsTime ? "seconds" : u), ""]);
    } else {
      rows.push(["Self", formatValue(info.self, u), share(info.self)]);
      rows.push(["Total", formatValue(info.width, u), share(info.width)]);
    }
    if (S.table) {
      rows.push(["Function self", formatValue(S.table.self[info.frame], u), share(S.table.self[info.frame])]);
      rows.push(["Function total", formatValue(S.table.total[info.frame], u), share(S.table.total[info.frame])]);
    }
  }
  placeTooltip(info, rows, ev);
}

/** The tooltip's title: the frame's name, `all` for the root, or what a merged box holds. */
function boxName(info) {
  const name = document.createElement("div");
  name.className = "name";
  if (info.node === NO_NODE) {
    const mostly = info.frame === MERGED ? "" : `, mostly ${frameLabel(info.frame)}`;
    name.textContent = `${info.count} frames too narrow to show${mostly}`;
  } else name.textContent = info.node === 0 ? "all" : frameLabel(info.frame);
  return name;
}

/** The file and line of a frame's box, when known. */
function fileLine(info) {
  if (info.node === NO_NODE || info.node === 0) return [];
  const file = S.frames.files[info.frame];
  const line = S.frames.lines[info.frame];
  if (!file && !line) return [];
  const f = document.createElement("div");
  f.className = "file";
  f.textContent = `${file || "?"}${line ? `:${line}` : ""}`;
  return [f];
}

/** Fills the tooltip with the box's name, the file of a frame, and `[label, value, note]` rows. */
export function placeTooltip(info, rows, ev) {
  const tip = $("tooltip");
  const t = document.createElement("table");
  for (const row of rows) {
    const tr = document.createElement("tr");
    for (const text of row) {
      const td = document.createElement("td");
      td.textContent = text;
      tr.append(td);
    }
    t.append(tr);
  }
  tip.replaceChildren(boxName(info), ...fileLine(info), t);
  tip.hidden = false;
  const pad = 14;
  const w = tip.offsetWidth;
  const h = tip.offsetHeight;
  let x = ev.clientX + pad;
  let y = ev.clientY + pad;
  if (x + w > window.innerWidth) x = Math.max(0, ev.clientX - w - pad);
  if (y + h > window.innerHeight) y = Math.max(0, ev.clientY - h - pad);
  tip.style.left = `${x}px`;
  tip.style.top = `${y}px`;
}
