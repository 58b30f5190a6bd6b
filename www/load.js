// Loading profiles: the file pickers, drag and drop anywhere on the page (#drop-overlay), the
// examples of the empty page (#empty), `?url=` and the load itself (worker, progress, errors,
// then state.js takes the answer). Owns #empty and the visibility of #views.
import { $ } from "./dom.js";
import { closeMenu } from "./menu.js";
import { hideError, hideProgress, onCancel, setFlamegraphDrawn, setPageState, showError, showProgress, showWarnings } from "./messages.js";
import { applyOptions, hashZoom, on, resolvePatterns, S, setLoaded, setProfile, setView, startTiming } from "./state.js";
import { searchText } from "./toolbar.js";
import { zoomTo } from "./views/index.js";
import { CANCELLED, call, cancel } from "./worker-client.js";

/** Loads `{files}` (File objects) or `{urls}` and shows the result. */
export async function load(what) {
  hideError();
  closeMenu();
  setFlamegraphDrawn(false);
  setPageState("loading");
  startTiming();
  showProgress({ phase: "reading", done: 0, total: 0, index: 0, count: 1 });
  let r;
  try {
    r = await call("load", what);
  } catch (e) {
    hideProgress();
    showError(e.message);
    setPageState(S.loaded ? "shown" : e.message === CANCELLED ? "ready" : "error");
    return;
  }
  showProgress({ phase: "layout", text: "Drawing…" });
  setProfile(r, searchText());
  setLoaded(true);
  setView(S.view);
  try {
    await resolvePatterns();
    await applyOptions();
    zoomTo(hashZoom());
  } catch (e) {
    showError(e.message);
  }
  hideProgress();
  setPageState("shown");
  showWarnings(r.info.warnings);
}

function cancelLoad() {
  cancel();
  setLoaded(false);
  setPageState("ready");
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

/** Loads the `?url=` parameters of the page's address, if any. */
export function loadFromAddress() {
  const urls = new URLSearchParams(location.search).getAll("url");
  if (urls.length) load({ urls: urls.map((u) => new URL(u, location.href).href) });
}

for (const id of ["file-input", "file-input-2"]) {
  $(id).addEventListener("change", (e) => {
    const files = [...e.target.files];
    e.target.value = "";
    if (files.length) load({ files });
  });
}
onCancel(cancelLoad);

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
  const files = [...(e.dataTransfer?.files || [])];
  if (files.length) load({ files });
});

on("loaded", () => {
  document.body.classList.toggle("loaded", S.loaded);
  $("empty").hidden = S.loaded;
  $("views").hidden = !S.loaded;
});
