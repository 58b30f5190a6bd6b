// Faults in the viewer (dist-test/) in headless Chromium: files a load cannot read next to
// good ones (drop, Open…, files added later, all bad), and a worker that fails — a wasm trap
// with a panic, the trap of a failed wasm allocation, an error event — replaced by a fresh one
// that loads the profile shown again with the view state kept.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { dropFiles, screenshot } from "./harness.mjs";
import { cli, cliError, drawn, FIXTURES, file, ink, PPROF, RPROF_MEMORY, readyPage, settled, skip, tableRows } from "./viewer-page.mjs";

const BROKEN = file(path.join(FIXTURES, "broken.png"));
/** A pprof cut short: detected, then refused by the reader. */
const TRUNCATED = { name: "truncated.pb.gz", bytes: fs.readFileSync(PPROF).subarray(0, 300) };

/** The notice's title and items. */
function notice(page) {
  return page.evaluate(() => ({
    visible: !document.getElementById("notice").hidden,
    title: document.getElementById("notice-title").textContent,
    items: [...document.querySelectorAll("#notice-list li")].map((li) => li.textContent),
  }));
}

test("good and bad files dropped together: the good ones drawn, the bad one listed with the reader's message", async (t) => {
  const { page, problems } = await readyPage();
  await dropFiles(page, "body", [file(PPROF), BROKEN, file(RPROF_MEMORY)]);
  await drawn(page);
  const uris = await page.evaluate(() => window.__proftab.state.info.sources.map((s) => s.uri));
  assert.deepEqual(uris, ["parca-fib.pb.gz", "memory.out"]);
  const n = await notice(page);
  assert.equal(n.visible, true);
  assert.equal(n.title, "1 of 3 files could not be read; the others are shown:");
  assert.equal(n.items.length, 1);
  assert.match(n.items[0], /^broken\.png: .*unrecognized format/);
  assert.equal(await page.getAttribute("#notice", "role"), "alert");
  await screenshot(page, "faults-good-and-bad");
  // Dismissed with the keyboard.
  await page.focus("#notice-close");
  await page.keyboard.press("Enter");
  assert.equal(await page.isHidden("#notice"), true);
  assert.deepEqual(problems, []);
  await page.close();
  // The reader's message, as the CLI gives it.
  const bin = cli();
  if (!bin) return skip(t, "the proftab CLI is not built: the message is not compared with it");
  assert.equal(n.items[0], cliError(bin, BROKEN));
});

test("Open… with a bad file, all-bad drops keep the profile shown, files added later", async () => {
  const { page, problems } = await readyPage();
  const picked = [file(PPROF), TRUNCATED].map((f) => ({ name: f.name, mimeType: "application/gzip", buffer: Buffer.from(f.bytes) }));
  await page.setInputFiles("#file-input", picked);
  await drawn(page);
  let n = await notice(page);
  assert.equal(n.title, "1 of 2 files could not be read; the other is shown:");
  assert.match(n.items[0], /^truncated\.pb\.gz: pprof: /);
  // All bad: the error bar names each file, the pprof stays.
  await dropFiles(page, "body", [BROKEN, TRUNCATED]);
  await settled(page);
  const lines = (await page.textContent("#error-text")).split("\n");
  assert.equal(lines.length, 2, lines.join("\n"));
  assert.match(lines[0], /^broken\.png: .*unrecognized format/);
  assert.match(lines[1], /^truncated\.pb\.gz: pprof: /);
  assert.equal(await page.isHidden("#notice"), true, "the notice of the earlier load is gone");
  assert.deepEqual(await page.evaluate(() => window.__proftab.state.info.formats), ["pprof"]);
  assert.equal(await page.evaluate(() => document.body.dataset.state), "shown");
  // The bars' changes resize the canvas: the pprof is drawn again at the new size.
  await page.waitForTimeout(300);
  assert.ok((await ink(page, "#main-canvas")) > 2000, "the pprof is no longer drawn");
  await screenshot(page, "faults-all-bad");
  // Added later: an Rprof file and a bad one replace the pprof.
  await dropFiles(page, "body", [file(RPROF_MEMORY), BROKEN]);
  await drawn(page);
  assert.deepEqual(await page.evaluate(() => window.__proftab.state.info.formats), ["rprof"]);
  n = await notice(page);
  assert.equal(n.title, "1 of 2 files could not be read; the other is shown:");
  assert.match(n.items[0], /^broken\.png: /);
  assert.deepEqual(problems, []);
  await page.close();
});

