// How proftab scales with the number of samples (issue #12): time and peak memory of proftab
// (native CLI, the npm package in Node, the viewer in Chromium cold) beside speedscope,
// pprof-format in Node and `go tool pprof`, on the same synthetic pprof files of 10k … 2M
// samples. Prints a markdown table, appends every run to a JSONL file and draws
// bench/scale.svg (time and memory against samples, log-log).
//
//   node bench/scale.mjs [--sizes 10k,100k,500k,1M,2M] [--runs 1] [--tools LIST]
//                        [--timeout-s 240] [--max TOOL=SIZE,...] [--data DIR] [--svg FILE]
//                        [--jsonl FILE] [--from FILE.jsonl]
//
// Tools: native (`target/release/proftab info FILE`), node (`scripts/bench-parse-wasm.mjs`,
// one `Profile.parse` in a fresh process), chromium (proftab's viewer: drop → first drawn
// flame graph, fresh --user-data-dir per run, through ../shared/bench/viewer-load.mjs and
// bench/viewers.mjs), speedscope (the same harness, its file input), pprof-format
// (`scripts/bench-floor-node.mjs`: zlib.gunzipSync + pprof-format 2.3.2 decode) and go
// (`go tool pprof -top FILE`). Time is the wall time of the whole process (so Node's start-up
// and the wasm compile are in it), or load → drawn in the page for the two viewers; memory is
// the process's peak RSS (GNU time %M), or the renderer's peak RSS for the viewers.
//
// Runs are interleaved: for each size, run 1 of every tool, then run 2 …, so a change in the
// machine's load hits every tool alike; each row records the 1-minute load average. A tool
// that failed or timed out on a size is not run on larger sizes. `--max` caps a tool's
// sizes (default speedscope=100k: it crashes from 400k samples, shared/bench/README.md).
// Inputs are made once into --data (default /tmp/proftab-scale) by
// ../shared/bench/gen/gen_profile.py (seed 1); they are never committed. Needs the release
// CLI and pkg/node (scripts/build.sh), dist-test/ for chromium, speedscope and
// playwright-core under ../shared/.cache/npm (see ../shared/bench/README.md), pprof-format
// (`npm install --prefix DIR pprof-format@2.3.2`, given by --pprof-format DIR/node_modules/
// pprof-format), go and /usr/bin/time.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SHARED = process.env.PROFTAB_SHARED ?? path.resolve(ROOT, "../shared");
const TOOLS = ["native", "node", "chromium", "speedscope", "pprof-format", "go"];
const LABELS = {
  native: "proftab native (`info`)",
  node: "proftab Node (`Profile.parse`)",
  chromium: "proftab Chromium cold (drop → drawn)",
  speedscope: "speedscope 1.25 Chromium cold (→ drawn)",
  "pprof-format": "pprof-format 2.3.2 Node (gunzip + decode)",
  go: "`go tool pprof -top`",
};

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "10k,100k,500k,1M,2M" },
    runs: { type: "string", default: "1" },
    tools: { type: "string", default: TOOLS.join(",") },
    "timeout-s": { type: "string", default: "240" },
    max: { type: "string", default: "speedscope=100k" },
    data: { type: "string", default: "/tmp/proftab-scale" },
    svg: { type: "string", default: path.join(ROOT, "bench/scale.svg") },
    jsonl: { type: "string" },
    from: { type: "string" },
    "pprof-format": { type: "string", default: "/tmp/proftab-scale/pf/node_modules/pprof-format" },
  },
});

/** `"10k"` → 10000, `"2M"` → 2000000. */
function count(size) {
  const m = /^(\d+(?:\.\d+)?)([kM]?)$/.exec(size);
  if (!m) throw new Error(`bad size '${size}' (like 10k or 2M)`);
  return Number(m[1]) * { "": 1, k: 1e3, M: 1e6 }[m[2]];
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : NaN;
};

/** Runs `cmd args`, resolving `{code, stdout, stderr, ms, timedOut}`; kills it after `timeoutS`. */
function run(cmd, args, timeoutS, env = process.env) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { env, detached: true });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {}
    }, timeoutS * 1000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: performance.now() - t0, timedOut });
    });
  });
}

