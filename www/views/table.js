// The function table view (#table-pane): one row per function (or per source line in Lines
// mode, or both sides of a comparison in Compare mode). Owns #functions, #table-filter and
// #table-lines; rows select functions through state.js.
import { COMPARE_SORT, compareColumns, compareInclude } from "../compare.js";
import { perViewer } from "../context.js";
import { $ } from "../dom.js";
import { afterFlamegraphDrawn, flamegraphDrawn, setTableWaits, tableWaits } from "../messages.js";
import { on, S, selectFrame, setLines, setTableMode, unit } from "../state.js";
import { FunctionTable, functionColumns } from "../table.js";
import { call } from "../worker-client.js";

/** "No row" in the worker's index columns. */
const NO_INDEX = 0xffffffff;

export const table = perViewer(
  () =>
    new FunctionTable($("functions"), $("table-filter"), {
      // In lines mode a row stands for a line: select the function of its first frame.
      onSelect: (row) => {
        const frame = S.tableMode === "lines" && S.lines ? S.lines.frame[row] : row;
        if (frame !== NO_INDEX) selectFrame(frame, true);
      },
    }),
);

$("table-lines").addEventListener("click", () => setTableMode(S.tableMode === "lines" ? "functions" : "lines"));

/** Highlights the table row of `frame` (in lines mode, the first line of that function). */
function tableSelect(frame) {
  if (S.tableMode !== "lines" || S.view === "compare") return table.select(frame);
  table.select(S.lines && frame >= 0 ? S.lines.frame.indexOf(frame) : -1);
}

/** The function table of the view (self and total under the current options). */
function showViewTable() {
  $("table-filter").placeholder = S.tableMode === "lines" ? "Filter lines" : "Filter functions";
  if (S.tableMode === "lines") return showLineTable();
  const { self, total } = S.table;
  const columns = functionColumns({ self, total, grand: S.totals[0], unit: unit() });
  table.setData({ names: S.frames.names, columns, include: (i) => self[i] !== 0 || total[i] !== 0, sortKey: "self" });
  if (S.selected >= 0) table.select(S.selected);
}

const my = perViewer(() => ({ linesGeneration: 0 }));
/** Asks for the source-line table under the current value type and sample filter. */
async function showLineTable() {
  const generation = ++my.linesGeneration;
  const r = await call("lines", {});
  if (generation !== my.linesGeneration || S.tableMode !== "lines" || S.view === "compare") return;
  setLines(r);
}

function renderLines() {
  const r = S.lines;
  const columns = functionColumns({ self: r.self, total: r.total, grand: S.totals[1], unit: unit() });
  columns[columns.length - 1] = { ...columns[columns.length - 1], key: "line", label: "Line" };
  table.setData({ names: r.labels, columns, include: (i) => r.self[i] !== 0 || r.total[i] !== 0, sortKey: "self" });
  tableSelect(S.selected);
}

function emptyComparison() {
  const none = new Float64Array(S.frames.names.length);
  return { baseSelf: none, baseTotal: none, newSelf: none, newTotal: none };
}

function showComparison(error) {
  const r = error ? emptyComparison() : S.compare.result;
  const include = error ? () => false : compareInclude(r);
  table.setData({ names: S.frames.names, columns: compareColumns(r, unit()), include, sortKey: COMPARE_SORT });
  if (!error && S.selected >= 0) table.select(S.selected);
}

/**
 * A load's first table waits for its flame graph's first frame. On a cold page the first
 * style, layout and text of a few hundred rows ran before the worker's flame layout reply was
 * taken, and held the graph back. synth-100k, 5 interleaved cold loads each, the page's first
 * draw less its parse and analyse steps: 334–466 ms with the table first, 184–260 ms with the
 * table after. The table follows a task after the graph (40–73 ms after it, measured).
 */
function showTableOfAnalysis() {
  if (S.view !== "flame" || flamegraphDrawn()) return showViewTable();
  if (tableWaits()) return;
  setTableWaits(true);
  afterFlamegraphDrawn(showDeferredTable);
}

/** The table that waited for the graph, unless it was shown meanwhile. */
function showDeferredTable() {
  if (!tableWaits()) return;
  setTableWaits(false);
  if (S.table && S.view !== "compare") showViewTable();
}

on("toggles", () => $("table-lines").setAttribute("aria-pressed", String(S.tableMode === "lines")));
on("analysis", () => {
  if (S.view !== "compare") showTableOfAnalysis();
});
on("view", (was) => {
  // Another view may never draw the flame graph: the table stops waiting for it.
  if (tableWaits()) showDeferredTable();
  else if (was === "compare" && S.view !== "compare" && S.table) showViewTable();
});
on("tableMode", () => {
  if (S.loaded && S.table && S.view !== "compare") showViewTable();
});
on("lines", () => {
  if (S.lines) renderLines();
});
on("selected", () => tableSelect(S.selected));
on("compareResult", showComparison);
