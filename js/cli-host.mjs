// The host of the `proftab` command in Node (js/cli.mjs): the files and standard streams the
// CLI's verbs see when they run on the wasm build (src/wasm_cli.rs, `CliHost`). A failure is
// thrown as the text the native binary prints for it (glibc's strerror and the errno, as Rust's
// io::Error shows it), so the two commands print the same messages.
import fs from "node:fs";
import os from "node:os";

/** glibc's strerror texts of the errors a file operation meets (Rust prints these on Linux). */
const STRERROR = {
  ENOENT: "No such file or directory",
  EACCES: "Permission denied",
  EPERM: "Operation not permitted",
  EISDIR: "Is a directory",
  ENOTDIR: "Not a directory",
  EEXIST: "File exists",
  ENOSPC: "No space left on device",
  EROFS: "Read-only file system",
  ELOOP: "Too many levels of symbolic links",
  ENAMETOOLONG: "File name too long",
  EMFILE: "Too many open files",
  EIO: "Input/output error",
  EINVAL: "Invalid argument",
  EBUSY: "Device or resource busy",
  ETXTBSY: "Text file busy",
  EFBIG: "File too large",
  EPIPE: "Broken pipe",
};

/** `e` (a Node system error) as Rust's io::Error displays it: `No such file or directory (os error 2)`. */
export function osMessage(e) {
  const errno = os.constants.errno[e.code];
  const text = STRERROR[e.code] ?? e.message;
  return errno === undefined ? text : `${text} (os error ${errno})`;
}

/** Runs `fn`, rethrowing a system error as its `osMessage`. */
function io(fn) {
  try {
    return fn();
  } catch (e) {
    throw e?.code ? osMessage(e) : String(e?.message ?? e);
  }
}

/** Writes all of `bytes` to file descriptor `fd`, waiting out a full non-blocking pipe. */
function writeAll(fd, bytes) {
  let at = 0;
  while (at < bytes.length) {
    try {
      at += fs.writeSync(fd, bytes, at, bytes.length - at);
    } catch (e) {
      if (e.code !== "EAGAIN") throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
    }
  }
}

/** The host object `runCli` takes: Node's `fs` and the process's standard streams. */
export const nodeHost = {
  read: (path) => io(() => fs.readFileSync(path)),
  readStdin: () => io(() => fs.readFileSync(0)),
  write: (path, bytes) => io(() => fs.writeFileSync(path, bytes)),
  stdout: (bytes) =>
    io(() => {
      try {
        writeAll(1, bytes);
      } catch (e) {
        // A reader that went away (`proftab top F | head`) is not an error, as natively.
        if (e.code !== "EPIPE") throw e;
      }
    }),
  stderr: (bytes) => {
    try {
      writeAll(2, bytes);
    } catch {
      // Nowhere to report it.
    }
  },
  stat: (path) =>
    io(() => {
      const st = fs.statSync(path);
      return [st.isFile() ? "file" : st.isDirectory() ? "dir" : "other", st.size];
    }),
  readDir: (path) => io(() => fs.readdirSync(path)),
  env: (name) => process.env[name],
};