/** A process under GNU time: wall ms and peak RSS MiB (`%M` is the largest of the tree). */
async function timedProcess(cmd, args, timeoutS) {
  const marker = "@@maxrss=";
  const r = await run("/usr/bin/time", ["-f", `${marker}%M`, cmd, ...args], timeoutS);
  if (r.timedOut) return { status: "timeout", ms: r.ms };
  const rss = /@@maxrss=(\d+)/.exec(r.stderr);
  if (r.code !== 0)
    return {
      status: "error",
      ms: r.ms,
      error: r.stderr
        .replace(/@@maxrss=\d+\s*$/, "")
        .trim()
        .slice(-300),
    };
  return { status: "ok", ms: r.ms, peakMiB: rss ? Number(rss[1]) / 1024 : NaN, stdout: r.stdout };
}

/**
 * `r` with `innerMs`, the in-process time `inner` reads from the script's JSON line (the
 * issue's Node measure: `Profile.parse` against gunzip + decode, without Node's start-up).
 */
function withInner(r, inner) {
  const { stdout, ...rest } = r;
  const line = stdout?.split("\n").find((l) => l.startsWith("{"));
  if (rest.status !== "ok" || !line) return rest;
  return { ...rest, innerMs: inner(JSON.parse(line)) };
}

/** One viewer run through the shared harness: load → drawn ms and renderer peak RSS. */
async function viewerRun(viewer, file, timeoutS) {
  const harness = path.join(SHARED, "bench/viewer-load.mjs");
  const env = { ...process.env, BENCH_VIEWERS: path.join(ROOT, "bench/viewers.mjs") };
  const r = await run(process.execPath, [harness, viewer, file, "1", "--timeout-s", String(timeoutS)], timeoutS + 120, env);
  const line = r.stdout.split("\n").find((l) => l.startsWith("{"));
  if (!line) return { status: r.timedOut ? "timeout" : "error", ms: r.ms, error: r.stderr.trim().slice(-300) };
  const j = JSON.parse(line);
  const peakMiB = j.renderer?.peakRssMB;
  if (!j.ok) return { status: j.status, ms: j.failedAfterMs ?? r.ms, peakMiB, error: j.error };
  const d = j.drawnDetail ?? {};
  return { status: "ok", ms: j.loadMs, peakMiB, parseMs: d.parseMs, wasmMiB: d.wasmMB };
}

const RUNNERS = {
  native: (file, t) => timedProcess(path.join(ROOT, "target/release/proftab"), ["info", file], t),
  node: async (file, t) =>
    withInner(
      await timedProcess(process.execPath, [path.join(ROOT, "scripts/bench-parse-wasm.mjs"), file, "--runs", "1"], t),
      (j) => j.wallMs[0],
    ),
  chromium: (file, t) => viewerRun("proftab", file, t),
  speedscope: (file, t) => viewerRun("speedscope", file, t),
  "pprof-format": async (file, t) =>
    withInner(
      await timedProcess(
        process.execPath,
        [path.join(ROOT, "scripts/bench-floor-node.mjs"), file, "--pprof-format", values["pprof-format"]],
        t,
      ),
      (j) => j.inflateMs[0] + j.decodeMs[0],
    ),
  go: (file, t) => timedProcess("go", ["tool", "pprof", "-top", file], t),
};

/** The input of `size` samples, generated when missing. */
async function input(size) {
  fs.mkdirSync(values.data, { recursive: true });
  const file = path.join(values.data, `synth-${size}.pb.gz`);
  if (fs.existsSync(file)) return file;
  const gen = path.join(SHARED, "bench/gen/gen_profile.py");
  console.error(`generating ${file}`);
  const r = await run("python3", [gen, "--lines", String(count(size)), "--seed", "1", "--format", "pprof", "--out", `${file}.tmp`], 3600);
  if (r.code !== 0) throw new Error(`gen_profile.py failed: ${r.stderr}`);
  fs.renameSync(`${file}.tmp`, file);
  return file;
}

/** Measures every tool on every size, interleaved run by run; returns the rows. */
async function measure(sizes, tools, runs, timeoutS, caps) {
  const rows = [];
  const out = values.jsonl ?? path.join(values.data, `scale-${new Date().toISOString().replace(/[:.]/g, "-")}.jsonl`);
  const stopped = new Set();
  for (const size of sizes) {
    const file = await input(size);
    for (let rep = 1; rep <= runs; rep++) {
      for (const tool of tools) {
        if (stopped.has(tool) || (caps[tool] && count(size) > count(caps[tool]))) continue;
        const load1 = os.loadavg()[0];
        const r = await RUNNERS[tool](file, timeoutS);
        const row = { tool, size, samples: count(size), fileBytes: fs.statSync(file).size, rep, load1, ...r };
        rows.push(row);
        fs.appendFileSync(out, `${JSON.stringify(row)}\n`);
        console.error(
          `${size} ${tool} rep ${rep}: ${r.status} ${(r.ms / 1000).toFixed(2)} s, ${r.peakMiB?.toFixed(0) ?? "?"} MiB (load ${load1.toFixed(1)})${r.error ? ` ${r.error}` : ""}`,
        );
        if (r.status !== "ok") stopped.add(tool);
      }
    }
  }
  console.error(`runs appended to ${out}`);
  return rows;
}

