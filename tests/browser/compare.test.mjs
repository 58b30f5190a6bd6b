// End-to-end tests of Compare mode in headless Chromium: the differential flame graph, the
// comparison table against `proftab diff`, the tooltip, the palettes and the state in the hash.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { test } from "node:test";
import { dropFiles, ROOT, screenshot } from "./harness.mjs";
import { cli, drawn, file, ink, pixelSum, readyPage, settled, skip, tableRows } from "./viewer-page.mjs";

// ---------------------------------------------------------------- Compare mode

// Two Go CPU profiles of one program (tests/fixtures/diff/src/main.go); the second run spends a
// third of its time in an extra function, main.hotNew.
const DIFF_BASE = path.join(ROOT, "tests/fixtures/diff/base.pb.gz");
const DIFF_NEW = path.join(ROOT, "tests/fixtures/diff/new.pb.gz");

/** Pixels of a canvas that are clearly red (red channel well above green and blue). */
function reddish(page, selector) {
  return page.evaluate((sel) => {
    const c = document.querySelector(sel);
    const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i] > 150 && d[i] - d[i + 1] > 70 && d[i] - d[i + 2] > 70) n++;
    return n;
  }, selector);
}

/** Pixels of a canvas of exactly the colour `rgb`. */
function pixelsOf(page, selector, rgb) {
  return page.evaluate(
    ([sel, [r, g, b]]) => {
      const c = document.querySelector(sel);
      const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i] === r && d[i + 1] === g && d[i + 2] === b) n++;
      return n;
    },
    [selector, rgb],
  );
}

/** Waits until Compare mode shows a comparison whose normalization is `normalized`. */
async function compared(page, normalized = true) {
  await page.waitForFunction(
    (norm) => {
      const r = window.__proftab.state.compare.result;
      const scaled = r && (r.summary.scale !== 1 || r.summary.baseTotal === r.summary.newTotalRaw);
      return r && document.querySelector("#functions th[data-sort=deltaSelf]") && (norm ? scaled : r.summary.scale === 1);
    },
    normalized,
    { timeout: 15000 },
  );
  await page.waitForTimeout(300);
}

/** Raw values of the first table row: frame name and both sides' self and total. */
function topRow(page) {
  return page.evaluate(() => {
    const tr = document.querySelector("#functions tbody tr");
    const f = Number(tr.dataset.frame);
    const r = window.__proftab.state.compare.result;
    return {
      name: window.__proftab.state.frames.names[f],
      base: r.baseSelf[f],
      next: r.newSelf[f],
      baseTotal: r.baseTotal[f],
      newTotal: r.newTotal[f],
    };
  });
}

/** Every row's function name and raw Δ self, from the page's last comparison. */
function deltasByName(page) {
  return page.evaluate(() => {
    const r = window.__proftab.state.compare.result;
    const names = window.__proftab.state.frames.names;
    const out = {};
    for (const tr of document.querySelectorAll("#functions tbody tr[data-frame]")) {
      const f = Number(tr.dataset.frame);
      out[names[f]] = r.newSelf[f] - r.baseSelf[f];
    }
    return out;
  });
}

const near = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

