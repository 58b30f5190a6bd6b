// The Source view (#source-pane, above the flame graph): one of the profile's files, each line
// with its self and total in every value type (the worker's `source` answer, under the current
// filter and transforms), a heat bar, hot lines highlighted, "next hot line" (button, key n /
// Shift+n), a toggle to hide lines without cost and a file picker with the files' totals. The
// text comes from the source files the user dropped (sources.js); without it the lines with a
// cost are listed and the note says which file to drop. Clicking a line outlines the functions
// at that line in the flame graph. Owns #source-pane.
import { bound, perViewer } from "../context.js";
import { $, focused, frame, onKeydown, option } from "../dom.js";
import { formatValue, percent } from "../format.js";
import { onSources, sourceFor } from "../sources.js";
import { frameLabel, on, S, setSourceFile, setSourceLine } from "../state.js";
import { call } from "../worker-client.js";
import { mainView } from "./flame.js";

/** A line is hot when its self is at least this share of the file's hottest line's self. */
const HOT_SHARE = 0.1;

/** The current viewer's tab: the worker's answer, the toggle, the answers' generation, the rows drawn. */
const my = perViewer(() => ({ data: null, onlyCost: false, generation: 0, shownWindow: null, scrollQueued: false }));

/** The profile's file to show: the chosen one, else the selected function's ("" = the hottest). */
function wantedFile() {
  if (S.sourceFile) return S.sourceFile;
  return S.selected >= 0 ? S.frames.files[S.selected] || "" : "";
}

/** Asks the worker for the file's lines, then draws them. */
export async function refreshSource() {
  if (S.view !== "source" || !S.loaded || !S.table) return;
  const g = ++my.generation;
  let r = await call("source", { file: wantedFile() });
  // By default the hottest file: the most self value (the worker orders by total, which
  // favours the file of the outermost frames).
  const hottest = wantedFile() ? -1 : hottestFile(r);
  if (hottest >= 0 && hottest !== r.file && g === my.generation) r = await call("source", { file: r.files[hottest] });
  if (g !== my.generation) return;
  my.data = r;
  render();
}

/** The file with the most self value in the chosen type (-1 for none). */
function hottestFile(r) {
  const n = r.files.length;
  let best = -1;
  for (let i = 0; i < n; i++) if (best < 0 || r.fileSelf[S.vt * n + i] > r.fileSelf[S.vt * n + best]) best = i;
  return best;
}

/** Value of type `t` of row `i` of a by-type column of `n` rows. */
const at = (col, t, n, i) => col[t * n + i];

function fillPicker() {
  const n = my.data.files.length;
  const vt = S.vt;
  const u = S.info.valueTypes[vt]?.unit || "";
  const grand = my.data.totals[vt];
  const items = my.data.files.map((name, i) => {
    const t = at(my.data.fileTotal, vt, n, i);
    return option(name, `${name || "<unknown file>"} — ${formatValue(t, u)} (${percent(t, grand)})`);
  });
  $("source-file").replaceChildren(...items);
  $("source-file").disabled = n === 0;
  if (my.data.file >= 0) $("source-file").value = my.data.files[my.data.file];
}

/** The rows to show: every line of the text (or, without it, each line with a cost). */
function rowsOf(text, costOf) {
  const lines = text === null ? [] : text.split(/\r?\n/);
  if (lines.length && lines[lines.length - 1] === "") lines.pop();
  const numbers = text === null ? [...my.data.lines] : lines.map((_, i) => i + 1);
  for (const l of my.data.lines) if (l > numbers.length && text !== null) numbers.push(l);
  return numbers.filter((l) => !my.onlyCost || costOf.has(l)).map((l) => ({ line: l, text: lines[l - 1] }));
}

function header(types) {
  const top = document.createElement("tr");
  const sub = document.createElement("tr");
  const th = (text, cls, span = 1, rows = 1) => {
    const c = document.createElement("th");
    c.textContent = text;
    c.scope = "col";
    if (cls) c.className = cls;
    if (span > 1) c.colSpan = span;
    if (rows > 1) c.rowSpan = rows;
    return c;
  };
  top.append(th("Line", "num", 1, 2), th(my.data.text === null ? "Functions at the line" : "Source", "code", 1, 2), th("", "heat", 1, 2));
  for (const t of types) {
    top.append(th(t.type, t.index === S.vt ? "vt chosen" : "vt", 2));
    sub.append(th("self", "num"), th("total", "num"));
  }
  return [top, sub];
}

