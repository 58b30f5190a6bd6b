// The SQL tab's engine: DuckDB-wasm (npm @duckdb/duckdb-wasm, copied into dist/sql/duckdb/ by
// scripts/build.sh), started on the first query only. DuckDB runs in its own Web Worker, so a
// long query never blocks the page; its module, worker and wasm come from the page's own
// origin, and it may not reach anything else (no extension is installed or loaded, no file or
// URL is read: `enable_external_access` is off and the configuration locked). Each viewer of
// the page has its own DuckDB (its tables have the plain names the queries use).
import { current, perViewer, resume } from "../context.js";

// The current viewer's `{started}`: the promise of its engine, null until the first query.
const my = perViewer(() => ({ box: { started: null } }));

/** Where DuckDB's files are: next to this module, or under the viewer's `assets` (element.js). */
function base() {
  const assets = current()?.assets;
  return assets ? new URL("sql/duckdb/", assets) : new URL("./duckdb/", import.meta.url);
}

/** Loads a classic script (apache-arrow's bundle, which sets globalThis.Arrow). */
function loadScript(url) {
  return new Promise((resolve, reject) => {
    const s = document.createElement("script");
    s.src = url;
    s.onload = resolve;
    s.onerror = () => reject(new Error(`${url} could not be loaded`));
    document.head.append(s);
  });
}

async function start() {
  const BASE = base();
  if (!globalThis.Arrow) await loadScript(new URL("arrow.min.js", BASE).href);
  const duckdb = await import(new URL("duckdb-browser.mjs", BASE).href);
  const worker = new Worker(new URL("duckdb-browser-eh.worker.js", BASE));
  const db = new duckdb.AsyncDuckDB(new duckdb.VoidLogger(), worker);
  await db.instantiate(new URL("duckdb-eh.wasm", BASE).href);
  const conn = await db.connect();
  for (const setting of [
    "SET autoinstall_known_extensions = false",
    "SET autoload_known_extensions = false",
    "SET enable_external_access = false",
    "SET lock_configuration = true",
  ]) {
    await conn.query(setting);
  }
  return { db, conn, worker };
}

/** The current viewer's started engine `{db, conn}`; a failed start is tried again on the next call. */
export function engine() {
  const box = my.box;
  box.started ??= start().catch((e) => {
    box.started = null;
    throw e;
  });
  return resume(box.started);
}

/** `name` as a quoted SQL identifier. */
export const ident = (name) => `"${name.replaceAll('"', '""')}"`;

/** `text` as a quoted SQL string literal. */
export const literal = (text) => `'${text.replaceAll("'", "''")}'`;

/** Replaces the registered tables by `tables` ({name: Arrow IPC stream bytes}). */
export async function registerTables(tables, previous) {
  const { conn } = await engine();
  for (const name of previous) await resume(conn.query(`DROP TABLE IF EXISTS ${ident(name)}`));
  for (const [name, bytes] of Object.entries(tables)) {
    await resume(conn.insertArrowFromIPCStream(bytes, { name, create: true }));
  }
}

/** Runs `sql`; resolves to its result (an apache-arrow Table). */
export async function runQuery(sql) {
  const { conn } = await engine();
  return resume(conn.query(sql));
}
