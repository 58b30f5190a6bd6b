// Profile.sourceLines(): the per-line data of `proftab list` as typed columns, counted by hand
// on a small Rprof profile and compared with the CLI's `list --json` on a recorded one.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { Profile } from "proftab";
import { ROOT } from "./helpers.mjs";

const TEXT = [
  "line profiling: sample.interval=10000",
  "#File 1: w.R",
  '"rnorm" 1#5 "sim" 1#26 "main" ',
  '"c" 1#6 "sim" 1#26 "main" ',
  '1#9 "f" 1#9 "f" 1#27 "main" ',
  '"g" "h" ',
  "",
].join("\n");

/** `{name: [[line, self, total]…]}` of a sourceLines answer. */
function byFunction(r) {
  const out = {};
  r.functionName.forEach((name) => {
    out[name] = [];
  });
  for (let i = 0; i < r.line.length; i++) {
    out[r.functionName[r.lineFunction[i]]].push([r.line[i], r.lineSelf[i], r.lineTotal[i]]);
  }
  return out;
}

test("sourceLines: self and total per line, counted by hand", () => {
  const p = Profile.parse(new TextEncoder().encode(TEXT), "w.out");
  try {
    const r = p.sourceLines("^(sim|main|f)$", "samples");
    assert.equal(r.valueType, "samples");
    assert.equal(r.total, 4);
    assert.deepEqual(r.functionName, ["f", "main", "sim"]);
    assert.deepEqual(r.functionFile, ["w.R", "w.R", "w.R"]);
    assert.ok(r.lineSelf instanceof Float64Array && r.line instanceof Int32Array && r.lineFunction instanceof Uint32Array);
    assert.deepEqual(byFunction(r), {
      // Recursion at one line counts once in total.
      f: [[9, 1, 1]],
      main: [
        [26, 0, 2],
        [27, 0, 1],
      ],
      sim: [
        [5, 1, 1],
        [6, 1, 1],
      ],
    });
    assert.deepEqual([...r.functionSelf], [1, 0, 2]);
    assert.deepEqual([...r.functionTotal], [1, 3, 2]);
    assert.equal(p.sourceLines("^nothing$").functionName.length, 0);
    assert.equal(p.sourceLines("sim").valueType, "time", "the default value type");
    assert.throws(() => p.sourceLines("("), /invalid pattern/);
    assert.throws(() => p.sourceLines("sim", "cpu"), /no value type called "cpu"/);
  } finally {
    p.free();
  }
});

test("sourceLines equals proftab list --json", (t) => {
  const cli = path.join(ROOT, "target/release/proftab");
  if (!fs.existsSync(cli)) return t.skip("the CLI is not built");
  const file = path.join(ROOT, "tests/fixtures/rprof/line.out");
  const json = JSON.parse(execFileSync(cli, ["list", "--json", ".", file], { stdio: ["ignore", "pipe", "ignore"] }));
  const p = Profile.parse(fs.readFileSync(file), "line.out");
  try {
    const r = p.sourceLines(".");
    assert.equal(r.valueType, json.type);
    assert.equal(r.total, json.total);
    assert.ok(json.functions.length > 3);
    assert.deepEqual(
      r.functionName.map((name, i) => [name, r.functionFile[i], r.functionSelf[i], r.functionTotal[i]]),
      json.functions.map((f) => [f.name, f.file, f.self, f.total]),
    );
    const lines = byFunction(r);
    for (const f of json.functions) {
      assert.deepEqual(
        lines[f.name],
        f.lines.map((l) => [l.line, l.self, l.total]),
        f.name,
      );
    }
  } finally {
    p.free();
  }
});
