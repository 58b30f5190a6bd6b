// End-to-end tests of the viewer (dist-test/) in headless Chromium: real corpus files loaded by the
// file picker and by drag and drop, what the canvases and the function table show, tooltip,
// search, zoom, value-type switch, export round trip, errors, hostile names, CSP. Compare mode
// is in compare.test.mjs. Screenshots of every view go to test-artifacts/.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { DIST, dropFiles, openPage, ROOT, screenshot, serve } from "./harness.mjs";
import {
  cli,
  drawn,
  FIXTURES,
  file,
  ink,
  PPROF,
  pixelSum,
  RPROF_MEMORY,
  readyPage,
  session,
  settled,
  skip,
  tableRows,
} from "./viewer-page.mjs";

const HOSTILE = "<img src=x onerror=alert(1)>";

test("CSP is strict and the page works from a sub-path", async () => {
  const html = fs.readFileSync(path.join(DIST, "index.html"), "utf8");
  assert.doesNotMatch(html, /(src|href)="\//);
  const { page, problems } = await readyPage();
  const csp = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', "content");
  assert.match(csp, /script-src 'self' 'wasm-unsafe-eval'/);
  assert.doesNotMatch(csp, /'unsafe-inline'|'unsafe-eval'/);
  assert.equal(await page.evaluate(() => typeof window.__proftab), "object");
  await screenshot(page, "viewer-empty");
  assert.deepEqual(problems, []);
  await page.close();
  const parent = await serve(ROOT);
  try {
    const sub = await openPage(session.browser.context, `${parent.url}dist/`);
    await sub.page.waitForSelector("body[data-state=ready]", { timeout: 15000 });
    // The production build has no test hook; the tests' build (dist-test/) has.
    assert.equal(await sub.page.evaluate(() => typeof window.__proftab), "undefined");
    assert.equal(fs.existsSync(path.join(DIST, "test-hook.js")), false);
    assert.deepEqual(sub.problems, []);
    await sub.page.close();
  } finally {
    await parent.close();
  }
});

test("pprof by file picker: flame graph drawn, table equals proftab top", async (t) => {
  const { page, problems } = await readyPage();
  await page.setInputFiles("#file-input", PPROF);
  await drawn(page);
  assert.ok((await ink(page, "#main-canvas")) > 2000, "flame graph canvas is blank");
  const rows = await tableRows(page, 5);
  assert.equal(rows[0][4], "math/big.addVV");
  await screenshot(page, "viewer-flame-pprof");
  assert.deepEqual(problems, []);
  const bin = cli();
  if (!bin) return skip(t, "the proftab CLI is not built (cargo build --release --bin proftab)");
  const top = JSON.parse(execFileSync(bin, ["top", PPROF, "--json"], { encoding: "utf8" }));
  const cliRows = Array.isArray(top) ? top : top.rows || top.functions;
  assert.deepEqual(
    rows.map((r) => r[4]),
    cliRows.slice(0, rows.length).map((r) => r.name),
  );
  await page.close();
});

test("Rprof with memory by drag and drop; value type switch changes the table", async (t) => {
  if (!fs.existsSync(RPROF_MEMORY)) return skip(t, `${RPROF_MEMORY} is missing`);
  const { page, problems } = await readyPage();
  await dropFiles(page, "body", [file(RPROF_MEMORY)]);
  await drawn(page);
  const types = await page.$$eval("#value-type option", (os) => os.map((o) => o.textContent));
  const memory = types.findIndex((t) => /bytes/.test(t));
  assert.ok(memory >= 0, `no memory value type among ${types}`);
  const before = await tableRows(page);
  await page.selectOption("#value-type", String(memory));
  await page.waitForFunction((b) => {
    const first = document.querySelector("#functions tbody tr");
    return first && first.textContent !== b;
  }, before[0].join(""));
  const afterRows = await tableRows(page);
  assert.notDeepEqual(afterRows, before);
  assert.match(afterRows[0][0], /B$/);
  await page.waitForTimeout(200);
  assert.ok((await ink(page, "#main-canvas")) > 1000);
  await screenshot(page, "viewer-flame-rprof-memory");
  // Rprof has sample times: the time-order view offers filtering to the visible range.
  await page.click("#tabs button[data-view=time]");
  await page.waitForSelector("#range:not([hidden])");
  const status = await page.textContent("#status");
  await page.focus("#time-canvas");
  for (let i = 0; i < 3; i++) await page.keyboard.press("+");
  await page.waitForTimeout(400);
  await page.click("#range");
  await page.waitForFunction((s) => document.getElementById("status").textContent !== s, status);
  assert.match(await page.textContent("#chips"), /^time /);
  assert.match(await page.textContent("#status"), /% of all\)/);
  await screenshot(page, "viewer-time-order-rprof");
  assert.deepEqual(problems, []);
  await page.close();
});

