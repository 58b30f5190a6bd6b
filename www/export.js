// Export: the profile in another format (written by the worker) or the active view as PNG or
// SVG, downloaded under a name derived from the first source; "Copy link": the profile
// (tables-json, gzipped) and the view state in the URL's fragment, when small enough.
import { resume } from "./context.js";
import { $ } from "./dom.js";
import { MERGED, NO_NODE } from "./flame.js";
import { showError } from "./messages.js";
import { frameColor, frameLabel, S, shareLink } from "./state.js";
import { linkParams, MAX_LINK_BYTES } from "./url.js";
import { activeViews } from "./views/index.js";
import { call } from "./worker-client.js";

const EXTENSIONS = {
  pprof: ".pb.gz",
  rprof: ".out",
  collapsed: ".collapsed",
  firefox: ".firefox.json",
  speedscope: ".speedscope.json",
  "tables-json": ".json",
  "tables-json-v1": ".v1.json",
  otlp: ".otlp",
  cpuprofile: ".cpuprofile",
};

function download(blob, name) {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}

function baseName() {
  const first = S.info.sources[0];
  const n = first?.uri || "profile";
  return n.replace(/^.*[\\/]/, "").replace(/\.(pb\.gz|pb|gz|json|out|prof|txt|cpuprofile|collapsed|folded)$/i, "") || "profile";
}

/**
 * Downloads the profile as a dataset directory in `container` ("parquet" or "arrow"), zipped:
 * `<name>/<table>/part-00000.<container>`, as `proftab convert -o <name> --to <container>`
 * writes it (docs/columnar.md). Nothing is lost, so there is no dialog.
 */
async function exportDataset(container) {
  const dir = baseName()
    .replace(/[^A-Za-z0-9_.-]/g, "_")
    .replace(/^\./, "_");
  try {
    const r = await call("exportDataset", { container, dir });
    download(new Blob([r.bytes], { type: "application/zip" }), `${dir}-${container}.zip`);
  } catch (e) {
    showError(`Export as a ${container} dataset failed: ${e.message}`);
  }
}

/** Downloads the profile as `fmt` (a writable format, 'dataset:parquet', 'dataset:arrow',
 * 'png' or 'svg'). */
export async function exportAs(fmt) {
  if (fmt.startsWith("dataset:")) return exportDataset(fmt.slice("dataset:".length));
  const view = activeViews()[0];
  if (fmt === "png") {
    const name = `${baseName()}-flamegraph.png`;
    view.canvas.toBlob((b) => b && download(b, name));
    return;
  }
  if (fmt === "svg") {
    download(new Blob([svgOf(view)], { type: "image/svg+xml" }), `${baseName()}-flamegraph.svg`);
    return;
  }
  let r;
  try {
    r = await call("export", { format: fmt });
  } catch (e) {
    showError(`Export as ${fmt} failed: ${e.message}`);
    return;
  }
  if (r.warnings.length && !(await confirmLosses(fmt, r.warnings))) return;
  download(new Blob([r.bytes]), `${baseName()}${EXTENSIONS[fmt] || `.${fmt}`}`);
}

/**
 * Lists what `fmt` cannot hold (the writer's warnings, each with its count) in the modal
 * #export-dialog before the download; resolves true for Download, false for Cancel or Escape.
 */
function confirmLosses(fmt, warnings) {
  const dialog = $("export-dialog");
  $("export-title").textContent = `Export as ${fmt}: what is lost`;
  $("export-intro").textContent =
    `${fmt} cannot hold everything this profile has; ${warnings.length} thing${warnings.length === 1 ? "" : "s"} will not be in the file:`;
  $("export-losses").replaceChildren(...warnings.map(lossItem));
  dialog.returnValue = "";
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "download"), { once: true });
    dialog.showModal();
    // Focused here, not by `autofocus`: a framed viewer (embed.html) may not autofocus.
    $("export-download").focus();
  });
}

