// A small static file server on 127.0.0.1 (loopback only; GET and HEAD only), used by
// `npm start` (scripts/serve.mjs), `npx proftab FILE` (js/view.mjs, which is why the package
// ships this file) and by the browser tests. No dependencies.
import fs from "node:fs";
import http from "node:http";
import path from "node:path";

const MIME = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".txt": "text/plain; charset=utf-8",
};

/** The file under `root` that `urlPath` names, or null when it would leave `root`. */
function resolveInside(root, urlPath) {
  const file = path.resolve(root, `.${urlPath}`);
  const rel = path.relative(root, file);
  return rel.startsWith("..") || path.isAbsolute(rel) ? null : file;
}

/** Sends file `file` (its `st`) with status 200, or only the headers for HEAD. */
function sendFile(req, res, file, st, log) {
  res.writeHead(200, {
    "content-type": MIME[path.extname(file).toLowerCase()] ?? "application/octet-stream",
    "content-length": st.size,
    "cache-control": "no-cache",
    "x-content-type-options": "nosniff",
  });
  log(`${req.method} ${req.url} 200`);
  if (req.method === "HEAD") return res.end();
  fs.createReadStream(file).pipe(res);
}

function handler(root, files, log) {
  return (req, res) => {
    const send = (status, body = "") => {
      res.writeHead(status, { "content-type": "text/plain; charset=utf-8" }).end(body);
      log(`${req.method} ${req.url} ${status}`);
    };
    if (req.method !== "GET" && req.method !== "HEAD") return send(405, "method not allowed");
    let urlPath;
    try {
      urlPath = decodeURIComponent(new URL(req.url, "http://localhost").pathname);
    } catch {
      return send(400, "bad request");
    }
    const extra = files.get(urlPath);
    if (extra !== undefined) {
      return fs.stat(extra, (err, st) => (err || !st.isFile() ? send(404, "not found") : sendFile(req, res, extra, st, log)));
    }
    let file = resolveInside(root, urlPath);
    if (file === null) return send(403, "forbidden");
    fs.stat(file, (err, st) => {
      if (!err && st.isDirectory()) {
        file = path.join(file, "index.html");
        try {
          st = fs.statSync(file);
        } catch (e) {
          err = e;
        }
      }
      if (err || !st.isFile()) return send(404, "not found");
      sendFile(req, res, file, st, log);
    });
  };
}

/**
 * Serves directory `root` on 127.0.0.1:`port` (0 = any free port), and each file of `files`
 * (a Map: URL path such as `/token/0/cpu.pb.gz` → file path anywhere) at its URL path. Resolves
 * to `{ url, port, close() }`; `url` ends with a slash.
 */
export function serveStatic(root, { port = 0, log = () => {}, files = new Map() } = {}) {
  const absRoot = path.resolve(root);
  const server = http.createServer(handler(absRoot, files, log));
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      const actual = server.address().port;
      resolve({
        url: `http://127.0.0.1:${actual}/`,
        port: actual,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections?.();
            server.close(() => done());
          }),
      });
    });
  });
}
