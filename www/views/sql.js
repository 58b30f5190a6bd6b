// The SQL tab (#sql-pane, built here inside #graph-pane): SQL over the shown profile's tables
// with DuckDB-wasm (sql/engine.js), loaded when the tab first opens. The worker hands the
// tables over as Arrow IPC (worker-columnar.js); a query's answer is a sortable table
// (sql/results.js), its error shown as text; an answer with a `sample_id` column can filter
// every view to those samples ("Show as flame graph": a removable chip, applied in wasm).
// Owns #sql-pane and everything in it.
import { onViewer, perViewer } from "../context.js";
import { $ } from "../dom.js";
import { registerTables, runQuery } from "../sql/engine.js";
import { examples } from "../sql/examples.js";
import { renderRows, rowsOf, sampleIdsOf } from "../sql/results.js";
import { chooseSamples, frameLabel, on, S, setView } from "../state.js";
import { call } from "../worker-client.js";

const PANE = `
  <div id="sql-bar">
    <select id="sql-examples" title="Example queries for this profile"></select>
    <button type="button" id="sql-run" title="Run the query (Ctrl+Enter)">Run</button>
    <button type="button" id="sql-flame" disabled title="Show only the samples whose sample_id the answer holds, in every view">Show as flame graph</button>
    <span id="sql-status" role="status"></span>
  </div>
  <textarea id="sql-query" spellcheck="false" aria-label="SQL query" rows="7"></textarea>
  <pre id="sql-error" role="alert" hidden></pre>
  <div id="sql-scroll"><table id="sql-results" aria-label="Query answer"><thead></thead><tbody></tbody></table></div>`;

// Per viewer: the tables registered in its DuckDB and the profile (S.info) they are of, the
// last answer, its sort and the number of the latest query run.
const my = perViewer(() => ({
  registered: [],
  registeredFor: null,
  answer: null,
  sort: { column: -1, descending: true },
  running: 0,
}));

function status(text) {
  $("sql-status").textContent = text;
}

function showError(text) {
  $("sql-error").textContent = text;
  $("sql-error").hidden = !text;
}

/** The shown profile's tables in DuckDB (again after another profile was loaded). */
async function ensureTables() {
  if (my.registeredFor === S.info) return;
  status("Loading DuckDB and the profile's tables…");
  const info = S.info;
  const tables = await call("arrowTables");
  await registerTables(tables, my.registered);
  my.registered = Object.keys(tables);
  my.registeredFor = info;
}

async function run() {
  const sql = $("sql-query").value;
  const mine = ++my.running;
  showError("");
  $("sql-run").disabled = true;
  const t0 = performance.now();
  try {
    await ensureTables();
    status("Running…");
    const result = await runQuery(sql);
    if (mine !== my.running) return;
    my.answer = { sql, result, data: rowsOf(result) };
    my.sort = { column: -1, descending: true };
    draw();
    const n = result.numRows.toLocaleString("en-US");
    const shown =
      my.answer.data.rows.length < result.numRows ? ` (the first ${my.answer.data.rows.length.toLocaleString("en-US")} shown)` : "";
    status(`${n} row${result.numRows === 1 ? "" : "s"}${shown} in ${Math.round(performance.now() - t0)} ms`);
  } catch (e) {
    if (mine !== my.running) return;
    my.answer = null;
    draw();
    status("");
    showError(e instanceof Error ? e.message : String(e));
  } finally {
    if (mine === my.running) $("sql-run").disabled = false;
  }
}

function draw() {
  const table = $("sql-results");
  const answer = my.answer;
  if (!answer) {
    table.tHead.replaceChildren();
    table.tBodies[0].replaceChildren();
  } else {
    renderRows(table, answer.data, my.sort, (column) => {
      my.sort = { column, descending: my.sort.column === column ? !my.sort.descending : true };
      draw();
    });
  }
  $("sql-flame").disabled = !answer?.data.names.some((n) => n.toLowerCase() === "sample_id");
}

function showAsFlameGraph() {
  const answer = my.answer;
  if (!answer) return;
  let ids;
  try {
    ids = sampleIdsOf(answer.result, S.info.samples);
  } catch (e) {
    showError(e.message);
    return;
  }
  chooseSamples(ids, answer.sql);
  setView("flame");
}

/** The example queries of the shown profile. */
function fillExamples() {
  const types = S.info.valueTypes;
  const memory = types.find((t) => t.unit === "bytes")?.type ?? null;
  const heaviest = S.table ? S.table.total.reduce((best, v, f) => (f > 0 && v > S.table.total[best] ? f : best), 0) : 0;
  const list = examples({
    type: types[S.vt]?.type ?? "",
    memory,
    name: frameLabel(S.selected >= 0 ? S.selected : heaviest),
    labels: my.registered.includes("sample_labels"),
  });
  const select = $("sql-examples");
  select.replaceChildren(new Option("Examples…", ""), ...list.map(([title], i) => new Option(title, String(i))));
  select.onchange = () => {
    const picked = list[Number(select.value)];
    select.value = "";
    if (!picked) return;
    $("sql-query").value = picked[1];
    $("sql-query").focus();
  };
  if (!$("sql-query").value) $("sql-query").value = list[0][1];
}

onViewer(() => {
  const pane = Object.assign(document.createElement("div"), { id: "sql-pane", hidden: true, innerHTML: PANE });
  $("graph-pane").append(pane);
  $("sql-run").addEventListener("click", run);
  $("sql-flame").addEventListener("click", showAsFlameGraph);
  $("sql-query").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      run();
    }
    e.stopPropagation();
  });
});

/** Opening the tab starts DuckDB with the shown profile's tables, then offers the examples. */
async function open() {
  if (S.view !== "sql" || !S.loaded) return;
  try {
    await ensureTables();
    status("");
  } catch (e) {
    status("");
    showError(`DuckDB could not start: ${e instanceof Error ? e.message : String(e)}`);
  }
  fillExamples();
}

on("view", () => {
  $("sql-pane").hidden = S.view !== "sql";
  open();
});
on("profile", () => {
  my.answer = null;
  draw();
  showError("");
  status("");
  open();
});
