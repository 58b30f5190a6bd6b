// scripts/static-server.mjs (used by `npm start` and the browser tests): content types, index
// pages, and no way out of the served folder.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { after, before, test } from "node:test";
import { serveStatic } from "../../scripts/static-server.mjs";
import { ROOT } from "./helpers.mjs";

let parent;
let server;

before(async () => {
  parent = fs.mkdtempSync(path.join(os.tmpdir(), "proftab-serve-"));
  const root = path.join(parent, "site");
  fs.mkdirSync(path.join(root, "sub"), { recursive: true });
  fs.writeFileSync(path.join(root, "index.html"), "<!doctype html><title>x</title>");
  fs.writeFileSync(path.join(root, "sub", "m.wasm"), new Uint8Array([0, 0x61, 0x73, 0x6d]));
  fs.writeFileSync(path.join(root, "sub", "m.js"), "export {};");
  fs.writeFileSync(path.join(parent, "secret.txt"), "secret");
  server = await serveStatic(root);
});

after(async () => {
  await server.close();
  fs.rmSync(parent, { recursive: true, force: true });
});

/** A raw GET (no URL normalization by a client), resolving to { status, type, body }. */
function get(rawPath, method = "GET") {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: server.port, path: rawPath, method }, (res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode, type: res.headers["content-type"], body }));
    });
    req.on("error", reject);
    req.end();
  });
}

test("listens on 127.0.0.1 and says so in its URL", () => {
  assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
});

test("serves .wasm as application/wasm and modules as JavaScript", async () => {
  assert.equal((await get("/sub/m.wasm")).type, "application/wasm");
  assert.equal((await get("/sub/m.js")).type, "text/javascript; charset=utf-8");
});

test("a folder serves its index.html", async () => {
  const res = await get("/");
  assert.equal(res.status, 200);
  assert.match(res.body, /<title>x<\/title>/);
});

test("missing files are 404, other methods 405", async () => {
  assert.equal((await get("/nope.js")).status, 404);
  assert.equal((await get("/index.html", "POST")).status, 405);
});

test("paths that leave the served folder are refused", async () => {
  for (const raw of ["/..%2fsecret.txt", "/sub/..%2f..%2fsecret.txt", "/%2e%2e%2fsecret.txt"]) {
    const res = await get(raw);
    assert.equal(res.status, 403, raw);
    assert.doesNotMatch(res.body, /secret/);
  }
  assert.equal((await get("/%E0%A4%A")).status, 400);
});

test("scripts/serve.mjs (the end of `npm start`) prints its URL and serves dist/", async () => {
  const child = spawn(process.execPath, [path.join(ROOT, "scripts/serve.mjs"), "0"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const [line] = await once(readline.createInterface({ input: child.stdout }), "line");
    const url = line.match(/http:\/\/127\.0\.0\.1:\d+\//)?.[0];
    assert.ok(url, line);
    const page = await fetch(url);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<title>proftab<\/title>/);
    const wasm = await fetch(`${url}pkg/proftab_bg.wasm`);
    assert.equal(wasm.headers.get("content-type"), "application/wasm");
  } finally {
    child.kill("SIGTERM");
    await once(child, "exit");
  }
});
