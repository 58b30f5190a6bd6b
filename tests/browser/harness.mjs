// Browser test harness (not a test file): Debian's Chromium driven by playwright-core, a
// static server on 127.0.0.1, synthetic file drops, screenshots under test-artifacts/.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { serveStatic } from "../../scripts/static-server.mjs";
import { CORPUS, ROOT } from "../js/helpers.mjs";

export { CORPUS, ROOT };

/** The production viewer (scripts/build.sh). */
export const DIST = path.join(ROOT, "dist");
/** The viewer with the read-only test hook `window.__proftab` (www/test-hook.js): tests use it. */
export const TEST_DIST = path.join(ROOT, "dist-test");
export const ARTIFACTS = path.join(ROOT, "test-artifacts");
export const CHROMIUM = process.env.PROFTAB_CHROMIUM ?? "/usr/bin/chromium";

const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * Starts Chromium with a fresh profile folder. Resolves to `{ context, close() }`; `close`
 * also removes the profile folder.
 */
export async function launchBrowser() {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: run scripts/setup.sh (it installs Debian's chromium)`);
  }
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "proftab-chromium-"));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1100, height: 800 },
  });
  return {
    context,
    close: async () => {
      await context.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** Serves `dir` (default dist-test/) on 127.0.0.1; fails clearly when it was not built. */
export async function serve(dir = TEST_DIST) {
  if (!fs.existsSync(path.join(dir, "index.html")) && (dir === DIST || dir === TEST_DIST)) {
    throw new Error(`${dir}/index.html is missing: run scripts/build.sh first`);
  }
  return serveStatic(dir);
}

/**
 * Opens `url` in a new page and records what would show a broken page: uncaught errors,
 * console errors, CSP violations, failed requests and dialogs (dialogs are dismissed).
 */
export async function openPage(context, url) {
  const page = await context.newPage();
  const problems = [];
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("console", (m) => m.type() === "error" && problems.push(`console error: ${m.text()}`));
  page.on("requestfailed", (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on("dialog", (d) => {
    problems.push(`dialog: ${d.message()}`);
    d.dismiss();
  });
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`));
  });
  await page.goto(url);
  return { page, problems };
}

/**
 * Drops files on the element matched by `selector` as a user's drag and drop would:
 * dragenter, dragover, drop with a DataTransfer holding the files. `files` are
 * `{ name, bytes }` (bytes a Uint8Array or Buffer).
 */
export async function dropFiles(page, selector, files) {
  const payload = files.map((f) => ({ name: f.name, data: Buffer.from(f.bytes).toString("base64") }));
  const transfer = await page.evaluateHandle((list) => {
    const dt = new DataTransfer();
    for (const { name, data } of list) {
      const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
      dt.items.add(new File([bytes], name));
    }
    return dt;
  }, payload);
  for (const type of ["dragenter", "dragover", "drop"]) {
    await page.dispatchEvent(selector, type, { dataTransfer: transfer });
  }
  await transfer.dispose();
}

/** Saves a full-page screenshot as test-artifacts/<name>.png and returns its path. */
export async function screenshot(page, name) {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/**
 * Drops the file at `file` (a path) on a ready page of the viewer and waits until its flame
 * graph is drawn and its function table filled, or an error shows; resolves to the
 * milliseconds that took.
 */
export async function loadFile(page, file, timeout = 600000) {
  await page.waitForSelector('body[data-ready="1"]');
  const started = Date.now();
  await dropFiles(page, "body", [{ name: path.basename(file), bytes: fs.readFileSync(file) }]);
  const done = () =>
    (document.body.dataset.flamegraphDrawn === "1" && document.body.dataset.tableWaits !== "1") || document.body.dataset.state === "error";
  await page.waitForFunction(done, null, {
    timeout,
  });
  return Date.now() - started;
}

/**
 * Intervals between `n` animation frames (ms, sorted) while the element `selector` scrolls
 * down by `dy` pixels a frame (0: idle frames, for scale on a shared machine).
 */
export function frameTimes(page, selector, dy, n = 60) {
  return page.evaluate(
    async ([sel, step, count]) => {
      const box = document.querySelector(sel);
      const times = [];
      let last = performance.now();
      for (let k = 0; k < count; k++) {
        box.scrollTop += step;
        await new Promise(requestAnimationFrame);
        const now = performance.now();
        times.push(now - last);
        last = now;
      }
      return times.sort((a, b) => a - b);
    },
    [selector, dy, n],
  );
}
