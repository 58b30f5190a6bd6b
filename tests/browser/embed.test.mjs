// The viewer as a component (issue 16): <proftab-viewer> elements on a host page, the element
// bundled by esbuild into a host app, and the iframe API of dist/embed.html. Host pages are
// written to a temporary folder with the production dist/ linked in (as a site would serve
// the npm package's files), under the same strict CSP as the site; nothing here uses the test
// hook of dist-test/.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { build } from "esbuild";
import { serveStatic } from "../../scripts/static-server.mjs";
import { DIST, launchBrowser, openPage, ROOT, screenshot } from "./harness.mjs";

const CPU = path.join(ROOT, "tests/fixtures/pprof/cpu.pb.gz");
const RPROF = path.join(ROOT, "tests/fixtures/rprof/memory.out");
const CSP =
  "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' data: blob:; object-src 'none'; base-uri 'none'; form-action 'none'";

const session = {};
before(async () => {
  if (!fs.existsSync(path.join(DIST, "element.js"))) throw new Error("dist/element.js is missing: run scripts/build.sh first");
  session.dir = fs.mkdtempSync(path.join(os.tmpdir(), "proftab-embed-"));
  session.browser = await launchBrowser();
});
after(async () => {
  await session.browser?.close();
  if (session.dir) fs.rmSync(session.dir, { recursive: true, force: true });
});

/** A host site in a fresh folder: `files` ({name: text}), dist/ linked as `proftab/`, the fixtures linked. */
function hostSite(name, files) {
  const dir = path.join(session.dir, name);
  fs.mkdirSync(dir);
  fs.symlinkSync(DIST, path.join(dir, "proftab"));
  fs.symlinkSync(CPU, path.join(dir, "cpu.pb.gz"));
  fs.symlinkSync(RPROF, path.join(dir, "memory.out"));
  for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, file), text);
  return dir;
}

const page = (body, script, csp = CSP) =>
  `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${csp}">
<link rel="icon" href="data:,"><link rel="stylesheet" href="host.css"><script type="module" src="${script}"></script></head><body>${body}</body></html>`;

/** The host's record of the viewers' events: `window.seen` = [{type, id, detail}]. */
const RECORDER = `window.seen = [];
for (const type of ["proftab-load", "proftab-error", "proftab-select"])
  document.addEventListener(type, (e) => window.seen.push({ type, id: e.target.id, detail: e.detail }));
`;
const HOST_CSS = ".box { width: 640px; height: 360px; } .box.small { width: 420px; height: 300px; }";

/** Events of `type` the host page saw, from the element with id `id`. */
const seen = (p, type, id) => p.evaluate(([t, i]) => window.seen.filter((e) => e.type === t && e.id === i), [type, id]);

async function waitLoaded(p, id) {
  await p.waitForFunction((i) => window.seen.some((e) => e.id === i && (e.type === "proftab-load" || e.type === "proftab-error")), id, {
    timeout: 60000,
  });
  const errors = await seen(p, "proftab-error", id);
  assert.deepEqual(errors, [], `${id} failed to load`);
}

/** Waits until the element's flame graph canvas has 1,000 pixels unlike its top-left one. */
function drawn(p, id) {
  return p.waitForFunction(
    (i) => {
      const c = document.getElementById(i).shadowRoot.getElementById("main-canvas");
      const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let k = 0; k < d.length; k += 4) if (d[k] !== d[0] || d[k + 1] !== d[1] || d[k + 2] !== d[2]) n++;
      return n > 1000;
    },
    id,
    { timeout: 15000 },
  );
}

