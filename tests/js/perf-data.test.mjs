// perf.data symbolised in the npm package with the binary given in memory
// (`Profile.parseWith(bytes, name, {binaries})`): self samples per symbol equal the committed
// `perf report --no-children` outputs of tests/fixtures/perf-data (as tests/perf_data.rs checks
// for the CLI); without the binary, its frames stay `work+0x…` and the warning names it.
// Kernel frames are named from a kallsyms text given as `kallsyms` or among `binaries`
// (kernel/, tests/perf_data_kernel.rs); a gzipped perf.data is unwound as the plain one.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import zlib from "node:zlib";
import { NO_INDEX, Profile } from "proftab";
import { perfReportDifferences, perfReportRows, ROOT } from "./helpers.mjs";

const DIR = path.join(ROOT, "tests/fixtures/perf-data");
const WORK = { name: "work", bytes: fs.readFileSync(path.join(DIR, "work")) };
const RECORDINGS = fs.readdirSync(DIR).filter((f) => f.endsWith(".data"));

/** Self samples per function name (value type `samples`). */
function selfByName(p) {
  const strings = p.strings();
  const [stacks, stackLoc, locFun, fnName] = [p.sampleStack(), p.stackLocation(), p.locationFunction(), p.functionName()];
  const values = p.values("samples");
  const out = new Map();
  for (let i = 0; i < stacks.length; i++) {
    if (stacks[i] === NO_INDEX || Number.isNaN(values[i]) || values[i] === 0) continue;
    const fn = locFun[stackLoc[stacks[i]]];
    const name = fn === NO_INDEX ? "[unknown]" : strings[fnName[fn]];
    out.set(name, (out.get(name) ?? 0) + values[i]);
  }
  return out;
}

test("four perf.data recordings to compare", () => assert.equal(RECORDINGS.length, 4));

for (const file of RECORDINGS) {
  test(`${file} with work: self samples per symbol equal perf report`, () => {
    const rows = perfReportRows(fs.readFileSync(path.join(DIR, file.replace(/\.data$/, ".report.txt")), "utf8"));
    const p = Profile.parseWith(fs.readFileSync(path.join(DIR, file)), file, { binaries: [WORK] });
    const got = selfByName(p);
    assert.deepEqual(perfReportDifferences(rows, got, "work"), []);
    const total = (m) => [...m.values()].reduce((s, v) => s + (typeof v === "number" ? v : v.n), 0);
    assert.equal(total(got), total(rows));
    assert.ok([...got.keys()].some((n) => n === "leaf_spin"));
    p.free();
  });
}

test("fp.data without work: its frames are work+0x… and the warning names work", () => {
  const bytes = fs.readFileSync(path.join(DIR, "fp.data"));
  for (const p of [Profile.parse(bytes, "fp.data"), Profile.parseWith(bytes, "fp.data", { binaries: [] })]) {
    const names = [...selfByName(p).keys()];
    assert.ok(
      names.some((n) => n.startsWith("work+0x")),
      names.join(", "),
    );
    assert.ok(!names.includes("leaf_spin"));
    p.free();
  }
  const p = Profile.parseWith(bytes, "fp.data", {});
  const warning = p.warnings().find((w) => w.message.includes("not symbolised"));
  assert.match(warning.message, /binaries not found: .*\bwork \([0-9a-f]{40}\)/);
  p.free();
});

test("a binary of another build under the recorded name is not used", () => {
  const bytes = fs.readFileSync(path.join(DIR, "fp.data"));
  const bare = Profile.parseWith(bytes, "fp.data", {});
  const id = bare
    .warnings()
    .map((w) => w.message.match(/\bwork \(([0-9a-f]{40})\)/)?.[1])
    .find(Boolean);
  bare.free();
  // The same binary with the last byte of its build-id note changed: another build.
  const other = Buffer.from(WORK.bytes);
  const at = other.indexOf(Buffer.from(id, "hex"));
  assert.ok(at > 0, `build-id ${id} not in work`);
  other[at + 19] ^= 0xff;
  const p = Profile.parseWith(bytes, "fp.data", { binaries: [{ name: "work", bytes: other }] });
  assert.ok(!selfByName(p).has("leaf_spin"));
  p.free();
  const same = Profile.parseWith(bytes, "fp.data", { binaries: [{ name: "renamed", bytes: WORK.bytes }] });
  assert.ok(selfByName(same).has("leaf_spin"), "found by build-id under another name");
  same.free();
});

/** Total samples per function name: each function counted once per sample it is on. */
function totalByName(p) {
  const strings = p.strings();
  const [stacks, prefix, stackLoc, locFun, fnName] = [
    p.sampleStack(),
    p.stackPrefix(),
    p.stackLocation(),
    p.locationFunction(),
    p.functionName(),
  ];
  const values = p.values("samples");
  const out = new Map();
  for (let i = 0; i < stacks.length; i++) {
    const seen = new Set();
    for (let s = stacks[i]; s !== NO_INDEX; s = prefix[s]) {
      const fn = locFun[stackLoc[s]];
      seen.add(fn === NO_INDEX ? "[unknown]" : strings[fnName[fn]]);
    }
    for (const name of seen) out.set(name, (out.get(name) ?? 0) + values[i]);
  }
  return out;
}