/** Median time and memory per tool and size: `{tool: {size: {ms, peakMiB, runs, status, load}}}`. */
function summarize(rows) {
  const by = {};
  for (const r of rows) {
    by[r.tool] ??= {};
    by[r.tool][r.size] ??= { rows: [] };
    by[r.tool][r.size].rows.push(r);
  }
  for (const sizes of Object.values(by)) {
    for (const cell of Object.values(sizes)) {
      const ok = cell.rows.filter((r) => r.status === "ok");
      cell.status = ok.length ? "ok" : cell.rows[0].status;
      cell.ms = median((ok.length ? ok : cell.rows).map((r) => r.ms));
      cell.peakMiB = median(ok.map((r) => r.peakMiB).filter(Number.isFinite));
      cell.runs = `${ok.length}/${cell.rows.length}`;
      cell.load = cell.rows.map((r) => r.load1);
    }
  }
  return by;
}

function cellText(cell) {
  if (!cell) return "–";
  const t = `${(cell.ms / 1000).toFixed(cell.ms < 10000 ? 2 : 1)} s`;
  if (cell.status !== "ok") return `**${cell.status}** after ${t}`;
  const mem = Number.isFinite(cell.peakMiB) ? ` / ${Math.round(cell.peakMiB)} MiB` : "";
  return `${t}${mem}`;
}

/** The markdown table: one row per tool, one column per size (time / peak memory). */
function table(by, sizes) {
  const head = `| tool | ${sizes.join(" | ")} |`;
  const rule = `|---|${sizes.map(() => "---").join("|")}|`;
  const lines = Object.keys(LABELS)
    .filter((t) => by[t])
    .map((t) => `| ${LABELS[t]} | ${sizes.map((s) => cellText(by[t][s])).join(" | ")} |`);
  const inner = innerLines(by, sizes);
  if (inner.length) lines.push("", ...inner);
  const loads = Object.values(by).flatMap((s) => Object.values(s).flatMap((c) => c.load));
  const loadText = `1-minute load average during the runs: ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`;
  return [head, rule, ...lines, "", loadText].join("\n");
}

/**
 * The issue's Node measure per size, in-process: `Profile.parse` (cold, one per process)
 * against pprof-format's gunzip + decode, medians and the ratio of each run pair.
 */
function innerLines(by, sizes) {
  const out = [];
  for (const s of sizes) {
    const [node, pf] = [by.node?.[s], by["pprof-format"]?.[s]];
    if (!node || !pf) continue;
    const pairs = node.rows
      .map((r) => [r, pf.rows.find((q) => q.rep === r.rep)])
      .filter(([a, b]) => a.innerMs > 0 && b?.innerMs > 0)
      .map(([a, b]) => `${(b.innerMs / a.innerMs).toFixed(1)}×`);
    if (!pairs.length) continue;
    const ms = (c) => (median(c.rows.map((r) => r.innerMs).filter(Number.isFinite)) / 1000).toFixed(2);
    out.push(
      `In-process at ${s}: \`Profile.parse\` ${ms(node)} s, pprof-format gunzip + decode ${ms(pf)} s (medians); pprof-format ÷ proftab per run: ${pairs.join(", ")}.`,
    );
  }
  return out;
}

// ---------------------------------------------------------------- the SVG plot

const COLORS = { native: "#1b7837", node: "#5aae61", chromium: "#00441b", speedscope: "#c51b7d", "pprof-format": "#e08214", go: "#2166ac" };

