// The SQL tab in headless Chromium: DuckDB-wasm loads (from the page's origin only) when the tab
// opens, runs a query over the shown profile's tables, shows the answer as a sortable table and
// an SQL error as text; "Show as flame graph" filters every view to the samples the answer
// names, and the filtered total equals the count made here, in Node, from the npm package's
// columns of the same file. Also Export → Parquet: a zip DuckDB (Python) reads.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { NO_INDEX, Profile } from "../../js/node.mjs";
import { dropFiles, ROOT, screenshot } from "./harness.mjs";
import { drawn, file, RPROF_MEMORY, readyPage, session } from "./viewer-page.mjs";

/** A function on some samples' stacks but not all, and the value of the default type of the
 * samples whose stack holds it (counted from the stack table, not through SQL). */
function functionOnSomeStacks(bytes) {
  const p = Profile.parse(bytes, "memory.out");
  const info = p.info();
  const values = p.values(info.defaultValueType);
  const [sampleStack, prefix, location, fn, name, strings] = [
    p.sampleStack(),
    p.stackPrefix(),
    p.stackLocation(),
    p.locationFunction(),
    p.functionName(),
    p.strings(),
  ];
  const onStack = new Map();
  sampleStack.forEach((leaf, s) => {
    const names = new Set();
    for (let node = leaf; node !== NO_INDEX; node = prefix[node]) {
      const f = fn[location[node]];
      if (f !== NO_INDEX) names.add(strings[name[f]]);
    }
    for (const n of names) {
      const e = onStack.get(n) ?? { samples: 0, value: 0 };
      e.samples++;
      e.value += Number.isNaN(values[s]) ? 0 : values[s];
      onStack.set(n, e);
    }
  });
  const n = p.numSamples;
  p.free();
  const [chosen, e] = [...onStack].filter(([, e]) => e.samples > 1 && e.samples < n).sort((a, b) => (a[0] < b[0] ? -1 : 1))[0];
  return { name: chosen, samples: e.samples, value: e.value };
}

const totals = (page) => page.evaluate(() => window.__proftab.state.totals.slice());

test("a query in the SQL tab filters the flame graph to the samples it returns", async () => {
  const bytes = fs.readFileSync(RPROF_MEMORY);
  const want = functionOnSomeStacks(bytes);
  const { page, problems } = await readyPage();
  const origins = new Set();
  session.browser.context.on("request", (r) => origins.add(new URL(r.url()).origin));
  await dropFiles(page, "body", [file(RPROF_MEMORY)]);
  await drawn(page);
  const [all] = await totals(page);

  await page.click("#sql-tab");
  // Opening the tab starts DuckDB and registers the tables; the first example is in the box.
  await page.waitForFunction(() => document.getElementById("sql-examples").options.length > 1, null, { timeout: 120000 });
  assert.match(await page.inputValue("#sql-query"), /SELECT f\.name, sum\(v\.value\) AS self/);

  // An SQL error is text, and the tab still works after it.
  await page.fill("#sql-query", "SELECT nope FROM samples");
  await page.click("#sql-run");
  await page.waitForSelector("#sql-error:not([hidden])");
  assert.match(await page.textContent("#sql-error"), /nope/);

  // The top functions example: a sortable table.
  await page.selectOption("#sql-examples", "0");
  await page.click("#sql-run");
  await page.waitForSelector("#sql-results tbody tr");
  assert.equal(await page.isHidden("#sql-error"), true);
  const selfOf = () => page.$$eval("#sql-results tbody tr", (rows) => rows.map((r) => Number(r.children[1].textContent)));
  const before = await selfOf();
  assert.deepEqual(
    before,
    [...before].sort((a, b) => b - a),
    "ORDER BY self DESC",
  );
  await page.click("#sql-results th:nth-child(2) button");
  await page.click("#sql-results th:nth-child(2) button");
  assert.equal(await page.getAttribute("#sql-results th:nth-child(2)", "aria-sort"), "ascending");
  assert.deepEqual(
    await selfOf(),
    [...before].sort((a, b) => a - b),
  );
  assert.equal(await page.isDisabled("#sql-flame"), true, "no sample_id column");

  // DuckDB may reach nothing beyond the page: loading an extension or reading a URL fails.
  for (const sql of ["LOAD httpfs", "SELECT * FROM read_csv('http://127.0.0.2:9/x.csv')", "SET enable_external_access = true"]) {
    await page.fill("#sql-query", sql);
    await page.click("#sql-run");
    await page.waitForFunction(() => !document.getElementById("sql-run").disabled);
    assert.equal(await page.isVisible("#sql-error"), true, `${sql}: ${await page.textContent("#sql-status")}`);
    await page.fill("#sql-query", "SELECT 1 AS one");
    await page.click("#sql-run");
    await page.waitForSelector("#sql-error", { state: "hidden" });
  }

  // The samples through one function, as a flame graph.
  const name = want.name.replaceAll("'", "''");
  await page.fill(
    "#sql-query",
    `SELECT DISTINCT sl.sample_id FROM sample_locations sl JOIN locations l ON l.location_id = sl.location_id
     JOIN functions f ON f.function_id = l.function_id WHERE f.name = '${name}'`,
  );
  await page.click("#sql-run");
  await page.waitForFunction((n) => document.getElementById("sql-status").textContent.startsWith(`${n} row`), want.samples);
  await page.click("#sql-flame");
  await page.waitForFunction(() => document.querySelector("#chips .chip")?.textContent.startsWith("SQL:"));
  assert.equal(await page.getAttribute("#tabs button[data-view=flame]", "aria-selected"), "true");
  await page.waitForFunction((v) => Math.abs(window.__proftab.state.totals[0] - v) < 1e-6 * Math.max(1, v), want.value);
  const [shown] = await totals(page);
  assert.ok(Math.abs(shown - want.value) <= 1e-6 * Math.max(1, want.value), `${shown} vs ${want.value}`);
  assert.ok(shown < all);
  await screenshot(page, "sql-flame");

  // Removing the chip shows every sample again.
  await page.click("#chips .chip button");
  await page.waitForFunction((v) => window.__proftab.state.totals[0] === v, all);

  // Nothing beyond the page's own origin was asked for.
  assert.deepEqual([...origins], [new URL(session.server.url).origin]);
  assert.deepEqual(problems, []);
});

test("Export → Parquet downloads a zip of the dataset directory that DuckDB reads", async (t) => {
  const { page, problems } = await readyPage();
  await dropFiles(page, "body", [file(RPROF_MEMORY)]);
  await drawn(page);
  const downloaded = page.waitForEvent("download");
  await page.selectOption("#export", "dataset:parquet");
  const d = await downloaded;
  assert.equal(d.suggestedFilename(), "memory-parquet.zip");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proftab-sql-export-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const unzip = spawnSync(
    "python3",
    ["-c", "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])", await d.path(), dir],
    {
      encoding: "utf8",
    },
  );
  assert.equal(unzip.status, 0, unzip.stderr);
  const judge = spawnSync("python3", [path.join(ROOT, "tests/support/columnar_judge.py"), "parquet", path.join(dir, "memory")], {
    encoding: "utf8",
  });
  if (judge.status === 3) return t.skip("python3 with pyarrow and duckdb is missing");
  assert.equal(judge.status, 0, judge.stderr);
  const p = Profile.parse(fs.readFileSync(RPROF_MEMORY), "memory.out");
  const report = JSON.parse(judge.stdout);
  for (const table of p.info().tables) assert.equal(report.tables[table.name], table.rows, table.name);
  p.free();
  assert.deepEqual(problems, []);
});