test("tooltip, search, zoom and the other views", async (_t) => {
  const { page, problems } = await readyPage();
  await page.setInputFiles("#file-input", PPROF);
  await drawn(page);
  const box = await page.locator("#main-canvas").boundingBox();
  // The row above the root, at the left edge: the widest outermost function.
  await page.mouse.move(box.x + 20, box.y + box.height - 27);
  await page.waitForSelector("#tooltip:not([hidden])");
  const tip = await page.textContent("#tooltip");
  assert.match(tip, /^main\.calculateFib/);
  assert.match(tip, /Total[\d.]+ s9\d\.\d%/);
  await screenshot(page, "viewer-tooltip");
  await page.mouse.move(box.x + box.width + 50, box.y + 5);

  const pixelsBefore = await pixelSum(page, "#main-canvas");
  await page.fill("#search", "runtime");
  await page.waitForFunction(() => /^Matched /.test(document.getElementById("match").textContent));
  await page.waitForTimeout(200);
  assert.match(await page.textContent("#match"), /^Matched \d+(\.\d+)?%$/);
  const flags = await page.evaluate(() => [...window.__proftab.state.flags].filter((f) => f).length);
  assert.ok(flags > 5, `${flags} frames match "runtime"`);
  assert.notEqual(await pixelSum(page, "#main-canvas"), pixelsBefore, "search highlight not drawn");
  await screenshot(page, "viewer-search");
  await page.fill("#search", "");

  const visible = await page.evaluate(() => window.__proftab.visibleFrames());
  await page.focus("#main-canvas");
  for (let i = 0; i < 6; i++) await page.keyboard.press("+");
  await page.waitForTimeout(400);
  const zoomed = await page.evaluate(() => window.__proftab.visibleFrames());
  assert.notDeepEqual(zoomed, visible);
  const [x0, x1] = await page.evaluate(() => window.__proftab.viewRange());
  const total = await page.evaluate(() => window.__proftab.state.totals[0]);
  assert.ok(x1 - x0 < total / 30, "zoom did not narrow the view");
  assert.match(await page.evaluate(() => location.hash), /zoom=/);
  await page.keyboard.press("0");
  await page.waitForTimeout(300);

  await page.click("#tabs button[data-view=time]");
  await page.waitForTimeout(500);
  assert.ok((await ink(page, "#time-canvas")) > 1000);
  await screenshot(page, "viewer-time-order");
  await page.click("#functions tbody tr:nth-child(2)");
  await page.click("#tabs button[data-view=sandwich]");
  assert.equal(await page.isHidden("#range"), true, "pprof has no timestamps: no time range");
  await page.waitForTimeout(500);
  assert.ok((await ink(page, "#callers-canvas")) > 500);
  assert.ok((await ink(page, "#callees-canvas")) > 200);
  await screenshot(page, "viewer-sandwich");
  await page.click("#theme");
  await page.click("#tabs button[data-view=flame]");
  await page.waitForTimeout(300);
  await screenshot(page, "viewer-dark");
  assert.deepEqual(problems, []);
  await page.close();
});

