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
  if (name.endsWith('_[k]') || name.endsWith('[kernel.kallsyms]')) return '[kernel]';
  const cpp = name.indexOf('::');
  if (cpp > 0) return name.slice(0, cpp);
  const slash = name.lastIndexOf('/');
  const dot = name.indexOf('.', slash + 1);
  if (dot > 0) return name.slice(0, dot);
  if (slash > 0) return name.slice(0, slash);
  return file || name;
}

// Frame types of OpenTelemetry's profile.frame.type (seed 003) and a colour for each.
const TYPE_HUES = {
  native: 20, kernel: 0, jvm: 130, cpython: 210, php: 260, ruby: 340, perl: 290, v8js: 55,
  dotnet: 275, beam: 310, go: 190, rust: 30, abort: 0,
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
