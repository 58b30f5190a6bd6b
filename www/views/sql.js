// The SQL tab (#sql-pane, built here inside #graph-pane): SQL over the shown profile's tables
// with DuckDB-wasm (sql/engine.js), loaded when the tab first opens. The worker hands the
// tables over as Arrow IPC (worker-columnar.js); a query's answer is a sortable table
// (sql/results.js), its error shown as text; an answer with a `sample_id` column can filter
// every view to those samples ("Show as flame graph": a removable chip, applied in wasm).
// Owns #sql-pane and everything in it.
import { $ } from "../dom.js";
import { registerTables, runQuery } from "../sql/engine.js";
import { examples } from "../sql/examples.js";
import { renderRows, rowsOf, sampleIdsOf } from "../sql/results.js";
import { chooseSamples, frameLabel, on, S, setView } from "../state.js";
import { call } from "../worker-client.js";

const pane = document.createElement("div");
pane.id = "sql-pane";
pane.hidden = true;
pane.innerHTML = `
  <div id="sql-bar">
    <select id="sql-examples" title="Example queries for this profile"></select>
    <button type="button" id="sql-run" title="Run the query (Ctrl+Enter)">Run</button>
    <button type="button" id="sql-flame" disabled title="Show only the samples whose sample_id the answer holds, in every view">Show as flame graph</button>
    <span id="sql-status" role="status"></span>
  </div>
  <textarea id="sql-query" spellcheck="false" aria-label="SQL query" rows="7"></textarea>
  <pre id="sql-error" role="alert" hidden></pre>
  <div id="sql-scroll"><table id="sql-results" aria-label="Query answer"><thead></thead><tbody></tbody></table></div>`;
$("graph-pane").append(pane);

// The tables registered in DuckDB, and the profile (S.info) they are of.
let registered = [];
let registeredFor = null;
let answer = null;
let sort = { column: -1, descending: true };
let running = 0;

function status(text) {
  $("sql-status").textContent = text;
}

function showError(text) {
  $("sql-error").textContent = text;
  $("sql-error").hidden = !text;
}

/** The shown profile's tables in DuckDB (again after another profile was loaded). */
async function ensureTables() {
  if (registeredFor === S.info) return;
  status("Loading DuckDB and the profile's tables…");
  const info = S.info;
  const tables = await call("arrowTables");
  await registerTables(tables, registered);
  registered = Object.keys(tables);
  registeredFor = info;
}

async function run() {
  const sql = $("sql-query").value;
  const mine = ++running;
  showError("");
  $("sql-run").disabled = true;
  const t0 = performance.now();
  try {
    await ensureTables();
    status("Running…");
    const result = await runQuery(sql);
    if (mine !== running) return;
    answer = { sql, result, data: rowsOf(result) };
    sort = { column: -1, descending: true };
    draw();
    const n = result.numRows.toLocaleString("en-US");
    const shown = answer.data.rows.length < result.numRows ? ` (the first ${answer.data.rows.length.toLocaleString("en-US")} shown)` : "";
    status(`${n} row${result.numRows === 1 ? "" : "s"}${shown} in ${Math.round(performance.now() - t0)} ms`);
  } catch (e) {
    if (mine !== running) return;
    answer = null;
    draw();
    status("");
    showError(e instanceof Error ? e.message : String(e));
  } finally {
    if (mine === running) $("sql-run").disabled = false;
  }
}

function draw() {
  const table = $("sql-results");
  if (!answer) {
    table.tHead.replaceChildren();
    table.tBodies[0].replaceChildren();
  } else {
    renderRows(table, answer.data, sort, (column) => {
      sort = { column, descending: sort.column === column ? !sort.descending : true };
      draw();
    });
  }
  $("sql-flame").disabled = !answer?.data.names.some((n) => n.toLowerCase() === "sample_id");
}

function showAsFlameGraph() {
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
    labels: registered.includes("sample_labels"),
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

$("sql-run").addEventListener("click", run);
$("sql-flame").addEventListener("click", showAsFlameGraph);
$("sql-query").addEventListener("keydown", (e) => {
  if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
    e.preventDefault();
    run();
  }
  e.stopPropagation();
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
  pane.hidden = S.view !== "sql";
  open();
});
on("profile", () => {
  answer = null;
  draw();
  showError("");
  status("");
  open();
});