test("compare mode: differential flame graph, table as proftab diff, tooltip, palette", async (t) => {
  const { page, problems } = await readyPage();
  await page.setViewportSize({ width: 1400, height: 800 });
  await dropFiles(page, "body", [file(DIFF_BASE), file(DIFF_NEW)]);
  await drawn(page);
  assert.equal(await page.$eval("#value-type", (s) => s.selectedOptions[0].textContent), "cpu (nanoseconds)");
  await page.click("#compare-tab");
  await compared(page);
  assert.match(await page.evaluate(() => location.hash), /view=compare&type=cpu&base=0&new=1/);
  // (a) the new hot function is drawn in the "slower" red
  assert.ok((await reddish(page, "#compare-canvas")) > 1000, "no red in the differential flame graph");
  // (b) the table's top regression and every Δ self equal `proftab diff`, normalized and not
  const bin = cli();
  for (const normalized of [true, false]) {
    if (!normalized) {
      await page.click("#compare-norm");
      await compared(page, false);
      assert.equal(await page.textContent("#compare-norm"), "Absolute");
    }
    const top = await topRow(page);
    assert.equal(top.name, "main.hotNew");
    assert.equal(top.base, 0);
    const rows = await tableRows(page, 1);
    assert.equal(rows[0][7], "main.hotNew");
    assert.equal(rows[0][3], "new");
    if (!bin) {
      skip(t, "the proftab CLI is not built (cargo build --release --bin proftab)");
      continue;
    }
    const args = ["diff", DIFF_BASE, DIFF_NEW, "--type", "cpu", "--json", ...(normalized ? [] : ["--absolute"])];
    const json = JSON.parse(execFileSync(bin, args, { encoding: "utf8" }));
    assert.equal(json.functions[0].name, top.name);
    assert.ok(near(top.next - top.base, json.functions[0].delta), `${top.next - top.base} vs ${json.functions[0].delta}`);
    assert.ok(near(top.newTotal, json.functions[0].new_total));
    const shown = await deltasByName(page);
    assert.deepEqual(Object.keys(shown).sort(), json.functions.map((f) => f.name).sort());
    for (const f of json.functions) assert.ok(near(shown[f.name], f.delta), `${f.name}: ${shown[f.name]} vs ${f.delta}`);
  }
  await page.click("#compare-norm");
  await compared(page, true);
  // (c) the tooltip of main.hotNew (leftmost box four rows above the root) shows both sides
  const box = await page.locator("#compare-canvas").boundingBox();
  await page.mouse.move(box.x + 20, box.y + box.height - 4 * 18 - 9);
  await page.waitForSelector("#tooltip:not([hidden])");
  const tip = await page.textContent("#tooltip");
  assert.match(tip, /^main\.hotNew/);
  assert.match(tip, /Baseline00\.00%/);
  assert.match(tip, /Comparison668 ms33\.\d+% \(×0\.6678\)/);
  assert.match(tip, /Change\+668 msnew/);
  await screenshot(page, "viewer-compare");
  await page.mouse.move(box.x + box.width + 50, box.y + 5);
  // (e) the colour-blind-safe palette changes the colours and goes into the hash
  const before = await pixelSum(page, "#compare-canvas");
  // The saturated "slower" colour of the palette in use (light or dark theme): main.hotNew's.
  const slower = () => page.evaluate(() => window.__proftab.state.diffColors.at(-1).match(/\d+/g).map(Number));
  const red = await slower();
  assert.ok((await pixelsOf(page, "#compare-canvas", red)) > 1000);
  await page.click("#compare-palette");
  await page.waitForTimeout(200);
  assert.notEqual(await pixelSum(page, "#compare-canvas"), before);
  const vermillion = await slower();
  assert.notDeepEqual(vermillion, red);
  assert.equal(await pixelsOf(page, "#compare-canvas", red), 0, "red left in the vermillion / blue palette");
  assert.ok((await pixelsOf(page, "#compare-canvas", vermillion)) > 1000);
  await page.waitForFunction(() => location.hash.includes("palette=cb"));
  // Selecting a row outlines the function in the graph; an empty side is a clear error.
  const outlined = await pixelSum(page, "#compare-canvas");
  await page.click("#functions tbody tr:nth-child(2)");
  await page.waitForTimeout(200);
  assert.notEqual(await pixelSum(page, "#compare-canvas"), outlined);
  await page.uncheck("#compare-base input[value='0']");
  await page.waitForSelector("#error:not([hidden])");
  assert.equal(await page.textContent("#error-text"), "the baseline has no sources: choose at least one");
  await page.check("#compare-base input[value='0']");
  await page.waitForSelector("#error", { state: "hidden" });
  assert.deepEqual(problems, []);
  await page.close();
});

test("compare mode: a file compared with itself shows no change; state from the hash", async (_t) => {
  const { page, problems } = await readyPage("#view=compare&absolute=1&width=base&palette=cb");
  await dropFiles(page, "body", [file(DIFF_BASE), file(DIFF_BASE)]);
  await settled(page);
  await compared(page, false);
  assert.equal(await page.textContent("#compare-norm"), "Absolute");
  assert.equal(await page.textContent("#compare-size"), "Width: baseline");
  assert.equal(await page.textContent("#compare-palette"), "Colour-blind safe");
  const rows = await tableRows(page, 1000);
  assert.ok(rows.length > 10, `${rows.length} rows`);
  for (const r of rows) {
    assert.equal(r[2], "0", `Δ self of ${r[7]}`);
    assert.equal(r[6], "0", `Δ total of ${r[7]}`);
  }
  assert.ok((await ink(page, "#compare-canvas")) > 2000, "differential flame graph is blank");
  assert.deepEqual(problems, []);
  await page.close();
});

test("compare mode: the summary says what a focus leaves of each side", async () => {
  const { page, problems } = await readyPage("#view=compare&focus=main.hotNew");
  await dropFiles(page, "body", [file(DIFF_BASE), file(DIFF_NEW)]);
  await settled(page);
  await compared(page);
  const s = await page.evaluate(() => window.__proftab.state.compare.result.summary);
  // main.hotNew is only in the comparison: the focus leaves nothing of the baseline.
  assert.equal(s.baseShown, 0);
  assert.ok(s.newShown > 0 && s.newShown < s.newTotal, `${s.newShown} of ${s.newTotal}`);
  assert.equal(s.baseTotal > 0, true);
  const text = await page.textContent("#compare-summary");
  // The sample counts are the focus's too: none of the baseline, some of the comparison.
  assert.equal(s.baseShownSamples, 0);
  assert.ok(s.newShownSamples > 0 && s.newShownSamples < s.newSamples, `${s.newShownSamples} of ${s.newSamples}`);
  const n = s.newShownSamples.toLocaleString("en-US");
  assert.match(
    text,
    new RegExp(
      `^Shown: baseline 0 in 0 samples · comparison .+ in ${n} samples \\(new\\) — of Baseline .+ in [\\d,]+ samples · comparison `,
    ),
  );
  // Without the focus the summary is the selections' totals alone.
  await page.click("#chips .chip button");
  await page.waitForFunction(() => !document.getElementById("compare-summary").textContent.startsWith("Shown"));
  assert.deepEqual(problems, []);
});
