#!/usr/bin/env node
// `npx proftab`: the package's command.
//   proftab info|top|list|convert|combine|validate|diff|help …   the CLI's verbs, run on the
//       wasm build (src/cli/ through src/wasm_cli.rs): the same arguments, output, messages and
//       exit status as the native binary
//   proftab [view] FILE… [--no-open] [--port N]   opens the viewer on FILEs (js/view.mjs);
//       without `view`, the first FILE must exist (else it is an unknown command, as natively)
import fs from "node:fs";
import { createRequire } from "node:module";
import { nodeHost } from "./cli-host.mjs";

/** The first arguments that name a verb of the CLI (everything else is `view`). */
const VERBS = new Set(["info", "top", "list", "convert", "combine", "validate", "diff", "help"]);
const CLI_FLAGS = new Set(["--help", "-h", "--version", "-V"]);

const args = process.argv.slice(2);
const viewing = args[0] === "view" || (args.length > 0 && !VERBS.has(args[0]) && !CLI_FLAGS.has(args[0]) && fs.existsSync(args[0]));
if (!viewing) {
  const wasm = createRequire(import.meta.url)("../pkg/node/proftab.js");
  process.exitCode = wasm.runCli(args, nodeHost);
} else {
  const { view } = await import("./view.mjs");
  process.exitCode = await view(args[0] === "view" ? args.slice(1) : args);
}
