// What the page tells the user besides the views: the error bar (#error), the progress
// overlay (#progress), the readers' warnings button (#warnings) and the page's load state
// (body[data-state]: ready, loading, shown, error; tests and benchmarks wait on it) and the
// mark of the first drawn flame graph of a load.
import { bound, current, perViewer } from "./context.js";
import { $, frame } from "./dom.js";
import { formatBytes } from "./format.js";

export function setPageState(state) {
  frame().dataset.state = state;
}

/** Tells the host page: event `proftab-<type>` with `detail` on the current viewer's element. */
export function announce(type, detail) {
  current().host.dispatchEvent(new CustomEvent(`proftab-${type}`, { detail, bubbles: true, composed: true }));
}

export function showError(text) {
  $("error-text").textContent = text;
  $("error").hidden = false;
}

export function hideError() {
  $("error").hidden = true;
}

$("error-close").addEventListener("click", hideError);

/** Shows a worker progress report ({phase, done, total, index, count} or {text}). */
export function showProgress(m) {
  const fill = $("progress-fill");
  $("progress").hidden = false;
  let text;
  if (m.phase === "reading" || m.phase === "downloading") {
    const which = m.count > 1 ? ` file ${m.index + 1} of ${m.count}` : "";
    // A parse session's mode (worker.js): the bytes are parsed or inflated as they arrive.
    const also = { lines: " and parsing", gunzip: " and inflating" }[m.mode] || "";
    const verb = `${m.phase === "reading" ? "Reading" : "Downloading"}${also}`;
    text = `${verb}${which}: ${formatBytes(m.done)}${m.total ? ` of ${formatBytes(m.total)}` : ""}`;
    fill.classList.remove("indeterminate");
    fill.style.width = m.total ? `${(100 * m.done) / m.total}%` : "0";
  } else if (m.phase === "parsing" && m.samplesTotal) {
    // A pprof profile parsed in steps (worker.js parseSteps), or as it is read the second
    // time (a large gzipped one, mode "again": src/formats/stream.rs): samples read of all.
    const which = m.count > 1 ? ` file ${m.index + 1} of ${m.count}` : "";
    const verb = m.mode === "again" ? "Reading again and parsing" : "Parsing";
    text = `${verb}${which}: ${m.samples.toLocaleString("en-US")} of ${m.samplesTotal.toLocaleString("en-US")} samples`;
    fill.classList.remove("indeterminate");
    fill.style.width = `${(100 * m.samples) / m.samplesTotal}%`;
  } else {
    const phases = { parsing: `Parsing ${formatBytes(m.total)}…`, analysing: "Building the call tree…" };
    text = phases[m.phase] || m.text || "Working…";
    fill.classList.add("indeterminate");
  }
  $("progress-text").textContent = text;
}

/** Calls `fn` when the user cancels what the progress overlay shows. */
export function onCancel(fn) {
  $("cancel").addEventListener("click", fn);
}

/**
 * Marks whether the flame graph of the current load was drawn (body[data-flamegraph-drawn]:
 * tests and benchmarks wait for "1"); `flamegraphDrawn()` reads the mark.
 */
export function setFlamegraphDrawn(drawn) {
  frame().dataset.flamegraphDrawn = drawn ? "1" : "0";
  if (!drawn || !waiting.fns.length) return;
  const fns = waiting.fns.splice(0);
  // Set while the frame that drew the graph runs: a task queued now runs after that frame is
  // rendered, so the graph is on screen before any of `fns` adds work to render.
  setTimeout(
    bound(() => {
      for (const fn of fns) fn();
    }),
    0,
  );
}

export function flamegraphDrawn() {
  return frame().dataset.flamegraphDrawn === "1";
}

/** Per viewer: what waits for the first drawn flame graph of the current load. */
const waiting = perViewer(() => ({ fns: [] }));

/**
 * Runs `fn` in this viewer once the flame graph of the current load is drawn and that frame
 * rendered; at once when it is drawn already.
 */
export function afterFlamegraphDrawn(fn) {
  if (flamegraphDrawn()) fn();
  else waiting.fns.push(fn);
}

/**
 * Marks whether the function table waits for the flame graph (body[data-table-waits]: "1"
 * from a load's analysis until the table is filled after the graph's first frame; tests that
 * read the table wait for it to be "0" or absent).
 */
export function setTableWaits(waits) {
  frame().dataset.tableWaits = waits ? "1" : "0";
}

export function tableWaits() {
  return frame().dataset.tableWaits === "1";
}

export function hideProgress() {
  $("progress").hidden = true;
}

/** The readers' warnings: a count in the bar; clicking it lists them in the message bar. */
export function showWarnings(list) {
  const b = $("warnings");
  b.hidden = list.length === 0;
  b.textContent = `⚠ ${list.length} warning${list.length === 1 ? "" : "s"}`;
  b.title = list.join("\n");
  b.onclick = () => showError(list.join("\n"));
}

/** The base name and build-id of a symboliser's `path (build-id)`. */
function binaryName(missing) {
  return missing.replace(/^.*\/(?=[^/]*$)/, "");
}

/**
 * What binaries did for a perf.data (`symbols` of the worker's info; null for other formats):
 * frames symbolised, the binaries still missing, by name and build-id, to drop, and why kernel
 * frames stayed unnamed (`kernel`: no kallsyms text dropped, or why the one dropped does not fit).
 */
export function showSymbols(symbols, kept = []) {
  const el = $("symbols");
  el.hidden = !symbols;
  if (!symbols) return;
  const { symbolised, unsymbolised, missing, binaries, kernel } = symbols;
  const given = kept.length ? ` (${kept.join(", ")} dropped)` : "";
  let text = `Symbols: ${symbolised.toLocaleString("en-US")} of ${(symbolised + unsymbolised).toLocaleString("en-US")} frames named from ${binaries} binar${binaries === 1 ? "y" : "ies"}${given}`;
  if (missing.length) text += `; drop to name the rest: ${missing.map(binaryName).join(", ")}`;
  if (kernel) text += `; kernel frames: ${kernel}`;
  el.textContent = text;
  el.title = missing.length ? `Binaries not found (recorded path and build-id):\n${missing.join("\n")}` : "";
}

/** With a profile shown: binaries dropped without a perf.data to use them. */
export function showBinariesKept(kept = []) {
  if (!kept.length) return;
  const el = $("symbols");
  el.hidden = false;
  el.textContent = `${kept.join(", ")} kept as ${kept.length === 1 ? "a binary" : "binaries"} for symbols: drop a perf.data to name its frames.`;
  el.title = "";
}
