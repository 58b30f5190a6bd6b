// End-to-end tests of the Source tab in headless Chromium: an Rprof profile with memory and
// line profiling (tests/fixtures/rprof/combined.out, which names workload.R) dropped with its
// source, the per-line time and memory against R's summaryRprof (combined.by-line.tsv, written
// by by-line-memory.R), next hot line, the line outline in the flame graph, and the profile
// without its source, then the source alone.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { dropFiles, ROOT, screenshot } from "./harness.mjs";
import { drawn, file, pixelSum, readyPage, settled } from "./viewer-page.mjs";

const RPROF = path.join(ROOT, "tests/fixtures/rprof");
const COMBINED = path.join(RPROF, "combined.out");
const WORKLOAD = path.join(RPROF, "workload.R");
const RECORD = path.join(RPROF, "record.R");
const WORKLOAD_LINES = fs.readFileSync(WORKLOAD, "utf8").replace(/\n$/, "").split("\n");

/** R's by.line rows of workload.R: line → {self, total} seconds and mem MiB. */
function rByLine() {
  const rows = fs.readFileSync(path.join(RPROF, "combined.by-line.tsv"), "utf8").trim().split("\n").slice(1);
  const out = new Map();
  for (const row of rows) {
    const [key, self, total, mem] = row.split("\t");
    const m = /^workload\.R#(\d+)$/.exec(key);
    if (m) out.set(Number(m[1]), { self: Number(self), total: Number(total), mem: Number(mem) });
  }
  return out;
}

/** Waits until the Source tab shows rows for the current answer. */
async function sourceShown(page) {
  await page.waitForSelector("#source-table tbody tr", { timeout: 15000 });
  await page.waitForTimeout(200);
}

/**
 * The Source tab's rows: `{line, text, values: {type: [self, total]}}`, exact values from the
 * cells' data-value.
 */
function sourceRows(page) {
  return page.evaluate(() => {
    // The value types in the order of their columns.
    const types = [...document.querySelectorAll("#source-table thead th.vt")].map((th) => th.textContent);
    return [...document.querySelectorAll("#source-table tbody tr")].map((tr) => {
      // Per value type in order, its self and total cells (none on a line without cost).
      const cells = [...tr.querySelectorAll("td[data-value]")];
      const values = {};
      types.forEach((t, k) => {
        values[t] = cells.length ? [Number(cells[2 * k].dataset.value), Number(cells[2 * k + 1].dataset.value)] : [0, 0];
      });
      const text = tr.querySelector("td.code").textContent;
      return { line: Number(tr.dataset.line), text, values, hot: tr.classList.contains("hot") };
    });
  });
}

const round = (x, digits) => Math.round(x * 10 ** digits) / 10 ** digits;

/** A page at 1,280 × 800 with `files` dropped, on the Source tab. */
async function sourceTabOf(files) {
  const { page, problems } = await readyPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  await dropFiles(page, "body", files);
  await drawn(page);
  await page.click("#source-tab");
  await sourceShown(page);
  return { page, problems };
}