test("clicking a box shows its zoom path; the context menu opens its callers and callees; Escape steps back", async () => {
  const { page, problems } = await readyPage();
  await page.setInputFiles("#file-input", PPROF);
  await drawn(page);
  const box = await page.locator("#main-canvas").boundingBox();
  // The row above the root, at the left edge: the widest outermost function.
  const [x, y] = [box.x + 20, box.y + box.height - 27];
  await page.mouse.click(x, y);
  await page.waitForFunction(() => document.querySelectorAll("#crumbs button").length === 2);
  const name = await page.textContent("#crumbs button:nth-of-type(2)");
  assert.match(name, /^main\.calculateFib/);
  await page.waitForSelector("#functions tbody tr.selected");
  assert.equal(await page.textContent("#functions tbody tr.selected td.name"), name);
  await page.keyboard.press("Escape");
  await page.waitForFunction(() => document.querySelectorAll("#crumbs button").length === 1);
  await page.waitForTimeout(300);
  await page.mouse.click(x, y, { button: "right" });
  await page.waitForSelector("#menu:not([hidden])");
  const items = await page.$$eval("#menu button", (bs) => bs.map((b) => b.textContent));
  assert.deepEqual(items.slice(-2), ["Show callers and callees", "Copy name"]);
  await page.click("#menu button:text('Show callers and callees')");
  assert.equal(await page.isHidden("#menu"), true);
  await page.waitForSelector("#tabs button[data-view=sandwich][aria-selected=true]");
  assert.equal(await page.textContent("#callers-title"), `Callers of ${name}`);
  await page.waitForTimeout(400);
  assert.ok((await ink(page, "#callees-canvas")) > 200);
  await page.focus("#callers-canvas");
  await page.keyboard.press("Escape");
  await page.waitForFunction(() => document.getElementById("callers-title").textContent.startsWith("Callers — select"));
  assert.equal(await page.locator("#functions tbody tr.selected").count(), 0);
  assert.deepEqual(problems, []);
  await page.close();
});