function render() {
  fillPicker();
  const pane = $("source-table");
  // The chosen value type's columns first, then the others in the profile's order.
  const types = S.info.valueTypes.map((t, index) => ({ ...t, index })).sort((a, b) => (b.index === S.vt) - (a.index === S.vt));
  const file = my.data.file >= 0 ? my.data.files[my.data.file] : "";
  const src = file ? sourceFor(file) : null;
  my.data.text = src?.text ?? null;
  const n = my.data.lines.length;
  const costOf = new Map();
  let maxSelf = 0;
  let maxTotal = 0;
  for (let i = 0; i < n; i++) {
    costOf.set(my.data.lines[i], i);
    maxSelf = Math.max(maxSelf, at(my.data.self, S.vt, n, i));
    maxTotal = Math.max(maxTotal, at(my.data.total, S.vt, n, i));
  }
  my.data.costOf = costOf;
  my.data.hot = [...costOf.values()]
    .filter((i) => at(my.data.self, S.vt, n, i) > 0)
    .sort(
      (a, b) =>
        at(my.data.self, S.vt, n, b) - at(my.data.self, S.vt, n, a) ||
        at(my.data.total, S.vt, n, b) - at(my.data.total, S.vt, n, a) ||
        my.data.lines[a] - my.data.lines[b],
    )
    .map((i) => my.data.lines[i]);
  Object.assign(my.data, { types, maxSelf, maxTotal, rows: rowsOf(my.data.text, costOf) });
  my.data.rowOf = new Map(my.data.rows.map((r, k) => [r.line, k]));
  pane.querySelector("thead").replaceChildren(...header(types));
  my.shownWindow = null;
  $("source-scroll").scrollTop = 0;
  drawWindow();
  $("source-next").disabled = my.data.hot.length === 0;
  showNote(file, src);
  markLine(true);
}

/** Rows drawn at once at most; longer files draw the rows in view (fixed row height). */
const ALL_ROWS = 600;
const ROW_H = 18;
const MARGIN = 60;

/** The rows `[a, b)` around the scroll position (all of a short file). */
function rowWindow() {
  const n = my.data.rows.length;
  if (n <= ALL_ROWS) return [0, n];
  const box = $("source-scroll");
  const head = $("source-table").tHead.offsetHeight;
  const first = Math.floor((box.scrollTop - head) / ROW_H);
  const a = Math.max(0, first - MARGIN);
  return [a, Math.min(n, first + Math.ceil(box.clientHeight / ROW_H) + MARGIN)];
}

/** Draws the rows of the window (with spacers standing for the others) when it moved. */
function drawWindow() {
  const [a, b] = rowWindow();
  if (my.shownWindow && my.shownWindow[0] === a && my.shownWindow[1] === b) return;
  my.shownWindow = [a, b];
  const body = document.createElement("tbody");
  const spacer = (rows) => {
    const tr = document.createElement("tr");
    tr.className = "spacer";
    tr.style.height = `${rows * ROW_H}px`;
    return tr;
  };
  if (a > 0) body.append(spacer(a));
  for (let k = a; k < b; k++) body.append(rowElement(my.data.rows[k]));
  if (b < my.data.rows.length) body.append(spacer(my.data.rows.length - b));
  $("source-table").querySelector("tbody").replaceWith(body);
  markLine(false);
}

/** The table row of line `line` (its text `text`). */
function rowElement({ line, text }) {
  const { types, maxSelf, maxTotal } = my.data;
  const n = my.data.lines.length;
  const i = my.data.costOf.get(line);
  const tr = document.createElement("tr");
  tr.dataset.line = String(line);
  tr.setAttribute("aria-selected", String(line === S.sourceLine));
  tr.tabIndex = -1;
  const td = (value, cls) => {
    const c = document.createElement("td");
    c.textContent = value;
    c.className = cls;
    tr.append(c);
    return c;
  };
  td(String(line), "num lineno");
  td(my.data.text === null ? functionsAt(i) : (text ?? ""), "code");
  const heat = td("", "heat");
  if (i === undefined) {
    td("", "num").colSpan = 2 * types.length;
    return tr;
  }
  for (const t of types) {
    const [s, tot] = [at(my.data.self, t.index, n, i), at(my.data.total, t.index, n, i)];
    // The exact values stay in data-value (tests read them; the text is rounded).
    td(s ? formatValue(s, t.unit) : "", "num").dataset.value = String(s);
    td(tot ? formatValue(tot, t.unit) : "", "num").dataset.value = String(tot);
  }
  const self = at(my.data.self, S.vt, n, i);
  const bar = document.createElement("div");
  bar.className = "bar";
  bar.style.width = `${maxTotal ? (100 * at(my.data.total, S.vt, n, i)) / maxTotal : 0}%`;
  heat.append(bar);
  if (maxSelf && self >= HOT_SHARE * maxSelf) tr.classList.add("hot");
  if (self > 0) tr.style.setProperty("--heat", String(maxSelf ? self / maxSelf : 0));
  return tr;
}

/** Names of the functions seen at row `i` (without source text). */
function functionsAt(i) {
  return i === undefined ? "" : framesAt(i).map(frameLabel).join(", ");
}

function framesAt(i) {
  return i === undefined ? [] : [...my.data.frames.subarray(my.data.frameStart[i], my.data.frameStart[i + 1])];
}

