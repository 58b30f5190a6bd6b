// End-to-end tests of the Call tree tab in headless Chromium: the R line profile's tree
// (heaviest root first, keyboard, ARIA attributes), the inverted tree, the selection shared
// with the flame graph, search, Compare columns (top-down and inverted), and a big tree whose DOM stays small.
import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { formatValue, percent } from "../../www/format.js";
import { dropFiles, frameTimes, ROOT, screenshot } from "./harness.mjs";
import { drawn, file, readyPage } from "./viewer-page.mjs";

const RPROF_LINE = path.join(ROOT, "tests/fixtures/rprof/line.out");
const DIFF_BASE = path.join(ROOT, "tests/fixtures/diff/base.pb.gz");
const DIFF_NEW = path.join(ROOT, "tests/fixtures/diff/new.pb.gz");

/** Rows of the tree grid in the DOM, in row order, with their ARIA attributes and cells. */
function treeRows(page) {
  return page.$$eval("#calltree .tg-body .tg-row", (rows) =>
    rows
      .map((r) => ({
        index: Number(r.getAttribute("aria-rowindex")),
        level: Number(r.getAttribute("aria-level")),
        expanded: r.getAttribute("aria-expanded"),
        selected: r.getAttribute("aria-selected"),
        setsize: Number(r.getAttribute("aria-setsize")),
        posinset: Number(r.getAttribute("aria-posinset")),
        focused: r === document.activeElement,
        cells: [...r.children].map((c) => c.textContent),
      }))
      .sort((a, b) => a.index - b.index),
  );
}

/** The function name of a row (its last cell, without the ▸/▾ toggle). */
const name = (row) => row.cells[row.cells.length - 1].replace(/^[▸▾]/, "");
const pct = (text) => Number.parseFloat(text);

/** A page at 1280×800 with `files` dropped and drawn; resolves to `{page, problems}`. */
async function loaded(files) {
  const opened = await readyPage();
  await opened.page.setViewportSize({ width: 1280, height: 800 });
  await dropFiles(opened.page, "body", files);
  await drawn(opened.page);
  return opened;
}

/** Opens the Call tree tab and waits for its top-level rows. */
async function openTree(page) {
  await page.click('#tabs button[data-view="calltree"]');
  await page.waitForSelector('#calltree .tg-row[aria-level="1"]');
  await page.waitForTimeout(200);
}

/** Presses `key` and waits for the grid to settle (rows load from the worker). */
async function press(page, key) {
  await page.keyboard.press(key);
  await page.waitForTimeout(150);
}

