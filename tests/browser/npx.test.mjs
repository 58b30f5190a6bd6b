// `npx proftab FILE` (js/view.mjs) and "Copy link" (www/export.js) in headless Chromium:
// - the command serves the packaged viewer (dist/) with the file, prints the address, and the
//   page at that address draws that file as dropping it on the viewer does;
// - a copied link, opened in a fresh browser profile (nothing shared with the first), loads the
//   profile from its fragment and shows the same view: value type, tab, selected call path;
// - a profile too big for a link gets a message with its size instead.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { dropFiles, launchBrowser, openPage, ROOT, screenshot } from "./harness.mjs";
import { CORPUS, drawn, file, ink, readyPage, session, skip } from "./viewer-page.mjs";

const CPU = path.join(ROOT, "tests/fixtures/pprof/cpu.pb.gz");
/** A profile whose tables-json is well over 64 KB gzipped (94 KB as pprof). */
const BIG = path.join(CORPUS, "pprof/parca-alloc_objects.pb.gz");

/** Starts `node js/cli.mjs ...args` and resolves to `{child, url}` once it printed its address. */
async function startView(args) {
  const child = spawn(process.execPath, [path.join(ROOT, "js/cli.mjs"), ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stderr.on("data", (d) => {
    err += d;
  });
  const url = await new Promise((resolve, reject) => {
    child.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/http:\/\/127\.0\.0\.1:\d+\/\S*/);
      if (m) resolve(m[0]);
    });
    child.once("exit", (code) => reject(new Error(`proftab exited (${code}) before printing an address: ${out}${err}`)));
  });
  return { child, url, output: () => out + err };
}

/** What the viewer shows of the loaded profile: status line, value types, sources. */
function shown(page) {
  return page.evaluate(() => ({
    status: document.getElementById("status").textContent.split(" · ")[0],
    types: [...document.querySelectorAll("#value-type option")].map((o) => o.textContent),
    sources: [...document.querySelectorAll("#source option")].map((o) => o.textContent),
  }));
}

test("npx proftab FILE --no-open serves a page that draws FILE; Ctrl-C stops it", async () => {
  const { child, url, output } = await startView([path.relative(ROOT, CPU), "--no-open"]);
  try {
    assert.match(url, /\/\?url=[0-9a-f]{32}%2F0%2Fcpu\.pb\.gz$/);
    const { page, problems } = await openPage(session.browser.context, url);
    await drawn(page);
    await screenshot(page, "npx-view");
    assert.ok((await ink(page, "#main-canvas")) > 1000, "the flame graph has boxes");
    const dropped = await readyPage();
    await dropFiles(dropped.page, "body", [file(CPU)]);
    await drawn(dropped.page);
    assert.deepEqual(await shown(page), await shown(dropped.page), "the same profile as the file dropped");
    // Only the file given is served beside the viewer.
    const origin = new URL(url).origin;
    const token = decodeURIComponent(new URL(url).searchParams.get("url")).split("/")[0];
    const status = async (p) => (await fetch(`${origin}/${p}`)).status;
    assert.equal(await status(`${token}/0/cpu.pb.gz`), 200);
    assert.equal(await status(`${token}/1/cpu.pb.gz`), 404);
    assert.equal(await status(`${token}/0/heap.pb.gz`), 404);
    assert.deepEqual(problems, []);
    assert.deepEqual(dropped.problems, []);
    await page.close();
    await dropped.page.close();
  } finally {
    child.kill("SIGINT");
  }
  const [code] = await once(child, "exit");
  assert.equal(code, 0, output());
});

/** The view a page shows: tab, value type, selected call path, status, hash without the profile. */
function view(page) {
  return page.evaluate(() => {
    const s = window.__proftab.state;
    const hash = new URLSearchParams(location.hash.slice(1));
    return {
      view: s.view,
      type: s.info.valueTypes[s.vt].type,
      path: s.selectedPath?.frames.map((f) => s.frames.names[f]) ?? null,
      selectedRow: document.querySelector('#calltree .tg-row[aria-selected="true"]')?.textContent ?? null,
      // Samples and frames; the format read differs (the link carries tables-json).
      status: document.getElementById("status").textContent.split(" · ")[0],
      hash: [...hash].filter(([k]) => k !== "data"),
    };
  });
}

test("Copy link: a fresh browser profile opens the link on the same view", async () => {
  const { page, problems } = await readyPage();
  await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: session.server.url });
  await dropFiles(page, "body", [file(CPU)]);
  await drawn(page);
  const types = await page.$$eval("#value-type option", (os) => os.map((o) => o.value));
  const current = await page.$eval("#value-type", (s) => s.value);
  await page.selectOption(
    "#value-type",
    types.find((v) => v !== current),
  );
  await page.click('#tabs button[data-view="calltree"]');
  await page.waitForSelector('#calltree .tg-row[aria-level="1"]');
  await page.click("#calltree .tg-body .tg-row[aria-rowindex='3'] .tg-cell.name");
  await page.waitForFunction(() => /[#&]path=.*&path=/.test(location.hash));
  await page.selectOption("#export", "link");
  await page.waitForFunction(() => document.getElementById("link-status").textContent !== "");
  assert.match(await page.textContent("#link-status"), /^Link copied \(\d+\.\d KB profile inside\)\.$/);
  const link = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(link, await page.evaluate(() => location.href));
  assert.match(link, /#view=calltree&type=[^&]+&.*path=.*&dataname=cpu\.json\.gz&data=[A-Za-z0-9_-]+$/);
  const before = await view(page);
  assert.ok(before.path.length >= 2 && before.selectedRow, "a call path is selected");

  const fresh = await launchBrowser();
  try {
    const opened = await openPage(fresh.context, link);
    await drawn(opened.page);
    await opened.page.waitForSelector('#calltree .tg-row[aria-selected="true"]');
    await screenshot(opened.page, "npx-shared-link");
    assert.deepEqual(await view(opened.page), before);
    assert.equal(await opened.page.evaluate(() => location.href), link, "the address keeps the profile");
    assert.deepEqual(opened.problems, []);
  } finally {
    await fresh.close();
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test("Copy link: a profile too big for a link gets a message with its size", async (t) => {
  if (!fs.existsSync(BIG)) return skip(t, `${BIG} is missing (the shared corpus)`);
  const { page, problems } = await readyPage();
  await dropFiles(page, "body", [file(BIG)]);
  await drawn(page);
  const before = await page.evaluate(() => location.hash);
  await page.selectOption("#export", "link");
  await page.waitForSelector("#error:not([hidden])");
  assert.match(
    await page.textContent("#error-text"),
    /^No link: this profile is \d+\.\d KB compressed, and a link carries profiles up to 64\.0 KB/,
  );
  assert.equal(await page.evaluate(() => location.hash), before, "the address is left as it was");
  assert.deepEqual(problems, []);
  await page.close();
});
