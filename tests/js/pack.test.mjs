// `npm pack` the package, install the tarball into an empty folder and use it from Node (ESM)
// as a user would: nothing from this repository is reachable there except the tarball.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { formats } from "../../js/node.mjs";
import { CORPUS, ROOT, TINY } from "./helpers.mjs";

const npm = (args, cwd) =>
  execFileSync("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });

let dir;
let packed;

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "proftab-pack-"));
  [packed] = JSON.parse(npm(["pack", "--json", "--pack-destination", dir], ROOT));
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "user", private: true, type: "module" }));
  npm(["install", "--offline", path.join(dir, packed.filename)], dir);
});

after(() => fs.rmSync(dir, { recursive: true, force: true }));

test("the tarball holds the entries, both wasm builds, the types, the command and the viewer, nothing else", () => {
  const files = packed.files.map((f) => f.path).sort();
  assert.deepEqual(
    files.filter((f) => !f.startsWith("dist/")),
    [
      "README.md",
      "js/cli-host.mjs",
      "js/cli.mjs",
      "js/columnar.mjs",
      "js/constants.mjs",
      "js/index.d.ts",
      "js/node.mjs",
      "js/stepped.mjs",
      "js/view.mjs",
      "js/web.mjs",
      "package.json",
      "pkg/columnar-node/package.json",
      "pkg/columnar-node/proftab.js",
      "pkg/columnar-node/proftab_bg.wasm",
      "pkg/columnar-web/proftab.js",
      "pkg/columnar-web/proftab_bg.wasm",
      "pkg/node/package.json",
      "pkg/node/proftab.js",
      "pkg/node/proftab_bg.wasm",
      "pkg/web/proftab.js",
      "pkg/web/proftab_bg.wasm",
      "scripts/static-server.mjs",
    ],
  );
  // dist/ is the viewer as built (scripts/build.sh), without the test hook.
  const dist = files.filter((f) => f.startsWith("dist/"));
  const built = fs.readdirSync(path.join(ROOT, "dist"), { recursive: true, withFileTypes: true });
  const want = built.filter((e) => e.isFile()).map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)));
  assert.deepEqual(dist, want.sort());
  for (const f of ["dist/index.html", "dist/app.js", "dist/element.js", "dist/embed.html", "dist/pkg/proftab_bg.wasm"]) {
    assert.ok(dist.includes(f), f);
  }
  assert.ok(!dist.includes("dist/test-hook.js"));
});

test("import 'proftab/viewer' resolves to the element in the installed package", () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, "node_modules/proftab/package.json"), "utf8"));
  const file = path.join(dir, "node_modules/proftab", manifest.exports["./viewer"]);
  assert.match(fs.readFileSync(file, "utf8"), /customElements\.define\("proftab-viewer"/);
});

test("the installed command runs a verb (npx proftab top FILE) as the native binary does", () => {
  const bin = path.join(dir, "node_modules/.bin/proftab");
  const file = path.join(ROOT, "tests/fixtures/pprof/cpu.pb.gz");
  const top = execFileSync(bin, ["top", file, "--limit", "3"], { cwd: dir, encoding: "utf8" });
  assert.match(top, /flat%/);
  const native = path.join(ROOT, "target/release/proftab");
  if (!fs.existsSync(native)) return console.log("SKIP: target/release/proftab is not built");
  assert.equal(top, execFileSync(native, ["top", file, "--limit", "3"], { cwd: dir, encoding: "utf8" }));
});

/** Runs an ES module in the user's folder and returns what it printed, parsed as JSON. */
function runInUserFolder(source, ...args) {
  const script = path.join(dir, "main.mjs");
  fs.writeFileSync(script, source);
  return JSON.parse(execFileSync(process.execPath, [script, ...args], { cwd: dir, encoding: "utf8" }));
}

test("the installed package imports from Node ESM and reads a file", () => {
  const out = runInUserFolder(
    `import fs from "node:fs";
     import { Profile } from "proftab";
     const p = Profile.parse(fs.readFileSync(process.argv[2]), "tiny.json");
     console.log(JSON.stringify({ format: p.format, samples: p.numSamples, stacks: [...p.sampleStack()] }));`,
    TINY,
  );
  assert.deepEqual(out, { format: "tables-json", samples: 3, stacks: [2, 2, 1] });
});

test("the installed package throws Errors for unreadable input", () => {
  const file = path.join(dir, "input.bin");
  fs.writeFileSync(file, new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
  const out = runInUserFolder(
    `import fs from "node:fs";
     import { Profile, formats, NO_INDEX } from "proftab";
     const result = { formats: formats().length, noIndex: NO_INDEX };
     try {
       const p = Profile.parse(fs.readFileSync(process.argv[2]), "input.bin");
       result.format = p.format;
       result.samples = p.numSamples;
     } catch (e) {
       result.error = e instanceof Error ? e.message : "not an Error";
     }
     console.log(JSON.stringify(result));`,
    file,
  );
  // The installed package knows every format of this build.
  assert.equal(out.formats, formats().length);
  assert.equal(out.noIndex, 0xffffffff);
  assert.match(out.error, /^input: unrecognized format \(.*89 50 4e 47\); proftab reads /);
});

test("the installed package reads an Rprof file of the corpus", () => {
  const file = path.join(CORPUS, "rprof/profvis-test-parse.prof");
  const out = runInUserFolder(
    `import fs from "node:fs";
     import { Profile } from "proftab";
     const p = Profile.parse(fs.readFileSync(process.argv[2]), "profvis-test-parse.prof");
     const info = p.info();
     console.log(JSON.stringify({
       format: p.format,
       samples: p.numSamples,
       uri: info.sources[0].uri,
       frames: info.tables.find((t) => t.name === "sample_locations").rows,
     }));`,
    file,
  );
  // Counted by hand in the file: 6 sample lines holding 1+1+2+2+1+0 frames.
  assert.deepEqual(out, { format: "rprof", samples: 6, uri: "profvis-test-parse.prof", frames: 7 });
});

test("the installed package's toArrow and fromArrow load its columnar module", () => {
  const out = runInUserFolder(
    `import fs from "node:fs";
     import { Profile } from "proftab";
     const p = Profile.parse(fs.readFileSync(process.argv[2]), "tiny.json");
     const tables = await p.toArrow();
     const back = await Profile.fromArrow(tables);
     const text = (b) => new TextDecoder().decode(b);
     console.log(JSON.stringify({ tables: Object.keys(tables).length, same: text(back.write("tables-json")) === text(p.write("tables-json")) }));`,
    TINY,
  );
  assert.deepEqual(out, { tables: 9, same: true });
});