test("export round trip keeps the totals", async (_t) => {
  const { page, problems } = await readyPage();
  await page.setInputFiles("#file-input", PPROF);
  await drawn(page);
  const status = await page.textContent("#status");
  const formats = await page.$$eval("#export option", (os) => os.map((o) => o.value).filter(Boolean));
  const format = formats.includes("pprof") ? "pprof" : formats[0];
  const [download] = await Promise.all([page.waitForEvent("download"), page.selectOption("#export", format)]);
  const saved = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "proftab-export-")), download.suggestedFilename());
  await download.saveAs(saved);
  await page.setInputFiles("#file-input", saved);
  await settled(page);
  await page.waitForFunction(() => document.body.dataset.flamegraphDrawn === "1");
  assert.equal((await page.textContent("#status")).split(" · ")[0], status.split(" · ")[0]);
  const [svg] = await Promise.all([page.waitForEvent("download"), page.selectOption("#export", "svg")]);
  const svgPath = path.join(path.dirname(saved), svg.suggestedFilename());
  await svg.saveAs(svgPath);
  const text = fs.readFileSync(svgPath, "utf8");
  assert.match(text, /^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  assert.match(text, /<text [^>]*>math\/big\.addVV<\/text>/);
  const [png] = await Promise.all([page.waitForEvent("download"), page.selectOption("#export", "png")]);
  const pngPath = path.join(path.dirname(saved), png.suggestedFilename());
  await png.saveAs(pngPath);
  assert.deepEqual([...fs.readFileSync(pngPath).subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
  const bin = cli();
  if (bin) {
    const a = execFileSync(bin, ["info", PPROF], { encoding: "utf8" });
    const b = execFileSync(bin, ["info", saved], { encoding: "utf8" });
    const totals = (s) => s.split("\n").filter((l) => /total/i.test(l));
    assert.deepEqual(totals(b), totals(a));
  } else {
    process.stderr.write("SKIP: proftab info comparison: the CLI is not built\n");
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test("a malformed file shows the reader's error and the next file still loads", async () => {
  const { page, problems } = await readyPage();
  await dropFiles(page, "body", [file(path.join(FIXTURES, "broken.png"))]);
  await settled(page);
  assert.equal(await page.isVisible("#error"), true);
  assert.match(await page.textContent("#error-text"), /broken\.png: .*unrecognized format/);
  await screenshot(page, "viewer-error");
  await dropFiles(page, "body", [file(RPROF_MEMORY)]);
  await drawn(page);
  assert.equal(await page.isHidden("#error"), true);
  assert.deepEqual(problems, []);
  await page.close();
});

test("a long load shows progress and can be cancelled; the page stays usable", async () => {
  const { page, problems } = await readyPage();
  // About 100 MB of Rprof text, made in the page and dropped as a File.
  await page.evaluate(() => {
    const line = '"f" "g" "h" "main" \n'.repeat(1000);
    const parts = ["sample.interval=20000\n"];
    for (let i = 0; i < 5000; i++) parts.push(line);
    const dt = new DataTransfer();
    dt.items.add(new File(parts, "big.out"));
    for (const type of ["dragenter", "dragover", "drop"]) {
      document.body.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
    }
  });
  await page.waitForSelector("#progress:not([hidden])");
  assert.match(await page.textContent("#progress-text"), /^(Reading|Parsing|Building)/);
  await page.click("#cancel");
  await page.waitForSelector("body[data-state=ready]");
  assert.equal(await page.isHidden("#progress"), true);
  await page.setInputFiles("#file-input", RPROF_MEMORY);
  await drawn(page);
  assert.deepEqual(problems, []);
  await page.close();
});

test("reader warnings are counted in the bar and listed on request", async () => {
  const { page, problems } = await readyPage();
  await page.setInputFiles("#file-input", path.join(FIXTURES, "warnings.collapsed"));
  await drawn(page);
  assert.equal(await page.textContent("#warnings"), "⚠ 1 warning");
  await page.click("#warnings");
  assert.match(await page.textContent("#error-text"), /^warnings\.collapsed: collapsed: ignored lines/);
  await page.setInputFiles("#file-input", RPROF_MEMORY);
  await drawn(page);
  assert.equal(await page.isHidden("#warnings"), true);
  assert.deepEqual(problems, []);
  await page.close();
});

test("names that look like markup are shown literally", async () => {
  const { page, problems } = await readyPage();
  await page.setInputFiles("#file-input", path.join(FIXTURES, "xss.out"));
  await drawn(page);
  const names = await page.$$eval("#functions td.name", (tds) => tds.map((td) => td.textContent));
  assert.ok(names.includes(HOSTILE));
  assert.ok(names.includes("<script>alert(2)</script>"));
  assert.equal(await page.locator("img").count(), 0);
  assert.equal(await page.locator("#functions script").count(), 0);
  const box = await page.locator("#main-canvas").boundingBox();
  await page.mouse.move(box.x + 20, box.y + box.height - 45);
  await page.waitForSelector("#tooltip:not([hidden])");
  assert.equal(await page.textContent("#tooltip .name"), HOSTILE);
  assert.equal(await page.locator("#tooltip img").count(), 0);
  // A hostile file name in an error message is text too.
  const name = `${HOSTILE}"'\u202e.txt`;
  await dropFiles(page, "body", [{ name, bytes: new Uint8Array([1, 2, 3]) }]);
  await page.waitForSelector("#error:not([hidden])");
  assert.ok((await page.textContent("#error-text")).startsWith(`${name}: `));
  assert.equal(await page.locator("img").count(), 0);
  assert.deepEqual(problems, []);
  await page.close();
});

test("two files at once are combined, one source each", async (t) => {
  if (!fs.existsSync(RPROF_MEMORY)) return skip(t, `${RPROF_MEMORY} is missing`);
  const { page, problems } = await readyPage();
  await dropFiles(page, "body", [file(RPROF_MEMORY), file(path.join(FIXTURES, "second.out"))]);
  await drawn(page);
  const sources = await page.$$eval("#source option", (os) => os.map((o) => o.textContent));
  assert.deepEqual(sources, ["All sources", "memory.out", "second.out"]);
  const all = await page.textContent("#status");
  await page.selectOption("#source", "1");
  await page.waitForFunction((s) => document.getElementById("status").textContent !== s, all);
  assert.deepEqual(problems, []);
  await page.close();
});

/** Opens the toolbar's view options (order, icicle, bottom-up) when they are closed. */
async function openViewMenu(page) {
  if (await page.isHidden("#view-menu")) await page.click("#view-options");
}

test("view state lives in the URL hash and is restored", async (_t) => {
  const hash = "#view=flame&order=alpha&icicle=1&search=big&focus=math%2Fbig.nat.add";
  const { page, problems } = await readyPage(hash);
  await page.setInputFiles("#file-input", PPROF);
  await drawn(page);
  assert.equal(await page.textContent("#order"), "A → Z");
  assert.equal(await page.textContent("#icicle"), "Icicle ↓");
  assert.equal(await page.textContent("#chips .chip span"), "focus: math/big.nat.add");
  assert.match(await page.textContent("#match"), /^Matched 100(\.0)?%$/);
  // Focused on math/big.nat.add: the shown total is its total, below 100% of all.
  assert.match(await page.textContent("#status"), /\(9\d\.\d+% of all\)/);
  await page.click("#chips .chip button");
  await page.waitForFunction(() => !location.hash.includes("focus="));
  assert.doesNotMatch(await page.textContent("#status"), /of all/);
  await openViewMenu(page);
  await page.click("#icicle");
  await page.waitForFunction(() => !location.hash.includes("icicle="));
  assert.deepEqual(problems, []);
  await page.close();
});

test("the Lines table equals proftab top --by line and lives in the hash", async (t) => {
  const RPROF_LINES = path.join(ROOT, "tests/fixtures/rprof/line.out");
  const bin = cli();
  if (!bin) return skip(t, "the proftab CLI is not built (cargo build --release --bin proftab)");
  const { page, problems } = await readyPage();
  await dropFiles(page, "body", [file(RPROF_LINES)]);
  await drawn(page);
  await page.click("#table-lines");
  await page.waitForFunction(() => /:\d+/.test(document.querySelector("#functions tbody tr td.name")?.textContent ?? ""));
  assert.equal(await page.getAttribute("#table-lines", "aria-pressed"), "true");
  const top = JSON.parse(execFileSync(bin, ["top", "--by", "line", "--json", RPROF_LINES], { encoding: "utf8" }));
  const label = (r) =>
    (r.file === null ? "<no location>" : `${r.file}:${r.line}`) + (r.functions.length ? `  ${r.functions.join(", ")}` : "");
  const rows = await tableRows(page, 1000);
  assert.deepEqual(
    rows.map((r) => r[4]).sort(),
    top.lines
      .filter((r) => r.self || r.total)
      .map(label)
      .sort(),
  );
  // The largest self value is unique here: the same first row, with the same share.
  assert.equal(rows[0][4], label(top.lines[0]));
  assert.equal(rows[0][1], `${((100 * top.lines[0].self) / top.total).toFixed(1)}%`);
  await screenshot(page, "viewer-lines-rprof");
  // A line selects its function in the graphs; the mode is kept in the URL hash.
  await page.click("#functions tbody tr:first-child");
  await page.waitForSelector("#functions tbody tr.selected");
  await page.waitForFunction(() => location.hash.includes("table=lines"));
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]');
  await dropFiles(page, "body", [file(RPROF_LINES)]);
  await drawn(page);
  await page.waitForFunction(() => /:\d+/.test(document.querySelector("#functions tbody tr td.name")?.textContent ?? ""));
  await page.click("#table-lines");
  await page.waitForFunction(() => !/:\d+ /.test(document.querySelector("#functions tbody tr td.name")?.textContent ?? ":1 "));
  assert.equal(await page.getAttribute("#table-filter", "placeholder"), "Filter functions");
  assert.deepEqual(problems, []);
  await page.close();
});

test("hiding every function a pattern matches: one chip, weight kept, restored from the hash", async (_t) => {
  const { page, problems } = await readyPage();
  await page.setInputFiles("#file-input", PPROF);
  await drawn(page);
  const names = async () => (await tableRows(page, 1000)).map((r) => r[4]);
  const before = await names();
  const runtime = before.filter((n) => n.startsWith("runtime."));
  assert.ok(runtime.length > 5, "the profile has runtime functions");
  const status = await page.textContent("#status");
  assert.equal(await page.isHidden("#hide-matches"), true);
  await page.fill("#search", "/^runtime\\./");
  await page.waitForSelector("#hide-matches:not([hidden])");
  await page.click("#hide-matches");
  await page.waitForFunction(() => /^hide: \/\^runtime/.test(document.querySelector("#chips .chip span")?.textContent ?? ""));
  const chip = await page.textContent("#chips .chip span");
  const hiddenCount = Number(chip.match(/\((\d+) functions?\)/)[1]);
  assert.ok(hiddenCount >= runtime.length, chip);
  await page.waitForFunction(
    () => ![...document.querySelectorAll("#functions tbody td.name")].some((td) => td.textContent.startsWith("runtime.")),
  );
  const after = await names();
  // Callers gain the hidden functions' self values, so the order may change, not the set.
  assert.deepEqual([...after].sort(), before.filter((n) => !n.startsWith("runtime.")).sort());
  // Hiding merges into callers: the shown total stays the whole profile.
  assert.equal((await page.textContent("#status")).split(" · ")[0], status.split(" · ")[0]);
  assert.equal(await page.inputValue("#search"), "");
  await page.waitForFunction(() => location.hash.includes("hidematch="));
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]');
  await page.setInputFiles("#file-input", PPROF);
  await drawn(page);
  assert.equal(await page.textContent("#chips .chip span"), chip);
  await page.click("#chips .chip button");
  await page.waitForFunction(() =>
    [...document.querySelectorAll("#functions tbody td.name")].some((td) => td.textContent.startsWith("runtime.")),
  );
  assert.deepEqual(problems, []);
  await page.close();
});

test("bottom-up: the inverted flame graph has each function's self value in its first row", async (_t) => {
  const { page, problems } = await readyPage();
  await page.setInputFiles("#file-input", PPROF);
  await drawn(page);
  const rows = await tableRows(page, 3);
  const topDown = await page.evaluate(() => window.__proftab.rowFrames(1));
  const pixels = await pixelSum(page, "#main-canvas");
  await openViewMenu(page);
  await page.click("#bottom-up");
  await page.waitForFunction((before) => JSON.stringify(window.__proftab.rowFrames(1)) !== before, JSON.stringify(topDown));
  await page.waitForTimeout(250);
  assert.equal(await page.getAttribute("#bottom-up", "aria-pressed"), "true");
  const first = await page.evaluate(() => window.__proftab.rowFrames(1));
  // The widest first-row box is the function with the largest self value, as wide as its self.
  assert.equal(first[0][0], rows[0][4]);
  const share = first[0][1] / (await page.evaluate(() => window.__proftab.state.totals[0]));
  assert.equal(`${(100 * share).toFixed(1)}%`, rows[0][1]);
  assert.notEqual(await pixelSum(page, "#main-canvas"), pixels);
  await page.waitForFunction(() => location.hash.includes("bottomup=1"));
  await screenshot(page, "viewer-bottom-up-pprof");
  await openViewMenu(page);
  await page.click("#bottom-up");
  await page.waitForFunction((before) => JSON.stringify(window.__proftab.rowFrames(1)) === before, JSON.stringify(topDown));
  assert.deepEqual(problems, []);
  await page.close();
});

test("filtering samples by a facet: goroutine state of a Go dump, kept in the hash", async () => {
  const DUMP = path.join(ROOT, "tests/fixtures/goroutine-dump/goroutines.txt");
  // Counted independently: headers `goroutine N [chan receive, ...]:` whose state is "chan receive".
  const states = [...fs.readFileSync(DUMP, "utf8").matchAll(/^goroutine \d+ \[([^\]]*)\]:$/gm)].map((m) => m[1].split(", ")[0]);
  const waiting = states.filter((s) => s === "chan receive").length;
  assert.ok(waiting >= 2 && waiting < states.length);
  const { page, problems } = await readyPage();
  await dropFiles(page, "body", [file(DUMP)]);
  await drawn(page);
  assert.match(await page.textContent("#status"), new RegExp(`^${states.length} in ${states.length} samples`));
  const option = await page.$eval("#facet optgroup[label=goroutine_state]", (g) =>
    [...g.querySelectorAll("option")].map((o) => [o.value, o.textContent]).find(([, t]) => t.startsWith("chan receive (")),
  );
  assert.equal(option[1], `chan receive (${waiting})`);
  await page.selectOption("#facet", option[0]);
  await page.waitForFunction(() => document.querySelector("#chips .chip span")?.textContent === "goroutine_state = chan receive");
  await page.waitForFunction((n) => document.getElementById("status").textContent.startsWith(`${n} in `), waiting);
  const rows = await tableRows(page, 100);
  assert.ok(
    rows.every((r) => Number(r[2]) <= waiting),
    "no function above the filtered total",
  );
  await page.waitForFunction(() => location.hash.includes("filter=goroutine_state%3Dchan+receive"));
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]');
  await dropFiles(page, "body", [file(DUMP)]);
  await drawn(page);
  assert.equal(await page.textContent("#chips .chip span"), "goroutine_state = chan receive");
  await page.click("#chips .chip button");
  await page.waitForFunction((n) => document.getElementById("status").textContent.startsWith(`${n} in ${n} samples`), states.length);
  assert.deepEqual(problems, []);
  await page.close();
});