test("source tab: lines of workload.R with time and memory as summaryRprof, next hot line, outline", async () => {
  const { page, problems } = await sourceTabOf([file(COMBINED), file(WORKLOAD), file(RECORD)]);
  assert.equal(await page.getAttribute("#source-tab", "role"), "tab");
  assert.equal(await page.getAttribute("#source-tab", "aria-selected"), "true");
  assert.equal(await page.$eval("#source-file", (s) => s.value), "workload.R");
  assert.equal(await page.textContent("#source-note"), "");
  const rows = await sourceRows(page);
  assert.equal(rows.length, WORKLOAD_LINES.length, "one row per line of the file");
  for (const [i, r] of rows.entries()) assert.equal(r.text, WORKLOAD_LINES[i], `line ${i + 1}`);
  // Every line R lists: time in seconds (2 decimals as R rounds) and memory in MiB (1 decimal).
  const judge = rByLine();
  assert.ok(judge.size >= 10);
  for (const [line, want] of judge) {
    const got = rows[line - 1].values;
    assert.equal(round(got.time[0] / 1e9, 2), want.self, `line ${line} self time`);
    assert.equal(round(got.time[1] / 1e9, 2), want.total, `line ${line} total time`);
    assert.equal(round(got.memory_increase[1] / 2 ** 20, 1), want.mem, `line ${line} memory`);
  }
  // Memory freed per line (profvis's measure, judged against profvis in tests/rprof_profvis.rs)
  // is a column of its own.
  assert.ok(
    rows.some((r) => r.values.memory_freed?.[1] > 0),
    "some line frees memory",
  );
  // …and no other line has a cost.
  for (const r of rows) if (!judge.has(r.line)) assert.deepEqual(r.values.time, [0, 0], `line ${r.line}`);
  // Next hot line: the hottest by self time first, then the next.
  const bySelf = [...judge].sort((a, b) => b[1].self - a[1].self);
  const before = await pixelSum(page, "#main-canvas");
  await page.click("#source-next");
  await page.waitForFunction(() => window.__proftab.state.sourceLine > 0);
  const hottest = await page.evaluate(() => window.__proftab.state.sourceLine);
  assert.equal(hottest, bySelf[0][0]);
  const row = await page.$eval(`#source-table tr[data-line="${hottest}"]`, (tr) => [tr.getAttribute("aria-selected"), tr.textContent]);
  assert.equal(row[0], "true");
  assert.ok(row[1].includes(WORKLOAD_LINES[hottest - 1].trim()), row[1]);
  assert.ok(row[1].includes("1.18 s"), `the hottest line's time: ${row[1]}`);
  assert.ok(rows[hottest - 1].hot);
  // The functions at the line are outlined in the flame graph.
  await page.waitForTimeout(300);
  assert.notEqual(await pixelSum(page, "#main-canvas"), before, "clicking a line outlines its functions");
  assert.match(await page.evaluate(() => location.hash), new RegExp(`view=source.*line=${hottest}`));
  await page.keyboard.press("n");
  await page.waitForFunction((h) => window.__proftab.state.sourceLine !== h, hottest);
  assert.equal(await page.evaluate(() => window.__proftab.state.sourceLine), bySelf[1][0]);
  // Arrow keys move the chosen line.
  await page.focus(`#source-table tr[data-line="${bySelf[1][0]}"]`);
  await page.keyboard.press("ArrowDown");
  await page.waitForFunction((l) => window.__proftab.state.sourceLine === l + 1, bySelf[1][0]);
  // Only the lines with a cost.
  await page.click("#source-only-cost");
  await page.waitForTimeout(200);
  const costly = await sourceRows(page);
  assert.deepEqual(
    costly.map((r) => r.line),
    [...judge.keys()].sort((a, b) => a - b),
  );
  await page.click("#source-only-cost");
  // The screenshot with memory as the value type: its columns first, then time.
  await page.selectOption("#value-type", { label: "memory_increase (bytes)" });
  await page.waitForFunction(() => document.querySelector("#source-table thead th.vt")?.textContent === "memory_increase");
  assert.equal(await page.textContent("#source-table thead th.chosen"), "memory_increase");
  await page.click(`#source-table tr[data-line="${hottest}"]`);
  await page.waitForTimeout(400);
  // The README's picture: test-artifacts/source-rprof.png, copied to docs/img/source.png with
  // PROFTAB_DOCS_IMAGES=1 (a plain test run leaves the repository as it is).
  const shot = await screenshot(page, "source-rprof");
  if (process.env.PROFTAB_DOCS_IMAGES === "1") fs.copyFileSync(shot, path.join(ROOT, "docs/img/source.png"));
  assert.deepEqual(problems, []);
});