test("two <proftab-viewer> elements on one page: their own files, workers and selection; the host sees proftab-select", async () => {
  const dir = hostSite("two", {
    "index.html": page(
      `<div class="box"><proftab-viewer id="a" src="cpu.pb.gz"></proftab-viewer></div>
<div class="box small"><proftab-viewer id="b" src="memory.out" view="flame" value-type="memory_increase" theme="dark"></proftab-viewer></div>`,
      "host.js",
    ),
    "host.js": `${RECORDER}import "./proftab/element.js";\n`,
    "host.css": HOST_CSS,
  });
  const server = await serveStatic(dir);
  try {
    const { page: p, problems } = await openPage(session.browser.context, `${server.url}index.html`);
    await waitLoaded(p, "a");
    await waitLoaded(p, "b");
    assert.equal(p.workers().length, 2, "one worker per viewer");
    const [a] = await seen(p, "proftab-load", "a");
    const [b] = await seen(p, "proftab-load", "b");
    assert.deepEqual(a.detail.formats, ["pprof"]);
    assert.deepEqual(b.detail.formats, ["rprof"]);
    // Each viewer's own controls: its value types, its status line, its theme; sized to its box.
    const state = (id) =>
      p.evaluate((i) => {
        const el = document.getElementById(i);
        const r = el.shadowRoot;
        const rect = el.getBoundingClientRect();
        return {
          status: r.getElementById("status").textContent,
          valueType: r.getElementById("value-type").selectedOptions[0]?.textContent,
          dark: r.querySelector(".viewer").classList.contains("dark"),
          size: [rect.width, rect.height],
        };
      }, id);
    const sa = await state("a");
    const sb = await state("b");
    assert.match(sa.status, /· pprof$/);
    assert.match(sb.status, /· rprof$/);
    assert.match(sb.valueType, /^memory_increase/, "value-type attribute chose the value type");
    assert.deepEqual([sa.dark, sb.dark], [false, true]);
    assert.deepEqual(sa.size, [640, 360]);
    assert.deepEqual(sb.size, [420, 300]);
    await p.waitForFunction(() => document.querySelectorAll("proftab-viewer").length === 2);
    await drawn(p, "a");
    await drawn(p, "b");

    // A click on b's function table selects there only, and the host page hears of it.
    const row = p.locator("#b #functions tbody tr").first();
    const name = (await row.locator("td.name").textContent()).trim();
    await row.click();
    await p.waitForFunction(() => window.seen.some((e) => e.type === "proftab-select"));
    const selects = await p.evaluate(() => window.seen.filter((e) => e.type === "proftab-select"));
    assert.deepEqual(
      selects.map((e) => [e.id, e.detail.name]),
      [["b", name]],
    );
    assert.equal(await p.evaluate(() => document.getElementById("a").selected), null);
    assert.equal(await p.evaluate(() => document.getElementById("b").selected), name);

    // select() by name from the host: a's selection, a's event; a name it lacks is refused.
    const aName = await p.evaluate(() => document.getElementById("a").shadowRoot.querySelector("#functions tbody tr td.name").textContent);
    assert.equal(await p.evaluate((n) => document.getElementById("a").select(n), aName.trim()), true);
    assert.equal(await p.evaluate(() => document.getElementById("a").select("no such function")), false);
    const last = await p.evaluate(() => window.seen.filter((e) => e.type === "proftab-select").at(-1));
    assert.deepEqual([last.id, last.detail.name], ["a", aName.trim()]);
    assert.equal(await p.evaluate(() => document.getElementById("b").selected), name, "b kept its own selection");

    // Switching a's view leaves b's alone.
    await p.locator('#a #tabs button[data-view="time"]').click();
    await p.waitForFunction(() => !document.getElementById("a").shadowRoot.getElementById("time-box").hidden);
    assert.equal(await p.evaluate(() => document.getElementById("b").shadowRoot.getElementById("time-box").hidden), true);
    await screenshot(p, "embed-two-viewers");
    assert.deepEqual(problems, []);
  } finally {
    await server.close();
  }
});

