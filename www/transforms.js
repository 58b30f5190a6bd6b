// The call-tree transforms a user can apply to a function (focus, hide, collapse recursion)
// and how the chips of the page become the worker's transform list. Pure: no DOM, no state.

/** The transform kind that hides a function (merges it into its caller). */
export const HIDE = 1;

/** `[kind, menu label, URL hash key]` per transform kind; the kind is the worker's number. */
export const TRANSFORMS = [
  [0, "Focus on function", "focus"],
  [1, "Hide function (merge into caller)", "hide"],
  [2, "Collapse recursion", "rec"],
  [3, "Collapse direct recursion only", "drec"],
];

/**
 * The worker's flat `[kind, frame, kind, frame, …]` list for the page's transforms: a pattern
 * chip (`{pattern, frames}`) stands for hiding each function it matched.
 */
export function transformArgs(transforms) {
  return transforms.flatMap((t) => (t.pattern === undefined ? [t.kind, t.frame] : t.frames.flatMap((f) => [HIDE, f])));
}

/** Frame ids whose search flag is set. */
export function matchedFrames(flags) {
  const out = [];
  for (let i = 0; i < flags.length; i++) if (flags[i]) out.push(i);
  return out;
}
