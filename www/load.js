// Loading profiles: the file pickers, drag and drop anywhere on the page (#drop-overlay), the
// examples of the empty page (#empty), `?url=` and the load itself (worker, progress, errors,
// files that could not be read, then state.js takes the answer). Owns #empty and the
// visibility of #views. Keeps what the shown profile was loaded from (File objects or URLs,
// and the binaries dropped) to load it again, view state kept, when the worker faults.
import { $ } from "./dom.js";
import { closeMenu } from "./menu.js";
import {
  hideError,
  hideProgress,
  onCancel,
  setFlamegraphDrawn,
  setPageState,
  showBinariesKept,
  showError,
  showProgress,
  showSymbols,
  showWarnings,
} from "./messages.js";
import { hideNotice, showFailedFiles, showNotice } from "./notice.js";
import { addSources, isSourceName, sourceCount } from "./sources.js";
import {
  applyOptions,
  flushHash,
  hashZoom,
  keepLink,
  on,
  resolvePatterns,
  S,
  setLoaded,
  setProfile,
  setView,
  startTiming,
  timings,
} from "./state.js";
import { searchText } from "./toolbar.js";
import { linkProfile } from "./url.js";
import { zoomTo } from "./views/index.js";
import { CANCELLED, call, cancel, onWorkerFault } from "./worker-client.js";

/**
 * Loads `{files}` (File objects, with `paths` for those dropped in a folder) and/or `{urls}`
 * and shows the result; `link` (the hash parameters of a shared link) when the file came from
 * the address, kept in the hash while that profile is shown. Files of source text (see
 * sources.js) are kept for the Source tab, ELF
 * files (binaries) for the symbols of a perf.data (the worker re-reads the last perf.data with
 * them); when there are only those, the profile shown stays. Files that cannot be read are
 * listed in the notice and the others shown; when none can be read, the profile shown stays.
 * `fault`: the message of the worker fault this load recovers from (shown when it is done).
 */
export async function load(what, fault = null) {
  hideError();
  if (!fault) hideNotice();
  closeMenu();
  setFlamegraphDrawn(false);
  setPageState("loading");
  startTiming();
  showProgress({ phase: "reading", done: 0, total: 0, index: 0, count: 1 });
  let r;
  try {
    r = await call("load", what);
  } catch (e) {
    if (e.fault) return; // the fault's listener loads again
    hideProgress();
    showError(e.message);
    setPageState(S.loaded ? "shown" : e.message === CANCELLED ? "ready" : "error");
    return;
  }
  retain(what, r);
  addSources(r.sources);
  if (!r.info) {
    hideProgress();
    setPageState(S.loaded ? "shown" : "ready");
    showSourcesKept(r.kept);
    if (S.loaded) showBinariesKept(r.kept);
    return;
  }
  keepLink(what.link ?? "");
  if (await show(r)) tellProblems(r, fault);
}

/** Shows the worker's answer `r` to a load; false when a worker fault interrupted it. */
async function show(r) {
  showProgress({ phase: "layout", text: "Drawing…" });
  setProfile(r, searchText());
  timings.wasmMemoryBytes = r.wasmMemoryBytes;
  setLoaded(true);
  setView(S.view);
  try {
    await resolvePatterns();
    await applyOptions();
    zoomTo(hashZoom());
  } catch (e) {
    if (e.fault) return false;
    showError(e.message);
  }
  hideProgress();
  setPageState("shown");
  return true;
}

/** After a load shown: warnings, symbols, files not read and the fault recovered from. */
function tellProblems(r, fault) {
  showWarnings(r.info.warnings);
  showSymbols(r.info.symbols, r.kept);
  if (!r.info.symbols) showBinariesKept(r.kept);
  if (fault) showNotice(`The viewer's worker failed and was restarted; ${retainedNames().join(", ")} loaded again.`, [fault]);
  else if (r.failed.length) showFailedFiles(r.failed, r.info.formats.length);
}

// ---------------------------------------------------------------- recovery

/**
 * What the shown profile was loaded from: its profile files (with their paths; those that
 * could not be read left out) and URLs, and every binary dropped so far (by name, the last
 * of a name). Sources stay on the page (sources.js); the worker holds the rest.
 */
const retained = { files: [], paths: [], urls: [], binaries: [] };
let recovering = false;

/** Updates `retained` from a load's request `what` and the worker's answer `r`. */
function retain(what, r) {
  const files = what.files || [];
  const role = (i) => r.roles[i];
  for (const [i, f] of files.entries()) {
    if (role(i) !== "binary") continue;
    retained.binaries = retained.binaries.filter((b) => b.name !== f.name).concat(f);
  }
  const urls = what.urls || [];
  if (!r.info || (!urls.length && !r.roles.includes("profile"))) return;
  const keep = [...files.keys()].filter((i) => role(i) === "profile");
  retained.files = keep.map((i) => files[i]);
  retained.paths = keep.map((i) => what.paths?.[i] || files[i].name);
  retained.urls = urls;
}

function retainedNames() {
  const base = (u) => decodeURIComponent(new URL(u, location.href).pathname.split("/").pop() || u);
  return [...retained.files.map((f) => f.name), ...retained.urls.map(base)];
}

