// Stable colours: a function keeps its colour across loads and views. The hue comes from its
// group (file, or package prefix of the name), the lightness from the name itself, so one
// package reads as one colour family. Where the profile has `locations..frame_type`, a fixed
// per-type palette is used instead.

/** FNV-1a hash of a string, 32 bits. */
export function hash(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The package / module part of a frame name, used to group colours when no file is known. */
export function groupOf(name, file) {
  if (name.endsWith("_[k]") || name.endsWith("[kernel.kallsyms]")) return "[kernel]";
  const cpp = name.indexOf("::");
  if (cpp > 0) return name.slice(0, cpp);
  const slash = name.lastIndexOf("/");
  const dot = name.indexOf(".", slash + 1);
  if (dot > 0) return name.slice(0, dot);
  if (slash > 0) return name.slice(0, slash);
  return file || name;
}

// Frame types of OpenTelemetry's profile.frame.type (docs/formats/otlp.md) and a colour for each.
const TYPE_HUES = {
  native: 20,
  kernel: 0,
  jvm: 130,
  cpython: 210,
  php: 260,
  ruby: 340,
  perl: 290,
  v8js: 55,
  dotnet: 275,
  beam: 310,
  go: 190,
  rust: 30,
  abort: 0,
};

/** Colour table (CSS strings) per frame id for the theme. */
export function frameColors(frames, dark) {
  const n = frames.names.length;
  const useTypes = frames.types.some((t) => t);
  const out = new Array(n);
  for (let i = 0; i < n; i++) {
    const name = frames.names[i];
    const h2 = hash(name);
    let hue;
    let sat = 62;
    if (useTypes) {
      const t = frames.types[i];
      hue = t in TYPE_HUES ? TYPE_HUES[t] : hash(t) % 360;
      if (!t) sat = 8;
    } else {
      hue = (hash(groupOf(name, frames.files[i])) % 36) * 10;
    }
    const light = dark ? 30 + (h2 % 16) : 66 + (h2 % 16);
    out[i] = `hsl(${hue} ${sat}% ${light}%)`;
  }
  return out;
}

// ---------------------------------------------------------------- Compare mode

/**
 * Diverging palettes of the differential flame graph: the colour of "slower" (more in the
 * comparison) and of "faster" (less), for light and dark pages, each chosen so the frame text
 * keeps a contrast of about 4:1 or more.
 * - `rb`: ends of ColorBrewer's RdBu, red slower and blue faster (the default, as in Brendan
 *   Gregg's differential flame graphs).
 * - `cb`: Okabe and Ito's colour-universal-design colours, vermillion slower and blue faster.
 *   Simulated protan, deutan and tritan vision (Machado et al. 2009, full severity) keeps its
 *   two ends at CIELAB distance 89 or more, where RdBu's fall to 55 for protan viewers (red
 *   turns dark olive).
 */
export const DIFF_PALETTES = {
  rb: {
    label: "Red / blue",
    light: { slower: [214, 96, 77], faster: [67, 147, 195] },
    dark: { slower: [178, 24, 43], faster: [33, 102, 172] },
  },
  cb: {
    label: "Colour-blind safe",
    light: { slower: [213, 94, 0], faster: [86, 180, 233] },
    dark: { slower: [190, 80, 0], faster: [0, 100, 170] },
  },
};

/** Relative change at which the colour saturates: ±50 %. */
export const DIFF_SATURATION = 0.5;
/** Colour steps per side (the legend shows each). */
export const DIFF_STEPS = 10;
const NEUTRAL = { light: [232, 232, 235], dark: [58, 58, 64] };

/**
 * Signed intensity in [-1, 1] of a change from `base` to `next`: the relative change over
 * DIFF_SATURATION, clamped. Something new in the comparison is +1, something gone -1.
 */
export function diffIntensity(base, next) {
  if (base === next) return 0;
  if (!(base > 0)) return next > 0 ? 1 : -1;
  return Math.max(-1, Math.min(1, (next - base) / base / DIFF_SATURATION));
}

/**
 * The 2 * DIFF_STEPS + 1 colours (css strings) from fully faster through neutral to fully
 * slower; `diffColorIndex` picks one.
 */
export function diffColors(palette, dark) {
  const p = (DIFF_PALETTES[palette] || DIFF_PALETTES.rb)[dark ? "dark" : "light"];
  const neutral = NEUTRAL[dark ? "dark" : "light"];
  const out = [];
  for (let k = -DIFF_STEPS; k <= DIFF_STEPS; k++) {
    const end = k < 0 ? p.faster : p.slower;
    const t = Math.abs(k) / DIFF_STEPS;
    const c = neutral.map((n, j) => Math.round(n + (end[j] - n) * t));
    out.push(`rgb(${c[0]} ${c[1]} ${c[2]})`);
  }
  return out;
}

/** Index into `diffColors` for a change from `base` to `next`. */
export function diffColorIndex(base, next) {
  return Math.round(diffIntensity(base, next) * DIFF_STEPS) + DIFF_STEPS;
}