test("source tab without the source lists the lines and names the file; the .R alone later fills it", async () => {
  const { page, problems } = await sourceTabOf([file(COMBINED)]);
  assert.match(await page.textContent("#source-note"), /^Drop workload\.R /);
  const rows = await sourceRows(page);
  const judge = rByLine();
  assert.deepEqual(
    rows.map((r) => r.line),
    [...judge.keys()].sort((a, b) => a - b),
  );
  // Without text, a row names the functions at its line.
  const hottest = [...judge].sort((a, b) => b[1].self - a[1].self)[0][0];
  assert.ok(rows.find((r) => r.line === hottest).text.length > 0);
  // Dropping the source alone keeps the profile and shows the text.
  await dropFiles(page, "body", [file(WORKLOAD)]);
  await settled(page);
  await page.waitForFunction((n) => document.querySelectorAll("#source-table tbody tr").length === n, WORKLOAD_LINES.length);
  assert.equal(await page.isHidden("#error"), true);
  assert.equal(await page.textContent("#source-note"), "");
  await screenshot(page, "source-dropped-later");
  assert.deepEqual(problems, []);
});

test("a dropped .R alone is not an error; the profile dropped next finds it", async () => {
  const { page, problems } = await readyPage("#view=source");
  await dropFiles(page, "body", [file(WORKLOAD)]);
  await page.waitForFunction(() => !document.getElementById("sources-kept").hidden);
  assert.equal(await page.isHidden("#error"), true);
  assert.equal(await page.evaluate(() => document.body.dataset.state), "ready");
  assert.match(await page.textContent("#sources-kept"), /^1 source file kept/);
  await dropFiles(page, "body", [file(COMBINED)]);
  await drawn(page);
  await sourceShown(page);
  assert.equal((await sourceRows(page)).length, WORKLOAD_LINES.length);
  assert.deepEqual(problems, []);
});

test("a folder of sources from Add folder…; two equally good matches are called ambiguous", async () => {
  const { page, problems } = await sourceTabOf([file(COMBINED)]);
  assert.match(await page.textContent("#source-note"), /^Drop workload\.R /);
  // The fixtures' folder: only its source files are taken (the .out profiles are not loaded).
  await page.setInputFiles("#source-folder", RPROF);
  await page.waitForFunction((n) => document.querySelectorAll("#source-table tbody tr").length === n, WORKLOAD_LINES.length);
  assert.equal(await page.textContent("#source-note"), "Text from rprof/workload.R.");
  assert.deepEqual(await page.evaluate(() => window.__proftab.state.info.formats), ["rprof"]);
  // The same base name dropped alone matches as well as the folder's copy: ambiguous.
  await dropFiles(page, "body", [file(WORKLOAD)]);
  await page.waitForFunction(() => document.getElementById("source-note").textContent.startsWith("Ambiguous"));
  assert.equal(
    await page.textContent("#source-note"),
    "Ambiguous: several dropped files match workload.R equally well (rprof/workload.R, workload.R), so none is shown.",
  );
  assert.deepEqual(problems, []);
});

test("the Lines table and the Source tab follow transforms: a focus on simulate keeps its lines only", async () => {
  const { page, problems } = await readyPage("#table=lines&focus=simulate");
  await dropFiles(page, "body", [file(COMBINED), file(WORKLOAD)]);
  await drawn(page);
  await page.waitForFunction(() => window.__proftab.state.lines?.labels.length > 0);
  const { lines, shown, kept } = await page.evaluate(() => {
    const { lines: l, totals } = window.__proftab.state;
    const byLabel = Object.fromEntries(l.labels.map((label, i) => [label.split("  ")[0], [l.self[i], l.total[i]]]));
    return { lines: byLabel, shown: totals[0], kept: totals[1] };
  });
  const judge = rByLine();
  // main's line 26 called simulate: above the focus, gone; every focused sample runs line 5.
  assert.ok(shown < kept, `${shown} of ${kept}`);
  assert.equal(lines["workload.R:26"], undefined);
  assert.equal(lines["workload.R:16"], undefined, "string_work is outside the focus");
  assert.equal(lines["workload.R:5"][1], shown);
  assert.equal(round(shown / 1e9, 2), judge.get(26).total);
  await page.click("#source-tab");
  await sourceShown(page);
  const rows = await sourceRows(page);
  assert.deepEqual(rows[25].values.time, [0, 0]);
  assert.deepEqual(rows[4].values.time, lines["workload.R:5"]);
  assert.deepEqual(problems, []);
});
