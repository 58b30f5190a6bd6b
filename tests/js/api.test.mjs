// The npm package's API from Node, through the package entry ("proftab" resolves to this
// repository's package.json exports, so this is what an installed package gives).
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { formats, INT_NA, NO_INDEX, Profile } from "proftab";
import { CORPUS, CORPUS_NEW, corpusFiles, ROOT, readableFormats, TINY } from "./helpers.mjs";

const readable = readableFormats(formats);

/**
 * Checks the columns of `p` against each other, recomputing in JS what the wasm side states:
 * references in range, prefix[i] < i, depths, sample_locations and sample_values row counts,
 * value totals.
 */
function checkColumns(p) {
  const n = p.numSamples;
  const strings = p.strings();
  assert.equal(strings[0], null);
  const prefix = p.stackPrefix();
  const depth = p.stackDepth();
  const stackLoc = p.stackLocation();
  const line = p.locationLine();
  const locFun = p.locationFunction();
  const fnName = p.functionName();
  for (let i = 0; i < prefix.length; i++) {
    const parent = prefix[i];
    assert.ok(parent === NO_INDEX || parent < i, `stack ${i}: prefix ${parent}`);
    assert.equal(depth[i], parent === NO_INDEX ? 1 : depth[parent] + 1, `stack ${i}: depth`);
    assert.ok(stackLoc[i] < line.length, `stack ${i}: location`);
  }
  for (const f of locFun) assert.ok(f === NO_INDEX || f < fnName.length);
  for (const col of [fnName, p.functionSystemName(), p.functionFilename(), p.sourceType(), p.sourceUri()]) {
    for (const id of col) assert.ok(id < strings.length, `string id ${id}`);
  }
  const stacks = p.sampleStack();
  const sources = p.sampleSource();
  assert.equal(stacks.length, n);
  assert.equal(sources.length, n);
  let frames = 0;
  for (let s = 0; s < n; s++) {
    assert.ok(stacks[s] === NO_INDEX || stacks[s] < prefix.length);
    assert.ok(sources[s] < p.sourceType().length);
    frames += stacks[s] === NO_INDEX ? 0 : depth[stacks[s]];
  }
  const info = p.info();
  const rows = Object.fromEntries(info.tables.map((t) => [t.name, t.rows]));
  assert.equal(rows.samples, n);
  assert.equal(rows.sample_locations, frames);
  assert.equal(rows.locations, line.length);
  assert.equal(rows.functions, fnName.length);
  let valueRows = 0;
  for (const vt of p.valueTypes()) {
    const values = p.values(vt.type);
    assert.equal(values.length, n);
    const present = values.filter((v) => !Number.isNaN(v));
    assert.equal(present.length, vt.rows, `${vt.type}: rows`);
    const sum = present.reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(sum - vt.total) <= 1e-9 * Math.max(1, Math.abs(sum)), `${vt.type}: total`);
    valueRows += vt.rows;
  }
  assert.equal(rows.sample_values, valueRows);
  return info;
}

/**
 * Each sample's stack as text, innermost frame first: `name file:line` per frame, decoded
 * through the string table (string and row ids may legitimately differ between two readers).
 */
function sampleStacksAsText(p) {
  const strings = p.strings();
  const [prefix, stackLoc, locFun, line] = [p.stackPrefix(), p.stackLocation(), p.locationFunction(), p.locationLine()];
  const [name, file] = [p.functionName(), p.functionFilename()];
  const frame = (loc) => {
    const f = locFun[loc];
    return f === NO_INDEX ? `? :${line[loc]}` : `${strings[name[f]]} ${strings[file[f]]}:${line[loc]}`;
  };
  return [...p.sampleStack()].map((node) => {
    const frames = [];
    for (let n = node; n !== NO_INDEX; n = prefix[n]) frames.push(frame(stackLoc[n]));
    return frames.join(" < ");
  });
}