test("call tree: R line profile, heaviest first, keyboard, ARIA, selection with the flame graph", async () => {
  const { page, problems } = await loaded([file(RPROF_LINE)]);
  await openTree(page);
  assert.equal(await page.getAttribute("#calltree", "role"), "treegrid");
  assert.equal(await page.getAttribute('#tabs button[data-view="calltree"]', "aria-selected"), "true");
  let rows = await treeRows(page);
  // The heaviest path is open: levels 1, 2, 3… down its first rows, the first row expanded.
  assert.equal(rows[0].index, 2);
  assert.equal(rows[0].expanded, "true");
  assert.equal(rows[1].level, 2);
  const top = rows.filter((r) => r.level === 1);
  assert.ok(top.length >= 1);
  top.forEach((r, k) => {
    assert.equal(r.posinset, k + 1);
    assert.equal(r.setsize, top.length);
  });
  // Heaviest root first: level-1 totals (the % column) never increase.
  for (let k = 1; k < top.length; k++)
    assert.ok(pct(top[k].cells[1]) <= pct(top[k - 1].cells[1]), `${top[k - 1].cells} before ${top[k].cells}`);
  // The heaviest root's total is its function's total in the function table (R's by.total).
  const rootTotal = await page.evaluate((n) => {
    const s = window.__proftab.state;
    return [s.table.total[s.frames.names.indexOf(n)], s.totals[0]];
  }, name(top[0]));
  assert.equal(top[0].cells[1], percent(...rootTotal));

  // Keyboard: focus the first row, ← collapses, → expands, ↓ moves, * expands all below.
  await page.click("#calltree .tg-body .tg-row[aria-rowindex='2'] .tg-cell.num");
  rows = await treeRows(page);
  assert.ok(rows[0].focused, "the clicked row has the focus");
  assert.equal(rows[0].selected, "true");
  await press(page, "ArrowLeft");
  rows = await treeRows(page);
  assert.equal(rows[0].expanded, "false");
  assert.ok(
    rows.every((r) => r.level === 1),
    "collapsed: only top-level rows",
  );
  await press(page, "ArrowRight");
  rows = await treeRows(page);
  assert.equal(rows[0].expanded, "true");
  await press(page, "ArrowRight");
  rows = await treeRows(page);
  assert.ok(rows[1].focused, "→ on an open row goes to its first child");
  assert.equal(rows[1].level, 2);
  await press(page, "*");
  rows = await treeRows(page);
  const below = rows.slice(2).findIndex((r) => r.level <= 2);
  const subtree = below < 0 ? rows.slice(2) : rows.slice(2, 2 + below);
  assert.ok(subtree.length > 3, "* opened the subtree");
  assert.ok(
    subtree.every((r) => r.expanded !== "false"),
    "every row below is open",
  );
  assert.match(await page.textContent("#tree-status"), /^Expanded \d+ rows below /);
  await press(page, "ArrowDown");
  rows = await treeRows(page);
  assert.ok(rows[2].focused);
  await press(page, "ArrowLeft");
  await press(page, "ArrowLeft");
  rows = await treeRows(page);
  assert.ok(rows[1].focused, "← on a closed row goes to its parent");
  await press(page, "Home");
  await press(page, "ArrowDown");
  await press(page, "ArrowDown");
  await press(page, "Enter");
  rows = await treeRows(page);
  assert.equal(rows[2].selected, "true");
  assert.equal(rows.filter((r) => r.selected === "true").length, 1);
  const picked = await page.evaluate(() => {
    const s = window.__proftab.state;
    return s.selectedPath.frames.map((f) => s.frames.names[f]);
  });
  assert.deepEqual(picked, [name(rows[0]), name(rows[1]), name(rows[2])]);
  await screenshot(page, "calltree");

  // The flame graph outlines that node (one path, not every box of the function).
  await page.click('#tabs button[data-view="flame"]');
  await page.waitForFunction(() => window.__proftab.highlight().selectedNode >= 0);
  // Vice versa: a box clicked in the flame graph is the selected row of the tree.
  const box = await page.locator("#main-canvas").boundingBox();
  await page.mouse.click(box.x + 30, box.y + box.height - 18 * 2 - 9);
  const fromFlame = await page.evaluate(() => {
    const s = window.__proftab.state;
    return s.selectedPath.frames.map((f) => s.frames.names[f]);
  });
  assert.ok(fromFlame.length >= 1);
  await openTree(page);
  await page.waitForSelector('#calltree .tg-row[aria-selected="true"]');
  rows = await treeRows(page);
  const sel = rows.find((r) => r.selected === "true");
  assert.equal(sel.level, fromFlame.length);
  assert.equal(name(sel), fromFlame[fromFlame.length - 1]);

  // Search highlights the matching rows and opens the tree down to them.
  await page.fill("#search", "lm");
  await page.waitForSelector("#calltree .tg-row.tg-match");
  assert.match(await page.textContent("#tree-status"), /call paths? match/);

  // Right-click: the transform menu of the flame graph; focus makes the row the only root.
  await page.fill("#search", "");
  await page.keyboard.press("Escape");
  await page.click("#calltree .tg-body .tg-row[aria-rowindex='3'] .tg-cell.name", { button: "right" });
  const second = name((await treeRows(page))[1]);
  await page.click("#menu button:text('Focus on function')");
  await page.waitForFunction((n) => {
    const top = [...document.querySelectorAll('#calltree .tg-row[aria-level="1"]')];
    return top.length === 1 && top[0].lastChild.textContent.replace(/^[▸▾]/, "") === n;
  }, second);
  assert.equal((await page.textContent("#chips")).includes(second), true);
  assert.deepEqual(problems, []);
});

