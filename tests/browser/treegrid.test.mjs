// www/treegrid.js alone (no profile, no worker): a tree of more rows than a browser lets an
// element be high. The spacer stops at MAX_HEIGHT and a scrolled pixel moves several rows'
// pixels; the first, middle and last rows are all reachable, by scrolling and by keyboard.
import assert from "node:assert/strict";
import { test } from "node:test";
import { readyPage } from "./viewer-page.mjs";

test("treegrid: 1.5M rows, the spacer capped, every row reachable, the pool unchanged", async () => {
  const { page, problems } = await readyPage();
  await page.setViewportSize({ width: 1000, height: 700 });
  const r = await page.evaluate(async () => {
    const { TreeGrid, MAX_HEIGHT, ROW_HEIGHT } = await import("./treegrid.js");
    const box = document.createElement("div");
    box.style.cssText = "position:fixed;left:0;top:0;width:800px;height:600px;display:flex;flex-direction:column;z-index:99";
    const inner = document.createElement("div");
    inner.style.cssText = "flex:1;min-height:0";
    box.append(inner);
    document.body.append(box);
    const n = 1500000;
    const grid = new TreeGrid(inner, {
      columns: [
        { label: "Total", cls: "num", text: (rec) => String(rec.values.total), bar: (rec) => rec.values.total / n },
        { label: "Function", cls: "name" },
      ],
      label: (rec) => `row ${rec.node}`,
      load: async () => [],
      onSelect: () => {},
    });
    grid.setColumns(grid.o.columns);
    const recs = [];
    for (let k = 1; k <= n; k++) recs.push({ node: k, parent: 0, depth: 1, frame: 0, kids: 0, values: { total: n - k } });
    grid.addRows(recs);
    grid.expandNodes([]);
    await new Promise(requestAnimationFrame);
    const body = inner.querySelector(".tg-body");
    const pool = new Set(inner.querySelectorAll(".tg-rows > .tg-row"));
    const rect = inner.getBoundingClientRect();
    // The row drawn just below the sticky header, and the one at the bottom edge.
    const at = (y) =>
      Number(
        document
          .elementFromPoint(rect.left + 20, y)
          ?.closest(".tg-row")
          ?.getAttribute("aria-rowindex"),
      );
    const top = () => at(rect.top + ROW_HEIGHT + 2);
    const bottom = () => at(rect.top + inner.clientHeight - 2);
    const out = { max: MAX_HEIGHT, height: body.offsetHeight, pool: pool.size, rowcount: inner.getAttribute("aria-rowcount") };
    out.first = top();
    inner.scrollTop = (inner.scrollHeight - inner.clientHeight) / 2;
    await new Promise(requestAnimationFrame);
    out.middle = top();
    inner.scrollTop = inner.scrollHeight;
    await new Promise(requestAnimationFrame);
    out.lastByScroll = bottom();
    inner.scrollTop = 0;
    await new Promise(requestAnimationFrame);
    inner.querySelector(".tg-rows > .tg-row").focus();
    inner.dispatchEvent(new KeyboardEvent("keydown", { key: "End", bubbles: true }));
    await new Promise(requestAnimationFrame);
    out.lastByKey = bottom();
    out.focused = Number(document.activeElement.getAttribute("aria-rowindex"));
    inner.dispatchEvent(new KeyboardEvent("keydown", { key: "Home", bubbles: true }));
    await new Promise(requestAnimationFrame);
    out.firstByKey = top();
    out.sameElements = [...inner.querySelectorAll(".tg-rows > .tg-row")].every((el) => pool.has(el));
    box.remove();
    return out;
  });
  assert.equal(r.rowcount, "1500001");
  assert.equal(r.height, r.max, "the spacer stops at MAX_HEIGHT");
  assert.ok(r.pool > 20 && r.pool < 60, `pool of ${r.pool}`);
  assert.equal(r.first, 2);
  assert.ok(Math.abs(r.middle - 750000) < 1000, `middle row ${r.middle}`);
  assert.equal(r.lastByScroll, 1500001);
  assert.equal(r.lastByKey, 1500001);
  assert.equal(r.focused, 1500001);
  assert.equal(r.firstByKey, 2);
  assert.ok(r.sameElements);
  assert.deepEqual(problems, []);
});
