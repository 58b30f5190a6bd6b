// perf.data dropped with its binary (tests/fixtures/perf-data: fp.data and `work`): the
// worker symbolises it with the dropped ELF file, so the function table names work.c's
// functions with the self samples of the committed `perf report --no-children` output; without
// the binary, frames stay `work+0x…` and the symbols message names the missing binary with its
// build-id; the binary dropped afterwards re-symbolises; a binary alone is kept, not an error.
// kernel.data dropped with kern and kallsyms.txt (a /proc/kallsyms text, told by content though
// named as a source file) names its kernel frames as perf report does; without the text the
// symbols message says why kernel frames stay addresses, and dropping it afterwards names them.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { perfReportDifferences, perfReportRows } from "../js/helpers.mjs";
import { dropFiles, ROOT, screenshot } from "./harness.mjs";
import { drawn, file, PPROF, readyPage, tableRows } from "./viewer-page.mjs";

const DIR = path.join(ROOT, "tests/fixtures/perf-data");
const FP = file(path.join(DIR, "fp.data"));
const WORK = file(path.join(DIR, "work"));
const REPORT = perfReportRows(fs.readFileSync(path.join(DIR, "fp.report.txt"), "utf8"));

/** Self samples per function name of the function table (value type `samples`). */
async function selfByName(page) {
  const rows = await tableRows(page, 10000);
  return new Map(rows.map((r) => [r[4], Number(r[0].replace(/,/g, ""))]).filter(([, n]) => n !== 0));
}

test("fp.data dropped with work: the table has perf report's self samples per symbol", async () => {
  const { page, problems } = await readyPage("#type=samples");
  await dropFiles(page, "body", [FP, WORK]);
  await drawn(page);
  const got = await selfByName(page);
  assert.deepEqual(perfReportDifferences(REPORT, got, "work"), []);
  assert.ok(got.has("leaf_spin") && got.has("beta"), [...got.keys()].join(", "));
  const symbols = await page.textContent("#symbols");
  assert.match(symbols, /^Symbols: [1-9]\d* of \d+ frames named from 1 binary \(work dropped\)/);
  assert.doesNotMatch(symbols, /\bwork \(/);
  await screenshot(page, "perfdata-with-binary");
  assert.deepEqual(problems, []);
  await page.close();
});

test("fp.data alone: work+0x… frames, the missing binary named; dropping work then names them", async () => {
  const { page, problems } = await readyPage("#type=samples");
  await dropFiles(page, "body", [FP]);
  await drawn(page);
  const before = await selfByName(page);
  assert.ok(
    [...before.keys()].some((n) => n.startsWith("work+0x")),
    [...before.keys()].join(", "),
  );
  assert.ok(!before.has("leaf_spin"));
  const symbols = await page.textContent("#symbols");
  assert.match(symbols, /drop to name the rest: .*\bwork \([0-9a-f]{40}\)/);
  assert.match(await page.getAttribute("#symbols", "title"), /\/work \([0-9a-f]{40}\)/);
  await screenshot(page, "perfdata-without-binary");
  await dropFiles(page, "body", [WORK]);
  await drawn(page);
  const after = await selfByName(page);
  assert.deepEqual(perfReportDifferences(REPORT, after, "work"), []);
  assert.match(await page.textContent("#symbols"), /work dropped/);
  assert.deepEqual(problems, []);
  await page.close();
});

test("an ELF dropped alone or with a pprof is kept as a binary for symbols, not an unreadable profile", async () => {
  const { page, problems } = await readyPage();
  await dropFiles(page, "body", [WORK]);
  await page.waitForSelector("#sources-kept:not([hidden])", { timeout: 60000 });
  assert.equal(await page.getAttribute("body", "data-state"), "ready");
  assert.equal(await page.isHidden("#error"), true, await page.textContent("#error-text"));
  assert.match(await page.textContent("#sources-kept"), /^work kept as a binary for symbols: drop a perf\.data/);
  await screenshot(page, "perfdata-binary-alone");
  // With a profile of another format: that profile is shown, the binary kept.
  await dropFiles(page, "body", [file(PPROF), WORK]);
  await drawn(page);
  assert.match(await page.textContent("#status"), /· pprof$/);
  assert.match(await page.textContent("#symbols"), /^work kept as a binary for symbols/);
  assert.deepEqual(problems, []);
  await page.close();
});

const KDIR = path.join(DIR, "kernel");
const KERNEL_DATA = file(path.join(KDIR, "kernel.data"));
const KERN = file(path.join(KDIR, "kern"));
const KALLSYMS = file(path.join(KDIR, "kallsyms.txt"));
const KERNEL_REPORT = perfReportRows(fs.readFileSync(path.join(KDIR, "kernel.report.txt"), "utf8"));

test("kernel.data with kern and kallsyms.txt: kernel frames named as perf report names them", async () => {
  const { page, problems } = await readyPage("#type=samples");
  await dropFiles(page, "body", [KERNEL_DATA, KERN]);
  await drawn(page);
  const before = await selfByName(page);
  assert.ok(!before.has("read_zero"));
  assert.match(await page.textContent("#symbols"), /kernel frames: no kallsyms text/);
  await dropFiles(page, "body", [KALLSYMS]);
  await drawn(page);
  const got = await selfByName(page);
  assert.deepEqual(perfReportDifferences(KERNEL_REPORT, got, "[kernel.kallsyms]"), []);
  assert.deepEqual(perfReportDifferences(KERNEL_REPORT, got, "kern"), []);
  const symbols = await page.textContent("#symbols");
  assert.match(symbols, /from 1 binary \(kallsyms\.txt dropped\)/);
  assert.doesNotMatch(symbols, /kernel frames/);
  await screenshot(page, "perfdata-kallsyms");
  assert.deepEqual(problems, []);
  await page.close();
});
