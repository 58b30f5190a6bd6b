// Minimal proftab page: load the wasm, read dropped or picked files, show each one's info.
// Text from files (names, meta, warnings) is only ever set with textContent.
import init, { Profile } from "./pkg/proftab.js";

const drop = document.getElementById("drop");
const picker = document.getElementById("file");
const status = document.getElementById("status");
const results = document.getElementById("results");

/** An element with text content and optional class. */
function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = String(text);
  if (className) node.className = className;
  return node;
}

function table(headers, rows) {
  const t = el("table");
  const head = t.createTHead().insertRow();
  for (const h of headers) head.append(el("th", h));
  const body = t.createTBody();
  for (const row of rows) {
    const tr = body.insertRow();
    for (const cell of row) {
      tr.append(el("td", cell, typeof cell === "number" ? "num" : undefined));
    }
  }
  return t;
}

function renderInfo(name, info) {
  const section = el("section", undefined, "profile");
  section.dataset.format = info.format;
  section.dataset.samples = String(info.samples);
  section.append(el("h2", name));
  section.append(el("p", `Format ${info.format}, ${info.samples} samples`, "summary"));
  section.append(el("h3", "Value types"));
  section.append(table(["type", "unit", "total", "samples with a value"],
    info.valueTypes.map((v) => [v.type, v.unit, v.total, v.rows])));
  section.append(el("h3", "Tables"));
  section.append(table(["table", "rows", "extension columns"],
    info.tables.map((t) => [t.name, t.rows, t.extColumns.map((c) => `${c.name} (${c.kind})`).join(", ")])));
  if (info.meta.length > 0) {
    section.append(el("h3", "Meta"));
    section.append(table(["key", "value"], info.meta));
  }
  if (info.warnings.length > 0) {
    section.append(el("h3", "Warnings"));
    const list = el("ul", undefined, "warnings");
    for (const w of info.warnings) {
      list.append(el("li", w.count > 1 ? `${w.format}: ${w.message} (${w.count} times)` : `${w.format}: ${w.message}`));
    }
    section.append(list);
  }
  return section;
}

function renderError(name, message) {
  const section = el("section", undefined, "profile failed");
  section.append(el("h2", name));
  section.append(el("p", message, "error"));
  return section;
}

async function show(files) {
  results.replaceChildren();
  for (const file of files) {
    status.textContent = `Reading ${file.name}…`;
    try {
      const bytes = new Uint8Array(await file.arrayBuffer());
      const profile = Profile.parse(bytes, file.name);
      try {
        results.append(renderInfo(file.name, profile.info()));
      } finally {
        profile.free();
      }
    } catch (e) {
      results.append(renderError(file.name, e instanceof Error ? e.message : String(e)));
    }
  }
  status.textContent = `${files.length} file(s) read.`;
  document.body.dataset.state = "shown";
}

function listen() {
  picker.addEventListener("change", () => {
    if (picker.files && picker.files.length > 0) show([...picker.files]);
  });
  // Dropping anywhere must not make the browser navigate to the file.
  for (const type of ["dragover", "drop"]) {
    document.addEventListener(type, (e) => e.preventDefault());
  }
  drop.addEventListener("dragenter", () => drop.classList.add("over"));
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => {
    drop.classList.remove("over");
    const files = e.dataTransfer ? [...e.dataTransfer.files] : [];
    if (files.length > 0) show(files);
  });
}

try {
  await init();
  listen();
  status.textContent = "Ready: drop a profile.";
  document.body.dataset.state = "ready";
} catch (e) {
  status.textContent = `Could not load proftab's WebAssembly: ${e instanceof Error ? e.message : e}`;
  document.body.dataset.state = "error";
}