/** Writes `p` as tables-JSON, reads it back, and checks that the tables say the same. */
function checkTablesJsonRoundTrip(p) {
  const again = Profile.parse(p.write("tables-json"));
  try {
    const { format: _a, warnings: _b, ...before } = p.info();
    const { format: _c, warnings: _d, ...after } = again.info();
    assert.deepEqual(after, before);
    assert.deepEqual(sampleStacksAsText(again), sampleStacksAsText(p));
    for (const vt of p.valueTypes()) assert.deepEqual(again.values(vt.type), p.values(vt.type));
    assert.deepEqual(again.validate(), []);
  } finally {
    again.free();
  }
}

describe("a tables-JSON document written by hand", () => {
  const parse = () => Profile.parse(fs.readFileSync(TINY), "tiny.json");

  test("parses to the tables it spells out", () => {
    const p = parse();
    assert.equal(p.format, "tables-json");
    assert.equal(p.numSamples, 3);
    const strings = p.strings();
    assert.deepEqual(
      [...p.functionName()].map((id) => strings[id]),
      ["main", "work", "leaf"],
    );
    assert.deepEqual(
      [...p.functionFilename()].map((id) => strings[id]),
      ["main.c", null, "leaf.c"],
    );
    assert.deepEqual([...p.locationLine()], [3, 7, 0]);
    // Stack nodes: 0 main, 1 main>work, 2 main>work>leaf.
    assert.deepEqual([...p.stackPrefix()], [NO_INDEX, 0, 1]);
    assert.deepEqual([...p.stackDepth()], [1, 2, 3]);
    assert.deepEqual([...p.sampleStack()], [2, 2, 1]);
    assert.deepEqual([...p.values("samples")], [1, 1, 1]);
    assert.deepEqual([...p.values("time")], [10, 20, NaN]);
    assert.deepEqual(p.valueTypes(), [
      { type: "samples", unit: "count", total: 3, rows: 3 },
      { type: "time", unit: "nanoseconds", total: 30, rows: 2 },
    ]);
    assert.deepEqual(p.info().sources, [{ type: "manual", uri: "written-by-hand", timestamp: null }]);
    assert.deepEqual(p.validate(), []);
    assert.deepEqual(p.warnings(), []);
    assert.equal(p.extColumn("samples", ".time"), undefined);
    checkColumns(p);
    p.free();
  });

  test("writes back to tables-JSON without a change", () => {
    const p = parse();
    checkTablesJsonRoundTrip(p);
    const { bytes, warnings } = p.writeWithWarnings("tables-json");
    assert.deepEqual(bytes, p.write("tables-json"));
    assert.deepEqual(warnings, []);
    p.free();
  });

  test("writeWithWarnings says what a format loses, with counts", () => {
    const bytes = fs.readFileSync(path.join(ROOT, "tests/fixtures/pprof/fields.pb.gz"));
    const p = Profile.parse(bytes, "fields.pb.gz");
    const { warnings } = p.writeWithWarnings("collapsed");
    const labels = warnings.find((w) => w.message.startsWith("cannot hold sample labels"));
    assert.deepEqual(labels, {
      format: "collapsed",
      message: "cannot hold sample labels: dropped 4 labels on 3 samples of 4 (keys: bytes, request, size, thread)",
      count: 3,
    });
    assert.ok(
      warnings.every((w) => w.format === "collapsed" && Number.isInteger(w.count) && w.count > 0),
      JSON.stringify(warnings),
    );
    assert.deepEqual(p.writeWithWarnings("tables-json").warnings, []);
    p.free();
  });

  test("writing an unknown format throws, naming the writable ones", () => {
    const p = parse();
    const writable = formats()
      .filter((f) => f.write)
      .map((f) => f.name);
    assert.throws(
      () => p.write("svg"),
      (e) => {
        const [head, list] = e.message.split("; proftab writes ");
        assert.equal(head, 'unknown format "svg"');
        assert.deepEqual(list.split(", ").sort(), writable.sort());
        return true;
      },
    );
    assert.throws(() => p.values("cpu"), { message: 'no value type called "cpu"' });
    p.free();
  });

  test("a freed profile cannot be used", () => {
    const p = parse();
    p.free();
    assert.throws(() => p.numSamples);
  });
});