/** One warning as a list item: its message and, beyond one, how many things it affects. */
function lossItem(w) {
  const li = document.createElement("li");
  li.textContent = w.message;
  if (w.count > 1) {
    const n = document.createElement("span");
    n.className = "loss-count";
    n.textContent = ` (${w.count.toLocaleString("en-US")} affected)`;
    li.append(n);
  }
  return li;
}

/** `n` bytes in KB, one decimal. */
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

/** gzip of `bytes` (the browser's CompressionStream). */
async function gzip(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await resume(new Response(stream).arrayBuffer()));
}

/**
 * "Copy link": the profile as gzipped tables-json (every table, so the view state applies as
 * it does here) and the view state, into the address's fragment and the clipboard; over
 * MAX_LINK_BYTES compressed, a message with the size instead. Says what it did in #link-status.
 */
export async function copyLink() {
  const status = $("link-status");
  status.textContent = "";
  let gz;
  try {
    gz = await gzip((await call("export", { format: "tables-json" })).bytes);
  } catch (e) {
    showError(`Copy link failed: ${e.message}`);
    return;
  }
  if (gz.length > MAX_LINK_BYTES) {
    showError(
      `No link: this profile is ${kb(gz.length)} compressed, and a link carries profiles up to ${kb(MAX_LINK_BYTES)} (the profile travels in the link itself, never through a server). Share the file instead (Export…).`,
    );
    return;
  }
  const href = shareLink(linkParams(gz, `${baseName()}.json.gz`));
  try {
    await resume(navigator.clipboard.writeText(href));
    status.textContent = `Link copied (${kb(gz.length)} profile inside).`;
  } catch {
    status.textContent = `Link in the address bar (${kb(gz.length)} profile inside); copying was refused.`;
  }
}

const NS = "http://www.w3.org/2000/svg";

function svgElement(name, attributes) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attributes)) e.setAttribute(k, v);
  return e;
}

/** The visible boxes of a view as an SVG document (text as text nodes, never markup). */
function svgOf(view) {
  const W = view.cssW;
  const H = view.cssH;
  const svg = svgElement("svg", { xmlns: NS, width: String(W), height: String(H), "font-family": "monospace", "font-size": "12" });
  const d = view.data;
  if (d) {
    const scale = W / (view.vx1 - view.vx0);
    for (let i = 0; i < d.b.node.length; i++) {
      const x = (d.b.x[i] - view.vx0) * scale;
      const w = d.b.width[i] * scale;
      const y = view.rowY(d.b.depth[i]);
      if (w < 1 || x + w < 0 || x > W || y < -18 || y > H) continue;
      svg.append(svgBox(view, d.b, i, x, y, w));
    }
  }
  return new XMLSerializer().serializeToString(svg);
}

/** Box `i` of the boxes `b` at (x, y), `w` wide: a titled rectangle with its label when it fits. */
function svgBox(view, b, i, x, y, w) {
  const frame = b.frame[i];
  const node = b.node[i];
  const color = view.o.boxColor ? view.o.boxColor(b, i) : frameColor(frame);
  const rect = svgElement("rect", {
    x: x.toFixed(2),
    y: String(y),
    width: Math.max(w - 1, 0.5).toFixed(2),
    height: "17",
    fill: frame === MERGED ? "#c8c8cc" : color,
  });
  const label = node === 0 ? "all" : node === NO_NODE ? "" : frameLabel(frame);
  const title = document.createElementNS(NS, "title");
  title.textContent = label;
  const g = document.createElementNS(NS, "g");
  g.append(title, rect);
  const chars = Math.floor((w - 6) / 7.2);
  if (chars >= 3 && label) {
    const t = svgElement("text", { x: (x + 3).toFixed(2), y: String(y + 13) });
    t.textContent = label.length > chars ? `${label.slice(0, chars - 1)}…` : label;
    g.append(t);
  }
  return g;
}
