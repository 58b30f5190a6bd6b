// Runs and summarizes the parse benchmark of `scripts/bench-parse.sh` (which builds and
// generates the inputs first):
//   node scripts/bench-parse.mjs [--reps N] [--wasm-runs N] [--cli PATH] FILE...
// Per file and repetition, interleaved so that load drift hits all alike:
//   native: `proftab info FILE` (release CLI: read + gunzip + parse + summary), under GNU time
//           (wall, user+sys CPU, max RSS);
//   wasm:   scripts/bench-parse-wasm.mjs in a fresh Node (Profile.parse on the bytes; run 1
//           cold, the rest warm; wasm memory size and process peak RSS);
//   go:     `go tool pprof -top FILE` under GNU time, for pprof files only.
// Prints the JSON of every run to stderr and markdown tables (medians) to stdout.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import zlib from "node:zlib";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const TIME = "/usr/bin/time";

function parseArgs(argv) {
  const o = { reps: 3, wasmRuns: 3, cli: path.join(ROOT, "target/release/proftab"), files: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--reps") o.reps = Number(argv[++i]);
    else if (argv[i] === "--wasm-runs") o.wasmRuns = Number(argv[++i]);
    else if (argv[i] === "--cli") o.cli = argv[++i];
    else o.files.push(argv[i]);
  }
  if (!(o.reps >= 1) || !(o.wasmRuns >= 1) || o.files.length === 0) {
    throw new Error("usage: bench-parse.mjs [--reps N] [--wasm-runs N] [--cli PATH] FILE...");
  }
  return o;
}

function median(xs) {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

const isGzip = (b) => b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;
const isPprof = (file) => /\.pb(\.gz)?$|\.pprof$|\.prof$/.test(file);

/** Runs `cmd` under GNU time: wall s, CPU s (user + sys of it and its children), max RSS MiB. */
function timed(cmd, args) {
  const out = path.join(os.tmpdir(), `bench-parse-time-${process.pid}`);
  const r = spawnSync(TIME, ["-o", out, "-f", "%e %U %S %M", cmd, ...args], {
    stdio: ["ignore", "ignore", "pipe"],
    maxBuffer: 1 << 26,
  });
  const report = fs.existsSync(out) ? fs.readFileSync(out, "utf8") : "";
  fs.rmSync(out, { force: true });
  const fields = report.trim().split("\n").pop().split(" ").map(Number);
  const [wall, user, sys, maxKiB] = fields;
  const ok = r.status === 0 && fields.length === 4 && fields.every(Number.isFinite);
  return {
    ok,
    wallS: wall,
    cpuS: user + sys,
    maxRssMiB: maxKiB / 1024,
    error: ok ? undefined : `${r.error ?? ""}${r.stderr ?? ""}${report}`.slice(0, 300),
  };
}

function wasmRun(file, runs) {
  const r = spawnSync(process.execPath, [path.join(ROOT, "scripts/bench-parse-wasm.mjs"), file, "--runs", String(runs)], {
    encoding: "utf8",
    maxBuffer: 1 << 26,
  });
  if (r.status !== 0) return { ok: false, error: (r.stderr || "").slice(0, 300) };
  const j = JSON.parse(r.stdout.trim().split("\n").pop());
  const warm = j.wallMs.length > 1 ? j.wallMs.slice(1) : j.wallMs;
  const warmCpu = j.cpuMs.length > 1 ? j.cpuMs.slice(1) : j.cpuMs;
  return {
    ok: true,
    coldS: j.wallMs[0] / 1e3,
    warmS: median(warm) / 1e3,
    warmCpuS: median(warmCpu) / 1e3,
    wasmMemMiB: j.wasmMemMiB,
    peakRssMiB: j.peakRssMiB,
    rssBeforeMiB: j.rssBeforeMiB,
    numSamples: j.numSamples,
    format: j.format,
  };
}

function describe(file) {
  const bytes = fs.readFileSync(file);
  const raw = isGzip(bytes) ? zlib.gunzipSync(bytes).length : bytes.length;
  return { name: path.basename(file), fileMB: bytes.length / 1e6, rawMB: raw / 1e6 };
}

function measureAll(o) {
  const goOk = spawnSync("go", ["version"], { stdio: "ignore" }).status === 0;
  if (!goOk) console.error("SKIP: go not found: no go tool pprof column");
  const results = o.files.map((f) => ({ file: f, ...describe(f), native: [], wasm: [], go: [], load: [] }));
  for (let rep = 1; rep <= o.reps; rep++) {
    for (const r of results) {
      r.load.push(os.loadavg()[0]);
      const runs = [["native", () => timed(o.cli, ["info", r.file])]];
      runs.push(["wasm", () => wasmRun(r.file, o.wasmRuns)]);
      if (goOk && isPprof(r.file)) runs.push(["go", () => timed("go", ["tool", "pprof", "-top", r.file])]);
      for (const [kind, run] of runs) {
        const m = { kind, file: r.name, rep, load1: os.loadavg()[0], ...run() };
        console.error(JSON.stringify(m));
        r[kind].push(m);
      }
    }
  }
  return results;
}

const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : "–");
const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : "–");
const f0 = (x) => (Number.isFinite(x) ? x.toFixed(0) : "–");
const med = (runs, key) => median(runs.filter((m) => m.ok).map((m) => m[key]));
const okCount = (runs) => `${runs.filter((m) => m.ok).length}/${runs.length}`;

