// What the viewer's browser tests share (not a test file): the page under test (dist-test/,
// one Chromium and one server per test file), waiting for a load, reading canvases and the
// function table, the CLI to compare with, the corpus files.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before } from "node:test";
import { CORPUS, launchBrowser, openPage, ROOT, serve } from "./harness.mjs";

export { CORPUS };
export const PPROF = path.join(CORPUS, "pprof/parca-fib.pb.gz");
export const RPROF_MEMORY = path.join(ROOT, "tests/fixtures/rprof/memory.out");
export const FIXTURES = path.join(ROOT, "tests/fixtures/viewer");

/** The browser and server of this test file: `{browser, server}`, set by `before`. */
export const session = {};

before(async () => {
  session.server = await serve();
  session.browser = await launchBrowser();
});

after(async () => {
  await session.browser?.close();
  await session.server?.close();
});

/** The CLI binary when it was built, else null (tests that need it print SKIP). */
export function cli() {
  for (const p of ["target/release/proftab", "target/debug/proftab"]) {
    const full = path.join(ROOT, p);
    if (fs.existsSync(full)) return full;
  }
  return null;
}

export function skip(t, why) {
  process.stderr.write(`SKIP: ${t.name}: ${why}\n`);
  t.skip(why);
}

export async function readyPage(query = "") {
  const opened = await openPage(session.browser.context, session.server.url + query);
  await opened.page.waitForSelector('body[data-ready="1"]', { timeout: 15000 });
  return opened;
}

/**
 * Waits until a load finished: shown (its function table filled: a load's first table waits
 * for the flame graph's first frame, www/views/table.js), or an error shown.
 */
export async function settled(page) {
  await page.waitForFunction(
    () =>
      ["shown", "error"].includes(document.body.dataset.state) &&
      document.getElementById("progress").hidden &&
      document.body.dataset.tableWaits !== "1",
    null,
    { timeout: 60000 },
  );
}

export async function drawn(page) {
  await settled(page);
  assert.equal(await page.isHidden("#error"), true, await page.textContent("#error-text"));
  await page.waitForFunction(() => document.body.dataset.flamegraphDrawn === "1");
  await page.waitForTimeout(250);
}

/** Pixels of a 2D canvas that differ from its most common corner colour. */
export function ink(page, selector) {
  return page.evaluate((sel) => {
    const c = document.querySelector(sel);
    const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    const bg = d.slice(0, 4).join();
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (`${d[i]},${d[i + 1]},${d[i + 2]},${d[i + 3]}` !== bg) n++;
    return n;
  }, selector);
}

/** A checksum of a canvas's pixels, to tell whether what is drawn changed. */
export function pixelSum(page, selector) {
  return page.evaluate((sel) => {
    const c = document.querySelector(sel);
    const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    let h = 0;
    for (let i = 0; i < d.length; i++) h = (h * 31 + d[i]) >>> 0;
    return h;
  }, selector);
}

export function tableRows(page, n = 10) {
  return page.$$eval(
    "#functions tbody tr:not(.more)",
    (trs, k) => trs.slice(0, k).map((tr) => [...tr.children].map((td) => td.textContent)),
    n,
  );
}

export const file = (p) => ({ name: path.basename(p), bytes: fs.readFileSync(p) });

/** The CLI's error for file `f` (`{name, bytes}`): its message, the path as the file's name. */
export function cliError(bin, f) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proftab-faults-"));
  const at = path.join(dir, f.name);
  fs.writeFileSync(at, f.bytes);
  try {
    execFileSync(bin, ["info", at], { stdio: "pipe" });
  } catch (e) {
    return String(e.stderr)
      .trim()
      .replace(/^proftab: /, "")
      .replaceAll(at, f.name);
  } finally {
    fs.rmSync(dir, { recursive: true });
  }
  throw new Error(`proftab info ${f.name} succeeded`);
}
