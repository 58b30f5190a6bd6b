// A pprof read makes room in wasm memory once instead of growing it at every block
// (src/memory.rs): V8 pays for each grow whatever its size, and its garbage collector runs on
// them. Counted in a fresh process, since a used instance has holes that hide the grows.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { Profile } from "proftab";
import { ROOT } from "./helpers.mjs";

/**
 * 60,000 samples whose stacks are 12 random choices among 8 functions under `main` (few
 * locations, many stack nodes: what grows during the steps is the stack table), as gzipped pprof
 * written by proftab.
 */
function bigPprof() {
  let x = 2463534242;
  const next = () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
  const lines = [];
  for (let i = 0; i < 60000; i++) {
    const frames = ["main"];
    for (let d = 0; d < 12; d++) frames.push(`f${d}_${next() % 8}`);
    lines.push(`${frames.join(";")} ${1 + (i % 5)}`);
  }
  const p = Profile.parse(Buffer.from(`${lines.join("\n")}\n`), "big.collapsed.txt");
  try {
    return p.write("pprof");
  } finally {
    p.free();
  }
}

test("reading a pprof of 60,000 samples in 235 steps grows wasm memory in at most two of them", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proftab-grows-"));
  try {
    const file = path.join(dir, "big.pb.gz");
    fs.writeFileSync(file, bigPprof());
    const run = spawnSync(
      process.execPath,
      [path.join(ROOT, "tests/js/grows-of-a-read.mjs"), path.join(ROOT, "pkg/node/proftab.js"), file],
      { encoding: "utf8" },
    );
    assert.equal(run.status, 0, run.stderr);
    const r = JSON.parse(run.stdout);
    assert.equal(r.samples, 60000);
    assert.equal(r.steps, 235);
    // Enough growth for block-by-block growing to show: without the room, 7 steps grew memory.
    assert.ok(r.grownBytes >= 4 << 20, `grew only ${r.grownBytes} bytes`);
    // With it: the first step (the room) and the stack table's one reservation.
    assert.ok(r.grows <= 2, `${r.grows} steps grew memory`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
