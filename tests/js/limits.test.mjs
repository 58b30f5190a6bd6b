// The limits on compressed input through the npm package: a gzip that is no profile is refused
// on its first decompressed bytes, and `parseWith`'s `maxDecompressedBytes` replaces the cap.
import assert from "node:assert/strict";
import { test } from "node:test";
import { gzipSync } from "node:zlib";
import { Profile } from "proftab";

/** A collapsed-stacks profile of `lines` distinct lines, gzipped. */
function gzippedCollapsed(lines) {
  const text = Array.from({ length: lines }, (_, i) => `main;work;leaf${i} ${i + 1}`).join("\n");
  return { bytes: new Uint8Array(gzipSync(text)), size: Buffer.byteLength(text), total: (lines * (lines + 1)) / 2 };
}

test("a gzipped profile reads with the default limits and with a cap above its size", () => {
  const { bytes, size, total } = gzippedCollapsed(200);
  for (const p of [Profile.parse(bytes, "x.gz"), Profile.parseWith(bytes, "x.gz", { maxDecompressedBytes: size })]) {
    assert.equal(p.format, "collapsed");
    assert.equal(
      p.values(p.valueTypes()[0].type).reduce((a, b) => a + b, 0),
      total,
    );
    p.free();
  }
});

test("maxDecompressedBytes below the inflated size refuses the file, naming the limit", () => {
  const { bytes, size } = gzippedCollapsed(200);
  assert.throws(
    () => Profile.parseWith(bytes, "x.gz", { maxDecompressedBytes: size - 1 }),
    (e) => e instanceof Error && /gzip/.test(e.message) && new RegExp(String(size - 1)).test(e.message),
  );
});

test("a gzip of zeros is refused as no profile without inflating it all", () => {
  const bomb = new Uint8Array(gzipSync(new Uint8Array(64 << 20)));
  assert.throws(() => Profile.parse(bomb, "zeros.gz"), { message: /^input: unrecognized format \(gzip-compressed data/ });
});
