// dist/embed.html: the viewer for a host page that cannot bundle, in an iframe, driven by
// postMessage. Messages are objects with a `proftab` key (README "The iframe API"):
//   host → frame  {proftab: "load", files: [{name, bytes: ArrayBuffer}], view?, valueType?}
//                 (transfer the ArrayBuffers), {proftab: "select", name}
//   frame → host  {proftab: "ready"} (to any origin: it carries nothing), then, to the origin
//                 of the last load: {proftab: "loaded", formats, samples, valueTypes, failed},
//                 {proftab: "error", message}, {proftab: "selected", name, path}
// Only messages from the parent window are taken, and with `?origin=` in the frame's address
// only from that origin. `?theme=dark|light` sets the theme.
import "./element.js";

const viewer = document.querySelector("proftab-viewer");
const params = new URLSearchParams(location.search);
const allowed = params.get("origin");
if (params.get("theme")) viewer.setAttribute("theme", params.get("theme"));

/** The origin that sent the last load: where the answers go. */
let host = null;
const tell = (message) => host && window.parent.postMessage({ ...message }, host);

viewer.addEventListener("proftab-load", (e) => tell({ proftab: "loaded", ...e.detail }));
viewer.addEventListener("proftab-error", (e) => tell({ proftab: "error", message: e.detail.message }));
viewer.addEventListener("proftab-select", (e) => tell({ proftab: "selected", ...e.detail }));

window.addEventListener("message", (e) => {
  if (e.source !== window.parent || (allowed && e.origin !== allowed)) return;
  const m = e.data;
  if (m?.proftab === "load") {
    host = e.origin === "null" ? "*" : e.origin;
    if (m.view) viewer.setAttribute("view", m.view);
    if (m.valueType) viewer.setAttribute("value-type", m.valueType);
    const files = (m.files || []).map((f, i) => new File([f.bytes], f.name || `profile-${i + 1}`));
    viewer.load(files);
  } else if (m?.proftab === "select") viewer.select(String(m.name));
});

if (window.parent !== window) window.parent.postMessage({ proftab: "ready" }, "*");
