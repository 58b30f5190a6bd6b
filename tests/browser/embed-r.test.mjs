// The README's R example: R writes a page with htmltools (tests/browser/r/htmltools-page.R)
// holding a <proftab-viewer> and an Rprof file next to a copy of dist/; served over http (R's
// httpuv in the README, our static server here), the page draws the profile. Skips visibly
// without Rscript or the R package htmltools (Debian r-cran-htmltools, scripts/setup.sh).
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { serveStatic } from "../../scripts/static-server.mjs";
import { DIST, launchBrowser, openPage, ROOT } from "./harness.mjs";

const HAS_HTMLTOOLS = spawnSync("Rscript", ["-e", "library(htmltools)"], { stdio: "ignore" }).status === 0;

test("a page R writes with htmltools shows an Rprof profile in <proftab-viewer>", async (t) => {
  if (!HAS_HTMLTOOLS) {
    process.stderr.write("SKIP: Rscript with the R package htmltools is missing (scripts/setup.sh)\n");
    return t.skip("no Rscript with htmltools");
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "proftab-r-"));
  const site = path.join(tmp, "site");
  const script = path.join(ROOT, "tests/browser/r/htmltools-page.R");
  execFileSync("Rscript", [script, DIST, path.join(ROOT, "tests/fixtures/rprof/memory.out"), site], { stdio: "pipe" });
  const html = fs.readFileSync(path.join(site, "index.html"), "utf8");
  assert.match(html, /<proftab-viewer id="r" src="Rprof.out"/);
  const server = await serveStatic(site);
  const browser = await launchBrowser();
  try {
    const missing = [];
    browser.context.on("response", (r) => r.status() === 404 && missing.push(new URL(r.url()).pathname));
    const { page, problems } = await openPage(browser.context, server.url);
    const status = await page.waitForFunction(
      () => {
        const text = document.getElementById("r")?.shadowRoot?.getElementById("status")?.textContent ?? "";
        return text.endsWith("· rprof") && text;
      },
      null,
      { timeout: 60000 },
    );
    assert.match(await status.jsonValue(), /samples/);
    // htmltools' page names no icon: the browser's request for /favicon.ico is the one 404.
    assert.deepEqual(
      missing.filter((p) => p !== "/favicon.ico"),
      [],
    );
    assert.deepEqual(
      problems.filter((m) => !/status of 404/.test(m)),
      [],
    );
  } finally {
    await browser.close();
    await server.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