test("canvases are drawn at the device pixel ratio (crisp on HiDPI)", async (t) => {
  if (!fs.existsSync(RPROF_MEMORY)) return skip(t, `${RPROF_MEMORY} is missing`);
  const { page, problems } = await readyPage();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Emulation.setDeviceMetricsOverride", { width: 1100, height: 800, deviceScaleFactor: 2, mobile: false });
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]');
  // The reload may abort the first load's wasm download: only what follows counts.
  problems.length = 0;
  await page.setInputFiles("#file-input", RPROF_MEMORY);
  await drawn(page);
  const size = await page.evaluate(() => {
    const c = document.getElementById("main-canvas");
    return { dpr: devicePixelRatio, css: c.clientWidth, px: c.width, cssH: c.clientHeight, pxH: c.height };
  });
  assert.equal(size.dpr, 2);
  assert.equal(size.px, size.css * 2);
  assert.equal(size.pxH, size.cssH * 2);
  assert.ok((await ink(page, "#main-canvas")) > 8000);
  await screenshot(page, "viewer-hidpi");
  assert.deepEqual(problems, []);
  await page.close();
});

test("a view first laid out while hidden shows full detail when opened", async (t) => {
  if (!fs.existsSync(RPROF_MEMORY)) return skip(t, `${RPROF_MEMORY} is missing`);
  const { page, problems } = await readyPage("#view=time");
  await page.setInputFiles("#file-input", RPROF_MEMORY);
  await settled(page);
  await page.waitForTimeout(300);
  assert.ok((await ink(page, "#time-canvas")) > 1000);
  await page.click("#tabs button[data-view=flame]");
  await page.waitForTimeout(400);
  const frames = await page.evaluate(() => window.__proftab.visibleFrames());
  assert.ok(frames.length > 10, `only ${frames.length} frames drawn`);
  assert.ok((await ink(page, "#main-canvas")) > 2000);
  assert.deepEqual(problems, []);
  await page.close();
});

test("examples open with one click and ?url= loads over HTTP", async (t) => {
  const list = JSON.parse(fs.readFileSync(path.join(DIST, "examples/index.json"), "utf8"));
  if (!list.length) return skip(t, "no example fixtures were copied");
  const { page, problems } = await readyPage();
  await page.click(`#example-list button[data-example="${list[0].file}"]`);
  await drawn(page);
  await screenshot(page, "viewer-example");
  await page.close();
  const byUrl = await readyPage(`?url=examples/${encodeURIComponent(list[list.length - 1].file)}`);
  await drawn(byUrl.page);
  assert.ok((await ink(byUrl.page, "#main-canvas")) > 1000);
  assert.deepEqual([...problems, ...byUrl.problems], []);
  await byUrl.page.close();
});