test("the element bundled by esbuild (import 'proftab/viewer') runs in a host app; load() takes bytes", async () => {
  const dir = hostSite("bundled", {
    "index.html": page('<div class="box"><proftab-viewer id="v" assets="proftab/"></proftab-viewer></div>', "out/app.js"),
    "app.js": `${RECORDER}import "proftab/viewer";
const bytes = new Uint8Array(await (await fetch("cpu.pb.gz")).arrayBuffer());
document.getElementById("v").load([bytes]);
`,
    "host.css": HOST_CSS,
  });
  // The app resolves "proftab" as an installed package: node_modules/proftab is this repository.
  fs.mkdirSync(path.join(dir, "node_modules"));
  fs.symlinkSync(ROOT, path.join(dir, "node_modules/proftab"));
  const result = await build({
    entryPoints: [path.join(dir, "app.js")],
    bundle: true,
    format: "esm",
    outdir: path.join(dir, "out"),
    absWorkingDir: dir,
    logLevel: "silent",
  });
  assert.deepEqual(result.errors, []);
  const bundle = fs.readFileSync(path.join(dir, "out/app.js"), "utf8");
  assert.match(bundle, /customElements\.define\("proftab-viewer"/, "the element is in the bundle");
  const server = await serveStatic(dir);
  try {
    const requested = [];
    const record = (r) => requested.push(new URL(r.url()).pathname);
    session.browser.context.on("request", record);
    const { page: p, problems } = await openPage(session.browser.context, `${server.url}index.html`);
    await waitLoaded(p, "v");
    session.browser.context.off("request", record);
    await drawn(p, "v");
    assert.ok(requested.includes("/proftab/worker.js"), "the worker came from the assets folder");
    assert.ok(!requested.includes("/proftab/element.js"), "the element came from the bundle, not from the package's files");
    assert.deepEqual(problems, []);
  } finally {
    await server.close();
  }
});

test("iframe API: a cross-origin host posts a profile (ArrayBuffer transferred) and gets the selection back", async () => {
  const viewerServer = await serveStatic(DIST);
  const dir = hostSite("framed", {
    "index.html": page('<iframe id="f" class="box"></iframe>', "host.js", `${CSP}; frame-src ${new URL(viewerServer.url).origin}`),
    "host.css": ".box { width: 700px; height: 420px; border: 0; }",
    "host.js": `window.seen = [];
const frame = document.getElementById("f");
const viewer = new URL(${JSON.stringify(`${viewerServer.url}embed.html`)});
viewer.searchParams.set("origin", location.origin);
window.addEventListener("message", async (e) => {
  if (e.source !== frame.contentWindow || e.origin !== viewer.origin) return;
  window.seen.push(e.data);
  if (e.data.proftab !== "ready") return;
  const bytes = await (await fetch("cpu.pb.gz")).arrayBuffer();
  frame.contentWindow.postMessage({ proftab: "load", files: [{ name: "cpu.pb.gz", bytes }], view: "flame" }, viewer.origin, [bytes]);
  window.transferred = bytes.byteLength === 0;
});
frame.src = viewer.href;
`,
  });
  const hostServer = await serveStatic(dir);
  try {
    assert.notEqual(new URL(hostServer.url).origin, new URL(viewerServer.url).origin);
    const { page: p, problems } = await openPage(session.browser.context, `${hostServer.url}index.html`);
    const got = (kind) =>
      p
        .waitForFunction((k) => window.seen.find((m) => m.proftab === k), kind, { timeout: 60000 })
        .then((h) => h.jsonValue())
        .catch(async (e) =>
          assert.fail(`no "${kind}" message: ${e.message}; seen ${JSON.stringify(await p.evaluate(() => window.seen))}; ${problems}`),
        );
    const loaded = await got("loaded");
    assert.deepEqual(loaded.formats, ["pprof"]);
    assert.equal(await p.evaluate(() => window.transferred), true, "the ArrayBuffer was transferred, not copied");
    // A click in the frame's function table comes back as a message with the function's name.
    const frame = p.frameLocator("#f");
    const row = frame.locator("#functions tbody tr").first();
    const name = (await row.locator("td.name").textContent()).trim();
    await row.click();
    const selected = await got("selected");
    assert.equal(selected.name, name);
    // The host selects by name; the answer names it too.
    const other = (await frame.locator("#functions tbody tr").nth(1).locator("td.name").textContent()).trim();
    await p.evaluate(
      ([n, origin]) => document.getElementById("f").contentWindow.postMessage({ proftab: "select", name: n }, origin),
      [other, new URL(viewerServer.url).origin],
    );
    await p.waitForFunction((n) => window.seen.some((m) => m.proftab === "selected" && m.name === n), other);
    assert.deepEqual(problems, []);
  } finally {
    await hostServer.close();
    await viewerServer.close();
  }
});
