// www/sources.js: which dropped file names are source text, and the matching of a profile's file
// names to dropped paths by the longest common path suffix.
import assert from "node:assert/strict";
import { test } from "node:test";
import { addSources, isSourceName, matchSource, onSources, sourceCount, sourceFor, suffixLength } from "../../www/sources.js";

test("source names by extension", () => {
  for (const name of [
    "workload.R",
    "x.r",
    "main.go",
    "app.mjs",
    "a.ts",
    "m.py",
    "x.c",
    "x.h",
    "x.cc",
    "x.cpp",
    "lib.rs",
    "A.java",
    "x.rb",
    "Main.hs",
  ]) {
    assert.equal(isSourceName(name), true, name);
  }
  for (const name of ["cpu.pb.gz", "profile.json", "Rprof.out", "trace", ".R", "folded.txt", "x.cpuprofile"]) {
    assert.equal(isSourceName(name), false, name);
  }
});

test("the longest path suffix wins", () => {
  assert.equal(suffixLength("github.com/u/proj/pkg/a.go", "proj/pkg/a.go"), 3);
  assert.equal(suffixLength("/home/alice/src/proj/main.go", "C:\\work\\proj\\main.go"), 2);
  assert.equal(suffixLength("a.go", "b.go"), 0);
  // A Go module path against a checkout and an unrelated file of the same name.
  assert.deepEqual(matchSource("github.com/u/proj/pkg/a.go", ["other/pkg/x/a.go", "src/proj/pkg/a.go"]), { path: "src/proj/pkg/a.go" });
  // R's `#File` name is a base name: any one dropped copy matches.
  assert.deepEqual(matchSource("workload.R", ["tests/fixtures/rprof/workload.R", "record.R"]), { path: "tests/fixtures/rprof/workload.R" });
  // An absolute path from another machine, against a folder dropped here.
  assert.deepEqual(matchSource("/home/alice/src/proj/main.go", ["proj/main.go", "proj/util.go"]), { path: "proj/main.go" });
  // Ties are ambiguous, never guessed; no shared base name is no match.
  assert.deepEqual(matchSource("pkg/a.go", ["x/pkg/a.go", "y/pkg/a.go"]), { ambiguous: ["x/pkg/a.go", "y/pkg/a.go"] });
  assert.deepEqual(matchSource("a/b/c.go", ["q/b/c.go", "r/c.go"]), { path: "q/b/c.go" });
  assert.equal(matchSource("main.go", ["main.rs", "x/main.g"]), null);
});

test("the store keeps the newest text of a path", () => {
  let told = 0;
  onSources(() => told++);
  addSources([{ path: "p/w.R", text: "old" }]);
  const before = sourceCount();
  addSources([{ path: "p/w.R", text: "new" }]);
  assert.equal(sourceCount(), before);
  assert.deepEqual(sourceFor("/elsewhere/p/w.R"), { path: "p/w.R", text: "new" });
  assert.equal(sourceFor(""), null);
  assert.equal(told, 2, "listeners hear of each addition");
  addSources([]);
  assert.equal(told, 2, "nothing added, nothing told");
});