describe("errors", () => {
  test("an empty file throws an Error naming the problem", () => {
    assert.throws(() => Profile.parse(new Uint8Array(), "empty.pb.gz"), {
      name: "Error",
      message: "input: the file is empty",
    });
  });

  test("unrecognized bytes throw an Error listing the readable formats", () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]);
    assert.throws(
      () => Profile.parse(png),
      (e) => {
        assert.ok(e instanceof Error);
        const [head, list] = e.message.split("; proftab reads ");
        assert.match(head, /^input: unrecognized format \(.*89 50 4e 47 0d 0a 1a 0a\)$/);
        assert.deepEqual(list.split(", ").sort(), [...readable].sort());
        return true;
      },
    );
  });

  test("every file of corpus/invalid is rejected or read with warnings, never crashing", () => {
    const files = corpusFiles("invalid");
    assert.ok(files.length > 0, `no files in ${CORPUS}/invalid`);
    for (const file of files) {
      try {
        const p = Profile.parse(fs.readFileSync(file), path.basename(file));
        checkColumns(p);
        p.free();
      } catch (e) {
        assert.ok(e instanceof Error, `${file}: threw ${e}`);
        assert.match(e.message, /^[a-z-]+: /, `${file}: message names the format`);
      }
    }
    // The instance is still usable afterwards (no wasm trap poisoned it).
    assert.throws(() => Profile.parse(new Uint8Array()), /the file is empty/);
  });
});

describe("formats", () => {
  test("formats() and Profile.formats() list every format with its extensions", () => {
    const list = formats();
    assert.deepEqual(Profile.formats(), list);
    assert.deepEqual(
      list.map((f) => f.name),
      [
        "tables-json",
        "tables-json-v1",
        "pprof",
        "pprof-text",
        "pprof-legacy-cpu",
        "rprof",
        "collapsed",
        "firefox",
        "speedscope",
        "otlp",
        "otlp-json",
        "cpuprofile",
        "goroutine-dump",
        "perf-script",
        "perf-data",
        "heapprofile",
        "trace-event",
        "callgrind",
        "dhat",
        "instruments",
        "stackprof",
        "pmcstat",
        "papyrus",
        "ghc-prof",
        "v8-prof",
        "pstats",
        "heaptrack",
        "massif",
        "safari",
        "jfr",
      ],
    );
    const pprof = list.find((f) => f.name === "pprof");
    assert.deepEqual(pprof.extensions, [".pb.gz", ".pb", ".pprof"]);
    for (const f of list) {
      assert.equal(typeof f.read, "boolean");
      assert.equal(typeof f.write, "boolean");
    }
  });

  test("the encodings' constants", () => {
    assert.equal(NO_INDEX, 2 ** 32 - 1);
    assert.equal(INT_NA, -(2 ** 31));
  });
});

describe("corpus files through the package", () => {
  const folders = [CORPUS, CORPUS_NEW].flatMap((corpus) =>
    fs.existsSync(corpus) ? fs.readdirSync(corpus).map((folder) => ({ corpus, folder })) : [],
  );
  const testable = folders.filter(({ folder }) => readable.includes(folder));
  test("at least one corpus folder has a reader", (t) => {
    if (testable.length === 0) t.skip(`no reader in this build for any of ${folders.map((f) => f.folder).join(", ")}`);
  });
  for (const { corpus, folder } of testable) {
    for (const file of corpusFiles(folder, corpus)) {
      test(`${path.basename(corpus)}/${folder}/${path.basename(file)}: parses, columns agree`, () => {
        const p = Profile.parse(fs.readFileSync(file), path.basename(file));
        try {
          assert.equal(p.format, folder);
          const info = checkColumns(p);
          assert.equal(info.sources[0].uri, path.basename(file));
          assert.equal(info.sources[0].type, folder);
          checkTablesJsonRoundTrip(p);
        } finally {
          p.free();
        }
      });
    }
  }
});
