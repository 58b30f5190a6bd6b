// `npx proftab VERB …` (js/cli.mjs, the CLI's verbs on the wasm build) against the native
// binary as judge: for each command line, the same standard output (bytes), standard error and
// exit status; `convert` writes the same file bytes. Needs target/release/proftab (or debug),
// which scripts/build.sh builds.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { ROOT } from "./helpers.mjs";

const NATIVE = ["release", "debug"].map((p) => path.join(ROOT, "target", p, "proftab")).find((f) => fs.existsSync(f));
const NODE_CLI = path.join(ROOT, "js/cli.mjs");
const fixture = (f) => path.join("tests/fixtures", f);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "proftab-cli-"));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Runs a command in ROOT (so both name files alike): `{stdout (Buffer), stderr, status}`. */
function run(cmd, args, input) {
  const r = spawnSync(cmd, args, { cwd: ROOT, input, maxBuffer: 1 << 28 });
  return { stdout: r.stdout, stderr: r.stderr.toString(), status: r.status };
}

/** Both commands on `args` (stdin `input`): the same stdout bytes, stderr and status; the Node run. */
function same(args, input) {
  const native = run(NATIVE, args, input);
  const node = run(process.execPath, [NODE_CLI, ...args], input);
  assert.equal(node.stderr, native.stderr, `stderr of ${args.join(" ")}`);
  assert.equal(node.status, native.status, `status of ${args.join(" ")}`);
  assert.ok(node.stdout.equals(native.stdout), `stdout of ${args.join(" ")}:\n${node.stdout}\n---\n${native.stdout}`);
  return node;
}

const skip = () => {
  if (NATIVE) return false;
  console.log("SKIP: target/release/proftab is not built (bash scripts/build.sh)");
  return true;
};

test("info, top, list, diff, validate and help print what the native binary prints", () => {
  if (skip()) return;
  const cpu = fixture("pprof/cpu.pb.gz");
  const lines = [
    ["info", cpu],
    ["info", cpu, "--json"],
    ["info", fixture("rprof/combined.out")],
    ["top", cpu],
    ["top", cpu, "--by", "line", "--limit", "5"],
    ["top", fixture("pprof/heap.pb.gz"), "--type", "inuse_space", "--json"],
    ["top", fixture("tables-json/wasm-api-tiny.json")],
    ["list", "main", cpu, "--source-dir", fixture("pprof/src")],
    ["list", "main", cpu, "--json"],
    ["diff", fixture("diff/base.pb.gz"), fixture("diff/new.pb.gz")],
    // perf.data: symbolised from --symbols, perf's ~/.debug cache and the recorded paths.
    ["top", fixture("perf-data/fp.data"), "--symbols", fixture("perf-data")],
    ["top", fixture("perf-data/multi.data")],
    ["validate", cpu],
    ["validate", fixture("cli/validate-violations.json")],
    ["help"],
    ["help", "convert"],
    ["top", "--help"],
    ["--version"],
  ];
  for (const args of lines) same(args);
  assert.match(same(["top", cpu]).stdout.toString(), /flat%/, "top prints its table");
});

test("standard input is read for `-`", () => {
  if (skip()) return;
  same(["top", "-"], fs.readFileSync(fixture("pprof/cpu.pb.gz")));
});

test("convert writes the same bytes, to a file and to standard output", () => {
  if (skip()) return;
  for (const [input, out] of [
    ["pprof/cpu.pb.gz", "cpu.collapsed"],
    ["pprof/heap.pb.gz", "heap.speedscope.json"],
    ["rprof/combined.out", "combined.pb.gz"],
  ]) {
    const [a, b] = ["native", "node"].map((who) => path.join(tmp, `${who}-${out}`));
    const native = run(NATIVE, ["convert", fixture(input), "-o", a]);
    const node = run(process.execPath, [NODE_CLI, "convert", fixture(input), "-o", b]);
    assert.equal(node.status, 0, node.stderr);
    assert.equal(node.stderr, native.stderr.replaceAll(a, b));
    assert.ok(fs.readFileSync(b).equals(fs.readFileSync(a)), `convert ${input} -o ${out}: the files differ`);
    assert.ok(fs.statSync(b).size > 0);
  }
  same(["convert", fixture("pprof/cpu.pb.gz"), "-o", "-", "--to", "collapsed"]);
});

