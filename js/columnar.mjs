// Parquet and Arrow for the npm package's `Profile`: `toArrow`, `toParquet`, `fromArrow`,
// `fromParquet`. They live in a second wasm build of the crate (feature `columnar`,
// pkg/columnar-web and pkg/columnar-node), loaded on the first call, so that the main build
// (and the viewer's wasm) stays free of the Arrow crates. The two wasm instances share no
// memory: a profile crosses as its tables-JSON document, the lossless form both read.

/**
 * Adds the columnar methods to the `Profile` class of the main build. `load()` resolves to
 * the columnar build's module (its `Profile` and `tablesJsonOf`); it is called once.
 */
export function addColumnar(Profile, load) {
  let loaded = null;
  const columnar = () => {
    loaded ??= load();
    return loaded;
  };

  /** The columnar build's copy of `profile`; `use` runs on it, then it is freed. */
  async function onCopy(profile, what, use) {
    const c = await columnar();
    const { bytes, warnings } = profile.writeWithWarnings("tables-json", null, null);
    if (warnings.length) {
      throw new Error(`${what}: the profile cannot cross to the columnar module: ${warnings.map((w) => w.message).join("; ")}`);
    }
    const copy = c.Profile.parse(bytes, null);
    try {
      return use(copy);
    } finally {
      copy.free();
    }
  }

  Profile.prototype.toArrow = function toArrow(options = {}) {
    return onCopy(this, "toArrow", (p) => p.toArrow(Boolean(options.stream)));
  };
  Profile.prototype.toParquet = function toParquet() {
    return onCopy(this, "toParquet", (p) => p.toParquet());
  };
  Profile.fromArrow = async (tables) => Profile.parse((await columnar()).tablesJsonOf("arrow", tables), null);
  Profile.fromParquet = async (tables) => Profile.parse((await columnar()).tablesJsonOf("parquet", tables), null);
}
