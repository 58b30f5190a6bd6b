// End-to-end: the built viewer (dist/) in headless Chromium. Loads the page, drops files on
// the drop zone, checks what is shown. Screenshots go to test-artifacts/.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { CORPUS, DIST, ROOT, dropFiles, launchBrowser, openPage, screenshot, serve } from "./harness.mjs";

let browser;
let server;

before(async () => {
  server = await serve();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

async function readyPage() {
  const opened = await openPage(browser.context, server.url);
  await opened.page.waitForSelector("body[data-state=ready]", { timeout: 15000 });
  return opened;
}

test("the page loads its wasm under the strict CSP and waits for a file", async () => {
  const { page, problems } = await readyPage();
  const csp = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', "content");
  assert.match(csp, /script-src 'self' 'wasm-unsafe-eval'/);
  assert.doesNotMatch(csp, /'unsafe-inline'|'unsafe-eval'/);
  assert.equal(await page.textContent("#status"), "Ready: drop a profile.");
  await screenshot(page, "viewer-ready");
  assert.deepEqual(problems, []);
  await page.close();
});

test("dist/ works from a sub-path of a host (relative URLs only)", async () => {
  const html = fs.readFileSync(path.join(DIST, "index.html"), "utf8");
  assert.doesNotMatch(html, /(src|href)="\//);
  const parent = await serve(ROOT);
  try {
    const { page, problems } = await openPage(browser.context, `${parent.url}dist/`);
    await page.waitForSelector("body[data-state=ready]", { timeout: 15000 });
    assert.deepEqual(problems, []);
    await page.close();
  } finally {
    await parent.close();
  }
});

test("a dropped profile shows its format, samples, value types and tables", async () => {
  const { page, problems } = await readyPage();
  const tiny = path.join(ROOT, "tests/fixtures/tables-json/wasm-api-tiny.json");
  await dropFiles(page, "#drop", [{ name: "tiny.json", bytes: fs.readFileSync(tiny) }]);
  await page.waitForSelector("body[data-state=shown]");
  const section = page.locator(".profile").first();
  assert.equal(await section.getAttribute("data-format"), "tables-json");
  assert.equal(await section.locator("h2").textContent(), "tiny.json");
  assert.equal(await section.locator(".summary").textContent(), "Format tables-json, 3 samples");
  const rows = await section.locator("table").first().locator("tbody tr").allTextContents();
  // The document's value types, summed by hand: samples 1+1+1, time 10+20.
  assert.deepEqual(rows, ["samplescount33", "timenanoseconds302"]);
  const tables = await section.locator("table").nth(1).locator("tbody tr").allTextContents();
  assert.ok(tables.includes("sample_locations8"), tables.join(" | "));
  await screenshot(page, "viewer-drop-tables-json");
  assert.deepEqual(problems, []);
  await page.close();
});

test("a dropped Rprof file from the corpus shows the counts R's file spells out", async () => {
  const { page, problems } = await readyPage();
  const file = path.join(CORPUS, "rprof/profvis-test-parse.prof");
  await dropFiles(page, "#drop", [{ name: "profvis-test-parse.prof", bytes: fs.readFileSync(file) }]);
  await page.waitForSelector("body[data-state=shown]");
  const section = page.locator(".profile").first();
  // Counted by hand: 6 sample lines at sample.interval=10000 µs, 7 frames in all (1+1+2+2+1+0).
  assert.equal(await section.locator(".summary").textContent(), "Format rprof, 6 samples");
  const values = await section.locator("table").first().locator("tbody tr").allTextContents();
  assert.ok(values.includes("samplescount66"), values.join(" | "));
  assert.ok(values.includes("timenanoseconds600000006"), values.join(" | "));
  const tables = await section.locator("table").nth(1).locator("tbody tr").allTextContents();
  assert.ok(tables.some((t) => t.startsWith("sample_locations7")), tables.join(" | "));
  await screenshot(page, "viewer-drop-rprof");
  assert.deepEqual(problems, []);
  await page.close();
});

test("a dropped file that is no profile shows the reader's error as text", async () => {
  const { page, problems } = await readyPage();
  await dropFiles(page, "#drop", [{ name: "picture.png", bytes: new Uint8Array([0x89, 0x50, 0x4e, 0x47]) }]);
  await page.waitForSelector("body[data-state=shown]");
  assert.equal(await page.textContent(".profile.failed h2"), "picture.png");
  assert.match(await page.textContent(".profile.failed .error"), /^input: unrecognized format \(.*89 50 4e 47\); proftab reads /);
  await screenshot(page, "viewer-drop-error");
  assert.deepEqual(problems, []);
  await page.close();
});

test("a hostile file name is shown as inert text", async () => {
  const { page, problems } = await readyPage();
  const name = `<img src=x onerror=alert(1)>"'\u202e.txt`;
  await dropFiles(page, "#drop", [{ name, bytes: new Uint8Array([0]) }]);
  await page.waitForSelector("body[data-state=shown]");
  assert.equal(await page.textContent(".profile h2"), name);
  assert.equal(await page.locator("#results img").count(), 0);
  assert.deepEqual(problems, []);
  await page.close();
});