test("errors: the same messages and exit statuses", () => {
  if (skip()) return;
  const cases = [
    [[], 2],
    [["frobnicate"], 2],
    [["top", "no/such/file.pb.gz"], 1],
    [["top", "tests/fixtures"], 1],
    [["top", fixture("invalid/pprof/eleven-byte-varint.pb")], 1],
    [["top", fixture("pprof/cpu.pb.gz"), "--type", "nope"], 1],
    [["top", fixture("pprof/cpu.pb.gz"), "--bogus"], 2],
    [["list", "(", fixture("pprof/cpu.pb.gz")], 2],
    [["list", "main", fixture("pprof/cpu.pb.gz"), "--source-dir", "no/such/dir"], 1],
    [["convert", fixture("pprof/cpu.pb.gz")], 2],
    [["convert", fixture("pprof/cpu.pb.gz"), "-o", path.join(tmp, "no/such/dir/out.pb.gz")], 1],
  ];
  for (const [args, status] of cases) {
    const node = same(args);
    assert.equal(node.status, status, `status of ${args.join(" ")}`);
    assert.match(node.stderr, /^proftab: /, `message of ${args.join(" ")}`);
  }
});

test("view: a file that cannot be read fails before serving, with the CLI's message", () => {
  if (skip()) return;
  const native = run(NATIVE, ["top", "no/such.pb.gz"]);
  for (const args of [
    ["view", "no/such.pb.gz"],
    ["view", "tests/fixtures"],
  ]) {
    const node = run(process.execPath, [NODE_CLI, ...args, "--no-open"]);
    assert.equal(node.status, 1);
    assert.equal(node.stdout.length, 0, "no address printed");
    if (args[1] === "no/such.pb.gz") assert.equal(node.stderr, native.stderr);
    else assert.equal(node.stderr, "proftab: cannot read tests/fixtures: Is a directory (os error 21)\n");
  }
  const usage = run(process.execPath, [NODE_CLI, "view", "--port", "x"]);
  assert.equal(usage.status, 2);
  assert.equal(usage.stderr, 'proftab: --port needs a port number, got "x" (see `proftab view --help`)\n');
});

/** Starts `proftab FILE` with `env`; resolves to `{child, out}` once the address is printed (and what follows it). */
async function startView(args, env) {
  const child = spawn(process.execPath, [NODE_CLI, ...args], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stderr.on("data", (d) => {
    out += d;
  });
  await new Promise((resolve, reject) => {
    child.stdout.on("data", (d) => {
      out += d;
      if (/Ctrl-C stops/.test(out)) resolve();
    });
    child.once("exit", (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
  return { child, out: () => out };
}

/** Waits until `ready()` holds, for 20 s at most (a loaded machine starts processes slowly). */
async function until(ready) {
  for (let i = 0; i < 400 && !ready(); i++) await new Promise((r) => setTimeout(r, 50));
}

test("view opens the browser with xdg-open when there is a display, and not without one", async (t) => {
  if (process.platform !== "linux") return t.skip("xdg-open is the Linux opener");
  if (!fs.existsSync(path.join(ROOT, "dist/index.html"))) return console.log("SKIP: dist/ is not built");
  const bin = fs.mkdtempSync(path.join(tmp, "bin-"));
  const opened = path.join(bin, "opened.txt");
  fs.writeFileSync(path.join(bin, "xdg-open"), `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`, { mode: 0o755 });
  const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, DISPLAY: ":99" };
  delete env.WAYLAND_DISPLAY;
  const withDisplay = await startView([fixture("pprof/cpu.pb.gz")], env);
  const url = withDisplay.out().match(/http:\/\/127\.0\.0\.1:\d+\/\S+/)[0];
  await until(() => fs.existsSync(opened) && fs.statSync(opened).size > 0);
  assert.equal(fs.readFileSync(opened, "utf8"), url, "xdg-open got the printed address");
  withDisplay.child.kill("SIGINT");
  assert.deepEqual(await once(withDisplay.child, "exit"), [0, null]);

  fs.rmSync(opened);
  delete env.DISPLAY;
  const noDisplay = await startView([fixture("pprof/cpu.pb.gz")], env);
  await until(() => /no display/.test(noDisplay.out()));
  assert.match(noDisplay.out(), /no display: open the address in a browser/);
  noDisplay.child.kill("SIGINT");
  assert.deepEqual(await once(noDisplay.child, "exit"), [0, null]);
  assert.equal(fs.existsSync(opened), false, "no browser started");
});
