// The toolbar in headless Chromium: one row at 1,024, 1,280, 1,440 and 1,920 px with every
// control shown (two sources, so the Source select and the Compare tab are there, and a search
// with its match count and "Hide matches" in the bar below), no control clipped; the view
// options menu by keyboard.
import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { dropFiles, ROOT, screenshot } from "./harness.mjs";
import { drawn, file, readyPage } from "./viewer-page.mjs";

const BASE = path.join(ROOT, "tests/fixtures/diff/base.pb.gz");
const NEW = path.join(ROOT, "tests/fixtures/diff/new.pb.gz");

/** The toolbar's height, its content box and every visible control's box. */
function toolbarBoxes(page) {
  return page.evaluate(() => {
    const bar = document.getElementById("toolbar");
    const style = getComputedStyle(bar);
    const pad = Number.parseFloat(style.paddingTop) + Number.parseFloat(style.paddingBottom);
    const border = Number.parseFloat(style.borderTopWidth) + Number.parseFloat(style.borderBottomWidth);
    const r = bar.getBoundingClientRect();
    const controls = [...bar.querySelectorAll("button, select, input[type=search], label.button, .brand")]
      .filter((el) => el.getClientRects().length > 0 && !el.closest("#view-menu"))
      .map((el) => {
        const b = el.getBoundingClientRect();
        const clipped = el.tagName !== "INPUT" && el.tagName !== "SELECT" && el.scrollWidth > el.clientWidth + 1;
        return {
          id: el.id || el.textContent.trim(),
          top: b.top,
          bottom: b.bottom,
          left: b.left,
          right: b.right,
          height: b.height,
          clipped,
        };
      });
    return { inner: r.height - pad - border, left: r.left, right: r.right, controls };
  });
}

for (const width of [1024, 1280, 1440, 1920]) {
  test(`the toolbar is one row at ${width} px, no control clipped`, async () => {
    const { page, problems } = await readyPage();
    await page.setViewportSize({ width, height: 800 });
    await dropFiles(page, "body", [file(BASE), file(NEW)]);
    await drawn(page);
    await page.fill("#search", "main");
    await page.waitForSelector("#hide-matches:not([hidden])");
    assert.equal(await page.isVisible("#bar #hide-matches"), true);
    await screenshot(page, `toolbar-${width}`);
    const { inner, left, right, controls } = await toolbarBoxes(page);
    const ids = controls.map((c) => c.id);
    for (const id of ["compare-tab", "source-tab", "value-type", "source", "view-options", "search", "export", "theme"]) {
      assert.ok(ids.includes(id), `${id} is shown: ${ids.join(" ")}`);
    }
    const tallest = Math.max(...controls.map((c) => c.height));
    if (process.env.PROFTAB_TOOLBAR_DEBUG)
      console.log(controls.map((c) => `${c.id} ${Math.round(c.left)}-${Math.round(c.right)} @${Math.round(c.top)}`).join("\n"));
    assert.ok(Math.abs(inner - tallest) <= 1, `toolbar ${inner} px high, controls ${tallest} px: more than one row`);
    for (const c of controls) {
      assert.ok(c.left >= left && c.right <= right + 0.5, `${c.id} outside the toolbar (${c.left}–${c.right} of ${left}–${right})`);
      assert.ok(!c.clipped, `${c.id} clipped`);
    }
    assert.deepEqual(problems, []);
  });
}

test("the view options menu works from the keyboard", async () => {
  const { page, problems } = await readyPage();
  await page.setViewportSize({ width: 1024, height: 700 });
  await dropFiles(page, "body", [file(BASE)]);
  await drawn(page);
  await page.focus("#view-options");
  await page.keyboard.press("Enter");
  await page.waitForSelector("#view-menu:not([hidden])");
  assert.equal(await page.getAttribute("#view-options", "aria-expanded"), "true");
  assert.equal(await page.evaluate(() => document.activeElement.id), "order");
  await page.keyboard.press("ArrowDown");
  assert.equal(await page.evaluate(() => document.activeElement.id), "icicle");
  await page.keyboard.press("Enter");
  await page.waitForFunction(() => location.hash.includes("icicle=1"));
  assert.equal(await page.textContent("#icicle"), "Icicle ↓");
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("Space");
  await page.waitForFunction(() => location.hash.includes("bottomup=1"));
  await page.keyboard.press("Escape");
  assert.equal(await page.isHidden("#view-menu"), true);
  assert.equal(await page.evaluate(() => document.activeElement.id), "view-options");
  assert.equal(await page.getAttribute("#view-options", "aria-expanded"), "false");
  assert.deepEqual(problems, []);
});
