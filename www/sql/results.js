// The SQL tab's result table: the rows of a query's answer (an apache-arrow Table), at most
// MAX_ROWS of them, sortable by any column (click its header; again to reverse).

/** Most rows shown (and sorted); the status says when the answer had more. */
export const MAX_ROWS = 10000;

/** A cell as text: BigInts as integers, nulls empty, everything else as JavaScript prints it. */
function cellText(v) {
  if (v === null || v === undefined) return "";
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : v.toPrecision(6).replace(/\.?0+$/, "");
  return String(v);
}

/** A value for sorting: numbers (and BigInts) as numbers, else text. */
function sortKey(v) {
  if (typeof v === "bigint") return Number(v);
  return v;
}

function compare(a, b) {
  if (a === null || a === undefined) return b === null || b === undefined ? 0 : 1;
  if (b === null || b === undefined) return -1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  return String(a).localeCompare(String(b));
}

/** The first MAX_ROWS rows of `result` as `{names, rows, total}` (rows: arrays of cells). */
export function rowsOf(result) {
  const names = result.schema.fields.map((f) => f.name);
  const columns = names.map((_, i) => result.getChildAt(i));
  const n = Math.min(result.numRows, MAX_ROWS);
  const rows = [];
  for (let r = 0; r < n; r++) rows.push(columns.map((c) => sortKey(c.get(r))));
  return { names, rows, total: result.numRows };
}

/** Draws `data` (from rowsOf) into `table`, sorted by column `sort.column` (-1: as returned). */
export function renderRows(table, data, sort, onSort) {
  const head = document.createElement("tr");
  data.names.forEach((name, i) => {
    const th = document.createElement("th");
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = name + (sort.column === i ? (sort.descending ? " ▾" : " ▴") : "");
    b.title = "Sort by this column (again: reverse)";
    b.addEventListener("click", () => onSort(i));
    th.append(b);
    th.setAttribute("aria-sort", sort.column === i ? (sort.descending ? "descending" : "ascending") : "none");
    head.append(th);
  });
  const rows = data.rows.slice();
  if (sort.column >= 0) {
    const k = sort.column;
    rows.sort((a, b) => (sort.descending ? -1 : 1) * compare(a[k], b[k]));
  }
  const body = document.createElement("tbody");
  for (const row of rows) {
    const tr = document.createElement("tr");
    for (const v of row) {
      const td = document.createElement("td");
      td.textContent = cellText(v);
      if (typeof v === "number") td.className = "num";
      tr.append(td);
    }
    body.append(tr);
  }
  table.tHead.replaceChildren(head);
  table.tBodies[0].replaceWith(body);
}

/** The `sample_id` column of `result` (any case) as sample ids, or null when it has none.
 * Fails on a value that is no integer in 1..`samples`. */
export function sampleIdsOf(result, samples) {
  const i = result.schema.fields.findIndex((f) => f.name.toLowerCase() === "sample_id");
  if (i < 0) return null;
  const column = result.getChildAt(i);
  const ids = [];
  for (let r = 0; r < result.numRows; r++) {
    const v = column.get(r);
    if (v === null || v === undefined) continue;
    const id = Number(v);
    if (!Number.isInteger(id) || id < 1 || id > samples) {
      throw new Error(`sample_id ${String(v)} (row ${r + 1}) is no sample of this profile (1 to ${samples})`);
    }
    ids.push(id);
  }
  return new Uint32Array(ids);
}
