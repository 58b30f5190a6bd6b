// profile.toArrow() / toParquet() / Profile.fromArrow() / fromParquet() of the npm package
// (js/columnar.mjs over the second wasm build), judged by npm apache-arrow, pyarrow and DuckDB
// (tests/support/columnar_judge.py, the judge of the CLI's datasets), and by the CLI itself.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { tableFromIPC } from "apache-arrow";
import { NO_INDEX, Profile } from "../../js/node.mjs";
import { ROOT, TINY } from "./helpers.mjs";

const INPUTS = ["pprof/cpu.pb.gz", "rprof/memory.out", "cpuprofile/node-cpu-prof.cpuprofile"].map((f) =>
  path.join(ROOT, "tests/fixtures", f),
);
const JUDGE = path.join(ROOT, "tests/support/columnar_judge.py");
const CLI = path.join(ROOT, "target/release/proftab");
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "proftab-columnar-js-"));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

const read = (file) => Profile.parse(fs.readFileSync(file), path.basename(file));
const text = (bytes) => new TextDecoder().decode(bytes);

/** Writes `{table: bytes}` as a dataset directory (`dir/<table>/part-00000.<ext>`). */
function writeDataset(files, dir, ext) {
  for (const [table, bytes] of Object.entries(files)) {
    fs.mkdirSync(path.join(dir, table), { recursive: true });
    fs.writeFileSync(path.join(dir, table, `part-00000${ext}`), bytes);
  }
}

