// `npm start`: serves the built viewer (dist/) on 127.0.0.1 and prints its URL.
//   node scripts/serve.mjs [PORT]      (default: $PORT, else 8080, else any free port)
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { serveStatic } from "./static-server.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist");
if (!fs.existsSync(path.join(root, "index.html"))) {
  console.error(`serve: ${root}/index.html is missing: run npm run build first`);
  process.exit(1);
}
const wanted = Number(process.argv[2] ?? process.env.PORT ?? 8080);
let server;
try {
  server = await serveStatic(root, { port: wanted });
} catch (e) {
  if (e.code !== "EADDRINUSE") throw e;
  console.error(`serve: port ${wanted} is in use; using a free one`);
  server = await serveStatic(root, { port: 0 });
}
console.log(`proftab viewer: ${server.url}  (serving ${root}; Ctrl-C stops)`);
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => server.close().then(() => process.exit(0)));
}
