// The worker's Parquet / Arrow answers: the viewer's Export → Parquet / Arrow (a zip of the
// dataset directory) and the SQL tab's tables. They need the second wasm module
// (pkg/columnar/, the crate built with its `columnar` feature), imported on the first such
// call only: the viewer's own wasm holds no Arrow code. The two instances share no memory, so
// the shown profile crosses as its tables-JSON document (lossless), once per profile.

let module = null;

/** The columnar module, instantiated once. */
function columnar() {
  module ??= import("./pkg/columnar/proftab.js").then(async (m) => {
    await m.default({ module_or_path: new URL("./pkg/columnar/proftab_bg.wasm", import.meta.url) });
    return m;
  });
  return module;
}

/** The columnar handlers of the worker; `viewer()` is the current Viewer. */
export function columnarHandlers(viewer) {
  // The columnar module's copy of the shown profile, and the Viewer it was made from.
  let copy = null;
  let copyOf = null;

  async function copyOfShown() {
    const m = await columnar();
    const v = viewer();
    if (!v) throw new Error("no profile is loaded");
    if (copyOf !== v) {
      copy?.free();
      copy = null;
      const { bytes, warnings } = v.exportWithWarnings("tables-json");
      if (warnings.length) throw new Error(`the profile cannot cross to the columnar module: ${warnings.map((w) => w.message).join("; ")}`);
      copy = m.Profile.parse(bytes, null);
      copyOf = v;
    }
    return copy;
  }

  return {
    /** `{bytes}`: a zip of the dataset directory `dir` in `container` ("parquet" or "arrow"). */
    async exportDataset({ container, dir }) {
      return { bytes: (await copyOfShown()).datasetZip(container, dir) };
    },
    /** `{table: Uint8Array}`: every table as Arrow IPC stream bytes (DuckDB-wasm's input). */
    async arrowTables() {
      return (await copyOfShown()).toArrow(true);
    },
  };
}