/**
 * After a worker fault (a wasm trap, out of memory): the fresh worker loads the shown profile
 * again from `retained`, with the view state of the URL hash. A fault while doing so, or with
 * no profile shown, only tells the fault: the empty page comes back.
 */
async function recover(message) {
  flushHash();
  if (recovering || !S.loaded || !(retained.files.length || retained.urls.length)) {
    hideProgress();
    setLoaded(false);
    setPageState("error");
    showNotice("The viewer's worker failed and was restarted.", [message]);
    return;
  }
  recovering = true;
  const b = retained.binaries;
  try {
    await load(
      {
        files: [...b, ...retained.files],
        paths: [...b.map((f) => f.name), ...retained.paths],
        urls: retained.urls,
      },
      message,
    );
  } finally {
    recovering = false;
  }
}

function cancelLoad() {
  cancel();
  setLoaded(false);
  setPageState("ready");
}

/** On the empty page: how many source files and which binaries (`kept`) wait for a profile. */
function showSourcesKept(kept = []) {
  const n = sourceCount();
  const lines = [];
  if (n)
    lines.push(
      `${n} source file${n === 1 ? "" : "s"} kept: drop the profile to see ${n === 1 ? "its" : "their"} lines with costs (Source tab).`,
    );
  if (kept.length)
    lines.push(
      `${kept.join(", ")} kept as ${kept.length === 1 ? "a binary" : "binaries"} for symbols: drop a perf.data to name its frames.`,
    );
  $("sources-kept").hidden = lines.length === 0;
  $("sources-kept").textContent = lines.join(" ");
}

/** The example profiles of the empty page (examples/index.json, written by the build). */
export async function showExamples() {
  try {
    const res = await fetch(new URL("examples/index.json", import.meta.url));
    if (!res.ok) throw new Error(String(res.status));
    const list = await res.json();
    $("example-list").replaceChildren(
      ...list.map((ex) => {
        const b = document.createElement("button");
        b.textContent = ex.label;
        b.title = ex.file;
        b.dataset.example = ex.file;
        b.addEventListener("click", () => load({ urls: [new URL(`examples/${ex.file}`, import.meta.url).href] }));
        return b;
      }),
    );
  } catch {
    $("examples").hidden = true;
  }
}

/** Loads the profile a shared link's hash carries, else the `?url=` parameters of the page's address, if any. */
export function loadFromAddress() {
  const link = linkProfile(location.hash);
  if (link) return load({ files: [new File([link.bytes], link.name)], link: link.params });
  const urls = new URLSearchParams(location.search).getAll("url");
  if (urls.length) load({ urls: urls.map((u) => new URL(u, location.href).href) });
}

// The pickers; the Source tab's folder input (webkitdirectory) gives relative paths and only
// its source files are taken.
for (const id of ["file-input", "file-input-2", "source-input", "source-folder"]) {
  $(id).addEventListener("change", (e) => {
    const folder = e.target.webkitdirectory;
    const files = [...e.target.files].filter((f) => !folder || isSourceName(f.name)).slice(0, folder ? MAX_FOLDER_FILES : undefined);
    e.target.value = "";
    if (files.length) load({ files, paths: files.map((f) => f.webkitRelativePath || f.name) });
  });
}
onCancel(cancelLoad);
onWorkerFault(recover);

// Drag and drop anywhere on the page.
let depth = 0;
window.addEventListener("dragenter", (e) => {
  if (![...(e.dataTransfer?.types || [])].includes("Files")) return;
  e.preventDefault();
  depth++;
  $("drop-overlay").hidden = false;
});
window.addEventListener("dragover", (e) => e.preventDefault());
window.addEventListener("dragleave", () => {
  depth = Math.max(0, depth - 1);
  if (!depth) $("drop-overlay").hidden = true;
});
window.addEventListener("drop", (e) => {
  e.preventDefault();
  depth = 0;
  $("drop-overlay").hidden = true;
  // Entries must be taken during the event; folders are walked afterwards.
  const items = [...(e.dataTransfer?.items || [])];
  const entries = items.map((it) => it.webkitGetAsEntry?.()).filter(Boolean);
  const files = [...(e.dataTransfer?.files || [])];
  if (entries.some((en) => en.isDirectory)) droppedEntries(entries).then((what) => what.files.length && load(what));
  else if (files.length) load({ files });
});

/** At most this many files are taken from dropped folders. */
const MAX_FOLDER_FILES = 5000;

/** The files of dropped entries with their paths; from folders, only source files. */
async function droppedEntries(entries) {
  const out = { files: [], paths: [] };
  const walk = async (entry, top) => {
    if (out.files.length >= MAX_FOLDER_FILES) return;
    if (entry.isFile) {
      if (!top && !isSourceName(entry.name)) return;
      out.files.push(await new Promise((ok, fail) => entry.file(ok, fail)));
      out.paths.push(entry.fullPath.replace(/^\//, ""));
      return;
    }
    const reader = entry.createReader();
    for (;;) {
      const batch = await new Promise((ok, fail) => reader.readEntries(ok, fail));
      if (!batch.length) break;
      for (const child of batch) await walk(child, false);
    }
  };
  for (const entry of entries) await walk(entry, true);
  return out;
}

on("loaded", () => {
  document.body.classList.toggle("loaded", S.loaded);
  $("empty").hidden = S.loaded;
  $("views").hidden = !S.loaded;
});