function showNote(file, src) {
  let text = "";
  if (my.data.file < 0) text = "No sample has a source line (the profile records functions only).";
  else if (src?.ambiguous)
    text = `Ambiguous: several dropped files match ${file} equally well (${src.ambiguous.join(", ")}), so none is shown.`;
  else if (!src) text = `Drop ${file || "the source file"} (or a folder holding it) to see its text.`;
  else if (src.path !== file) text = `Text from ${src.path}.`;
  $("source-note").textContent = text;
}

/**
 * Marks the chosen line (the row keyboard focus goes to; the first row without one), outlines
 * its functions in the flame graph, scrolls to it and, with `focus`, focuses it.
 */
function markLine(scroll, focus = false) {
  const inDom = () => $("source-table").querySelector(`tbody tr[data-line="${S.sourceLine}"]`);
  if (scroll && !inDom()) scrollToLine(S.sourceLine);
  const body = $("source-table").querySelector("tbody");
  for (const tr of body.querySelectorAll('tr[tabindex="0"]')) {
    tr.setAttribute("aria-selected", "false");
    tr.tabIndex = -1;
  }
  const tr = S.sourceLine ? inDom() : null;
  tr?.setAttribute("aria-selected", "true");
  const focusable = tr || body.querySelector("tr[data-line]");
  if (focusable) focusable.tabIndex = 0;
  if (tr && focus) tr.focus({ preventScroll: !scroll });
  const i = my.data?.costOf?.get(S.sourceLine);
  mainView.setHighlight({ outlined: S.view === "source" && i !== undefined ? new Set(framesAt(i)) : null });
  if (tr && scroll) tr.scrollIntoView({ block: "nearest" });
}

/** Scrolls line `line` (when shown) to the middle of the pane, drawing its rows. */
function scrollToLine(line) {
  const k = my.data?.rowOf?.get(line);
  if (k === undefined) return;
  const box = $("source-scroll");
  box.scrollTop = $("source-table").tHead.offsetHeight + k * ROW_H - box.clientHeight / 2;
  drawWindow();
}

/** Chooses the next (or with `back`, the previous) hot line, hottest first. */
export function nextHotLine(back = false) {
  if (!my.data?.hot.length) return;
  const k = my.data.hot.indexOf(S.sourceLine);
  const next = k < 0 ? (back ? my.data.hot.length - 1 : 0) : (k + (back ? -1 : 1) + my.data.hot.length) % my.data.hot.length;
  setSourceLine(my.data.hot[next]);
}

/** Moves the chosen line to the row `step` rows away. */
function moveLine(step) {
  if (!my.data?.rows.length) return;
  const k = my.data.rowOf.get(S.sourceLine);
  setSourceLine(my.data.rows[Math.min(my.data.rows.length - 1, Math.max(0, k === undefined ? 0 : k + step))].line);
}

$("source-scroll").addEventListener("scroll", () => {
  if (my.scrollQueued || !my.data?.rows) return;
  my.scrollQueued = true;
  requestAnimationFrame(
    bound(() => {
      my.scrollQueued = false;
      drawWindow();
    }),
  );
});
$("source-table").addEventListener("click", (e) => {
  const tr = e.target.closest("tbody tr[data-line]");
  if (tr) setSourceLine(Number(tr.dataset.line));
});
$("source-scroll").addEventListener("keydown", (e) => {
  const moves = { ArrowDown: 1, ArrowUp: -1, PageDown: 20, PageUp: -20 };
  if (!(e.key in moves) || e.ctrlKey || e.metaKey || e.altKey) return;
  e.preventDefault();
  e.stopPropagation();
  moveLine(moves[e.key]);
});
onKeydown((e) => {
  const tag = e.target.tagName;
  if (S.view !== "source" || tag === "INPUT" || tag === "SELECT" || e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.key === "n" || e.key === "N") {
    e.preventDefault();
    nextHotLine(e.shiftKey);
  }
});
$("source-next").addEventListener("click", () => nextHotLine(false));
$("source-only-cost").addEventListener("click", () => {
  my.onlyCost = !my.onlyCost;
  $("source-only-cost").setAttribute("aria-pressed", String(my.onlyCost));
  if (my.data) render();
});
$("source-file").addEventListener("change", (e) => setSourceFile(e.target.value));

on("view", () => {
  $("source-pane").hidden = S.view !== "source";
  frame().classList.toggle("sourcing", S.view === "source");
  if (S.view !== "source") mainView.setHighlight({ outlined: null });
});
on("sourceChoice", () => {
  if (S.view !== "source" || !my.data) return;
  const shown = my.data.file >= 0 ? my.data.files[my.data.file] : "";
  if (wantedFile() && wantedFile() !== shown) refreshSource();
  else markLine(true, $("source-pane").contains(focused()));
});
on("selected", () => {
  if (S.view !== "source" || S.sourceFile || !my.data) return;
  // The selected function's file, scrolled to its line.
  refreshSource().then(() => scrollToLine(S.selected >= 0 ? S.frames.lines[S.selected] : 0));
});
onSources(() => {
  if (my.data) render();
});