test("call tree: the selected call path is kept in the URL hash and selected again on load", async () => {
  const { page, problems } = await loaded([file(RPROF_LINE)]);
  await openTree(page);
  await page.click("#calltree .tg-body .tg-row[aria-rowindex='3'] .tg-cell.name");
  await page.waitForFunction(() => /[#&]path=.*&path=/.test(location.hash));
  const hash = await page.evaluate(() => location.hash);
  assert.match(hash, /view=calltree/);
  assert.doesNotMatch(hash, /pathinv/);
  const selected = (p) =>
    p.$eval('#calltree .tg-row[aria-selected="true"]', (r) => [
      r.getAttribute("aria-rowindex"),
      r.getAttribute("aria-level"),
      r.textContent,
    ]);
  const before = await selected(page);
  assert.equal(before[1], "2");
  const again = await readyPage(hash);
  await again.page.setViewportSize({ width: 1280, height: 800 });
  await dropFiles(again.page, "body", [file(RPROF_LINE)]);
  await drawn(again.page);
  await again.page.waitForSelector('#calltree .tg-row[aria-selected="true"]');
  assert.deepEqual(await selected(again.page), before);
  assert.deepEqual(problems, []);
  assert.deepEqual(again.problems, []);
});

test("call tree: inverted, totals as the function table's self", async () => {
  const { page, problems } = await loaded([file(RPROF_LINE)]);
  await openTree(page);
  // The keyboard on the tab goes to the tree: Home focuses its first row.
  await page.focus('#tabs button[data-view="calltree"]');
  await press(page, "Home");
  assert.ok((await treeRows(page))[0].focused, "Home from the tab focuses the first row");
  await page.click("#tree-invert");
  await page.waitForFunction(() => document.querySelector("#tree-invert").getAttribute("aria-pressed") === "true");
  await page.waitForTimeout(300);
  const rows = await treeRows(page);
  const top = rows.filter((r) => r.level === 1);
  // A top-level row of the inverted tree: its self is its total, the function's self value.
  const selfs = await page.evaluate(() => {
    const s = window.__proftab.state;
    const out = {};
    s.frames.names.forEach((n, f) => {
      if (s.table.self[f] > 0) out[n] = [s.table.self[f], s.totals[0]];
    });
    return out;
  });
  assert.equal(top.length, Object.keys(selfs).length);
  for (const r of top) {
    assert.equal(r.cells[1], r.cells[3], `${name(r)}: self = total`);
    assert.equal(r.cells[1], percent(...selfs[name(r)]), name(r));
  }
  const heaviest = Object.entries(selfs).sort((a, b) => b[1][0] - a[1][0])[0][0];
  assert.equal(name(top[0]), heaviest);
  // Deeper rows are callers: no self.
  assert.ok(rows.some((r) => r.level === 2));
  for (const r of rows.filter((x) => x.level > 1)) assert.equal(r.cells[2], "0");
  await page.waitForFunction(() => /view=calltree/.test(location.hash) && /bottomup=1/.test(location.hash));
  assert.deepEqual(problems, []);
});

test("call tree: compare columns", async () => {
  const { page, problems } = await loaded([file(DIFF_BASE), file(DIFF_NEW)]);
  await openTree(page);
  assert.equal(await page.isVisible("#tree-compare"), true);
  await page.click("#tree-compare");
  await page.waitForFunction(() => document.querySelector("#calltree .tg-head").textContent.includes("Baseline"));
  await page.waitForTimeout(300);
  const head = await page.$$eval("#calltree .tg-head > *", (c) => c.map((x) => x.textContent));
  assert.deepEqual(head.slice(0, 4), ["Baseline", "Comparison", "Δ", "Δ %"]);
  await page.fill("#search", "hotNew");
  await page.waitForSelector("#calltree .tg-row.tg-match");
  const rows = await treeRows(page);
  const hot = rows.find((r) => name(r) === "main.hotNew");
  assert.ok(hot, "the search opened the tree to main.hotNew");
  assert.equal(hot.cells[0], "0");
  assert.equal(hot.cells[3], "new");
  assert.match(hot.cells[2], /^\+/);
  await page.waitForFunction(() => /treecompare=1/.test(location.hash));
  // Inverted: each top-level row is a function with both sides' self values, callers below.
  assert.equal(await page.isEnabled("#tree-invert"), true);
  await page.click("#tree-invert");
  await page.waitForFunction(() => document.querySelector("#calltree .tg-head").textContent.includes("callers below"));
  await page.waitForTimeout(300);
  const inverted = await treeRows(page);
  const top = inverted.filter((r) => r.level === 1);
  assert.ok(top.length > 1 && inverted.some((r) => r.level === 2), "top-level functions, the heaviest path's callers open");
  await page.waitForFunction(() => /treecompare=1/.test(location.hash) && /bottomup=1/.test(location.hash));
  // The judge: the Compare view's function table (the same comparison's self per function).
  await page.click('#tabs button[data-view="compare"]');
  await page.waitForFunction(() => window.__proftab.state.compare.result);
  const judge = await page.evaluate(() => {
    const s = window.__proftab.state;
    const r = s.compare.result;
    return { names: s.frames.names, baseSelf: [...r.baseSelf], newSelf: [...r.newSelf], unit: s.info.valueTypes[s.vt].unit };
  });
  const frameOf = (label) => judge.names.indexOf(label);
  for (const r of top) {
    const f = frameOf(name(r));
    assert.ok(f >= 0, name(r));
    assert.equal(r.cells[0], formatValue(judge.baseSelf[f], judge.unit), `${name(r)}: baseline self`);
    assert.equal(r.cells[1], formatValue(judge.newSelf[f], judge.unit), `${name(r)}: comparison self`);
  }
  const selfOnEitherSide = judge.names.filter((_, f) => judge.baseSelf[f] > 0 || judge.newSelf[f] > 0);
  assert.equal(top.length, selfOnEitherSide.length, "one top-level row per function with self on either side");
  await page.click('#tabs button[data-view="calltree"]');
  await screenshot(page, "calltree-compare-inverted");
  assert.deepEqual(problems, []);
});

/** Collapsed stacks of `n` samples over a wide, deep tree (about one node per sample). */
function bigProfile(n) {
  const lines = [];
  let x = 12345;
  const next = (k) => {
    // xorshift32
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x % k;
  };
  for (let i = 0; i < n; i++) {
    const path = ["main"];
    for (let d = 0; d < 7; d++) path.push(`f${d}_${next(d < 2 ? 6 : 12)}`);
    lines.push(`${path.join(";")} ${1 + next(9)}`);
  }
  return { name: "big.collapsed", bytes: Buffer.from(`${lines.join("\n")}\n`) };
}

test("call tree: 100k samples, expand all, the DOM holds only the visible rows", async () => {
  const { page, problems } = await loaded([bigProfile(100000)]);
  await openTree(page);
  await page.click("#calltree .tg-body .tg-row[aria-rowindex='2'] .tg-cell.num");
  const t0 = Date.now();
  await page.keyboard.press("*");
  await page.waitForFunction(() => /^Expanded/.test(document.querySelector("#tree-status").textContent), null, { timeout: 30000 });
  const expandMs = Date.now() - t0;
  const status = await page.textContent("#tree-status");
  assert.match(status, /stopped at 50,000 rows/);
  const count = await page.getAttribute("#calltree", "aria-rowcount");
  assert.ok(Number(count) > 50000, `rows: ${count}`);
  const limit = await page.evaluate(() => Math.ceil(document.querySelector("#calltree").clientHeight / 22) + 2 * 8 + 2);
  const inDom = () => page.$$eval("#calltree .tg-body .tg-row", (r) => r.length);
  assert.ok((await inDom()) <= limit, `${await inDom()} rows in the DOM, limit ${limit}`);
  // Scrolling to the end shows the last rows, still few in the DOM.
  const t1 = Date.now();
  await page.keyboard.press("End");
  await page.waitForTimeout(200);
  const endMs = Date.now() - t1;
  const rows = await treeRows(page);
  assert.equal(rows[rows.length - 1].index, Number(count));
  assert.ok(rows[rows.length - 1].focused);
  assert.ok((await inDom()) <= limit);
  // Frame times while scrolling through the tree (and, for scale, of idle frames: the
  // machine may be shared), and the time the page spends on one scroll's rows.
  const idle = await frameTimes(page, "#calltree", 0);
  const frames = await frameTimes(page, "#calltree", -2000);
  const median = frames[frames.length >> 1];
  const work = await page.evaluate(() => {
    const box = document.querySelector("#calltree");
    const t = performance.now();
    for (let k = 0; k < 20; k++) {
      box.scrollTop += 3000;
      box.dispatchEvent(new Event("scroll"));
      box.querySelector(".tg-row:last-child").getBoundingClientRect();
    }
    return (performance.now() - t) / 20;
  });
  process.stderr.write(
    `calltree big: ${count} rows, ${await inDom()} in the DOM (limit ${limit}); expand all ${expandMs} ms, End ${endMs} ms; scroll frame median ${median.toFixed(1)} ms (idle frames ${idle[idle.length >> 1].toFixed(1)} ms), max ${frames[frames.length - 1].toFixed(1)} ms; rows of one scroll ${work.toFixed(2)} ms\n`,
  );
  assert.ok((await inDom()) <= limit);
  assert.deepEqual(problems, []);
});

test("call tree: scrolling reuses the same row elements in one moved block", async () => {
  const { page, problems } = await loaded([bigProfile(20000)]);
  await openTree(page);
  await page.click("#calltree .tg-body .tg-row[aria-rowindex='2'] .tg-cell.num");
  await page.keyboard.press("*");
  await page.waitForFunction(() => /^Expanded/.test(document.querySelector("#tree-status").textContent), null, { timeout: 30000 });
  const count = Number(await page.getAttribute("#calltree", "aria-rowcount"));
  assert.ok(count > 5000, `rows: ${count}`);
  const seen = await page.evaluate(async () => {
    const box = document.querySelector("#calltree");
    const block = box.querySelector(".tg-rows");
    const rowsNow = () => [...block.children];
    const text = () => rowsNow().map((r) => [r.getAttribute("aria-rowindex"), r.textContent].join(" "));
    const pool = new Set(rowsNow());
    const atTop = text();
    let added = 0;
    const watch = new MutationObserver((list) => {
      for (const m of list) added += m.addedNodes.length;
    });
    watch.observe(block, { childList: true });
    const frames = [];
    const check = () => {
      const rows = rowsNow();
      const index = rows.map((r) => Number(r.getAttribute("aria-rowindex")));
      // The row under the top of the window (below the sticky header) is the one scrolled to.
      const y = box.getBoundingClientRect().top + 22 + 3;
      const under = document.elementFromPoint(box.getBoundingClientRect().left + 40, y).closest(".tg-row");
      frames.push({
        size: rows.length,
        reused: rows.every((r) => pool.has(r)),
        consecutive: index.every((v, k) => k === 0 || v === index[k - 1] + 1),
        under: Number(under?.getAttribute("aria-rowindex")),
        expected: Math.floor((box.scrollTop + 3) / 22) + 2,
        blank: rows.some((r) => r.textContent.trim() === ""),
      });
    };
    for (let k = 0; k < 30; k++) {
      box.scrollTop += 600;
      await new Promise(requestAnimationFrame);
      check();
    }
    box.scrollTop = box.scrollHeight;
    await new Promise(requestAnimationFrame);
    check();
    box.scrollTop = 0;
    await new Promise(requestAnimationFrame);
    check();
    watch.disconnect();
    return {
      pool: pool.size,
      frames,
      added,
      same: text().join("\n") === atTop.join("\n"),
      rowsInBody: box.querySelectorAll(".tg-body .tg-row").length,
    };
  });
  const limit = Math.ceil(800 / 22) + 2 * 8 + 2;
  assert.ok(seen.pool > 20 && seen.pool <= limit, `pool of ${seen.pool} rows`);
  assert.equal(seen.added, 0, "no row element was added while scrolling");
  for (const f of seen.frames) {
    assert.equal(f.size, seen.pool);
    assert.ok(f.reused && f.consecutive && !f.blank, JSON.stringify(f));
    assert.equal(f.under, f.expected);
  }
  assert.ok(seen.same, "back at the top, the rows show their first text again");
  assert.ok(seen.rowsInBody <= seen.pool + 1);
  await page.evaluate(() => {
    document.querySelector("#calltree").scrollTop = 123457;
  });
  await page.waitForTimeout(100);
  await screenshot(page, "calltree-scrolled");
  assert.deepEqual(problems, []);
});
