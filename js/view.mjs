// `npx proftab [view] FILE… [--no-open] [--port N]`: serves the packaged viewer (dist/) on
// 127.0.0.1 with FILEs under a random path of this run (`/<token>/<i>/<name>`), and opens the
// browser on `?url=<token>/<i>/<name>…`, which the viewer loads from its own origin
// (www/load.js). Nothing is copied; Ctrl-C stops the server.
//
// Invariants: only loopback listens; only the FILEs given and dist/ are served; a FILE that
// cannot be read fails before anything listens (exit 1, the message the CLI prints).
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { serveStatic } from "../scripts/static-server.mjs";
import { osMessage } from "./cli-host.mjs";

const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist");

const USAGE = `usage: proftab [view] FILE... [--no-open] [--port N]

open the viewer on FILEs: serve it on 127.0.0.1 (FILEs at a random path of this run),
print its address and open the browser; Ctrl-C stops

options:
  --no-open  print the address only (also when there is no display)
  --port N   listen on port N (default: any free port)
  -h, --help print this help
`;

/** `{files, open, port}` of the arguments, or `{error}` / `{help}`. */
export function parseViewArgs(args) {
  const out = { files: [], open: true, port: 0 };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--no-open") out.open = false;
    else if (a === "-h" || a === "--help") return { help: true };
    else if (a === "--port" || a.startsWith("--port=")) {
      const v = a === "--port" ? args[++i] : a.slice("--port=".length);
      if (!/^\d+$/.test(v ?? "") || Number(v) > 65535) return { error: `--port needs a port number, got ${JSON.stringify(v ?? "")}` };
      out.port = Number(v);
    } else if (a === "--") {
      out.files.push(...args.slice(i + 1));
      break;
    } else if (a.startsWith("-") && a !== "-") return { error: `unknown option ${JSON.stringify(a)} for view` };
    else out.files.push(a);
  }
  return out;
}

/** The URL path of each file (`/<token>/<i>/<name>`) → its path, or the CLI's message for the first unreadable one. */
function servedFiles(files, token) {
  const served = new Map();
  for (const [i, file] of files.entries()) {
    try {
      fs.accessSync(file, fs.constants.R_OK);
      if (!fs.statSync(file).isFile()) throw Object.assign(new Error("is a directory"), { code: "EISDIR" });
    } catch (e) {
      return { error: `cannot read ${file}: ${e.code ? osMessage(e) : e.message}` };
    }
    served.set(`/${token}/${i}/${path.basename(file)}`, path.resolve(file));
  }
  return { served };
}

/** The viewer's address, loading every served file. */
export function viewerUrl(base, served) {
  const q = new URLSearchParams();
  for (const urlPath of served.keys()) q.append("url", urlPath.slice(1));
  const query = q.toString();
  return query ? `${base}?${query}` : base;
}

/** Opens `url` in the default browser when there is a display; false when it did not try. */
function openBrowser(url) {
  const platform = process.platform;
  const hasDisplay = platform !== "linux" || process.env.DISPLAY || process.env.WAYLAND_DISPLAY;
  if (!hasDisplay) return false;
  const [cmd, cmdArgs] =
    // Windows: no shell, so the `&` between several files' parameters stays in the URL.
    platform === "darwin"
      ? ["open", [url]]
      : platform === "win32"
        ? ["rundll32", ["url.dll,FileProtocolHandler", url]]
        : ["xdg-open", [url]];
  const child = spawn(cmd, cmdArgs, { stdio: "ignore", detached: true });
  child.on("error", () => console.error(`proftab: could not start ${cmd}; open the address above yourself`));
  child.unref();
  return true;
}

/** Runs `proftab view`; resolves to the exit status once the server stops (Ctrl-C). */
export async function view(args) {
  const opts = parseViewArgs(args);
  if (opts.help) return process.stdout.write(USAGE) && 0;
  if (opts.error) return fail(`${opts.error} (see \`proftab view --help\`)`, 2);
  if (!fs.existsSync(path.join(DIST, "index.html"))) return fail(`the viewer is missing: ${DIST}/index.html`, 1);
  const { served, error } = servedFiles(opts.files, crypto.randomBytes(16).toString("hex"));
  if (error) return fail(error, 1);
  const server = await serveStatic(DIST, { port: opts.port, files: served });
  const url = viewerUrl(server.url, served);
  console.log(`proftab viewer: ${url}`);
  console.log("(serving on 127.0.0.1 only; Ctrl-C stops)");
  if (opts.open && !openBrowser(url)) console.log("(no display: open the address in a browser)");
  return new Promise((resolve) => {
    for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => server.close().then(() => resolve(0)));
  });
}

function fail(message, status) {
  console.error(`proftab: ${message}`);
  return status;
}
