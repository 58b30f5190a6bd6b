// Export in headless Chromium: a labelled pprof exported as collapsed shows, before any
// download, a modal dialog listing what collapsed cannot hold (the labels with their counts);
// Cancel (from the keyboard) downloads nothing, Download downloads the file; a format that
// loses nothing downloads at once.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { dropFiles, ROOT, screenshot } from "./harness.mjs";
import { drawn, file, readyPage } from "./viewer-page.mjs";

const LABELLED = path.join(ROOT, "tests/fixtures/pprof/fields.pb.gz");

/** The items of the open export dialog, as text. */
function losses(page) {
  return page.$$eval("#export-losses li", (items) => items.map((li) => li.textContent));
}

/**
 * Presses `keys` in the open export dialog (the last one on the element `focusId`, when given)
 * and checks the dialog closed with no download.
 */
async function closedWithout(page, downloads, keys, focusId) {
  for (const [i, key] of keys.entries()) {
    if (focusId && i === keys.length - 1) assert.equal(await page.evaluate(() => document.activeElement.id), focusId);
    await page.keyboard.press(key);
  }
  await page.waitForSelector("#export-dialog:not([open])", { state: "attached" });
  await page.waitForTimeout(500);
  assert.equal(downloads.length, 0, `${keys.join(", ")} downloads nothing`);
}

test("exporting a labelled pprof as collapsed lists the lost labels before the download", async () => {
  const { page, problems } = await readyPage();
  await dropFiles(page, "body", [file(LABELLED)]);
  await drawn(page);
  const downloads = [];
  page.on("download", (d) => downloads.push(d));

  await page.selectOption("#export", "collapsed");
  await page.waitForSelector("#export-dialog[open]");
  await screenshot(page, "export-losses");
  const items = await losses(page);
  assert.ok(
    items.includes("cannot hold sample labels: dropped 4 labels on 3 samples of 4 (keys: bytes, request, size, thread) (3 affected)"),
    items.join("\n"),
  );
  assert.ok(
    items.some((t) => t.startsWith("holds one value type: wrote")),
    items.join("\n"),
  );
  assert.equal(await page.getAttribute("#export-dialog", "aria-labelledby"), "export-title");
  assert.match(await page.textContent("#export-title"), /collapsed/);
  assert.equal(await page.evaluate(() => document.activeElement.id), "export-download");

  // Cancel from the keyboard (Tab to it, Enter), then Escape: neither downloads.
  await closedWithout(page, downloads, ["Tab", "Enter"], "export-cancel");
  await page.selectOption("#export", "collapsed");
  await page.waitForSelector("#export-dialog[open]");
  await closedWithout(page, downloads, ["Escape"]);

  // Download.
  await page.selectOption("#export", "collapsed");
  await page.waitForSelector("#export-dialog[open]");
  const downloaded = page.waitForEvent("download");
  await page.click("#export-download");
  const d = await downloaded;
  assert.equal(d.suggestedFilename(), "fields.collapsed");
  const text = fs.readFileSync(await d.path(), "utf8");
  assert.match(text, /^\S.* \d+\n/, text);
  assert.equal(downloads.length, 1);

  // tables-json holds everything: no dialog, the file comes at once.
  const direct = page.waitForEvent("download");
  await page.selectOption("#export", "tables-json");
  assert.equal((await direct).suggestedFilename(), "fields.json");
  assert.equal(await page.$("#export-dialog[open]"), null);
  assert.deepEqual(problems, []);
});