/** The message each forced fault shows (worker-faults.js). */
const FAULTS = {
  panic: /^proftab failed while answering "fault": panicked at src\/wasm_fault\.rs:\d+:\d+:\na fault forced by a test$/,
  oom: /^proftab failed while answering "fault": RuntimeError: unreachable \(out of memory, or a bug\)$/,
  error: /^The viewer's worker failed: .*RangeError: Array buffer allocation failed \(forced by a test\)$/,
};

for (const [mode, message] of Object.entries(FAULTS)) {
  test(`a worker fault (${mode}): message shown, fresh worker, the profile drawn again, search and zoom work`, async () => {
    const { page, problems } = await readyPage();
    await page.setInputFiles("#file-input", PPROF);
    await drawn(page);
    // View state: a search and a zoom.
    await page.fill("#search", "runtime");
    await page.waitForFunction(() => /^Matched /.test(document.getElementById("match").textContent));
    await page.focus("#main-canvas");
    for (let i = 0; i < 4; i++) await page.keyboard.press("+");
    await page.waitForFunction(() => /zoom=/.test(location.hash));
    const zoomed = await page.evaluate(() => window.__proftab.viewRange());

    await page.evaluate(() => {
      document.body.dataset.flamegraphDrawn = "0";
    });
    const failed = await page.evaluate((m) => window.__proftab.fault(m), mode);
    if (mode !== "error") assert.match(failed, message);
    await page.waitForFunction(() => !document.getElementById("notice").hidden, null, { timeout: 15000 });
    await drawn(page);
    const n = await notice(page);
    assert.equal(n.title, "The viewer's worker failed and was restarted; parca-fib.pb.gz loaded again.");
    assert.equal(n.items.length, 1);
    assert.match(n.items[0], message);
    await screenshot(page, `faults-${mode}`);

    // The view state came back, and the fresh worker answers what follows.
    assert.equal(await page.inputValue("#search"), "runtime");
    assert.match(await page.textContent("#match"), /^Matched \d/);
    const range = await page.evaluate(() => window.__proftab.viewRange());
    assert.ok(
      Math.abs(range[0] - zoomed[0]) < 1e-6 * zoomed[1] && Math.abs(range[1] - zoomed[1]) < 1e-6 * zoomed[1],
      `${range} vs ${zoomed}`,
    );
    await page.fill("#search", "addVV");
    await page.waitForFunction(() => [...window.__proftab.state.flags].some((f) => f) && window.__proftab.state.query === "addVV");
    await page.focus("#main-canvas");
    await page.keyboard.press("0");
    await page.waitForFunction((z) => window.__proftab.viewRange()[1] - window.__proftab.viewRange()[0] > 2 * (z[1] - z[0]), zoomed);
    assert.equal((await tableRows(page, 1))[0][4], "math/big.addVV");
    assert.deepEqual(problems, []);
    await page.close();
  });
}

test("a worker fault with no profile shown: the fault is told, the next file loads in the fresh worker", async () => {
  const { page, problems } = await readyPage();
  const failed = await page.evaluate(() => window.__proftab.fault("panic"));
  assert.match(failed, FAULTS.panic);
  await page.waitForSelector("#notice:not([hidden])");
  const n = await notice(page);
  assert.equal(n.title, "The viewer's worker failed and was restarted.");
  assert.match(n.items[0], FAULTS.panic);
  assert.equal(await page.evaluate(() => document.body.dataset.state), "error");
  assert.equal(await page.isVisible("#empty"), true);
  await page.setInputFiles("#file-input", PPROF);
  await drawn(page);
  assert.equal(await page.isHidden("#notice"), true, "a new load clears the notice");
  assert.equal((await tableRows(page, 1))[0][4], "math/big.addVV");
  assert.deepEqual(problems, []);
  await page.close();
});

test("an example loaded by URL is loaded again by URL after a fault", async () => {
  const { page, problems } = await readyPage();
  const example = await page.getAttribute("#example-list button", "data-example");
  await page.click("#example-list button");
  await drawn(page);
  await page.evaluate(() => {
    document.body.dataset.flamegraphDrawn = "0";
  });
  await page.evaluate(() => window.__proftab.fault("oom"));
  await page.waitForSelector("#notice:not([hidden])");
  await drawn(page);
  const n = await notice(page);
  assert.equal(n.title, `The viewer's worker failed and was restarted; ${example} loaded again.`);
  assert.deepEqual(await page.evaluate(() => window.__proftab.state.info.sources.map((s) => s.uri)), [example]);
  assert.deepEqual(problems, []);
  await page.close();
});
