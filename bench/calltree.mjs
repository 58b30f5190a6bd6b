// The Call tree tab on a big profile: loads FILE into the built viewer (dist-test/: dist/ with
// the test hook) in headless Chromium, opens the tab, expands everything below the heaviest
// root (`*`, capped), scrolls through the rows and prints one JSON line: the tree's nodes, the
// time to open the tab and to expand, the rows in the DOM, and frame times while scrolling
// (with idle frames for scale, the machine may be shared). With `--trace`, a Chromium
// performance trace of the scrolling is recorded too and the renderer's main-thread time per
// event name (layout, style, paint…) is printed to stderr, longest first.
//
//   node bench/calltree.mjs FILE [--trace]

import path from "node:path";
import { frameTimes, launchBrowser, loadFile, openPage, serve } from "../tests/browser/harness.mjs";

const args = process.argv.slice(2);
const trace = args.includes("--trace");
const [file] = args.filter((a) => a !== "--trace");
if (!file) {
  console.error("usage: node bench/calltree.mjs FILE");
  process.exit(2);
}
const server = await serve();
const browser = await launchBrowser();
try {
  const { page } = await openPage(browser.context, server.url);
  await page.setViewportSize({ width: 1280, height: 800 });
  const loadMs = await loadFile(page, file);
  const t0 = Date.now();
  await page.click('#tabs button[data-view="calltree"]');
  await page.waitForSelector('#calltree .tg-row[aria-level="1"]', { timeout: 120000 });
  const openMs = Date.now() - t0;
  await page.click("#calltree .tg-body .tg-row[aria-rowindex='2'] .tg-cell.num");
  const t1 = Date.now();
  await page.keyboard.press("*");
  await page.waitForFunction(() => /^Expanded/.test(document.querySelector("#tree-status").textContent), null, { timeout: 120000 });
  const expandMs = Date.now() - t1;
  const idle = await frameTimes(page, "#calltree", 0, 120);
  const cdp = trace ? await page.context().newCDPSession(page) : null;
  if (cdp) await cdp.send("Tracing.start", { categories: "devtools.timeline,blink,cc", transferMode: "ReportEvents" });
  const scroll = await frameTimes(page, "#calltree", 600, 120);
  if (cdp) printTrace(await endTrace(cdp));
  const q = (list, p) => +list[Math.min(list.length - 1, Math.floor(p * list.length))].toFixed(1);
  const info = await page.evaluate(() => ({
    nodes: window.__proftab.state.info.nodes,
    rows: Number(document.querySelector("#calltree").getAttribute("aria-rowcount")) - 1,
    inDom: document.querySelectorAll("#calltree .tg-body .tg-row").length,
    status: document.querySelector("#tree-status").textContent,
  }));
  console.log(
    JSON.stringify({
      file: path.basename(file),
      loadMs,
      openMs,
      expandMs,
      ...info,
      scrollFrameMs: { p50: q(scroll, 0.5), p95: q(scroll, 0.95), max: q(scroll, 1) },
      idleFrameMs: { p50: q(idle, 0.5), p95: q(idle, 0.95) },
    }),
  );
} finally {
  await browser.close();
  await server.close();
}

/** Ends the trace and returns its events. */
function endTrace(cdp) {
  const events = [];
  cdp.on("Tracing.dataCollected", (e) => events.push(...e.value));
  return new Promise((done) => {
    cdp.once("Tracing.tracingComplete", () => done(events));
    cdp.send("Tracing.end");
  });
}

/** Self-inclusive time per complete ("X") event name, top 15, to stderr. */
function printTrace(events) {
  const total = new Map();
  for (const e of events) {
    if (e.ph !== "X" || !e.dur) continue;
    total.set(e.name, (total.get(e.name) ?? 0) + e.dur / 1000);
  }
  const top = [...total].sort((a, b) => b[1] - a[1]).slice(0, 15);
  for (const [name, ms] of top) console.error(`${ms.toFixed(1).padStart(9)} ms  ${name}`);
}