function timeTable(results) {
  const rows = [
    "| file | size (uncompressed) | samples | native wall / CPU | native MB/s (CPU) | wasm warm wall / CPU | wasm MB/s (CPU) | wasm cold wall | wasm ÷ native (CPU) | `go tool pprof -top` wall / CPU | go ÷ native (CPU) |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const r of results) {
    const nCpu = med(r.native, "cpuS");
    const wCpu = med(r.wasm, "warmCpuS");
    const gCpu = med(r.go, "cpuS");
    const size = r.fileMB === r.rawMB ? `${f1(r.rawMB)} MB` : `${f1(r.fileMB)} MB gz (${f1(r.rawMB)} MB)`;
    rows.push(
      `| ${r.name} | ${size} | ${med(r.wasm, "numSamples").toLocaleString("en")} ` +
        `| ${f2(med(r.native, "wallS"))} s / ${f2(nCpu)} s | ${f0(r.rawMB / nCpu)} ` +
        `| ${f2(med(r.wasm, "warmS"))} s / ${f2(wCpu)} s | ${f0(r.rawMB / wCpu)} ` +
        `| ${f2(med(r.wasm, "coldS"))} s | ${f2(wCpu / nCpu)}× ` +
        `| ${r.go.length ? `${f2(med(r.go, "wallS"))} s / ${f2(gCpu)} s (${okCount(r.go)})` : "–"} ` +
        `| ${r.go.length ? `${f1(gCpu / nCpu)}×` : "–"} |`,
    );
  }
  return rows.join("\n");
}

function memoryTable(results) {
  const rows = [
    "| file | native max RSS | wasm linear memory | Node peak RSS (before parse) | `go tool pprof -top` max RSS |",
    "|---|---|---|---|---|",
  ];
  for (const r of results) {
    rows.push(
      `| ${r.name} | ${f0(med(r.native, "maxRssMiB"))} MiB | ${f0(med(r.wasm, "wasmMemMiB"))} MiB ` +
        `| ${f0(med(r.wasm, "peakRssMiB"))} MiB (${f0(med(r.wasm, "rssBeforeMiB"))} MiB) ` +
        `| ${r.go.length ? `${f0(med(r.go, "maxRssMiB"))} MiB` : "–"} |`,
    );
  }
  return rows.join("\n");
}

const o = parseArgs(process.argv.slice(2));
const t0 = Date.now();
const results = measureAll(o);
const loads = results.flatMap((r) => r.load);
console.log(
  `\n${o.reps} reps per file (wasm: ${o.wasmRuns} parses per Node process, run 1 cold); ` +
    `medians. 1-min load average during the runs: ${f1(Math.min(...loads))}–${f1(Math.max(...loads))} ` +
    `(median ${f1(median(loads))}), ${os.cpus().length} CPUs; ${((Date.now() - t0) / 1e3).toFixed(0)} s in all. ` +
    `Node ${process.version}.\n`,
);
console.log(timeTable(results));
console.log("");
console.log(memoryTable(results));
const failed = results.flatMap((r) => [...r.native, ...r.wasm, ...r.go]).filter((m) => !m.ok);
for (const m of failed) console.log(`\nFAILED ${m.kind} ${m.file} rep ${m.rep}: ${m.error}`);