/** The judge's report of a dataset directory, or null when pyarrow / duckdb are missing. */
function judge(container, dir) {
  const r = spawnSync("python3", [JUDGE, container, dir], { encoding: "utf8" });
  if (r.status === 3 || r.error) return null;
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

/** The function with the largest self value of the default value type, computed from the
 * profile's own columns (ties: the smaller name), as `[name, self]`. */
function topBySelf(p) {
  const info = p.info();
  const values = p.values(info.defaultValueType);
  const [stack, loc, fn, name, strings] = [p.sampleStack(), p.stackLocation(), p.locationFunction(), p.functionName(), p.strings()];
  const self = new Map();
  values.forEach((v, s) => {
    if (Number.isNaN(v) || stack[s] === NO_INDEX) return;
    const f = fn[loc[stack[s]]];
    if (f === NO_INDEX) return;
    const n = strings[name[f]];
    self.set(n, (self.get(n) ?? 0) + v);
  });
  const rows = [...self].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return rows[0];
}

test("toArrow: one IPC file per table that apache-arrow reads, with the rows and types of the tables", async () => {
  for (const file of [TINY, ...INPUTS]) {
    const p = read(file);
    const files = await p.toArrow();
    const tables = p.info().tables;
    for (const t of tables) {
      const arrow = tableFromIPC(files[t.name]);
      assert.equal(arrow.numRows, t.rows, `${file}: ${t.name}`);
    }
    assert.deepEqual(Object.keys(files).slice(0, 7), [
      "meta",
      "sources",
      "samples",
      "sample_values",
      "sample_locations",
      "locations",
      "functions",
    ]);
    assert.ok("value_types" in files && "column_types" in files, file);
    const samples = tableFromIPC(files.samples);
    assert.equal(String(samples.schema.fields.find((f) => f.name === "sample_id").type), "Int32");
    assert.deepEqual(Array.from(samples.getChild("sample_id").toArray()).slice(0, 3), [1, 2, 3].slice(0, p.numSamples));
    const functions = tableFromIPC(files.functions);
    assert.match(String(functions.schema.fields.find((f) => f.name === "name").type), /^Dictionary<Int32, Utf8>$/);
    // The stream format holds the same table.
    const stream = await p.toArrow({ stream: true });
    assert.ok(!text(stream.samples.subarray(0, 6)).startsWith("ARROW1"));
    assert.equal(tableFromIPC(stream.samples).numRows, samples.numRows);
    p.free();
  }
});

test("fromArrow / fromParquet give back the same tables-JSON (file and stream format)", async () => {
  for (const file of [TINY, ...INPUTS]) {
    const p = read(file);
    const want = text(p.write("tables-json"));
    for (const files of [await p.toArrow(), await p.toArrow({ stream: true })]) {
      const back = await Profile.fromArrow(files);
      assert.equal(text(back.write("tables-json")), want, file);
      back.free();
    }
    const back = await Profile.fromParquet(await p.toParquet());
    assert.equal(text(back.write("tables-json")), want, file);
    back.free();
    p.free();
  }
});

test("fromArrow: a broken file or a broken table is an error naming the table", async () => {
  const p = read(TINY);
  const files = await p.toArrow();
  await assert.rejects(Profile.fromArrow({ ...files, samples: new Uint8Array([1, 2, 3]) }), /arrow: table samples/);
  await assert.rejects(Profile.fromArrow({ samples: files.samples }), /arrow/);
  await assert.rejects(Profile.fromArrow({ ...files, samples: "x" }), /table samples: expected a Uint8Array/);
  p.free();
});

test("toArrow / toParquet write the bytes of the CLI's dataset files", {
  skip: !fs.existsSync(CLI) && "target/release/proftab is not built",
}, async () => {
  for (const file of INPUTS) {
    // The CLI records the path as given in sources.source_uri.
    const p = Profile.parse(fs.readFileSync(file), file);
    for (const [container, files] of [
      ["arrow", await p.toArrow()],
      ["parquet", await p.toParquet()],
    ]) {
      const dir = path.join(scratch, `cli-${container}-${path.basename(file)}`);
      execFileSync(CLI, ["convert", file, "-o", dir, "--to", container]);
      for (const [table, bytes] of Object.entries(files)) {
        const disk = fs.readFileSync(path.join(dir, table, `part-00000.${container}`));
        assert.ok(Buffer.from(bytes).equals(disk), `${file} ${container}: ${table}`);
      }
      assert.deepEqual(Object.keys(files).sort(), fs.readdirSync(dir).sort());
    }
    p.free();
  }
});

test("pyarrow and DuckDB read toArrow's and toParquet's tables; DuckDB's top function by self is the profile's", async (t) => {
  for (const file of INPUTS) {
    const p = read(file);
    for (const [container, files] of [
      ["arrow", await p.toArrow()],
      ["parquet", await p.toParquet()],
    ]) {
      const dir = path.join(scratch, `judge-${container}-${path.basename(file)}`);
      writeDataset(files, dir, `.${container}`);
      const report = judge(container, dir);
      if (!report) return t.skip("python3 with pyarrow and duckdb is missing (scripts/setup.sh installs them)");
      for (const table of p.info().tables) assert.equal(report.tables[table.name], table.rows, `${file} ${container}: ${table.name}`);
      assert.deepEqual(report.top, topBySelf(p), `${file} ${container}`);
    }
    p.free();
  }
});

test("the viewer's dataset zip unzips (python zipfile) into a dataset that DuckDB reads", (t) => {
  const columnar = createRequire(import.meta.url)("../../pkg/columnar-node/proftab.js");
  const file = INPUTS[0];
  const p = columnar.Profile.parse(fs.readFileSync(file), path.basename(file));
  for (const container of ["parquet", "arrow"]) {
    const zip = path.join(scratch, `cpu-${container}.zip`);
    fs.writeFileSync(zip, p.datasetZip(container, "cpu"));
    const out = path.join(scratch, `unzipped-${container}`);
    const r = spawnSync(
      "python3",
      ["-c", "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None; z.extractall(sys.argv[2])", zip, out],
      {
        encoding: "utf8",
      },
    );
    assert.equal(r.status, 0, r.stderr);
    const report = judge(container, path.join(out, "cpu"));
    if (!report) return t.skip("python3 with pyarrow and duckdb is missing");
    assert.equal(report.tables.samples, p.numSamples);
  }
  assert.throws(() => p.datasetZip("arrow", "../x"), /cannot name a dataset folder/);
  p.free();
});
