// Loading profiles: the file pickers, drag and drop anywhere on the page (#drop-overlay), the
// examples of the empty page (#empty), `?url=` and the load itself (worker, progress, errors,
// files that could not be read, then state.js takes the answer). Owns #empty and the
// visibility of #views. Keeps what the shown profile was loaded from (File objects or URLs,
// and the binaries dropped) to load it again, view state kept, when the worker faults.
import { current, listen, onViewer, perViewer, resume } from "./context.js";
import { $, frame } from "./dom.js";
import { closeMenu } from "./menu.js";
import {
  announce,
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
    announce("error", { message: e.message });
    keepDrawnMark();
    setPageState(S.loaded ? "shown" : e.message === CANCELLED ? "ready" : "error");
    return;
  }
  retain(what, r);
  addSources(r.sources);
  if (!r.info) {
    hideProgress();
    keepDrawnMark();
    setPageState(S.loaded ? "shown" : "ready");
    showSourcesKept(r.kept);
    if (S.loaded) showBinariesKept(r.kept);
    return;
  }
  keepLink(what.link ?? "");
  if (!(await show(r))) return;
  tellProblems(r, fault);
  const { formats, samples, valueTypes } = S.info;
  announce("load", { formats, samples, valueTypes: valueTypes.map((t) => t.type), failed: r.failed });
}

/**
 * After a load that shows no new profile: the one shown before stays on screen, drawn, so its
 * mark comes back at once (not at its next redraw, which may never come).
 */
function keepDrawnMark() {
  if (S.loaded) setFlamegraphDrawn(true);
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
    announce("error", { message: e.message });
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
const my = perViewer(() => ({ retained: { files: [], paths: [], urls: [], binaries: [] }, recovering: false, dragDepth: 0 }));

/** Updates `my.retained` from a load's request `what` and the worker's answer `r`. */
function retain(what, r) {
  const files = what.files || [];
  const role = (i) => r.roles[i];
  for (const [i, f] of files.entries()) {
    if (role(i) !== "binary") continue;
    my.retained.binaries = my.retained.binaries.filter((b) => b.name !== f.name).concat(f);
  }
  const urls = what.urls || [];
  if (!r.info || (!urls.length && !r.roles.includes("profile"))) return;
  const keep = [...files.keys()].filter((i) => role(i) === "profile");
  my.retained.files = keep.map((i) => files[i]);
  my.retained.paths = keep.map((i) => what.paths?.[i] || files[i].name);
  my.retained.urls = urls;
}

function retainedNames() {
  const base = (u) => decodeURIComponent(new URL(u, location.href).pathname.split("/").pop() || u);
  return [...my.retained.files.map((f) => f.name), ...my.retained.urls.map(base)];
}

/**
 * After a worker fault (a wasm trap, out of memory): the fresh worker loads the shown profile
 * again from `my.retained`, with the view state of the URL hash. A fault while doing so, or with
 * no profile shown, only tells the fault: the empty page comes back.
 */
async function recover(message) {
  flushHash();
  if (my.recovering || !S.loaded || !(my.retained.files.length || my.retained.urls.length)) {
    hideProgress();
    setLoaded(false);
    setPageState("error");
    showNotice("The viewer's worker failed and was restarted.", [message]);
    return;
  }
  my.recovering = true;
  const b = my.retained.binaries;
  try {
    await load(
      {
        files: [...b, ...my.retained.files],
        paths: [...b.map((f) => f.name), ...my.retained.paths],
        urls: my.retained.urls,
      },
      message,
    );
  } finally {
    my.recovering = false;
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

/**
 * The site's example profiles, next to this module in dist/ (not a `new URL(…, import.meta.url)`
 * literal: bundlers would take the examples for the element's assets).
 */
const EXAMPLES = new URL("examples/", import.meta.url.toString());

/** The example profiles of the empty page (examples/index.json, written by the build). */
export async function showExamples() {
  try {
    const res = await resume(fetch(new URL("index.json", EXAMPLES)));
    if (!res.ok) throw new Error(String(res.status));
    const list = await resume(res.json());
    $("example-list").replaceChildren(
      ...list.map((ex) => {
        const b = document.createElement("button");
        b.textContent = ex.label;
        b.title = ex.file;
        b.dataset.example = ex.file;
        b.addEventListener("click", () => load({ urls: [new URL(ex.file, EXAMPLES).href] }));
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

// Drag and drop anywhere on the page (the page's viewer) or on the viewer (an embedded one).
onDrag("dragenter", (e) => {
  if (![...(e.dataTransfer?.types || [])].includes("Files")) return;
  e.preventDefault();
  my.dragDepth++;
  $("drop-overlay").hidden = false;
});
onDrag("dragover", (e) => e.preventDefault());
onDrag("dragleave", () => {
  my.dragDepth = Math.max(0, my.dragDepth - 1);
  if (!my.dragDepth) $("drop-overlay").hidden = true;
});
onDrag("drop", (e) => {
  e.preventDefault();
  my.dragDepth = 0;
  $("drop-overlay").hidden = true;
  // Entries must be taken during the event; folders are walked afterwards.
  const items = [...(e.dataTransfer?.items || [])];
  const entries = items.map((it) => it.webkitGetAsEntry?.()).filter(Boolean);
  const files = [...(e.dataTransfer?.files || [])];
  if (entries.some((en) => en.isDirectory)) droppedEntries(entries).then((what) => what.files.length && load(what));
  else if (files.length) load({ files });
});

/** Adds `fn` as a `type` listener of every viewer's drop zone (context.js `ctx.drops`). */
function onDrag(type, fn) {
  onViewer(() => listen(current().drops, type, fn));
}

/** At most this many files are taken from dropped folders. */
const MAX_FOLDER_FILES = 5000;

/** The files of dropped entries with their paths; from folders, only source files. */
async function droppedEntries(entries) {
  const out = { files: [], paths: [] };
  const walk = async (entry, top) => {
    if (out.files.length >= MAX_FOLDER_FILES) return;
    if (entry.isFile) {
      if (!top && !isSourceName(entry.name)) return;
      out.files.push(await resume(new Promise((ok, fail) => entry.file(ok, fail))));
      out.paths.push(entry.fullPath.replace(/^\//, ""));
      return;
    }
    const reader = entry.createReader();
    for (;;) {
      const batch = await resume(new Promise((ok, fail) => reader.readEntries(ok, fail)));
      if (!batch.length) break;
      for (const child of batch) await walk(child, false);
    }
  };
  for (const entry of entries) await walk(entry, true);
  return out;
}

on("loaded", () => {
  frame().classList.toggle("loaded", S.loaded);
  $("empty").hidden = S.loaded;
  $("views").hidden = !S.loaded;
});