test("dwarf.data with work: stacks unwound to libc, totals as perf report --children", () => {
  const bytes = fs.readFileSync(path.join(DIR, "dwarf.data"));
  const p = Profile.parseWith(bytes, "dwarf.data", { binaries: [WORK] });
  const total = totalByName(p);
  // dwarf.children.txt (perf's unwinding): gamma_ and main 100% of 25, alpha and leaf_spin 64%,
  // beta 60%; without libc given the stacks stop at its return address, as the warning says.
  for (const [name, n] of [
    ["gamma_", 25],
    ["main", 25],
    ["alpha", 16],
    ["leaf_spin", 16],
    ["beta", 15],
  ]) {
    assert.equal(total.get(name), n, name);
  }
  assert.ok(p.warnings().some((w) => /25 DWARF-unwound stacks stop before their root/.test(w.message)));
  p.free();
  const bare = Profile.parseWith(bytes, "dwarf.data", { binaries: [] });
  assert.equal(totalByName(bare).get("main"), undefined);
  assert.ok(bare.warnings().some((w) => /25 stacks were recorded for DWARF unwinding .* not unwound/.test(w.message)));
  bare.free();
});

test("inline.data with its binary: inlined frames marked, source lines from DWARF", () => {
  const dir = path.join(DIR, "inline");
  const binary = { name: "inline", bytes: fs.readFileSync(path.join(dir, "inline")) };
  const p = Profile.parseWith(fs.readFileSync(path.join(dir, "inline.data")), "inline.data", { binaries: [binary] });
  const strings = p.strings();
  const [locFun, fnName, line] = [p.locationFunction(), p.functionName(), p.locationLine()];
  const inlined = p.extColumn("locations", ".inlined")?.data;
  const frames = new Set();
  for (let l = 0; l < locFun.length; l++) {
    if (locFun[l] !== NO_INDEX) frames.add(`${strings[fnName[locFun[l]]]}:${line[l]}:${inlined?.[l] === 1}`);
  }
  // inline.script.txt: mix (inl.c:9) and step (inl.c:15) inlined into churn (inl.c:20), main at inl.c:26.
  for (const f of ["mix:9:true", "step:15:true", "churn.constprop.0:20:false", "main:26:false"]) {
    assert.ok(frames.has(f), `${f} in ${[...frames].join(", ")}`);
  }
  p.free();
});

test("parseWith rejects binaries that are not {name, bytes}", () => {
  const bytes = fs.readFileSync(path.join(DIR, "fp.data"));
  assert.throws(() => Profile.parseWith(bytes, "fp.data", { binaries: [{ name: "work" }] }), /binaries\[0\]/);
  assert.throws(() => Profile.parseWith(bytes, "fp.data", { binaries: "work" }), /array/);
});

const KERNEL = path.join(DIR, "kernel");
const KERN = { name: "kern", bytes: fs.readFileSync(path.join(KERNEL, "kern")) };
const KALLSYMS = fs.readFileSync(path.join(KERNEL, "kallsyms.txt"), "utf8");
const KERNEL_DATA = fs.readFileSync(path.join(KERNEL, "kernel.data"));
const KERNEL_REPORT = perfReportRows(fs.readFileSync(path.join(KERNEL, "kernel.report.txt"), "utf8"));

test("kernel.data with kern and its kallsyms: kernel and kern rows equal perf report", () => {
  const given = [
    { binaries: [KERN], kallsyms: KALLSYMS },
    { binaries: [KERN], kallsyms: Buffer.from(KALLSYMS) },
    { binaries: [KERN, { name: "kallsyms.txt", bytes: Buffer.from(KALLSYMS) }] },
  ];
  for (const options of given) {
    const p = Profile.parseWith(KERNEL_DATA, "kernel.data", options);
    const got = selfByName(p);
    assert.deepEqual(perfReportDifferences(KERNEL_REPORT, got, "[kernel.kallsyms]"), []);
    assert.deepEqual(perfReportDifferences(KERNEL_REPORT, got, "kern"), []);
    assert.ok(got.get("read_zero") > 300);
    assert.ok(!p.warnings().some((w) => w.message.includes("kernel frames")));
    p.free();
  }
});

test("kernel.data without kallsyms or with another boot's: kernel frames stay addresses, the warning says why", () => {
  const bare = Profile.parseWith(KERNEL_DATA, "kernel.data", { binaries: [KERN] });
  assert.ok([...selfByName(bare).keys()].some((n) => n.startsWith("[kernel.kallsyms]+0x")));
  assert.ok(bare.warnings().some((w) => /\d+ of them kernel frames: no kallsyms text/.test(w.message)));
  bare.free();
  const moved = KALLSYMS.replace(/^ffffffff8/gm, "ffffffff9");
  const other = Profile.parseWith(KERNEL_DATA, "kernel.data", { binaries: [KERN], kallsyms: moved });
  assert.ok(!selfByName(other).has("read_zero"));
  assert.ok(other.warnings().some((w) => /kernel frames: the kallsyms text is of another boot or kernel/.test(w.message)));
  other.free();
});

test("parseWith rejects a kallsyms option that is not a kallsyms text", () => {
  assert.throws(() => Profile.parseWith(KERNEL_DATA, "kernel.data", { kallsyms: "main;f 1\n" }), /kallsyms: not a \/proc\/kallsyms text/);
  assert.throws(() => Profile.parseWith(KERNEL_DATA, "kernel.data", { kallsyms: 42 }), /kallsyms: expected a string or a Uint8Array/);
});

test("a gzipped dwarf.data with work is unwound as the plain one", () => {
  const plain = fs.readFileSync(path.join(DIR, "dwarf.data"));
  const totals = (bytes) => {
    const p = Profile.parseWith(bytes, "dwarf.data", { binaries: [WORK] });
    const t = totalByName(p);
    p.free();
    return t;
  };
  const unzipped = totals(plain);
  assert.equal(unzipped.get("main"), 25);
  assert.deepEqual(totals(zlib.gzipSync(plain)), unzipped);
});