/** One log-log panel at `x0` of `quantity` (`ms` or `peakMiB`) against samples. */
function panel(by, sizes, x0, quantity, title, unit, scale) {
  const W = 440;
  const H = 300;
  const pad = { l: 56, r: 12, t: 28, b: 40 };
  const xs = sizes.map(count);
  const vals = Object.values(by).flatMap((s) =>
    Object.values(s)
      .filter((c) => c.status === "ok")
      .map((c) => c[quantity] * scale),
  );
  const lx = (v) => Math.log10(v);
  const [xmin, xmax] = [lx(Math.min(...xs)), lx(Math.max(...xs))];
  const ymin = Math.floor(lx(Math.min(...vals.filter((v) => v > 0))));
  const ymax = Math.ceil(lx(Math.max(...vals)));
  const px = (v) => x0 + pad.l + ((lx(v) - xmin) / (xmax - xmin || 1)) * (W - pad.l - pad.r);
  const py = (v) => pad.t + (1 - (lx(v) - ymin) / (ymax - ymin || 1)) * (H - pad.t - pad.b);
  const parts = [`<text x="${x0 + W / 2}" y="16" text-anchor="middle" font-weight="bold">${title}</text>`];
  for (let e = ymin; e <= ymax; e++) {
    const y = py(10 ** e);
    parts.push(`<line x1="${x0 + pad.l}" x2="${x0 + W - pad.r}" y1="${y}" y2="${y}" stroke="#ddd"/>`);
    parts.push(
      `<text x="${x0 + pad.l - 6}" y="${y + 4}" text-anchor="end">${10 ** e >= 1 ? 10 ** e : (10 ** e).toFixed(-e)} ${unit}</text>`,
    );
  }
  for (const s of sizes) {
    const x = px(count(s));
    parts.push(`<line x1="${x}" x2="${x}" y1="${pad.t}" y2="${H - pad.b}" stroke="#eee"/>`);
    parts.push(`<text x="${x}" y="${H - pad.b + 16}" text-anchor="middle">${s}</text>`);
  }
  parts.push(`<text x="${x0 + W / 2}" y="${H - 6}" text-anchor="middle">samples</text>`);
  for (const [tool, cells] of Object.entries(by)) {
    const pts = sizes.filter((s) => cells[s]?.status === "ok").map((s) => [px(count(s)), py(cells[s][quantity] * scale)]);
    if (!pts.length) continue;
    const c = COLORS[tool];
    parts.push(
      `<polyline fill="none" stroke="${c}" stroke-width="2" points="${pts.map((p) => p.map((v) => v.toFixed(1)).join(",")).join(" ")}"/>`,
    );
    for (const [x, y] of pts) parts.push(`<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="3" fill="${c}"/>`);
    const failed = sizes.find((s) => cells[s] && cells[s].status !== "ok");
    if (failed) {
      const [x, y] = [px(count(failed)), pts.at(-1)[1]];
      parts.push(`<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" fill="${c}" text-anchor="middle">✕ ${cells[failed].status}</text>`);
    }
  }
  return parts.join("\n");
}

function svg(by, sizes, note) {
  const tools = Object.keys(LABELS).filter((t) => by[t]);
  const legend = tools.map(
    (t, i) =>
      `<rect x="${20 + (i % 3) * 290}" y="${312 + Math.floor(i / 3) * 18}" width="12" height="12" fill="${COLORS[t]}"/>` +
      `<text x="${38 + (i % 3) * 290}" y="${322 + Math.floor(i / 3) * 18}">${LABELS[t].replaceAll("`", "")}</text>`,
  );
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="900" height="${360 + 4}" font-family="sans-serif" font-size="11">`,
    "<title>proftab scale: time and peak memory against samples, log-log</title>",
    `<rect width="100%" height="100%" fill="white"/>`,
    panel(by, sizes, 0, "ms", "time (load → drawn, or whole process)", "s", 1 / 1000),
    panel(by, sizes, 450, "peakMiB", "peak memory (RSS; renderer for viewers)", "MiB", 1),
    ...legend,
    `<text x="20" y="${356}" fill="#555">${note}</text>`,
    "</svg>",
  ].join("\n");
}

// ---------------------------------------------------------------- main

const sizes = values.sizes.split(",");
let rows;
if (values.from) {
  rows = fs
    .readFileSync(values.from, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
} else {
  const tools = values.tools.split(",");
  for (const t of tools) if (!RUNNERS[t]) throw new Error(`unknown tool '${t}'; known: ${TOOLS.join(", ")}`);
  const caps = Object.fromEntries(
    values.max
      .split(",")
      .filter(Boolean)
      .map((kv) => kv.split("=")),
  );
  rows = await measure(sizes, tools, Number(values.runs), Number(values["timeout-s"]), caps);
}
const by = summarize(rows);
const shown = sizes.filter((s) => Object.values(by).some((c) => c[s]));
const text = table(by, shown);
console.log(text);
const note = `synthetic pprof (gen_profile.py seed 1), ${os.cpus().length} CPUs; ${text.split("\n").at(-1)}; log-log`;
fs.writeFileSync(values.svg, svg(by, shown, note));
console.error(`wrote ${path.relative(process.cwd(), values.svg)}`);
